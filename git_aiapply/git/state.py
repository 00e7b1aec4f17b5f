"""What a response is planned against and checked with: a commit's tree (plus the
worktree for untracked paths), the worktree itself (include-dirty), files read from disk
without following a symlinked folder, and whether touched paths are clean."""
from __future__ import annotations

import os
import stat
import sys

import pygit2
from pygit2.enums import FileMode

from ..errors import ApplyError, Problem
from ..plan.plan import MODE_EXEC, MODE_FILE, MODE_LINK, FileChange, FileState, Plan
from ..text import is_binary

_KINDS = {
    int(FileMode.TREE): "dir",
    int(FileMode.LINK): "symlink",
    int(FileMode.COMMIT): "submodule",
    int(FileMode.BLOB): "file",
    int(FileMode.BLOB_EXECUTABLE): "file",
}


def symlinked_parent(workdir: str, path: str) -> str | None:
    """The first leading folder of ``path`` that is a symbolic link (or not a folder) on
    disk, or None: reading or writing through it would leave the worktree."""
    return LeadingFolders(workdir).symlinked_parent(path)


class LeadingFolders:
    """``symlinked_parent`` for the paths of one pass that writes nothing in between (a
    cleanliness check, the check before the journal): each leading folder is looked at
    once for all the paths below it.  Made anew for each pass, so that what the run
    writes (or anyone changes) later is seen by the next pass."""

    def __init__(self, workdir: str):
        self.workdir = workdir
        self._seen: dict[str, str] = {}  # folder -> 'dir' | 'missing' | 'bad'

    def symlinked_parent(self, path: str) -> str | None:
        seen = self._seen
        cut = path.find("/")
        while cut >= 0:
            folder = path[:cut]
            state = seen.get(folder)
            if state is None:
                try:
                    st = os.lstat(os.path.join(self.workdir, folder))
                except FileNotFoundError:
                    state = "missing"
                except OSError:
                    state = "bad"
                else:
                    state = "dir" if stat.S_ISDIR(st.st_mode) else "bad"
                seen[folder] = state
            if state == "missing":
                return None  # missing folders are made by the writer
            if state == "bad":
                return folder
            cut = path.find("/", cut + 1)
        return None

    def refuse_symlinked_parent(self, path: str) -> None:
        """Refuse ``path`` when a leading folder of it is a link (or a file) on disk."""
        bad = self.symlinked_parent(path)
        if bad is not None:
            kind = "a symbolic link" if os.path.islink(os.path.join(self.workdir, bad)) else "not a folder"
            raise ApplyError(Problem(f"{bad} is {kind} on disk, so {path} is not inside the "
                                     "worktree; ai-apply never reads or writes through a link",
                                     file=path, hint="restore the folder with `git checkout -- "
                                     f"{bad}` or leave this file out of the response"))

    def read_disk(self, path: str) -> FileState | None:
        """``read_disk`` with the leading folders looked at through this pass."""
        if self.symlinked_parent(path) is not None:
            return None
        return read_disk_here(self.workdir, path)


def refuse_symlinked_parent(workdir: str, path: str) -> None:
    """Refuse ``path`` when a leading folder of it is a link (or a file) on disk."""
    LeadingFolders(workdir).refuse_symlinked_parent(path)


def read_disk(workdir: str, path: str) -> FileState | None:
    """A worktree file's mode and bytes as they are on disk (no conversion), or None;
    never through a symlinked folder (None then)."""
    return LeadingFolders(workdir).read_disk(path)


def read_disk_here(workdir: str, path: str) -> FileState | None:
    """``read_disk`` for a path whose leading folders were just checked (not links)."""
    full = os.path.join(workdir, path)
    try:
        st = os.lstat(full)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return FileState(MODE_LINK, os.fsencode(os.readlink(full)))
    if not stat.S_ISREG(st.st_mode):
        return None
    with open(full, "rb") as f:
        data = f.read()
    return FileState(MODE_EXEC if st.st_mode & 0o100 else MODE_FILE, data)


def read_disk_as_git(repo, path: str, index=None) -> FileState | None:
    """A worktree file as ``git add`` would store it (clean filters, eol), or None."""
    st = read_disk(repo.workdir, path)
    if st is None or st.mode == MODE_LINK:
        return st
    from .filters import filters_of

    f = filters_of(repo)
    if not f.converts(path):
        return st
    return FileState(st.mode, f.to_git(path, st.data, _index_has_crlf(repo, index, path)))


