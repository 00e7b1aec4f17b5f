"""Writing a plan: objects, worktree files, the index and the ref, all or nothing.

The order of writes is chosen so that any failure before the ref moves can be rolled
back completely, and a crash leaves a journal that ``recover`` can undo:

1. take ``index.lock`` (O_EXCL) and keep it until the end;
2. read the index, refuse where ``git commit`` refuses (unmerged entries, a merge or
   rebase in progress), check that HEAD has not moved since planning and that every
   touched path is clean (or, with include-dirty, unchanged since planning);
3. write blobs and the commit tree (HEAD's tree updated only along changed paths);
4. write the journal (the worktree's bytes before and after), then the worktree files
   (each through a temporary file and a rename, converted as ``git checkout`` converts);
5. write the new index into the lock file, run pre-commit / prepare-commit-msg /
   commit-msg with ``GIT_INDEX_FILE`` set;
6. write the commit, move the ref by compare-and-swap with a reflog entry;
7. rename the lock over the index, drop the journal, run post-commit.

``Transaction`` holds steps 1, 2, 4, 6 and 7 and the rollback; ``commit_to_worktree``
(apply, pick), ``undo`` and staging.py (--no-commit, --cached) drive it.  ``commit_to_branch`` is branch mode: objects and a
ref only.
"""
from __future__ import annotations

import os
import stat

import pygit2

from ..errors import ApplyError, ErrorKind, FatalError, Problem
from ..plan.plan import MODE_EXEC, FileState, Plan
from ..record import field, record
from .faults import fault, remove_file
from .index import set_entries
from .io_errors import io_error, probe_dirs, write_cause
from .journal import Journal, RunKind
from .worktree_files import WorktreeWriter, appeared, git_perm, perm_of
from .refs import ensure_reflog_entry, remove_ref, unmove_ref, update_ref
from .ident import identity
from .repo import Repo, interrupts_deferred
from . import commits_made
from .checks import refuse_dirty, refuse_in_progress, refuse_unmerged, require_worktree
from .state import LeadingFolders, TreeSnapshot, tree_entry


# --------------------------------------------------------------------------- worktree


def _replaced_by_folder(workdir: str, final: dict, folder: str | None) -> bool:
    """Whether ``folder``, a leading folder that is not a folder on disk, is a regular
    file this change deletes (x -> x/y): deleted before anything is written, it is then
    made a folder (each write checks its folders again)."""
    if folder is None or folder not in final or final[folder] is not None:
        return False
    try:
        return stat.S_ISREG(os.lstat(os.path.join(workdir, folder)).st_mode)
    except OSError:
        return False


# --------------------------------------------------------------------------- objects


def write_blobs(repo: pygit2.Repository, plan: Plan) -> dict[str, tuple[int, pygit2.Oid] | None]:
    out: dict[str, tuple[int, pygit2.Oid] | None] = {}
    for path, st in plan.final.items():
        if st is None:
            out[path] = None
        else:
            out[path] = (st.mode, repo.create_blob(st.data))
            fault("blob-write")
    return out


def stored_blob(r: pygit2.Repository, data: bytes) -> pygit2.Oid:
    """The id of a blob holding ``data``, written when the object database lacks it."""
    oid = pygit2.hash(data)
    if oid not in r.odb:
        oid = r.create_blob(data)
    return oid


def disk_originals(r: pygit2.Repository, workdir: str, paths, folders=None) -> dict:
    """path -> [mode, blob id] of the bytes on disk (None: nothing there), each stored as
    a blob so that recovery can put exactly those bytes back (the journal's ``paths``).
    ``folders``: the LeadingFolders of the pass this is part of."""
    folders = folders or LeadingFolders(workdir)
    out = {}
    for p in paths:
        st = folders.read_disk(p)
        out[p] = None if st is None else [st.mode, str(stored_blob(r, st.data))]
    return out


