"""Turning operations into the final content of every touched path, in memory.

``make_plan`` needs no repository: it reads the files it starts from through a ``Snapshot``
(``git_aiapply.git`` provides one backed by a commit and the worktree; tests pass a
dict-backed one).  Operations apply in response order, so a patch after a rename names
the new path; every problem of every operation is collected before refusing.
"""
from __future__ import annotations

from ..record import field, record
from typing import Protocol

from ..locate import edit_report
from ..errors import ApplyError, Problem
from .gather import apply_gathered, gather_edits, restates
from ..paths import check_leading_folders, git_dotfile
from .plan_moves import MoveChecks, net_moves
from .put_file import PutChecks
from .restated import EarlierContents
from ..ops import (AppendFile, DeleteFile, EditFile, HashlineEdit, InsertText, NewFile, Operation,
    PutFile, RenameFile, ReplaceText, SetMode, Source)
from .diff_groups import diff_key, files_under_files, leaving_paths
from ..text import FileText, encode, is_binary, line_count
from .lazy_edits import merged_edits
from .tracked_names import TrackedNames
from .whole_write import create_only, in_file_endings, namesake_refusal

MODE_FILE = 0o100644
MODE_EXEC = 0o100755
MODE_LINK = 0o120000
REMOVED_EARLIER = "an earlier change of this response deletes it or moves it away"
_EMPTY_OLD_SIDE = {"": ("an empty SEARCH block", "put the lines to replace in the SEARCH block"),
                   "tool-call": ("an empty old_string", "put the lines to replace in the old_string"),
                   "unified-diff": ("a diff from /dev/null", "write hunks against the file's lines")}


class Snapshot(Protocol):
    """The files a response is planned against: tracked entries and what is on disk at
    untracked paths (git/state.py: TreeSnapshot, WorktreeSnapshot; overlay.Overlay)."""

    def entry(self, path: str) -> tuple[int, bytes] | None:
        """(mode, content) of a tracked file (a blob: regular file or symlink), or None."""

    def kind(self, path: str) -> str | None:
        """'file' | 'symlink' | 'submodule' | 'dir' of a tracked path, or None."""

    def disk_kind(self, path: str) -> str | None:
        """What is on disk at an untracked path ('file', 'dir', 'symlink'), or None.
        Branch mode (no worktree) always answers None."""


@record
class FileState:
    """A file as git stores it: mode and content."""

    mode: int
    data: bytes


@record
class FileChange:
    """What happened to one path, for messages, JSON and the summary."""

    path: str
    action: str  # 'add', 'update', 'delete', 'rename', 'mode'
    old_path: str | None = None
    added: int = 0
    removed: int = 0


@record
class Plan:
    """Every touched path before and after the response, and what changed."""

    final: dict[str, FileState | None]  # every touched path: new state, None = removed
    base: dict[str, FileState | None]  # the same paths as they were
    renames: list[tuple[str, str]] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)

    @property
    def touched(self) -> list[str]:
        return sorted(self.final)

    def is_noop(self) -> bool:
        return all(self.final[p] == self.base.get(p) for p in self.final)


_MISSING = object()


