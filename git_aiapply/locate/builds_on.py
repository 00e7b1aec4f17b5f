"""Whether a later edit of a file builds on an earlier one (BEHAVIOR.md §3, red-team
H10-H12, issue 30): all edits of a file are located against the original, but a later
edit that quotes lines an earlier edit of the answer wrote applies to what that edit
wrote, as aider and Codex apply edits in turn.

- An edit whose old side fits the original only on a loose tier (or not at all), and
  exactly in the text as the earlier edits of the file left it, on lines one of them
  wrote, quotes that edit's result (rename ``add(a, b)`` to ``add(x, y)``, then document
  ``add(x, y)``): the loose fit (an indented method of the same name) would be a wrong
  place that lands silently.  Such edits are applied in turn (``gather.apply_in_turn``,
  ``divider_readings.apply_edit``).
- An edit whose old side fits the original exactly, somewhere no earlier edit changed,
  and also fits exactly on lines an earlier edit wrote, has two readings: the original's
  copy (another function) or what the earlier edit wrote.  It is refused as ambiguous,
  naming both places, unless its own marks leave one: a unified diff hunk's stated line
  (``placer.line_evidence``, counted in the original or in the earlier edits' result),
  apply-patch ``@@`` anchors or an end-of-file mark (the place the rules give it alone).

The trial costs one application of the earlier edits in turn, and only when a later edit
may build on them: one that fits loosely, or that quotes a line an earlier edit adds
(compared on the loosest tier: added lines are corrected as they are written).  Answers
whose blocks quote nothing another block adds (the 2,000-section benchmark) skip it.
"""
from __future__ import annotations

from ..errors import ApplyError, Problem
from .matching import norm_line
from ..ops import ADD, REMOVE
from ..record import replace
from ..text import FileText

ORIGINAL, IN_TURN = "original", "in turn"  # what a later edit's own marks say it edits


def builds_on_earlier(ft: FileText, groups: list[list], apply_group, *, path: str = "",
                      directive: str | None = None) -> bool:
    """Whether a hunk of a later group (groups: a file's edits in response order) builds
    on the earlier groups: it fits ``ft`` only loosely or not at all, yet exactly in the
    text the earlier groups leave, on lines they wrote; or it fits ``ft`` exactly as well
    and its stated line or anchors say it means the lines they wrote.  ApplyError when a
    hunk that fits ``ft`` exactly fits lines they wrote too and nothing says which.
    ``apply_group(text, hunks)`` applies one group (as in turn)."""
    from .matching import LineIndex

    later = [h for hunks in groups[1:] for h in hunks if h.old]
    if not later:
        return False
    index = LineIndex(ft.lines, [l for h in later for l in h.old])
    quoting = _quoting_earlier(groups)
    loose: set[int] = set()
    exact: dict[int, list[int]] = {}  # hunk id -> its exact fits in ``ft``
    for h in later:
        tier, fits = index.first_fits(h.old)
        if tier > 0:  # tier 0: exact
            loose.add(id(h))
        elif id(h) in quoting:
            exact[id(h)] = fits
    if not loose and not exact:
        return False
    return _Trial(ft, groups, index, loose, exact, path, directive).run(apply_group)


_EDGE = None  # no line there: the earlier hunk's new side ends (other lines of the file follow)


def _quoting_earlier(groups: list[list]) -> set[int]:
    """The ids of the hunks whose old side can fit, in the text the earlier groups leave,
    on a line one of them added: aligned with an earlier hunk's new side so that a line it
    adds is one of the old lines, and the lines they share agree (on the loosest tier: an
    added line is written with the file's indentation and punctuation).  A context line
    of the earlier hunk may have been changed by another group: there any line an earlier
    group adds agrees.  Added lines are indexed with their neighbours, so a common one
    (a blank) is compared only with hunks whose lines around it agree: the answers of
    thousands of blocks never try every pair."""
    maybe = _quoting_an_added_line(groups)
    if not maybe:
        return maybe
    sides = _NewSides()
    out: set[int] = set()
    for hunks in groups:
        for h in hunks:
            if id(h) in maybe and sides.align(h):
                out.add(id(h))
        for h in hunks:
            sides.add(h)
    return out


def _norm(line: str) -> str:
    """A line on the loosest tier (``matching.norm_line``); the fold maps only characters
    outside ASCII."""
    return line.strip() if line.isascii() else norm_line(3, line)


