"""Issue 24, the git edge (second pass), the transaction's side: new files through a
temporary file, temporary names that fit any file name, exact modes after a rollback,
and `recover` after a kill in each of those windows.

Fault steps used here (git/faults.py): ``worktree-temp`` is passed once a file's bytes are
in its temporary file and before it is put in place (new files and replaced files alike).
"""
from __future__ import annotations

import os
import signal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from test_crash_safety import assert_fsck_clean, stray_files

NAME_MAX = 255


# --------------------------------------------------------------------------- pure


@settings(max_examples=150, deadline=None)
@given(hs.lists(hs.text(hs.characters(blacklist_characters="/\0", blacklist_categories=("Cs",)),
                        min_size=1, max_size=255), min_size=1, max_size=4),
       hs.integers(1, 2**22), hs.sampled_from(["tmp", "restore"]))
def test_temp_names_fit_any_file_name_and_stay_in_the_folder(parts, pid, kind):
    from git_aiapply.git.journal import temp_name

    path = "/".join(parts)
    name = temp_name(path, pid, kind)
    assert os.path.dirname(name) == os.path.dirname(path)
    assert len(os.fsencode(os.path.basename(name))) <= 64 < NAME_MAX
    assert name != path
    assert f".ai-apply-{pid}-" in name and name.endswith("." + kind)


def test_temp_names_differ_per_path_and_per_process():
    from git_aiapply.git.journal import temp_name

    names = {temp_name(f"dir/{c}" * 3, 7, "tmp") for c in "abcdefghij"}
    assert len(names) == 10
    assert temp_name("a.txt", 7, "tmp") != temp_name("a.txt", 8, "tmp")
    assert temp_name("a.txt", 7, "tmp") != temp_name("a.txt", 7, "restore")


# --------------------------------------------------------------------------- the command

LONG = "l" * 250 + ".txt"  # 254 bytes: no room for any suffix


def _edit(path: str, old: str, new: str) -> str:
    return (f"Change {path[:10]}.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{path}\">\n"
            f"@@\n-{old}\n+{new}\n</FILE_PATCH>\n</FILE_CHANGES>\n")


def _failing_hook(repo) -> None:
    repo.write(".git/hooks/pre-commit", "#!/bin/sh\necho refused by hook >&2\nexit 1\n",
               mode=0o755)


@pytest.mark.parametrize("name", [LONG, "ü" * 127 + ".c"], ids=["ascii-254", "utf8-256"])
@pytest.mark.parametrize("how", ["edit", "delete"])
def test_long_name_keeps_uncommitted_work_on_rollback(repo, name, how):
    """Known bug "loses work on long file names": the restore name of a 254-byte name
    was too long, so a rollback could not put the user's work back."""
    if len(os.fsencode(name)) > NAME_MAX:
        name = name[1:]  # 'ü' is two bytes: 126 of them and ".c" make 254
    repo.write(name, "one\ntwo\n")
    repo.commit_all()
    repo.write(name, "one\ntwo\nmy uncommitted line\n")
    _failing_hook(repo)
    before = repo.snapshot()
    response = _edit(name, "two", "TWO") if how == "edit" else (
        f"Drop it.\n\n<FILE_CHANGES>\n<FILE_DELETE file_path=\"{name}\" />\n</FILE_CHANGES>\n")
    r = repo.run("--include-dirty", response=response)
    assert r.returncode == 1 and "pre-commit" in r.err, r.err
    assert "could not be restored" not in r.err
    assert repo.snapshot() == before
    assert stray_files(repo) == []


def test_long_names_edit_delete_and_create(repo):
    other = "d" * 251 + ".txt"
    new = "n" * 251 + ".txt"
    repo.write(LONG, "one\ntwo\n")
    repo.write(other, "bye\n")
    repo.commit_all()
    response = (f"Several.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{LONG}\">\n@@\n-two\n+TWO\n"
                f"</FILE_PATCH>\n<FILE_DELETE file_path=\"{other}\" />\n"
                f"<FILE_NEW file_path=\"{new}\">\nhello\n</FILE_NEW>\n</FILE_CHANGES>\n")
    r = repo.run(response=response)
    assert r.returncode == 0, r.err
    assert repo.read(LONG) == b"one\nTWO\n" and repo.read(new) == b"hello\n"
    assert not (repo.root / other).exists()
    assert stray_files(repo) == []


