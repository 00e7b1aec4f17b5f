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


def merge(file_lines: list[str], snippet: list[str], placeholders: set[int]) -> Merged:
    """``snippet`` (its lines; ``placeholders``: the 0-based indexes of its placeholder
    notes) merged into ``file_lines``; LazyRefusal when it cannot be, exactly."""
    snippet = _trim_blank_ends(snippet, placeholders)
    snippet, placeholders = snippet[0], snippet[1]
    anchors = _anchors(file_lines, snippet, placeholders)
    if not anchors:
        first = min(placeholders) + 1 if placeholders else None
        raise LazyRefusal("no line of the snippet is found exactly once in the file, so "
                          "nothing says where it goes"
                          + (" or which lines its placeholder keeps" if first else ""), first)
    shift = _shift(file_lines, snippet, anchors)
    out: list[str] = []
    kept: list[KeptRun] = []
    bounds = [(-1, -1)] + anchors + [(len(snippet), len(file_lines))]
    for (s0, f0), (s1, f1) in zip(bounds, bounds[1:]):
        head, tail = s0 == -1, s1 == len(snippet)
        items = list(range(s0 + 1, s1))
        gap = _align(file_lines, f0 + 1, f1, snippet, items, placeholders, shift, head, tail)
        out.extend(gap.lines)
        kept.extend(gap.kept)
        if s1 < len(snippet):
            out.append(file_lines[f1])  # the anchor, as the file writes it
    _check(file_lines, out, kept, snippet, placeholders)
    return Merged(out, kept)


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


def _shift(file_lines, snippet, anchors) -> tuple[str, str]:
    """How the snippet's indentation maps to the file's: (snippet prefix, file prefix),
    the same for every anchor (a method written at column 0: ("", "    ")); ("", "") when
    the anchors disagree or agree on none."""
    shifts = set()
    for s, f in anchors:
        sw, fw = _ws(snippet[s]), _ws(file_lines[f])
        if fw.endswith(sw):
            shifts.add(("", fw[:len(fw) - len(sw)]))
        elif sw.endswith(fw):
            shifts.add((sw[:len(sw) - len(fw)], ""))
        else:
            return ("", "")
    return shifts.pop() if len(shifts) == 1 else ("", "")


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
    lines: list[str]
    kept: list[KeptRun]


def _align(file_lines, f_lo, f_hi, snippet, items, placeholders, shift, head, tail) -> _Gap:
    """The file's lines [f_lo, f_hi) and the snippet's ``items`` between two anchors,
    aligned (module docstring); ``head`` / ``tail``: the gap before the first anchor or
    after the last, whose file lines outside the snippet are kept.  Blank lines take no
    part in the alignment: the file's follow the code they stand before (``_emit``)."""
    gap = _GapText(file_lines, f_lo, f_hi, snippet, items, placeholders, shift, head, tail)
    results = [gap.walk(prefer_late=late) for late in (True, False)]
    if results[0].lines != results[1].lines:
        note = next((s for s in items if s in placeholders), items[0] if items else None)
        raise LazyRefusal(
            "the snippet can be merged in more than one way here: the lines around it "
            "repeat in the file", None if note is None else note + 1, [f_lo + 1, f_hi])
    return results[0]


