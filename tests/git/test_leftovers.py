"""git/leftovers.py: a file no running process has open and that has been quiet for a
while is left over (libgit2's object temporaries, a ref lock); one held open, a fresh one,
or any other name is not."""
from __future__ import annotations

import os
import time

from git_aiapply.git import leftovers


def _old(path, content=b"x"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    past = time.time() - 60
    os.utime(path, (past, past))
    return path


def test_object_temps_are_the_quiet_unopened_ones(tmp_path):
    objects = tmp_path / "objects"
    dead = _old(objects / "tmp_object_git2_0123456789abcdef")
    held = _old(objects / "tmp_object_git2_fedcba9876543210")
    fresh = objects / "tmp_object_git2_aaaaaaaaaaaaaaaa"
    fresh.write_bytes(b"being written")
    _old(objects / "pack-or-other")
    _old(objects / "ab" / "tmp_obj_XXXXXX")  # git's own, in a fan-out folder: git's to prune
    with open(held, "rb"):
        assert leftovers.object_temps(str(objects)) == [str(dead)]
    assert leftovers.object_temps(str(tmp_path / "missing")) == []


def test_open_by_names_this_process_and_cannot_tell_without_proc(tmp_path, monkeypatch):
    f = _old(tmp_path / "f")
    with open(f, "rb"):
        found = leftovers.open_by([str(f)])
    assert found is not None and any(pid == os.getpid() for pid, _cmd in found[str(f)])
    real_listdir = os.listdir

    def no_proc(path="."):
        if path == "/proc":
            raise FileNotFoundError(path)
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", no_proc)
    assert leftovers.open_by([str(f)]) is None
    assert leftovers.left_over([str(f)]) == []  # never removed on a guess


def test_ref_lock_of_a_branch_or_of_a_detached_head(tmp_path):
    gitdir, common = tmp_path / "wt", tmp_path / "common"
    lock = _old(common / "refs" / "heads" / "topic" / "x.lock")
    assert leftovers.ref_lock(str(gitdir), str(common), "refs/heads/topic/x") == str(lock)
    head = _old(gitdir / "HEAD.lock")
    assert leftovers.ref_lock(str(gitdir), str(common), "HEAD") == str(head)
    assert leftovers.ref_lock(str(gitdir), str(common), "refs/heads/other") is None
    assert leftovers.ref_lock(str(gitdir), str(common), "../../etc/passwd") is None
    assert leftovers.ref_lock(str(gitdir), str(common), None) is None
    fresh = common / "refs" / "heads" / "new.lock"
    fresh.write_bytes(b"")
    assert leftovers.ref_lock(str(gitdir), str(common), "refs/heads/new") is None


def test_with_environment_finds_a_process_given_a_file(tmp_path):
    import subprocess
    import sys

    index = tmp_path / "next-index-ai-apply-1.lock"
    env = dict(os.environ, GIT_INDEX_FILE=str(tmp_path / "." / index.name))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"], env=env)
    try:
        deadline = time.time() + 5
        found = []
        while not found and time.time() < deadline:  # until the child's environ is readable
            found = leftovers.with_environment("GIT_INDEX_FILE", str(index))
        assert [pid for pid, _cmd in found] == [child.pid]
        assert leftovers.with_environment("GIT_INDEX_FILE", str(tmp_path / "other")) == []
    finally:
        child.kill()
        child.wait()
