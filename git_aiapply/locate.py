"""Finding where each edit goes in a file, and applying all of a file's edits at once.

Matching tiers (BEHAVIOR.md §3), the first tier with a match wins, per edit:

0. exact;  1. trailing whitespace ignored;  2. leading and trailing whitespace ignored
(a uniform indentation shift is carried over to the added lines);  3. typographic
punctuation folded (curly quotes, dashes, odd spaces).

Locating is linear in the file: each tier's normalised lines are indexed by value once,
and an edit's candidates are the positions of its rarest line, each checked in full.
All edits are located against the original text before any is applied; an edit that
fits several places consistent with the others is refused, never guessed.
"""
from __future__ import annotations

from array import array
from collections.abc import Sequence
from .record import record

from .errors import ApplyError, Problem
from .ops import ADD, CONTEXT, REMOVE, Hunk
from .text import FileText, TextBuilder

TIER_NAMES = ("exact", "trailing whitespace ignored", "surrounding whitespace ignored",
              "punctuation folded")

# Typographic characters models substitute for ASCII ones, and odd spaces.
_FOLD = {
    **{ord(c): "'" for c in "\u2018\u2019\u201a\u201b\u2032\u00b4"},
    **{ord(c): '"' for c in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"},
    **{ord(c): "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"},
    **{ord(c): " " for c in "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                            "\u2009\u200a\u202f\u205f\u3000"},
    **{ord(c): None for c in "\u200b\u200c\u200d\u2060\ufeff"},
    ord("\u2026"): "...",
}


def fold_punctuation(s: str) -> str:
    return s.translate(_FOLD)


def _norm(tier: int, s: str) -> str:
    if tier == 0:
        return s
    if tier == 1:
        return s.rstrip()
    if tier == 2:
        return s.strip()
    return fold_punctuation(s).strip()


class LineIndex:
    """Where the normalised values of edit lines occur in one file, per tier.

    Only values that some edit needs are indexed: ``wanted`` (the old lines of every edit
    of the file, given up front) on a tier's first use, and any other value when first
    asked for.  Each is one pass over the file, and memory stays a small fraction of what
    an index of every line would take (the 600,000-line benchmark).  Positions are kept in
    arrays, not lists of int objects: a common line (a blank, a lone brace) occurs
    hundreds of thousands of times in a big file."""

    def __init__(self, lines: Sequence[str], wanted: list[str] | None = None):
        self.lines = lines
        self._wanted = wanted or []
        self._where: dict[int, dict[str, array]] = {}
        self._indexed: dict[int, set[str]] = {}

    def where(self, tier: int, keys) -> dict[str, array]:
        """value -> positions on ``tier``, complete for every value of ``keys``."""
        indexed = self._indexed.get(tier)
        if indexed is None:
            missing = {_norm(tier, l) for l in self._wanted}
            missing.update(keys)
        else:
            missing = {k for k in keys if k not in indexed}
        if missing:
            self._index(tier, missing)
        return self._where[tier]

    def _index(self, tier: int, values: set[str]) -> None:
        where = self._where.setdefault(tier, {})
        normed = self.lines if tier == 0 else map(lambda l: _norm(tier, l), self.lines)
        for i, key in enumerate(normed):
            if key in values:
                lst = where.get(key)
                if lst is None:
                    where[key] = array("q", (i,))
                else:
                    lst.append(i)
        self._indexed.setdefault(tier, set()).update(values)

    def normed(self, tier: int, start: int, end: int) -> list[str]:
        """Lines [start, end) normalised on ``tier``."""
        part = self.lines[start:end]
        return part if tier == 0 else [_norm(tier, l) for l in part]

    def fits(self, old: list[str], tier: int, lo: int = 0, hi: int | None = None) -> list[int]:
        """Start positions (0-based) where ``old`` matches on ``tier``, within [lo, hi)."""
        n = len(old)
        total = len(self.lines)
        hi = total if hi is None else hi
        keys = [_norm(tier, l) for l in old]
        where = self.where(tier, keys)
        best = None
        best_count = None
        for j, k in enumerate(keys):
            c = len(where.get(k, ()))
            if c == 0:
                return []
            if best_count is None or c < best_count:
                best, best_count = j, c
        out = []
        for p in where[keys[best]]:
            s = p - best
            if s < lo or s + n > min(hi, total):
                continue
            if self.normed(tier, s, s + n) == keys:
                out.append(s)
        return out


@record
class Placement:
    """Where one hunk goes in the file."""

    hunk: Hunk
    index: int  # position of the hunk in the directive (0-based)
    start: int  # 0-based first line of the old side in the file
    length: int  # number of old lines
    tier: int = 0
    shift: tuple[str, str] | None = None  # ('more'|'less', whitespace prefix)

    @property
    def end(self) -> int:
        return self.start + self.length


def _leading_ws(s: str) -> str:
    return s[: len(s) - len(s.lstrip())]


def _indent_shift(file_lines: list[str], old: list[str]) -> tuple[str, str] | None:
    """('more'|'less', prefix) when the file's run is uniformly indented more or less than
    the edit's old lines (blank lines do not count)."""
    kind = prefix = None
    for f, e in zip(file_lines, old):
        if not f.strip() or not e.strip():
            continue
        fw, ew = _leading_ws(f), _leading_ws(e)
        if fw == ew:
            k, p = "same", ""
        elif fw.endswith(ew):
            k, p = "more", fw[: len(fw) - len(ew)]
        elif ew.endswith(fw):
            k, p = "less", ew[: len(ew) - len(fw)]
        else:
            return None
        if kind is None:
            kind, prefix = k, p
        elif (k, p) != (kind, prefix):
            return None
    if kind in (None, "same"):
        return None
    return kind, prefix


def _reindent(line: str, shift: tuple[str, str] | None) -> str:
    if shift is None or not line.strip():
        return line if line.strip() else ""
    kind, prefix = shift
    if kind == "more":
        return prefix + line
    return line[len(prefix):] if line.startswith(prefix) else line.lstrip()


def _find_anchor(lines: Sequence[str], anchor: str, start: int) -> int | None:
    """Index of the anchor line: equal to it or, failing that, starting with it (surrounding
    whitespace ignored, then punctuation folded); looked for from ``start``."""
    want = anchor.strip()
    folded = fold_punctuation(want).strip()
    for norm, w in ((str.strip, want), (lambda s: fold_punctuation(s).strip(), folded)):
        for i, line in enumerate(_iter_from(lines, start), start):
            if norm(line) == w:
                return i
        if w:
            for i, line in enumerate(_iter_from(lines, start), start):
                if norm(line).startswith(w):
                    return i
    return None


def _iter_from(lines: Sequence[str], start: int):
    """Lines from ``start`` on; a FileText's Lines decode them a block at a time."""
    if hasattr(lines, "iter_from"):
        return lines.iter_from(start)
    return iter(lines[start:]) if start else iter(lines)


def _nearby(lines: Sequence[str], old: list[str], index: LineIndex) -> list[tuple[int, str]]:
    """The file's lines most like the edit's old side, numbered from 1, for the error."""
    n = len(lines)
    if n == 0:
        return []
    where = index.where(3, [_norm(3, l) for l in old])
    votes: dict[int, int] = {}
    for i, l in enumerate(old):
        k = _norm(3, l)
        if not k:
            continue
        occ = where.get(k, ())
        if len(occ) > 50:  # too common to say anything
            continue
        for p in occ:
            votes[p - i] = votes.get(p - i, 0) + 1
    if votes:
        start = max(votes, key=lambda s: (votes[s], -s))
    else:
        import difflib

        probe = next((_norm(3, l) for l in old if l.strip()), "")
        if not probe:
            return []
        start = None
        best = 0.6
        for i, k in enumerate(index.normed(3, 0, 20000)):
            if not k:
                continue
            m = difflib.SequenceMatcher(None, probe, k)
            if m.real_quick_ratio() > best and m.quick_ratio() > best:
                r = m.ratio()
                if r > best:
                    best, start = r, i
        if start is None:
            return []
    lo = max(0, start - 2)
    hi = min(n, max(start + len(old), start + 1) + 2, lo + 14)
    lo = max(0, min(lo, n - 1))
    return [(i + 1, lines[i]) for i in range(lo, hi)]


class EditProblem(Exception):
    def __init__(self, problem: Problem):
        self.problem = problem


def apply_hunks(ft: FileText, hunks: list[Hunk], *, path: str, directive: str | None = None,
                ensure_final_newline: bool = False) -> tuple[FileText, int, int]:
    """Locate every hunk in ``ft`` and apply them together.

    Returns the new text and the counts of added and removed lines; raises ApplyError
    listing every hunk that could not be placed."""
    lines = ft.lines
    index = LineIndex(lines, [l for h in hunks for l in h.old])
    n_lines = len(lines)
    problems: list[Problem] = []

    def problem(h: Hunk, reason: str, **kw) -> Problem:
        return Problem(reason, file=path, directive=directive, edit=h.number,
                       edit_first_line=h.first_line(), **kw)

    # 1. candidates for each hunk
    candidates: list[list[Placement]] = []
    cursor = 0  # apply-patch: anchors are looked for after the previous chunk
    for i, h in enumerate(hunks):
        old = h.old
        try:
            cands = _candidates(h, i, old, lines, index, cursor, problem)
        except EditProblem as e:
            problems.append(e.problem)
            candidates.append([])
            continue
        candidates.append(cands)
        if len(cands) == 1:
            cursor = cands[0].end
    if problems:
        raise ApplyError(problems)

    # 2. keep only the candidates consistent with the edits that have one place
    chosen: dict[int, Placement] = {i: c[0] for i, c in enumerate(candidates) if len(c) == 1}
    changed = True
    while changed:
        changed = False
        for i, cands in enumerate(candidates):
            if i in chosen or len(cands) < 2:
                continue
            keep = [c for c in cands if not any(_overlap(c, o) for o in chosen.values())]
            if len(keep) != len(cands):
                candidates[i] = keep
                if len(keep) == 1:
                    chosen[i] = keep[0]
                    changed = True
    # 3. identical edits with exactly as many places as copies: in order
    groups: dict[tuple, list[int]] = {}
    for i, cands in enumerate(candidates):
        if i not in chosen and len(cands) > 1:
            groups.setdefault(tuple((c.start, c.length) for c in cands), []).append(i)
    for key, members in groups.items():
        if len(members) == len(key) and len(members) > 1:
            for m, (start, _len) in zip(members, key):
                chosen[m] = next(c for c in candidates[m] if c.start == start)
    # 4. line numbers as hints; otherwise refuse
    for i, cands in enumerate(candidates):
        if i in chosen:
            continue
        h = hunks[i]
        if not cands:
            problems.append(problem(h, "this edit's lines overlap another edit of the same file",
                                    hint="merge the two edits into one"))
            continue
        if h.line_hint is not None:
            target = max(h.line_hint - 1, 0)
            dists = sorted((abs(c.start - target), c.start) for c in cands)
            if len(dists) == 1 or dists[0][0] != dists[1][0]:
                chosen[i] = next(c for c in cands if c.start == dists[0][1])
                continue
        where = ", ".join(str(c.start + 1) for c in cands[:10])
        more = f" and {len(cands) - 10} more" if len(cands) > 10 else ""
        problems.append(problem(
            h, f"ambiguous: the edit's old lines occur {len(cands)} times, starting at lines "
               f"{where}{more}",
            hint="include more unchanged context lines so the edit matches exactly one place",
            candidates=[c.start + 1 for c in cands],
            nearby=[(c.start + 1, lines[c.start]) for c in cands[:10] if c.length],
            nearby_label="candidate places"))
    if problems:
        raise ApplyError(problems)

    # 5. no overlaps
    placed = sorted(chosen.values(), key=lambda p: (p.start, p.length > 0, p.index))
    for a, b in zip(placed, placed[1:]):
        if _overlap(a, b) or (a.length and b.length and b.start < a.end):
            problems.append(problem(
                b.hunk, f"overlaps edit {a.hunk.number} (lines {a.start + 1}-{max(a.end, a.start + 1)})",
                hint="merge overlapping edits into one"))
    if problems:
        raise ApplyError(problems)

    # 6. apply: the new bytes straight from the old ones (TextBuilder), no per-line copies
    dom = ft.dominant_ending()
    out = TextBuilder(ft, dom)
    added = removed = 0
    pos = 0
    final_newline = ft.final_newline if n_lines else True
    for p in placed:
        out.keep(pos, p.start)
        q = p.start
        for tag, text in p.hunk.lines:
            if tag == CONTEXT:
                out.keep(q, q + 1); q += 1
            elif tag == REMOVE:
                q += 1; removed += 1
            else:
                out.add((_reindent(text, p.shift) if p.shift else text,)); added += 1
        pos = q
        if p.end == n_lines:
            if p.hunk.new_no_newline:
                final_newline = False
            elif p.hunk.old_no_newline:
                final_newline = True
    out.keep(pos, n_lines)
    if ensure_final_newline:
        final_newline = True
    if not n_lines and not any(h.new_no_newline for h in hunks):
        final_newline = True
    return out.finish(final_newline), added, removed


def _overlap(a: Placement, b: Placement) -> bool:
    if a.length and b.length:
        return a.start < b.end and b.start < a.end
    if not a.length and not b.length:
        return False
    ins, run = (a, b) if not a.length else (b, a)
    return run.start < ins.start < run.end


def _candidates(h: Hunk, i: int, old: list[str], lines: Sequence[str], index: LineIndex,
                cursor: int, problem) -> list[Placement]:
    n_lines = len(lines)
    # apply-patch anchors narrow the search to after the last anchor line
    lo = 0
    anchor_line = None
    if h.anchors:
        start = cursor
        for a in h.anchors:
            found = _find_anchor(lines, a, start)
            if found is None and start:
                found = _find_anchor(lines, a, 0) if a is h.anchors[0] else None
            if found is None:
                raise EditProblem(problem(
                    h, f"anchor line {a.strip()!r} not found"
                       + (" after the previous anchor" if a is not h.anchors[0] else ""),
                    hint="use an '@@' line copied from the file (a class or function header)",
                    nearby=_nearby(lines, [a], index)))
            anchor_line = found
            start = found + 1
        lo = anchor_line + 1

    if not old:  # only added lines
        if anchor_line is not None:
            at = anchor_line + 1
        elif h.at_eof or h.line_hint is None:
            at = n_lines
        else:
            at = min(max(h.line_hint, 0), n_lines)
        return [Placement(h, i, at, 0)]

    for tier in range(4):
        fits = index.fits(old, tier, lo=lo)
        if h.at_eof:
            fits = [s for s in fits if s + len(old) == n_lines]
        if not fits:
            continue
        if anchor_line is not None:
            fits = fits[:1]  # the first fit after the anchor: the model's own choice
        out = []
        for s in fits:
            shift = _indent_shift(lines[s:s + len(old)], old) if tier >= 2 else None
            out.append(Placement(h, i, s, len(old), tier, shift))
        return out
    reason = "could not find the edit's old lines (context and removed lines) in the file"
    if h.at_eof:
        reason += " at its end (the edit is marked *** End of File)"
    elif anchor_line is not None:
        reason += f" after the anchor at line {anchor_line + 1}"
    nearby = _nearby(lines, old, index)
    differs = _first_difference(lines, old, nearby)
    raise EditProblem(problem(
        h, reason + (f"; {differs}" if differs else ""), nearby=nearby,
        hint="copy the unchanged and removed lines exactly as the file has them now "
             "(the closest lines are shown above) and send the response again with this edit "
             "corrected"))


def _first_difference(lines: Sequence[str], old: list[str], nearby: list[tuple[int, str]]) -> str:
    """Where the edit parts from the file at the closest place: "the closest place starts
    at line 12, but line 14 there is 'x' where the edit has 'y'" (empty when no place
    shares a line with the edit).  Only for the refusal text, so a model sees what to fix."""
    if not nearby or not old:
        return ""
    first, last = nearby[0][0] - 1, nearby[-1][0]
    best, best_score = None, 0
    for s in range(max(0, first - len(old)), min(len(lines), last)):
        score = sum(1 for j, l in enumerate(old)
                    if s + j < len(lines) and l.strip() and _norm(3, l) == _norm(3, lines[s + j]))
        if score > best_score:
            best, best_score = s, score
    if best is None:
        return ""
    for j, l in enumerate(old):
        at = best + j
        if at >= len(lines):
            return (f"the closest place starts at line {best + 1}, but the file ends at line "
                    f"{len(lines)} before the edit's line {j + 1} ({_short(l)})")
        if _norm(3, l) != _norm(3, lines[at]):
            return (f"the closest place starts at line {best + 1}, but line {at + 1} there is "
                    f"{_short(lines[at])} where the edit has {_short(l)}")
    return ""


def _short(text: str, limit: int = 70) -> str:
    t = text if len(text) <= limit else text[:limit - 3] + "..."
    return repr(t)


# -- SEARCH/REPLACE blocks: divider candidates (BEHAVIOR.md §3), aider's order -----------
def apply_edit(ft: FileText, hunks: list[Hunk], *, path: str, directive: str | None = None,
               ensure_final_newline: bool = False, in_turn: bool = False
               ) -> tuple[FileText, int, int]:
    """An EditFile's hunks: divider readings chosen (``choose_readings``), then all located
    together against ``ft`` (``apply_hunks``).

    ``in_turn`` (aider's blocks): when they do not fit together, they may fit one after
    another, each on the result of the ones before, as aider applies them (a later SEARCH
    quoting an earlier REPLACE); each must then fit as surely as alone.  If that fails
    too, the refusal is the one of locating them together."""
    try:
        return apply_hunks(ft, choose_readings(ft.lines, hunks, path=path, directive=directive),
                           path=path, directive=directive,
                           ensure_final_newline=ensure_final_newline)
    except ApplyError as together:
        if not in_turn or len(hunks) < 2:
            raise
        refusal = together
    try:
        added = removed = 0
        for h in hunks:
            ft, a, r = apply_hunks(ft, choose_readings(ft.lines, [h], path=path,
                                                       directive=directive),
                                   path=path, directive=directive,
                                   ensure_final_newline=ensure_final_newline)
            added, removed = added + a, removed + r
        return ft, added, removed
    except ApplyError:
        raise refusal from None


# -- SEARCH/REPLACE divider candidates (BEHAVIOR.md §3) ----------------------------------
def choose_readings(lines: Sequence[str], hunks: list[Hunk], *, path: str,
                    directive: str | None = None) -> list[Hunk]:
    """``hunks`` with every SEARCH/REPLACE block that has several divider candidates
    (``Hunk.readings``, in the order of their dividers) reduced to the one reading the
    file supports; a block that none or several readings fit is refused, never guessed.

    A later reading's SEARCH begins with every earlier one's, then that one's divider
    line: where the later SEARCH fits, the earlier fits too, only because the file holds
    that ``=======`` line as text.  So an earlier reading counts only where no later one
    fits (places taken on each reading's first matching tier)."""
    if not any(h.readings for h in hunks):
        return hunks
    from .record import replace

    index = LineIndex(lines)
    out: list[Hunk] = []
    problems: list[Problem] = []
    for h in hunks:
        if not h.readings:
            out.append(h)
            continue
        places: list[set[int]] = []
        for _label, reading in h.readings:
            old = [t for tag, t in reading if tag != ADD]
            found: set[int] = set()
            if any(t.strip() for t in old):
                for tier in range(4):
                    found = set(index.fits(old, tier))
                    if found:
                        break
            places.append(found)
        fitting = []
        later: set[int] = set()
        for (label, reading), found in reversed(list(zip(h.readings, places))):
            if found - later:
                fitting.append((label, reading))
            later |= found
        fitting.reverse()
        if len(fitting) == 1:
            out.append(replace(h, lines=fitting[0][1], readings=[]))
            continue
        splits = "; ".join(label for label, _ in h.readings)
        if fitting:
            reason = (f"the block has {len(h.readings)} '=======' lines that could be its divider "
                      f"and the file fits the SEARCH of {len(fitting)} of the readings "
                      f"({'; '.join(label for label, _ in fitting)})")
            nearby = []
        else:
            reason = (f"the block has {len(h.readings)} '=======' lines that could be its divider "
                      f"({splits}) and no reading's SEARCH fits the file")
            nearby = _nearby(lines, [t for tag, t in h.readings[0][1] if tag != ADD], index)
        problems.append(Problem(
            reason, file=path, directive=directive, edit=h.number, edit_first_line=h.first_line(),
            nearby=nearby,
            hint="the '=======' lines of the file's text make the divider ambiguous: use a "
                 "block whose SEARCH and REPLACE hold no line of only '=' signs, or copy the "
                 "SEARCH lines exactly from the file so only one split fits"))
    if problems:
        raise ApplyError(problems)
    return out