def build_tree(repo: pygit2.Repository, base: pygit2.Tree | None,
               changes: dict[str, tuple[int, pygit2.Oid] | None]) -> pygit2.Oid | None:
    """``base`` with ``changes`` (path -> (mode, id) or None to remove) applied, touching
    only the subtrees along changed paths.  Returns None for an empty subtree."""
    from pygit2.enums import FileMode

    direct: dict[str, tuple[int, pygit2.Oid] | None] = {}
    nested: dict[str, dict] = {}
    for path, value in changes.items():
        head, sep, rest = path.partition("/")
        if sep:
            nested.setdefault(head, {})[rest] = value
        else:
            direct[head] = value
    tb = repo.TreeBuilder(base) if base is not None else repo.TreeBuilder()
    names = {e.name for e in base} if base is not None else set()
    for name, value in direct.items():
        if value is None:
            if name in names and name not in nested:
                tb.remove(name)
                names.discard(name)
        else:
            tb.insert(name, value[1], value[0])
            names.add(name)
    for name, sub in nested.items():
        existing = tb.get(name) if name in names else None
        sub_base = None
        if existing is not None and existing.filemode == FileMode.TREE and direct.get(name, 0) is not None:
            sub_base = repo[existing.id]
        new_id = build_tree(repo, sub_base, sub)
        if new_id is None:
            if name in names and direct.get(name) is None:  # not a file in the folder's place
                tb.remove(name)
                names.discard(name)
        else:
            tb.insert(name, new_id, FileMode.TREE)
            names.add(name)
    if not names:
        return None
    return tb.write()


def empty_tree(repo: pygit2.Repository) -> pygit2.Oid:
    return repo.TreeBuilder().write()