def _index_has_crlf(repo, index, path: str):
    def check() -> bool:
        try:
            ent = index[path] if index is not None else None
        except KeyError:
            ent = None
        return ent is not None and b"\r" in repo.repo[ent.id].data
    return check


class TreeSnapshot:
    """The snapshot a response is planned against: a commit's tree, plus the worktree for
    untracked paths (``workdir`` None in branch mode).  A tracked folder that is a link
    on disk counts as a link, so nothing is planned through it."""

    def __init__(self, repo: pygit2.Repository, tree: pygit2.Tree | None, workdir: str | None):
        self.repo = repo
        self.tree = tree
        self.workdir = workdir
        self._entries: dict[str, object] = {}
        # what lstat said of each path looked at (a leading folder is looked at once for
        # all the files under it): a snapshot is the disk as the run found it, so it is
        # made per run and never consulted after the run has written anything
        self._disk: dict[str, str | None] = {}

    def _lookup(self, path: str):
        entries = self._entries
        ent = entries.get(path, _UNSEEN)
        if ent is not _UNSEEN:
            return ent
        if self.tree is None:
            entries[path] = None
            return None
        # nothing is below a path that is absent or not a folder: answered from the
        # nearest folder looked up before, without libgit2 (a miss costs an exception)
        above_is_tree, pending = True, _unseen_prefixes(path, entries)
        if len(pending) <= path.count("/"):  # stopped at a folder looked up before
            above = entries[pending[-1].rpartition("/")[0]]
            above_is_tree = above is not None and above.filemode == FileMode.TREE
        for p in reversed(pending):
            ent = None
            if above_is_tree:
                try:
                    ent = self.tree[sys.intern(p)]  # see tree_entry
                except (KeyError, ValueError):
                    ent = None
            entries[p] = ent
            above_is_tree = ent is not None and ent.filemode == FileMode.TREE
        return ent

    def kind(self, path: str) -> str | None:
        ent = self._entries.get(path, _UNSEEN)
        if ent is _UNSEEN:
            ent = self._lookup(path)
        if ent is None:
            return None
        k = _KINDS.get(ent.filemode, "file")
        if k == "dir" and self.workdir is not None and self.disk_kind(path) == "symlink":
            return "symlink"
        return k

    def entry(self, path: str) -> tuple[int, bytes] | None:
        ent = self._lookup(path)
        if ent is None or ent.filemode not in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE, FileMode.LINK):
            return None
        return int(ent.filemode), self.repo[ent.id].data

    def entry_id(self, path: str):
        ent = self._lookup(path)
        return None if ent is None else (int(ent.filemode), ent.id)

    def _folder_tree(self, folder: str):
        """The tree of the tracked folder ``folder`` ('' the root), or None when the
        tree has no folder there (nothing, or a file)."""
        if self.tree is None or not folder:
            return self.tree
        ent = self._lookup(folder)
        if ent is None or ent.filemode != FileMode.TREE:
            return None
        return self.repo[ent.id]

    def names_in(self, folder: str) -> list[str] | None:
        """The names directly in the tracked folder ``folder`` ('' the root), or None
        when the tree has no folder there."""
        sub = self._folder_tree(folder)
        return None if sub is None else [e.name for e in sub]

    def paths_under(self, folder: str, budget: int | None = None
                    ) -> list[tuple[str, str]] | None:
        """Every tracked path under the folder ``folder`` ('' the root) at any depth, with
        its kind ('file', 'symlink', 'submodule'); None when the tree has no folder there.
        At most ``budget`` paths, when given (an error message's look around)."""
        sub = self._folder_tree(folder)
        if sub is None:
            return None
        out: list[tuple[str, str]] = []
        stack = [(sub, folder + "/" if folder else "")]
        while stack and (budget is None or len(out) < budget):
            tree, prefix = stack.pop()
            for e in tree:
                if e.filemode == FileMode.TREE:
                    stack.append((self.repo[e.id], prefix + e.name + "/"))
                else:
                    out.append((prefix + e.name, _KINDS.get(e.filemode, "file")))
        return out

    def files_under(self, folder: str) -> int | None:
        """How many files (links, submodules) the tree holds under ``folder``, at any
        depth; None when the tree has no folder there."""
        paths = self.paths_under(folder) if folder else None
        return None if paths is None else len(paths)

    def disk_kind(self, path: str) -> str | None:
        """What is on disk at ``path`` ('file', 'dir', 'symlink'; below a link 'symlink',
        below a file 'file'), or None: missing or unreadable.  Each leading folder is
        looked at once for all the paths under it."""
        if self.workdir is None:
            return None
        seen = self._disk
        kind = seen.get(path, _UNSEEN)
        if kind is not _UNSEEN:
            return kind
        pending = _unseen_prefixes(path, seen)
        above = "dir"  # the worktree root
        if len(pending) <= path.count("/"):  # stopped at a folder looked at before
            above = seen[pending[-1].rpartition("/")[0]]
        for p in reversed(pending):
            if above == "dir":
                try:
                    st = os.lstat(os.path.join(self.workdir, p))
                except OSError:
                    kind = None
                else:
                    kind = ("symlink" if stat.S_ISLNK(st.st_mode)
                            else "dir" if stat.S_ISDIR(st.st_mode) else "file")
            else:
                kind = None if above is None else above  # 'symlink' or 'file' on the way
            seen[p] = kind
            above = kind
        return kind


