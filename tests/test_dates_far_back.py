"""Approximate dates that reach back before 1970 are refused, however they get there
(dates.py).  git reads a year before 1900 as "no year given" and puts now's year in its
place, so "130 years ago" is now and "2000 months ago" is this March: a wrong date that
would be committed silently.  A huge count of months is refused at once too (the months
were counted back one year at a time: "9999999999 months ago" never finished)."""
from __future__ import annotations

import time

import pytest

from git_aiapply.dates import approximate, parse_commit_date

NOW = 1700000000  # 2023-11-14 22:13:20 UTC


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("text", [
    "60 years ago", "130 years ago", "200 years ago", "1000 years ago", "99999 years ago",
    "1000 months ago", "2000 months ago", "20000 months ago", "99999999 months ago",
    "9999999999 months ago", "99999999999999999999 months ago",
    "99999999999999999999 years ago",
])
def test_before_1970_is_refused(text):
    assert approximate(text, NOW) is None


@pytest.mark.parametrize("text, expected", [
    # still read as git reads them (tests/test_dates.py checks these against git itself)
    ("1 month ago", 1697321600),
    ("13 months ago", 1665785600),
    ("1 year ago", 1668464000),
    ("50 years ago", 122163200),
])
def test_months_and_years_back_still_read(text, expected):
    assert approximate(text, NOW) == expected


def test_a_refused_date_is_no_commit_date():
    assert parse_commit_date("130 years ago") is None
