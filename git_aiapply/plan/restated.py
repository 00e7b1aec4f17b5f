"""Edits that restate what an earlier operation of the same response already made
(BEHAVIOR.md §3: the same edit given more than once is applied once), compared by effect,
whatever their shapes: a tool call's Edit recapped as a ```diff in the final turn, a
SEARCH block restating a MultiEdit, a Write then a diff of part of it.

An edit restates the earlier operations of a file when, made alone on the content the file
held before one of them, its change is one they already made there: merged three-way
(that content as ancestor, the file as they left it as ours, the edit's result as theirs)
it adds nothing.  A change at another place, or another change of the same lines, is no
restatement: it is applied on the current content, or refused there.
"""
from __future__ import annotations

from ..errors import ApplyError, Problem
from ..locate.matching import common_ends
from ..record import replace
from ..text import FileText

# earlier contents tried per edit: a conversation edits a file a few times, not hundreds
EARLIER_TRIED = 20


def changes(a: list[bytes], b: list[bytes]) -> list[tuple[int, int, int, int]]:
    """The runs where ``b`` differs from ``a``: (a1, a2, b1, b2), a[a1:a2] -> b[b1:b2]."""
    head, tail = common_ends(a, b)
    mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
    if not mid_a and not mid_b:
        return []
    from difflib import SequenceMatcher  # only when a response edits a file twice

    ops = SequenceMatcher(None, mid_a, mid_b, autojunk=False).get_opcodes()
    return [(i1 + head, i2 + head, j1 + head, j2 + head)
            for tag, i1, i2, j1, j2 in ops if tag != "equal"]


def _region(lo: int, hi: int, runs: list) -> tuple[int, int, list]:
    """[lo, hi) of the ancestor grown over every change that overlaps or touches it
    (touching counts, as in a merge: two changes side by side are one conflict region)."""
    grown = True
    inside: list = []
    while grown:
        grown = False
        for c in runs:
            if c not in inside and c[0] <= hi and lo <= c[1]:
                inside.append(c)
                lo, hi = min(lo, c[0]), max(hi, c[1])
                grown = True
    return lo, hi, inside


def _side(lines: list[bytes], lo: int, hi: int, runs: list, inside: list) -> list[bytes]:
    """What one side holds where the ancestor holds [lo, hi)."""
    start = lo + sum((c[3] - c[2]) - (c[1] - c[0]) for c in runs
                     if c not in inside and c[1] < lo)
    length = (hi - lo) + sum((c[3] - c[2]) - (c[1] - c[0]) for c in inside)
    return lines[start:start + length]


def already_made(base: list[bytes], made: list[bytes], mine: list[bytes],
                 ours: list | None = None) -> bool:
    """Whether the change from ``base`` to ``mine`` is part of the change from ``base`` to
    ``made``: every run ``mine`` changes lies in a region where ``made`` holds exactly what
    ``mine`` holds (a clean three-way merge of ``mine`` into ``made`` gives ``made``).  An
    edit that changes nothing restates nothing.  ``ours``: ``changes(base, made)``, when
    known (one diff of the file serves every edit compared with it)."""
    theirs = changes(base, mine)
    if not theirs:
        return False
    if ours is None:
        ours = changes(base, made)
    for t in theirs:
        lo, hi = t[0], t[1]
        while True:  # grow over both sides' changes until neither adds one
            lo, hi, in_ours = _region(lo, hi, ours)
            lo2, hi2, in_theirs = _region(lo, hi, theirs)
            if (lo2, hi2) == (lo, hi):
                break
            lo, hi = lo2, hi2
        if not in_ours:
            return False  # a change the earlier operations did not make
        if _side(made, lo, hi, ours, in_ours) != _side(mine, lo, hi, theirs, in_theirs):
            return False
    return True


def restates_earlier(earlier: list[bytes], now: bytes, make, memo: dict | None = None) -> bool:
    """Whether an edit restates earlier operations of a file: ``earlier`` are the contents
    the file held before each of them (oldest first), ``now`` what they left, ``make(i,
    data)`` the edit made alone on ``data``, the i-th of them (None where it does not fit
    there).  ``memo`` keeps the lines and diffs of the contents for the next edit."""
    memo = {} if memo is None else memo
    if "made" not in memo:
        memo["made"] = now.splitlines(keepends=True)
    made = memo["made"]
    for i, before in enumerate(earlier[:EARLIER_TRIED]):
        result = make(i, before)
        if result is None:
            continue
        if i not in memo:
            base = before.splitlines(keepends=True)
            memo[i] = (base, changes(base, made))
        base, ours = memo[i]
        if already_made(base, made, result.splitlines(keepends=True), ours):
            return True
    return False


