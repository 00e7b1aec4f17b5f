"""prepare.prepare and git/checks.py as plain functions (issue 23): the one preparation every
front door calls, on a stand-in repository whose config is a dict."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aiapply.errors import ApplyError, ErrorKind, FatalError, UsageError
from git_aiapply.git.checks import refuse_interrupted
from git_aiapply.run.prepare import options_for, prepare

DEAD_PID = 2 ** 22 + 12345  # above Linux's pid_max: never a live process


class ConfigRepo:
    """What prepare reads of a repository: its git dir, config and worktree."""

    def __init__(self, gitdir, config=None, bare=False):
        self.gitdir, self.config, self.bare = str(gitdir), dict(config or {}), bare
        self.workdir = None if bare else str(gitdir)

    def config_get(self, key):
        return self.config.get(key)

    def config_bool(self, key, default):
        value = self.config.get(key)
        return default if value is None else value == "true"

    def config_int(self, key, default, minimum=None):
        value = self.config.get(key)
        if value is not None and minimum is not None and int(value) < minimum:
            raise FatalError(f"bad numeric config value for {key}", kind="config")
        return default if value is None else int(value)

    def config_choice(self, key, choices):
        value = self.config.get(key)
        if value is not None and value not in choices:
            raise FatalError(f"bad config value '{value}' for '{key}'", kind="config")
        return value

    def require_worktree(self, bare):
        if self.bare:
            raise UsageError(bare)


def ready(repo, request):
    """What a front door does: prepare, then the pipeline's Options."""
    return options_for(repo, prepare(repo, request))


def test_defaults_come_from_the_config_and_given_options_win(tmp_path):
    repo = ConfigRepo(tmp_path, {"aiapply.includeDirty": "true", "aiapply.threeWay": "true",
                                 "aiapply.maxResponseBytes": "99", "aiapply.format": "hashline"})
    o, p = ready(repo, {}), prepare(repo, {})
    assert (o.include_dirty, o.three_way, p.max_bytes, o.format) == (True, True, 99, "hashline")
    given_ = {"include_dirty": False, "three_way": False, "max_bytes": 5, "format": "unified-diff"}
    o, p = ready(repo, given_), prepare(repo, given_)
    assert (o.include_dirty, o.three_way, p.max_bytes, o.format) == \
        (False, False, 5, "unified-diff")


def test_a_bad_format_setting_is_fatal_and_a_bad_format_option_a_usage_error(tmp_path):
    repo = ConfigRepo(tmp_path, {"aiapply.format": "klingon"})
    with pytest.raises(FatalError) as e:
        ready(repo, {})
    assert e.value.kind == ErrorKind.CONFIG and "klingon" in e.value.message
    with pytest.raises(UsageError, match="unknown format 'nope'"):
        ready(ConfigRepo(tmp_path), {"format": "nope"})


def test_base_goes_with_branch_or_three_way_from_the_config(tmp_path):
    with pytest.raises(UsageError, match="--base goes with --branch or -3"):
        prepare(ConfigRepo(tmp_path), {"base": "HEAD"})
    assert prepare(ConfigRepo(tmp_path, {"aiapply.threeWay": "true"}), {"base": "HEAD"})
    assert prepare(ConfigRepo(tmp_path), {"base": "HEAD", "branch": "b"})


def test_base_alone_is_one_rule_whether_three_way_is_turned_off_or_left_to_the_config(
        tmp_path):
    """--base without --branch: refused up front when -3 is turned off (check_request), at
    preparation when the config must say (aiapply.threeWay), in the same words."""
    from git_aiapply.doors.api import option_word
    from git_aiapply.run.prepare import check_request

    for words in (None, option_word):
        with pytest.raises(UsageError) as early:
            check_request({"base": "HEAD", "three_way": False}, words)
        with pytest.raises(UsageError) as late:
            prepare(ConfigRepo(tmp_path), {"base": "HEAD"}, words=words)
        assert str(early.value) == str(late.value)
    check_request({"base": "HEAD"})  # -3 not given: the config decides, later


@pytest.mark.parametrize("request_, commits", [
    ({}, True), ({"check": True}, False), ({"diff": True}, False), ({"branch": "b"}, False)])
def test_only_a_run_that_commits_to_the_worktree_takes_the_lock_ahead(tmp_path, request_,
                                                                       commits):
    assert prepare(ConfigRepo(tmp_path), request_).commits is commits


def test_a_bare_repository_needs_a_branch(tmp_path):
    with pytest.raises(UsageError, match="--branch"):
        prepare(ConfigRepo(tmp_path, bare=True), {})
    assert not prepare(ConfigRepo(tmp_path, bare=True), {"branch": "b"}).commits


def test_a_leftover_journal_is_the_repository_state_with_its_cure(tmp_path):
    (tmp_path / "AI_APPLY_JOURNAL").write_text(json.dumps({"pid": DEAD_PID}))
    for run in (lambda: refuse_interrupted(str(tmp_path)),
                lambda: ready(ConfigRepo(tmp_path), {"check": True})):
        with pytest.raises(FatalError) as e:
            run()
        assert e.value.kind == ErrorKind.STATE and e.value.exit_code == 128
        assert "nothing was changed" in e.value.message and "recover" in e.value.hint
    # a branch run does not touch the worktree: the journal does not concern it
    assert ready(ConfigRepo(tmp_path), {"branch": "b"}).branch == "b"


def test_a_bad_setting_read_for_the_message_is_fatal_before_any_response(tmp_path):
    with pytest.raises(FatalError) as e:
        ready(ConfigRepo(tmp_path, {"aiapply.subjectLength": "0"}), {})
    assert e.value.kind == ErrorKind.CONFIG


KINDS = {k.value for k in ErrorKind}


@settings(max_examples=150, deadline=None)
@given(st.one_of(st.sampled_from(sorted(KINDS)), st.text(max_size=12)))
def test_only_error_kinds_can_be_written(kind):
    for make in (lambda: ApplyError("x", kind=kind), lambda: FatalError("x", kind=kind)):
        if kind in KINDS:
            assert make().kind == kind
        else:
            with pytest.raises(ValueError):
                make()
