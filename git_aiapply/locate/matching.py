"""Matching tiers (BEHAVIOR.md §3) and the per-file line index edits are located with.

Tiers, the first with a match wins, per edit: 0. exact;  1. trailing whitespace ignored;
2. leading and trailing whitespace ignored;  3. typographic punctuation folded (curly
quotes, dashes, odd spaces).  What a loose tier tolerated is corrected in an edit's added
lines: the indentation mapping (``indent_mapping``) and the punctuation evidence
(``fold_map``) of the matched lines, applied by ``correct_added`` (folding both ways: a
line that copies a matched line takes the file's characters, ``copy_sources``).  Also here: the file's
lines most like an edit's (for a refusal), and whether a deletion's lines are the whole
file.
"""
from __future__ import annotations

from array import array
from collections.abc import Sequence
from math import gcd

from ..record import field, record
from ..text import FileText

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


_UNCORRECTABLE = "the indentation of the edit does not match the file in a way that can be corrected"


def indent_mapping(pairs: list[tuple[str, str, int]], added: list[str],
                   edit_unit: str | None = None, file_unit: str | None = None) -> IndentMap | None:
    """The one mapping that explains every matched line and places every added line.

    ``pairs``: (edit indentation, file indentation, 1-based file line) of the non-blank
    matched lines; ``added``: the indentations of the non-blank added lines;
    ``edit_unit`` / ``file_unit``: the steps the edit and the file indent by (used only
    when the matched lines show a single depth).  None: nothing to change.  Raises
    CannotCorrect when no mapping explains the matched lines or places an added line, or
    when the mappings the evidence allows place an added line differently."""
    if all(e == f for e, f, _n in pairs):
        return None
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
    raise CannotCorrect(f"{_UNCORRECTABLE}: it indents {shown}, which no single mapping "
                        "(a shift, or one step of the edit for one step of the file) explains")