def valid_utf8(text: str) -> str:
    """``text`` with bytes that are not UTF-8 (kept as surrogates from a response, a
    message file or a hook) replaced by U+FFFD: a commit message is UTF-8."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


@record
class CommitResult:
    """The commit written, its tree, branch and final message."""

    commit: pygit2.Oid
    tree: pygit2.Oid
    branch: str | None
    message: str
    hook_output: str = ""
    extra: dict = field(default_factory=dict)


# --------------------------------------------------------------------------- the transaction


class Transaction:
    """index.lock → checks → journal → files → index → (hooks, commit: the caller) → ref
    compare-and-swap → install; any exception inside ``with`` rolls everything back.

    ``planned_head`` is (branch, commit id) as the caller planned against."""

    def __init__(self, repo: Repo, planned_head: tuple, *, kind: RunKind = RunKind.APPLY):
        require_worktree(repo)
        self.repo = repo
        self.r = repo.repo
        self.planned_head = planned_head
        self.kind = kind
        self.lock = None
        self.index = None
        self.writer = WorktreeWriter(repo)
        self.journal = Journal(repo.gitdir)
        self.temp_files: list[str] = []  # removed on success and on failure
        self._moved: list[tuple] = []  # (refname, new, old, committer) to undo on failure
        self.installed = False  # the new index is in place: the transaction is complete

    # -- 1, 2 ------------------------------------------------------------------------
    def __enter__(self) -> "Transaction":
        self.lock = self.repo.index_lock()
        try:
            refuse_in_progress(self.repo)  # again: planning saw the repository unlocked
            if self.repo.head() != tuple(self.planned_head):
                raise ApplyError(Problem("HEAD moved while the response was being applied",
                                         hint="run the command again"))
            self.index = self.lock.read()
            refuse_unmerged(self.index)
        except BaseException:
            self.lock.release()
            raise
        return self

    def check_clean(self, base: TreeSnapshot, paths, *, refusal: str, hint: str) -> None:
        refuse_dirty(self.repo, self.index, base, paths, refusal=refusal, hint=hint)

    # -- 4 ---------------------------------------------------------------------------
    def write_worktree(self, final: dict[str, FileState | None],
                       entries: dict[str, tuple | None], head_id, branch, *,
                       moves_to=None) -> None:
        """Journal, then the files (``final``: blob content or None), then the index
        entries (``entries``: (mode, id) or None), staged into the lock file.
        ``moves_to``: the commit the ref will point at, when known now (see Journal)."""
        r = self.r
        paths = sorted(final)
        # one pass, nothing written yet: each leading folder is looked at once
        folders = LeadingFolders(self.repo.workdir)
        for p in paths:
            if not _replaced_by_folder(self.repo.workdir, final, folders.symlinked_parent(p)):
                folders.refuse_symlinked_parent(p)
        originals = disk_originals(r, self.repo.workdir, paths, folders)
        head_tree = r[head_id].tree if head_id else None
        for p in paths:
            if final[p] is not None and originals[p] is not None and p not in self.index \
                    and tree_entry(head_tree, p) is None:
                # a new path (in neither HEAD nor the index), but an untracked file is
                # there now: someone wrote it after planning
                raise appeared(p)
        written, disk = {}, {}
        for p in paths:
            st = final[p]
            if st is not None:
                disk[p] = self.writer.disk_bytes(p, st)
                written[p] = (st.mode, stored_blob(r, disk[p]) if disk[p] != st.data
                              else entries[p][1])
            else:
                written[p] = None
        self.begin_journal(originals, head_id, entries, written, branch,
                           workdir=self.repo.workdir, moves_to=moves_to,
                           perms=self._unusual_perms(paths, originals))
        for p in paths:
            if final[p] is None:
                self.writer.delete(p)
                fault("worktree-delete")
        for p in paths:
            if final[p] is not None:
                self.writer.write(p, final[p], disk[p])
                fault("worktree-write")
        self.stage_entries({p: entries[p] for p in paths}, self.writer.stats)

    def begin_journal(self, originals: dict, head_id, entries: dict, written: dict, branch,
                      **more) -> None:
        """The journal of this run written (Journal.begin: ``more`` its workdir, moves_to,
        perms), before any file or index entry: what recover decides on from here."""
        self.journal.begin(originals, head_id, final=entries, written=written, branch=branch,
                           kind=self.kind, index=os.path.abspath(self.lock.path), **more)
        fault("journal")

    def stage_entries(self, entries: dict, stats) -> None:
        """The entries set in the index (with the stat data of the files just written, or
        none), staged into the lock file, and the journal told so: from here recover
        decides on the staged index."""
        set_entries(self.index, entries, stats)
        self.lock.stage(self.index)
        self.journal.note_staged_index(self.lock.lock_path)
        fault("index-stage")

    def _unusual_perms(self, paths, originals) -> dict:
        """path -> permission bits of the files there whose bits are not what git makes
        (0666/0777 less the umask), for recover to put back (a 0600 file stays 0600)."""
        out = {}
        for p in paths:
            if originals[p] is not None:
                perm = perm_of(self.writer._full(p))
                if perm is not None and perm != git_perm(originals[p][0] == MODE_EXEC):
                    out[p] = perm
        return out

    # -- 6, 7 ------------------------------------------------------------------------
    def move_ref(self, refname: str, new, old, message: str, committer,
                 subject: str | None = None) -> None:
        """Move ``refname`` from ``old`` to ``new`` (None: delete it) by compare-and-swap;
        ``subject``: ``new`` is a commit this run made, noted as such (commits_made)."""
        # moved and recorded, or neither: a Ctrl-C between the two left the branch on the
        # new commit while the rollback put the worktree and index back
        with interrupts_deferred():
            # (the branch HEAD names: checked out here, but no other worktree may use it)
            if new is None:
                remove_ref(self.repo, refname, old, mine=True)
            else:
                update_ref(self.repo, refname, new, old, message, committer, mine=True)
            self._moved.append((refname, new, old, committer))
            if subject is not None:
                commits_made.note(refname, str(new), subject)
        fault("ref-update")

    def adopt_hooks_index(self, hooked, tree_id) -> None:
        """After the commit hooks: when a hook re-staged files (``hooked.hook_index``,
        index.HookIndex), the index they leave becomes the new index: the journal notes
        it (and what the run now commits at its paths) before it replaces the lock, so
        that recover knows the lock as the run's own at every moment."""
        hook = hooked.hook_index
        if hook is None:
            return
        nxt = hook.next_index(self.repo, self.lock, tree_id, hooked.tree_id)
        if nxt is None:
            return
        from .history import entries_at

        paths = self.journal.paths()
        now = entries_at(self.r[hooked.tree_id], paths)
        self.journal.note_staged_index(nxt, final={p: now[p] for p in paths})
        fault("hook-index")
        os.replace(nxt, self.lock.lock_path)
        self.lock.forget_staged()

    def install(self) -> None:
        for p in self.temp_files:
            if p != self.lock.lock_path:
                remove_file(p)
        fault("index-install")
        # installed and known to be, or neither: a Ctrl-C just after the index was put in
        # place rolled the branch and worktree back under the new index; and once installed,
        # the backups and the journal go too (a Ctrl-C between left them for `recover`)
        with interrupts_deferred():
            self.lock.install()
            self.installed = True
            fault("journal-end")  # installed, the journal still there (recover: wholly after)
            self.writer.drop_backups()
            self.journal.end()

    def __exit__(self, etype, exc, tb) -> bool:
        try:
            if exc is not None and not self.installed:  # complete: nothing to take back
                self._rollback(exc)
        finally:
            self.lock.release()
        return False

    def _rollback(self, exc: BaseException) -> None:
        for refname, new, old, committer in reversed(self._moved):
            commits_made.unnote(str(new))
            # the ref already moved: put it back, so that the failure leaves nothing
            unmove_ref(self.repo, refname, new, old, committer,
                       message=f"{'ai-apply undo' if self.kind == RunKind.UNDO else 'ai-apply'}: "
                               "rolled back")
        # a file is put back only while it holds what the run (or its hook) left there
        failed, kept = self.writer.rollback(hooked_entries(self.repo, self.writer.wrote))
        for p in self.temp_files:
            if p != self.lock.lock_path:
                remove_file(p)
        self.lock.release()
        what = "undo" if self.kind == RunKind.UNDO else "commit"
        if failed:
            # the journal stays: it names what the files held, for `recover` once the
            # cause (a full disk...) is gone; the backups stay with it
            raise FatalError(
                f"the {what} failed ({write_cause(exc)}) and "
                "these files could not be put back yet: " + ", ".join(failed) + "\n"
                "hint: fix the cause, then run `git ai-apply recover`, which puts them back "
                "as they were", kind=ErrorKind.IO) from None
        self.writer.drop_backups()
        self.journal.end()
        if kept:
            raise_with_kept(exc, kept, self.journal.before(), what, probe_dirs(self.repo))
        if isinstance(exc, (OSError, pygit2.GitError)):
            # a disk or repository error (full disk, I/O error): nothing changed
            raise io_error(what, exc, probe_dirs(self.repo)) from None


