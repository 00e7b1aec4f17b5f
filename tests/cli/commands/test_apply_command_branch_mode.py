"""`--branch NAME [--base REV]` for one response (BEHAVIOR.md §9, docs/ATTEMPTS.md):
the commit goes onto a branch; HEAD, the index and the worktree stay byte-identical."""
from __future__ import annotations

import json
import os

import pytest

from conftest import GitRepo


def patch(path: str, old: str, new: str, explanation: str = "") -> str:
    return (f"{explanation}\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{path}\">\n@@\n"
            f"-{old}\n+{new}\n</FILE_PATCH>\n</FILE_CHANGES>\n")


def new_file(path: str, body: str) -> str:
    return (f"<FILE_CHANGES>\n<FILE_NEW file_path=\"{path}\">\n{body}\n</FILE_NEW>\n"
            "</FILE_CHANGES>\n")


@pytest.fixture
def busy(repo: GitRepo) -> GitRepo:
    """A repository whose worktree is far from clean: a staged change, an unstaged
    change (both to the file the responses patch), an untracked file, an exec bit."""
    repo.write("a.txt", "alpha\nbeta\n")
    repo.write("src/b.py", "B = 1\n")
    repo.write("run.sh", "#!/bin/sh\necho hi\n", mode=0o755)
    repo.commit_all("base")
    repo.write("a.txt", "alpha\nbeta\nstaged\n")
    repo.git("add", "a.txt")
    repo.write("a.txt", "alpha\nbeta\nstaged\nunstaged\n")
    repo.write("src/b.py", "B = 2  # unstaged\n")
    repo.write("notes.txt", "untracked\n")
    return repo


def same_except_refs(before: dict, after: dict) -> None:
    for key in before:
        if key != "refs":
            assert before[key] == after[key], key


def test_branch_made_at_head_and_worktree_index_head_untouched(busy: GitRepo):
    head = busy.head()
    before = busy.snapshot()
    r = busy.run("--branch", "try/one", response=patch("a.txt", "alpha", "ALPHA", "Shout alpha."))
    assert r.returncode == 0, r.err
    after = busy.snapshot()
    same_except_refs(before, after)  # HEAD, index bytes, every worktree file, status
    assert busy.head() == head
    assert busy.git("rev-parse", "try/one^").strip() == head
    # planned against HEAD's content, not the dirty worktree or the index
    assert busy.tree("try/one")["a.txt"] == ("100644", b"ALPHA\nbeta\n")
    assert busy.tree("try/one")["run.sh"][0] == "100755"
    assert busy.message("try/one").splitlines()[0] == "Shout alpha"
    assert "AI-Response: " in busy.message("try/one")
    assert r.out.startswith(f"[try/one {busy.git('rev-parse', 'try/one').strip()[:7]}]")
    # the ref moved with a reflog entry
    assert "ai-apply" in busy.git("reflog", "show", "--format=%gs", "try/one")


def test_existing_branch_is_used_at_its_tip(busy: GitRepo):
    busy.git("branch", "work", "HEAD")
    assert busy.run("--branch", "work", response=patch("a.txt", "alpha", "A1")).returncode == 0
    tip = busy.git("rev-parse", "work").strip()
    r = busy.run("--branch", "work", response=patch("a.txt", "beta", "B1"))
    assert r.returncode == 0, r.err
    assert busy.git("rev-parse", "work^").strip() == tip
    assert busy.tree("work")["a.txt"][1] == b"A1\nB1\n"


def test_base_for_a_new_branch(repo: GitRepo):
    repo.write("a.txt", "one\n")
    first = repo.commit_all("first")
    repo.write("a.txt", "two\n")
    repo.commit_all("second")
    r = repo.run("--branch", "old", "--base", "HEAD~1", response=patch("a.txt", "one", "uno"))
    assert r.returncode == 0, r.err
    assert repo.git("rev-parse", "old^").strip() == first
    assert repo.tree("old")["a.txt"][1] == b"uno\n"
    assert repo.git("rev-parse", "HEAD").strip() != first


