"""`--date` as `git commit --date` reads it (dates.py, a pure module): every form we read
gives the very timestamp and zone git gives, with git's own test clock fixed
(GIT_TEST_DATE_NOW) in several zones and at several times of day and week; every form git
reads in a way nobody means ("2 fortnights ago" is the 2nd of the month, "12345" is now)
or that we do not read is refused, never mis-read."""
from __future__ import annotations

import subprocess
import time

import pytest

from conftest import init_repo, make_env
from git_aiapply.dates import parse_commit_date

# (now, zone): a Wednesday early morning in India; a Sunday evening in New York just
# before the autumn DST change; a Monday noon in Berlin on the spring DST change day;
# a Saturday 00:30 in UTC (noon, midnight and weekdays around the day's edges)
CLOCKS = [
    ("1700000000", "Asia/Kolkata"),
    ("1699138800", "America/New_York"),
    ("1711886400", "Europe/Berlin"),
    ("1700281800", "UTC"),
]

READ = [
    # git's approximate dates
    "now", "yesterday", "noon", "midnight", "tea", "Yesterday", "NOW",
    "yesterday at 5pm", "last friday at 10:30", "3 days ago at 17:00", "at noon",
    "1 second ago", "5 seconds ago", "1 minute ago", "30 minutes ago", "1 hour ago",
    "3 hours ago", "1 day ago", "2 days ago", "1 week ago", "3 weeks ago", "1 month ago",
    "2 months ago", "13 months ago", "1 year ago", "2 years ago", "10 minutes",
    "3.days.ago", "2.weeks.ago", "1.hour.ago", "3days ago", "2 days, ago",
    "two days ago", "ten minutes ago", "one week ago",
    "last week", "last month", "last year", "last day",
    "last friday", "last monday", "last sunday", "last wednesday", "last sat",
    "yesterday 5pm", "yesterday 17:30", "yesterday 9am", "yesterday 12:00",
    "3 days ago 17:00", "3 days ago 17:00:05", "last friday 10:30", "5pm", "12am", "12pm",
    "17:00", "2 hours ago 12:15", "2 Days Ago", "50 years ago", "last fri 10:30",
    # exact forms
    "@1234567890", "@1234567890 +0200", "@1234567890 -0730", "1234567890",
    "2005-04-07", "2005-04-07T22:13:13", "2005-04-07 22:13:13", "2005-04-07T22:13:13Z",
    "2005-04-07T22:13:13+02:00", "2005-04-07 22:13:13 +0200", "2005-04-07T22:13:13 -0700",
    "Thu, 07 Apr 2005 22:13:13 +0200", "Thu, 7 Apr 2005 22:13:13 -0700",
    "Thu Apr 7 22:13:13 2005 +0200",
]

REFUSED = [
    "garbage", "sometime", "tomorrow", "friday", "this friday", "next week", "days ago",
    "2 fortnights ago", "1 sec ago", "3 mins ago", "1 hr ago", "12345", "3 days ago 5",
    "last 3 days", "never", "march", "last march", "pm", "3 noon", "now-ish", "2 dayz ago",
    "2 days agoo", "", "friday5pm", "last friday5pm", "100000 days ago", "60 years ago",
    "99999999999999999999 days ago", "1.5 hours ago", "-5 days", "\u0661 day ago",
    "0 days ago", "25:00", "yesterday 3", "3 ago",
    # git reads these a day earlier than meant when it runs before noon (or 17:00)
    "yesterday noon", "noon yesterday", "midnight yesterday", "noon 3 days ago",
    "last friday noon", "tea 2 days ago", "noon 5pm", "noon at 3pm",
]


def _git_date(repo, date: str, env: dict) -> str | None:
    p = subprocess.run(["git", "commit", "-q", "--allow-empty", "-m", "d", "--date", date],
                       cwd=repo.root, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        assert p.returncode == 128 and "invalid date format" in p.stderr, p.stderr
        return None
    return subprocess.run(["git", "log", "-1", "--format=%ad", "--date=raw"], cwd=repo.root,
                          env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    root = tmp_path_factory.mktemp("dates")
    (root / "home").mkdir()
    env = make_env(root / "home")
    return init_repo(root / "repo", env), env


@pytest.fixture
def clock(request, monkeypatch):
    now, zone = request.param
    monkeypatch.setenv("GIT_TEST_DATE_NOW", now)
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    yield now, zone
    monkeypatch.undo()
    time.tzset()


def _ours(date: str) -> str | None:
    parsed = parse_commit_date(date)
    if parsed is None:
        return None
    secs, off = parsed
    return f"{secs} {'-' if off < 0 else '+'}{abs(off) // 60:02d}{abs(off) % 60:02d}"


@pytest.mark.parametrize("clock", CLOCKS, indirect=True, ids=lambda c: c[1])
def test_every_form_we_read_is_read_as_git_reads_it(scratch, clock):
    repo, env = scratch
    env = dict(env, GIT_TEST_DATE_NOW=clock[0], TZ=clock[1])
    differ = {}
    for date in READ:
        theirs = _git_date(repo, date, env)
        assert theirs is not None, f"git does not read {date!r}: the list is wrong"
        ours = _ours(date)
        if ours != theirs:
            differ[date] = (ours, theirs)
    assert differ == {}


@pytest.mark.parametrize("clock", CLOCKS[:2], indirect=True, ids=lambda c: c[1])
def test_forms_we_do_not_read_are_refused(scratch, clock):
    """git reads some of these (into something nobody meant); we refuse all of them."""
    repo, env = scratch
    env = dict(env, GIT_TEST_DATE_NOW=clock[0], TZ=clock[1])
    read = {date: _ours(date) for date in REFUSED if _ours(date) is not None}
    assert read == {}
    # and git itself refuses the ones it cannot read at all, as we do
    for date in ("garbage", "friday", "tomorrow", "days ago"):
        assert _git_date(repo, date, env) is None, date


def test_refused_dates_are_fatal_end_to_end(tmp_path):
    (tmp_path / "home").mkdir()
    repo = init_repo(tmp_path / "repo", make_env(tmp_path / "home"))
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    before = repo.snapshot()
    for date in ("2 fortnights ago", "1 sec ago"):
        r = repo.run("--date", date, response="```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+A\n```\n")
        assert r.returncode == 128, r.err
        assert r.err.startswith(f"fatal: invalid date format: {date}"), r.err
        assert repo.snapshot() == before


@pytest.mark.parametrize("seconds, offset, value", [
    (1700000000, 0, "@1700000000 +0000"), (1700000000, 330, "@1700000000 +0530"),
    (5, -300, "@5 -0500"), (5, -30, "@5 -0030")])
def test_a_date_as_git_writes_it_and_exports_it_to_hooks(seconds, offset, value):
    """dates.zone and env_date: the zone and GIT_AUTHOR_DATE value, written once for the
    author date given (--date), the hooks' environment, commit lines, reflogs and git's
    date; read back by parse_git_date as the same date."""
    from git_aiapply.dates import env_date, parse_git_date, zone

    assert env_date(seconds, offset) == value
    assert zone(offset) == value.split(" ")[1]
    assert parse_git_date(value) == (seconds, offset)
