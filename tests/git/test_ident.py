"""git/ident.py: who a commit is by.  ``run_environ``: the one way the run's --author and
--date (prepare.with_identity, git/ident.IDENTITY_OVERRIDES) reach identity() and the
hooks' environment (githooks.run_hook), over the process's environment, never written
into it."""
from __future__ import annotations

import os

from git_aiapply.git.ident import IDENTITY_OVERRIDES, run_environ


def test_run_environ_is_the_process_environment_with_the_runs_identity_over_it(monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "From Env")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "env@example.com")
    assert run_environ() is os.environ  # nothing given: the environment as it is
    token = IDENTITY_OVERRIDES.set({"GIT_AUTHOR_NAME": "Given"})
    try:
        env = run_environ()
        assert env["GIT_AUTHOR_NAME"] == "Given"
        assert env["GIT_AUTHOR_EMAIL"] == "env@example.com"  # what is not given stays
        assert os.environ["GIT_AUTHOR_NAME"] == "From Env"  # the process's is untouched
    finally:
        IDENTITY_OVERRIDES.reset(token)
    assert run_environ() is os.environ
