"""The index read before pygit2's Python layer is imported (git_aiapply/git/early_index.py)
is used only when it is provably the index the lock would have read; anything else falls
back to reading under the lock, and the early read's link never outlives the run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo

# a child Python: start() does nothing once pygit2 is imported, as it is in this process
_CHILD = """
import json, os, subprocess, sys
from git_aiapply.git import early_index
early_index.start()
started = early_index._pending is not None
link = early_index._pending[0] if started else None
for argv in json.loads(sys.argv[1]):  # git commands run between the early read and take()
    subprocess.run(argv, check=True, capture_output=True)
import pygit2
early_index.adopt_into_package()
index_path = sys.argv[2]
index = early_index.take(index_path, f"{index_path}.ai-apply-{os.getpid()}")
print(json.dumps({
    "started": started, "link": link, "taken": index is not None,
    "entries": sorted(f"{e.mode:o} {e.id} {e.path}" for e in index) if index is not None else None,
    "link_left": link is not None and os.path.exists(link),
    "package_has_modules": hasattr(pygit2, "_pygit2") and hasattr(pygit2, "_libgit2"),
}))
"""


def _child(cwd: Path, env: dict, index_path: Path, between=()) -> dict:
    r = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(list(between)), str(index_path)],
                       cwd=cwd, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _ls_stage(repo: GitRepo, cwd: Path | None = None) -> list[str]:
    out = repo.git("ls-files", "--stage", "--full-name", cwd=cwd)
    rows = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        mode, oid, _stage = meta.split()
        rows.append(f"{mode} {oid} {path}")
    return sorted(rows)


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.write("README", "read me\n")
    repo.commit_all("base")
    return repo


def _gitdir_leftovers(gitdir: Path) -> list[str]:
    return sorted(p.name for p in gitdir.iterdir() if ".ai-apply-" in p.name)


def test_an_unchanged_index_read_early_is_taken(base: GitRepo):
    (base.root / "src" / "deep").mkdir()
    got = _child(base.root / "src" / "deep", base.env, base.root / ".git" / "index")
    assert got["started"] and got["taken"]
    assert got["entries"] == _ls_stage(base)
    assert got["link_left"]  # the lock's own work file now: IndexLock stages through it
    assert got["package_has_modules"]


def test_an_index_replaced_after_the_early_read_is_not_taken(base: GitRepo):
    base.write("new.txt", "new\n")
    got = _child(base.root, base.env, base.root / ".git" / "index",
                 between=[["git", "add", "new.txt"]])
    assert got["started"] and not got["taken"]
    assert not got["link_left"]
    assert any(row.endswith(" new.txt") for row in _ls_stage(base))


def test_another_repositorys_index_is_not_taken(base: GitRepo, tmp_path: Path, git_env):
    from conftest import init_repo

    other = init_repo(tmp_path / "other", git_env)
    other.write("x.txt", "x\n")
    other.commit_all("other")
    got = _child(base.root, base.env, other.root / ".git" / "index")
    assert got["started"] and not got["taken"]
    assert not got["link_left"]
    assert _gitdir_leftovers(base.root / ".git") == []


@pytest.mark.parametrize("name", ["GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE",
                                  "GIT_CEILING_DIRECTORIES"])
def test_no_early_read_when_git_is_steered_by_the_environment(base: GitRepo, name):
    env = dict(base.env)
    env[name] = str(base.root / ".git") if name == "GIT_DIR" else str(base.root)
    got = _child(base.root, env, base.root / ".git" / "index")
    assert not got["started"] and not got["taken"]
    assert _gitdir_leftovers(base.root / ".git") == []


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="needs root to give the index to another user")
def test_no_early_read_in_another_users_repository(base: GitRepo):
    index = base.root / ".git" / "index"
    os.chown(index, 12345, -1)
    got = _child(base.root, base.env, index)
    assert not got["started"] and not got["taken"]
    assert _gitdir_leftovers(base.root / ".git") == []


def test_a_linked_worktrees_own_index_is_read_early(base: GitRepo, tmp_path: Path):
    base.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    gitdir = base.root / ".git" / "worktrees" / "side"
    got = _child(tmp_path / "side", base.env, gitdir / "index")
    assert got["started"] and got["taken"]
    assert got["entries"] == _ls_stage(base, cwd=tmp_path / "side")


def test_a_relative_gitfile_is_followed(base: GitRepo, tmp_path: Path):
    """A `.git` file naming its git dir relative to itself, as a submodule's does."""
    store = base.root.parent / "store"
    store.mkdir()
    (base.root / ".git").rename(store / "repo.git")
    (base.root / ".git").write_text("gitdir: ../store/repo.git\n")
    assert base.git("rev-parse", "--git-dir").strip().endswith("repo.git")
    got = _child(base.root / "src", base.env, store / "repo.git" / "index")
    assert got["started"] and got["taken"]
    assert got["entries"] == _ls_stage(base)


