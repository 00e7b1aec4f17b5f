"""Choosing one place for every edit of a file among the places where it fits
(BEHAVIOR.md §3), once ``locate.py`` has found each edit's candidates: what makes two
edits the same edit, line numbers as evidence of place, the changed runs that may not
overlap, and the search for the single placement that the rules allow.  A place is a
``locate.Placement`` (named in annotations only: this module does not import locate).
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from ..errors import ApplyError, Problem
from .matching import common_ends
from ..ops import CONTEXT, REMOVE, Hunk
from ..record import replace

# Work allowed to the search among ambiguous edits (candidate checks), per file.  Past it
# the edits left undecided are refused as ambiguous: an answer is never guessed.
SEARCH_BUDGET = 200_000


def same_edit(h: Hunk) -> tuple:
    """What makes two hunks the same edit (BEHAVIOR.md §3): their old and new sides (a
    SEARCH/REPLACE block and a diff tag a kept line differently), anchors and end marks."""
    return (tuple(h.old), tuple(h.new), tuple(h.anchors), h.at_eof, h.old_no_newline,
            h.new_no_newline)


# A stated line is evidence of place when a fit lies this near it (after the offset of the
# directive's earlier hunks), or when one fit is clearly nearer than the others; numbers
# about as far from every fit are a guess, and ignored.
NEAR_LINES = 20


def line_evidence(hunks: list[Hunk], candidates: list[list[Placement]],
                  off: dict[int, int] | None = None) -> dict[int, Placement]:
    """The fit each hunk's stated line names, by hunk index, where the line is evidence:
    the fit nearest to the stated line shifted by the offset at which the directive's
    earlier hunks were found (as `git apply` and GNU patch place hunks), when it lies
    within NEAR_LINES or is at most half as far as any other fit (`git apply` searches
    outward from the line); equally near fits, or numbers near no fit, say nothing.
    ``off``: filled with how far each named fit lies from that shifted line."""
    offsets: dict[int, int] = {}
    chosen: dict[int, Placement] = {}
    for i, h in enumerate(hunks):
        cands = candidates[i]
        if h.line_hint is None or not h.old or h.anchors or not cands:
            continue
        stated = max(h.line_hint - 1, 0)
        target = stated + offsets.get(h.section, 0)
        dist = sorted(abs(c.start - target) for c in cands)
        near = dist[0] <= NEAR_LINES or (len(dist) > 1 and 2 * dist[0] <= dist[1])
        if not near or (len(dist) > 1 and dist[0] == dist[1]):
            continue
        best = next(c for c in cands if abs(c.start - target) == dist[0])
        offsets[h.section] = best.start - stated
        chosen[i] = best
        if off is not None:
            off[i] = dist[0]
    return chosen


def clearly_nearer(a: int, b: int) -> int | None:
    """Which of two places a stated line names, by how far off it is from each (two
    countings of one line: the original's, or the earlier edits' result): 0 or 1 for the
    one at most half as far off as the other (``line_evidence``'s rule), None when
    neither is."""
    if a < b and 2 * a <= b:
        return 0
    if b < a and 2 * b <= a:
        return 1
    return None


def narrow_by_line_numbers(hunks: list[Hunk], candidates: list[list[Placement]]) -> set[int]:
    """Keep, for every hunk whose stated line is evidence (``line_evidence``) among
    several fits, only the fit it names; the others stay for the order rules.  Returns
    the copies of an edit that are restatements: a copy whose line names a place an
    earlier copy took takes the next fit no copy took (BEHAVIOR.md §3: copies take as many
    places as there are fits) and is a restatement only beyond them; every copy whose line
    says nothing (or that has none: the same change as a SEARCH/REPLACE block) once a
    copy's line names its place is one too."""
    taken: dict[tuple, set[int]] = {}
    restated: set[int] = set()
    for i, best in line_evidence(hunks, candidates).items():
        if len(candidates[i]) == 1:
            continue
        places = taken.setdefault(same_edit(hunks[i]), set())
        if best.start in places:
            # a copy whose line names the place an earlier copy took (a hunk copied with
            # its header for "the same change in read_groups"): the next copy of its lines,
            # as `git apply` applies one hunk twice; beyond the fits, a restatement
            rest = [c for c in candidates[i] if c.start not in places]
            if not rest:
                restated.add(i)
                continue
            best = next((c for c in rest if c.start > best.start), rest[0])
        places.add(best.start)
        candidates[i] = [best]
    for i, h in enumerate(hunks):
        if len(candidates[i]) > 1 and same_edit(h) in taken:
            restated.add(i)  # a copy that says nothing of its place: the numbered one's
    return restated


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


def _net_shape(h: Hunk) -> list[tuple[int, int, tuple[str, ...]]]:
    """``_shape`` with the lines a run removes and adds back unchanged at its start or end
    taken out (a SEARCH/REPLACE block may re-add its first line where a diff keeps it as
    context): what the edit really changes, to compare with another edit."""
    out = []
    old = h.old
    for a, b, added in _shape(h):
        head, tail = common_ends(old[a:b], added)
        a2, b2 = a + head, b - tail
        rest = tuple(added[head:len(added) - tail])
        if a2 < b2 or rest:
            out.append((a2, b2, rest))
    return out


class Overlap(ApplyError):
    """Edits of one file whose changed lines collide.  ``across_blocks``: two blocks of the
    answer give different versions of the same lines (an answer that revises itself):
    applying the blocks one after another must not settle that by moving the later one
    to another copy of its lines (``gather.apply_gathered``)."""

    def __init__(self, problems: list[Problem], across_blocks: bool):
        super().__init__(problems)
        self.across_blocks = across_blocks


def block_name(h: Hunk) -> str:
    """A gathered hunk's block, for refusals: its number in the response and its words."""
    return f"block {h.block or h.section + 1} ({h.directive})"


def blocks_apart(a: Hunk, b: Hunk) -> bool:
    """Whether two edits of a file come from two blocks of the answer: two directives
    gathered together, or two SEARCH/REPLACE blocks (each one stands alone, where the
    hunks of one diff or the chunks of one apply-patch section go down the file in turn)."""
    return bool(a.directive) and a.section != b.section or a.kind == b.kind == "search"


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


class Placer:
    """Chooses one place for every edit of a file among its candidates (BEHAVIOR.md §3).

    Only changed lines may not overlap: edits share unchanged context freely.  Edits with
    one candidate are fixed, and rule out the candidates of others that collide with them
    (repeatedly).  The few edits still open are then decided together: the unique
    placement that keeps the response's order, else the unique consistent one in any
    order, else a refusal naming the places (line numbers narrowed the candidates
    before: ``narrow_by_line_numbers``).  Identical edits are interchangeable, so they
    take their places in response order (one solution, not k!).  The search over open
    edits is bounded (SEARCH_BUDGET); past the bound they are refused as ambiguous."""

    def __init__(self, hunks: list[Hunk], candidates: list[list[Placement]],
                 restated: set[int] = frozenset(), correct=None):
        self.hunks = hunks
        # correct(p, runs): the runs' added lines as written at p (what a loose tier
        # tolerated corrected), or None when they cannot be; compares restatements
        self.correct = correct
        self.corrected: dict[tuple[int, int], tuple | None] = {}
        self.candidates = candidates
        self.restated = restated  # copies of an edit beyond its places: applied once
        self.shapes = [_shape(h) for h in hunks]
        self.rel_runs = [[(a, b) for a, b, _t in s] for s in self.shapes]
        self.span = [(r[0][0], r[-1][1]) if r else (0, 0) for r in self.rel_runs]
        # gaps an edit inserts into between two of its own old lines: it says they are
        # adjacent, so another insertion there leaves no order that applies both
        self.inner_gaps = [[a for a, b in r if a == b and 0 < a < len(h.old)]
                           for r, h in zip(self.rel_runs, hunks)]
        # edits whose last change is an insertion at the end of their span (a gap another
        # insertion may share: _extends_at_one_gap)
        self.ends_inserting = [bool(r) and r[-1][0] == r[-1][1] for r in self.rel_runs]
        self.net: list[list | None] = [None] * len(hunks)  # _net_shape, when asked
        # identical edits: same old and new sides (and same anchors / end-of-file marker)
        keys: dict[tuple, int] = {}
        self.group = [keys.setdefault(same_edit(h), i) for i, h in enumerate(hunks)]
        self.budget = SEARCH_BUDGET

    # -- geometry ------------------------------------------------------------------
    def reaches(self, q: Placement, lo: int) -> bool:
        """Whether ``q`` may collide with an edit starting at ``lo`` (a sweep's test):
        it ends after ``lo``, or inserts into the gap at ``lo`` between its own lines."""
        hi = self.hi(q)
        return hi > lo or (hi == lo and (bool(self.inner_gaps[q.index])
                                         or self.ends_inserting[q.index]))

    def lo(self, p: Placement) -> int:
        return p.start + self.span[p.index][0]

    def hi(self, p: Placement) -> int:
        return p.start + self.span[p.index][1]

    def conflict(self, p: Placement, q: Placement) -> bool:
        if self.group[p.index] == self.group[q.index] and p.start == q.start:
            return True  # identical edits take one place each
        ps, qs = p.start, q.start
        if self._extends_at_one_gap(p, q):
            return True
        if self.inner_gaps[p.index] and self.inner_gaps[q.index] \
                and self._shared_inner_gap(p, q) is not None:
            return self.effect(p) != self.effect(q)  # the same insertion stated twice
        if not (ps + self.span[p.index][0] < qs + self.span[q.index][1]
                and qs + self.span[q.index][0] < ps + self.span[p.index][1]):
            return False
        for a1, b1 in self.rel_runs[p.index]:
            for a2, b2 in self.rel_runs[q.index]:
                if _runs_conflict(ps + a1, ps + b1, qs + a2, qs + b2):
                    return self.effect(p) != self.effect(q)  # the same change stated twice
        return False

    def _extends_at_one_gap(self, p: Placement, q: Placement) -> bool:
        """Two insertions into one gap where one restates the other and goes on (``X``,
        then ``X Y``): in order they would insert X twice, so they overlap."""
        for a1, b1, t1 in self.shapes[p.index]:
            if a1 != b1 or not t1:
                continue
            for a2, b2, t2 in self.shapes[q.index]:
                if a2 == b2 and t2 and t1 != t2 and p.start + a1 == q.start + a2 \
                        and (t1[:len(t2)] == t2 or t2[:len(t1)] == t1):
                    return True
        return False

    def _shared_inner_gap(self, p: Placement, q: Placement) -> int | None:
        """The gap (after 1-based file line N) both edits insert into between two of
        their own old lines, or None."""
        both = ({p.start + a for a in self.inner_gaps[p.index]}
                & {q.start + a for a in self.inner_gaps[q.index]})
        return min(both) if both else None

    def effect(self, p: Placement) -> tuple:
        """What edit ``p.index`` does at ``p``: the lines it removes and the lines it adds
        where.  Two edits with the same effect (a restatement with other context lines)
        are one change, made once."""
        if self.net[p.index] is None:
            self.net[p.index] = _net_shape(self.hunks[p.index])
        runs, tier = self.net[p.index], p.tier
        if tier and self.correct is not None:
            key = (p.index, p.start)
            if key not in self.corrected:
                fixed = self.correct(p, runs)
                self.corrected[key] = None if fixed is None else tuple(
                    (a, b, tuple(t)) for a, b, t in fixed)
            if self.corrected[key] is not None:
                # as the file will hold them: a restatement that needed a tolerance
                # (re-indented, curly quotes) is the same change as the exact one
                runs, tier = self.corrected[key], 0
        return (tuple((p.start + a, p.start + b, t) for a, b, t in runs),
                tier, self.hunks[p.index].new_no_newline)

    def distinct(self, placed: list[Placement]) -> list[Placement]:
        """``placed`` without the edits whose effect an earlier edit already has."""
        seen: set[tuple] = set()
        out = []
        for p in sorted(placed, key=lambda p: p.index):
            e = self.effect(p)
            if e not in seen:
                seen.add(e)
                out.append(p)
        return out

    def changes(self, i: int) -> bool:
        """Whether edit ``i`` changes anything (a context-only edit is dropped once it fits)."""
        h = self.hunks[i]
        return bool(self.rel_runs[i]) or h.old_no_newline != h.new_no_newline

    # -- choosing ------------------------------------------------------------------
    def place(self, lines: Sequence[str], problem) -> list[Placement]:
        self.problem = problem
        edits = [i for i in range(len(self.hunks)) if self.changes(i) and i not in self.restated]
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
        self._check_revisions(fixed)
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
            active = [q for q in active if self.reaches(q, lo)]
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
            if blocks_apart(a.hunk, b.hunk):
                problems.append(self._revision(a, b))
                continue
            gap = self._shared_inner_gap(a, b)
            why = ("both change the same lines" if gap is None else
                   f"both insert different lines between lines {gap} and {gap + 1}, each "
                   "keeping those two lines together, so no order can apply both")
            problems.append(self.problem(
                b.hunk, f"overlaps edit {a.hunk.number} (lines {a.start + 1}-"
                        f"{max(a.end, a.start + 1)}): {why}",
                hint="merge overlapping edits into one"))
        return problems

    def _revision(self, a: Placement, b: Placement, places: list[int] | None = None
                  ) -> Problem:
        """Two blocks of the answer with different versions of the same lines (BEHAVIOR.md
        §3), refused on the later edit ``b``, naming both blocks and first lines.
        ``places``: the fits both share (1-based), when they took two of them only because
        each is kept off the other's."""
        first = a.hunk.first_line().strip()
        first = first[:57] + "..." if len(first) > 60 else first
        this, that = "this block", f"edit {a.hunk.number} ({first!r})"
        if a.hunk.directive:
            same = a.hunk.block == b.hunk.block  # two directives of one block: their order
            names = [block_name(replace(h, block=0) if same else h) for h in (b.hunk, a.hunk)]
            this, that = names[0], f"{that} of the earlier {names[1]}"
        if places:
            at = ", ".join(f"line {n}" for n in places[:5]) + (" ..." if len(places) > 5 else "")
            why = (f"both fit the same lines ({at}) and change them differently, and nothing "
                   "in either (a line number, an anchor, a line found only at one place) says "
                   "which place each one means: two different versions of the same lines in "
                   "one answer")
            reason = f"{this} and {that} overlap: {why}"
        else:
            where = f"lines {a.start + 1}-{max(a.end, a.start + 1)}"
            reason = (f"{this} overlaps {that} ({where}): two different versions of the same "
                      "lines in one answer")
        return self.problem(
            b.hunk, reason,
            hint="if one block revises the other, send the final version alone; if they are "
                 "meant for two places, include unchanged lines that fit only the place each "
                 "one means")

    def _check_fixed(self, fixed: dict[int, Placement]) -> None:
        """Edits with a single place must not collide."""
        pairs = self._collisions(fixed.values())
        if pairs:
            raise Overlap(self._overlap_problems(pairs), across_blocks=any(
                blocks_apart(p.hunk, q.hunk) for p, q in pairs))

    def _check_revisions(self, fixed: dict[int, Placement]) -> None:
        """No edit took its place only because an edit of another block of the answer took
        the lines it also fits and changes them otherwise (BEHAVIOR.md §3: a revised block
        of the same lines is no edit of the next copy of them).  Identical edits take
        successive places (their own rule); line numbers and anchors narrowed the places
        before, and decide."""
        several = [i for i in fixed if len(self.candidates[i]) > 1
                   and (self.hunks[i].directive or self.hunks[i].kind == "search")]
        if not several:
            return
        index = self._fixed_index(fixed)
        problems, told = [], set()
        for i in several:
            for c in self.candidates[i]:
                if c.start == fixed[i].start:
                    continue
                other = next((q for q in self._colliders(c, index)
                              if self.group[q.index] != self.group[i]
                              and blocks_apart(self.hunks[q.index], self.hunks[i])), None)
                if other is not None and frozenset((i, other.index)) not in told:
                    told.add(frozenset((i, other.index)))
                    a, b = sorted((other, fixed[i]), key=lambda x: x.index)
                    shared = sorted({c.start for c in self.candidates[a.index]}
                                    & {c.start for c in self.candidates[b.index]})
                    problems.append(self._revision(a, b, [n + 1 for n in shared]))
                    break
        if problems:
            raise Overlap(problems, across_blocks=True)

    def _colliders(self, c: Placement, index):
        """The fixed edits that ``c`` collides with (``_free``'s sweep)."""
        ps, los, maxhi, _taken = index
        lo, hi = self.lo(c), self.hi(c)
        inner = bool(self.inner_gaps[c.index])
        j = (bisect_right if inner else bisect_left)(los, hi) - 1
        while j >= 0 and (maxhi[j] > lo or inner and maxhi[j] == lo):
            if ps[j].index != c.index and self.conflict(c, ps[j]):
                yield ps[j]
            j -= 1

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
        inner = bool(self.inner_gaps[c.index])  # then edits touching c may collide too
        j = (bisect_right if inner else bisect_left)(los, hi) - 1
        while j >= 0 and (maxhi[j] > lo or inner and maxhi[j] == lo):
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
        comps = self._constraining_groups(doms)
        if comps is None:
            return {}, {i: "too many overlapping places to decide" for i in doms}
        return self._place_groups(comps, doms)

    def _constraining_groups(self, doms) -> list[list[int]] | None:
        """The open edits in groups that constrain each other: identical edits, and edits
        with colliding candidates (a sweep over the candidates in file order); None when
        the search budget runs out."""
        groups = _UnionFind(doms)
        first_of_group: dict[int, int] = {}
        for i in doms:
            g = self.group[i]
            if g in first_of_group:
                groups.union(i, first_of_group[g])
            else:
                first_of_group[g] = i
        allc = sorted((c for d in doms.values() for c in d), key=self.lo)
        active: list[Placement] = []
        for c in allc:
            lo = self.lo(c)
            active = [q for q in active if self.reaches(q, lo)]
            for q in active:
                self.budget -= 1
                if (q.index != c.index and groups.find(q.index) != groups.find(c.index)
                        and self.conflict(c, q)):
                    groups.union(c.index, q.index)
            active.append(c)
            if self.budget < 0:
                return None
        comps: dict[int, list[int]] = {}
        for i in doms:
            comps.setdefault(groups.find(i), []).append(i)
        return list(comps.values())

    def _place_groups(self, comps: list[list[int]], doms
                      ) -> tuple[dict[int, Placement], dict[int, str]]:
        """The one placement of each group of edits, and the edits left undecided (with
        why, when it is not plain ambiguity)."""
        found: dict[int, Placement] = {}
        undecided: dict[int, str] = {}
        for members in comps:
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


class _UnionFind:
    """Disjoint sets of edit indexes (path halving; the smaller index is a set's root)."""

    def __init__(self, ids):
        self.parent = {i: i for i in ids}

    def find(self, i: int) -> int:
        parent = self.parent
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)
