"""A file's edits from several directives of one response, taken together (BEHAVIOR.md
§3): all edits of a file are located against the content they were written against, so
a block restated in another section, another format or a tool call is recognised as the
same edit, different edits of the same lines are refused as overlapping across sections
as within one, and the file is indexed once per response, not once per section.
``plan.make_plan`` gathers the operations (``gather_edits``), applies a gathered
EditFile (``apply_gathered``) and asks ``restates`` about text editor calls.
"""
from __future__ import annotations

from ..errors import ApplyError
from ..ops import EditFile, InsertText, Operation, ReplaceText
from ..record import replace
from ..text import FileText


def _touched_paths(op: Operation, normalize, file_named=None) -> list[str]:
    """The files an operation reads or writes, by their normalised paths as the base
    spells them (``file_named``: tracked_names.TrackedNames.file_named); none when a
    path is invalid: that operation is refused anyway."""
    raws = [getattr(op, name, None) for name in ("path", "old_path", "new_path")]
    out = []
    for raw in raws:
        if raw is not None:
            try:
                path = normalize(raw)
            except ApplyError:
                continue
            out.append(file_named(path) if file_named is not None else path)
    return out


def gather_edits(ops: list[Operation], normalize, file_named=None) -> list[Operation]:
    """``ops`` with the edits of each file gathered into one EditFile, at the place of the
    first, while no other operation touches that file between them (BEHAVIOR.md §3: all
    edits of a file are located against the content they were written against, so a
    restatement in another section is recognised, overlaps across sections are refused,
    and the file is indexed once, not once per section).  A rename, a rewrite, a deletion
    or a text editor call of the path closes its group: directives still apply in order.
    ``file_named(path)``: the file a normalised path names (its tracked spelling: under
    core.ignorecase `app.py` and `App.py` are one file), the path itself when omitted."""
    if sum(isinstance(op, EditFile) for op in ops) < 2:
        return ops
    out: list[Operation] = []
    open_at: dict[str, int] = {}  # path -> index in ``out`` of its gathered EditFile
    for op in ops:
        paths = _touched_paths(op, normalize, file_named)
        if isinstance(op, EditFile) and op.text_if_missing is not None:
            # it may create its file (aider's udiff): it closes its path's group, so that
            # later sections apply to what it made, in order, and are never lost in it
            for p in paths:
                open_at.pop(p, None)
            out.append(op)
            continue
        if isinstance(op, EditFile) and paths:
            at = open_at.get(paths[0])
            if at is not None:
                out[at] = _joined(out[at], op)
                continue
            open_at[paths[0]] = len(out)
        else:
            for p in paths:
                open_at.pop(p, None)
        out.append(op)
    return out


def _joined(first: EditFile, op: EditFile) -> EditFile:
    """One EditFile holding both directives' hunks, each hunk tagged with its directive
    (errors name it; line-number offsets stay within it)."""
    def tagged(e: EditFile, section: int) -> list:
        return [replace(h, directive=e.source.directive, section=section, block=e.source.block)
                for h in e.hunks]

    hunks = first.hunks if first.hunks and first.hunks[0].directive else tagged(first, 0)
    section = hunks[-1].section + 1 if hunks else 1
    return replace(first, hunks=hunks + tagged(op, section),
                   ensure_final_newline=first.ensure_final_newline or op.ensure_final_newline,
                   in_turn=first.in_turn and op.in_turn)