class EarlierContents:
    """What each file held before every operation of the response that changed its
    content (``changed``), oldest first, with the call or block each came from: a later
    edit that restates what they made is made once, and a later edit's refusal says that
    it was matched against the file as they left it."""

    def __init__(self):
        self.by_path: dict[str, list[tuple[bytes, tuple]]] = {}

    def changed(self, path: str, before: bytes, source) -> None:
        """An operation from ``source`` changes ``path``'s content, which held ``before``."""
        self.by_path.setdefault(path, []).append((before, _origin(source)))

    def forget(self, path: str) -> None:
        """``path`` was deleted or moved away: a file put there later starts afresh."""
        self.by_path.pop(path, None)

    def has(self, path: str) -> bool:
        return bool(self.by_path.get(path))

    def _before(self, path: str, source, now: bytes) -> tuple[list[bytes], bytes]:
        """The contents ``path`` held before each earlier operation of another call or
        block than ``source``'s, and what they left: the edits of one MultiEdit are a
        sequence the tool itself runs strictly (one that finds nothing fails the call)."""
        mine = _origin(source)
        earlier: list[bytes] = []
        for before, origin in self.by_path.get(path, []):
            if origin == mine:
                return earlier, before
            earlier.append(before)
        return earlier, now

    def without_restated(self, op, path: str, now: bytes):
        """EditFile ``op`` without the hunks that restate what earlier operations made to
        ``path`` (a tool call's Edit recapped as a diff): made once, -v says so; None when
        every hunk does.  Other operations (hashline edits) are returned as they are."""
        from ..locate import edit_report
        from ..locate.locate import apply_hunks
        from ..locate.matching import LineIndex
        from ..ops import EditFile

        if not isinstance(op, EditFile) or not self.has(path):
            return op

        texts: dict[int, tuple] = {}  # each earlier content's text and one index of it

        def made_by(h):
            def make(i: int, data: bytes) -> bytes | None:
                if i not in texts:
                    ft = FileText.from_bytes(data)
                    texts[i] = (ft, LineIndex(ft.lines, [l for h in op.hunks for l in h.old]))
                ft, index = texts[i]
                try:
                    return apply_hunks(ft, [h], path=path, index=index)[0].to_bytes()
                except ApplyError:
                    return None
            return make

        fresh, restated = [], []
        earlier, made = self._before(path, op.source, now)
        there, memo = stripped_lines(made), {}
        with edit_report.muted():  # trials: -v reports what is applied
            for h in op.hunks:
                again = adds_only(h, there) and restates_earlier(earlier, made, made_by(h), memo)
                (restated if again else fresh).append(h)
        if restated and edit_report.collecting():
            edit_report.note([edit_report.restated_report(path, h.directive or op.source.directive,
                                                          h.number) for h in restated])
        if not restated:
            return op
        return replace(op, hunks=fresh) if fresh else None

    def made_again(self, op, path: str, old) -> bool:
        """Whether a creation (a diff from /dev/null, an empty old_string) gives ``path``
        the content an earlier operation of the response already gave it (a Write
        recapped as a new-file diff): made once, -v says so."""
        from ..locate import edit_report
        from ..text import encode

        if op.replace or old is None or not self.has(path) or old.data != encode(op.text):
            return False
        edit_report.note([edit_report.restated_report(path, op.source.directive, 1)])
        return True

    def restated_call(self, op, path: str, now: bytes) -> bool:
        """Whether a text editor call (ReplaceText, InsertText) restates what earlier
        operations made to ``path`` (a diff, then the same change by a later turn's
        Edit); -v says so."""
        from ..locate import edit_report
        from ..locate.text_edits import apply_text_edit

        if not self.has(path):
            return False

        def make(_i: int, data: bytes) -> bytes | None:
            try:
                return apply_text_edit(FileText.from_bytes(data), op, path)[0].to_bytes()
            except ApplyError:
                return None

        with edit_report.muted():  # a trial: only its result is compared
            again = restates_earlier(*self._before(path, op.source, now), make)
        if again:
            edit_report.note([edit_report.restated_report(path, op.source.directive, op.number)])
        return again

    def as_left(self, path: str, problems: list[Problem]) -> list[Problem]:
        """``problems`` of an edit of ``path`` that earlier operations changed, each saying
        that the edit was matched against the file as they left it (the lines shown are
        that content, not the repository's)."""
        if not self.has(path):
            return problems
        names: list[str] = []
        for _before, origin in self.by_path[path]:
            if origin[1] not in names:  # a tool call's words, or a block's directive
                names.append(origin[1])
        which = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        note = (f"(matched against {path} as the response's earlier edits left it, not as "
                f"the repository holds it; earlier edits: {which})")
        return [replace(p, reason=f"{p.reason} {note}") if p.file in (None, path) else p
                for p in problems]


def stripped_lines(data: bytes) -> set[str]:
    return {line.strip() for line in data.decode("utf-8", "surrogateescape").split("\n")}


def adds_only(h, there: set[str]) -> bool:
    """A cheap filter: a hunk can restate earlier operations only if every line it adds
    is in the file they left (most hunks of a later turn add new lines: never tried)."""
    from ..ops import ADD

    return all(text.strip() in there for tag, text in h.lines if tag == ADD)


def _origin(source) -> tuple:
    """The call or block an operation comes from: a tool call's operations share their
    call's words (``tool call 2 (tool_use MultiEdit): MultiEdit f.py, edit 3``)."""
    from ..locate.text_edits import TOOL_CALL

    if source.format == TOOL_CALL:
        return (source.format, source.directive.split(": ", 1)[0])
    return (source.format, source.directive, source.block, source.line)