def test_base_on_an_existing_branch_must_be_in_its_history(repo: GitRepo):
    repo.write("a.txt", "one\n")
    first = repo.commit_all("first")
    repo.write("a.txt", "two\n")
    second = repo.commit_all("second")
    repo.git("branch", "old", first)
    before = repo.snapshot()
    r = repo.run("--branch", "old", "--base", second, response=patch("a.txt", "one", "uno"))
    assert r.returncode == 1
    assert "already exists and does not contain --base" in r.err
    assert repo.snapshot() == before
    # a base the branch contains is fine: the commit goes on the tip
    r = repo.run("--branch", "old", "--base", first, response=patch("a.txt", "one", "uno"))
    assert r.returncode == 0, r.err
    assert repo.git("rev-parse", "old^").strip() == first


def test_refused_response_makes_no_branch_and_changes_nothing(busy: GitRepo):
    before = busy.snapshot()
    r = busy.run("--branch", "try/bad", response=patch("a.txt", "not there", "x"))
    assert r.returncode == 1
    assert "nothing was changed" in r.err
    assert busy.snapshot() == before
    assert busy.git("branch", "--list", "try/bad") == ""


def test_same_response_again_is_already_applied(busy: GitRepo):
    resp = patch("a.txt", "alpha", "ALPHA")
    assert busy.run("--branch", "again", response=resp).returncode == 0
    tip = busy.git("rev-parse", "again").strip()
    r = busy.run("--branch", "again", response=resp)
    assert r.returncode == 0
    assert "already applied" in r.out
    assert busy.git("rev-parse", "again").strip() == tip


def test_bare_repository(repo: GitRepo, tmp_path):
    repo.write("a.txt", "alpha\n")
    repo.commit_all("base")
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(bare))
    b = GitRepo(bare, repo.env)
    head = b.git("rev-parse", "HEAD").strip()
    r = b.run("--branch", "try/bare", response=patch("a.txt", "alpha", "ALPHA"))
    assert r.returncode == 0, r.err
    assert b.git("rev-parse", "HEAD").strip() == head
    assert b.git("rev-parse", "try/bare^").strip() == head
    assert b.git("cat-file", "-p", "try/bare:a.txt") == "ALPHA\n"
    assert not (bare / "index").exists()
    # without --branch a bare repository has nowhere to write: a usage error
    r = b.run(response=patch("a.txt", "alpha", "x"))
    assert r.returncode == 2
    assert "--branch" in r.err


def test_branch_checked_out_here_or_in_a_linked_worktree_is_refused(busy: GitRepo, tmp_path):
    before = busy.snapshot()
    r = busy.run("--branch", "main", response=patch("a.txt", "alpha", "x"))
    assert r.returncode == 128  # as `git branch -f` onto a checked-out branch: fatal
    assert "checked out" in r.err
    assert busy.snapshot() == before
    busy.git("branch", "elsewhere")
    wt = tmp_path / "linked"
    busy.git("worktree", "add", "-q", str(wt), "elsewhere")
    tip = busy.git("rev-parse", "elsewhere").strip()
    r = busy.run("--branch", "elsewhere", response=patch("a.txt", "alpha", "x"))
    assert r.returncode == 128
    assert "checked out in" in r.err and "linked" in r.err
    assert busy.git("rev-parse", "elsewhere").strip() == tip


@pytest.mark.parametrize("name", ["bad..name", "-x", "HEAD", "a b", "x.lock", "refs/heads/"])
def test_invalid_branch_name_is_a_usage_error(busy: GitRepo, name):
    before = busy.snapshot()
    r = busy.run("--branch", name, response=patch("a.txt", "alpha", "x"))
    assert r.returncode == 2, (name, r.err)
    assert "invalid branch name" in r.err
    assert busy.snapshot() == before


