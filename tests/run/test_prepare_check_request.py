"""prepare.check_request: the one check of the options themselves (issue 23), run once per
run, in the command's words for the command and the library's for the library."""
from __future__ import annotations

import pytest

import git_aiapply
from git_aiapply.run import prepare
from git_aiapply.doors.api import InvalidOptions, option_word, validate_options
from git_aiapply.errors import UsageError

from conftest import LOUDER_BETA, GitRepo

REFUSED = [
    ({"format": "nope"}, "unknown format 'nope'", "unknown format 'nope'"),
    ({"verify": True}, "--verify goes with --branch", "verify (--verify) goes with branch"),
    ({"base": "HEAD", "three_way": False}, "--base goes with --branch or -3",
     "base (--base) goes with branch (--branch)"),
    ({"max_bytes": -1}, "--max-bytes takes a number", "max_bytes (--max-bytes) takes"),
    ({"strip": -1}, "-p takes a number", "strip (-p) takes"),
    ({"directory": "/abs"}, "an absolute folder", "an absolute folder"),
    ({"no_commit": True, "cached": True}, "--no-commit and --cached cannot",
     "no_commit (--no-commit) and cached (--cached) cannot"),
    ({"cached": True, "message": "m"}, "--cached makes no commit: it cannot be used with -m/-F",
     "cached (--cached) makes no commit: it cannot be used with message (-m)"),
]


@pytest.mark.parametrize("request_, command, library", REFUSED)
def test_one_rule_two_wordings(request_, command, library):
    with pytest.raises(UsageError, match=None) as e:
        prepare.check_request(request_)
    assert command in str(e.value)
    with pytest.raises(InvalidOptions) as e:
        validate_options(request_)
    assert library in str(e.value)
    with pytest.raises(UsageError) as e:
        prepare.check_request(request_, option_word)
    assert library in str(e.value)


@pytest.fixture
def base(repo: GitRepo, env) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def test_a_library_run_checks_its_options_once(base: GitRepo, monkeypatch):
    calls = []
    checks = prepare.check_request
    monkeypatch.setattr(prepare, "check_request", lambda *a: calls.append(a) or checks(*a))
    assert git_aiapply.check(LOUDER_BETA, repo=base.root).status == "would-apply"
    assert len(calls) == 1
    with pytest.raises(InvalidOptions, match="makes no commit"):
        git_aiapply.apply(LOUDER_BETA, repo=base.root, no_commit=True, message="m")
    assert len(calls) == 2
