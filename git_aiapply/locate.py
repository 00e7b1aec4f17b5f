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
from bisect import bisect_left
from collections.abc import Sequence
from .record import record, replace

from .errors import ApplyError, Problem
from .ops import ADD, CONTEXT, REMOVE, Hunk
from .text import FileText, TextBuilder

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


# Work allowed to the search among ambiguous edits (candidate checks), per file.  Past it
# the edits left undecided are refused as ambiguous: an answer is never guessed.
SEARCH_BUDGET = 200_000


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

    # 1. candidates for each hunk, each on the first tier where it fits.  Identical
    # edits (same lines, no anchor) are located once: k copies that fit exactly k places
    # take one each, in order (they are interchangeable, so that is the only result);
    # more places than copies make k x places candidates, refused past the search bound.
    candidates: list[list[Placement]] = [[] for _ in hunks]
    copies: dict[tuple, list[int]] = {}
    for i, h in enumerate(hunks):
        if not h.anchors and h.old:
            copies.setdefault((tuple(h.lines), h.at_eof), []).append(i)
    twins = {i: members for members in copies.values() if len(members) > 1 for i in members}
    cursor = 0  # apply-patch: anchors are looked for after the previous chunk
    for i, h in enumerate(hunks):
        members = twins.get(i)
        if members and i != members[0]:
            continue  # located with the first copy
        try:
            cands = _candidates(h, i, h.old, lines, index, cursor, problem)
        except EditProblem as e:
            problems.append(e.problem)
            continue
        if members:
            k = len(members)
            if len(cands) == k:
                for m, c in zip(members, cands):
                    candidates[m] = [replace(c, hunk=hunks[m], index=m)]
            elif k * len(cands) > SEARCH_BUDGET:
                problems.append(problem(
                    h, f"ambiguous: {k} identical edits and {len(cands)} places where they fit "
                       "(too many to decide)",
                    hint="include more unchanged context lines so each edit matches exactly one place",
                    candidates=[c.start + 1 for c in cands]))
            else:
                for m in members:
                    candidates[m] = [replace(c, hunk=hunks[m], index=m) for c in cands]
            continue
        candidates[i] = cands
        if len(cands) == 1:
            cursor = cands[0].end
    if problems:
        raise ApplyError(problems)

    # 2. choose one place per edit (BEHAVIOR.md §3)
    placer = _Placer(hunks, candidates)
    placed = placer.place(lines, problem)

    # 3. apply: the new bytes straight from the old ones (TextBuilder), no per-line copies;
    # the changed runs of all edits, in file order (runs never overlap: _Placer checked)
    runs = []
    for p in placed:
        for k, (a, b, texts) in enumerate(placer.shapes[p.index]):
            if p.shift:
                texts = [_reindent(t, p.shift) for t in texts]
            runs.append((p.start + a, p.start + b, p.index, k, texts))
    runs.sort(key=lambda r: r[:4])
    out = TextBuilder(ft, ft.dominant_ending())
    added = removed = 0
    pos = 0
    for a, b, _i, _k, texts in runs:
        out.keep(pos, a)
        out.add(texts)
        added += len(texts)
        removed += b - a
        pos = b
    out.keep(pos, n_lines)
    final_newline = ft.final_newline if n_lines else True
    for p in sorted(placed, key=lambda p: p.index):
        if p.end == n_lines:
            if p.hunk.new_no_newline:
                final_newline = False
            elif p.hunk.old_no_newline:
                final_newline = True
    if ensure_final_newline:
        final_newline = True
    if not n_lines and not any(h.new_no_newline for h in hunks):
        final_newline = True
    return out.finish(final_newline), added, removed


def _shape(h: Hunk) -> list[tuple[int, int, list[str]]]:
    """What a hunk changes, relative to the start of its old side: runs of changed lines
    ``(a, b, added)``: old lines [a, b) are removed and ``added`` goes in their place (a
    pure insertion has a == b: the gap before old line a)."""
    runs: list[list] = []
    q = 0
    cur = None
    for tag, text in h.lines:
        if tag == CONTEXT:
            cur = None
            q += 1
            continue
        if cur is None:
            cur = [q, q, []]
            runs.append(cur)
        if tag == REMOVE:
            q += 1
            cur[1] = q
        else:
            cur[2].append(text)
    return [(a, b, t) for a, b, t in runs]