def _quoting_an_added_line(groups: list[list]) -> set[int]:
    """The cheap question most answers end on: the ids of the hunks with an old line that
    an earlier group adds (``_norm``)."""
    added: set[str] = set()
    maybe: set[int] = set()
    for k, hunks in enumerate(groups):
        if k and added:
            maybe.update(id(h) for h in hunks if any(_norm(l) in added for l in h.old))
        added.update(_norm(t) for h in hunks for tag, t in h.lines if tag == ADD)
    return maybe


class _NewSides:
    """The earlier hunks' new sides (context and added lines, ``_norm``), each added line
    indexed with its neighbours: added line -> its left neighbour -> its right one ->
    (new side, position)."""

    def __init__(self):
        self.added: set[str] = set()
        self.at: dict[str, dict] = {}

    def add(self, h) -> None:
        new = [(_norm(t), tag == ADD) for tag, t in h.lines if tag != REMOVE]
        for p, (v, is_added) in enumerate(new):
            if is_added:
                self.added.add(v)
                left = new[p - 1][0] if p else _EDGE
                right = new[p + 1][0] if p + 1 < len(new) else _EDGE
                self.at.setdefault(v, {}).setdefault(left, {}).setdefault(right, []).append((new, p))

    def align(self, h) -> bool:
        old = [_norm(l) for l in h.old]
        return any(_aligned(old, i, self.at, self.added)
                   for i, v in enumerate(old) if v in self.added)


def _aligned(old: list[str], i: int, at: dict, added: set[str]) -> bool:
    """Whether ``old`` (normalised) agrees with an earlier new side that adds ``old[i]``,
    aligned there (``_quoting_earlier``)."""
    def near(table: dict, k: int):  # the entries whose neighbour can be old[k]
        if k < 0 or k >= len(old) or old[k] in added:
            return table.values()
        return [table.get(old[k], {}), table.get(_EDGE, {})]

    for by_right in near(at[old[i]], i - 1):
        for places in near(by_right, i + 1):
            if any(_agree(old, new, p - i, added) for new, p in places):
                return True
    return False


def _agree(old: list[str], new: list, d: int, added: set[str]) -> bool:
    for q in range(max(0, -d), min(len(old), len(new) - d)):
        v, is_added = new[q + d]
        if old[q] != v and (is_added or old[q] not in added):
            return False
    return True