_UNSEEN = object()


def _unseen_prefixes(path: str, seen: dict) -> list[str]:
    """``path`` and its leading folders, deepest first, down to (not including) the
    nearest one ``seen`` holds."""
    pending = [path]
    cut = len(path)
    while (cut := path.rfind("/", 0, cut)) >= 0:
        folder = path[:cut]
        if folder in seen:
            break
        pending.append(folder)
    return pending


class WorktreeSnapshot(TreeSnapshot):
    """include-dirty: tracked files are taken as they are in the worktree (as git add
    would store them)."""

    def __init__(self, wrapper, tree, workdir: str, index: pygit2.Index):
        super().__init__(wrapper.repo, tree, workdir)
        self.wrapper = wrapper
        self.index = index

    def _tracked(self, path: str) -> bool:
        return path in self.index or super().kind(path) in ("file", "symlink")

    def kind(self, path: str) -> str | None:
        k = super().kind(path)
        ent = self._lookup(path)
        if k in ("dir", "submodule") or (ent is not None and _KINDS.get(ent.filemode) == "dir"):
            return k  # a folder (or a folder replaced by a link on disk)
        if self._tracked(path):
            st = read_disk(self.workdir, path)
            if st is None:
                return None
            return "symlink" if st.mode == MODE_LINK else "file"
        return k

    def entry(self, path: str) -> tuple[int, bytes] | None:
        if not self._tracked(path):
            return None
        st = read_disk_as_git(self.wrapper, path, self.index)
        return None if st is None else (st.mode, st.data)


# --------------------------------------------------------------------------- cleanliness


def _filemode_tracked(repo) -> bool:
    return repo.config_bool("core.fileMode", True)


def blob_id(data: bytes) -> str:
    """The id git gives a blob holding ``data``."""
    return str(pygit2.hash(data))


def worktree_matches(repo, path: str, mode: int, oid, index=None) -> bool:
    """Whether the worktree file at ``path`` is the blob ``oid`` (an Oid or its hex) with
    ``mode``, as ``git diff-files`` decides (through the clean filters and eol
    conversion)."""
    if not isinstance(oid, pygit2.Oid):
        oid = pygit2.Oid(hex=str(oid))
    st = read_disk(repo.workdir, path)
    if st is None:
        return False
    if st.mode != mode:
        if not (mode in (MODE_FILE, MODE_EXEC) and st.mode in (MODE_FILE, MODE_EXEC)
                and not _filemode_tracked(repo)):
            return False
    if pygit2.hash(st.data) == oid:
        return True
    if st.mode == MODE_LINK:
        return False
    from .filters import filters_of

    f = filters_of(repo)
    if not f.converts(path):
        return False
    return pygit2.hash(f.to_git(path, st.data, _index_has_crlf(repo, index, path))) == oid


def same_mode(repo, have: int, want: int) -> bool:
    """Whether a file of mode ``have`` on disk counts as mode ``want``: the same, or both
    regular files where core.fileMode is false (git then ignores the executable bit)."""
    return have == want or (want in (MODE_FILE, MODE_EXEC) and have in (MODE_FILE, MODE_EXEC)
                            and not _filemode_tracked(repo))


def is_on_disk(repo, st: FileState | None, want) -> bool:
    """Whether a worktree state (FileState, or None: nothing there) is exactly the bytes
    ``want`` names ([mode, hex id of those bytes], or None: nothing)."""
    if want is None or st is None:
        return want is None and st is None
    return same_mode(repo, st.mode, int(want[0])) and blob_id(st.data) == str(want[1])


