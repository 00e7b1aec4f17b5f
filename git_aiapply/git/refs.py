"""References: branch names, ref updates and deletes by compare-and-swap under the ref's
lock, and the branches other worktrees are using (checked out, rebased, bisected)."""
from __future__ import annotations

import os
from contextlib import contextmanager

import pygit2

from ..errors import STORE_HINT, ApplyError, ErrorKind, FatalError, Problem, UsageError
from .faults import remove_file


def _valid_branch(refname: str) -> bool:
    try:
        return pygit2.reference_is_valid_name(refname)
    except AttributeError:  # older pygit2
        return True


def branch_refname(name: str) -> str:
    """refs/heads/NAME for --branch NAME (``refs/heads/NAME`` accepted too); a name git
    would refuse for a branch is a usage error."""
    short = name[len("refs/heads/"):] if name.startswith("refs/heads/") else name
    refname = f"refs/heads/{short}"
    if not short or short == "HEAD" or short.startswith("-") or not _valid_branch(refname):
        raise UsageError(f"invalid branch name {name!r}")
    return refname


def short_branch(ref: str | None) -> str | None:
    if ref and ref.startswith("refs/heads/"):
        return ref[len("refs/heads/"):]
    return ref


def resolve_symbolic(r: pygit2.Repository, refname: str) -> str:
    """The ref a symbolic branch leads to (itself when it is not symbolic or missing)."""
    for _ in range(5):
        try:
            ref = r.lookup_reference(refname)
        except (KeyError, ValueError, pygit2.GitError):
            return refname
        if ref.type != pygit2.enums.ReferenceType.SYMBOLIC:
            return refname
        refname = ref.target
    return refname


def reflog(r: pygit2.Repository, refname: str) -> list:
    """``refname``'s reflog entries, newest first (empty: no reflog, no such ref)."""
    try:
        return list(r.lookup_reference(refname).log())
    except (KeyError, ValueError, pygit2.GitError):
        return []


def merge_base(r: pygit2.Repository, a, b):
    """The best common ancestor of commits ``a`` and ``b``, or None (none, or b is None)."""
    if a is None or b is None:
        return None
    try:
        return r.merge_base(a, b)
    except pygit2.GitError:
        return None


class BranchInUse(FatalError):
    """A branch a worktree is using (checked out there, or being rebased or bisected):
    never moved or deleted under it, as git refuses `git branch -f` and `git branch -d`."""

    def __init__(self, message: str, hint: str | None = None):
        super().__init__(message, kind=ErrorKind.STATE, hint=hint)

    def render(self) -> str:
        return self.message


@contextmanager
def _ref_locked_at(repo: pygit2.Repository, refname: str, expected: pygit2.Oid | None,
                   moved: str, verb: str, users=None, mine: bool = False):
    """A reference transaction holding ``refname``'s lock, entered only while the ref
    still points at ``expected`` (None: does not exist) and, when ``users`` (the
    repository wrapper) is given, while no worktree is using the branch (``mine``: the
    run's own worktree having it checked out is no use: a commit onto the current
    branch); ``moved`` words the refusal.  Both are asked with the lock held, at the
    update itself: a checkout made while hooks or --verify ran is seen."""
    try:
        with repo.transaction() as txn:
            txn.lock_ref(refname)
            refuse_bad_packed_refs(_common_dir(repo.path))
            try:
                current = repo.lookup_reference(refname).target
            except (KeyError, pygit2.GitError):
                current = None
            if current != expected:
                raise ApplyError(Problem(
                    f"{refname} {moved} (expected {str(expected)[:12] if expected else 'no branch'}, "
                    f"found {str(current)[:12] if current else 'no branch'})",
                    hint="run the command again"))
            if users is not None:
                refuse_in_use(users, refname, verb, mine=mine)
            yield txn
    except pygit2.GitError as e:
        # the hint only where the lock is what failed, not a full disk or read-only mount
        locked = "lock" in str(e).lower()
        raise FatalError(f"cannot {verb} {refname}: {e}"
                         + (" (another git process may hold the reference lock)" if locked else ""),
                         kind=ErrorKind.LOCK if locked else "io") from None


def update_ref(repo, refname: str, new: pygit2.Oid, old: pygit2.Oid | None,
               message: str, committer: pygit2.Signature, *, mine: bool = False) -> None:
    """Move ``refname`` from ``old`` (None: must not exist) to ``new``, or refuse: moved
    meanwhile, or a branch some worktree is using (``mine``: but for being checked out in
    the run's own worktree).  ``repo`` is the repository wrapper (git/repo.py)."""
    _set_ref(repo.repo, refname, new, old, message, committer, users=repo, mine=mine)