@pytest.mark.parametrize("fault", ["worktree-temp:1", "worktree-write:1"])
def test_kill_on_a_long_name_is_recovered(repo, fault):
    repo.write(LONG, "one\ntwo\n")
    repo.commit_all()
    repo.write("untracked.txt", "mine\n")
    before = repo.snapshot()
    env = dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{fault}")
    assert repo.run(response=_edit(LONG, "two", "TWO"), env=env).returncode == -signal.SIGKILL
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert repo.snapshot() == before
    assert stray_files(repo) == []


NEW_FILES = ("Add two files.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"fresh/deep/a.txt\">\n"
             + "a\n" * 2000 + "</FILE_NEW>\n<FILE_NEW file_path=\"b.txt\">\nb\n</FILE_NEW>\n"
             "</FILE_CHANGES>\n")


@pytest.mark.parametrize("fault", ["worktree-temp:1", "worktree-temp:2", "worktree-write:1"])
def test_kill_while_new_files_are_written_is_recovered(repo, fault):
    """A kill while a new file is written left a half file that `recover` refused
    ("holds neither"); new files now go through a temporary file too."""
    repo.write("base.txt", "base\n")
    repo.commit_all()
    before = repo.snapshot()
    env = dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{fault}")
    assert repo.run(response=NEW_FILES, env=env).returncode == -signal.SIGKILL
    # never a half file under the final name
    for p in ("fresh/deep/a.txt", "b.txt"):
        full = repo.root / p
        assert not full.exists() or full.read_bytes() in (b"a\n" * 2000, b"b\n")
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert repo.snapshot() == before
    assert stray_files(repo) == []
    assert_fsck_clean(repo)
    assert repo.run(response=NEW_FILES).returncode == 0


def test_new_file_never_replaces_a_file_that_appeared(repo, monkeypatch):
    """The final name must not exist when the new file is put in place (pure: the
    writer itself, with a file appearing between planning and writing)."""
    from git_aiapply.errors import ApplyError
    from git_aiapply.git.repo import Repo
    from git_aiapply.git.worktree_files import WorktreeWriter
    from git_aiapply.plan.plan import MODE_FILE, FileState

    repo.write("base.txt", "base\n")
    repo.commit_all()
    writer = WorktreeWriter(Repo(str(repo.root)))
    real_link = os.link

    def link_after_someone_wrote(src, dst, **kw):
        with open(dst, "wb") as f:
            f.write(b"someone else's\n")
        return real_link(src, dst, **kw)

    monkeypatch.setattr(os, "link", link_after_someone_wrote)
    with pytest.raises(ApplyError, match="appeared"):
        writer.write("x.txt", FileState(MODE_FILE, b"ours\n"))
    assert repo.read("x.txt") == b"someone else's\n"
    assert [n for n in os.listdir(repo.root) if "ai-apply" in n] == []
    assert writer.rollback() == ([], [])
    assert repo.read("x.txt") == b"someone else's\n"  # not ours: never removed


# --------------------------------------------------------------------------- modes


@pytest.mark.parametrize("perm", [0o600, 0o755, 0o640])
def test_refused_run_restores_the_exact_mode(repo, perm):
    repo.write("secret.txt", "one\ntwo\n", mode=perm)
    repo.write("gone.txt", "bye\n", mode=perm)
    repo.commit_all()
    _failing_hook(repo)
    before = repo.snapshot()
    response = ("Edit.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"secret.txt\">\n@@\n-two\n+TWO\n"
                "</FILE_PATCH>\n<FILE_DELETE file_path=\"gone.txt\" />\n</FILE_CHANGES>\n")
    r = repo.run(response=response)
    assert r.returncode == 1, r.err
    assert repo.snapshot() == before  # modes are in the snapshot
    assert os.stat(repo.root / "secret.txt").st_mode & 0o7777 == perm
    assert os.stat(repo.root / "gone.txt").st_mode & 0o7777 == perm


@pytest.mark.parametrize("perm", [0o600, 0o755])
def test_recover_restores_the_exact_mode(repo, perm):
    repo.write("secret.txt", "one\ntwo\n", mode=perm)
    repo.commit_all()
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:index-stage")
    assert repo.run(response=_edit("secret.txt", "two", "TWO"), env=env).returncode == -signal.SIGKILL
    assert repo.run("recover").returncode == 0
    assert os.stat(repo.root / "secret.txt").st_mode & 0o7777 == perm
    assert repo.read("secret.txt") == b"one\ntwo\n"


# --------------------------------------------------------------------------- --json


_STATES = hs.sampled_from([None, b"one\n", b"two\n"])
_ACTIONS = hs.sampled_from(["add", "update", "delete"])


