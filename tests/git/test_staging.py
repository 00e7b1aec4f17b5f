"""--no-commit (index and worktree, as git apply --index) and --cached (the index only, as
git apply --cached): nothing is committed, no commit hook runs, refusals change nothing,
a kill mid-run is repaired by recover.  Each outcome is read back with the git CLI."""
from __future__ import annotations

import signal

import pytest

from conftest import GitRepo

RESPONSE = """Rework the sample files.

<FILE_CHANGES>
<FILE_PATCH file_path="src/a.txt">
@@
 one
-two
+TWO
 three
</FILE_PATCH>
<FILE_NEW file_path="new/deep/n.txt">
brand new
</FILE_NEW>
<FILE_DELETE file_path="old/del.txt" />
</FILE_CHANGES>
"""

FAILING_HOOK = "#!/bin/sh\necho hook ran >&2\nexit 1\n"


def setup_repo(repo: GitRepo) -> str:
    repo.write("src/a.txt", "one\ntwo\nthree\n")
    repo.write("old/del.txt", "to be deleted\n")
    repo.write("other.txt", "other\n")
    head = repo.commit_all()
    # commit hooks that would refuse: --no-commit / --cached must not run them
    for hook in ("pre-commit", "commit-msg", "prepare-commit-msg", "post-commit"):
        repo.write(f".git/hooks/{hook}", FAILING_HOOK, mode=0o755)
    repo.settle()
    return head


def staged(repo: GitRepo) -> str:
    return repo.git("diff", "--cached", "--name-status")


# --------------------------------------------------------------------------- --no-commit


