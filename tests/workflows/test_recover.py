"""`git ai-apply recover` removes only what the interrupted run owned, and brings every
command that writes the worktree (apply, `pick`, `undo`) back to wholly before or wholly
after, in CRLF checkouts too.

Faults are injected as in test_crash_safety.py (GIT_AI_APPLY_FAULT=kill:STEP[:N], see
git.py ``_fault``); the expected states come from twin repositories run without faults
(fixed dates make the commit ids equal).
"""
from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from conftest import GitRepo, init_repo, make_env
from test_crash_safety import FIXED_DATES, RESPONSE, STEPS, assert_fsck_clean, setup_repo, state, stray_files

LOCK = os.path.join(".git", "index.lock")


def twin(tmp_path_factory, prepare) -> GitRepo:
    root = tmp_path_factory.mktemp("twin") / "repo"
    t = init_repo(root, make_env(tmp_path_factory.mktemp("home")))
    prepare(t)
    return t


def killed(repo: GitRepo, fault: str, *args: str, response: str | None = None):
    env = dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{fault}")
    r = repo.run(*args, response=response, env=env)
    assert r.returncode == -signal.SIGKILL, (fault, r.returncode, r.out, r.err)
    return r


def recovered(repo: GitRepo) -> None:
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    assert stray_files(repo) == []
    assert_fsck_clean(repo)
    again = repo.run("recover")
    assert again.returncode == 0 and "nothing to recover" in again.out


def user_work_intact(repo: GitRepo) -> None:
    assert repo.git("diff", "--cached", "--name-only").strip() == "staged.txt"
    assert repo.read("unstaged.txt").replace(b"\r\n", b"\n") == b"unstaged change\n"
    assert repo.read("untracked.txt") == b"untracked\n"


# --------------------------------------------------------------------------- only our own lock


