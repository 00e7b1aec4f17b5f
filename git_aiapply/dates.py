"""Dates as git reads them: the exact forms ``GIT_AUTHOR_DATE`` takes, and ``git commit
--date``'s approximate ones; and as git writes them (``zone``, ``env_date``).  Pure (no repository); the clock is git's own test clock
(``GIT_TEST_DATE_NOW``) when set."""
from __future__ import annotations

import os
import time


def parse_git_date(value: str) -> tuple[int, int] | None:
    """(epoch seconds, offset minutes) of a GIT_*_DATE value, as git accepts them: epoch
    seconds (``@`` optional; without a zone, the local one), ISO 8601, RFC 2822."""
    try:
        return _read_git_date(value)
    except (OverflowError, OSError, ValueError):
        return None  # beyond what the system's time functions hold: no date to commit


def _read_git_date(value: str) -> tuple[int, int] | None:
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


def zone(offset: int) -> str:
    """A zone offset in minutes as git writes it in commits, reflogs and dates: ``+HHMM``."""
    sign = "-" if offset < 0 else "+"
    return f"{sign}{abs(offset) // 60:02d}{abs(offset) % 60:02d}"


def env_date(seconds: int, offset: int) -> str:
    """A date as git commit exports it to the commit and its hooks (GIT_AUTHOR_DATE):
    ``@SECONDS +HHMM``."""
    return f"@{seconds} {zone(offset)}"


def _local_offset(seconds: int) -> int:
    return time.localtime(seconds).tm_gmtoff // 60


def now_seconds() -> int:
    """The time now, or git's own test clock (GIT_TEST_DATE_NOW) when set, as git reads
    it for approximate dates."""
    fixed = os.environ.get("GIT_TEST_DATE_NOW", "")
    return int(fixed) if fixed.isdigit() else int(time.time())


def parse_commit_date(value: str) -> tuple[int, int] | None:
    """``git commit --date``: what GIT_AUTHOR_DATE takes (``parse_git_date``), a day
    alone (``2005-04-07``, at the current time of day, as git), and git's approximate
    dates as its approxidate reads them (``approximate``).  None for anything else."""
    import re

    v = value.strip()
    day = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)", v)
    if day:
        return _day_at_now(*(int(g) for g in day.groups()))
    exact = parse_git_date(value)
    if exact is not None:
        return exact
    secs = approximate(v, now_seconds())
    return None if secs is None else (secs, _local_offset(secs))


def _day_at_now(year: int, month: int, day: int) -> tuple[int, int] | None:
    """A day at the current time of day, as git reads it; None for a month or a day of
    the month that no calendar has, or a day before 1970 (git reads those otherwise)."""
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    lt = time.localtime(now_seconds())
    try:
        secs = int(time.mktime((year, month, day, lt.tm_hour, lt.tm_min, lt.tm_sec, 0, 0, -1)))
    except (OverflowError, ValueError):
        return None
    return None if secs < 0 else (secs, _local_offset(secs))


# --------------------------------------------------------------------------- approxidate
#
# A port of git's approxidate_str (date.c), restricted to what people mean: the words
# below, a count before a unit or a weekday, an hour before am/pm, and HH:MM[:SS].  Where
# git would quietly ignore a word or take a stray number for a day of the month, a month
# or a year ("2 fortnights ago" is the 2nd, "1 sec ago" the 1st, "12345" is now), we
# refuse: a wrong date committed silently is worse than a refusal.  So we do for noon,
# midnight and tea with anything else: git takes "the last noon before" a time already
# moved, so in the morning "yesterday noon" is the noon of two days ago ("yesterday 12:00"
# says it plainly and is read as meant).

_NUMBER_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                 "nine", "ten")
_UNITS = (("seconds", 1), ("minutes", 60), ("hours", 3600), ("days", 86400),
          ("weeks", 7 * 86400))
_WEEKDAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
           "september", "october", "november", "december")


_IGNORED = ("ago", "at")  # words git passes over that say nothing more ("yesterday at 5pm")


class _Unread(Exception):
    """A form git would read as something nobody meant, or not at all."""


def _match(word: str, name: str) -> int:
    """git's match_string for a whole word: how many leading characters of ``name`` it
    spells (any case), 0 when it parts from ``name`` or runs past it."""
    if len(word) > len(name) or name[:len(word)] != word.lower():
        return 0
    return len(word)


class _Tm:
    """C's struct tm as approxidate uses it: year since 1900, month 0-11, -1 = unset."""

    def __init__(self, seconds: int):
        self.set(seconds)

    def set(self, seconds: int) -> None:
        t = time.localtime(seconds)
        self.year, self.mon, self.mday = t.tm_year - 1900, t.tm_mon - 1, t.tm_mday
        self.hour, self.min, self.sec = t.tm_hour, t.tm_min, t.tm_sec
        self.wday, self.isdst = (t.tm_wday + 1) % 7, t.tm_isdst

    def mktime(self) -> int:
        return int(time.mktime((self.year + 1900, self.mon + 1, self.mday, self.hour, self.min,
                                self.sec, 0, 0, self.isdst)))


def _update(tm: _Tm, now: _Tm, seconds: int) -> int:
    """git's update_tm: fill the unset date fields from now, go back ``seconds``."""
    if tm.mday < 0:
        tm.mday = now.mday
    if tm.mon < 0:
        tm.mon = now.mon
    if tm.year < 0:
        tm.year = now.year
        if tm.mon > now.mon:
            tm.year -= 1
    n = tm.mktime() - seconds
    if n < 0:
        raise _Unread  # before 1970: git writes no such date
    tm.set(n)
    return n