def test_an_unreadable_index_is_left_to_the_lock(base: GitRepo):
    index = base.root / ".git" / "index"
    data = index.read_bytes()
    index.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))  # a broken checksum
    got = _child(base.root, base.env, index)
    assert got["started"] and not got["taken"] and not got["link_left"]


# -- the real command --------------------------------------------------------------------

def _waiting_for_stdin(repo: GitRepo) -> tuple[subprocess.Popen, Path]:
    """The real command reading its response from stdin, once its early read started."""
    proc = subprocess.Popen([*AI_APPLY, "-"], cwd=repo.root, env=repo.env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    link = repo.root / ".git" / f"index.ai-apply-{proc.pid}"
    deadline = time.monotonic() + 60
    while not link.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the early read never started"
        time.sleep(0.01)
    return proc, link


@pytest.mark.real_command
def test_another_git_process_updating_the_index_meanwhile_is_kept(base: GitRepo):
    """The command waits for its response on stdin after the early read; `git add` runs
    meanwhile and replaces the index.  The run must read the index again: the staged
    file stays staged, the commit holds only the response's edit."""
    base.write("staged.txt", "staged by someone else\n")
    proc, link = _waiting_for_stdin(base)
    base.git("add", "staged.txt")
    out, err = proc.communicate(LOUDER_BETA.encode(), timeout=120)
    assert proc.returncode == 0, err.decode()
    assert base.git("show", "--name-only", "--format=", "HEAD").split() == [
        "src/b.txt"]
    assert base.git("diff", "--cached", "--name-only").split() == ["staged.txt"]
    assert base.git("status", "--porcelain").splitlines() == ["A  staged.txt"]
    assert _gitdir_leftovers(base.root / ".git") == []


REFUSED = """```diff
--- a/src/b.txt
+++ b/src/b.txt
@@
 alpha
-no such line
+gamma
```
"""


@pytest.mark.real_command
@pytest.mark.parametrize("case", ["applied", "refused", "usage", "in-subfolder"])
def test_the_early_reads_link_never_outlives_the_run(base: GitRepo, case):
    before = base.git("rev-parse", "HEAD")
    index_before = (base.root / ".git" / "index").read_bytes()
    if case == "applied":
        r = base.run(response=LOUDER_BETA)
        assert r.returncode == 0, r.err
    elif case == "refused":
        r = base.run(response=REFUSED)
        assert r.returncode == 1, r.err
        assert base.git("rev-parse", "HEAD") == before
        assert (base.root / ".git" / "index").read_bytes() == index_before
    elif case == "usage":
        r = base.run("--base", "main", response=LOUDER_BETA)  # --base without --branch
        assert r.returncode == 2, r.err
    else:
        r = base.run(response=LOUDER_BETA, cwd=base.root / "src")
        assert r.returncode == 0, r.err
    assert _gitdir_leftovers(base.root / ".git") == []
    assert base.git("status", "--porcelain") == ""


@pytest.mark.real_command
def test_a_broken_index_is_still_a_fatal_error(base: GitRepo):
    index = base.root / ".git" / "index"
    data = index.read_bytes()
    index.write_bytes(data[:-1] + bytes([data[-1] ^ 0xFF]))
    r = base.run(response=LOUDER_BETA)
    assert r.returncode == 128, r.err
    assert r.err.startswith("fatal:") and "index" in r.err
    assert index.read_bytes()[:-1] == data[:-1]
    assert _gitdir_leftovers(base.root / ".git") == []


@pytest.mark.real_command
def test_the_commit_from_an_early_read_matches_git(base: GitRepo, tmp_path: Path):
    """The index written from an early read is the index git would have: same entries as
    `git apply --index` gives, and clean under `git status` (stat data kept)."""
    r = base.run("--json", response=LOUDER_BETA)
    assert json.loads(r.out)["status"] == "applied"
    assert base.git("status", "--porcelain") == ""
    assert base.git("diff-index", "--cached", "HEAD") == ""
    rows = _ls_stage(base)
    assert any(row.endswith(" src/b.txt") for row in rows) and len(rows) == 2


@pytest.mark.real_command
def test_a_killed_runs_link_is_removed_by_recover(base: GitRepo):
    proc, link = _waiting_for_stdin(base)
    proc.kill()
    proc.communicate()
    assert _gitdir_leftovers(base.root / ".git") == [link.name]
    assert base.git("status", "--porcelain") == ""  # git does not mind it
    r = base.run("recover")
    assert r.returncode == 0, r.err
    assert _gitdir_leftovers(base.root / ".git") == []
    assert base.git("status", "--porcelain") == ""
