"""prepare.with_identity: --author and --date reach the commit and its hooks the same way from
every front door (git/ident.IDENTITY_OVERRIDES, set around the run), never through the
process's environment (issue 23)."""
from __future__ import annotations

import os

from git_aiapply.git.ident import IDENTITY_OVERRIDES
from git_aiapply.run.prepare import Prepared, with_identity


def test_the_identity_is_seen_during_the_run_only_and_the_environment_stays():
    identity = {"GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "a@u.thor"}
    environ = dict(os.environ)
    seen = with_identity(Prepared({}, 0, identity=identity), IDENTITY_OVERRIDES.get)
    assert seen == identity and IDENTITY_OVERRIDES.get() is None
    assert dict(os.environ) == environ
    assert with_identity(Prepared({}, 0), IDENTITY_OVERRIDES.get) is None


def test_the_identity_is_taken_back_when_the_run_fails():
    def fails():
        raise KeyboardInterrupt

    try:
        with_identity(Prepared({}, 0, identity={"GIT_AUTHOR_NAME": "x"}), fails)
    except KeyboardInterrupt:
        pass
    assert IDENTITY_OVERRIDES.get() is None