def test_full_refname_is_accepted(busy: GitRepo):
    r = busy.run("--branch", "refs/heads/full/name", response=patch("a.txt", "alpha", "x"))
    assert r.returncode == 0, r.err
    assert busy.git("rev-parse", "--verify", "-q", "full/name").strip()


def test_new_file_where_the_worktree_has_an_untracked_one(busy: GitRepo):
    # the worktree does not matter in branch mode: notes.txt is untracked there
    before = busy.snapshot()
    r = busy.run("--branch", "notes", response=new_file("notes.txt", "tracked notes"))
    assert r.returncode == 0, r.err
    same_except_refs(before, busy.snapshot())
    assert busy.tree("notes")["notes.txt"][1] == b"tracked notes\n"
    assert busy.read("notes.txt") == b"untracked\n"


def test_check_and_diff_write_nothing(busy: GitRepo):
    before = busy.snapshot()
    r = busy.run("--branch", "peek", "--diff", response=patch("a.txt", "alpha", "ALPHA"))
    assert r.returncode == 0, r.err
    assert "+ALPHA" in r.out
    r = busy.run("--branch", "peek", "--check", response=patch("a.txt", "alpha", "ALPHA"))
    assert r.returncode == 0, r.err
    assert busy.snapshot() == before


def test_json_names_branch_and_base(busy: GitRepo):
    r = busy.run("--branch", "j", "--json", response=patch("a.txt", "alpha", "ALPHA"))
    assert r.returncode == 0, r.err
    out = json.loads(r.out)
    assert out["status"] == "applied"
    assert out["branch"] == "j"
    assert out["base"] == busy.head()
    assert out["commit"] == busy.git("rev-parse", "j").strip()


def test_unborn_head_gives_a_root_commit(repo: GitRepo):
    r = repo.run("--branch", "first", response=new_file("a.txt", "hello"))
    assert r.returncode == 0, r.err
    assert repo.git("rev-list", "--count", "first").strip() == "1"
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert repo.git("rev-parse", "-q", "--verify", "HEAD", check=False).strip() == ""


def test_locked_ref_refuses_clearly(busy: GitRepo):
    busy.git("branch", "locked")
    lock = busy.root / ".git" / "refs" / "heads" / "locked.lock"
    lock.write_text("")
    tip = busy.git("rev-parse", "locked").strip()
    r = busy.run("--branch", "locked", response=patch("a.txt", "alpha", "x"))
    assert r.returncode == 128  # someone else's lock: the repository's state
    assert "cannot update refs/heads/locked" in r.err
    assert busy.git("rev-parse", "locked").strip() == tip
    lock.unlink()


def test_ref_moved_between_planning_and_writing_is_refused(busy: GitRepo, monkeypatch):
    """The compare-and-swap itself: planned at one tip, the branch moved meanwhile."""
    monkeypatch.chdir(busy.root)
    for k, v in busy.env.items():
        monkeypatch.setenv(k, v)
    from git_aiapply.git.repo import Repo
    from git_aiapply.git.transaction import commit_to_branch
    from git_aiapply.errors import ApplyError
    from git_aiapply.plan.plan import FileState, Plan

    busy.git("branch", "raced")
    planned = busy.git("rev-parse", "raced").strip()
    busy.git("commit", "-q", "--allow-empty", "-m", "someone else")
    busy.git("branch", "-f", "raced", "HEAD")
    moved = busy.git("rev-parse", "raced").strip()
    repo = Repo(str(busy.root))
    base = repo.repo[planned]
    plan = Plan({"a.txt": FileState(0o100644, b"x\n")}, {"a.txt": FileState(0o100644, b"alpha\nbeta\n")})
    with pytest.raises(ApplyError) as e:
        commit_to_branch(repo, plan, "m\n", "refs/heads/raced", base, base.id)
    assert "moved while the response was being applied" in e.value.render()
    assert busy.git("rev-parse", "raced").strip() == moved