def _runs_conflict(a1: int, b1: int, a2: int, b2: int) -> bool:
    """Two changed runs collide: removed lines in common, or lines added strictly inside
    lines the other removes.  Runs that only touch are fine (an insertion next to a
    replaced line), and so are two insertions into one gap (they keep response order)."""
    if a1 < b1 and a2 < b2:
        return a1 < b2 and a2 < b1
    if a1 == b1 and a2 < b2:
        return a2 < a1 < b2
    if a2 == b2 and a1 < b1:
        return a1 < a2 < b1
    return False


class _Placer:
    """Chooses one place for every edit of a file among its candidates (BEHAVIOR.md §3).

    Only changed lines may not overlap: edits share unchanged context freely.  Edits with
    one candidate are fixed, and rule out the candidates of others that collide with them
    (repeatedly).  The few edits still open are then decided together: the unique
    placement that keeps the response's order, else the unique consistent one in any
    order, else line-number hints, else a refusal naming the places.  Identical edits
    are interchangeable, so they take their places in response order (one solution, not
    k!).  The search over open edits is bounded (SEARCH_BUDGET); past the bound they are
    refused as ambiguous."""

    def __init__(self, hunks: list[Hunk], candidates: list[list[Placement]]):
        self.hunks = hunks
        self.candidates = candidates
        self.shapes = [_shape(h) for h in hunks]
        self.rel_runs = [[(a, b) for a, b, _t in s] for s in self.shapes]
        self.span = [(r[0][0], r[-1][1]) if r else (0, 0) for r in self.rel_runs]
        # identical edits: same lines (and same anchors / end-of-file marker)
        keys: dict[tuple, int] = {}
        self.group = [keys.setdefault((tuple(h.lines), tuple(h.anchors), h.at_eof), i)
                      for i, h in enumerate(hunks)]
        self.budget = SEARCH_BUDGET

    # -- geometry ------------------------------------------------------------------
    def lo(self, p: Placement) -> int:
        return p.start + self.span[p.index][0]

    def hi(self, p: Placement) -> int:
        return p.start + self.span[p.index][1]

    def conflict(self, p: Placement, q: Placement) -> bool:
        if self.group[p.index] == self.group[q.index] and p.start == q.start:
            return True  # identical edits take one place each
        ps, qs = p.start, q.start
        if not (ps + self.span[p.index][0] < qs + self.span[q.index][1]
                and qs + self.span[q.index][0] < ps + self.span[p.index][1]):
            return False
        for a1, b1 in self.rel_runs[p.index]:
            for a2, b2 in self.rel_runs[q.index]:
                if _runs_conflict(ps + a1, ps + b1, qs + a2, qs + b2):
                    return True
        return False

    def changes(self, i: int) -> bool:
        """Whether edit ``i`` changes anything (a context-only edit is dropped once it fits)."""
        h = self.hunks[i]
        return bool(self.rel_runs[i]) or h.old_no_newline != h.new_no_newline

    # -- choosing ------------------------------------------------------------------
    def place(self, lines: Sequence[str], problem) -> list[Placement]:
        self.problem = problem
        edits = [i for i in range(len(self.hunks)) if self.changes(i)]
        fixed = {i: self.candidates[i][0] for i in edits if len(self.candidates[i]) == 1}
        self._check_fixed(fixed)
        doms = {i: self.candidates[i] for i in edits if i not in fixed}
        if doms:
            self._propagate(fixed, doms)
            empty = [i for i, d in doms.items() if not d]
            if empty:
                raise ApplyError([problem(
                    self.hunks[i], "this edit's lines overlap another edit of the same file "
                                   "at every place where they fit",
                    hint="merge the two edits into one") for i in empty])
        if doms:
            fixed.update(self._decide(fixed, doms, lines, problem))
        return list(fixed.values())

    def _collisions(self, ps) -> list[tuple[Placement, Placement]]:
        """Pairs of ``ps`` that collide (the first found for each placement): a sweep over
        their spans, so near-linear when few spans overlap."""
        out = []
        taken: dict[tuple[int, int], Placement] = {}
        active: list[Placement] = []
        for p in sorted(ps, key=lambda p: (self.lo(p), p.index)):
            lo = self.lo(p)
            twin = taken.setdefault((self.group[p.index], p.start), p)
            if twin is not p:
                out.append((twin, p))
                continue
            active = [q for q in active if self.hi(q) > lo]
            for q in active:
                if self.conflict(p, q):
                    out.append((q, p))
                    break
            active.append(p)
        return out

    def _overlap_problems(self, pairs) -> list[Problem]:
        problems = []
        for p, q in pairs:
            a, b = sorted((p, q), key=lambda x: x.index)
            problems.append(self.problem(
                b.hunk, f"overlaps edit {a.hunk.number} (lines {a.start + 1}-"
                        f"{max(a.end, a.start + 1)}): both change the same lines",
                hint="merge overlapping edits into one"))
        return problems

    def _check_fixed(self, fixed: dict[int, Placement]) -> None:
        """Edits with a single place must not collide."""
        pairs = self._collisions(fixed.values())
        if pairs:
            raise ApplyError(self._overlap_problems(pairs))

    def _fixed_index(self, fixed: dict[int, Placement]):
        ps = sorted(fixed.values(), key=self.lo)
        los = [self.lo(p) for p in ps]
        maxhi = []
        m = -1
        for p in ps:
            m = max(m, self.hi(p))
            maxhi.append(m)
        taken = {(self.group[p.index], p.start) for p in ps}
        return ps, los, maxhi, taken

    def _free(self, c: Placement, index) -> bool:
        """``c`` collides with no fixed edit."""
        ps, los, maxhi, taken = index
        if (self.group[c.index], c.start) in taken:
            return False
        lo, hi = self.lo(c), self.hi(c)
        j = bisect_left(los, hi) - 1
        while j >= 0 and maxhi[j] > lo:
            if self.conflict(c, ps[j]):
                return False
            j -= 1
        return True

    def _propagate(self, fixed: dict[int, Placement], doms: dict[int, list[Placement]]) -> None:
        """Drop candidates that collide with fixed edits; an edit left with one place is
        fixed in turn, until nothing changes."""
        while doms:
            index = self._fixed_index(fixed)
            newly = {}
            for i in list(doms):
                keep = [c for c in doms[i] if self._free(c, index)]
                doms[i] = keep
                if len(keep) == 1:
                    newly[i] = keep[0]
            if not newly:
                return
            for i in newly:
                del doms[i]
            fixed.update(newly)
            self._check_fixed(newly)  # fixed in the same round, they may collide

    def _decide(self, fixed, doms, lines, problem) -> dict[int, Placement]:
        """One place for each open edit, or ApplyError naming the ambiguous ones."""
        found, undecided = self._solve(fixed, doms)
        if undecided:
            # line numbers only choose between otherwise equal places: nearest wins
            narrowed = dict(doms)
            hinted = False
            for i in undecided:
                h = self.hunks[i]
                if h.line_hint is None:
                    continue
                target = max(h.line_hint - 1, 0)
                dists = sorted((abs(c.start - target), c.start) for c in doms[i])
                if len(dists) == 1 or dists[0][0] != dists[1][0]:
                    narrowed[i] = [c for c in doms[i] if c.start == dists[0][1]]
                    hinted = True
            if hinted:
                found2, undecided2 = self._solve(fixed, narrowed)
                if not undecided2 or len(undecided2) < len(undecided):
                    found, undecided = found2, undecided2
                    doms = narrowed
        if undecided:
            raise ApplyError([self._ambiguous(i, doms[i], lines, problem, why)
                              for i, why in sorted(undecided.items())])
        return found

    def _ambiguous(self, i, cands, lines, problem, why: str) -> Problem:
        h = self.hunks[i]
        where = ", ".join(str(c.start + 1) for c in cands[:10])
        more = f" and {len(cands) - 10} more" if len(cands) > 10 else ""
        return problem(
            h, f"ambiguous: the edit's old lines occur {len(cands)} times, starting at lines "
               f"{where}{more}" + (f" ({why})" if why else ""),
            hint="include more unchanged context lines so the edit matches exactly one place",
            candidates=[c.start + 1 for c in cands],
            nearby=[(c.start + 1, lines[c.start]) for c in cands[:10] if c.length],
            nearby_label="candidate places")

    def _solve(self, fixed, doms) -> tuple[dict[int, Placement], dict[int, str]]:
        """(chosen places, {edit: why} for the edits that stay ambiguous)."""
        self.budget = SEARCH_BUDGET
        sol = self._in_order(fixed, doms)
        if sol is not None:
            return sol, {}
        return self._any_order(doms)

    # -- the response's order --------------------------------------------------------
    # In order means top to bottom: each edit's changed lines start at or after the end
    # of the previous edit's changed lines (edits without old lines, placed by an anchor,
    # the end of the file or a line number, do not take part).  Then two edits that are
    # not neighbours in the response cannot collide, so counting chains is exact.
    def _in_order(self, fixed, doms) -> dict[int, Placement] | None:
        """The unique placement of the open edits that keeps the response's order, or None."""
        ordered = sorted(i for i in fixed if fixed[i].length)
        fx = [fixed[i] for i in ordered]
        if any(self.lo(b) < self.hi(a) for a, b in zip(fx, fx[1:])):
            return None  # the fixed edits themselves are out of order
        open_ids = sorted(doms)
        window = {}
        for i in open_ids:
            k = bisect_left(ordered, i)
            lo = self.hi(fx[k - 1]) if k else 0
            hi = self.lo(fx[k]) if k < len(fx) else None
            window[i] = [c for c in doms[i] if self.lo(c) >= lo and (hi is None or self.hi(c) <= hi)]
            if not window[i]:
                return None
        count, path = self._chain_count(open_ids, window)
        if count != 1 or self._collisions(path.values()):
            return None
        return path

    def _follows(self, c: Placement, d: Placement) -> bool:
        """``d`` may come after ``c`` in response order."""
        if self.lo(d) < self.hi(c):
            return False
        return not (self.group[c.index] == self.group[d.index] and d.start <= c.start)

    def _chain_count(self, ids: list[int], doms) -> tuple[int, dict[int, Placement]]:
        """How many in-order placements of ``ids`` there are (0, 1, or 2 meaning "more"),
        and the placement when there is one.  Linear in the candidates: for each candidate,
        a suffix sum over the next edit's candidates that start after its changed lines."""
        counts: list[list[int]] = [[]] * len(ids)
        counts[-1] = [1] * len(doms[ids[-1]])
        for j in range(len(ids) - 2, -1, -1):
            here, nxt = doms[ids[j]], doms[ids[j + 1]]
            nxt_lo = [self.lo(c) for c in nxt]
            nxt_counts = counts[j + 1]
            suffix = [0] * (len(nxt) + 1)
            for t in range(len(nxt) - 1, -1, -1):
                suffix[t] = min(suffix[t + 1] + nxt_counts[t], 2)
            row = []
            for c in here:
                t = bisect_left(nxt_lo, self.hi(c))
                # an identical twin may not take this same place: skip it (at most one)
                if t < len(nxt) and not self._follows(c, nxt[t]):
                    t += 1
                total = suffix[t]
                row.append(total)
            counts[j] = row
        total = min(sum(counts[0]), 2)
        if total != 1:
            return total, {}
        path: dict[int, Placement] = {}
        prev = None
        for j, i in enumerate(ids):
            for c, n in zip(doms[i], counts[j]):
                if n and (prev is None or self._follows(prev, c)):
                    path[i] = prev = c
                    break
        return 1, path

    # -- any order -------------------------------------------------------------------
    def _any_order(self, doms) -> tuple[dict[int, Placement], dict[int, str]]:
        """Open edits fall into groups that constrain each other (their candidates
        collide, or they are identical); each group must have exactly one placement."""
        parent = {i: i for i in doms}

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        def union(a, b):
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)

        first_of_group: dict[int, int] = {}
        for i in doms:
            g = self.group[i]
            if g in first_of_group:
                union(i, first_of_group[g])
            else:
                first_of_group[g] = i
        allc = sorted((c for d in doms.values() for c in d), key=self.lo)
        active: list[Placement] = []
        for c in allc:
            lo = self.lo(c)
            active = [q for q in active if self.hi(q) > lo]
            for q in active:
                self.budget -= 1
                if q.index != c.index and find(q.index) != find(c.index) and self.conflict(c, q):
                    union(c.index, q.index)
            active.append(c)
            if self.budget < 0:
                return {}, {i: "too many overlapping places to decide" for i in doms}
        comps: dict[int, list[int]] = {}
        for i in doms:
            comps.setdefault(find(i), []).append(i)
        found: dict[int, Placement] = {}
        undecided: dict[int, str] = {}
        for members in comps.values():
            if len(members) == 1:
                undecided[members[0]] = ""
                continue
            sols, complete = self._search(sorted(members, key=lambda i: (len(doms[i]), i)), doms)
            if len(sols) == 1 and complete:
                found.update(sols[0])
            else:
                why = "" if len(sols) > 1 or complete else "too many possible placements to decide"
                if complete and not sols:
                    why = "no placement fits together with the file's other edits"
                undecided.update({i: why for i in members})
        return found, undecided

    def _search(self, ids: list[int], doms) -> tuple[list[dict], bool]:
        """Up to two placements of ``ids`` (a backtracking search within the budget), and
        whether the search was complete.  Identical edits take increasing starts in
        response order (they are interchangeable: one solution, not k!)."""
        n = len(ids)
        choice = [-1] * n
        chosen: list[Placement] = []
        sols: list[dict] = []
        depth = 0
        while depth >= 0:
            del chosen[depth:]
            i = ids[depth]
            dom = doms[i]
            k = choice[depth] + 1
            while k < len(dom):
                c = dom[k]
                self.budget -= 1 + len(chosen)
                if self.budget < 0:
                    return sols, False
                if self._fits_with(c, chosen):
                    break
                k += 1
            if k >= len(dom):
                choice[depth] = -1
                depth -= 1
                continue
            choice[depth] = k
            chosen.append(dom[k])
            if depth == n - 1:
                sols.append({p.index: p for p in chosen})
                if len(sols) >= 2:
                    return sols, True
                continue  # the next candidate at the same depth
            depth += 1
        return sols, True

    def _fits_with(self, c: Placement, chosen: list[Placement]) -> bool:
        g = self.group[c.index]
        for q in chosen:
            if self.group[q.index] == g and (q.start < c.start) != (q.index < c.index):
                return False
            if self.conflict(c, q):
                return False
        return True


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
    """Where the edit parts from the file at the closest place, for the refusal text (so
    a model sees what to fix): the edit's old lines are aligned with the file's lines
    around that place (a diff over that small window, whitespace and punctuation folded),
    so a line the edit left out or added is named as such instead of shifting every
    later line.  Empty when no line of the edit is found there."""
    if not nearby or not old:
        return ""
    import difflib

    first, last = nearby[0][0] - 1, nearby[-1][0]
    lo = max(0, first - len(old) - 2)
    hi = min(len(lines), last + len(old) + 2)
    want = [_norm(3, l) for l in old]
    have = [_norm(3, l) for l in lines[lo:hi]]
    sm = difflib.SequenceMatcher(None, want, have, autojunk=False)
    blocks = [b for b in sm.get_matching_blocks() if b.size]
    # only lines that say something anchor the alignment (a blank or a brace matches anywhere)
    solid = [b for b in blocks if any(want[b.a + k] for k in range(b.size))]
    if not solid:
        return ""
    # the file region the edit maps onto: from its first matched line, extended to the
    # edit's first line, to its last matched line, extended to the edit's end
    f0 = max(0, solid[0].b - solid[0].a)
    end = solid[-1].b + solid[-1].size + (len(old) - solid[-1].a - solid[-1].size)
    f1 = min(len(have), end)
    place = lo + f0 + 1
    head = f"the closest place starts at line {place}, but "
    ops = difflib.SequenceMatcher(None, want, have[f0:f1], autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        at = lo + f0 + j1  # 0-based file line where the difference starts
        if tag == "replace":
            return head + f"line {at + 1} there is {_short(lines[at])} where the edit has {_short(old[i1])}"
        if tag == "delete":  # edit lines the file does not have there
            if at >= len(lines):
                return (head + f"the file ends at line {len(lines)} before the edit's line "
                               f"{i1 + 1} ({_short(old[i1])})")
            after = f"after line {at}" if at > 0 else "at the top of the file"
            return head + f"the edit has {_short(old[i1])} {after}, which the file does not have there"
        # insert: file lines the edit left out
        n = j2 - j1
        what = f"line {at + 1} ({_short(lines[at])})" if n == 1 else \
            f"lines {at + 1}-{at + n} (starting {_short(lines[at])})"
        return head + f"the edit leaves out {what}, which the file has there"
    return ""


def _short(text: str, limit: int = 70) -> str:
    t = text if len(text) <= limit else text[:limit - 3] + "..."
    return repr(t)


def whole_content_difference(ft: FileText, old: list[str]) -> str | None:
    """Why ``old`` (a deletion's removed lines) is not the whole of ``ft``, or None when it
    is, on the first tier where every line matches (as edits are located)."""
    lines = ft.lines
    n = len(lines)
    if len(old) == n:
        for tier in range(4):
            if all(_norm(tier, a) == _norm(tier, b) for a, b in zip(old, lines)):
                return None
    if not old:
        return f"the diff lists none of the file's {n} lines"
    if len(old) < n and all(_norm(3, a) == _norm(3, b) for a, b in zip(old, lines)):
        return f"its '-' lines cover only the first {len(old)} of the file's {n} lines"
    for j, (a, b) in enumerate(zip(old, lines)):
        if _norm(3, a) != _norm(3, b):
            return f"line {j + 1} of the file is {_short(b)} where the diff has {_short(a)}"
    return f"the diff has {len(old)} '-' lines but the file has only {n}"


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