class _GapText:
    """One gap's alignment: the cost table over its non-blank lines, and its walks."""

    def __init__(self, file_lines, f_lo, f_hi, snippet, items, placeholders, shift, head, tail):
        self.file_lines, self.f_lo, self.f_hi = file_lines, f_lo, f_hi
        self.snippet, self.placeholders, self.shift = snippet, placeholders, shift
        self.head, self.tail = head, tail
        self.rows = [f for f in range(f_lo, f_hi) if file_lines[f].strip()]  # file indexes
        self.items = [s for s in items if snippet[s].strip()]
        self.keys = [_key(file_lines[f]) for f in self.rows]
        self.skeys = [_key(snippet[s]) for s in self.items]
        self.fits = self._fits()
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
            out.append([_width(_ws(self.file_lines[f])) >= depth for f in self.rows])
        return out

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
        for a in range(k - 1, -1, -1):
            fits, row, nxt, key = self.fits[a], cost[a], cost[a + 1], self.skeys[a]
            for t in range(m, -1, -1):
                if fits is not None:  # the placeholder ends here (early while its block goes on)
                    best = nxt[t] + (_EARLY_END if t < m and fits[t] else 0)
                    if t < m and fits[t]:
                        best = min(best, row[t + 1])
                else:
                    best = nxt[t] + _EDIT  # a new line
                    if t < m:
                        if key == self.keys[t]:
                            best = min(best, nxt[t + 1])
                        best = min(best, row[t + 1] + _EDIT)  # the file's line is deleted
                row[t] = best
        return cost

    def _moves(self, a: int, t: int, prefer_late: bool) -> str:
        """The first optimal move from (a, t), by the preference."""
        m, cost, here = len(self.rows), self.cost, self.cost[a][t]
        fits = self.fits[a]
        if fits is not None:
            moves = []
            if t < m and fits[t] and cost[a][t + 1] == here:
                moves.append("consume")
            if cost[a + 1][t] + (_EARLY_END if t < m and fits[t] else 0) == here:
                moves.append("end")
            return moves[0] if prefer_late or len(moves) == 1 else moves[1]
        if t < m and self.skeys[a] == self.keys[t] and cost[a + 1][t + 1] == here:
            return "match"
        late = []
        if t < m and cost[a][t + 1] + _EDIT == here:
            late.append("delete")
        if cost[a + 1][t] + _EDIT == here:
            late.append("new")
        return late[0] if prefer_late or len(late) == 1 else late[1]

    def _start_cost(self, t: int) -> float:
        """Starting the snippet at line t of the head gap: the lines before are kept as
        outside the snippet, unless a placeholder opens it (it keeps them)."""
        opens = bool(self.items) and self.items[0] in self.placeholders
        return self.cost[0][t] + (_EARLY_END if opens and t > 0 else 0)

    def walk(self, prefer_late: bool) -> _Gap:
        """One optimal alignment, as the gap's text; ``prefer_late``: a placeholder keeps
        as much as it can and new lines go as late as they can (else the opposite)."""
        m, k = len(self.rows), len(self.items)
        candidates = range(m + 1) if self.head else range(1)
        total = min(self._start_cost(t) for t in candidates)
        starts = [t for t in candidates if self._start_cost(t) == total]
        t = starts[-1] if prefer_late else starts[0]
        keep = [True] * t + [False] * (m - t)  # before the snippet: kept
        new_before: dict[int, list[int]] = {}  # line t of the gap -> new items before it
        kept: list[KeptRun] = []
        a, run_start = 0, None
        while a < k:
            move = self._moves(a, t, prefer_late)
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

    def _emit(self, keep: list[bool], new_before: dict[int, list[int]]) -> list[str]:
        """The gap's lines: kept file lines with the blank lines before them, new lines
        with the snippet's blank lines before them, where the alignment put them."""
        out: list[str] = []
        m = len(self.rows)
        prev_file = self.f_lo  # the file line after the last one emitted or passed
        for t in range(m + 1):
            for s in new_before.get(t, []):
                out.extend("" for _ in self._blanks_before(s))
                out.append(_moved(self.snippet[s], self.shift))
            end = self.rows[t] if t < m else self.f_hi
            # blank lines go with the code after them: before an anchor, always
            if t < m and keep[t] or t == m and (not self.tail or m == 0 or keep[m - 1]):
                out.extend(self.file_lines[prev_file:end] if t == m or prev_file < end
                           else [])
                if t < m:
                    out.append(self.file_lines[end])
            prev_file = end + 1
        return out

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
    after = Counter(_key(line) for line in out)
    for line, n in after.items():
        if line in _WEAK or before[line] != 1 or n < 2:
            continue
        at = [i + 1 for i, f in enumerate(file_lines) if _key(f) == line]
        raise LazyRefusal(f"merged, the line {line!r} would appear twice: the snippet writes "
                          "it anew while a placeholder or the file keeps it", None, at)
    _check_order(file_lines, out, before)
    if _balance(file_lines) == 0 and _balance(out) != 0:
        raise LazyRefusal("merged, the file's brackets would no longer balance: the snippet "
                          "opens or closes a block the file does not", None, [])