def _hook(repo: GitRepo, name: str, body: str) -> None:
    p = repo.root / ".git" / "hooks" / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(0o755)


def test_hooks_are_skipped_by_default(busy: GitRepo, tmp_path):
    marker = tmp_path / "ran"
    for name in ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"):
        _hook(busy, name, f"echo {name} >> {marker}\nexit 1\n")
    before = busy.snapshot()
    r = busy.run("--branch", "nohooks", response=patch("a.txt", "alpha", "ALPHA"))
    assert r.returncode == 0, r.err
    assert not marker.exists()
    same_except_refs(before, busy.snapshot())


def test_verify_runs_hooks_in_a_temporary_worktree(busy: GitRepo, tmp_path):
    log = tmp_path / "log"
    # pre-commit: refuses FORBIDDEN, reformats a.txt (upper-cases it) and re-stages it;
    # commit-msg appends a line; both record where they ran
    _hook(busy, "pre-commit",
          f'pwd >> {log}; echo "index=$GIT_INDEX_FILE" >> {log}\n'
          'if grep -q FORBIDDEN a.txt; then echo "no FORBIDDEN please"; exit 1; fi\n'
          'tr a-z A-Z < a.txt > a.tmp && mv a.tmp a.txt && git add a.txt\n')
    _hook(busy, "commit-msg", f'echo "commit-msg $GIT_AI_APPLY_BRANCH" >> {log}\n'
                              'printf "\\nChecked-by: hook\\n" >> "$1"\n')
    _hook(busy, "post-commit", f"echo post-commit >> {log}\n")
    before = busy.snapshot()
    r = busy.run("--branch", "checked", "--verify", response=patch("a.txt", "alpha", "first"))
    assert r.returncode == 0, r.err
    same_except_refs(before, busy.snapshot())
    assert busy.tree("checked")["a.txt"][1] == b"FIRST\nBETA\n"  # the hook's re-staged file
    assert "Checked-by: hook" in busy.message("checked")
    text = log.read_text()
    assert "commit-msg checked" in text
    assert "post-commit" not in text
    ran_in = text.splitlines()[0]
    assert os.path.realpath(ran_in) != os.path.realpath(busy.root)
    assert not os.path.exists(ran_in)  # the temporary worktree is gone
    assert len(busy.git("worktree", "list").splitlines()) == 1
    # a failing hook refuses: no branch, nothing changed
    before = busy.snapshot()
    r = busy.run("--branch", "refused", "--verify", response=patch("a.txt", "alpha", "FORBIDDEN"))
    assert r.returncode == 1
    assert "pre-commit hook failed" in r.err and "no FORBIDDEN please" in r.err
    assert busy.snapshot() == before
    assert len(busy.git("worktree", "list").splitlines()) == 1


def test_verify_needs_branch_and_excludes_no_verify(busy: GitRepo):
    assert busy.run("--verify", response=patch("a.txt", "alpha", "x")).returncode == 2
    r = busy.run("--branch", "v", "--verify", "--no-verify", response=patch("a.txt", "alpha", "x"))
    assert r.returncode == 2


def test_verify_in_a_bare_repository(repo: GitRepo, tmp_path):
    repo.write("a.txt", "alpha\n")
    repo.commit_all("base")
    bare = tmp_path / "bare.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(bare))
    b = GitRepo(bare, repo.env)
    hook = bare / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ngrep -q ALPHA a.txt\n")
    hook.chmod(0o755)
    assert b.run("--branch", "ok", "--verify", response=patch("a.txt", "alpha", "ALPHA")).returncode == 0
    r = b.run("--branch", "no", "--verify", response=patch("a.txt", "alpha", "beta"))
    assert r.returncode == 1, r.err
    assert b.git("branch", "--list", "no") == ""
    assert len(b.git("worktree", "list").splitlines()) == 1


