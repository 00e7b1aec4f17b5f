"""Matching tiers (BEHAVIOR.md §3) and the per-file line index edits are located with.

Tiers, the first with a match wins, per edit: 0. exact;  1. trailing whitespace ignored;
2. leading and trailing whitespace ignored;  3. typographic punctuation folded (curly
quotes, dashes, odd spaces).  Also here: the file's lines most like an edit's (for a
refusal), and whether a deletion's lines are the whole file.
"""
from __future__ import annotations

from array import array
from collections.abc import Sequence

from .text import FileText

# Typographic characters models substitute for ASCII ones, and odd spaces.
_FOLD = {
    **{ord(c): "'" for c in "\u2018\u2019\u201a\u201b\u2032\u00b4"},
    **{ord(c): '"' for c in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"},
    **{ord(c): "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"},
    **{ord(c): " " for c in "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                            "\u2009\u200a\u202f\u205f\u3000"},
    **{ord(c): None for c in "\u200b\u200c\u200d\u2060\ufeff"},
    ord("\u2026"): "...",
}


def fold_punctuation(s: str) -> str:
    return s.translate(_FOLD)


def norm_line(tier: int, s: str) -> str:
    """``s`` normalised on matching ``tier``."""
    if tier == 0:
        return s
    if tier == 1:
        return s.rstrip()
    if tier == 2:
        return s.strip()
    return fold_punctuation(s).strip()


class LineIndex:
    """Where the normalised values of edit lines occur in one file, per tier.

    Only values that some edit needs are indexed: ``wanted`` (the old lines of every edit
    of the file, given up front) on a tier's first use, and any other value when first
    asked for.  Each is one pass over the file, and memory stays a small fraction of what
    an index of every line would take (the 600,000-line benchmark).  Positions are kept in
    arrays, not lists of int objects: a common line (a blank, a lone brace) occurs
    hundreds of thousands of times in a big file."""

    def __init__(self, lines: Sequence[str], wanted: list[str] | None = None):
        self.lines = lines
        self._wanted = wanted or []
        self._where: dict[int, dict[str, array]] = {}
        self._indexed: dict[int, set[str]] = {}

    def where(self, tier: int, keys) -> dict[str, array]:
        """value -> positions on ``tier``, complete for every value of ``keys``."""
        indexed = self._indexed.get(tier)
        if indexed is None:
            missing = {norm_line(tier, l) for l in self._wanted}
            missing.update(keys)
        else:
            missing = {k for k in keys if k not in indexed}
        if missing:
            self._index(tier, missing)
        return self._where[tier]

    def _index(self, tier: int, values: set[str]) -> None:
        where = self._where.setdefault(tier, {})
        normed = self.lines if tier == 0 else map(lambda l: norm_line(tier, l), self.lines)
        for i, key in enumerate(normed):
            if key in values:
                lst = where.get(key)
                if lst is None:
                    where[key] = array("q", (i,))
                else:
                    lst.append(i)
        self._indexed.setdefault(tier, set()).update(values)

    def normed(self, tier: int, start: int, end: int) -> list[str]:
        """Lines [start, end) normalised on ``tier``."""
        part = self.lines[start:end]
        return part if tier == 0 else [norm_line(tier, l) for l in part]

    def fits(self, old: list[str], tier: int, lo: int = 0, hi: int | None = None) -> list[int]:
        """Start positions (0-based) where ``old`` matches on ``tier``, within [lo, hi)."""
        n = len(old)
        total = len(self.lines)
        hi = total if hi is None else hi
        keys = [norm_line(tier, l) for l in old]
        where = self.where(tier, keys)
        best = None
        best_count = None
        for j, k in enumerate(keys):
            c = len(where.get(k, ()))
            if c == 0:
                return []
            if best_count is None or c < best_count:
                best, best_count = j, c
        out = []
        for p in where[keys[best]]:
            s = p - best
            if s < lo or s + n > min(hi, total):
                continue
            if self.normed(tier, s, s + n) == keys:
                out.append(s)
        return out


def _leading_ws(s: str) -> str:
    return s[: len(s) - len(s.lstrip())]


def indent_shift(file_lines: list[str], old: list[str]) -> tuple[str, str] | None:
    """('more'|'less', prefix) when the file's run is uniformly indented more or less than
    the edit's old lines (blank lines do not count)."""
    kind = prefix = None
    for f, e in zip(file_lines, old):
        if not f.strip() or not e.strip():
            continue
        fw, ew = _leading_ws(f), _leading_ws(e)
        if fw == ew:
            k, p = "same", ""
        elif fw.endswith(ew):
            k, p = "more", fw[: len(fw) - len(ew)]
        elif ew.endswith(fw):
            k, p = "less", ew[: len(ew) - len(fw)]
        else:
            return None
        if kind is None:
            kind, prefix = k, p
        elif (k, p) != (kind, prefix):
            return None
    if kind in (None, "same"):
        return None
    return kind, prefix


def reindent(line: str, shift: tuple[str, str] | None) -> str:
    """An added line moved by a tier-2 match's indentation ``shift``; blank lines emptied."""
    if shift is None or not line.strip():
        return line if line.strip() else ""
    kind, prefix = shift
    if kind == "more":
        return prefix + line
    return line[len(prefix):] if line.startswith(prefix) else line.lstrip()


def nearby_lines(lines: Sequence[str], old: list[str], index: LineIndex) -> list[tuple[int, str]]:
    """The file's lines most like the edit's old side, numbered from 1, for the error."""
    n = len(lines)
    if n == 0:
        return []
    where = index.where(3, [norm_line(3, l) for l in old])
    votes: dict[int, int] = {}
    for i, l in enumerate(old):
        k = norm_line(3, l)
        if not k:
            continue
        occ = where.get(k, ())
        if len(occ) > 50:  # too common to say anything
            continue
        for p in occ:
            votes[p - i] = votes.get(p - i, 0) + 1
    if votes:
        start = max(votes, key=lambda s: (votes[s], -s))
    else:
        import difflib

        probe = next((norm_line(3, l) for l in old if l.strip()), "")
        if not probe:
            return []
        start = None
        best = 0.6
        for i, k in enumerate(index.normed(3, 0, 20000)):
            if not k:
                continue
            m = difflib.SequenceMatcher(None, probe, k)
            if m.real_quick_ratio() > best and m.quick_ratio() > best:
                r = m.ratio()
                if r > best:
                    best, start = r, i
        if start is None:
            return []
    lo = max(0, start - 2)
    hi = min(n, max(start + len(old), start + 1) + 2, lo + 14)
    lo = max(0, min(lo, n - 1))
    return [(i + 1, lines[i]) for i in range(lo, hi)]


def quote_short(text: str, limit: int = 70) -> str:
    """A line for an error message: repr()'d, cut to ``limit`` characters."""
    t = text if len(text) <= limit else text[:limit - 3] + "..."
    return repr(t)


def whole_content_difference(ft: FileText, old: list[str]) -> str | None:
    """Why ``old`` (a deletion's removed lines) is not the whole of ``ft``, or None when it
    is, on the first tier where every line matches (as edits are located)."""
    lines = ft.lines
    n = len(lines)
    if len(old) == n:
        for tier in range(4):
            if all(norm_line(tier, a) == norm_line(tier, b) for a, b in zip(old, lines)):
                return None
    if not old:
        return f"the diff lists none of the file's {n} lines"
    if len(old) < n and all(norm_line(3, a) == norm_line(3, b) for a, b in zip(old, lines)):
        return f"its '-' lines cover only the first {len(old)} of the file's {n} lines"
    for j, (a, b) in enumerate(zip(old, lines)):
        if norm_line(3, a) != norm_line(3, b):
            return f"line {j + 1} of the file is {quote_short(b)} where the diff has {quote_short(a)}"
    return f"the diff has {len(old)} '-' lines but the file has only {n}"