def hooked_entries(repo: Repo, paths) -> dict:
    """path -> [mode, blob id] of ``paths`` in the index this process gave its commit
    hooks (index.HookIndex), when it is still there: what the run's pre-commit hook
    staged (a formatter's rewrite is the run's, not a user's edit)."""
    from .index import entries_of
    from .index import hook_index_name

    return entries_of(os.path.join(repo.gitdir, hook_index_name(os.getpid())), paths)


def kept_problems(kept: list[str], before: dict) -> list[Problem]:
    """One Problem for each file a rollback left alone (``before``: the journal's path ->
    [mode, id] of what was on disk before the run, or None)."""
    out = []
    for p in kept:
        was = before.get(p)
        held = (f"before the run it held blob {was[1][:12]} (`git cat-file -p {was[1][:12]}`)"
                if was else "it did not exist before the run")
        out.append(Problem(
            "changed while the run was going on (by hand or by a hook): it no longer "
            "holds what git ai-apply wrote there, so it was left as it is", file=p,
            hint=f"check it with `git status` and `git diff`; {held}"))
    return out


def raise_with_kept(exc: BaseException, kept: list[str], before: dict, what: str,
                    dirs) -> None:
    """The run's error, telling that ``kept`` were left as someone changed them during the
    run: never "nothing was changed".  A refusal (ApplyError: a hook failed) keeps its
    kind and exit status, with a problem per file; ``exc.kept`` names them."""
    problems = kept_problems(kept, before)
    if isinstance(exc, ApplyError):
        exc.problems = [*exc.problems, *problems]
        exc.args = (exc.render(),)
        exc.kept = kept
        return None
    text = ("the " + what + " was not made; "
            + "these files were changed during the run and left as they are: "
            + ", ".join(kept) + "\n" + "\n".join(p.render() for p in problems))
    if isinstance(exc, FatalError):
        exc.message = f"{exc.message}; {text}"
        exc.args = (exc.message,)
        exc.kept = kept
        return None
    if isinstance(exc, (OSError, pygit2.GitError)):
        err = FatalError(f"cannot write the {what}: {write_cause(exc, dirs)}; {text}",
                         kind=ErrorKind.IO)
        err.kept = kept
        raise err from None
    exc.kept = kept  # Ctrl-C, ...: the caller reports it
    return None