class _Trial:
    """The earlier groups applied in turn (muted: -v reports only what is applied), up to
    the last group that may build on them, with the lines each group wrote followed."""

    def __init__(self, ft: FileText, groups: list[list], index, loose: set[int],
                 exact: dict[int, list[int]], path: str, directive: str | None):
        self.original, self.groups, self.index = ft, groups, index
        self.loose, self.exact = loose, exact
        self.path, self.directive = path, directive
        self.changes: list = []  # every run the groups applied so far changed, in order

    def run(self, apply_group) -> bool:
        from .edit_report import muted
        from .locate import recording_changes

        last = max(k for k, hunks in enumerate(self.groups)
                   if any(id(h) in self.loose or id(h) in self.exact for h in hunks))
        ft = self.original
        # per line of the current text: the group that wrote it (-1: none)
        writer = [-1] * len(ft.lines)
        building = False
        problems: list[Problem] = []
        with muted():
            for k, hunks in enumerate(self.groups[:last + 1]):
                if k:
                    building |= _fits_on_written(
                        ft.lines, [h for h in hunks if id(h) in self.loose], writer)
                    for h, verdict in self._readings(ft, hunks, writer):
                        if isinstance(verdict, Problem):
                            problems.append(verdict)
                        building |= verdict == IN_TURN
                if k == last:
                    break
                try:
                    with recording_changes() as changes:
                        ft = apply_group(ft, hunks)[0]
                except ApplyError:
                    break  # the groups cannot be applied in turn: nothing more to learn
                writer = _after(writer, changes, k)
                self.changes.extend(changes)
        if problems:
            raise ApplyError(problems)
        return building

    def _readings(self, now: FileText, hunks: list, writer: list[int]):
        """(hunk, what it edits) for the hunks of ``hunks`` that fit the original exactly
        where no earlier group changed it and, in ``now``, exactly on lines an earlier
        group wrote: ORIGINAL or IN_TURN when their own marks say, else a Problem."""
        from .locate import image
        from .matching import LineIndex

        mine = [h for h in hunks if id(h) in self.exact]
        if not mine:
            return
        index = LineIndex(now.lines, [l for h in mine for l in h.old])
        for h in mine:
            n = len(h.old)
            ours = [s for s in index.fits(h.old, 0) if any(w >= 0 for w in writer[s:s + n])]
            if not ours:
                continue
            theirs = {s: image(s, n, self.changes) for s in self.exact[id(h)]}
            theirs = {s: t for s, t in theirs.items() if t is not None}
            if not theirs:
                continue  # only copies an earlier group changed: the other rules decide
            verdict = self._marks(h, hunks, now, index, ours, theirs)
            yield h, verdict or self._ambiguous(h, ours, theirs, writer)

    def _marks(self, h, hunks: list, now: FileText, index, ours: list[int],
               theirs: dict[int, int]) -> str | None:
        """What ``h``'s own marks say it edits (``theirs``: the original's copies and their
        images in ``now``; ``ours``: the fits on lines an earlier group wrote).  Its anchors
        (or end-of-file mark) locate it alone, in the original and in ``now``.  Its stated
        line may count the original or ``now`` (``placer.line_evidence`` in each); when the
        two countings name the two readings, the reading the line names at most half as far
        off says.  None when the marks say nothing, or name both readings alike."""
        from .locate import own_places, stated_places
        from .placer import clearly_nearer

        if h.anchors or h.at_eof:
            was = set(own_places(h, self.original.lines, self.index))
            is_ = set(own_places(h, now.lines, index))
            original = bool(was & set(theirs) or is_ & set(theirs.values()))
            in_turn = bool(is_ & set(ours))
        elif h.line_hint is not None:
            i = next(k for k, g in enumerate(hunks) if g is h)
            off_was: dict[int, int] = {}
            off_is: dict[int, int] = {}
            was = stated_places(self.original.lines, hunks, self.index, off_was).get(i)
            is_ = stated_places(now.lines, hunks, index, off_is).get(i)
            original = was in theirs or is_ in theirs.values()
            in_turn = is_ in ours
            if original and in_turn and is_ not in theirs.values():  # the countings differ
                nearer = clearly_nearer(off_was[i], off_is[i])
                if nearer is not None:
                    return (ORIGINAL, IN_TURN)[nearer]
        else:
            return None
        if original != in_turn:
            return ORIGINAL if original else IN_TURN
        return None

    def _ambiguous(self, h, ours: list[int], theirs: dict[int, int], writer: list[int]
                   ) -> Problem:
        from .anchors import numbered
        from .placer import block_name

        n = len(h.old)
        wrote = self.groups[next(w for w in writer[ours[0]:ours[0] + n] if w >= 0)][0]
        first = sorted(theirs)[0]
        if h.directive:  # two directives of one block (Update File sections): their order
            same = wrote.block == h.block
            this, that = (block_name(replace(g, block=0) if same else g) for g in (h, wrote))
            that = f"the earlier {that}"
        else:
            this, that = "this edit", f"the earlier edit {wrote.number} ({_short(wrote)!r})"
        places = ", ".join(f"lines {s + 1}-{s + n}" if n > 1 else f"line {s + 1}"
                           for s in sorted(theirs)[:5])
        reason = (f"{this} quotes lines that {that} writes, and the file as it is holds the "
                  f"same lines ({places}) where no earlier block changes them: it does not "
                  "say which of the two it edits (ambiguous)")
        return Problem(
            reason, file=self.path or None, directive=h.directive or self.directive,
            edit=h.number, edit_first_line=h.first_line(),
            nearby=numbered(self.original.lines, first, first + n),
            nearby_label="the lines as the file already holds them",
            candidates=[s + 1 for s in sorted(theirs)],
            hint="to change what the earlier block writes, send that block again with this "
                 "change made in it; to change the file's own copy, quote lines only that "
                 "place holds (or give the hunk's line numbers, or an @@ anchor naming its "
                 "function)")


def _short(h) -> str:
    first = h.first_line().strip()
    return first[:57] + "..." if len(first) > 60 else first


def _fits_on_written(lines, hunks: list, writer: list[int]) -> bool:
    from .matching import LineIndex

    if not hunks:
        return False
    index = LineIndex(lines, [l for h in hunks for l in h.old])
    return any(any(w >= 0 for w in writer[s:s + len(h.old)])
               for h in hunks for s in index.fits(h.old, 0))


def _after(writer: list[int], changes: list, group: int) -> list[int]:
    """``writer`` carried through ``changes`` (``locate.recording_changes``: per text,
    runs ``(a, b, n)`` in file order): the n lines of a run are written by ``group``."""
    for runs in changes:
        out: list[int] = []
        at = 0
        for a, b, n in runs:
            out += writer[at:a]
            out += [group] * n
            at = b
        writer = out + writer[at:]
    return writer
