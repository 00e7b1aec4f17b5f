"""git/index.py as plain functions on real repositories: reading the index, index.lock
taken with its owner line and given back, entries staged as git writes them, and the
tree an index holds, each checked against the git CLI."""
from __future__ import annotations

import os
import subprocess
import sys

import pygit2
import pytest

from conftest import GitRepo
from git_aiapply.errors import FatalError
from git_aiapply.git.index import (
    LOCK_MARKER,
    IndexLock,
    entries_hold,
    index_holds,
    lock_owner,
    pid_alive,
    read_index,
    stage_entries,
    tree_of_index,
)


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\n")
    repo.write("src/b.txt", "beta\n")
    repo.commit_all()
    return repo


def _index(repo: GitRepo) -> str:
    return str(repo.root / ".git" / "index")


def _ls_files(repo: GitRepo) -> dict[str, tuple[int, str]]:
    out = {}
    for line in repo.git("ls-files", "-s").splitlines():
        meta, path = line.split("\t")
        mode, oid, _stage = meta.split()
        out[path] = (int(mode, 8), oid)
    return out


def test_read_index_holds_what_git_ls_files_lists(base: GitRepo, tmp_path):
    index = read_index(_index(base))
    assert {e.path: (int(e.mode), str(e.id)) for e in index} == _ls_files(base)
    assert len(read_index(str(tmp_path / "no-index"))) == 0  # none yet: empty


def test_an_unreadable_index_is_fatal(base: GitRepo):
    (base.root / ".git" / "index").write_bytes(b"DIRC garbage")
    with pytest.raises(FatalError, match="cannot read the index") as e:
        read_index(_index(base))
    assert e.value.kind == "index"
    assert base.git("status", check=False) == ""  # git refuses it too


def test_the_lock_is_taken_with_its_owner_and_git_waits_for_it(base: GitRepo):
    lock = IndexLock(_index(base))
    lock.acquire()
    try:
        assert lock.held
        assert (base.root / ".git" / "index.lock").read_text() == f"{LOCK_MARKER} {os.getpid()}\n"
        assert lock_owner(lock.lock_path) == os.getpid()
        # a change git must write (a refresh with nothing stale may not take the lock)
        (base.root / "new-file.txt").write_text("new\n")
        r = subprocess.run(["git", "add", "new-file.txt"], cwd=base.root, env=base.env,
                           capture_output=True, text=True)
        assert r.returncode != 0 and "index.lock" in r.stderr
        with pytest.raises(FatalError, match="index.lock exists") as e:
            IndexLock(_index(base)).acquire()  # a second taker
        assert e.value.kind == "lock"
    finally:
        lock.release()
    assert not lock.held and not (base.root / ".git" / "index.lock").exists()
    assert sorted(os.listdir(base.root / ".git")) == sorted(
        n for n in os.listdir(base.root / ".git") if "ai-apply" not in n)
    base.git("update-index", "--refresh")  # git can take it again


def test_a_lock_left_by_a_dead_run_says_to_recover(base: GitRepo):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    lock_path = base.root / ".git" / "index.lock"
    lock_path.write_text(f"{LOCK_MARKER} {dead}\n")
    assert lock_owner(str(lock_path)) == int(dead) and not pid_alive(int(dead))
    with pytest.raises(FatalError, match="git ai-apply recover"):
        IndexLock(_index(base)).acquire()
    assert lock_path.read_text() == f"{LOCK_MARKER} {dead}\n"  # left as it was


def test_a_lock_git_made_has_no_owner(base: GitRepo, tmp_path):
    lock_path = base.root / ".git" / "index.lock"
    lock_path.write_bytes(b"")  # as git's own lock looks while it writes
    assert lock_owner(str(lock_path)) is None
    assert lock_owner(str(tmp_path / "missing.lock")) is None
    assert pid_alive(os.getpid())


