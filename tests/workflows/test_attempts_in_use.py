"""A branch a worktree uses (checked out, rebased or bisected there) is never moved or
deleted by `--branch`, `pick -d` or `attempts --prune`, even when the worktree took it up
after the run looked (git/refs.py asks at the ref update itself)."""
from __future__ import annotations

from pathlib import Path

from conftest import GitRepo
from git_aiapply.git.refs import BranchInUse
from git_aiapply.git.repo import Repo
from git_aiapply.workflows.attempts import delete_attempts, list_attempts, prune_choice


def _new_file(name: str) -> str:
    return (f"<FILE_CHANGES>\n<FILE_NEW file_path=\"{name}\">\n{name}\n</FILE_NEW>\n"
            "</FILE_CHANGES>\n")


def _hook(repo: GitRepo, name: str, body: str) -> None:
    hook = repo.root / ".git" / "hooks" / name
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\nunset GIT_INDEX_FILE GIT_DIR GIT_WORK_TREE\n" + body)
    hook.chmod(0o755)


def test_a_branch_checked_out_while_verify_runs_is_not_moved(repo: GitRepo, tmp_path):
    repo.write("a.txt", "a\n")
    repo.commit_all("base")
    repo.git("branch", "try")
    tip = repo.git("rev-parse", "try").strip()
    linked = tmp_path / "linked"
    # the pre-commit hook --verify runs stands for the user checking the branch out meanwhile
    _hook(repo, "pre-commit", f"git -C '{repo.root}' worktree add -q '{linked}' try\n")
    r = repo.run("--branch", "try", "--verify", response=_new_file("b.txt"))
    assert r.returncode == 128, r.out + r.err
    assert f"fatal: cannot update branch 'try': it is checked out in {linked}" in r.err
    assert repo.git("rev-parse", "try").strip() == tip
    assert repo.git("status", "--porcelain", cwd=linked) == ""


def test_pick_d_keeps_a_branch_checked_out_elsewhere(repo: GitRepo, tmp_path):
    repo.write("a.txt", "a\n")
    repo.commit_all("base")
    assert repo.run("--branch", "try", response=_new_file("b.txt")).returncode == 0
    tip = repo.git("rev-parse", "try").strip()
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"), "try")
    r = repo.run("pick", "-d", "try")
    assert r.returncode == 0, r.err
    assert f"warning: kept try: it is checked out in {tmp_path / 'linked'}" in r.err
    assert repo.head() == tip  # picked (a fast-forward), the branch kept
    assert repo.git("rev-parse", "try").strip() == tip


def test_prune_keeps_what_a_worktree_took_up_after_the_listing(repo: GitRepo, tmp_path,
                                                                monkeypatch):
    repo.write("a.txt", "a\n")
    repo.commit_all("base")
    for n in (1, 2, 3):
        assert repo.run("--branch", f"try/{n}", response=_new_file(f"n{n}.txt")).returncode == 0
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "--detach", str(linked))
    gitdir = Path(repo.git("rev-parse", "--absolute-git-dir", cwd=linked).strip())
    (gitdir / "rebase-merge").mkdir()
    (gitdir / "rebase-merge" / "head-name").write_text("refs/heads/try/1\n")
    monkeypatch.chdir(repo.root)
    found = list_attempts(Repo("."), "try")
    doomed, kept = prune_choice(found)
    assert kept == [("try/1", f"it is being rebased in {linked}")]
    assert [a.branch for a in doomed] == ["try/2", "try/3"]
    # between the listing (and the question) and the deletes, try/2 is checked out there
    (gitdir / "BISECT_START").write_text("try/2\n")
    (gitdir / "BISECT_LOG").write_text("")
    results = {a.branch: e for a, e in delete_attempts(Repo("."), doomed)}
    assert isinstance(results["try/2"], BranchInUse)
    assert results["try/2"].render() == (f"cannot delete branch 'try/2': it is being "
                                         f"bisected in {linked}")
    assert results["try/3"] is None
    assert repo.git("for-each-ref", "--format=%(refname:short)",
                    "refs/heads/try").split() == ["try/1", "try/2"]