def apply_gathered(ft: FileText, op: EditFile, path: str) -> tuple[FileText, int, int]:
    """An EditFile's hunks located together (``divider_readings.apply_edit``).  Gathered
    from several directives that do not fit together, they may fit one directive after
    another (``apply_in_turn``); if that fails too, the refusal is the one of locating
    them together.  A later directive that builds on an earlier one (``builds_on``) is
    applied in turn at once: together it would take a loose fit of the original."""
    if _builds_on_earlier(ft, op, path):
        return apply_in_turn(ft, _sections(op.hunks),
                             lambda text, hunks: _apply_edit(text, hunks, op, path), path)
    try:
        return _apply_edit(ft, op.hunks, op, path)
    except ApplyError as together:
        directives: dict[int, list] = {}
        for h in op.hunks:
            directives.setdefault(h.section, []).append(h)
        if len(directives) < 2:
            raise
        refusal = together
    try:
        # two blocks of the answer overlapped: in turn, a later block that quotes the
        # original lines an earlier one changed is another version of them, never an
        # edit of the next copy of those lines (a restatement is still made once)
        return apply_in_turn(ft, list(directives.values()),
                             lambda text, hunks: _apply_edit(text, hunks, op, path), path,
                             revisions=getattr(refusal, "across_blocks", False))
    except ApplyError:
        raise refusal from None


def _sections(hunks: list) -> list[list]:
    """``hunks`` by the directive they came from, in response order."""
    out: dict[int, list] = {}
    for h in hunks:
        out.setdefault(h.section, []).append(h)
    return list(out.values())


def _builds_on_earlier(ft: FileText, op: EditFile, path: str) -> bool:
    from ..locate.builds_on import builds_on_earlier

    groups = _sections(op.hunks)
    return len(groups) > 1 and builds_on_earlier(
        ft, groups, lambda text, hunks: _apply_edit(text, hunks, op, path), path=path,
        directive=op.source.directive)


def _apply_edit(ft: FileText, hunks: list, op: EditFile, path: str) -> tuple[FileText, int, int]:
    """``hunks`` of ``op`` located together on ``ft``."""
    from ..locate.divider_readings import apply_edit

    return apply_edit(ft, hunks, path=path, directive=op.source.directive,
                      ensure_final_newline=op.ensure_final_newline, in_turn=op.in_turn)


def apply_in_turn(ft: FileText, groups: list[list], apply_group, path: str,
                  revisions: bool = False) -> tuple[FileText, int, int]:
    """Groups of hunks (a file's directives) applied one after another, each on the result
    of the ones before, as a conversation's later turn is written against the earlier
    turns' result; ``apply_group(text, hunks)`` locates one group and raises its refusal.
    A hunk that makes an edit an earlier group made is applied once: a copy of it
    (``placer.same_edit``, unless its stated line names another place), or the same
    change with other context lines (``_Restatements``); -v reports it as restated, and
    reports the rest only if all groups fit.  Line evidence holds (``_StatedLines``).
    ``revisions``: a fresh edit whose old side fits the original only at lines an earlier
    group changed is another version of them (ApplyError), not an edit of another copy."""
    from ..locate import edit_report
    from ..locate.locate import recording_changes

    with edit_report.in_turn():  # -v: reported only if all fit, as located in turn
        added = removed = 0
        everything = [h for hunks in groups for h in hunks]
        earlier = _Restatements(ft, path, everything)
        stated = _StatedLines(earlier, everything)
        for hunks in groups:
            fresh = [h for h in hunks if stated.for_next_fit(h) or not stated.made_before(h)
                     and not earlier.restates(h) and not earlier.already_in(h, ft)]
            if edit_report.collecting():
                kept = {id(h) for h in fresh}
                edit_report.note(edit_report.restated_report(path, h.directive, h.number)
                                 for h in hunks if id(h) not in kept)
            if revisions and any(stated.revises(h) for h in fresh):
                raise ApplyError("a later block gives another version of lines an earlier "
                                 "block changes")
            stated.add(hunks)
            earlier.add(hunks)
            if fresh:
                with recording_changes() as changes:
                    ft, a, r = apply_group(ft, stated.pinned(ft, fresh))
                stated.changes.extend(changes)
                added, removed = added + a, removed + r
        return ft, added, removed


def image(start: int, length: int, changes: list) -> int | None:
    from ..locate.locate import image as follow

    return follow(start, length, changes)


