"""The git layer in-process (as pre-commit's git_test.py): Repo discovery and config,
the one Transaction and its rollback, filters, refs.  Real repositories in temporary
folders, results checked with the git CLI."""
from __future__ import annotations

import os

import pytest

from conftest import GitRepo
from git_aiapply.errors import ApplyError, FatalError
from git_aiapply.git.config import command_line_settings, parse_bool, parse_parameters
from git_aiapply.git.filters import filters_of
from git_aiapply.git.refs import reflog
from git_aiapply.git.ident import identity
from git_aiapply.git.repo import Repo
from git_aiapply.git.signing import write_commit
from git_aiapply.git.state import TreeSnapshot
from git_aiapply.git.transaction import Transaction, build_tree, write_blobs
from git_aiapply.plan.plan import MODE_FILE, FileState


@pytest.fixture
def inside(repo: GitRepo, monkeypatch):
    """``repo`` with this process's environment and folder set as the command's would be."""
    for k in list(os.environ):
        if k.startswith("GIT_"):
            monkeypatch.delenv(k)
    for k, v in repo.env.items():
        if k.startswith("GIT_") or k in ("HOME", "XDG_CONFIG_HOME"):
            monkeypatch.setenv(k, v)
    monkeypatch.chdir(repo.root)
    repo.write("a.txt", "alpha\n")
    repo.write("b.txt", "beta\n")
    repo.commit_all()
    repo.settle()
    return repo


# --------------------------------------------------------------------------- config


def test_git_config_parameters_as_git_writes_them():
    # git 2.31+: 'key'='value'; older: 'key=value'; a bare 'key' is a boolean true
    assert parse_parameters("'user.name'='A B' 'core.bare' 'x.y=1'") == [
        ("user.name", "A B"), ("core.bare", None), ("x.y", "1")]
    assert parse_parameters("'a.b'='it'\\''s'") == [("a.b", "it's")]
    with pytest.raises(ValueError):
        parse_parameters("'a.b'='unterminated")