# --------------------------------------------------------------------------- apply, pick


@record
class CommitRequest:
    """What the caller decided; the transaction only writes it."""

    plan: Plan
    message: str
    include_dirty: bool = False
    no_verify: bool = False
    hook_env: dict = field(default_factory=dict)
    reflog_prefix: str = "ai-apply"
    edit_message: object = None  # callable(path): --edit, the user edits COMMIT_EDITMSG in place
    sign: object = None  # callable(commit_content: str) -> signature str, or None
    hook_hints: dict | None = None  # what to do when a hook fails (None: githooks.APPLY_HOOK_HINTS)
    # `pick` fast-forward: move the branch to this existing commit (its tree must be the
    # plan's result) instead of writing one; no commit hooks, as `git merge --ff-only`
    fast_forward_to: object = None


def commit_to_worktree(repo: Repo, req: CommitRequest, planned_head: tuple) -> CommitResult:
    """Write ``req.plan`` to the worktree, the index and a new commit on the current branch,
    all or nothing (see the module docstring for the order)."""
    from . import githooks
    from .signing import write_commit

    r = repo.repo
    plan = req.plan
    hook_output: list[str] = []
    kind = RunKind.PICK if req.fast_forward_to else RunKind.APPLY
    with Transaction(repo, planned_head, kind=kind) as txn:
        branch, head_id = planned_head
        head_tree = r[head_id].tree if head_id else None
        check_touched(repo, txn, plan, head_tree, req.include_dirty)
        # 3. objects
        entries = write_blobs(r, plan)
        tree_id = build_tree(r, head_tree, entries) or empty_tree(r)
        fault("tree-write")
        # 4. worktree and index, behind a journal
        txn.write_worktree(plan.final, entries, head_id, branch, moves_to=req.fast_forward_to)
        # 5. the hooks; the author is fixed before them, who see it as GIT_AUTHOR_* (as git)
        author = identity(repo, "author")
        hook_env = githooks.commit_hook_env(repo, req.hook_env, author,
                                            editing=req.edit_message is not None)
        message = req.message
        if req.fast_forward_to is None:
            tree_id_before = tree_id
            txn.temp_files.extend(hook_index_files(repo))  # removed whatever happens
            hooked = githooks.run_commit_hooks(repo, txn.lock, tree_id, message, hook_env,
                                               no_verify=req.no_verify, editor=req.edit_message,
                                               hints=req.hook_hints)
            tree_id, message = hooked.tree_id, hooked.message
            txn.adopt_hooks_index(hooked, tree_id_before)
            hook_output.extend(hooked.output)
        fault("hooks")
        message = valid_utf8(message)
        # 6. commit and ref
        committer = identity(repo, "committer")
        parents = [head_id] if head_id else []
        if req.fast_forward_to is not None:
            commit_id = req.fast_forward_to
            if r[commit_id].tree_id != tree_id:
                raise ApplyError(Problem(f"cannot fast-forward to {str(commit_id)[:12]}: its "
                                         "tree is not the planned result"))
        else:
            commit_id = write_commit(r, author, committer, message, tree_id, parents, req.sign)
        fault("commit")
        subject = message.split("\n", 1)[0]
        label = req.reflog_prefix + (" (initial)" if not head_id else "")
        txn.move_ref(branch or "HEAD", commit_id, head_id, f"{label}: {subject}", committer,
                     subject=subject)
        # 7. install the index
        txn.install()
    # post-commit sees the real index, as after git commit
    res = None if req.fast_forward_to is not None else \
        githooks.run_hook(repo, "post-commit", [], dict(hook_env, GIT_INDEX_FILE=txn.lock.path))
    if res is not None:
        hook_output.append(res.output)
    return CommitResult(commit_id, tree_id, branch, message, "".join(hook_output))