class _StatedLines:
    """Line evidence is never overridden by applying in turn (BEHAVIOR.md §3).  A hunk's
    stated line may count lines of the original content or of the earlier directives'
    result: where it names a fit of the original (``locate.stated_places``), that fit is
    followed through the earlier directives' changes (``locate.image``).  Changed by them
    (a revised version of an edit they made, red-team F3): ApplyError, and the refusal
    is the one of locating them together.  Its image not the fit the line names on the
    current content (the two countings name two places): the counting whose place lies
    at most half as far off the line says (``placer.clearly_nearer``: a second diff
    numbered on the first one's result, issue 30), else ApplyError.  Otherwise the hunk
    goes to that image, never to another copy of its old lines; and a copy of an earlier
    edit that names another place is no copy."""

    def __init__(self, earlier: _Restatements, hunks: list):
        from ..locate.locate import stated_places

        off: dict[int, int] = {}
        was = stated_places(earlier.original.lines, hunks, earlier.index, off)
        self.index = earlier.index  # of the original
        self.was = {id(hunks[i]): start for i, start in was.items()}
        self.off = {id(hunks[i]): off[i] for i in was}  # how far off the line each lies
        self.made: dict[tuple, set] = {}  # same_edit -> the places its copies' lines named
        self.changes: list = []  # the runs each application in turn changed, in order

    def made_before(self, h) -> bool:
        from ..locate.placer import same_edit

        places = self.made.get(same_edit(h))
        here = self.was.get(id(h))
        return places is not None and (here is None or None in places or here in places) \
            and not self.for_next_fit(h)

    def for_next_fit(self, h) -> bool:
        """Whether ``h`` is a copy of an earlier group's edit whose line names a place an
        earlier copy took while its old side has fits no copy took: copies take as many
        places as there are fits (as located together), so it is no restatement."""
        from ..locate.placer import same_edit

        places = self.made.get(same_edit(h))
        here = self.was.get(id(h))
        return places is not None and here is not None and None not in places \
            and here in places and bool(set(self.index.fits(h.old, 0)) - places)

    def revises(self, h) -> bool:
        """Whether ``h``'s old side fits the original exactly at lines the earlier groups
        changed (``locate.image`` finds none of them as they were): written against the
        original, it is another version of lines an earlier block changes."""
        if not h.old or not self.changes:
            return False
        return any(image(s, len(h.old), self.changes) is None
                   for s in self.index.fits(h.old, 0))

    def add(self, hunks: list) -> None:
        from ..locate.placer import same_edit

        for h in hunks:
            self.made.setdefault(same_edit(h), set()).add(self.was.get(id(h)))

    def pinned(self, current: FileText, hunks: list) -> list:
        """``hunks``, each whose line names a fit of the original stating that fit's image
        as its line (ApplyError when there is none, or the current content's line evidence
        names another place)."""
        from ..locate.locate import image, stated_places
        from ..locate.placer import clearly_nearer

        if not any(id(h) in self.was for h in hunks):
            return hunks
        off: dict[int, int] = {}
        now = stated_places(current.lines, hunks, off=off)
        out = []
        for i, h in enumerate(hunks):
            start = self.was.get(id(h))
            if start is None:
                out.append(h)
                continue
            moved = image(start, len(h.old), self.changes)
            nearer = None
            if moved is not None and now.get(i, moved) != moved:  # two countings, two places
                nearer = clearly_nearer(self.off[id(h)], off[i])
                if nearer == 1:  # counted on the current content: its place there
                    out.append(h)
                    continue
            if moved is None or now.get(i, moved) != moved and nearer is None:
                raise ApplyError(f"edit {h.number}'s stated line names lines an earlier "
                                 "directive changes")
            out.append(h if i in now and nearer is None else replace(h, line_hint=moved + 1))
        return out