def _first_placing(maps: list[IndentMap], added: list[str]) -> IndentMap:
    for m in maps:
        if all(m.apply(w) is not None for w in added):
            return m
    bad = next(w for w in added if maps[0].apply(w) is None)
    raise CannotCorrect(f"{_UNCORRECTABLE}: an added line is indented {bad!r}, which the mapping "
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
        raise CannotCorrect(f"{_UNCORRECTABLE}: its matched lines all have one depth ({e0!r} "
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
            raise CannotCorrect(f"{_UNCORRECTABLE}: lines it indents alike ({e!r}) are indented "
                                f"{f1!r} (line {n1}) and {f!r} (line {n}) in the file")
        e1, n1 = by_file.setdefault(f, (e, n))
        if e1 != e:
            raise CannotCorrect(f"{_UNCORRECTABLE}: lines the file indents alike ({f!r}, line "
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


# ---- typographic punctuation in added lines (BEHAVIOR.md §3) ----------------------------
# Folding goes both ways.  An added line that copies a matched line (``copy_sources``)
# takes, at every place it copies, the character the file writes there: the plain one
# where the edit curled it, the file's own typographic one where the edit wrote it plain.
# Only the typographic characters it writes anew follow the evidence of the matched lines
# (``FoldMap.decide``); plain characters it writes anew stay plain.

def _expand(s: str) -> list[tuple[str, str, int]]:
    """(folded character, the character it came from, that character's place in ``s``) of
    ``norm_line(3, s)``."""
    out = []
    for k, c in enumerate(s):
        folded = _FOLD.get(ord(c), c)
        out.extend((f, c, k) for f in folded or "")
    a, b = 0, len(out)
    while a < b and out[a][0].isspace():
        a += 1
    while b > a and out[b - 1][0].isspace():
        b -= 1
    return out[a:b]


def _is_typographic(c: str) -> bool:
    return ord(c) in _FOLD


# how like a matched line an added line must be (difflib's ratio, folded) to copy it
COPY_RATIO = 0.6


def aligned_places(a: str, b: str) -> list[tuple[int, int]]:
    """(place in ``a``, place in ``b``) of every character the two strings share in
    difflib's alignment of them (its matching blocks, in order)."""
    from difflib import SequenceMatcher  # only for loose matches and folded delimiters

    return [(i + d, j + d) for i, j, size in
            SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks() for d in range(size)]


# how far from where an added line stands among a replaced block's lines the line it
# copies is looked for (lines are replaced in order: a window keeps this linear)
COPY_WINDOW = 8


def copy_sources(old: list[str], runs) -> list[list[int | None]]:
    """For each added line of ``runs`` (``(a, b, added)``: the edit's old lines [a, b)
    replaced by ``added``), the index in ``old`` of the line it copies, or None when it
    copies none (written anew).  Compared folded (``norm_line(3)``): a run's added lines
    are aligned with its removed lines (difflib over lines); one equal to a removed line
    copies it; one in a replaced block copies the most alike of the removed lines near
    its place in the block (at least COPY_RATIO alike); any other copies an old line it
    equals (a context line written again), else none."""
    from difflib import SequenceMatcher  # only for loose matches

    folded = [norm_line(3, t) for t in old]
    equal: dict[str, int] = {}
    for i, f in enumerate(folded):
        if f:
            equal.setdefault(f, i)
    out = []
    for a, b, texts in runs:
        added = [norm_line(3, t) for t in texts]
        src: list[int | None] = [None] * len(texts)
        sm = SequenceMatcher(None, folded[a:b], added, autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            for j in range(j1, j2):
                if tag == "equal":
                    src[j] = a + i1 + j - j1
                elif tag == "replace":
                    src[j] = _most_alike(added[j], folded, a + i1, a + i2,
                                         a + i1 + (j - j1) * (i2 - i1) // (j2 - j1))
        for j, f in enumerate(added):
            if src[j] is None and f:
                src[j] = equal.get(f)
        out.append(src)
    return out


def _most_alike(text: str, folded: list[str], lo: int, hi: int, at: int) -> int | None:
    """The index in [lo, hi) within COPY_WINDOW of ``at`` whose line ``text`` is most like
    (difflib's ratio, at least COPY_RATIO; the nearest of equals), or None."""
    from difflib import SequenceMatcher

    best, best_ratio = None, COPY_RATIO
    order = sorted(range(max(lo, at - COPY_WINDOW), min(hi, at + COPY_WINDOW + 1)),
                   key=lambda i: abs(i - at))
    sm = SequenceMatcher(None, autojunk=False)
    sm.set_seq2(text)
    for i in order:
        if not folded[i]:
            continue
        sm.set_seq1(folded[i])
        if sm.real_quick_ratio() >= best_ratio and sm.quick_ratio() >= best_ratio:
            r = sm.ratio()
            if r > best_ratio or (best is None and r == best_ratio):
                best, best_ratio = i, r
    return best


def _file_characters(text: str, pair: tuple) -> dict[int, str]:
    """{place in ``text``: what the file writes there} for the characters of ``text`` that
    copy, unchanged, the matched line ``pair`` (the edit's and the file's, expanded, from
    ``fold_map``): the file's character at the place the edit's old line has the same one.
    A character the file writes as several (an ellipsis the edit wrote ``...``), or
    several it writes as one, is taken only when all of them are copied; the second and
    later characters of a run the file writes as one become ''."""
    if pair[3]:  # the file writes the edit's line as it is: nothing to take back
        return {}
    exp = _expand(text)
    if not exp:
        return {}
    e_exp, f_exp, e_folded, _same = pair
    marks: dict[int, list[tuple[int, str]]] = {}  # place in text -> [(place in file line, char)]
    for p, q in aligned_places("".join(f for f, _c, _k in exp), e_folded):
        _f, ac, ak = exp[p]
        if ac == e_exp[q][1]:  # copied as the edit's old line has it
            marks.setdefault(ak, []).append((f_exp[q][2], f_exp[q][1]))
    a_count: dict[int, int] = {}
    for _f, _c, k in exp:
        a_count[k] = a_count.get(k, 0) + 1
    f_count: dict[int, int] = {}
    for _f, _c, k in f_exp:
        f_count[k] = f_count.get(k, 0) + 1
    covered: dict[int, int] = {}
    for ms in marks.values():
        for fk, _fc in ms:
            covered[fk] = covered.get(fk, 0) + 1
    out, done = {}, set()
    for ak, ms in sorted(marks.items()):
        if len(ms) != a_count[ak] or any(covered[fk] != f_count[fk] for fk, _fc in ms):
            continue  # part of a character copied: decided as written anew
        pieces = []
        for fk, fc in ms:
            if fk not in done:
                done.add(fk)
                pieces.append(fc)
        out[ak] = "".join(pieces)
    return out


@record
class FoldMap:
    """What the file does where the edit's old lines used typographic characters: per
    character and per plain character it folds to, the kinds of spot seen ('plain': the
    file has the plain character; 'keep': the file has this typographic character;
    'other': another typographic one); and the matched lines themselves (edit's and
    file's, expanded), which added lines that copy them take the file's characters from."""

    chars: dict = field(default_factory=dict)
    classes: dict = field(default_factory=dict)
    pairs: list = field(default_factory=list)

    def note(self, edit_char: str, file_char: str) -> None:
        if edit_char == file_char:
            if _is_typographic(edit_char):
                self._add(edit_char, "keep")
        elif _is_typographic(edit_char):
            self._add(edit_char, "other" if _is_typographic(file_char) else "plain")
        elif _is_typographic(file_char):  # the edit straightened what the file curls
            self.classes.setdefault(fold_punctuation(file_char), set()).add("keep")

    def _add(self, c: str, kind: str) -> None:
        self.chars.setdefault(c, set()).add(kind)
        self.classes.setdefault(fold_punctuation(c), set()).add(kind)

    def decide(self, c: str) -> str:
        """'plain', 'keep' or 'mixed' for a typographic character an added line writes
        anew: its own spots decide, else those of its plain character, else every spot."""
        for kinds in (self.chars.get(c), self.classes.get(fold_punctuation(c)),
                      set().union(*self.classes.values())):
            if kinds:
                return "plain" if kinds == {"plain"} else "keep" if kinds == {"keep"} else "mixed"
        return "keep"

    def apply(self, text: str, source: int | None = None) -> str:
        """``text`` (an added line after its indentation) as the file writes it: where it
        copies the matched line ``source`` (its index among the edit's old lines:
        ``copy_sources``), the file's characters; elsewhere its typographic ones folded
        as the evidence says.  CannotCorrect on mixed evidence."""
        pair = self.pairs[source] if source is not None else None
        own = _file_characters(text, pair) if pair is not None else {}
        out = []
        for k, c in enumerate(text):
            if k in own:
                out.append(own[k])
            elif not _is_typographic(c):
                out.append(c)
            else:
                out.append(self._written_anew(c))
        return "".join(out)

    def _written_anew(self, c: str) -> str:
        how = self.decide(c)
        if how == "mixed":
            raise CannotCorrect(
                f"an added line has the typographic {c!r} where it copies none of the matched "
                "lines; the match needed typographic punctuation folded, but where the edit's "
                "old lines have such characters the file has the plain one in some places and "
                "a typographic one in others, so which to write is unknown")
        return fold_punctuation(c) if how == "plain" else c


def fold_map(file_lines: Sequence[str], old: list[str]) -> FoldMap:
    """The evidence of the matched lines (a tier-3 match: they fold equal, stripped)."""
    fm = FoldMap()
    for f, e in zip(file_lines, old):
        e_exp, f_exp = _expand(e), _expand(f)
        for (_x, ec, _i), (_y, fc, _j) in zip(e_exp, f_exp):
            fm.note(ec, fc)
        for c in e:  # zero-width characters fold to nothing: judged per line
            if ord(c) in _FOLD and _FOLD[ord(c)] is None:
                fm._add(c, "keep" if c in f else "plain")
        # (edit's, file's, edit's folded, whether the file writes the edit's characters
        # and none of them is typographic: a copy of it then needs nothing)
        same = ([c for _x, c, _k in e_exp] == [c for _x, c, _k in f_exp]
                and not any(_is_typographic(c) for c in e))
        fm.pairs.append((e_exp, f_exp, "".join(x for x, _c, _k in e_exp), same) if e_exp else None)
    return fm


def correct_added(text: str, indent: IndentMap | None, fold: FoldMap | None,
                  source: int | None = None) -> str:
    """An added line as the file writes it: re-indented by ``indent``, its typographic
    punctuation as ``fold`` says (the file's own characters where it copies the matched
    line ``source``); a blank line is emptied.  CannotCorrect when the mapping has no
    place for it."""
    if not text.strip():
        return ""
    ws = leading_ws(text)
    body = text[len(ws):]
    if indent is not None:
        mapped = indent.apply(ws)
        if mapped is None:
            raise CannotCorrect(f"{_UNCORRECTABLE}: the added line {text.strip()!r} is indented "
                                f"{ws!r}, which the mapping its matched lines show "
                                f"({indent.describe()}) cannot place")
        ws = mapped
    if fold is not None:
        body = fold.apply(body, source)
    return ws + body


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

