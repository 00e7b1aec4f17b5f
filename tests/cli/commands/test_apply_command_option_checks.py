"""The command checks its options once, with prepare.check_request, before anything else:
before -F's file is read and before the repository's state (a leftover journal), as the
library does (issue 23: the front doors agree)."""
from __future__ import annotations

import json

import pytest

import git_aiapply
from conftest import LOUDER_BETA, GitRepo

DEAD_PID = 2 ** 22 + 12345  # above Linux's pid_max: never a live process


@pytest.fixture
def base(repo: GitRepo, env) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def test_a_refused_option_leaves_the_message_file_unread(base: GitRepo):
    r = base.run("--no-commit", "-F", str(base.root.parent / "missing"), response=LOUDER_BETA)
    assert r.returncode == 2 and "--no-commit makes no commit" in r.err
    assert "cannot read" not in r.err


@pytest.mark.parametrize("args, options", [
    (["-p", "-1"], {"strip": -1}),
    (["--verify"], {"verify": True}),
    (["--cached", "--include-dirty"], {"cached": True, "include_dirty": True}),
])
def test_a_refused_option_is_a_usage_error_before_a_leftover_journal(base: GitRepo, args,
                                                                     options):
    (base.root / ".git" / "AI_APPLY_JOURNAL").write_text(json.dumps({"pid": DEAD_PID}))
    snap = base.snapshot()
    r = base.run(*args, "--json", response=LOUDER_BETA)
    assert r.returncode == 2, r.out + r.err
    with pytest.raises(git_aiapply.InvalidOptions):
        git_aiapply.apply(LOUDER_BETA, repo=base.root, **options)
    # and the journal itself still stops a run whose options are fine, at both doors
    assert base.run("--json", response=LOUDER_BETA).returncode == 128
    with pytest.raises(git_aiapply.FatalError):
        git_aiapply.apply(LOUDER_BETA, repo=base.root)
    assert base.snapshot() == snap