def holds_blob(repo, path: str, st: FileState | None, want) -> bool:
    """Whether a worktree state holds the committed ``want`` ([mode, hex blob id] or None):
    its bytes are the blob, or become it through the clean filters (as git status sees)."""
    if is_on_disk(repo, st, want):
        return True
    if want is None or st is None or not same_mode(repo, st.mode, int(want[0])) \
            or st.mode == MODE_LINK:
        return False
    return worktree_matches(repo, path, st.mode, want[1])


def holds_run_state(repo, path: str, st: FileState | None, *, on_disk=(), blobs=()) -> bool:
    """Whether the worktree state ``st`` at ``path`` is one a run left there: exactly the
    bytes of one of ``on_disk`` ([mode, id] of the bytes it wrote, or None: it removed the
    file), or one of the blobs ``blobs`` ([mode, blob id]: what it committed or its hook
    staged) as git status sees them.  The one test of "this run wrote it" that a rollback
    (transaction.py) and `recover` make: anything else is someone else's, never overwritten."""
    return any(is_on_disk(repo, st, w) for w in on_disk) or \
        any(holds_blob(repo, path, st, w) for w in blobs if w is not None)


def dirty_paths(repo, index: pygit2.Index, base: TreeSnapshot, paths: list[str]) -> list[tuple[str, str]]:
    """(path, why) for every touched path whose worktree, index and HEAD disagree."""
    out = []
    conflicts = index.conflicts
    folders = LeadingFolders(repo.workdir) if repo.workdir else None
    for path in paths:
        head = base.entry_id(path)
        if head is not None and head[0] not in (MODE_FILE, MODE_EXEC, MODE_LINK):
            continue  # folders and submodules are refused by the planner
        try:
            ie = index[path]
            idx = (int(ie.mode), ie.id)
        except KeyError:
            idx = None
        if conflicts is not None:
            try:
                conflicts[path]
                out.append((path, "has unresolved merge conflicts"))
                continue
            except KeyError:
                pass
        if head != idx:
            out.append((path, "has staged changes" if idx else
                        ("is staged for deletion" if head else "is staged")))
            continue
        linked = folders.symlinked_parent(path) if folders is not None else None
        if linked is not None and idx is None and base.kind(linked) == "file":
            linked = None  # a tracked file the response replaces by a folder (x -> x/y)
        if linked is not None:
            out.append((path, f"is behind {linked}, which is a "
                              "symbolic link (or a file) on disk, not the tracked folder"))
            continue
        if idx is None:
            continue  # new path: the planner refused any untracked file there
        if not worktree_matches(repo, path, idx[0], idx[1], index):
            out.append((path, "has unstaged changes" if os.path.lexists(os.path.join(repo.workdir, path))
                        else "was deleted in the worktree"))
    return out


def unmerged_paths(index: pygit2.Index) -> list[str]:
    """Paths with conflict stages in the index."""
    conflicts = index.conflicts
    if conflicts is None:
        return []
    out = set()
    for entries in conflicts:
        for e in entries:
            if e is not None:
                out.add(e.path)
    return sorted(out)


# --------------------------------------------------------------------------- plans from trees


