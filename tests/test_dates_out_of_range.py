"""Dates out of the range a commit can carry are refused, never an internal error
(dates.py): an epoch number too large for the system's time functions, an ISO date
whose local time falls before year 1, a day with no such month or day of the month
(git reads "2005-13-45" as the 13th of November, we read it as February 2006), a day
before 1970 (git reads "0000-00-00" as now).  Refused here, ``--date`` and
GIT_AUTHOR_DATE are "fatal: invalid date format" (exit 128), as for any date not read."""
from __future__ import annotations

import time

import pytest

from conftest import init_repo, make_env
from git_aiapply.dates import parse_commit_date, parse_git_date


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("GIT_TEST_DATE_NOW", "1700000000")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("value", ["100000100000100000", "@100000100000100000",
                                   "0001-01-01T00:00:00"])
def test_out_of_range_exact_dates_are_no_dates(value):
    assert parse_git_date(value) is None
    assert parse_commit_date(value) is None


@pytest.mark.parametrize("value", ["2005-13-45", "2005-00-10", "2005-04-00", "2005-04-32",
                                   "0000-00-00", "0000-01-01", "1969-12-31"])
def test_impossible_or_early_days_are_no_dates(value):
    assert parse_commit_date(value) is None


@pytest.mark.parametrize("value, expected", [
    ("2005-04-07", (1112912000, 0)),  # the day at the current time of day, as git
    ("2005-02-28", (1109628800, 0)),
    ("1970-01-02", (166400, 0)),
])
def test_days_still_read(value, expected):
    assert parse_commit_date(value) == expected


def test_refused_end_to_end(tmp_path):
    (tmp_path / "home").mkdir()
    repo = init_repo(tmp_path / "repo", make_env(tmp_path / "home"))
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    before = repo.snapshot()
    response = "```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+A\n```\n"
    r = repo.run("--date", "100000100000100000", response=response)
    assert r.returncode == 128, r.err
    assert r.err.startswith("fatal: invalid date format: 100000100000100000"), r.err
    r = repo.run(response=response, env=dict(repo.env, GIT_AUTHOR_DATE="100000100000100000"))
    assert r.returncode == 128, r.err
    assert r.err.startswith("fatal: invalid date format: 100000100000100000"), r.err
    assert repo.snapshot() == before