def test_staged_entries_are_what_git_ls_files_then_lists(base: GitRepo):
    blob = base.git("hash-object", "-w", "--stdin", input=b"new\n").strip()
    final = {"c.txt": (0o100755, blob), "a.txt": None}
    stage_entries(_index(base), final)
    listed = _ls_files(base)
    assert listed["c.txt"] == (0o100755, blob) and "a.txt" not in listed
    assert "src/b.txt" in listed
    assert index_holds(_index(base), final)
    assert not index_holds(_index(base), {"a.txt": (0o100644, blob)})
    assert not (base.root / ".git" / "index.lock").exists()
    # staged only: a.txt still on disk (untracked now), c.txt not written there
    assert base.git("status", "--porcelain").splitlines() == ["D  a.txt", "AD c.txt", "?? a.txt"]


def test_tree_of_index_is_git_write_tree(base: GitRepo):
    blob = base.git("hash-object", "-w", "--stdin", input=b"more\n").strip()
    stage_entries(_index(base), {"d/e.txt": (0o100644, blob)})
    r = pygit2.Repository(str(base.root))
    assert str(tree_of_index(r, _index(base))) == base.git("write-tree").strip()


def test_entries_hold_reads_an_index_or_a_tree_alike(base: GitRepo):
    r = pygit2.Repository(str(base.root))
    tree = r.revparse_single("HEAD").tree
    listed = _ls_files(base)
    final = {p: [mode, oid] for p, (mode, oid) in listed.items()}
    assert entries_hold(tree, final) and entries_hold(read_index(_index(base)), final)
    assert entries_hold(tree, {"gone.txt": None})
    assert not entries_hold(tree, {"a.txt": None})
    assert not entries_hold(tree, {"a.txt": [0o100755, listed["a.txt"][1]]})  # the mode counts


def test_a_read_ahead_recorded_but_never_started_is_read_in_place(base: GitRepo, monkeypatch):
    # a Ctrl-C (KeyboardInterrupt) or a failing start between recording the read-ahead
    # thread and starting it: read() reads the index itself, never joins a thread that
    # never ran (RuntimeError), and release() then frees the lock
    import threading

    lock = IndexLock(_index(base))
    lock.acquire()
    try:
        def interrupted(self):
            raise KeyboardInterrupt

        monkeypatch.setattr(threading.Thread, "start", interrupted)
        with pytest.raises(KeyboardInterrupt):
            lock.read_ahead()
        monkeypatch.undo()
        index = lock.read()
        assert {e.path for e in index} == set(_ls_files(base))
    finally:
        lock.release()
    assert not (base.root / ".git" / "index.lock").exists()


def test_release_frees_the_lock_whatever_the_read_ahead_did(base: GitRepo, monkeypatch):
    import threading

    lock = IndexLock(_index(base))
    lock.acquire()

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", interrupted)
    with pytest.raises(KeyboardInterrupt):
        lock.read_ahead()
    monkeypatch.undo()
    monkeypatch.setattr(lock, "cache", None)
    monkeypatch.setattr(IndexLock, "_join_ahead", lambda self: 1 / 0)  # any failure there
    with pytest.raises(ZeroDivisionError):
        lock.release()
    assert not lock.held and not (base.root / ".git" / "index.lock").exists()
    assert [n for n in os.listdir(base.root / ".git") if "ai-apply" in n] == []



def test_no_read_ahead_thread_while_the_warm_index_is_the_file(base: GitRepo):
    # a Session's warm index answers read() at once: no thread to start and join; once
    # another git process rewrote the index, the read ahead runs again, and read() gives
    # what git wrote
    from git_aiapply.doors.warm_index import IndexCache

    cache = IndexCache()
    cache.give_back(_index(base), read_index(_index(base)))
    lock = IndexLock(_index(base), cache=cache)
    lock.acquire()
    try:
        lock.read_ahead()
        assert lock._ahead is None
        assert {e.path for e in lock.read()} == set(_ls_files(base))
    finally:
        lock.release()
    cache.give_back(_index(base), read_index(_index(base)))
    base.write("c.txt", "gamma\n")
    base.git("add", "c.txt")
    lock = IndexLock(_index(base), cache=cache)
    lock.acquire()
    try:
        lock.read_ahead()
        assert lock._ahead is not None
        assert "c.txt" in {e.path for e in lock.read()}
    finally:
        lock.release()
