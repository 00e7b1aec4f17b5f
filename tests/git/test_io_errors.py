"""Issue 24, item 3: a full disk, a read-only file system and a read-only object store
are `fatal:` errors naming the real cause (exit 128), with nothing changed and nothing
left behind (no empty index.lock), in the plain command and with --branch alike.

The repositories live on a small tmpfs mounted by the test (root and a working `mount`
needed; skipped with the reason otherwise) and unmounted after.
"""
from __future__ import annotations

import os
import subprocess

import pytest

from conftest import init_repo, make_env
from test_crash_safety import state, stray_files

RESPONSE = """Rework.

<FILE_CHANGES>
<FILE_PATCH file_path="src/a.txt">
@@
 one
-two
+TWO
</FILE_PATCH>
<FILE_NEW file_path="new/n.txt">
""" + "brand new line\n" * 600 + """</FILE_NEW>
<FILE_DELETE file_path="gone.txt" />
</FILE_CHANGES>
"""

PAGE = 4096


def _mount(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["mount", *args], capture_output=True, text=True)


@pytest.fixture
def small_fs(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "fs"
    mnt.mkdir()
    r = _mount("-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt))
    if r.returncode != 0:
        pytest.skip(f"this machine does not allow mounting a tmpfs: {r.stderr.strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def _repo_on(fs, tmp_path):
    repo = init_repo(fs / "repo", make_env(tmp_path / "home"))
    repo.write("src/a.txt", "one\ntwo\n")
    repo.write("gone.txt", "bye\n")
    repo.write("staged.txt", "base\n")
    repo.commit_all()
    repo.write("staged.txt", "staged\n")
    repo.git("add", "staged.txt")
    repo.write("untracked.txt", "mine\n")
    repo.settle()
    response = tmp_path / "response.md"  # off the small file system
    response.write_text(RESPONSE)
    return repo, str(response)


def _fill(fs, leave_pages: int):
    """Fill ``fs`` up to ``leave_pages`` free pages; returns the filler's path."""
    filler = fs / "filler"
    free = os.statvfs(fs).f_bavail * os.statvfs(fs).f_frsize
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, free - leave_pages * PAGE))
    return filler


def _leftovers(repo) -> list[str]:
    out = stray_files(repo)
    for dirpath, _, names in os.walk(repo.root / ".git" / "objects"):
        out += [n for n in names if n.startswith("tmp")]
    return out


@pytest.mark.parametrize("branch", [False, True], ids=["plain", "branch"])
def test_full_disk_at_every_point_is_fatal_and_changes_nothing(small_fs, tmp_path, branch):
    """The free space grows page by page, so each run stops at a later write (the lock,
    the objects, the journal, the files, the index), until one succeeds."""
    repo, response = _repo_on(small_fs, tmp_path)
    args = ["--branch", "attempt"] if branch else []
    before = state(repo)  # the index's entries: a rollback leaves new stat data
    failures = 0
    for pages in range(0, 40):
        filler = _fill(small_fs, pages)
        r = repo.run(*args, response)
        filler.unlink()
        if r.returncode == 0:
            break
        failures += 1
        assert r.returncode == 128, (pages, r.out + r.err)
        assert r.err.startswith("fatal: ") and "No space left on device" in r.err, r.err
        assert "internal error" not in r.err and "another git process" not in r.err
        assert state(repo) == before, pages
        assert _leftovers(repo) == [], pages
    else:
        pytest.fail("never succeeded with 40 free pages")
    assert failures >= 3  # the loop did reach several write points
    if branch:
        assert repo.git("show", "attempt:src/a.txt") == "one\nTWO\n"
        assert state(repo)["files"] == before["files"]
    else:
        assert repo.read("src/a.txt") == b"one\nTWO\n"
    assert _leftovers(repo) == []


@pytest.mark.parametrize("branch", [False, True], ids=["plain", "branch"])
def test_read_only_file_system_is_fatal(small_fs, tmp_path, branch):
    repo, response = _repo_on(small_fs, tmp_path)
    before = repo.snapshot()
    r = _mount("-o", "remount,ro", str(small_fs))
    if r.returncode != 0:
        pytest.skip(f"cannot remount the tmpfs read-only: {r.stderr.strip()}")
    try:
        out = repo.run(*(["--branch", "attempt"] if branch else []), response)
    finally:
        _mount("-o", "remount,rw", str(small_fs))
    assert out.returncode == 128, out.out + out.err
    assert out.err.startswith("fatal: ") and "Read-only file system" in out.err, out.err
    assert repo.snapshot() == before
    assert _leftovers(repo) == []


@pytest.mark.parametrize("branch", [False, True], ids=["plain", "branch"])
def test_read_only_object_store_is_fatal(small_fs, tmp_path, branch):
    repo, response = _repo_on(small_fs, tmp_path)
    before = repo.snapshot()
    objects = str(repo.root / ".git" / "objects")
    r = _mount("--bind", objects, objects)
    if r.returncode != 0:
        pytest.skip(f"cannot bind-mount the object store: {r.stderr.strip()}")
    try:
        r = _mount("-o", "remount,bind,ro", objects)
        if r.returncode != 0:
            pytest.skip(f"cannot make a bind mount read-only: {r.stderr.strip()}")
        out = repo.run(*(["--branch", "attempt"] if branch else []), response)
    finally:
        subprocess.run(["umount", objects], capture_output=True)
    assert out.returncode == 128, out.out + out.err
    assert out.err.startswith("fatal: ") and "Read-only file system" in out.err, out.err
    assert repo.snapshot() == before
    assert _leftovers(repo) == []


def test_recover_on_a_full_disk_puts_back_the_kept_files(small_fs, tmp_path):
    """A kill mid-write, then the disk fills up: `recover` still puts every file back,
    renaming back the hard links the run kept (no space needed) with their exact mode."""
    import signal

    repo, response = _repo_on(small_fs, tmp_path)
    os.chmod(repo.root / "src/a.txt", 0o600)
    before = state(repo)
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:worktree-write:2")
    assert repo.run(response, env=env).returncode == -signal.SIGKILL
    filler = _fill(small_fs, 0)
    try:
        rec = repo.run("recover")
    finally:
        filler.unlink()
    assert rec.returncode == 0, rec.out + rec.err
    assert state(repo) == before
    assert os.stat(repo.root / "src/a.txt").st_mode & 0o7777 == 0o600
    assert _leftovers(repo) == []
