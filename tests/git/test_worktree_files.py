"""git/worktree_files.py on real files: a new file never over an existing one nor through a
link, every byte written and the descriptor closed, permission bits read and put back
exactly (or as git would make the file), a file restored in one rename with no temporary
left behind, even when the restore fails."""
from __future__ import annotations

import errno
import os
import stat

import pytest

from conftest import GitRepo
from git_aiapply.git import faults
from git_aiapply.git.worktree_files import git_perm, open_new, perm_of, restore_file, write_all
from git_aiapply.plan.plan import MODE_EXEC, MODE_FILE, MODE_LINK, FileState


def _mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_a_new_file_is_made_with_gits_permissions_and_all_its_bytes(tmp_path):
    data = os.urandom(3 * 1024 * 1024 + 7)  # more than one write() may take at once
    for name, mode in (("plain", MODE_FILE), ("script", MODE_EXEC)):
        fd = open_new(str(tmp_path / name), mode)
        write_all(fd, data)
        with pytest.raises(OSError) as e:  # closed by write_all
            os.fstat(fd)
        assert e.value.errno == errno.EBADF
        assert (tmp_path / name).read_bytes() == data
        assert _mode(tmp_path / name) == git_perm(mode == MODE_EXEC)


def test_a_new_file_is_never_written_over_a_file_or_through_a_link(tmp_path):
    there = tmp_path / "there"
    there.write_bytes(b"mine\n")
    with pytest.raises(FileExistsError):
        open_new(str(there), MODE_FILE)
    target = tmp_path / "target"
    link = tmp_path / "link"
    os.symlink(target, link)  # dangling: O_CREAT alone would make the target
    with pytest.raises(FileExistsError):
        open_new(str(link), MODE_FILE)
    assert there.read_bytes() == b"mine\n" and not target.exists()


def test_write_all_closes_the_descriptor_when_the_write_fails(tmp_path):
    (tmp_path / "f").write_bytes(b"")
    fd = os.open(tmp_path / "f", os.O_RDONLY)
    with pytest.raises(OSError):
        write_all(fd, b"data")
    with pytest.raises(OSError) as e:
        os.fstat(fd)
    assert e.value.errno == errno.EBADF


def test_perm_of_is_a_regular_files_bits_only(tmp_path):
    f = tmp_path / "f"
    f.write_bytes(b"x")
    os.chmod(f, 0o640)
    assert perm_of(str(f)) == 0o640
    os.symlink("f", tmp_path / "link")
    assert perm_of(str(tmp_path / "link")) is None  # never followed
    assert perm_of(str(tmp_path)) is None and perm_of(str(tmp_path / "nothing")) is None


def test_git_perm_is_what_git_gives_a_file_it_writes(repo: GitRepo):
    repo.write("plain.txt", "p\n")
    repo.write("run.sh", "#!/bin/sh\n", mode=0o755)
    repo.commit_all()
    for name in ("plain.txt", "run.sh"):
        os.unlink(repo.root / name)
    repo.git("checkout", "--", ".")  # git writes them again, under this process's umask
    assert _mode(repo.root / "plain.txt") == git_perm(False)
    assert _mode(repo.root / "run.sh") == git_perm(True)


def test_restore_puts_back_each_kind_of_file_as_git_tracks_it(repo: GitRepo):
    repo.write("a.txt", "alpha\r\n\x00bytes\n")
    repo.write("bin/run.sh", "#!/bin/sh\n", mode=0o755)
    os.symlink("a.txt", repo.root / "link")
    repo.commit_all()
    committed = repo.tree()
    repo.write("a.txt", "changed\n")  # replaced
    (repo.root / "bin" / "run.sh").unlink()  # gone, and its folder
    (repo.root / "bin").rmdir()
    (repo.root / "link").unlink()
    for path in ("a.txt", "bin/run.sh", "link"):
        mode, data = committed[path]
        restore_file(str(repo.root), path, FileState(int(mode, 8), data))
    assert repo.git("status", "--porcelain") == ""  # git sees each as committed
    assert os.readlink(repo.root / "link") == "a.txt"
    assert _mode(repo.root / "bin" / "run.sh") == git_perm(True)
    assert sorted(os.listdir(repo.root)) == [".git", "a.txt", "bin", "link"]  # no temporary


def test_restore_keeps_the_permission_bits_it_is_given_unless_they_contradict(tmp_path):
    restore_file(str(tmp_path), "f", FileState(MODE_FILE, b"x\n"), perm=0o600)
    assert _mode(tmp_path / "f") == 0o600  # exactly as the file was
    restore_file(str(tmp_path), "g", FileState(MODE_FILE, b"x\n"), perm=0o750)
    assert _mode(tmp_path / "g") == git_perm(False)  # executable bits for a plain file: git's
    restore_file(str(tmp_path), "h", FileState(MODE_EXEC, b"x\n"), perm=0o700)
    assert _mode(tmp_path / "h") == 0o700
    restore_file(str(tmp_path), "h", FileState(MODE_LINK, b"f"))  # over a file: a link now
    assert os.readlink(tmp_path / "h") == "f"


def test_a_restore_that_fails_leaves_the_file_and_no_temporary(tmp_path, monkeypatch):
    monkeypatch.setattr(faults, "_FAULT", "fail:restore-temp")  # GIT_AI_APPLY_FAULT
    monkeypatch.setattr(faults, "_FAULT_SEEN", {})
    (tmp_path / "f").write_bytes(b"on disk\n")
    with pytest.raises(OSError, match="injected fault at restore-temp"):
        restore_file(str(tmp_path), "f", FileState(MODE_FILE, b"restored\n"), pid=4242)
    assert (tmp_path / "f").read_bytes() == b"on disk\n"
    assert os.listdir(tmp_path) == ["f"]
