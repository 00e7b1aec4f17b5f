"""What a loose match tolerated, corrected in an edit's added lines (BEHAVIOR.md §3):
``correct_added`` re-indents an added line by the indentation mapping of the matched lines
(``matching.indent_mapping``) and, on the punctuation tier, writes its punctuation as the
file does, folding both ways (``FoldMap``, ``fold_map``, ``copy_sources``)."""
from __future__ import annotations

from collections.abc import Sequence

from .matching import (PUNCTUATION_FOLD, UNCORRECTABLE, CannotCorrect, IndentMap,
    fold_punctuation, leading_ws, norm_line)
from ..record import field, record


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
        folded = PUNCTUATION_FOLD.get(ord(c), c)
        out.extend((f, c, k) for f in folded or "")
    a, b = 0, len(out)
    while a < b and out[a][0].isspace():
        a += 1
    while b > a and out[b - 1][0].isspace():
        b -= 1
    return out[a:b]


def _is_typographic(c: str) -> bool:
    return ord(c) in PUNCTUATION_FOLD


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
            if ord(c) in PUNCTUATION_FOLD and PUNCTUATION_FOLD[ord(c)] is None:
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
            raise CannotCorrect(f"{UNCORRECTABLE}: the added line {text.strip()!r} is indented "
                                f"{ws!r}, which the mapping its matched lines show "
                                f"({indent.describe()}) cannot place")
        ws = mapped
    if fold is not None:
        body = fold.apply(body, source)
    return ws + body
