"""Lazy edits merged (BEHAVIOR.md §5 "Lazy edits"): a snippet that shows part of a file,
with placeholder notes standing for the code it leaves out, merged into the file exactly,
or refused.  Pure: lines in, lines out.

- **Anchors**: lines found once in the snippet and once in the file (not a placeholder,
  not a line too common to say where it is: a brace, ``else:``, a blank) tie the snippet
  to the file, in order.  None, and the snippet is refused.
- **Between two anchors** the snippet's lines are aligned with the file's: a shown line
  equal to a file line (whitespace aside) keeps it; a placeholder keeps a run of the
  file's lines that sit inside its block (indented at least as deep as the note); a shown
  line with no counterpart is new; a file line neither shown nor kept is deleted (code
  left out between two lines the snippet shows as neighbours: Cursor's and Morph's
  convention).  Before the first anchor and after the last, the file's lines outside the
  snippet are kept.  The alignment is the one with fewest new and deleted lines; when two
  such alignments give different files, the snippet is ambiguous: refused.
- **Refusals, never guesses**: no anchor, a placeholder that keeps nothing, a line of the
  file that would appear twice, code that would move (a file line deleted in one place
  and written in another), brackets that no longer balance.  Each names the placeholder or
  the line, with the file's candidate lines.
- **Indentation**: a snippet written at another depth than the file (a method at column
  0) takes the file's depth from its anchors; its new lines move with it.
"""
from __future__ import annotations

from ..record import field, record

# lines too common to anchor a snippet (a closing brace says nothing about where it is)
_WEAK = frozenset({"", "{", "}", "};", "},", ")", ");", "),", "]", "];", "],", "end", "fi",
                   "done", "esac", "else:", "else", "} else {", "try:", "finally:", "pass",
                   "return", "return;", "break", "break;", "continue", "continue;", "...",
                   "</div>", "<div>", '"""', "'''", "*/", "/*", "#", "//", "--", "end;"})
_INF = float("inf")
# lines that only close a block: they do not say which block a snippet's lines are in
_CLOSERS = frozenset({"}", "};", "},", ")", ");", "),", "]", "];", "],", "end", "fi", "done",
                      "esac", "end;", "</div>"})
# costs of the alignment: a new or a deleted line; a placeholder that stops while the
# file's next line still sits in its block (it stands for the whole run, so this only
# breaks ties)
_EDIT = 1000
_EARLY_END = 1
# the cells of alignment tables a merge may fill: a few per line of its input, so that it
# stays linear (gaps between anchors are short where anchors are dense; a long gap that
# meets many snippet lines is refused rather than aligned in quadratic time)
_CELLS_PER_LINE = 40
_CELLS_FREE = 400_000


@record
class KeptRun:
    """What one placeholder kept: its line in the snippet (1-based) and the file's lines
    it stands for (1-based, inclusive; ``first > last`` when it kept none)."""

    note_line: int
    note: str
    first: int
    last: int


@record
class Merged:
    """The merged file's lines, and what each placeholder kept."""

    lines: list[str]
    kept: list[KeptRun] = field(default_factory=list)


