"""Dates as git reads them: the exact forms ``GIT_AUTHOR_DATE`` takes, and ``git commit
--date``'s approximate ones.  Pure (no repository); the clock is git's own test clock
(``GIT_TEST_DATE_NOW``) when set."""
from __future__ import annotations

import os
import time


def parse_git_date(value: str) -> tuple[int, int] | None:
    """(epoch seconds, offset minutes) of a GIT_*_DATE value, as git accepts them: epoch
    seconds (``@`` optional; without a zone, the local one), ISO 8601, RFC 2822."""
    import datetime as _dt
    import re
    from email.utils import parsedate_tz

    v = value.strip()
    m = re.fullmatch(r"@?(\d+)(?:\s+([+-])(\d\d)(\d\d))?", v)
    if m and (v.startswith("@") or len(m.group(1)) >= 9):  # git: 100000000 and up
        secs = int(m.group(1))
        if m.group(2) is None:
            return secs, _local_offset(secs)
        sign = -1 if m.group(2) == "-" else 1
        return secs, sign * (int(m.group(3)) * 60 + int(m.group(4)))
    if m:
        return None  # a small number alone is no date (git reads "2 days ago" whole)
    try:
        d = _dt.datetime.fromisoformat(v.replace(" +", "+").replace(" -", "-")) if "T" in v or "-" in v[:5] else None
    except ValueError:
        d = None
    if d is not None:
        if d.tzinfo is None:
            d = d.astimezone()
        off = int(d.utcoffset().total_seconds() // 60)
        return int(d.timestamp()), off
    t = parsedate_tz(v)
    if t:
        import calendar

        off = (t[9] or 0)
        secs = calendar.timegm(t[:9]) - off
        return secs, off // 60
    return None


def _local_offset(seconds: int) -> int:
    return time.localtime(seconds).tm_gmtoff // 60


def now_seconds() -> int:
    """The time now, or git's own test clock (GIT_TEST_DATE_NOW) when set, as git reads
    it for approximate dates."""
    fixed = os.environ.get("GIT_TEST_DATE_NOW", "")
    return int(fixed) if fixed.isdigit() else int(time.time())


_SECONDS_IN = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}


def parse_commit_date(value: str) -> tuple[int, int] | None:
    """``git commit --date``: what GIT_AUTHOR_DATE takes, and of git's approximate dates
    the common ones: ``now``, ``yesterday``, ``N seconds|minutes|hours|days|weeks|months|
    years [ago]`` (spaces or dots between), a day alone (``2005-04-07``, at the current
    time of day, as git). None for anything else (git reads more; we refuse rather than
    guess)."""
    import re

    v = value.strip().lower()
    now = now_seconds()
    lt = time.localtime(now)
    day = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)", v)
    if day:
        y, mo, d = (int(g) for g in day.groups())
        secs = int(time.mktime((y, mo, d, lt.tm_hour, lt.tm_min, lt.tm_sec, 0, 0, -1)))
        return secs, _local_offset(secs)
    exact = parse_git_date(value)
    if exact is not None:
        return exact
    if v == "now":
        secs = now
    elif v == "yesterday":
        secs = now - 86400
    else:
        rel = re.fullmatch(r"(\d+)[\s.]+(second|minute|hour|day|week|month|year)s?(?:[\s.]+ago)?", v)
        if rel is None:
            return None
        n, unit = int(rel.group(1)), rel.group(2)
        if unit in _SECONDS_IN:
            secs = now - n * _SECONDS_IN[unit]
        else:  # months and years move the calendar, keeping the day and the time
            months = lt.tm_year * 12 + lt.tm_mon - 1 - (n if unit == "month" else 12 * n)
            y, mo = divmod(months, 12)
            secs = int(time.mktime((y, mo + 1, lt.tm_mday, lt.tm_hour, lt.tm_min, lt.tm_sec,
                                    0, 0, -1)))
    return secs, _local_offset(secs)