def test_recover_never_removes_the_lock_of_a_running_git_commit(repo: GitRepo, tmp_path):
    """Regression: with a journal left by a killed run, recover deleted the index.lock
    that a running `git commit` held."""
    setup_repo(repo)
    killed(repo, "journal", response=RESPONSE)
    # the user removes the stale lock by hand (as git's message suggests) and commits
    os.unlink(repo.root / LOCK)
    flag = tmp_path / "go"
    editing = tmp_path / "editing"
    editor = tmp_path / "editor.sh"
    # git runs the editor once index.lock is written in full (it holds it until the end):
    # waiting for the lock file to exist could read it while git was still writing it
    editor.write_text(f"#!/bin/sh\ntouch '{editing}'\n"
                      f"while [ ! -e '{flag}' ]; do sleep 0.05; done\n"
                      "echo 'my commit' > \"$1\"\n")
    editor.chmod(0o755)
    commit = subprocess.Popen(["git", "commit", "-q", "-a"], cwd=repo.root,
                              env=dict(repo.env, GIT_EDITOR=str(editor)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for _ in range(2400):  # until git is in the editor: a hang guard, no timing asserted
            if editing.exists() or commit.poll() is not None:
                break
            time.sleep(0.05)
        assert editing.exists(), commit.communicate()
        assert (repo.root / LOCK).exists()
        held = (repo.root / LOCK).read_bytes()
        before = repo.snapshot()
        r = repo.run("recover")
        assert r.returncode == 128, r.out + r.err
        assert r.err.startswith("fatal: ") and "index.lock is held by" in r.err
        assert "not by the interrupted git ai-apply" in r.err
        assert (repo.root / LOCK).read_bytes() == held
        assert repo.snapshot() == before
    finally:
        flag.write_text("")
        out, err = commit.communicate(timeout=60)
    assert commit.returncode == 0, err
    assert repo.git("log", "-1", "--format=%s").strip() == "my commit"


def test_recover_names_a_running_ai_apply_that_holds_the_lock(repo: GitRepo):
    setup_repo(repo)
    killed(repo, "journal", response=RESPONSE)
    os.unlink(repo.root / LOCK)
    # another git ai-apply, alive, took the lock since
    other = subprocess.Popen(["bash", "-c", "exec -a git-ai-apply sleep 60"])
    try:
        (repo.root / LOCK).write_text(f"git-ai-apply lock held by pid {other.pid}\n")
        before = repo.snapshot()
        r = repo.run("recover")
        assert r.returncode == 128
        assert f"git ai-apply (pid {other.pid}), still running" in r.err
        assert repo.snapshot() == before
    finally:
        other.kill()
        other.wait()


def test_a_foreign_lock_found_in_every_state_stops_recover(repo: GitRepo):
    """Before or after the branch moved: a lock that is not the run's own is never
    installed over the index nor dropped."""
    setup_repo(repo)
    killed(repo, "ref-update", response=RESPONSE)  # committed; our staged index is the lock
    ours = (repo.root / LOCK).read_bytes()
    (repo.root / LOCK).write_bytes(ours[:-1] + bytes([ours[-1] ^ 1]))  # another writer's
    before = repo.snapshot()
    r = repo.run("recover")
    assert r.returncode == 128 and "index.lock is held by" in r.err
    assert repo.snapshot() == before
    (repo.root / LOCK).write_bytes(ours)  # the run's own again: recover finishes
    recovered(repo)


def test_recover_without_a_journal_leaves_a_foreign_lock_alone(repo: GitRepo):
    setup_repo(repo)
    (repo.root / LOCK).write_bytes(b"DIRC")
    r = repo.run("recover")
    assert r.returncode == 0 and "nothing to recover" in r.out
    assert (repo.root / LOCK).read_bytes() == b"DIRC"


def test_recover_still_running_is_fatal(repo: GitRepo):
    setup_repo(repo)
    other = subprocess.Popen(["bash", "-c", "exec -a git-ai-apply sleep 60"])
    try:
        (repo.root / ".git" / "AI_APPLY_JOURNAL").write_text(
            '{"pid": %d, "head": null, "paths": {}}' % other.pid)
        r = repo.run("recover")
        assert r.returncode == 128 and "still running" in r.err
        assert (repo.root / ".git" / "AI_APPLY_JOURNAL").exists()
    finally:
        other.kill()
        other.wait()
        os.unlink(repo.root / ".git" / "AI_APPLY_JOURNAL")


# --------------------------------------------------------------------------- pick


SECOND = """Shout the last line too.

<FILE_CHANGES>
<FILE_PATCH file_path="src/a.txt">
@@
 TWO
-three
+THREE
</FILE_PATCH>
</FILE_CHANGES>
"""


def setup_attempt(repo: GitRepo) -> None:
    """The crash-safety repository plus an attempt branch on HEAD: RESPONSE, then a
    second commit on top (a fast-forward pick brings both)."""
    setup_repo(repo)
    repo.settle()
    for response in (RESPONSE, SECOND):
        r = repo.run("--branch", "try/1", response=response)
        assert r.returncode == 0, r.err


PICK_FAULTS = [f"{step}:{n}" for step, count in STEPS for n in range(1, count + 1)]


@pytest.fixture(scope="module")
def pick_expected(tmp_path_factory):
    t = twin(tmp_path_factory, setup_attempt)
    before = state(t)
    r = t.run("pick", "try/1")
    assert r.returncode == 0, r.err
    return before, state(t)


@pytest.mark.parametrize("fault", PICK_FAULTS)
def test_sigkill_during_a_fast_forward_pick_is_recoverable(repo: GitRepo, fault, pick_expected,
                                                           copy_of):
    copy_of(repo, "attempt", setup_attempt)
    before, after = pick_expected
    assert state(repo) == before
    killed(repo, fault, "pick", "try/1")
    if stray_files(repo):
        # until recover ran, git itself is not blocked by an orphaned lock for long:
        # a normal run points at recover and changes nothing
        snap = repo.snapshot()
        again = repo.run("pick", "try/1")
        assert again.returncode != 0 and "recover" in again.err
        assert repo.snapshot() == snap
    recovered(repo)
    now = state(repo)
    assert now in (before, after), fault
    user_work_intact(repo)
    assert repo.run("pick", "try/1").returncode == 0
    assert state(repo) == after


def test_sigkill_during_a_pick_that_commits_anew_is_recoverable(repo: GitRepo, tmp_path):
    setup_attempt(repo)
    # HEAD moves on (the staged work stays staged)
    moved = repo.git("commit-tree", "-p", "HEAD", "-m", "HEAD moves on", "HEAD^{tree}").strip()
    repo.git("update-ref", "HEAD", moved)
    head = repo.head()
    for fault in ("worktree-write:2", "hooks", "ref-update"):
        killed(repo, fault, "pick", "try/1")
        recovered(repo)
        if repo.head() != head:
            assert repo.git("rev-parse", "HEAD~1").strip() == head
            assert repo.git("status", "--porcelain", "--", "src", "new", "moved") == ""
            repo.git("reset", "-q", "--hard", "HEAD~1")  # for the next fault
            repo.write("unstaged.txt", "unstaged change\n")
            repo.write("staged.txt", "staged change\n")
            repo.git("add", "staged.txt")
        user_work_intact(repo)


# --------------------------------------------------------------------------- undo

UNDO_STEPS = [
    ("journal", 1),
    ("worktree-delete", 2),  # new/deep/n.txt, moved/ren.txt
    ("worktree-write", 3),  # src/a.txt, old/del.txt, ren.txt
    ("index-stage", 1),
    ("ref-update", 1),
    ("index-install", 1),
]
UNDO_FAULTS = [f"{step}:{n}" for step, count in UNDO_STEPS for n in range(1, count + 1)]


def setup_applied(repo: GitRepo) -> None:
    repo.env.update(FIXED_DATES)
    repo.write("src/a.txt", "one\ntwo\nthree\n")
    repo.write("old/del.txt", "to be deleted\n")
    repo.write("ren.txt", "to be moved\n")
    repo.write("staged.txt", "staged base\n")
    repo.write("unstaged.txt", "unstaged base\n")
    repo.commit_all()
    r = repo.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    repo.write("staged.txt", "staged change\n")
    repo.git("add", "staged.txt")
    repo.write("unstaged.txt", "unstaged change\n")
    repo.write("untracked.txt", "untracked\n")
    repo.settle()


@pytest.fixture(scope="module")
def undo_expected(tmp_path_factory):
    t = twin(tmp_path_factory, setup_applied)
    before = state(t)
    r = t.run("undo")
    assert r.returncode == 0, r.err
    return before, state(t)


@pytest.mark.parametrize("fault", UNDO_FAULTS)
def test_sigkill_during_undo_is_recoverable(repo: GitRepo, fault, undo_expected, copy_of):
    copy_of(repo, "applied", setup_applied)
    before, after = undo_expected
    assert state(repo) == before
    killed(repo, fault, "undo")
    recovered(repo)
    now = state(repo)
    assert now in (before, after), fault
    user_work_intact(repo)
    if now == before:
        assert repo.run("undo").returncode == 0
    else:
        assert repo.git("rev-parse", "ORIG_HEAD").strip() == before["head"]
    assert state(repo) == after


@pytest.mark.parametrize("fault", ["worktree-write:2", "index-stage", "ref-update"])
def test_injected_failure_during_undo_changes_nothing(repo: GitRepo, fault):
    setup_applied(repo)
    snap = repo.snapshot()
    r = repo.run("undo", env=dict(repo.env, GIT_AI_APPLY_FAULT=f"fail:{fault}"))
    assert r.returncode != 0 and "injected fault" in r.err
    assert repo.snapshot() == snap
    assert stray_files(repo) == []
    # a failed undo (rolled back) does not stop the next one
    assert repo.run("undo").returncode == 0


# --------------------------------------------------------------------------- CRLF checkouts


def setup_crlf(repo: GitRepo, how: str) -> None:
    """setup_repo's files in a checkout whose files are CRLF on disk, LF in the blobs."""
    repo.env.update(FIXED_DATES)
    if how == "autocrlf":
        repo.git("config", "core.autocrlf", "true")
    else:
        repo.write(".gitattributes", "* text eol=crlf\n")
    for path, text in [("src/a.txt", "one\ntwo\nthree\n"), ("old/del.txt", "to be deleted\n"),
                       ("ren.txt", "to be moved\n"), ("staged.txt", "staged base\n"),
                       ("unstaged.txt", "unstaged base\n")]:
        repo.write(path, text.replace("\n", "\r\n"))
    repo.commit_all()
    assert repo.git("cat-file", "-p", "HEAD:src/a.txt") == "one\ntwo\nthree\n"
    repo.write("staged.txt", "staged change\r\n")
    repo.git("add", "staged.txt")
    repo.write("unstaged.txt", "unstaged change\r\n")
    repo.write("untracked.txt", "untracked\n")
    repo.settle()
    assert repo.git("status", "--porcelain") == "M  staged.txt\n M unstaged.txt\n?? untracked.txt\n"


CRLF_FAULTS = ["journal", "worktree-delete:1", "worktree-delete:2", "worktree-write:1",
               "worktree-write:2", "worktree-write:3", "index-stage", "hooks", "commit",
               "ref-update", "index-install"]


@pytest.fixture(scope="module", params=["autocrlf", "eol-attribute"])
def crlf(request, tmp_path_factory):
    how = request.param
    t = twin(tmp_path_factory, lambda r: setup_crlf(r, how))
    before = state(t)
    r = t.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    return how, before, state(t)


@pytest.mark.parametrize("fault", CRLF_FAULTS)
def test_sigkill_in_a_crlf_checkout_is_recoverable(repo: GitRepo, fault, crlf):
    """Regression: the journal recorded the LF blobs as the files' old content, so recover
    found every CRLF file "changed since" and could not repair anything."""
    how, before, after = crlf
    setup_crlf(repo, how)
    assert state(repo) == before
    killed(repo, fault, response=RESPONSE)
    recovered(repo)
    now = state(repo)
    assert now in (before, after), fault
    if now == before:  # the exact CRLF bytes are back
        assert repo.read("src/a.txt") == b"one\r\ntwo\r\nthree\r\n"
        assert repo.read("ren.txt") == b"to be moved\r\n"
    user_work_intact(repo)
    assert repo.run(response=RESPONSE).returncode == 0
    assert state(repo) == after


def test_sigkill_during_undo_in_a_crlf_checkout_goes_back_to_the_crlf_bytes(repo: GitRepo):
    setup_crlf(repo, "autocrlf")
    assert repo.run(response=RESPONSE).returncode == 0
    repo.settle()
    snap = state(repo)
    on_disk = repo.read("moved/ren.txt")
    killed(repo, "worktree-write:3", "undo")
    recovered(repo)
    assert state(repo) == snap
    assert repo.read("moved/ren.txt") == on_disk


# --------------------------------------------------------------------------- pick and undo in
# converted checkouts: every step of each command, the set-ups taking turns (a CRLF checkout
# by core.autocrlf, one by `* text eol=crlf`, and a clean/smudge filter)


def setup_converted(repo: GitRepo, how: str) -> None:
    """setup_crlf's repository, or with how == "filter" one whose .txt files pass through
    a smudge filter that quotes each line ("> ") and a clean filter that unquotes it."""
    if how != "filter":
        setup_crlf(repo, how)
        return
    repo.env.update(FIXED_DATES)
    repo.git("config", "filter.quote.smudge", "sed 's/^/> /'")
    repo.git("config", "filter.quote.clean", "sed 's/^> //'")
    repo.write(".gitattributes", "*.txt filter=quote\n")
    for path, text in [("src/a.txt", "one\ntwo\nthree\n"), ("old/del.txt", "to be deleted\n"),
                       ("ren.txt", "to be moved\n")]:
        repo.write(path, "".join(f"> {line}\n" for line in text.splitlines()))
    repo.write("staged.txt", "staged base\n")
    repo.write("unstaged.txt", "unstaged base\n")
    repo.commit_all()
    assert repo.git("cat-file", "-p", "HEAD:src/a.txt") == "one\ntwo\nthree\n"
    repo.write("staged.txt", "staged change\n")
    repo.git("add", "staged.txt")
    repo.write("unstaged.txt", "unstaged change\n")
    repo.write("untracked.txt", "untracked\n")
    repo.settle()
    assert repo.git("status", "--porcelain") == "M  staged.txt\n M unstaged.txt\n?? untracked.txt\n"


A_BEFORE = {"autocrlf": b"one\r\ntwo\r\nthree\r\n", "eol-attribute": b"one\r\ntwo\r\nthree\r\n",
            "filter": b"> one\n> two\n> three\n"}
CONVERSIONS = list(A_BEFORE)


def setup_converted_attempt(repo: GitRepo, how: str) -> None:
    setup_converted(repo, how)
    for response in (RESPONSE, SECOND):
        r = repo.run("--branch", "try/1", response=response)
        assert r.returncode == 0, r.err


def setup_converted_applied(repo: GitRepo, how: str) -> None:
    setup_converted(repo, how)
    r = repo.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    repo.settle()


@pytest.fixture(scope="module")
def converted_expected(tmp_path_factory):
    """(command, how) -> the states before and after a clean pick or undo, made once."""
    made: dict = {}

    def expected(command: str, how: str):
        if (command, how) not in made:
            prepare = setup_converted_attempt if command == "pick" else setup_converted_applied
            t = twin(tmp_path_factory, lambda r: prepare(r, how))
            before = state(t)
            r = t.run(*(["pick", "try/1"] if command == "pick" else ["undo"]))
            assert r.returncode == 0, r.err
            made[command, how] = (before, state(t))
        return made[command, how]

    return expected


CONVERTED_CASES = ([("pick", fault, CONVERSIONS[i % 3]) for i, fault in enumerate(PICK_FAULTS)]
                   + [("undo", fault, CONVERSIONS[i % 3]) for i, fault in enumerate(UNDO_FAULTS)])


@pytest.mark.parametrize("command, fault, how", CONVERTED_CASES)
def test_sigkill_during_pick_or_undo_in_a_converted_checkout_is_recoverable(
        repo: GitRepo, command, fault, how, converted_expected, copy_of):
    prepare = setup_converted_attempt if command == "pick" else setup_converted_applied
    copy_of(repo, f"converted-{command}-{how}", lambda r: prepare(r, how))
    before, after = converted_expected(command, how)
    assert state(repo) == before
    killed(repo, fault, *(["pick", "try/1"] if command == "pick" else ["undo"]))
    recovered(repo)
    now = state(repo)
    assert now in (before, after), fault
    # src/a.txt holds its first content where pick had not happened or undo finished:
    # then the checkout's own bytes (CRLF, or smudged) must be back exactly
    unchanged = (now == before) if command == "pick" else (now == after)
    if unchanged:
        assert repo.read("src/a.txt") == A_BEFORE[how]
    else:
        assert repo.read("src/a.txt") != A_BEFORE[how]
    assert repo.git("status", "--porcelain", "--", "src", "new", "moved", "old") == ""
    user_work_intact(repo)