class LazyRefusal(Exception):
    """A snippet that cannot be merged exactly: the reason, worded for the model, the
    snippet line it is about (1-based) and the file's candidate lines (1-based)."""

    def __init__(self, reason: str, line: int | None = None, candidates: list[int] | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.candidates = candidates or []


def _key(line: str) -> str:
    return line.strip()


def _width(ws: str) -> int:
    return len(ws.expandtabs(4))


def _ws(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def merge(file_lines: list[str], snippet: list[str], placeholders: set[int],
          declared: dict[int, str] | None = None, overloads: bool = False) -> Merged:
    """``snippet`` (its lines; ``placeholders``: the 0-based indexes of its placeholder
    notes) merged into ``file_lines``; LazyRefusal when it cannot be, exactly.
    ``declared``: the file's rows that declare a name, with their text up to it
    (``CodeTree.declared_names``), for anchors by name; ``overloads``: the language lets
    several definitions share a name."""
    snippet = _trim_blank_ends(snippet, placeholders)
    snippet, placeholders = snippet[0], snippet[1]
    anchors = _anchors(file_lines, snippet, placeholders)
    changed: set[int] = set()
    if declared:
        by_name = _named_anchors(file_lines, snippet, placeholders, anchors, declared,
                                 overloads)
        if by_name:
            anchors = _longest_chain(sorted(anchors + by_name))
            changed = {s for s, _f in by_name} & {s for s, _f in anchors}
    if not anchors:
        first = min(placeholders) + 1 if placeholders else None
        raise LazyRefusal("no line of the snippet is found exactly once in the file, so "
                          "nothing says where it goes"
                          + (" or which lines its placeholder keeps" if first else ""), first)
    shift = _shift(file_lines, snippet, anchors)
    depth_known = shift is not None
    shift = shift or ("", "")
    out: list[tuple[str, int | None]] = []
    kept: list[KeptRun] = []
    bounds = [(-1, -1)] + anchors + [(len(snippet), len(file_lines))]
    budget = [_CELLS_PER_LINE * (len(file_lines) + len(snippet)) + _CELLS_FREE]
    for (s0, f0), (s1, f1) in zip(bounds, bounds[1:]):
        head, tail = s0 == -1, s1 == len(snippet)
        items = list(range(s0 + 1, s1))
        gap = _align(file_lines, f0 + 1, f1, snippet, items, placeholders, shift, head, tail,
                     depth_known, budget)
        out.extend(gap.lines)
        kept.extend(gap.kept)
        if s1 < len(snippet):
            if s1 in changed:  # a declaration the snippet rewrites: its text
                out.append((_moved(snippet[s1], shift), f1))
            else:
                out.append((_anchor_line(file_lines, snippet, s1, f1, shift if depth_known
                                         else None), f1))
    _check(file_lines, out, kept, snippet, placeholders)
    return Merged([line for line, _f in out], kept)


def _trim_blank_ends(snippet: list[str], placeholders: set[int]):
    start = 0
    while start < len(snippet) and not snippet[start].strip():
        start += 1
    end = len(snippet)
    while end > start and not snippet[end - 1].strip():
        end -= 1
    return snippet[start:end], {p - start for p in placeholders if start <= p < end}


def _anchors(file_lines: list[str], snippet: list[str],
             placeholders: set[int]) -> list[tuple[int, int]]:
    """(snippet index, file index) of the lines found once in each, in an order both
    agree on (the longest such chain: a unique line out of order is not an anchor)."""
    from collections import Counter

    in_file = Counter(_key(line) for line in file_lines)
    in_snippet = Counter(_key(line) for i, line in enumerate(snippet) if i not in placeholders)
    where = {}
    for f, line in enumerate(file_lines):
        k = _key(line)
        if in_file[k] == 1 and in_snippet.get(k) == 1 and k not in _WEAK:
            where[k] = f
    pairs = [(s, where[_key(line)]) for s, line in enumerate(snippet)
             if s not in placeholders and _key(line) in where]
    return _longest_chain(pairs)


def _named_anchors(file_lines, snippet, placeholders, anchors, declared, overloads
                   ) -> list[tuple[int, int]]:
    """Anchors by name: between two anchors (or before the first, after the last), a
    line of the snippet found nowhere in the file that begins with the name of a
    declaration the snippet does not show (``def put(self, key, value, replace=True):``
    for ``def put(self, key, value):``), the one such pair for that name on both sides
    and the two lines opening the same way (both a block, or neither).  The snippet's
    line replaces the file's.  Where definitions may share a name (overloads), such a
    line may be a new definition beside the old one: refused."""
    from bisect import bisect_right

    in_file = {_key(line) for line in file_lines}
    in_snippet = {_key(line) for i, line in enumerate(snippet) if i not in placeholders}
    bounds = [(-1, -1)] + anchors + [(len(snippet), len(file_lines))]
    out: list[tuple[int, int]] = []
    rows = sorted(declared)
    for (s0, f0), (s1, f1) in zip(bounds, bounds[1:]):
        names = [(f, declared[f].strip()) for f in rows[bisect_right(rows, f0):
                                                         bisect_right(rows, f1 - 1)]
                 if _key(file_lines[f]) not in in_snippet and declared[f].strip()]
        if not names:
            continue
        lines = [s for s in range(s0 + 1, s1) if s not in placeholders
                 and _key(snippet[s]) and _key(snippet[s]) not in in_file]
        for s, f in _name_pairs(file_lines, snippet, names, lines):
            if overloads:
                raise LazyRefusal(
                    f"the snippet writes {snippet[s].strip()!r} where the file has "
                    f"{file_lines[f].strip()!r}, a definition of the same name: whether "
                    "it replaces it or is a new one beside it cannot be told", s + 1,
                    [f + 1])
            out.append((s, f))
    return out


def _name_pairs(file_lines, snippet, names, lines) -> list[tuple[int, int]]:
    """(snippet line, file row) pairs of one gap that declare the same name, each the
    only one of its kind on both sides."""
    from collections import Counter, defaultdict

    count = Counter(name for _f, name in names)
    found: dict[int, list[int]] = defaultdict(list)  # snippet line -> file rows
    takers: dict[int, list[int]] = defaultdict(list)  # file row -> snippet lines
    for f, name in names:
        if count[name] != 1:
            continue
        for s in lines:
            if _same_declaration(_key(snippet[s]), _key(file_lines[f]), name):
                found[s].append(f)
                takers[f].append(s)
    return [(s, fs[0]) for s, fs in sorted(found.items())
            if len(fs) == 1 and len(takers[fs[0]]) == 1]


def _same_declaration(line: str, file_line: str, name: str) -> bool:
    """Whether ``line`` (stripped) declares ``name`` (the file's text up to the name) as
    ``file_line`` does: it begins with it, the name ends there, and both lines open a
    block or neither does."""
    if not line.startswith(name):
        return False
    rest = line[len(name):]
    if rest[:1] and (rest[0].isalnum() or rest[0] == "_"):
        return False
    return _opens(line) == _opens(file_line)


def _first_word(key: str) -> str:
    """A stripped line's first word, up to a bracket or punctuation (``def``, ``image``)."""
    word = key.split(None, 1)[0] if key else ""
    for i, c in enumerate(word):
        if c in "([{:=,;<":
            return word[:i]
    return word


def _opens(line: str) -> str:
    """How a line opens what follows: its last character when a bracket, a colon or a
    comma (a block, a header continued), else nothing."""
    last = line.rstrip()[-1:]
    return last if last in "{([:," else ""


def _longest_chain(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (in snippet order) whose file indexes rise."""
    from bisect import bisect_left

    tails: list[int] = []  # file index ending the best chain of each length
    tail_at: list[int] = []  # the pair index ending it
    before = [-1] * len(pairs)
    for n, (_s, f) in enumerate(pairs):
        k = bisect_left(tails, f)
        if k:
            before[n] = tail_at[k - 1]
        if k == len(tails):
            tails.append(f)
            tail_at.append(n)
        else:
            tails[k], tail_at[k] = f, n
    chain = []
    n = tail_at[-1] if tail_at else -1
    while n != -1:
        chain.append(pairs[n])
        n = before[n]
    return chain[::-1]


def _shift(file_lines, snippet, anchors) -> tuple[str, str] | None:
    """How the snippet's indentation maps to the file's: (snippet prefix, file prefix),
    the one most anchors agree on (a method written at column 0: ("", "    ")); None when
    no mapping has more anchors than every other (then depth is not compared).  An
    anchor at another depth is a line the snippet re-indents (``_anchor_line``)."""
    from collections import Counter

    shifts = Counter(_shift_of(snippet[s], file_lines[f]) for s, f in anchors)
    ranked = shifts.most_common(2)
    if not ranked or ranked[0][0] is None or len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
        return None
    return ranked[0][0]


def _shift_of(snippet_line: str, file_line: str) -> tuple[str, str] | None:
    sw, fw = _ws(snippet_line), _ws(file_line)
    if fw.endswith(sw):
        return ("", fw[:len(fw) - len(sw)])
    if sw.endswith(fw):
        return (sw[:len(sw) - len(fw)], "")
    return None


def _anchor_line(file_lines, snippet, s: int, f: int, shift) -> str:
    """An anchor as the merge writes it: the file's line, or the snippet's moved to the
    file's depth when the snippet puts it at another depth than its other anchors (a
    block wrapped in a new statement)."""
    if shift is None or _shift_of(snippet[s], file_lines[f]) == shift:
        return file_lines[f]
    return _moved(snippet[s], shift)


def _moved(line: str, shift: tuple[str, str]) -> str:
    """A new line of the snippet at the file's depth."""
    drop, add = shift
    if not line.strip():
        return ""
    if drop and line.startswith(drop):
        line = line[len(drop):]
    return add + line


@record
class _Gap:
    lines: list[tuple[str, int | None]]  # each with the file line it is (None: new)
    kept: list[KeptRun]


def _align(file_lines, f_lo, f_hi, snippet, items, placeholders, shift, head, tail,
           depth_known=True, budget=None) -> _Gap:
    """The file's lines [f_lo, f_hi) and the snippet's ``items`` between two anchors,
    aligned (module docstring); ``head`` / ``tail``: the gap before the first anchor or
    after the last, whose file lines outside the snippet are kept.  Blank lines take no
    part in the alignment: the file's follow the code they stand before (``_emit``).
    ``budget``: the cells of alignment tables the merge may still fill (a one-item list),
    so that the whole merge stays linear in its input: past it, refused."""
    if not any(snippet[s].strip() for s in items) and \
            not any(file_lines[f].strip() for f in range(f_lo, f_hi)) and not tail:
        # two anchors side by side (blank lines aside): the file's blank lines between
        return _Gap([(file_lines[f], f) for f in range(f_lo, f_hi)], [])
    gap = _GapText(file_lines, f_lo, f_hi, snippet, items, placeholders, shift, head, tail,
                   depth_known, budget)
    results = [gap.walk(prefer_late=True)]
    # the other preference, only where a choice was made: else the same alignment
    results.append(gap.walk(prefer_late=False) if gap.tied else results[0])
    if [line for line, _f in results[0].lines] != [line for line, _f in results[1].lines]:
        note = next((s for s in items if s in placeholders), items[0] if items else None)
        raise LazyRefusal(
            "the snippet can be merged in more than one way here: the lines around it "
            "repeat in the file", None if note is None else note + 1, [f_lo + 1, f_hi])
    return results[0]


class _GapText:
    """One gap's alignment: the cost table over its non-blank lines, and its walks."""

    def __init__(self, file_lines, f_lo, f_hi, snippet, items, placeholders, shift, head, tail,
                 depth_known=True, budget=None):
        self.file_lines, self.f_lo, self.f_hi = file_lines, f_lo, f_hi
        self.snippet, self.placeholders, self.shift = snippet, placeholders, shift
        self.head, self.tail = head, tail
        self.rows = [f for f in range(f_lo, f_hi) if file_lines[f].strip()]  # file indexes
        self.items = [s for s in items if snippet[s].strip()]
        self.depths = [_width(_ws(file_lines[f])) for f in self.rows]
        shift_width = _width(shift[1]) - _width(shift[0])
        # a shown line keeps a file line of its text at its depth (the anchors' mapping):
        # a block re-indented under a new statement is new text, and a closing brace
        # closes the block at its own depth.  Without a mapping, the text alone.
        self.sdepths = [_width(_ws(snippet[s])) + shift_width if depth_known else None
                        for s in self.items]
        self.keys = [_key(file_lines[f]) for f in self.rows]
        self.skeys = [_key(snippet[s]) for s in self.items]
        cells = (len(self.rows) + 1) * (len(self.items) + 1)
        if budget is not None:
            budget[0] -= cells
            if budget[0] < 0:
                note = next((s for s in self.items if s in placeholders), self.items[0])
                raise LazyRefusal(
                    f"the snippet has {len(self.items)} lines between two lines the file has "
                    f"once, {len(self.rows)} lines apart in the file: too long a stretch to "
                    "align; show more lines exactly as the file has them", note + 1,
                    [f_lo + 1, f_hi])
        self.fits = self._fits()
        self.starts = self._starts()
        self.tail_cost = self._tail_costs()
        self.cost = self._costs()

    def _fits(self) -> list[list[bool] | None]:
        """For each placeholder item: which of the gap's lines sit inside its block."""
        shift_width = _width(self.shift[1]) - _width(self.shift[0])
        out: list[list[bool] | None] = []
        for s in self.items:
            if s not in self.placeholders:
                out.append(None)
                continue
            depth = _width(_ws(self.snippet[s])) + shift_width
            out.append([d >= depth for d in self.depths])
        if self.head and self.items and self.items[0] in self.placeholders:
            # a placeholder that opens the snippet stands for all the file above
            out[0] = [True] * len(self.rows)
        return out

    def _starts(self) -> list[list[bool] | None]:
        """For each placeholder item: the gap's lines its run may begin at.  Not inside
        the block of the line the snippet shows before the note: a statement at the note's
        depth, or shallower than that shown line (a note stands for the statements after
        the block the snippet showed, never for the rest of it: `return 1` after a shown
        `return 2` under `def helper():` is replaced, not kept).  A placeholder that opens
        the snippet may begin anywhere."""
        shift_width = _width(self.shift[1]) - _width(self.shift[0])
        out: list[list[bool] | None] = []
        for a, s in enumerate(self.items):
            fits = self.fits[a]
            if fits is None:
                out.append(None)
                continue
            shown = self._shown_before(s)
            if shown is None:
                out.append(list(fits))
                continue
            depth = _width(_ws(self.snippet[s])) + shift_width
            inner = _width(_ws(self.snippet[shown])) + shift_width
            out.append([f and (d <= depth or d < inner) for f, d in zip(fits, self.depths)])
        return out

    def _shown_before(self, s: int) -> int | None:
        """The snippet's last shown line (not blank, not a placeholder) before line ``s``."""
        b = s - 1
        while b >= 0 and (not self.snippet[b].strip() or b in self.placeholders):
            b -= 1
        return b if b >= 0 else None

    def same(self, a: int, t: int) -> bool:
        """Whether item ``a`` shows the file's line ``t`` of the gap."""
        return self.skeys[a] == self.keys[t] and self.sdepths[a] in (None, self.depths[t])

    def may_end(self, a: int, t: int) -> bool:
        """Whether placeholder item ``a`` may stop before line ``t``: not before a line
        that closes a block inside its own (a closing brace or ``end`` as deep as the
        note or deeper: the run would keep a block's opening and leave its end)."""
        return t >= len(self.rows) or not (self.fits[a][t] and self.keys[t] in _CLOSERS)

    def _tail_costs(self) -> list[int]:
        """What ending the snippet before line t of the gap costs.  Between anchors, each
        line up to the anchor is deleted.  In the tail, the rest of the file is kept from
        the end of the block the snippet's last lines are in (a line shallower than all
        of them: code of that block left out is deleted, Cursor's convention); snippet
        lines at the top level, or none, end it anywhere."""
        m = len(self.rows)
        if not self.tail:
            return [(m - t) * _EDIT for t in range(m + 1)]
        shift_width = _width(self.shift[1]) - _width(self.shift[0])
        depths = [_width(_ws(self.snippet[s])) + shift_width for s in self.items
                  if _key(self.snippet[s]) not in _CLOSERS]
        limit = min(depths, default=0)
        costs = [0] * (m + 1)
        for t in range(m - 1, -1, -1):
            inside = limit > 0 and _width(_ws(self.file_lines[self.rows[t]])) >= limit
            costs[t] = costs[t + 1] + _EDIT if inside else 0
        return costs

    def _costs(self) -> list[list[float]]:
        """cost[a][t]: the fewest new and deleted lines aligning items[a:] with rows[t:]."""
        m, k = len(self.rows), len(self.items)
        cost = [[_INF] * (m + 1) for _ in range(k + 1)]
        cost[k] = list(self.tail_cost)
        # a placeholder's run once begun: cost_in[a][t]
        self.cost_in: dict[int, list[float]] = {}
        for a in range(k - 1, -1, -1):
            fits, row, nxt, key = self.fits[a], cost[a], cost[a + 1], self.skeys[a]
            if fits is not None:
                inn = self.cost_in[a] = [_INF] * (m + 1)
                starts = self.starts[a]
            for t in range(m, -1, -1):
                if fits is not None:  # the placeholder ends here (early while its block goes on)
                    end = (nxt[t] + (_EARLY_END if t < m and fits[t] else 0)
                           if self.may_end(a, t) else _INF)
                    inn[t] = min(end, inn[t + 1]) if t < m and fits[t] else end
                    # a placeholder that keeps nothing costs as a line the file lacks
                    best = min(end + _EDIT, inn[t + 1]) if t < m and starts[t] else end + _EDIT
                else:
                    best = nxt[t] + _EDIT  # a new line
                    if t < m:
                        if key == self.keys[t] and self.same(a, t):
                            best = min(best, nxt[t + 1])
                        best = min(best, row[t + 1] + _EDIT)  # the file's line is deleted
                row[t] = best
        return cost

    def _moves(self, a: int, t: int, prefer_late: bool, started: bool = False) -> str:
        """The first optimal move from (a, t), by the preference (``started``: placeholder
        ``a`` has begun its run)."""
        m, cost = len(self.rows), self.cost
        fits = self.fits[a]
        if fits is not None:
            here = self.cost_in[a][t] if started else cost[a][t]
            may = fits if started else self.starts[a]
            moves = []
            if t < m and may[t] and self.cost_in[a][t + 1] == here:
                moves.append("consume")
            empty = 0 if started else _EDIT
            if self.may_end(a, t) and \
                    cost[a + 1][t] + (_EARLY_END if t < m and fits[t] else 0) + empty == here:
                moves.append("end")
            return self._pick(moves, prefer_late)
        here = cost[a][t]
        if t < m and self.same(a, t) and cost[a + 1][t + 1] == here:
            return "match"
        late = []
        if t < m and cost[a][t + 1] + _EDIT == here:
            late.append("delete")
        if cost[a + 1][t] + _EDIT == here:
            late.append("new")
        return self._pick(late, prefer_late)

    def _pick(self, moves: list[str], prefer_late: bool) -> str:
        """The preferred of the optimal moves (noting a tie: the other walk may differ)."""
        if len(moves) > 1:
            self.tied = True
        return moves[0] if prefer_late or len(moves) == 1 else moves[1]

    def _start_cost(self, t: int) -> float:
        """Starting the snippet at line t of the head gap: the lines before are kept as
        outside the snippet, unless a placeholder opens it (it keeps them)."""
        opens = bool(self.items) and self.items[0] in self.placeholders
        if opens and t > 0:  # it keeps them itself
            return _INF
        return self.cost[0][t]

    def walk(self, prefer_late: bool) -> _Gap:
        """One optimal alignment, as the gap's text; ``prefer_late``: a placeholder keeps
        as much as it can and new lines go as late as they can (else the opposite)."""
        m, k = len(self.rows), len(self.items)
        candidates = range(m + 1) if self.head else range(1)
        total = min(self._start_cost(t) for t in candidates)
        starts = [t for t in candidates if self._start_cost(t) == total]
        self.tied = len(starts) > 1
        t = starts[-1] if prefer_late else starts[0]
        keep = [True] * t + [False] * (m - t)  # before the snippet: kept
        new_before: dict[int, list[int]] = {}  # line t of the gap -> new items before it
        kept: list[KeptRun] = []
        a, run_start = 0, None
        while a < k:
            move = self._moves(a, t, prefer_late, started=run_start is not None)
            if move in ("consume", "match"):
                keep[t] = True
                run_start = t if move == "consume" and run_start is None else run_start
                t += 1
                a += move == "match"
            elif move == "end":
                kept.append(self._kept_run(a, run_start, t))
                run_start = None
                a += 1
            elif move == "delete":
                t += 1
            else:
                new_before.setdefault(t, []).append(self.items[a])
                a += 1
        if self.tail:  # the block the snippet showed ends; the rest of the file is kept
            while t < m and self.tail_cost[t]:
                t += 1
            for u in range(t, m):
                keep[u] = True
        return _Gap(self._emit(keep, new_before), kept)

    def _kept_run(self, a: int, run_start: int | None, t: int) -> KeptRun:
        s = self.items[a]
        first = self.rows[run_start] + 1 if run_start is not None else (
            self.rows[t] + 1 if t < len(self.rows) else self.f_hi + 1)
        last = self.rows[t - 1] + 1 if run_start is not None else first - 1
        return KeptRun(s + 1, self.snippet[s].strip(), first, last)

    def _emit(self, keep: list[bool], new_before: dict[int, list[int]]
              ) -> list[tuple[str, int | None]]:
        """The gap's lines, each with the file line it is (None: new): kept file lines
        with the blank lines before them, new lines with the snippet's blank lines before
        them, where the alignment put them.  New lines the snippet writes right before a
        kept line (no blank between: a decorator, a new first statement) go after the
        file's blank lines before that line, and take none of the snippet's."""
        out: list[tuple[str, int | None]] = []
        m = len(self.rows)
        prev_file = self.f_lo  # the file line after the last one emitted or passed
        for t in range(m + 1):
            end = self.rows[t] if t < m else self.f_hi
            kept = self._kept_at(keep, t)
            blanks = (range(prev_file, end) if t == m or prev_file < end else range(0)) \
                if kept else range(0)
            news = new_before.get(t, [])
            attached = kept and (t < m or not self.tail) and bool(blanks) \
                and self._written_right_before(news)
            if attached:
                out.extend((self.file_lines[f], f) for f in blanks)
            for n, s in enumerate(news):
                if not (attached and n == 0):
                    out.extend(("", None) for _ in self._blanks_before(s))
                out.append((_moved(self.snippet[s], self.shift), None))
            if not attached:
                out.extend((self.file_lines[f], f) for f in blanks)
            if kept and t < m:
                out.append((self.file_lines[end], end))
            prev_file = end + 1
        return out

    def _kept_at(self, keep: list[bool], t: int) -> bool:
        """Whether line t of the gap (t == its length: the gap's end) is kept; blank lines
        go with the code after them, and before an anchor always."""
        m = len(self.rows)
        if t < m:
            return keep[t]
        return not self.tail or m == 0 or keep[m - 1]

    def _written_right_before(self, news: list[int]) -> bool:
        """Whether the snippet writes these new lines right before a shown line (no blank
        line between: a decorator, a new first statement)."""
        after = news[-1] + 1 if news else len(self.snippet)
        return (after < len(self.snippet) and bool(self.snippet[after].strip())
                and after not in self.placeholders)

    def _blanks_before(self, s: int) -> list[int]:
        """The snippet's blank lines right before item ``s``, when the item before them
        is new too or a placeholder (a blank line between new code and kept code comes
        from the file)."""
        b = s - 1
        while b >= 0 and not self.snippet[b].strip():
            b -= 1
        return list(range(b + 1, s)) if b >= 0 else []


def _check(file_lines, out, kept, snippet, placeholders) -> None:
    """The refusals a merged result can still earn (module docstring)."""
    from collections import Counter

    for run in kept:
        body = [line for line in file_lines[run.first - 1:run.last] if line.strip()]
        if not body:
            raise LazyRefusal(f"the placeholder {run.note!r} stands for no line of the file "
                              "where it is: the lines around it do not match the file there",
                              run.note_line, [max(run.first - 1, 1)])
    before = Counter(_key(line) for line in file_lines)
    position = {k: f for f, k in enumerate(_key(line) for line in file_lines)
                if before[k] == 1 and k not in _WEAK}  # the file's unique lines
    kept_rows = {f for _line, f in out if f is not None}
    _check_twice(out, snippet, placeholders, position, kept_rows)
    _check_order(file_lines, out, position, kept_rows)
    if _balance(file_lines) == 0 and _balance([line for line, _f in out]) != 0:
        raise LazyRefusal("merged, the file's brackets would no longer balance: the snippet "
                          "opens or closes a block the file does not", None, [])


def _check_twice(out, snippet, placeholders, position, kept_rows) -> None:
    """A unique line of the file, kept and written anew: more often than the file or
    the snippet has it."""
    from collections import Counter

    new = Counter(_key(line) for line, f in out if f is None and line.strip())
    shown = Counter(_key(line) for i, line in enumerate(snippet) if i not in placeholders)
    for line, n in new.items():
        f = position.get(line)
        if f is None or n + (f in kept_rows) <= max(1, shown[line]):
            continue
        raise LazyRefusal(f"merged, the line {line!r} would appear twice: the snippet writes "
                          "it anew while a placeholder or the file keeps it", None, [f + 1])


def _check_order(file_lines, out, position, kept) -> None:
    """Code that would move: a new line with the text of a unique line of the file that
    the merge deletes, written outside the place that line had (between the kept lines
    around it; in place, it is that line rewritten: re-indented, say)."""
    last = -1  # the file line kept last, before this one
    nexts = [len(file_lines)] * (len(out) + 1)  # the file line kept next, after each
    for i in range(len(out) - 1, -1, -1):
        nexts[i] = out[i][1] if out[i][1] is not None else nexts[i + 1]
    for i, (line, origin) in enumerate(out):
        if origin is not None:
            last = origin
            continue
        f = position.get(_key(line))
        if f is None or f in kept or last < f < nexts[i + 1]:
            continue
        raise LazyRefusal(f"merged, the line {line.strip()!r} would move from line {f + 1} "
                          "of the file: the snippet shows it in another place", None, [f + 1])


def _balance(lines: list[str]) -> int:
    """Opening minus closing brackets (a rough count: strings and comments included, the
    same way before and after)."""
    text = "".join(lines)
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


def declarations(path: str, file_lines: list[str], snippet: list[str],
                 placeholders: set[int]) -> tuple[dict[int, str], bool]:
    """The file's rows that declare a name (by its grammar; none without one), and
    whether its language lets definitions share a name.  The file is read only when a
    line of the snippet the file does not have begins with the first word of a line of
    the file the snippet does not show (an anchor by name needs both)."""
    from ..grammar.code_tree import read_file

    in_file = {_key(line) for line in file_lines}
    in_snippet = {_key(line) for i, line in enumerate(snippet) if i not in placeholders}
    words = {_first_word(k) for k in in_file - in_snippet}
    if not any(_first_word(k) in words for k in in_snippet - in_file if k):
        return {}, False
    tree = read_file(path, file_lines)
    if tree is None:
        return {}, False
    return tree.declared_names(), tree.grammar.overloads