def _set_ref(r: pygit2.Repository, refname: str, new, old, message: str, committer, *,
             users, mine: bool = False) -> None:
    # The reflog entry takes the repository's identity (pygit2 cannot pass a Signature to
    # a reference transaction), so set it to the committer first.
    r.set_ident(committer.name, committer.email)
    shared = _shared_targets(r, refname)
    with _ref_locked_at(r, refname, old, "moved while the response was being applied",
                        "update", users, mine) as txn:
        txn.set_target(refname, new, message=message)
    if not committer.email:
        _name_committer_in_reflogs(r, refname, old, new, committer)
    _share(r, shared)


_PER_WORKTREE = ("refs/worktree/", "refs/bisect/", "refs/rewritten/")


def _common_dir(gitdir: str) -> str:
    try:
        with open(os.path.join(gitdir, "commondir")) as f:
            return os.path.normpath(os.path.join(gitdir, f.read().strip()))
    except OSError:
        return gitdir


def refuse_bad_packed_refs(commondir: str) -> None:
    """FatalError (``repository``) when a ref update would make git die on packed-refs,
    in git's words, where libgit2 skips a line it cannot read and commits.  git's rule
    at a ref update: a file with the ``sorted`` trait (what `git pack-refs` writes) is
    searched, not read whole, so only an unterminated last line stops it; a file without
    it is read whole, so any line it cannot read does.  (Listing every ref, as
    `attempts` does, reads the whole file in both: libgit2 says so, errors.store_fatal.)"""
    path = os.path.join(commondir, "packed-refs")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        return  # none (or unreadable: libgit2's own error when it needs it)
    import re

    header = data.split(b"\n", 1)[0] if data.startswith(b"# pack-refs with:") else b""
    body = data[len(header) + 1:] if header else data
    oid = rb"(?:[0-9a-f]{64}|[0-9a-f]{40})"
    whole = b" sorted " not in header + b" "  # sorted: searched, never read whole (a big file)
    bad = re.search(rb"^(?!%s [^\n]|\^%s$).*$" % (oid, oid), body.removesuffix(b"\n"),
                    re.MULTILINE) if body and whole else None
    if bad is None and (not data or data.endswith(b"\n")):
        return
    shown = os.path.relpath(path) if path.startswith(os.getcwd() + os.sep) else path
    line = bad.group(0) if bad is not None else data.rsplit(b"\n", 1)[-1]
    what = "unexpected line" if bad is not None else "unterminated line"
    raise FatalError(f"{what} in {shown}: {line.decode('utf-8', 'replace')}",
                     kind=ErrorKind.REPOSITORY, hint=STORE_HINT)


def _ref_home(gitdir: str, refname: str) -> str:
    """The folder ``refname`` lives under: the worktree's own git dir for HEAD and the
    per-worktree refs, else the common dir."""
    return gitdir if refname == "HEAD" or refname.startswith(_PER_WORKTREE) \
        else _common_dir(gitdir)


def _reflogs(repo: pygit2.Repository, refname: str) -> list[str]:
    """The reflogs a move of ``refname`` appends to: its own, and HEAD's when HEAD points
    at it."""
    gitdir = os.path.normpath(repo.path)
    logs = [os.path.join(_ref_home(gitdir, refname), "logs", *refname.split("/"))]
    try:
        head = repo.lookup_reference("HEAD")
        if refname != "HEAD" and head.type == pygit2.enums.ReferenceType.SYMBOLIC \
                and head.target == refname:
            logs.append(os.path.join(gitdir, "logs", "HEAD"))
    except (KeyError, pygit2.GitError):
        pass
    return logs


def _shared_targets(repo, refname: str) -> list[str]:
    """With ``core.sharedRepository`` (git/shared_repo.py), what a move of ``refname``
    writes that git gives the shared modes, to be given them once written: the folders
    it will create, the loose ref file (rewritten at each move), the reflogs it will
    create (appending to one keeps its mode, as git)."""
    if not getattr(repo, "shared_perm", 0):
        return []
    from .shared_repo import missing_folders

    gitdir = os.path.normpath(repo.path)
    base = _ref_home(gitdir, refname)
    ref = os.path.join(base, *refname.split("/"))
    logs = _reflogs(repo, refname)
    out = missing_folders(ref, base)
    for log in logs:
        out += missing_folders(log, base if log.startswith(base + os.sep) else gitdir)
    out.append(ref)
    return out + logs  # an existing reflog too: git adjusts its mode at every append