class _Restatements:
    """The edits of earlier directives, to recognise a later edit that makes the same
    change with other context lines (a SEARCH/REPLACE block then the same change as a
    diff): made alone on the original content, both give the same bytes.  Only edits that
    add and remove the same lines are compared, a few at most."""

    def __init__(self, original: FileText, path: str, hunks: list):
        from ..locate.matching import LineIndex

        self.original = original
        self.path = path
        self.by_change: dict[tuple, list] = {}
        self.alone: dict[int, bytes | None] = {}
        self._now: tuple | None = None  # (the earlier groups' result, its lines, ...)
        self._original_lines: list[bytes] | None = None
        # every trial locates one hunk on the original: one index of it serves them all,
        # built on first use for the old lines of every hunk that may be tried
        self.index = LineIndex(original.lines, [l for h in hunks for l in h.old])

    @staticmethod
    def _change(h) -> tuple:
        return tuple(sorted(set(h.new) ^ set(h.old)))  # context and re-added lines cancel

    def add(self, hunks: list) -> None:
        for h in hunks:
            self.by_change.setdefault(self._change(h), []).append(h)

    def restates(self, h) -> bool:
        mine = None
        for m in self.by_change.get(self._change(h), [])[:_RESTATED_CANDIDATES]:
            mine = self._made_alone(h) if mine is None else mine
            if mine is not None and self._made_alone(m) == mine:
                return True
        return False

    def already_in(self, h, now: FileText) -> bool:
        """Whether ``h``, made alone on the original content, makes a change the earlier
        directives made (``now`` is their result): by effect, so a recap of two of them as
        one hunk is recognised too (restated.py)."""
        from .restated import adds_only, already_made, changes, stripped_lines

        if now is self.original:
            return False
        if self._now is None or self._now[0] is not now:  # one diff per result of a group
            data = now.to_bytes()
            self._now = (now, data.splitlines(keepends=True), stripped_lines(data), [])
        _, made, there, ours = self._now
        mine = adds_only(h, there) and self._made_alone(h)
        if not mine:
            return False
        if not ours:
            ours.append(changes(self.original_lines(), made))
        return already_made(self.original_lines(), made, mine.splitlines(keepends=True), ours[0])

    def original_lines(self) -> list[bytes]:
        if self._original_lines is None:
            self._original_lines = self.original.to_bytes().splitlines(keepends=True)
        return self._original_lines

    def _made_alone(self, h) -> bytes | None:
        from ..locate.locate import apply_hunks

        from ..locate.edit_report import muted

        if id(h) not in self.alone:
            try:
                with muted():  # a trial (-v reports only what is applied)
                    made = apply_hunks(self.original, [h], path=self.path,
                                       index=self.index)[0].to_bytes()
            except ApplyError:
                made = None
            self.alone[id(h)] = made
        return self.alone[id(h)]


_RESTATED_CANDIDATES = 20


def restates(op: ReplaceText | InsertText, before: bytes, hunks: list, path: str) -> bool:
    """Whether a text editor call makes, on the content the response's edits of the file
    were located against, exactly what one of those edits makes there: the same change
    shown as a diff and made again by a tool call (BEHAVIOR.md §3), which on top of the
    edit could apply a second time."""
    from ..locate.locate import apply_hunks
    from ..locate.matching import LineIndex
    from ..locate.text_edits import apply_text_edit
    from ..locate.edit_report import muted

    added = (op.new if isinstance(op, ReplaceText) else op.text).strip()
    ft = FileText.from_bytes(before)
    try:
        made = apply_text_edit(ft, op, path)[0].to_bytes()
    except ApplyError:
        return False
    # the edit must add what the call adds (a cheap filter); a few candidates are tried,
    # each locating one hunk in the whole file
    candidates = [h for h in hunks if added in "\n".join(h.new)][:_RESTATED_CANDIDATES]
    index = LineIndex(ft.lines, [l for h in candidates for l in h.old])  # one for all trials
    for h in candidates:
        try:
            with muted():  # a trial (-v reports only what is applied)
                made_by_edit = apply_hunks(ft, [h], path=path, index=index)[0].to_bytes()
            if made_by_edit == made:
                return True
        except ApplyError:
            continue
    return False