@settings(max_examples=150, deadline=None)
@given(_STATES, _STATES, _ACTIONS)
def test_reported_action_follows_the_net_change(old, new, action):
    """--json's action for a path is what happened to it overall (as git's diff sees
    it), whatever sequence of directives got there: a delete then a new file is an
    update, never "delete" for a file that exists afterwards."""
    from git_aiapply.run.pipeline import net_changes
    from git_aiapply.plan.plan import MODE_FILE, FileChange, FileState, Plan

    st = {None: None, **{b: FileState(MODE_FILE, b) for b in (b"one\n", b"two\n")}}
    plan = Plan({"a.txt": st[new]}, {"a.txt": st[old]}, [], [FileChange("a.txt", action, None, 1, 1)])
    out, _renames = net_changes(plan)
    if old == new and old is not None:
        assert out == []  # written back as it was
        return
    if old is None and new is None:
        return  # nothing there before or after: not a plan the planner makes
    want = "add" if old is None else "delete" if new is None else "update"
    assert [c.action for c in out] == [want]


def test_json_reports_a_replaced_file_as_updated(repo):
    import json

    repo.write("a.txt", "one\n")
    repo.commit_all()
    response = ("Replace a.\n\n<FILE_CHANGES>\n<FILE_DELETE file_path=\"a.txt\" />\n"
                "<FILE_NEW file_path=\"a.txt\">\ntwo\n</FILE_NEW>\n</FILE_CHANGES>\n")
    r = repo.run("--json", response=response)
    assert r.returncode == 0, r.err
    files = json.loads(r.out)["files"]
    assert [(f["path"], f["action"], f["added"], f["removed"]) for f in files] == \
        [("a.txt", "update", 1, 1)]
    assert repo.read("a.txt") == b"two\n"


# --------------------------------------------------------------------------- index.lock


def test_index_lock_is_never_left_empty_on_a_full_disk(tmp_path, monkeypatch):
    """ENOSPC while the owner line is written: no index.lock (an empty one nobody could
    tell as ours), no temporary file, and the cause named."""
    import errno

    from git_aiapply.errors import FatalError
    from git_aiapply.git.index import IndexLock

    index = tmp_path / "index"
    index.write_bytes(b"")

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(FatalError, match="No space left on device") as e:
        IndexLock(str(index)).acquire()
    assert e.value.exit_code == 128
    assert sorted(os.listdir(tmp_path)) == ["index"]


def test_index_lock_taken_whole_and_released(tmp_path):
    from git_aiapply.git.index import IndexLock, lock_owner

    index = tmp_path / "index"
    index.write_bytes(b"")
    lock = IndexLock(str(index))
    lock.acquire()
    assert lock_owner(str(tmp_path / "index.lock")) == os.getpid()
    assert sorted(os.listdir(tmp_path)) == ["index", "index.lock"]
    lock.release()
    assert sorted(os.listdir(tmp_path)) == ["index"]


def test_kill_while_the_lock_is_taken_is_cleaned_by_recover(repo):
    repo.write("a.txt", "one\ntwo\n")
    repo.commit_all()
    before = repo.snapshot()
    env = dict(repo.env, GIT_AI_APPLY_FAULT="kill:index-lock")
    assert repo.run(response=_edit("a.txt", "two", "TWO"), env=env).returncode == -signal.SIGKILL
    assert not (repo.root / ".git" / "index.lock").exists()
    rec = repo.run("recover")
    assert rec.returncode == 0 and "index.lock.ai-apply-" in rec.out, rec.out + rec.err
    assert repo.snapshot() == before
    assert stray_files(repo) == []
    assert repo.run(response=_edit("a.txt", "two", "TWO")).returncode == 0


def test_the_current_branch_checked_out_in_another_worktree_too_is_not_moved(repo, tmp_path):
    """Issue 33 item 5: a commit onto the current branch asks, at the ref update, whether
    another worktree uses the branch (here checked out there with --force): refused,
    everything rolled back; the run's own checkout of it is no use by another."""
    repo.write("a.txt", "a\n")
    head = repo.commit_all("base")
    resp = '<FILE_CHANGES>\n<FILE_PATCH file_path="a.txt">\n@@\n-a\n+b\n</FILE_PATCH>\n</FILE_CHANGES>\n'
    repo.git("worktree", "add", "-q", "-f", str(tmp_path / "linked"), "main")
    before = repo.snapshot()
    r = repo.run(response=resp)
    assert r.returncode == 128, r.out + r.err
    assert f"cannot update branch 'main': it is checked out in {tmp_path / 'linked'}" in r.err
    assert repo.snapshot() == before and repo.head() == head
    repo.git("worktree", "remove", str(tmp_path / "linked"))
    assert repo.run(response=resp).returncode == 0
    assert repo.read("a.txt") == b"b\n"