def _share(repo, paths: list[str]) -> None:
    if paths:
        from .shared_repo import adjust

        for path in paths:
            adjust(path, repo.shared_perm)


def _name_committer_in_reflogs(repo: pygit2.Repository, refname: str, old, new,
                               committer) -> None:
    """libgit2 writes a reflog entry without an email as ``unknown <unknown>`` (it cannot
    make a signature with an empty email); git writes ``Name <>``.  Put the committer
    into the entries just written for ``refname`` and for HEAD when it points there, only
    when the newest line is that very move."""
    logs = _reflogs(repo, refname)
    prefix = f"{old or '0' * len(str(new))} {new} ".encode()
    ident = f"{committer.name} <{committer.email}> ".encode("utf-8", "surrogateescape")
    for path in logs:
        try:
            with open(path, "rb") as f:
                data = f.read()
            start = data.rstrip(b"\n").rfind(b"\n") + 1
            line = data[start:]
            who_end = line.find(b"> ")
            if not line.startswith(prefix) or who_end < 0:
                continue
            with open(path, "r+b") as f:
                f.seek(start)
                f.write(prefix + ident + line[who_end + 2:])
                f.truncate()
        except OSError:
            pass  # the entry keeps libgit2's words; the move itself is done


def remove_ref(repo, refname: str, expected: pygit2.Oid, *, mine: bool = False) -> None:
    """Delete ``refname`` only while it still points at ``expected`` and no worktree is
    using it (``mine`` as in ``update_ref``); its reflog stays."""
    _drop_ref(repo.repo, refname, expected, users=repo, mine=mine)


def _drop_ref(r: pygit2.Repository, refname: str, expected, *, users, mine: bool = False):
    with _ref_locked_at(r, refname, expected, "moved; not deleted", "delete",
                        users, mine) as txn:
        txn.remove(refname)


def unmove_ref(repo, refname: str, new: pygit2.Oid | None,
               old: pygit2.Oid | None, committer: pygit2.Signature | None,
               message: str = "ai-apply: rolled back") -> None:
    """Undo a move of ``refname`` from ``old`` to ``new`` (None: absent) after a later
    step failed; only while the ref still points at ``new`` (compare-and-swap), best
    effort: the failure is reported anyway.  Whoever uses the branch now, it goes back
    to where the run found it."""
    r = repo.repo
    try:
        if old is not None and new is not None:
            _set_ref(r, refname, old, new, message, committer, users=None)
        elif old is None and new is not None:
            if refname != "HEAD":  # an unborn HEAD is always symbolic
                _drop_ref(r, refname, new, users=None)
        elif old is not None:
            # the ref was deleted (undo of a root commit): create it again
            r.references.create(refname, old)
    except (ApplyError, FatalError, KeyError, ValueError, pygit2.GitError, OSError):
        pass


def ensure_reflog_entry(wrapper, refname: str, old, new, message: str,
                        committer: pygit2.Signature) -> None:
    """Append the reflog entry of ``old -> new`` when libgit2 wrote none (reflogs off:
    a bare repository, core.logAllRefUpdates=false), as `git branch --create-reflog`
    does: a branch's reflog is how `attempts --prune` knows the branch is the tool's own."""
    try:
        newest = next(iter(wrapper.repo.lookup_reference(refname).log()), None)
    except (KeyError, pygit2.GitError):
        newest = None
    if newest is not None and newest.oid_new == new and \
            (newest.oid_old == (old or pygit2.Oid(hex="0" * 40))):
        return
    zero = "0" * len(str(new))
    from ..dates import zone  # here, not at import: dates stays off the start-up path

    tz = zone(committer.offset)
    line = (f"{old or zero} {new} {committer.name} <{committer.email}> {committer.time} {tz}"
            f"\t{' '.join(message.splitlines())}\n")
    path = os.path.join(wrapper.commondir, "logs", *refname.split("/"))
    from .shared_repo import missing_folders

    made = missing_folders(path, wrapper.commondir) + ([] if os.path.lexists(path) else [path])
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "ab") as f:
            f.write(line.encode("utf-8", "surrogateescape"))
    except OSError:
        pass  # no record: prune keeps the branch, which loses nothing
    _share(wrapper.repo, made)