def test_no_commit_stages_index_and_worktree_and_commits_nothing(repo):
    head = setup_repo(repo)
    r = repo.run("--no-commit", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert "hook ran" not in r.out + r.err
    assert r.out.strip() == "staged 3 files (+2 -2); nothing committed"
    assert repo.head() == head and repo.count() == 1
    assert staged(repo) == "A\tnew/deep/n.txt\nD\told/del.txt\nM\tsrc/a.txt\n"
    assert repo.git("diff", "--name-only") == ""  # the worktree holds what is staged
    assert repo.read("src/a.txt") == b"one\nTWO\nthree\n"
    assert repo.read("new/deep/n.txt") == b"brand new\n"
    assert not (repo.root / "old/del.txt").exists()
    assert repo.git("status", "--porcelain") == "A  new/deep/n.txt\nD  old/del.txt\n" \
        "M  src/a.txt\n"
    # nothing for undo to take back
    assert not (repo.root / ".git" / "AI_APPLY_JOURNAL").exists()


def test_no_commit_json_status_is_staged_with_no_commit(repo):
    import json

    setup_repo(repo)
    r = repo.run("--no-commit", "--json", response=RESPONSE)
    assert r.returncode == 0, r.err
    out = json.loads(r.out)
    assert out["status"] == "staged" and out["exit_code"] == 0
    assert out["commit"] is None and out["message"] is None
    assert sorted(f["path"] for f in out["files"]) == ["new/deep/n.txt", "old/del.txt",
                                                        "src/a.txt"]


def test_no_commit_quiet_prints_nothing(repo):
    setup_repo(repo)
    r = repo.run("--no-commit", "-q", response=RESPONSE)
    assert r.returncode == 0 and r.out == "" and r.err == ""


def test_no_commit_refuses_a_dirty_touched_file_and_changes_nothing(repo):
    setup_repo(repo)
    repo.write("src/a.txt", "one\ntwo\nthree\nmine\n")
    before = repo.snapshot()
    r = repo.run("--no-commit", response=RESPONSE)
    assert r.returncode == 1
    assert "src/a.txt" in r.err and "nothing was changed" in r.err
    assert repo.snapshot() == before


def test_no_commit_include_dirty_stages_on_top_of_the_change(repo):
    setup_repo(repo)
    repo.write("src/a.txt", "one\ntwo\nthree\nmine\n")
    r = repo.run("--no-commit", "--include-dirty", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert repo.git("show", ":src/a.txt") == "one\nTWO\nthree\nmine\n"
    assert repo.count() == 1


def test_the_same_response_twice_no_longer_fits(repo):
    setup_repo(repo)
    assert repo.run("--no-commit", response=RESPONSE).returncode == 0
    before = repo.snapshot()
    again = repo.run("--no-commit", response=RESPONSE)
    # the files are staged, not committed: they are not clean against HEAD
    assert again.returncode == 1
    assert "nothing was changed" in again.err
    assert repo.snapshot() == before


def test_no_commit_failure_rolls_back_everything(repo):
    setup_repo(repo)
    before = repo.snapshot()
    env = dict(repo.env, GIT_AI_APPLY_FAULT="fail:index-install")
    r = repo.run("--no-commit", response=RESPONSE, env=env)
    assert r.returncode == 128 and "nothing was changed" in r.err
    assert repo.snapshot() == before


# --------------------------------------------------------------------------- --cached


def test_cached_changes_only_the_index(repo):
    head = setup_repo(repo)
    before = repo.snapshot()["files"]
    r = repo.run("--cached", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert "hook ran" not in r.out + r.err
    assert r.out.strip() == ("staged 3 files (+2 -2); index only, worktree unchanged; "
                             "nothing committed")
    assert repo.head() == head and repo.count() == 1
    assert repo.snapshot()["files"] == before  # not a byte of the worktree changed
    assert repo.git("show", ":src/a.txt") == "one\nTWO\nthree\n"
    assert repo.git("show", ":new/deep/n.txt") == "brand new\n"
    # git sees the worktree as it is: the reverse of what was staged
    assert repo.git("status", "--porcelain") == ("AD new/deep/n.txt\nD  old/del.txt\n"
                                                  "MM src/a.txt\n?? old/\n")
    assert repo.git("diff", "--", "src/a.txt").count("-TWO") == 1


def test_cached_ignores_the_worktree_state_of_touched_files(repo):
    setup_repo(repo)
    repo.write("src/a.txt", "edited in the worktree only\n")
    repo.write("new/deep/n.txt", "an untracked file where the new one goes\n")
    r = repo.run("--cached", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert repo.read("src/a.txt") == b"edited in the worktree only\n"
    assert repo.read("new/deep/n.txt") == b"an untracked file where the new one goes\n"
    assert repo.git("show", ":src/a.txt") == "one\nTWO\nthree\n"


def test_cached_refuses_a_touched_file_staged_differently_from_head(repo):
    setup_repo(repo)
    repo.write("src/a.txt", "one\ntwo\nthree\nstaged\n")
    repo.git("add", "src/a.txt")
    before = repo.snapshot()
    for extra in ((), ("--check",)):
        r = repo.run("--cached", *extra, response=RESPONSE)
        assert r.returncode == 1, r.out + r.err
        assert "src/a.txt has staged changes" in r.err
        assert repo.snapshot() == before


def test_cached_with_crlf_checkout_stages_normalized_blobs_and_keeps_worktree(repo):
    repo.write(".gitattributes", "*.txt text eol=crlf\n")
    repo.write("src/a.txt", "one\ntwo\nthree\n")
    repo.commit_all()
    (repo.root / "src/a.txt").unlink()
    repo.git("checkout", "--", "src/a.txt")  # checked out as CRLF
    repo.settle()
    assert repo.read("src/a.txt") == b"one\r\ntwo\r\nthree\r\n"
    response = RESPONSE.split('<FILE_NEW')[0] + "</FILE_CHANGES>\n"
    r = repo.run("--cached", response=response)
    assert r.returncode == 0, r.err
    assert repo.read("src/a.txt") == b"one\r\ntwo\r\nthree\r\n"
    assert repo.git("cat-file", "blob", ":src/a.txt") == "one\nTWO\nthree\n"


def test_no_commit_with_crlf_checkout_writes_as_checkout_does(repo):
    repo.write(".gitattributes", "*.txt text eol=crlf\n")
    repo.write("src/a.txt", "one\ntwo\nthree\n")
    repo.commit_all()
    (repo.root / "src/a.txt").unlink()
    repo.git("checkout", "--", "src/a.txt")  # checked out as CRLF
    repo.settle()
    response = RESPONSE.split('<FILE_NEW')[0] + "</FILE_CHANGES>\n"
    r = repo.run("--no-commit", response=response)
    assert r.returncode == 0, r.err
    assert repo.read("src/a.txt") == b"one\r\nTWO\r\nthree\r\n"
    assert repo.git("cat-file", "blob", ":src/a.txt") == "one\nTWO\nthree\n"
    assert repo.git("status", "--porcelain") == "M  src/a.txt\n"


# --------------------------------------------------------------------------- usage


@pytest.mark.parametrize("staging", ["--no-commit", "--cached"])
@pytest.mark.parametrize("other", [["--branch", "b"], ["-m", "x"], ["-F", "msg"], ["--edit"],
                                   ["--signoff"], ["-S"], ["--author", "A <a@b>"],
                                   ["--date", "2020-01-01"]])
def test_commit_options_are_usage_errors(repo, staging, other):
    setup_repo(repo)
    before = repo.snapshot()
    r = repo.run(staging, *other, response=RESPONSE)
    assert r.returncode == 2, r.out + r.err
    assert f"{staging} makes no commit" in r.err and other[0] in r.err
    assert repo.snapshot() == before


def test_no_commit_and_cached_together_and_cached_include_dirty_are_usage_errors(repo):
    setup_repo(repo)
    assert repo.run("--no-commit", "--cached", response=RESPONSE).returncode == 2
    r = repo.run("--cached", "--include-dirty", response=RESPONSE)
    assert r.returncode == 2 and "--include-dirty" in r.err


@pytest.mark.parametrize("staging", ["--no-commit", "--cached"])
def test_check_and_diff_write_nothing(repo, staging):
    setup_repo(repo)
    before = repo.snapshot()
    c = repo.run(staging, "--check", response=RESPONSE)
    assert c.returncode == 0 and "applies cleanly" in c.out
    d = repo.run(staging, "--diff", response=RESPONSE)
    assert d.returncode == 0 and "+TWO" in d.out
    assert repo.snapshot() == before


# --------------------------------------------------------------------------- the library


def test_library_no_commit_and_cached(repo, monkeypatch):
    import git_aiapply

    head = setup_repo(repo)
    for k, v in repo.env.items():
        monkeypatch.setenv(k, v)
    res = git_aiapply.apply(RESPONSE, repo=str(repo.root), cached=True)
    assert res.status == "staged" and res.commit is None
    assert repo.read("src/a.txt") == b"one\ntwo\nthree\n"
    assert repo.git("show", ":src/a.txt") == "one\nTWO\nthree\n"
    repo.git("reset", "-q")
    res = git_aiapply.apply(RESPONSE, repo=str(repo.root), no_commit=True)
    assert res.status == "staged" and res.commit is None, res
    assert repo.read("src/a.txt") == b"one\nTWO\nthree\n"
    assert repo.head() == head


def test_library_refuses_commit_options_with_staging():
    from git_aiapply.doors.api import InvalidOptions, validate_options

    for bad in ({"no_commit": True, "cached": True}, {"no_commit": True, "message": "m"},
                {"cached": True, "branch": "b"}, {"cached": True, "include_dirty": True},
                {"no_commit": True, "sign": True}):
        with pytest.raises(InvalidOptions):
            validate_options(bad)
    assert validate_options({"no_commit": True, "check": True, "sign": False})


# --------------------------------------------------------------------------- kills


KILLS = [("--no-commit", step) for step in
         ("blob-write:2", "journal", "worktree-delete", "worktree-write:2", "index-stage",
          "index-install", "journal-end")] + \
        [("--cached", step) for step in
         ("blob-write:1", "journal", "index-stage", "index-install", "journal-end")]


@pytest.mark.parametrize("staging,step", KILLS)
def test_kill_mid_run_is_repaired_by_recover(repo, staging, step):
    setup_repo(repo)
    before = {k: v for k, v in repo.snapshot().items() if k != "index"}
    env = dict(repo.env, GIT_AI_APPLY_FAULT=f"kill:{step}")
    assert repo.run(staging, response=RESPONSE, env=env).returncode == -signal.SIGKILL
    rec = repo.run("recover")
    assert rec.returncode == 0, rec.out + rec.err
    now = {k: v for k, v in repo.snapshot().items() if k != "index"}
    assert now["stray"] == [] and now["head"] == before["head"]
    if step != "journal-end":  # the index was not installed: wholly before
        assert now == before
        return
    # installed, then killed: wholly after, as a run that was not killed leaves it
    assert "nothing was committed" in rec.out, rec.out
    assert repo.git("show", ":src/a.txt") == "one\nTWO\nthree\n"
    assert repo.git("show", ":new/deep/n.txt") == "brand new\n"
    want = b"one\nTWO\nthree\n" if staging == "--no-commit" else b"one\ntwo\nthree\n"
    assert repo.read("src/a.txt") == want


# --------------------------------------------------------------------------- Ctrl-C


def _interrupt_after(repo, monkeypatch, capsys, opts, outcomes, stage):
    """What the command says to a Ctrl-C once ``stage()`` has run (a staging that took
    effect, or nothing)."""
    from git_aiapply.cli.commands import apply as cmd
    from git_aiapply.git.repo import Repo

    monkeypatch.chdir(repo.root)
    for k, v in repo.env.items():
        monkeypatch.setenv(k, v)
    r = Repo(".")
    before = cmd._ref_state(r, opts)
    stage()
    show = cmd._Show(quiet=False, as_json=False, stat=False, numstat=False, summary=False)
    with pytest.raises(SystemExit) as e:
        cmd._interrupted(r, opts, before, outcomes, show, "resp", 1)
        raise SystemExit("returned")  # the caller then says "nothing was changed"
    return e.value.code, capsys.readouterr().err


@pytest.mark.parametrize("flag", ["no_commit", "cached"])
def test_ctrl_c_after_the_index_was_staged_never_says_nothing_changed(repo, monkeypatch,
                                                                     capsys, flag):
    from git_aiapply.run.pipeline import Options

    setup_repo(repo)
    opts = Options(**{flag: True})

    def stage():
        repo.write("src/a.txt", "x\n")
        repo.git("add", "src/a.txt")

    code, err = _interrupt_after(repo, monkeypatch, capsys, opts, [], stage)
    assert code == 130 and "staged" in err and "nothing was committed" in err
    # nothing staged: the usual message (the caller's)
    code, err = _interrupt_after(repo, monkeypatch, capsys, opts, [], lambda: None)
    assert code == "returned"


def test_ctrl_c_after_earlier_responses_were_staged_names_them(repo, monkeypatch, capsys):
    from git_aiapply.run.pipeline import Options, Outcome, Status
    from git_aiapply.answer.response import Response

    setup_repo(repo)
    done = Outcome(Response(text="", given_text="", response_id="", model=None, name="r1",
                            is_json=False), Status.STAGED, 0)
    code, err = _interrupt_after(repo, monkeypatch, capsys, Options(no_commit=True), [done],
                                 lambda: None)
    assert code == 130 and "r1" in err and "staged" in err


# --------------------------------------------------------------------------- the --cached rule


def test_staged_paths_are_exactly_those_whose_index_entry_is_not_heads(tmp_path):
    """Property: for any HEAD and index over a few paths (absent, or one of two blobs in
    one of two modes), a path is reported iff its index entry differs from HEAD's."""
    import pygit2
    from hypothesis import given, settings, strategies as st

    from git_aiapply.git.staging import staged_paths

    r = pygit2.init_repository(str(tmp_path / "r"))
    blobs = [r.create_blob(b"a\n"), r.create_blob(b"b\n")]
    paths = ["x", "d/y", "d/e/z"]
    state = st.one_of(st.none(), st.tuples(st.sampled_from([0o100644, 0o100755]),
                                           st.sampled_from([0, 1])))

    def tree_of(entries):
        idx = pygit2.Index()
        for p, ent in entries.items():
            if ent is not None:
                idx.add(pygit2.IndexEntry(p, blobs[ent[1]], ent[0]))
        return r[idx.write_tree(r)] if len(idx) else None, idx

    @settings(max_examples=150, deadline=None)
    @given(st.fixed_dictionaries({p: state for p in paths}),
           st.fixed_dictionaries({p: state for p in paths}))
    def check(head, index):
        head_tree, _ = tree_of(head)
        _, idx = tree_of(index)
        want = sorted(p for p in paths if head[p] != index[p])
        assert staged_paths(idx, head_tree, paths) == want

    check()


@pytest.mark.parametrize("staging", ["--no-commit", "--cached"])
def test_bare_repository_says_staging_needs_a_worktree(tmp_path, git_env, staging):
    import subprocess

    from conftest import run_command

    bare = tmp_path / "bare.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], env=git_env, check=True)
    rp = tmp_path / "r.md"
    rp.write_text(RESPONSE)
    r = run_command([staging, str(rp)], cwd=bare, env=git_env)
    err = r.stderr.decode()
    assert r.returncode == 2 and "stage into a worktree's index" in err, err
    assert "--branch" not in err