def test_command_line_settings_later_wins_and_keys_are_canonical():
    env = {"GIT_CONFIG_PARAMETERS": "'AiApply.Trailers'='true' 'aiapply.trailers'='false'",
           "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "User.Name", "GIT_CONFIG_VALUE_0": "X"}
    got = command_line_settings(env)
    assert got["aiapply.trailers"] == "false" and got["user.name"] == "X"
    with pytest.raises(FatalError):
        command_line_settings({"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "a.b",
                               "GIT_CONFIG_VALUE_0": "1"})


def test_bool_values_as_git_reads_them():
    assert parse_bool(None, "k") is True
    assert [parse_bool(v, "k") for v in ("yes", "On", "1", "2", "no", "off", "0", "")] == \
        [True, True, True, True, False, False, False, False]
    with pytest.raises(FatalError, match="bad boolean config value 'maybe' for 'k'"):
        parse_bool("maybe", "k")


def test_git_c_wins_over_the_config_file(inside: GitRepo, monkeypatch):
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'user.name'='From C'")
    repo = Repo(".")
    assert repo.config_get("user.name") == "From C"
    monkeypatch.delenv("GIT_AUTHOR_NAME")
    assert identity(repo, "author").name == "From C"


# --------------------------------------------------------------------------- the transaction


def _commit_change(repo: Repo, path: str, data: bytes, *, fail_after_ref: bool = False):
    r = repo.repo
    branch, head_id = repo.head()
    with Transaction(repo, (branch, head_id)) as txn:
        final = {path: FileState(MODE_FILE, data)}
        from git_aiapply.plan.plan import Plan

        plan = Plan(final, {path: TreeSnapshot(r, r[head_id].tree, repo.workdir).entry(path)}, [], [])
        entries = write_blobs(r, plan)
        tree = build_tree(r, r[head_id].tree, entries)
        txn.write_worktree(final, entries, head_id, branch)
        committer = identity(repo, "committer")
        commit = write_commit(r, committer, committer, "change\n", tree, [head_id])
        txn.move_ref(branch, commit, head_id, "ai-apply: change", committer)
        if fail_after_ref:
            raise OSError(5, "disk gone")
        txn.install()
    return commit


def test_transaction_commits_worktree_index_and_ref(inside: GitRepo):
    repo = Repo(".")
    commit = _commit_change(repo, "a.txt", b"ALPHA\n")
    assert inside.head() == str(commit)
    assert inside.read("a.txt") == b"ALPHA\n"
    assert inside.git("status", "--porcelain") == ""
    assert not (inside.root / ".git" / "index.lock").exists()
    assert not (inside.root / ".git" / "AI_APPLY_JOURNAL").exists()
    assert reflog(repo.repo, "refs/heads/main")[0].message.startswith("ai-apply: change")


def test_transaction_rolls_back_everything_after_the_ref_moved(inside: GitRepo):
    repo = Repo(".")
    before = inside.snapshot()
    head = inside.head()
    with pytest.raises(FatalError, match="disk gone; nothing was changed"):
        _commit_change(repo, "a.txt", b"ALPHA\n", fail_after_ref=True)
    assert inside.head() == head
    assert inside.snapshot() == before
    assert os.listdir(inside.root / ".git").count("index.lock") == 0


def test_transaction_refuses_a_held_lock_and_a_moved_head(inside: GitRepo):
    repo = Repo(".")
    lock = inside.root / ".git" / "index.lock"
    lock.write_bytes(b"")
    with pytest.raises(FatalError, match="index.lock"):
        with Transaction(repo, repo.head()):
            pass
    assert lock.exists()  # never someone else's lock
    lock.unlink()
    planned = repo.head()
    inside.write("b.txt", "moved\n")
    inside.commit_all("moved")
    with pytest.raises(ApplyError, match="HEAD moved"):
        with Transaction(repo, planned):
            pass
    assert not lock.exists()


def test_transaction_refuses_unmerged_entries(inside: GitRepo):
    inside.git("checkout", "-q", "-b", "other")
    inside.write("a.txt", "other\n")
    inside.commit_all("other")
    inside.git("checkout", "-q", "main")
    inside.write("a.txt", "mine\n")
    inside.commit_all("mine")
    inside.git("merge", "other", check=False)
    repo = Repo(".")
    with pytest.raises(FatalError, match="merge"):
        with Transaction(repo, repo.head()):
            pass


def test_begin_journal_writes_the_runs_kind_before_anything_else(inside: GitRepo):
    """Transaction.begin_journal: the one journal write of write_worktree and of --cached's
    index-only write (git/staging.py), with the transaction's kind."""
    from git_aiapply.git.journal import RunKind, journal_path, read_journal

    repo = Repo(".")
    before = inside.snapshot()
    branch, head_id = repo.head()
    with pytest.raises(FatalError, match="stop; nothing was changed"):
        with Transaction(repo, (branch, head_id), kind=RunKind.CACHED) as txn:
            entries = {"a.txt": (MODE_FILE, repo.repo.create_blob(b"ALPHA\n"))}
            txn.begin_journal({}, head_id, entries, {}, branch)
            note = read_journal(journal_path(repo.gitdir))
            raise OSError(5, "stop")
    assert note.kind == "cached" and note.head == str(head_id) and note.paths == {}
    assert note.final == {"a.txt": [MODE_FILE, str(entries["a.txt"][1])]}
    assert note.written == {} and note.staged_index == []
    assert inside.snapshot() == before
    assert not os.path.exists(journal_path(repo.gitdir))


# --------------------------------------------------------------------------- filters and refs


def test_filters_convert_both_ways(inside: GitRepo):
    inside.write(".gitattributes", "*.crlf text eol=crlf\n*.bin -text\n")
    repo = Repo(".")
    f = filters_of(repo)
    assert f.to_worktree("x.crlf", b"a\nb\n") == b"a\r\nb\r\n"
    assert f.to_git("x.crlf", b"a\r\nb\r\n") == b"a\nb\n"
    assert f.to_worktree("x.bin", b"a\nb\n") == b"a\nb\n"
    assert f.to_worktree("x.txt", b"a\nb\n") == b"a\nb\n"  # autocrlf false, no attribute