def hook_index_files(repo: Repo) -> list[str]:
    """The temporary files of the index this process gives its commit hooks."""
    from .index import hook_index_name

    path = os.path.join(repo.gitdir, hook_index_name(os.getpid()))
    return [path, path + ".carry"]


def check_touched(repo: Repo, txn: Transaction, plan: Plan, head_tree,
                  include_dirty: bool) -> None:
    """Under the lock: every touched file clean, or (include-dirty) unchanged since planning."""
    if not include_dirty:
        base = TreeSnapshot(repo.repo, head_tree, repo.workdir)
        txn.check_clean(base, plan.touched, refusal="ai-apply only changes clean files",
                        hint="commit or stash your changes first, or pass "
                             "--include-dirty to apply on top of them")
        return
    from .state import read_disk_as_git

    for p in plan.touched:
        if read_disk_as_git(repo, p, txn.index) != plan.base.get(p):
            raise ApplyError(Problem(f"{p} changed while the response was being applied",
                                     file=p, hint="run the command again"))


# --------------------------------------------------------------------------- branch mode


def commit_to_branch(repo: Repo, plan: Plan, message: str, refname: str, base_commit,
                     expected_tip, reflog_prefix: str = "ai-apply", *, sign=None,
                     edit_message=None, verify=None) -> CommitResult:
    """Commit ``plan`` (planned against ``base_commit``) onto ``refname`` without touching
    HEAD, the index or the worktree.  ``expected_tip`` is the ref's value when planning
    (None: the branch is created).  ``sign`` and ``edit_message`` as in CommitRequest;
    ``verify(tree_id, message) -> (tree_id, message, hook_output)`` runs the commit hooks
    (--verify, see attempts.verify_in_worktree).  The ref moves last, by compare-and-swap:
    any failure before leaves only unreachable objects."""
    from .signing import write_commit

    r = repo.repo
    try:
        entries = write_blobs(r, plan)
        base_tree = base_commit.tree if base_commit is not None else None
        tree_id = build_tree(r, base_tree, entries) or empty_tree(r)
    except (OSError, pygit2.GitError) as e:
        raise io_error("commit", e, probe_dirs(repo)) from None
    if edit_message is not None:
        message = edit_message(message)
    hook_output = ""
    if verify is not None:
        tree_id, message, hook_output = verify(tree_id, message)
    message = valid_utf8(message)
    author = identity(repo, "author")
    committer = identity(repo, "committer")
    parents = [base_commit.id] if base_commit is not None else []
    try:
        commit_id = write_commit(r, author, committer, message, tree_id, parents, sign)
    except (OSError, pygit2.GitError) as e:
        raise io_error("commit", e, probe_dirs(repo)) from None
    subject = message.split("\n", 1)[0]
    if expected_tip is None:
        # the record `attempts --prune` trusts (attempts.prune_verdict): this tool created
        # the branch, at this base
        subject = (f"created branch from {base_commit.id if base_commit is not None else 'nothing'}"
                   f": {subject}")
    reflog_message = f"{reflog_prefix}{' (initial)' if not parents else ''}: {subject}"
    with interrupts_deferred():  # moved and noted, or neither (what a Ctrl-C names)
        update_ref(repo, refname, commit_id, expected_tip, reflog_message, committer)
        commits_made.note(refname, str(commit_id), message.split("\n", 1)[0])
    ensure_reflog_entry(repo, refname, expected_tip, commit_id, reflog_message, committer)
    return CommitResult(commit_id, tree_id, refname, message, hook_output)
