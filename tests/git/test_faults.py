"""git/faults.py: GIT_AI_APPLY_FAULT=ACTION:STEP[:N] failing (OSError) or killing the
process at the N-th pass through a step and at no other, nothing at all when unset, and
remove_file's "if it exists"."""
from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys

import pytest

from git_aiapply.git import faults
from git_aiapply.git.faults import fault, remove_file


@pytest.fixture
def armed(monkeypatch):
    """``armed(spec)``: the fault ``spec`` as if GIT_AI_APPLY_FAULT had been set at import."""
    def arm(spec: str | None) -> None:
        monkeypatch.setattr(faults, "_FAULT", spec)
        monkeypatch.setattr(faults, "_FAULT_SEEN", {})
    return arm


def test_unset_no_step_ever_fails(armed):
    armed(None)
    for _ in range(3):
        assert fault("commit") is None
    assert faults._FAULT_SEEN == {}  # not even counted


def test_fail_raises_an_io_error_at_the_first_pass_by_default(armed):
    armed("fail:commit")
    fault("hooks")  # another step passes
    with pytest.raises(OSError) as e:
        fault("commit")
    assert e.value.errno == errno.EIO and "injected fault at commit" in str(e.value)
    fault("commit")  # once only
    fault("commit")


def test_fail_at_the_nth_pass_only(armed):
    armed("fail:tree-write:3")
    fault("tree-write")
    fault("tree-write")
    for _ in range(5):
        fault("tree-write-2")  # a step whose name starts alike is another step
    with pytest.raises(OSError, match="injected fault at tree-write"):
        fault("tree-write")
    fault("tree-write")


def test_kill_sigkills_the_process_there_read_from_the_environment_at_import():
    code = ("import sys; from git_aiapply.git.faults import fault\n"
            "fault('before'); print('one', flush=True)\n"
            "fault('here'); print('two', flush=True)\n"
            "fault('here'); print('three', flush=True)\n")
    env = dict(os.environ, GIT_AI_APPLY_FAULT="kill:here:2")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert r.returncode == -signal.SIGKILL
    assert r.stdout == "one\ntwo\n"
    env.pop("GIT_AI_APPLY_FAULT")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert (r.returncode, r.stdout) == (0, "one\ntwo\nthree\n")


def test_remove_file_removes_if_it_exists_and_only_a_file(tmp_path):
    f = tmp_path / "stale.tmp"
    f.write_bytes(b"x")
    remove_file(str(f))
    assert not f.exists()
    remove_file(str(f))  # gone already: nothing to do
    link = tmp_path / "link"
    os.symlink(tmp_path / "target", link)  # a dangling link is removed, never followed
    remove_file(str(link))
    assert not os.path.lexists(link)
    folder = tmp_path / "folder"
    folder.mkdir()
    with pytest.raises(OSError):  # any other failure is the caller's to see
        remove_file(str(folder))
    assert folder.is_dir()