class _Planner(MoveChecks, PutChecks):
    state = FileState  # the record of a file's state, for the checks kept in other modules
    def __init__(self, base: Snapshot, normalize, ignore_case: bool = False):
        self.base = base
        self.normalize = normalize
        self.names = TrackedNames(base, self.base_kind, ignore_case)
        self.overlay: dict[str, FileState | None] = {}
        self.original: dict[str, FileState | None] = {}
        # path -> (the state a whole-file write of this response left, its directive)
        self.written_whole: dict[str, tuple[FileState, str | None]] = {}
        self.problems: list[Problem] = []
        self.changes: dict[str, FileChange] = {}
        self.renames: list[tuple[str, str]] = []
        self.folders: dict[str, int] = {}  # folder -> files the response puts under it
        # what the base says of each path asked about (it does not change while planning;
        # the leading folders of many new files are asked about once per file)
        self.base_kinds: dict[str, str | None] = {}
        # leading folders check_parents found to be folders or absent, with all their own
        # leading folders (the files of a response share them); only a file or link put
        # at one of them later can change that, and set() then forgets them all
        self.parents_ok: set[str] = set()
        # the git diff whose operations are running: its renames read their sources as the
        # diff found them, as `git apply` does (a swap a->b, b->a exchanges the files).
        # Each path's state before the diff first wrote it, the paths it gave content,
        # and the paths its deletions and renames take away (make_plan fills ``leaving``).
        self.diff_key: int | None = None
        self.diff_before: dict[str, FileState | None] = {}
        self.diff_written: set[str] = set()
        self.leaving: dict[int, set[str]] = {}
        # where each path is a rename's source: (operation index, its git diff or None)
        self.renamed_away: dict[str, list[tuple[int, int | None]]] = {}
        self.index = 0  # the running operation's index
        self.ops: list[Operation] = []  # the response's operations (make_plan sets them)
        # path -> (its content before, the hunks) of the response's located edits of it,
        # so that a text editor call restating one of them is recognised (text_edit)
        self.edited: dict[str, tuple[bytes, list]] = {}
        # what each file held before each operation that changed it (restated.py)
        self.earlier = EarlierContents()

    # -- state ---------------------------------------------------------------------
    def get(self, path: str) -> FileState | None:
        if path in self.overlay:
            return self.overlay[path]
        e = self.base.entry(path)
        st = FileState(*e) if e else None
        self.original.setdefault(path, st)
        return st

    def set(self, path: str, st: FileState | None) -> None:
        if self.diff_key is not None:
            if path not in self.diff_before:
                self.diff_before[path] = self.get(path)
            if st is not None:
                self.diff_written.add(path)
        if path not in self.original:
            self.get(path)  # remember the original (read once: a big blob costs its size)
        was_file = self.overlay.get(path) is not None
        self.overlay[path] = st
        if st is None:
            self.edited.pop(path, None)
            self.earlier.forget(path)
        if st is not None and path in self.parents_ok:
            self.parents_ok.clear()
        if was_file != (st is not None):
            # count the files the response puts under each folder, so that "is this a
            # folder now?" costs a lookup, not a scan of every path (100,000 new files)
            step = 1 if st is not None else -1
            folders = self.folders
            cut = path.find("/")
            while cut >= 0:
                folder = path[:cut]
                n = folders.get(folder, 0) + step
                if n:
                    folders[folder] = n
                else:
                    del folders[folder]
                cut = path.find("/", cut + 1)

    def kind(self, path: str) -> str | None:
        """What ``path`` is now: overlay first, then the base tree."""
        if path in self.overlay:
            st = self.overlay[path]
            if st is not None:
                return "symlink" if st.mode == MODE_LINK else "file"
        else:
            k = self.base_kinds.get(path, _MISSING)
            if k is _MISSING:
                k = self.base_kinds[path] = self.base.kind(path)
            if k:
                return k
        if self.folders.get(path):
            return "dir"
        return None

    # -- checks --------------------------------------------------------------------
    def fail(self, op_source: Source, path: str | None, reason: str, hint: str | None = None):
        self.problems.append(Problem(reason, file=path, directive=op_source.directive, hint=hint))

    def path(self, raw: str, source: Source, beside: str | None = None) -> str | None:
        try:
            path = self.normalize(raw)
        except ApplyError as e:
            for p in e.problems:
                p.directive = p.directive or source.directive
            self.problems.extend(e.problems)
            return None
        spelled, problem = self.names.spelling(path, self.overlay, beside)
        if problem is not None:
            problem.directive = source.directive
            self.problems.append(problem)
        return spelled

    def base_kind(self, path: str) -> str | None:
        k = self.base_kinds.get(path, _MISSING)
        if k is _MISSING:
            k = self.base_kinds[path] = self.base.kind(path)
        return k

    def check_parents(self, path: str, source: Source) -> bool:
        """No leading folder of ``path`` may be a file, a link or a submodule: what the
        response made of it so far, else the base tree, else the disk."""
        leaving = self.leaving.get(self.diff_key, ()) if self.diff_key is not None else ()

        def kind_of(prefix: str) -> str | None:
            k = self.kind(prefix)
            if k is None and prefix not in self.overlay:
                k = self.base.disk_kind(prefix)
            if k == "file" and prefix in leaving:
                return None  # the diff deletes or renames this file away: x/y may replace x
            return k

        cut = path.rfind("/")
        if cut < 0 or path[:cut] in self.parents_ok:
            return True
        try:
            check_leading_folders(path, kind_of)
        except ApplyError as e:
            for p in e.problems:
                p.directive = source.directive
            self.problems.extend(e.problems)
            return False
        cut = path.find("/")
        while cut >= 0:
            self.parents_ok.add(path[:cut])
            cut = path.find("/", cut + 1)
        return True

    def on_disk(self, path: str) -> str | None:
        """What is on disk at an untracked ``path``; None below a tracked file (the disk
        says 'file' there: the tracked file, which the response may replace by a folder)."""
        k = self.base.disk_kind(path)
        if k == "file":
            cut = path.find("/")
            while cut >= 0:
                if self.base.kind(path[:cut]) == "file":
                    return None
                cut = path.find("/", cut + 1)
        return k

    def emptied_folder(self, path: str, final: dict | None = None) -> bool:
        """Whether the tracked folder ``path`` holds no file any more: every tracked file
        under it deleted or moved away (by the response so far, or by the running git
        diff, in any order), and nothing new put there; a file may then take its place
        (a folder replaced by a file, as git applies it).  ``final``: judge the final
        plan instead."""
        if self.folders.get(path):
            return False
        gone = self.leaving.get(self.diff_key, ()) if final is None and self.diff_key is not None else ()
        state = self.overlay if final is None else final
        files = self.names.files_under(path)
        return files is not None and all(f in gone or (f in state and state[f] is None) for f in files)

    def _linked_folder(self, path: str) -> str | None:
        """The leading folder of ``path`` that is a link on disk (the tracked folder
        replaced by one), or None."""
        parts = path.split("/")
        for i in range(1, len(parts)):
            if self.base.disk_kind("/".join(parts[:i])) == "symlink":
                return "/".join(parts[:i])
        return None

    def open(self, raw: str, source: Source, *, beside: str | None = None,
             parents: bool = True) -> str | None:
        """The first step of every operation: the path it names normalised and spelled as
        git tracks it (``beside``: a rename's source, whose case its target follows), its
        leading folders checked (``parents``).  None when refused (problem recorded)."""
        path = self.path(raw, source, beside)
        if path is None or parents and not self.check_parents(path, source):
            return None
        return path

    def open_file(self, raw: str, source: Source, verb: str) -> tuple[str, FileState] | None:
        """``open`` for an edit in place ('patch', 'edit', ...: ``verb``): the path and
        the file's current mode and content, refused unless a tracked text file."""
        path = self.open(raw, source, parents=False)
        st = None if path is None else self.editable(path, source, verb)
        return None if path is None or st is None else (path, st)

    def missing(self, path: str) -> bool:
        """Nothing at ``path``: not tracked, made or removed by this response, nor on disk."""
        return (self.kind(path) is None and path not in self.overlay
                and not self.base.entry(path) and not self.on_disk(path))

    def current(self, path: str) -> tuple[str | None, FileState | None]:
        """What ``path`` is now (``kind``) and, when a file or a link, its mode and content."""
        k = self.kind(path)
        return k, (self.get(path) if k in ("file", "symlink") else None)

    def editable(self, path: str, source: Source, verb: str) -> FileState | None:
        """The current content of a file that may be patched, or None (problem recorded)."""
        k, st = self.current(path)
        if st is None:
            if k == "dir":
                self.fail(source, path, f"cannot {verb} {path}: it is a folder")
            elif k == "submodule":
                self.fail(source, path, f"cannot {verb} {path}: it is a submodule")
            elif path in self.overlay and self.base.entry(path):  # deleted or moved by the response
                self.fail(source, path, f"cannot {verb} {path}: {REMOVED_EARLIER}",
                          hint="edit the file under the name that change gives it")
            elif self.base.disk_kind(path) == "symlink" and self._linked_folder(path):
                self.fail(source, path, f"cannot {verb} {path}: {self._linked_folder(path)} is "
                          "a symbolic link on disk; ai-apply never reads or writes through a link")
            elif self.on_disk(path):
                self.fail(source, path, f"cannot {verb} {path}: it is not tracked by git",
                          hint="ai-apply edits committed files: `git add` it, then commit it "
                               "or give --include-dirty (which takes staged changes in too)")
            else:
                from .missing_file import missing_file_hint  # the error path only

                self.fail(source, path, f"cannot {verb} {path}: no such file",
                          hint=missing_file_hint(self.base, path, source))
            return None
        if st.mode == MODE_LINK:
            self.fail(source, path, f"cannot {verb} {path}: it is a symbolic link")
            return None
        if is_binary(st.data):
            self.fail(source, path, f"cannot {verb} {path}: it is a binary file")
            return None
        return st

    def record(self, path: str, action: str, added: int = 0, removed: int = 0,
               old_path: str | None = None) -> None:
        ch = self.changes.get(path)
        if ch is None:
            self.changes[path] = FileChange(path, action, old_path, added, removed)
        else:
            if ch.action == "update" and action in ("add", "rename"):
                ch.action = action
            ch.added += added
            ch.removed += removed
            if old_path:
                ch.old_path = old_path

    def report(self, path: str, source: Source, how: str, detail: str | None,
               old_lines: int | None = None, new_lines: int | None = None) -> None:
        """-v: a whole-file operation's report (line ranges: the whole old and new file;
        none for a rename or a mode change)."""
        ranges = (None,) * 4 if old_lines is None else (1, old_lines, 1, new_lines)
        edit_report.note([edit_report.EditReport(path, source.directive, 1, *ranges, [how],
                                                 detail)])

    def placeholders(self, op: Operation, path: str, old: FileState | FileText | None) -> bool:
        """Refuse (True) an edit that writes a placeholder over lines it replaces
        (placeholders.py); ``old`` is the file, for writes and hashline edits."""
        from ..verify.placeholder_edits import op_placeholder_problems

        if isinstance(old, FileState):
            old = FileText.from_bytes(old.data)
        problems = op_placeholder_problems(op, path, old.lines if old is not None else [])
        self.problems.extend(problems)
        return bool(problems)

    def fragment(self, op: NewFile, path: str, old: FileState) -> bool:
        """Refuse (True) a whole-file text that is a fragment of the tracked file it
        would replace (fragments.py): only lines N-M of it, written as the whole."""
        if not self.base.entry(path) or is_binary(old.data):
            return False
        from .fragments import fragment_of, fragment_refusal, written_elsewhere

        lines, new = FileText.from_bytes(old.data).lines, op.text.splitlines()
        frag = fragment_of(lines, new)
        if frag is not None:  # lines it leaves out may be moved to another file
            frag = fragment_of(lines, new, written_elsewhere(self.ops, path))
        if frag is None:
            return False
        reason, hint = fragment_refusal(path, frag)
        self.fail(op.source, path, reason, hint=hint)
        return True

    # -- operations ----------------------------------------------------------------
    def run(self, op: Operation) -> None:
        key = diff_key(op)
        if key != self.diff_key:
            self.diff_key, self.diff_before, self.diff_written = key, {}, set()
        if isinstance(op, NewFile) and op.create_only:
            create_only(self, op)  # its harness refuses a file that exists (whole_write.py)
        elif isinstance(op, NewFile):
            self.new_file(op)
        elif isinstance(op, DeleteFile):
            self.delete(op)
        elif isinstance(op, RenameFile):
            self.rename(op)
        elif isinstance(op, SetMode):
            self.set_mode(op)
        elif isinstance(op, (EditFile, HashlineEdit)):
            self.edit(op)
        elif isinstance(op, (ReplaceText, InsertText)):
            self.text_edit(op)
        elif isinstance(op, AppendFile):
            self.append(op)
        elif isinstance(op, PutFile):
            self.put(op)
        else:  # a parser produced something unknown: a bug, said plainly
            raise TypeError(f"unknown operation {op!r}")

    def new_file(self, op: NewFile) -> None:
        """A whole-file write: a new file, or the new content of a tracked one."""
        path = self.open(op.path, op.source)
        if path is None:
            return
        k, old = self.current(path)
        if self.earlier.made_again(op, path, old):
            return
        lazy = False
        refusal = self.creation_refusal(op, path, k, old)
        if refusal is not None:
            reason, hint = refusal
            return self.fail(op.source, path, reason, hint=hint)
        if old is not None and old.data and not is_binary(old.data):
            from .lazy_edits import lazily_merged

            try:  # a snippet with placeholders, or a fragment: merged into the file
                merged = lazily_merged(op, path, old.data, self.ops)
            except ApplyError as e:
                return self.problems.extend(e.problems)
            lazy, op = merged is not op, merged  # an edit of the file, not a whole write
        if old is not None and old.data and (self.placeholders(op, path, old)
                                             or self.fragment(op, path, old)):
            return
        data = encode(in_file_endings(op.text, old.data if old else None))
        mode = op.mode or (old.mode if old else MODE_FILE)
        if not lazy and self.rewritten_again(op, path, FileState(mode, data)):
            return
        if k is None and path not in self.overlay:
            self.original.setdefault(path, None)  # the base has nothing there (kind None)
        self.edited.pop(path, None)
        self.earlier.changed(path, old.data if old else b"", op.source)
        self.set(path, FileState(mode, data))
        self.record_whole_write(path, op.source, old, data, op.merged)

    def creation_refusal(self, op: NewFile, path: str, k: str | None,
                         old: FileState | None) -> tuple[str, str | None] | None:
        """(reason, hint) when a whole-file write cannot go to ``path`` (what is there now:
        ``k``, ``old``), else None."""
        standing = self.in_the_way("create", path, k, old)
        if standing is not None:
            return standing
        if old is not None and not op.replace and old.data:
            empty, hint = _EMPTY_OLD_SIDE.get(op.source.format, _EMPTY_OLD_SIDE[""])
            return (f"{path} already exists; {empty} only creates new files or fills empty "
                    "ones", hint)
        if old is not None and old.mode == MODE_LINK:
            return f"cannot replace {path}: it is a symbolic link", None
        if op.lazy and not op.says_new and old is None:  # read as a tracked file's snippet
            return (f"cannot merge the snippet of {path}: no such file to merge it into "
                    "here", "edit the file where it is, or send its whole content as new")
        if k is None and old is None and not op.says_new and path not in self.overlay:
            return namesake_refusal(self.base, path)
        return None

    def record_whole_write(self, path: str, source: Source, old: FileState | None,
                           data: bytes, merged: tuple | None = None) -> None:
        """A whole-file write's change (an added file, or an update of every line) and
        its -v report (``merged``: a lazy snippet's placeholders and what each kept)."""
        n = line_count(data)
        if old is None:
            self.record(path, "add", added=n)
        else:
            self.record(path, "update", added=n, removed=line_count(old.data))
        if edit_report.collecting() and merged is not None and old is not None:
            edit_report.note([edit_report.lazy_merge_report(path, source.directive,
                                                            line_count(old.data), n, merged)])
        elif edit_report.collecting():
            self.report(path, source, "whole file", "new file" if old is None else "rewritten",
                        line_count(old.data) if old is not None else 0, n)

    def rewritten_again(self, op: NewFile, path: str, new: FileState) -> bool:
        """A second whole-file write of ``path`` with nothing between them: the same content
        is a restatement, made once; other content is refused as overlapping (§3)."""
        earlier = self.written_whole.get(path)
        self.written_whole[path] = (new, op.source.directive)
        if earlier is None or self.overlay.get(path) != earlier[0] or earlier[0] == new:
            return earlier is not None and self.overlay.get(path) == new
        where = earlier[1] or "an earlier block"
        self.fail(op.source, path, f"two different whole contents for {path} ({where} and "
                  "this one): which one is meant cannot be told",
                  hint="send the file's content once, or one whole content and then patches")
        return True

    def append(self, op: AppendFile) -> None:
        """FILE_APPEND: the lines go after the file's last line (its line endings and BOM
        kept, a missing final newline supplied); a missing file is created with them."""
        path = self.open(op.path, op.source)
        if path is None:
            return
        if self.kind(path) is None and path not in self.overlay and not self.on_disk(path):
            return self.new_file(NewFile(path, op.text, op.source, replace=False))
        st = self.editable(path, op.source, "append to")
        if st is None or not op.text:
            return
        from ..locate.locate import apply_hunks
        from ..ops import ADD, Hunk

        hunk = Hunk([(ADD, t) for t in op.text.split("\n")[:-1]], kind="append", at_eof=True)
        new, added, _ = apply_hunks(FileText.from_bytes(st.data), [hunk], path=path,
                                    directive=op.source.directive, ensure_final_newline=True)
        self.earlier.changed(path, st.data, op.source)
        self.set(path, FileState(st.mode, new.to_bytes()))
        self.record(path, "update", added, 0)

    def delete(self, op: DeleteFile) -> None:
        path = self.open(op.path, op.source, parents=False)  # checked below, if at all
        if path is None:
            return
        # a tracked file this git diff deletes is there whatever the diff put at its
        # folder before (d/y -> d, then d/z deleted: git reads the files as it found them)
        as_found = path in self.leaving.get(self.diff_key, ()) and path not in self.overlay \
            and self.base_kind(path) == "file"
        if not as_found and not self.check_parents(path, op.source):
            return
        k, st = self.current(path)
        if k == "dir":
            return self.fail(op.source, path, f"cannot delete {path}: it is a folder",
                             hint="delete the files inside it one by one")
        if k == "submodule":
            return self.fail(op.source, path, f"cannot delete {path}: it is a submodule")
        if st is None:
            if path in self.overlay and self.base.entry(path):  # deleted or moved by the response
                return self.fail(op.source, path, f"cannot delete {path}: {REMOVED_EARLIER}")
            if self.base.disk_kind(path):
                return self.fail(op.source, path, f"cannot delete {path}: it is not tracked by git")
            return self.fail(op.source, path, f"cannot delete {path}: no such file")
        if op.old_lines is not None and not self.deletion_matches(op, path, st):
            return
        self.set(path, None)
        removed = 0 if st.mode == MODE_LINK or is_binary(st.data) else len(FileText.from_bytes(st.data))
        if path in self.changes and self.changes[path].action == "add":
            del self.changes[path]
        else:
            self.record(path, "delete", removed=removed)
        if edit_report.collecting():
            self.report(path, op.source, "whole file", "deleted", removed, 0)

    def rename(self, op: RenameFile) -> None:
        # both paths resolved before either is checked: every problem of both is told
        src = self.open(op.old_path, op.source, parents=False)
        dst = self.open(op.new_path, op.source, beside=src, parents=False)
        if src is None or dst is None:
            return
        if not self.check_parents(src, op.source):
            return
        if src == dst:
            return self.fail(op.source, src, "rename to the same path")
        st = self.rename_source(src, op.source)
        if st is None:
            return
        # a file this diff wrote stays (git: a rename reads the file as the diff found it,
        # and deletes it only if nothing else of the diff writes it)
        keep_src = src in self.diff_written
        if not keep_src:
            self.set(src, None)  # first, so that x -> x/y finds no file at x
        if not (self.check_parents(dst, op.source) and self.rename_target_ok(src, dst, op.source)):
            return
        self.set(dst, FileState(st.mode, st.data))
        self.renames.append((src, dst))
        prior = None if keep_src else self.changes.pop(src, None)
        if prior and prior.action == "add":
            self.record(dst, "add", prior.added, prior.removed)
        else:
            old_path = prior.old_path if prior and prior.old_path else src
            self.record(dst, "rename", prior.added if prior else 0, prior.removed if prior else 0,
                        old_path=old_path)
        if edit_report.collecting():
            self.report(dst, op.source, "rename", f"from {src}")

    def set_mode(self, op: SetMode) -> None:
        opened = self.open_file(op.path, op.source, "change the mode of")
        if opened is None:
            return
        path, st = opened
        if op.mode not in (MODE_FILE, MODE_EXEC):
            return self.fail(op.source, path, f"unsupported mode {op.mode:o}")
        self.set(path, FileState(op.mode, st.data))
        self.record(path, "mode")
        if edit_report.collecting():
            self.report(path, op.source, "mode", f"{st.mode:o} -> {op.mode:o}")

    def edit(self, op: EditFile | HashlineEdit) -> None:
        if isinstance(op, EditFile) and op.text_if_missing is not None:
            path = self.open(op.path, op.source, parents=False)
            if path is None:
                return
            if self.missing(path):  # aider's udiff: all '+' lines for a new path create it
                return self.new_file(NewFile(path, op.text_if_missing, op.source, replace=False,
                                             says_new=False))
        opened = self.open_file(op.path, op.source, "patch")
        if opened is None:
            return
        path, st = opened
        ft = FileText.from_bytes(st.data)
        op = merged_edits(op, path)  # a REPLACE side or '+' lines with placeholders
        if self.placeholders(op, path, ft):
            return
        if (op := self.earlier.without_restated(op, path, st.data)) is None:
            return  # every edit restates what earlier operations made
        try:
            if isinstance(op, EditFile):
                new, added, removed = apply_gathered(ft, op, path)
            else:
                from ..locate.hashline import apply_hashline

                new, added, removed = apply_hashline(ft, op, path)
        except ApplyError as e:
            for p in e.problems:
                p.file = p.file or path
                p.directive = p.directive or op.source.directive
            self.problems.extend(self.earlier.as_left(path, e.problems))
            return
        if isinstance(op, EditFile):
            self.edited[path] = (st.data, op.hunks)
        elif edit_report.collecting():
            edit_report.note(edit_report.hashline_reports(path, op.source.directive, op.ops))
        self.earlier.changed(path, st.data, op.source)
        self.set(path, FileState(st.mode, new.to_bytes()))
        self.record(path, "update", added, removed)


    # -- text editor tool calls (engineer tools; the logic is in toolcalls.py) -------
    def text_edit(self, op: ReplaceText | InsertText) -> None:
        """str_replace / insert of Anthropic's text editor tool, on the file as the
        operations before this one left it."""
        from ..locate.text_edits import apply_text_edit

        opened = self.open_file(op.path, op.source, "edit")
        if opened is None:
            return
        path, st = opened
        op = merged_edits(op, path)  # a new_string with placeholders
        if self.placeholders(op, path, st):  # the file: an insert's line above it
            return
        if path in self.edited:
            with edit_report.muted():  # a trial: only its result is compared
                again = restates(op, *self.edited[path], path)
            if again:  # made already by an edit of the response (a diff, then a tool call)
                edit_report.note([edit_report.restated_report(path, op.source.directive,
                                                              op.number)])
                return
        if self.earlier.restated_call(op, path, st.data):
            return
        old = FileText.from_bytes(st.data)
        try:
            new, added, removed = apply_text_edit(old, op, path)
        except ApplyError as e:
            self.problems.extend(self.earlier.as_left(path, e.problems))
            return
        if edit_report.collecting():
            edit_report.note([edit_report.text_edit_report(path, op, old, new)])
        self.earlier.changed(path, st.data, op.source)
        self.set(path, FileState(st.mode, new.to_bytes()))
        self.record(path, "update", added, removed)


