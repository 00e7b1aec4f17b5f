"""Repositories a batch job names by URL (``batch --ray``, docs/BATCH.md "On a Ray
cluster"): which ``repo`` is a URL (git's own rule), the node's bare clone of it (cloned
once per node, under a file lock), a fetch when a job's base is not there yet, and the
push of a job's branch.

These run the ``git`` program, not pygit2: a clone, a fetch and a push reach a server,
and git knows how the user reaches it (``~/.ssh/config`` hosts, credential helpers,
``url.<base>.insteadOf``, proxies), which libgit2 does not read.  Nothing here imports
pygit2, so that the batch's reader (doors/batch_jobs.py) may ask ``is_url``.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess

from ..errors import ErrorKind, FatalError

# what a URL with a scheme starts with (git's is_url: a scheme of letters, digits, + - .)
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
# the environment variable naming the cache folder (else the user's ~/.cache/...)
CACHE_ENV = "GIT_AI_APPLY_BATCH_CACHE"


def is_url(repo: str, folder: str = ".") -> bool:
    """Whether ``repo`` names a repository to clone rather than a folder, as git clone
    decides (connect.c's url_is_local_not_ssh): a folder that exists is a folder;
    otherwise ``scheme://...`` is a URL, and ``host:path`` (a colon before any slash) is
    ssh's short form."""
    if os.path.exists(os.path.join(folder, repo)):
        return False
    if _SCHEME.match(repo):
        return True
    colon, slash = repo.find(":"), repo.find("/")
    return colon > 0 and (slash < 0 or colon < slash)


def cache_root() -> str:
    """The node's cache of clones: GIT_AI_APPLY_BATCH_CACHE, else ~/.cache/git-ai-apply/batch
    of the account the process runs as (its password entry: a Ray task may be given the
    driver's HOME for git's settings, the cache stays the node's own)."""
    given = os.environ.get(CACHE_ENV)
    if given:
        return given
    import pwd

    try:
        home = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        home = os.path.expanduser("~")
    return os.path.join(home, ".cache", "git-ai-apply", "batch")


def cache_path(url: str, root: str | None = None) -> str:
    """Where the node's bare clone of ``url`` lives: the cache root and a hash of the URL."""
    digest = hashlib.sha256(url.encode("utf-8", "surrogateescape")).hexdigest()[:20]
    return os.path.join(root or cache_root(), f"{digest}.git")


def git(args: list[str], cwd: str | None = None) -> subprocess.CompletedProcess:
    """``git ARGS``, its output captured; a FatalError when git cannot be run."""
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True,
                              stdin=subprocess.DEVNULL)
    except OSError as e:
        raise FatalError(f"cannot run git: {e.strerror}", kind=ErrorKind.ENVIRONMENT) from None


def _said(done: subprocess.CompletedProcess) -> str:
    text = done.stderr.decode("utf-8", "replace").strip()
    return text.splitlines()[-1] if text else f"git exited with {done.returncode}"


class _Lock:
    """An exclusive lock on ``path`` (flock): one clone or fetch of a URL at a time on a
    node, whichever process or task asks."""

    def __init__(self, path: str):
        self.path = path

    def __enter__(self) -> _Lock:
        import fcntl

        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.fd)  # closing the file lets the lock go


def local_clone(url: str, root: str | None = None) -> str:
    """The node's bare clone of ``url`` (made on first use: cloned into a temporary
    folder, then renamed into place, so that a clone cut short is never taken for one).
    A FatalError saying why when git cannot clone it."""
    path = cache_path(url, root)
    if os.path.isdir(path):
        return path
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    except OSError as e:
        raise FatalError(f"cannot make the clone cache {os.path.dirname(path)}: {e.strerror}",
                         kind=ErrorKind.IO) from None
    with _Lock(path + ".lock"):
        if os.path.isdir(path):  # another task cloned it while this one waited
            return path
        import tempfile

        scratch = tempfile.mkdtemp(prefix=".clone-", dir=os.path.dirname(path))
        done = git(["clone", "--bare", "--quiet", "--", url, os.path.join(scratch, "r.git")])
        if done.returncode != 0:
            import shutil

            shutil.rmtree(scratch, ignore_errors=True)
            raise FatalError(f"cannot clone {url}: {_said(done)}", kind=ErrorKind.REPOSITORY)
        os.rename(os.path.join(scratch, "r.git"), path)
        os.rmdir(scratch)
    return path


def has_commit(path: str, rev: str) -> bool:
    return git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
               cwd=path).returncode == 0


def fetch_missing(path: str, rev: str) -> None:
    """Make ``rev`` resolve in the clone at ``path`` when it does not yet: fetch the
    remote's branches (as refs/remotes/origin/*) and tags, then ``rev`` itself (a commit
    no branch holds any more, when the server gives it).  Nothing when it resolves; when
    nothing fetched makes it resolve, the job's base check says so."""
    if has_commit(path, rev):
        return
    with _Lock(path + ".lock"):
        if has_commit(path, rev):
            return
        git(["fetch", "--quiet", "origin", "+refs/heads/*:refs/remotes/origin/*",
             "+refs/tags/*:refs/tags/*"], cwd=path)
        if not has_commit(path, rev) and not rev.startswith("-"):
            name = "refs/ai-apply/fetched/" + re.sub(r"[^0-9A-Za-z._-]", "-", rev)
            git(["fetch", "--quiet", "origin", f"+{rev}:{name}"], cwd=path)


def push_branch(path: str, branch: str, remote: str) -> None:
    """Push ``branch`` of the repository at ``path`` to ``remote`` (a remote's name there,
    or a URL), to the branch of the same name; a FatalError with git's reason when the
    push fails (rejected, unreachable)."""
    ref = f"refs/heads/{branch}"
    done = git(["push", "--quiet", "--porcelain", "--", remote, f"{ref}:{ref}"], cwd=path)
    if done.returncode != 0:
        why = _rejection(done.stdout.decode("utf-8", "replace")) or _said(done)
        raise FatalError(f"cannot push {branch} to {remote}: {why}", kind=ErrorKind.REPOSITORY)


def _rejection(porcelain: str) -> str | None:
    """The reason git push --porcelain gives for a rejected ref (``!\tFROM:TO\t[rejected]
    (why)``)."""
    for line in porcelain.splitlines():
        fields = line.split("\t")
        if len(fields) >= 3 and fields[0] == "!":
            return fields[2]
    return None