def _check_order(file_lines, out, before) -> None:
    """Code that would move: the file's unique lines must keep their order."""
    position = {_key(line): f for f, line in enumerate(file_lines)
                if before[_key(line)] == 1 and _key(line) not in _WEAK}
    last = -1
    for line in out:
        f = position.get(_key(line))
        if f is None:
            continue
        if f < last:
            raise LazyRefusal(f"merged, the line {line.strip()!r} would move from line {f + 1} "
                              "of the file: the snippet shows it in another place", None,
                              [f + 1])
        last = f


def _balance(lines: list[str]) -> int:
    """Opening minus closing brackets (a rough count: strings and comments included, the
    same way before and after)."""
    text = "".join(lines)
    return sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")


# -- a whole-file write over a tracked file ------------------------------------------------
LAZY_HINT = ("send the lines around each placeholder exactly as the file has them (a few "
             "lines before and after), or the whole file with every line written out")


def lazily_merged(op, path: str, old_data: bytes, ops=()):
    """``op`` (a NewFile over the tracked file holding ``old_data``) with its text merged
    into the file when it is a lazy snippet: it holds placeholders, it says it is one
    (``op.lazy``: an edit_file call), or it is a fragment of the file (fragments.py);
    ``op`` itself otherwise.  ApplyError, worded for the model, when it cannot be merged
    exactly."""
    from ..errors import ApplyError, Problem
    from ..record import replace
    from ..text import FileText
    from ..verify.placeholder_edits import snippet_placeholders
    from .fragments import fragment_of, written_elsewhere

    ft = FileText.from_bytes(old_data)
    file_lines = list(ft.lines)
    snippet = op.text.split("\n")
    if snippet and snippet[-1] == "":
        snippet.pop()
    placeholders = snippet_placeholders(path, file_lines, snippet)
    if not placeholders and not op.lazy:
        if fragment_of(file_lines, snippet) is None:
            return op
        if fragment_of(file_lines, snippet, written_elsewhere(ops, path)) is None:
            return op  # what it leaves out goes to another file: a real rewrite
    try:
        merged = merge(file_lines, snippet, placeholders)
    except LazyRefusal as e:
        note = snippet[e.line - 1].strip() if e.line else None
        nearby = [(n, file_lines[n - 1]) for n in e.candidates[:1]
                  for n in range(max(n - 2, 1), min(n + 3, len(file_lines)) + 1)]
        what = (f"the snippet for {path}" + (f" (its line {e.line}, {note!r})" if note else ""))
        raise ApplyError(Problem(f"{what} cannot be merged into the file exactly: {e.reason}",
                                 file=path, directive=op.source.directive, nearby=nearby,
                                 nearby_label="the file's lines there", hint=LAZY_HINT,
                                 candidates=e.candidates)) from None
    text = "\n".join(merged.lines) + ("\n" if ft.final_newline or not file_lines else "")
    return replace(op, text=text)


# -- placeholders inside an edit -------------------------------------------------------------
def merged_edits(op, path: str):
    """``op`` with each edit whose new side holds placeholders merged inside the edit: its
    old side is the file, its new side the snippet (a REPLACE side or a hunk's ``+`` lines
    written lazily).  An edit the merge cannot take exactly is left as it is: the
    placeholder check then refuses it, as before."""
    from ..ops import EditFile, ReplaceText
    from ..record import replace

    if isinstance(op, EditFile):
        hunks = [_merged_hunk(h, path) for h in op.hunks]
        if all(a is b for a, b in zip(hunks, op.hunks)):
            return op
        return replace(op, hunks=hunks)
    if isinstance(op, ReplaceText):
        ends = "\n" if op.old.endswith("\n") and op.new.endswith("\n") else ""
        old, new = (op.old[:-1], op.new[:-1]) if ends else (op.old, op.new)
        merged = _merged_side(path, old.split("\n"), new.split("\n"))
        return op if merged is None else replace(op, new="\n".join(merged) + ends)
    return op