@edit_report.kept_on_success  # -v: a refused plan (-3 tries several bases) reports nothing
def make_plan(ops: list[Operation], base: Snapshot, normalize, ignore_case: bool = False) -> Plan:
    """Apply ``ops`` in order to ``base`` in memory; refuse with every problem found.
    ``ignore_case``: core.ignorecase (a new path in another case names the tracked file).
    A file's edits from several directives are gathered first (gather.py)."""
    planner = _Planner(base, normalize, ignore_case)
    ops = gather_edits(ops, normalize, planner.names.file_named)
    planner.leaving, planner.renamed_away = leaving_paths(ops, normalize)
    planner.ops = ops
    for planner.index, op in enumerate(ops):
        planner.run(op)
    if planner.problems:
        raise ApplyError(planner.problems)
    final = dict(planner.overlay)
    base_states = {p: planner.original.get(p) for p in final}
    # a final file must not stand where a folder remains, nor under a file
    problems = []
    for p, st in final.items():
        if st is None:
            continue
        if planner.base.kind(p) == "dir" and not planner.emptied_folder(p, final):
            problems.append(Problem(f"cannot create {p}: it is a folder", file=p))
        elif st.mode == MODE_LINK and git_dotfile(p.rsplit("/", 1)[-1]):
            # only a rename can get here; git refuses a symlinked .gitmodules (fsck
            # gitmodulesSymlink) and reads the others without following links
            problems.append(Problem(
                f"{p} would be a symbolic link; git refuses {git_dotfile(p.rsplit('/', 1)[-1])} "
                "as a link", file=p))
    problems += files_under_files(final)
    if problems:
        raise ApplyError(problems)
    renames, changes = net_moves(base_states, final, planner.renames,
                                 list(planner.changes.values()), FileChange)
    return Plan(final, base_states, renames, changes)