def delete_ref(wrapper, refname: str, expected: pygit2.Oid) -> None:
    """Delete ``refname`` (and its reflog, as `git branch -d` does) only while it still
    points at ``expected`` and no worktree is using it."""
    remove_ref(wrapper, refname, expected)
    # libgit2's transaction leaves the reflog (and empty folders) behind
    logs = os.path.join(wrapper.commondir, "logs")
    remove_file(os.path.join(logs, *refname.split("/")))
    for root in (logs, wrapper.commondir):
        d = os.path.dirname(os.path.join(root, *refname.split("/")))
        while d != os.path.join(root, "refs", "heads") and d.startswith(os.path.join(root, "refs")):
            try:
                os.rmdir(d)
            except OSError:
                break
            d = os.path.dirname(d)


def _worktree_gitdirs(repo) -> list[tuple[str, str]]:
    """(git dir, worktree folder) of the main worktree (unless bare) and each linked one."""
    out: list[tuple[str, str]] = []
    if not repo.config_bool("core.bare", repo.workdir is None):
        main = os.path.dirname(repo.commondir) if os.path.basename(repo.commondir) == ".git" \
            else repo.commondir
        if repo.gitdir == repo.commondir and repo.workdir:
            main = repo.workdir
        out.append((repo.commondir, main))
    wt_root = os.path.join(repo.commondir, "worktrees")
    try:
        names = sorted(os.listdir(wt_root))
    except OSError:
        names = []
    for name in names:
        d = os.path.join(wt_root, name)
        try:
            with open(os.path.join(d, "gitdir")) as f:
                where = os.path.dirname(f.read().strip())
        except OSError:
            where = d
        out.append((d, where))
    return out


def _read_ref_file(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _uses(repo):
    """(refname, how, git dir, worktree folder) of each use of a branch by a worktree: how
    is 'checked out' (its HEAD, and the branch a symbolic branch there leads to), 'being
    rebased' or 'being bisected' (the branch the rebase or bisect will come back to)."""
    for gitdir, where in _worktree_gitdirs(repo):
        text = _read_ref_file(os.path.join(gitdir, "HEAD"))
        if text and text.startswith("ref: "):
            name = text[5:].strip()
            yield resolve_symbolic(repo.repo, name), "checked out", gitdir, where
            yield name, "checked out", gitdir, where
        for folder in ("rebase-merge", "rebase-apply"):
            name = _read_ref_file(os.path.join(gitdir, folder, "head-name"))
            if name and name.startswith("refs/"):
                yield name, "being rebased", gitdir, where
        name = _read_ref_file(os.path.join(gitdir, "BISECT_START"))
        if name and os.path.exists(os.path.join(gitdir, "BISECT_LOG")):
            ref = name if name.startswith("refs/") else f"refs/heads/{name}"
            yield ref, "being bisected", gitdir, where


def branch_in_use(repo, refname: str, *, mine: bool = False) -> str | None:
    """Whether a worktree is using branch ``refname``, and where ('checked out in PATH',
    'being rebased in PATH', 'being bisected in PATH'), or None.  ``mine``: being checked
    out in the worktree ``repo`` is (the run commits onto its current branch) does not
    count.  The one answer every ref update and delete of the tool asks."""
    if not refname.startswith("refs/heads/"):
        return None  # a detached HEAD, or no branch
    here = os.path.realpath(repo.gitdir)
    for ref, how, gitdir, where in _uses(repo):
        if ref == refname and not (mine and how == "checked out"
                                   and os.path.realpath(gitdir) == here):
            return f"{how} in {where}"
    return None


def refuse_in_use(repo, refname: str, verb: str, *, mine: bool = False) -> None:
    """``BranchInUse`` (fatal, as git) when ``branch_in_use`` says a worktree uses
    ``refname``."""
    why = branch_in_use(repo, refname, mine=mine)
    if why is not None:
        raise BranchInUse(f"cannot {verb} branch '{short_branch(refname)}': it is {why}",
                          hint="git ai-apply never moves or deletes a branch a worktree "
                               "is using; finish or leave what uses it there, or name "
                               "another branch")


def branch_uses(repo) -> dict[str, tuple[str, str]]:
    """refname -> (how, worktree folder) of every branch a worktree uses, as
    ``branch_in_use`` reads them (the first use of each)."""
    out: dict[str, tuple[str, str]] = {}
    for ref, how, _gitdir, where in _uses(repo):
        out.setdefault(ref, (how, where))
    return out


def delete_branch_at(wrapper, refname: str, tip: str) -> None:
    """``delete_ref`` with the expected tip as a hex string (the id a caller outside the
    git layer holds)."""
    delete_ref(wrapper, refname, pygit2.Oid(hex=tip))