def _merged_hunk(h, path: str):
    """The hunk ``h`` with its new side merged (each reading of a SEARCH/REPLACE block
    with several possible dividers too), or ``h`` itself."""
    from ..record import replace

    explicit = h.kind in ("hunk", "chunk")  # '-' lines the model wrote, not derived
    lines = _merged_lines(h.lines, path, explicit)
    readings = [(why, _merged_lines(r, path, explicit)) for why, r in h.readings]
    if lines is None and all(r is None for _why, r in readings):
        return h
    return replace(h, lines=lines if lines is not None else h.lines,
                   readings=[(why, r if r is not None else h.readings[n][1])
                             for n, (why, r) in enumerate(readings)])


def _merged_lines(lines: list[tuple[str, str]], path: str,
                  explicit: bool) -> list[tuple[str, str]] | None:
    """A hunk's tagged lines with its new side merged into its old side, or None.
    ``explicit``: its ``-`` lines are the model's own (a diff, an apply-patch chunk), so
    the merge may not keep one the hunk replaces by new code (``_replaced``)."""
    old = [t for tag, t in lines if tag != "+"]
    new = [t for tag, t in lines if tag != "-"]
    merged = _merged_side(path, old, new, lambda ph: _replaced(lines, ph) if explicit else set())
    if merged is None:
        return None
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in _opcodes(old, merged):
        if tag == "equal":
            out.extend((" ", t) for t in old[i1:i2])
            continue
        out.extend(("-", t) for t in old[i1:i2])
        out.extend(("+", t) for t in merged[j1:j2])
    return out


def _opcodes(a: list[str], b: list[str]):
    from difflib import SequenceMatcher

    return SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def _merged_side(path: str, old: list[str], new: list[str],
                 replaced=lambda placeholders: set()) -> list[str] | None:
    """``new`` merged into ``old`` when it holds placeholders and merges exactly into
    something else than ``old``, keeping none of the old lines ``replaced(placeholders)``
    names; None otherwise (no placeholder, a refusal, an edit that changes nothing: the
    placeholder check words those)."""
    from ..verify.placeholder_edits import snippet_placeholders, stand_in

    if not old or not any(line.strip() for line in old):
        return None
    held = {line.strip() for line in old}
    if not any(line.strip() not in held and stand_in(line) for line in new):
        return None  # the common case, kept cheap: no new line reads as a stand-in
    placeholders = snippet_placeholders(path, old, new)
    if not placeholders:
        return None
    try:
        merged = merge(old, new, placeholders).lines
    except LazyRefusal:
        return None
    # an edit of nothing but anchors and placeholders changes nothing: what it meant (a
    # deletion?) is not known, and the placeholder check says so
    if merged == old or _keeps_any(old, merged, replaced(placeholders)):
        return None
    return merged


def _replaced(lines: list[tuple[str, str]], placeholders: set[int]) -> set[int]:
    """The old-side lines (indexes) a hunk replaces by new code: each run of its ``-`` and
    ``+`` lines whose ``+`` lines write code (not only placeholders, ``placeholders``
    counted in the new side, and copies of the run's ``-`` lines), or that writes nothing.
    ``-print(a)`` ``+print(b)`` ``+# ... rest of main ...`` says print(a) goes: the
    placeholder, merged, would keep it, two readings, refused."""
    out: set[int] = set()
    i = j = 0  # old-side and new-side index of the next line
    run_old: list[int] = []
    run_new: list[int] = []

    def close() -> None:
        olds = {lines_old[k].strip() for k in run_old}
        writes = [k for k in run_new if k not in placeholders and lines_new[k].strip()
                  and lines_new[k].strip() not in olds]
        if writes or not run_new:
            out.update(k for k in run_old if lines_old[k].strip())
        run_old.clear()
        run_new.clear()

    lines_old = [t for tag, t in lines if tag != "+"]
    lines_new = [t for tag, t in lines if tag != "-"]
    for tag, _text in lines:
        if tag == " ":
            close()
            i, j = i + 1, j + 1
        elif tag == "-":
            run_old.append(i)
            i += 1
        else:
            run_new.append(j)
            j += 1
    close()
    return out


def _keeps_any(old: list[str], merged: list[str], lines: set[int]) -> bool:
    """Whether ``merged`` keeps one of ``old``'s ``lines`` (indexes)."""
    if not lines:
        return False
    return any(tag == "equal" and any(i in lines for i in range(i1, i2))
               for tag, i1, i2, _j1, _j2 in _opcodes(old, merged))