def _at_hour(tm: _Tm, now: _Tm, hour: int) -> None:
    """git's date_time (noon, midnight, tea): the last such hour, on the hour."""
    if tm.hour < hour:
        _update(tm, now, 86400)
    tm.hour, tm.min, tm.sec = hour, 0, 0


_HOUR_WORDS = {"noon": 12, "midnight": 0, "tea": 17}


class _Reading:
    """approxidate's state while it reads a date's words left to right: the date so far
    (``tm``), the clock it started from, and a count waiting for its unit."""

    def __init__(self, now_secs: int):
        self.tm, self.now = _Tm(now_secs), _Tm(now_secs)
        self.tm.year = self.tm.mon = self.tm.mday = -1
        self.num = 0  # git's pending number
        self.touched = False  # something was read
        self.hour_word = False  # noon, midnight or tea was read

    def separator(self, char: str, following: str) -> None:
        """Anything but ASCII digits and letters separates words, as git's ctype."""
        if char.isdigit() or char.isalpha():  # a non-ASCII digit or letter
            raise _Unread
        if char in "-/." and following.isdigit():
            raise _Unread  # a date written with separators: git's own rules

    def number(self, digits: str, clock: str | None) -> None:
        """A count waiting for its unit, or a time of day (HH:MM[:SS])."""
        if self.num:
            raise _Unread  # git would take the earlier number for a day or month
        self.touched = True
        if clock is not None:
            parts = [int(x) for x in clock[1:].split(":")] + [0]
            hour, minute, second = int(digits), parts[0], parts[1]
            if not (hour < 25 and minute < 60 and second <= 60):
                raise _Unread
            self.tm.hour, self.tm.min, self.tm.sec = hour, minute, second
            return
        if digits[0] == "0" and len(digits) > 2:
            raise _Unread  # git ignores a zero-padded long number
        self.num = int(digits)
        if self.num == 0:
            raise _Unread  # "0 days": git drops the count, then the unit

    def word(self, w: str, following: str) -> None:
        """A word (lower case): one that stands alone, a count, or the unit of a count."""
        if following.isdigit():
            raise _Unread  # "friday5pm": git's words end at a non-alphanumeric
        if any(_match(w, month) >= 3 for month in _MONTHS):
            raise _Unread  # a month name: dates are for the exact forms
        if w in ("yesterday", "now"):
            if self.num:
                raise _Unread
            _update(self.tm, self.now, 86400 if w == "yesterday" else 0)
        elif w in _HOUR_WORDS:
            if self.touched:
                raise _Unread  # see above: git moves back a day more than meant
            self.hour_word = True
            _at_hour(self.tm, self.now, _HOUR_WORDS[w])
        elif w in ("am", "pm"):
            self.am_pm(w)
        elif not self.num:
            if w in _IGNORED:
                return  # read nothing, as in git
            self.num = self.count_word(w)
        else:
            self.go_back(w)
            self.num = 0
        self.touched = True

    def am_pm(self, w: str) -> None:
        """The count before it is an hour."""
        if not self.num:
            raise _Unread  # git makes the current hour am or pm
        self.tm.hour = self.num % 12 + (12 if w == "pm" else 0)
        self.tm.min = self.tm.sec = 0
        self.num = 0

    @staticmethod
    def count_word(w: str) -> int:
        """A count written as a word ("two", "last")."""
        if w in _NUMBER_NAMES[1:]:
            return _NUMBER_NAMES.index(w)
        if w == "last":
            return 1
        raise _Unread  # git ignores words it does not know: we refuse them

    def go_back(self, w: str) -> None:
        """The pending count of the unit or weekday ``w``, back from the date so far."""
        unit = next((length for name, length in _UNITS if _match(w, name) >= len(name) - 1),
                    None)
        day = next((i for i, name in enumerate(_WEEKDAYS) if _match(w, name) >= 3), None)
        tm, now, num = self.tm, self.now, self.num
        if unit is not None:
            _update(tm, now, unit * num)
        elif day is not None:
            n = num - 1
            diff = tm.wday - day
            if diff <= 0:
                n += 1
            _update(tm, now, (diff + 7 * n) * 86400)
        elif _match(w, "months") >= 5:
            _update(tm, now, 0)
            years, tm.mon = divmod(tm.mon - num, 12)  # git steps back a year at a time
            tm.year += years
        elif _match(w, "years") >= 4:
            _update(tm, now, 0)
            tm.year -= num
        else:
            raise _Unread  # git ignores the word and keeps the number
        if tm.year < 0:
            raise _Unread  # before 1900: git takes the year for unset and writes now's


def approximate(text: str, now_secs: int) -> int | None:
    """The seconds git's approxidate gives ``text`` at ``now_secs`` (local time, as git
    reads it), or None when ``text`` is not one of the forms read here."""
    import re

    reading = _Reading(now_secs)
    try:
        for m in re.finditer(r"([0-9]+)(:[0-9]+(?::[0-9]+)?)?|([a-zA-Z]+)|(.)", text, re.S):
            digits, clock, word, other = m.groups()
            following = text[m.end():m.end() + 1]
            if other is not None:
                reading.separator(other, following)
            elif reading.hour_word and (digits is not None or word.lower() not in _IGNORED):
                raise _Unread  # noon, midnight, tea with anything else: see above
            elif digits is not None:
                reading.number(digits, clock)
            else:
                reading.word(word.lower(), following)
        if reading.num or not reading.touched:
            return None  # git takes a last stray number for a day; nothing read: an error
        return _update(reading.tm, reading.now, 0)
    except (_Unread, OverflowError, OSError, ValueError):  # unread, or out of time's range
        return None
