"""Matching tiers (BEHAVIOR.md §3) and the per-file line index edits are located with.

Tiers, the first with a match wins, per edit: 0. exact;  1. trailing whitespace ignored;
2. leading and trailing whitespace ignored;  3. typographic punctuation folded (curly
quotes, dashes, odd spaces).  What a loose tier tolerated is corrected in an edit's added
lines: the indentation mapping (``indent_mapping``) here, the punctuation and the
correction of each added line in ``corrections.py``.  Also here: the file's
lines most like an edit's (for a refusal), and whether a deletion's lines are the whole
file.
"""
from __future__ import annotations

from array import array
from collections.abc import Sequence
from math import gcd

from ..record import record
from ..text import FileText

# Typographic characters models substitute for ASCII ones, and odd spaces (what each folds to).
PUNCTUATION_FOLD = {
    **{ord(c): "'" for c in "\u2018\u2019\u201a\u201b\u2032\u00b4"},
    **{ord(c): '"' for c in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"},
    **{ord(c): "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"},
    **{ord(c): " " for c in "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                            "\u2009\u200a\u202f\u205f\u3000"},
    **{ord(c): None for c in "\u200b\u200c\u200d\u2060\ufeff"},
    ord("\u2026"): "...",
}


def fold_punctuation(s: str) -> str:
    return s.translate(PUNCTUATION_FOLD)


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

    def first_fits(self, old: list[str], lo: int = 0, hi: int | None = None,
                   keep=None) -> tuple[int, list[int]]:
        """(tier, starts) of the first tier where ``old`` fits within [lo, hi) (the first
        tier with a match wins, BEHAVIOR.md §3); ``keep(start)`` filters the fits before a
        tier counts as fitting.  (4, []) when no tier fits."""
        for tier in range(4):
            fits = self.fits(old, tier, lo=lo, hi=hi)
            if keep is not None:
                fits = [s for s in fits if keep(s)]
            if fits:
                return tier, fits
        return 4, []


def common_ends(a: Sequence, b: Sequence) -> tuple[int, int]:
    """How many items ``a`` and ``b`` share at their start, then how many of the rest at
    their end (the unchanged head and tail around what an edit really changes)."""
    limit = min(len(a), len(b))
    head = 0
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, tail


def leading_ws(s: str) -> str:
    return s[: len(s) - len(s.lstrip())]


# ---- the indentation mapping of a loose match (BEHAVIOR.md §3) -------------------------

class CannotCorrect(Exception):
    """What a loose match tolerated cannot be carried over to the added lines: the reason,
    worded for the model."""


@record(frozen=True)
class IndentMap:
    """How the edit's indentation maps to the file's, read off the matched lines.

    A shift (no units): ``edit_base`` at the start of an indentation is replaced by
    ``file_base`` and the rest carried over.  Per level (units): ``edit_base`` plus k
    ``edit_unit`` becomes ``file_base`` plus k ``file_unit``, k also negative (a line left
    of the matched block) while the bases hold enough whole units."""

    edit_base: str
    file_base: str
    edit_unit: str = ""
    file_unit: str = ""
    mixes_seen: bool = False  # the file itself follows file_base with the other character

    def apply(self, ws: str) -> str | None:
        """The file's indentation for the edit's ``ws``, or None when it has none."""
        if not self.edit_unit:
            return self._shift(ws)
        eu, fu, eb, fb = self.edit_unit, self.file_unit, self.edit_base, self.file_base
        if ws.startswith(eb):
            k, odd = divmod(len(ws) - len(eb), len(eu))
            return fb + fu * k if not odd and ws[len(eb):] == eu * k else None
        if eb.startswith(ws):
            m, odd = divmod(len(eb) - len(ws), len(eu))
            if odd or eb[len(ws):] != eu * m or not fb.endswith(fu * m):
                return None
            return fb[: len(fb) - len(fu) * m]
        return None

    def _shift(self, ws: str) -> str | None:
        if not ws.startswith(self.edit_base):
            return None
        rest = ws[len(self.edit_base):]
        fb = self.file_base
        if fb and rest and fb[-1] != rest[0] and not self.mixes_seen:
            return None  # tabs then spaces (or the reverse) the file never writes
        return fb + rest

    def describe(self) -> str:
        if not self.edit_unit:
            return f"a shift: {self.edit_base!r} becomes {self.file_base!r}, the rest kept"
        base = (f" after {self.edit_base!r} -> {self.file_base!r}"
                if self.edit_base or self.file_base else "")
        return f"each {self.edit_unit!r} of indentation becomes {self.file_unit!r}{base}"


def indent_unit(lines) -> str | None:
    """The most common step between the indentations of consecutive non-blank lines (one
    character repeated), or None when the indentation never changes."""
    counts: dict[str, int] = {}
    prev = None
    for line in lines:
        if not line.strip():
            continue
        ws = leading_ws(line)
        if prev is not None and ws != prev:
            short, long_ = sorted((prev, ws), key=len)
            step = long_[len(short):]
            if long_.startswith(short) and len(set(step)) == 1:
                counts[step] = counts.get(step, 0) + 1
        prev = ws
    if not counts:
        return None
    return max(counts, key=lambda d: (counts[d], -len(d)))


def edit_indent_unit(lines) -> str | None:
    """The step an edit's lines indent by: the largest run of its one indentation character
    that divides every indentation.  None when the edit mixes characters, never indents, or
    the step would be a single space (alignment, not a level)."""
    chars, step = set(), 0
    for line in lines:
        ws = leading_ws(line) if line.strip() else ""
        chars.update(ws)
        step = gcd(step, len(ws))
    if len(chars) != 1 or (chars == {" "} and step < 2):
        return None
    return chars.pop() * step


UNCORRECTABLE = "the indentation of the edit does not match the file in a way that can be corrected"


def indent_mapping(pairs: list[tuple[str, str, int]], added: list[str],
                   edit_unit: str | None = None, file_unit: str | None = None) -> IndentMap | None:
    """The one mapping that explains every matched line and places every added line.

    ``pairs``: (edit indentation, file indentation, 1-based file line) of the non-blank
    matched lines; ``added``: the indentations of the non-blank added lines;
    ``edit_unit`` / ``file_unit``: the steps the edit and the file indent by (used only
    when the matched lines show a single depth).  None: nothing to change.  Raises
    CannotCorrect when no mapping explains the matched lines or places an added line, or
    when the mappings the evidence allows place an added line differently.

    Asked only of edits whose added lines need it (BEHAVIOR.md §3): an edit with no
    added line, or whose added lines all sit at depths every reading of the matched
    lines agrees on (``agreed_depths``), needs no single mapping of the whole edit."""
    if not added or all(e == f for e, f, _n in pairs):
        return None
    try:
        return _one_mapping(pairs, added, edit_unit, file_unit)
    except CannotCorrect:
        if not agreed_depths(pairs, added):
            raise
        return None


def agreed_depths(pairs: list[tuple[str, str, int]], added: list[str]) -> bool:
    """Whether every added line sits at a depth every reading of the matched lines agrees
    on, although no single mapping explains them all (a context line the model indented
    wrong): the edit's matched lines of its indentation all have that same indentation
    in the file, and no matched line of another indentation has it there.  Such a line
    keeps its indentation; any other depth depends on which matched lines are believed."""
    for w in set(added):
        same = [e == f for e, f, _n in pairs if w in (e, f)]
        if not same or not all(same):
            return False
    return True


def _one_mapping(pairs, added, edit_unit, file_unit) -> IndentMap:
    """indent_mapping's single mapping of every matched line, or CannotCorrect."""
    _check_one_to_one(pairs)
    e0, f0, _n = min(pairs, key=lambda p: len(p[0]))
    shift = _shift_map(pairs, e0, f0)
    if len({e for e, _f, _n in pairs}) > 1:
        maps = [m for m in (shift, _unit_map(pairs, e0, f0, added)) if m is not None]
        if not maps:
            _refuse_inconsistent(pairs)
        return _first_placing(maps, added)
    return _single_depth(e0, f0, shift, added, edit_unit, file_unit)


def prefix_slip(kind: str, old_lines: list[tuple[str, str]], matched: Sequence[str]) -> int:
    """+1 (or -1) when a diff hunk's (or apply-patch chunk's) old side is one column off
    the file only because its context lines gained a second one-space prefix (or lost
    theirs): every non-blank context line is the file's line plus one leading space (or
    less one), alike, and every non-blank removed line is the file's own; else 0.
    ``old_lines``: the (tag, text) of the old side, in order, beside the ``matched``
    lines of the file.  SEARCH/REPLACE has no prefix to slip: 0."""
    if kind not in ("hunk", "chunk"):
        return 0
    slips = set()
    for (tag, e), f in zip(old_lines, matched):
        if not e.strip() or not f.strip():
            continue
        if tag != " ":
            if e != f:
                return 0
            continue
        slips.add(1 if e == " " + f else -1 if f == " " + e else 0)
    return slips.pop() if len(slips) == 1 else 0


def added_keep_their_indent(slip: int, added: list[str], file_lines: Sequence[str]) -> bool:
    """Whether the added lines of a hunk whose context slipped by ``slip`` columns keep
    their own indentation (the slip was the prefix's) rather than being mapped (the whole
    hunk drifted, '+ ' written with a space after the plus too): mapped only when the
    added lines' indentations are off the file's grid (the widths of its lines around the
    place all divide by some step) and shifting them by the slip puts every one on it."""
    step = 0
    for line in file_lines:
        if line.strip():
            step = gcd(step, len(leading_ws(line)))
    widths = [len(w) for w in added]
    if step < 2 or all(w % step == 0 for w in widths):
        return True
    return not all(w - slip >= 0 and (w - slip) % step == 0 for w in widths)


def _refuse_inconsistent(pairs) -> None:
    seen: dict[str, tuple[str, int]] = {}
    for e, f, n in pairs:
        seen.setdefault(e, (f, n))
    shown = ", ".join(f"{e!r} where line {n} has {f!r}" for e, (f, n) in list(seen.items())[:4])
    raise CannotCorrect(f"{UNCORRECTABLE}: it indents {shown}, which no single mapping "
                        "(a shift, or one step of the edit for one step of the file) explains")


def _first_placing(maps: list[IndentMap], added: list[str]) -> IndentMap:
    for m in maps:
        if all(m.apply(w) is not None for w in added):
            return m
    bad = next(w for w in added if maps[0].apply(w) is None)
    raise CannotCorrect(f"{UNCORRECTABLE}: an added line is indented {bad!r}, which the mapping "
                        f"its matched lines show ({maps[0].describe()}) cannot place")


def _single_depth(e0: str, f0: str, shift: IndentMap, added: list[str],
                  edit_unit: str | None, file_unit: str | None) -> IndentMap:
    """One matched depth (``e0`` in the edit, ``f0`` in the file) says nothing of steps.
    When every indentation of the edit is a multiple of the file's step, the edit is taken
    to indent by it (a shift).  Otherwise each step the edit may indent by (the largest
    dividing all its indentations; the one that makes ``e0`` as many levels as ``f0``) is
    one file step, and all of them that place every added line must place it alike, else
    the depth would be a guess: refused.  No file step known: a shift."""
    if not file_unit:
        return _first_placing([shift], added)
    if edit_unit and _same_step(edit_unit, file_unit):
        steps = [file_unit]
    else:
        steps = [s for s in (edit_unit, _calibrated(e0, f0, file_unit)) if s]
    maps = [shift if s == file_unit else IndentMap(e0, f0, s, file_unit) for s in dict.fromkeys(steps)]
    if not maps:
        return _first_placing([shift], added)
    placing = [m for m in maps if all(m.apply(w) is not None for w in added)]
    if not placing:
        return _first_placing(maps, added)  # refused, naming the line
    readings = {tuple(m.apply(w) for w in added): m for m in placing}
    if len(readings) > 1:
        a, b = list(readings.values())[:2]
        raise CannotCorrect(f"{UNCORRECTABLE}: its matched lines all have one depth ({e0!r} "
                            f"where the file has {f0!r}), which cannot tell how deep its added "
                            f"lines go ({a.describe()}, or {b.describe()})")
    return placing[0]


def _calibrated(e0: str, f0: str, file_unit: str) -> str | None:
    """The edit's step if ``e0`` is as many levels deep as ``f0`` (in the file's steps)."""
    levels, odd = divmod(len(f0), len(file_unit))
    if not e0 or not levels or odd or f0 != file_unit * levels or len(set(e0)) != 1:
        return None
    step, odd = divmod(len(e0), levels)
    return None if odd or (e0[0] == " " and step < 2) else e0[0] * step


def _same_step(edit_unit: str, file_unit: str) -> bool:
    """Whether an edit indenting by multiples of ``edit_unit`` may be taken to indent by
    the file's own step (its indentation then tells nothing more): one matched depth
    cannot tell 2 levels of 2 spaces from 1 level of 4, so the file's step is assumed."""
    return edit_unit[0] == file_unit[0] and len(edit_unit) % len(file_unit) == 0


def _check_one_to_one(pairs: list[tuple[str, str, int]]) -> None:
    by_edit: dict[str, tuple[str, int]] = {}
    by_file: dict[str, tuple[str, int]] = {}
    for e, f, n in pairs:
        f1, n1 = by_edit.setdefault(e, (f, n))
        if f1 != f:
            raise CannotCorrect(f"{UNCORRECTABLE}: lines it indents alike ({e!r}) are indented "
                                f"{f1!r} (line {n1}) and {f!r} (line {n}) in the file")
        e1, n1 = by_file.setdefault(f, (e, n))
        if e1 != e:
            raise CannotCorrect(f"{UNCORRECTABLE}: lines the file indents alike ({f!r}, line "
                                f"{n1} and line {n}) are indented {e1!r} and {e!r} in the edit")


def _shift_map(pairs, e0: str, f0: str) -> IndentMap | None:
    """The shift that explains every pair: ``e0`` and ``f0`` less their common end."""
    k = 0
    while k < min(len(e0), len(f0)) and e0[len(e0) - 1 - k] == f0[len(f0) - 1 - k]:
        k += 1
    eb, fb = e0[: len(e0) - k], f0[: len(f0) - k]
    mixes = False
    for e, f, _n in pairs:
        if not e.startswith(eb) or f != fb + e[len(eb):]:
            return None
        rest = e[len(eb):]
        mixes = mixes or bool(fb and rest and rest[0] != fb[-1])
    return IndentMap(eb, fb, mixes_seen=mixes)


def _unit_map(pairs, e0: str, f0: str, added: list[str]) -> IndentMap | None:
    """Per level: the matched lines below (e0, f0) use one character each side, and the
    file's step is the same whole multiple of the edit's step on every line.  The edit's
    step is the largest that divides every depth of the edit's lines, added ones too."""
    rests = []
    for e, f, _n in pairs:
        if not e.startswith(e0) or not f.startswith(f0):
            return None
        rests.append((e[len(e0):], f[len(f0):]))
    e_chars = set("".join(r for r, _ in rests))
    f_chars = set("".join(r for _, r in rests))
    if len(e_chars) != 1 or len(f_chars) != 1:
        return None
    (ce,), (cf,) = e_chars, f_chars
    step = 0
    for r, _ in rests:
        step = gcd(step, len(r))
    with_added = step
    for w in added:  # deeper or shallower than e0 by some run of ce
        gap = w[len(e0):] if w.startswith(e0) else e0[len(w):] if e0.startswith(w) else ""
        if gap and set(gap) == {ce}:
            with_added = gcd(with_added, len(gap))
    # the step the added lines show too, else the matched lines' own (an added line
    # between their steps is then named as such)
    for e_step in dict.fromkeys((with_added, step)):
        f_step = _file_step(rests, e_step)
        if f_step:
            return IndentMap(e0, f0, ce * e_step, cf * f_step)
    return None


def _file_step(rests, e_step: int) -> int | None:
    """The file's step for ``e_step`` of the edit's, the same on every matched line."""
    f_step = set()
    for er, fr in rests:
        if er:
            q, odd = divmod(len(fr) * e_step, len(er))
            if odd or q == 0:
                return None
            f_step.add(q)
    return f_step.pop() if len(f_step) == 1 else None


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