def plan_between(r: pygit2.Repository, old_tree, new_tree) -> Plan:
    """A Plan taking the touched paths from ``old_tree`` to ``new_tree`` (blobs only;
    renames found as git's similarity finds them)."""
    from pygit2.enums import DeltaStatus

    if old_tree is None:
        diff = new_tree.diff_to_tree(swap=True)
    else:
        diff = r.diff(old_tree, new_tree)
    diff.find_similar()
    final, base, renames, changes = {}, {}, [], []
    blob_modes = (MODE_FILE, MODE_EXEC, MODE_LINK)
    zero = pygit2.Oid(hex="0" * 40)
    for patch in diff:
        d = patch.delta
        _ctx, added, removed = patch.line_stats
        old_p, new_p = d.old_file.path, d.new_file.path
        for f in (d.old_file, d.new_file):
            if f.id != zero and int(f.mode) not in blob_modes:
                raise ApplyError(Problem(f"{f.path} is a submodule or an unusual entry "
                                         f"(mode {int(f.mode):o}); pick does not carry it",
                                         file=f.path))
        if d.status in (DeltaStatus.DELETED, DeltaStatus.RENAMED, DeltaStatus.MODIFIED,
                        DeltaStatus.TYPECHANGE):
            base[old_p] = FileState(int(d.old_file.mode), r[d.old_file.id].data)
        if d.status == DeltaStatus.DELETED:
            final[old_p] = None
            changes.append(FileChange(old_p, "delete", removed=removed))
            continue
        data = FileState(int(d.new_file.mode), r[d.new_file.id].data)
        final[new_p] = data
        if d.status == DeltaStatus.RENAMED:
            final[old_p] = None
            base.setdefault(new_p, None)
            renames.append((old_p, new_p))
            changes.append(FileChange(new_p, "rename", old_p, added, removed))
        elif d.status == DeltaStatus.ADDED:
            base[new_p] = None
            changes.append(FileChange(new_p, "add", added=added))
        else:
            changes.append(FileChange(new_p, "update", added=added, removed=removed))
    # a rename onto a path that also had content: the base must say what was there
    for p in final:
        if p not in base:
            base[p] = None
    return Plan(final, base, renames, changes)


def patch_text(old: bytes | None, new: bytes | None, old_path: str, new_path: str) -> str:
    """The unified diff of two contents (None: absent), as libgit2 writes it."""
    patch = pygit2.Patch.create_from(old, new, old_as_path=old_path, new_as_path=new_path)
    return patch.text or ""


# libgit2's diff holds about 140 bytes a line of both sides: a 600,000-line file took
# 170 MB.  Above this many lines the common leading and trailing lines are cut first.
DIFF_LINES_MAX = 100_000


def line_counts(old: bytes, new: bytes, fallback: tuple[int, int] | None = None
                ) -> tuple[int, int]:
    """(added, deleted) lines of the diff git would show between two contents.  A large
    text file is diffed between its first and last differing lines only (git's diff cuts
    the common ends itself, so the counts are the same); when even that part is over
    DIFF_LINES_MAX lines, ``fallback`` is returned if given (the counts of the edits that
    made ``new``: bounded memory, git's counts but for edits git would align otherwise)."""
    if max(old.count(b"\n"), new.count(b"\n")) > DIFF_LINES_MAX \
            and not is_binary(old) and not is_binary(new):
        head, tail = shared_ends(old, new)
        if fallback is not None and max(old.count(b"\n", head, len(old) - tail),
                                        new.count(b"\n", head, len(new) - tail)) > DIFF_LINES_MAX:
            return fallback
        old, new = old[head:len(old) - tail], new[head:len(new) - tail]
    _ctx, added, deleted = pygit2.Patch.create_from(old, new, context_lines=0).line_stats
    return added, deleted


def shared_ends(old: bytes, new: bytes) -> tuple[int, int]:
    """(head, tail): the bytes of the whole lines ``old`` and ``new`` share at the start
    and at the end."""
    head = _common_head(old, new)
    head = old.rfind(b"\n", 0, head) + 1  # back to the start of a line (0: none)
    tail = _common_tail(old, new, min(len(old), len(new)) - head)
    if tail:
        cut = old.find(b"\n", len(old) - tail)  # the shared lines start after it
        tail = len(old) - cut - 1 if cut != -1 else 0
    return head, tail


def _common_head(a: bytes, b: bytes, block: int = 1 << 16) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i:i + block] == b[i:i + block]:  # block by block: memcmp speed
        i += block
    end = min(i + block, n)
    while i < end and a[i] == b[i]:
        i += 1
    return i


def _common_tail(a: bytes, b: bytes, limit: int, block: int = 1 << 16) -> int:
    """The length of the bytes ``a`` and ``b`` end with alike, at most ``limit``."""
    la, lb = len(a), len(b)
    i = 0
    while i + block <= limit and a[la - i - block:la - i] == b[lb - i - block:lb - i]:
        i += block
    while i < limit and a[la - i - 1] == b[lb - i - 1]:
        i += 1
    return i


def tree_entry(tree, path: str):
    """(mode, id) of ``path`` in ``tree`` (None: absent or no tree)."""
    if tree is None:
        return None
    try:
        # interned: pygit2 1.21's Tree lookup keeps a reference to the path it is given,
        # so a fresh string per lookup leaked in a long-lived server (git/repo.py)
        e = tree[sys.intern(path)]
    except (KeyError, ValueError):
        return None
    return int(e.filemode), e.id