# ------------------------------------------- a base that already holds the response (issue 12 gap)


def test_new_branch_on_a_base_that_holds_the_response_is_already_applied(busy: GitRepo):
    """As a plain apply on a HEAD that holds the response: `already-applied`, exit 0, the
    commit that holds it named, nothing written: no commit and no branch (a branch at the
    base would hold nothing of the attempt's own)."""
    resp = patch("run.sh", "echo hi", "echo hello", "Say hello.")
    assert busy.run(response=resp).returncode == 0
    holder = busy.head()
    plain = json.loads(busy.run("--json", response=resp).out)
    before = busy.snapshot()
    r = busy.run("--branch", "try/again", response=resp)
    assert r.returncode == 0, r.err
    assert r.err == ""
    assert f"already applied as {holder[:12]}" in r.out and "no branch try/again made" in r.out
    assert busy.snapshot() == before  # refs included: no branch was made
    assert busy.git("branch", "--list", "try/again") == ""
    r = busy.run("--branch", "try/again", "--json", response=resp)
    assert r.returncode == 0
    out = json.loads(r.out)
    assert out["status"] == plain["status"] == "already-applied"
    assert out["exit_code"] == plain["exit_code"] == 0
    assert out["commit"] == plain["commit"] == holder
    assert out["branch"] == "try/again" and out["base"] == holder
    assert out["errors"] == [] and out["fault"] is None
    # --check says the same
    r = busy.run("--branch", "try/again", "--check", response=resp)
    assert r.returncode == 0 and "already applied" in r.out
    assert busy.snapshot() == before


def test_base_rev_is_searched_not_head(repo: GitRepo):
    """--base REV: REV's history decides, not HEAD's.  A response HEAD holds is applied
    afresh on an older base that does not hold it; one an older base holds is already
    applied there even after HEAD moved on."""
    repo.write("a.txt", "alpha\nbeta\n")
    first = repo.commit_all("base")
    resp = patch("a.txt", "alpha", "ALPHA")
    assert repo.run(response=resp).returncode == 0
    holder = repo.head()
    repo.write("c.txt", "later\n")
    repo.commit_all("later")
    # the older base does not hold it: a real attempt on a new branch
    r = repo.run("--branch", "old", "--base", first, response=resp)
    assert r.returncode == 0, r.err
    assert repo.git("rev-parse", "old^").strip() == first
    assert repo.tree("old")["a.txt"] == ("100644", b"ALPHA\nbeta\n")
    # a base whose history holds it: already applied, no branch
    r = repo.run("--branch", "new", "--base", "HEAD~1", "--json", response=resp)
    assert r.returncode == 0, r.err
    out = json.loads(r.out)
    assert out["status"] == "already-applied" and out["commit"] == holder
    assert out["base"] == holder
    assert repo.git("branch", "--list", "new") == ""


def test_attempts_on_a_base_that_holds_one_of_them(repo: GitRepo, tmp_path):
    repo.write("a.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    held = patch("a.txt", "alpha", "ALPHA")
    fresh = patch("a.txt", "beta", "BETA")
    assert repo.run(response=held).returncode == 0
    holder = repo.head()
    (tmp_path / "held.md").write_text(held)
    (tmp_path / "fresh.md").write_text(fresh)
    r = repo.run("--branch", "t/{n}", "--json", str(tmp_path / "held.md"),
                 str(tmp_path / "fresh.md"))
    assert r.returncode == 0, r.err
    one, two = [json.loads(line) for line in r.out.splitlines()]
    assert one["status"] == "already-applied" and one["commit"] == holder
    assert two["status"] == "applied"
    assert repo.git("for-each-ref", "--format=%(refname:short)", "refs/heads/t/").split() == ["t/2"]
    r = repo.run("--branch", "u/{n}", str(tmp_path / "held.md"), str(tmp_path / "fresh.md"))
    assert r.returncode == 0, r.err
    assert "already applied" in r.out
