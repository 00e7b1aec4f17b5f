"""Finding where each edit goes in a file, and applying all of a file's edits at once.

Matching tiers (BEHAVIOR.md §3, ``matching.py``), the first tier with a match wins, per
edit: 0. exact;  1. trailing whitespace ignored;  2. leading and trailing whitespace
ignored;  3. typographic punctuation folded (curly quotes, dashes, odd spaces).  What a
loose tier tolerated is corrected in the added lines (``corrections.correct_added``): the
indentation mapping the matched lines show, and the folding they needed.

Locating is linear in the file: each tier's normalised lines are indexed by value once,
and an edit's candidates are the positions of its rarest line, each checked in full.
All edits are located against the original text before any is applied; an edit that
fits several places consistent with the others is refused, never guessed.
"""
from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import partial

from . import code_style, edit_report
from .add_only import add_only_place, add_only_refusal
from .anchors import (AnchorRefusal, first_change, fit_after_anchor, locate_anchors, numbered,
    refuse_outside_block)
from ..errors import ApplyError, Problem
from .corrections import FoldMap, copy_sources, correct_added, fold_map
from .matching import (CannotCorrect, IndentMap, LineIndex, added_keep_their_indent,
    edit_indent_unit, indent_mapping, indent_unit, leading_ws, nearby_lines, norm_line,
    prefix_slip, quote_short)
from ..ops import CONTEXT, REMOVE, Hunk
from .placer import SEARCH_BUDGET, Placer, line_evidence, narrow_by_line_numbers, same_edit
from ..record import record, replace
from ..text import FileText, TextBuilder


@record
class Placement:
    """Where one hunk goes in the file."""

    hunk: Hunk
    index: int  # position of the hunk in the directive (0-based)
    start: int  # 0-based first line of the old side in the file
    length: int  # number of old lines
    tier: int = 0
    # what the added lines were corrected by (set when applied, for reporting): the
    # indentation mapping of a tier-2/3 match, the punctuation evidence of a tier-3 one
    indent: IndentMap | None = None
    fold: FoldMap | None = None

    @property
    def end(self) -> int:
        return self.start + self.length


class EditProblem(Exception):
    def __init__(self, problem: Problem):
        self.problem = problem


def apply_hunks(ft: FileText, hunks: list[Hunk], *, path: str, directive: str | None = None,
                ensure_final_newline: bool = False, index: LineIndex | None = None
                ) -> tuple[FileText, int, int]:
    """Locate every hunk in ``ft`` and apply them together.

    Returns the new text and the counts of added and removed lines; raises ApplyError
    listing every hunk that could not be placed.  ``index``: a LineIndex of ``ft.lines``
    to reuse (trials of several edits on one text share it: gather.py)."""
    lines = ft.lines
    index = index if index is not None else LineIndex(lines, [l for h in hunks for l in h.old])
    problems: list[Problem] = []
    problem = partial(_problem, path, directive)

    # 1. candidates for each hunk, each on the first tier where it fits; copies of the
    # same edit share them (restatements beyond their fits are dropped); then line numbers
    # narrow them (the evidence of place a unified diff gives)
    candidates, restated = _locate_all(hunks, lines, index, problem, problems, path)
    if problems:
        raise ApplyError(problems)
    reporting = edit_report.collecting()  # -v: which edits the line numbers chose for
    several = {i for i, c in enumerate(candidates) if len(c) > 1} if reporting else ()
    restated |= narrow_by_line_numbers(hunks, candidates)

    # 2. choose one place per edit (BEHAVIOR.md §3)
    placer = Placer(hunks, candidates, restated, correct=partial(_corrected_or_none, lines, path))
    chosen = placer.place(lines, problem)
    placed = placer.distinct(chosen)

    # 3. apply: the new bytes straight from the old ones (TextBuilder), no per-line copies
    runs = _changed_runs(placed, placer.shapes, lines, problem, path)
    out, added, removed = _write_runs(ft, runs)
    log = _changes_log.get()
    if log is not None:  # recording_changes: where this text changed
        log.append([(a, b, len(texts)) for a, b, _i, _k, texts in runs])
    final_newline = _final_newline(ft, hunks, placed) or ensure_final_newline
    if reporting:
        kept = {p.index for p in placed}
        edit_report.note(edit_report.placement_reports(
            path, directive, hunks, placed, [p for p in chosen if p.index not in kept],
            sorted(restated), {i for i in several if len(candidates[i]) == 1}))
    return out.finish(final_newline), added, removed


# recording_changes: the changed runs of every apply_hunks call made within, in order
_changes_log: ContextVar[list | None] = ContextVar("changes_log", default=None)


@contextmanager
def recording_changes():
    """A list that receives, for every ``apply_hunks`` call made within, the runs it
    changed in the text it was given: ``(a, b, n)``, old lines [a, b) replaced by n lines,
    in file order (``image`` follows a line range through them)."""
    log: list = []
    token = _changes_log.set(log)
    try:
        yield log
    finally:
        _changes_log.reset(token)


def image(start: int, length: int, changes: list) -> int | None:
    """Where the old lines [start, start + length) are after ``changes`` (runs recorded by
    ``recording_changes``, one list per text, in the order they were made), or None when
    a change removed one of them or added lines between two of them."""
    for runs in changes:
        shift = 0
        for a, b, n in runs:
            if (a < b and a < start + length and start < b) or (a == b and start < a < start + length):
                return None
            if b <= start:  # wholly before the range (an insertion at its top included)
                shift += n - (b - a)
        start += shift
    return start


def stated_places(lines: Sequence[str], hunks: list[Hunk], index: LineIndex | None = None,
                  off: dict[int, int] | None = None) -> dict[int, int]:
    """The 0-based start of the fit that each hunk's stated line names in ``lines``, by
    hunk index, for the hunks whose line is evidence there (``placer.line_evidence``):
    a unified-diff hunk's line numbers, judged on the content it is applied to.  ``off``:
    filled with how far off the stated line each named fit lies."""
    numbered = [h.line_hint is not None and bool(h.old) and not h.anchors for h in hunks]
    if not any(numbered):
        return {}
    if index is None:
        index = LineIndex(lines, [l for h, n in zip(hunks, numbered) if n for l in h.old])
    candidates: list[list[Placement]] = []
    for i, (h, n) in enumerate(zip(hunks, numbered)):
        tier, fits = index.first_fits(h.old) if n else (0, [])
        candidates.append([Placement(h, i, s, len(h.old), tier) for s in fits])
    return {i: p.start for i, p in line_evidence(hunks, candidates, off).items()}


def own_places(h: Hunk, lines: Sequence[str], index: LineIndex | None = None) -> list[int]:
    """The 0-based starts where ``h`` goes in ``lines`` located alone, by its own marks
    (apply-patch ``@@`` anchors, looked for from the top; an end-of-file mark): the place
    the rules give it without the rest of the answer; none when it does not fit."""
    if index is None:
        index = LineIndex(lines, list(h.old))
    try:
        return [p.start for p in _candidates(h, 0, h.old, lines, index, 0,
                                             partial(_problem, "", None))]
    except EditProblem:
        return []


def _problem(path: str, directive: str | None, h: Hunk, reason: str, **kw) -> Problem:
    """A refusal of the hunk ``h`` of ``path`` (its own directive, else the file's)."""
    return Problem(reason, file=path, directive=h.directive or directive, edit=h.number,
                   edit_first_line=h.first_line(), **kw)


def _corrected_or_none(lines: Sequence[str], path: str, p: Placement, runs):
    """The placer's trial of a candidate: its corrected runs, or None when they cannot be
    corrected (on a copy: the candidate itself is not marked)."""
    try:
        return _corrected_shapes(replace(p), runs, lines, path)
    except CannotCorrect:
        return None


def _changed_runs(placed: list[Placement], shapes, lines: Sequence[str], problem,
                  path: str) -> list:
    """The changed runs of all placed edits, in file order, as (start, end, edit, run,
    the lines written); runs never overlap (the placer checked).  ApplyError listing the
    edits whose added lines cannot be corrected to the file's indentation/punctuation."""
    runs = []
    problems: list[Problem] = []
    for p in placed:
        try:
            corrected = _corrected_shapes(p, shapes[p.index], lines, path)
        except CannotCorrect as e:
            problems.append(problem(p.hunk, str(e), nearby=numbered(lines, p.start, p.end),
                                    nearby_label="the matched lines of the file",
                                    hint="write the edit's lines with the file's own indentation "
                                         "and punctuation (the matched lines are shown above)"))
            continue
        for k, (a, b, texts) in enumerate(corrected):
            runs.append((p.start + a, p.start + b, p.index, k, texts))
    if problems:
        raise ApplyError(problems)
    runs.sort(key=lambda r: r[:4])
    return runs


def _write_runs(ft: FileText, runs: list) -> tuple[TextBuilder, int, int]:
    """The file with ``runs`` written over it (not yet finished: the final newline is
    decided apart), and the counts of added and removed lines."""
    out = TextBuilder(ft, ft.dominant_ending())
    added = removed = 0
    pos = 0
    for a, b, _i, _k, texts in runs:
        out.keep(pos, a)
        out.add(texts)
        added += len(texts)
        removed += b - a
        pos = b
    out.keep(pos, len(ft.lines))
    return out, added, removed


def _final_newline(ft: FileText, hunks: list[Hunk], placed: list[Placement]) -> bool:
    """Whether the new file ends with a newline: as the file did, unless an edit at its
    end says otherwise ("\\ No newline at end of file"); an empty file gains one unless an
    edit says no."""
    n_lines = len(ft.lines)
    final_newline = ft.final_newline if n_lines else True
    for p in sorted(placed, key=lambda p: p.index):
        if p.end == n_lines:
            if p.hunk.new_no_newline:
                final_newline = False
            elif p.hunk.old_no_newline:
                final_newline = True
    if not n_lines and not any(h.new_no_newline for h in hunks):
        final_newline = True
    return final_newline


def _locate_all(hunks: list[Hunk], lines, index, problem, problems: list[Problem],
                path: str = "") -> tuple[list[list[Placement]], set[int]]:
    """Candidates of every hunk, and the hunks that are restatements.

    k copies of the same edit (no anchor) are located once: when their old side fits n
    <= k places, the first n copies take one place each, in response order (they are
    interchangeable, so that is the only result), and the copies beyond n are
    restatements, applied once; fewer copies than places make k x places candidates,
    refused past the search bound."""
    candidates: list[list[Placement]] = [[] for _ in hunks]
    restated: set[int] = set()
    copies: dict[tuple, list[int]] = {}
    for i, h in enumerate(hunks):
        if not h.anchors and h.old:
            copies.setdefault(same_edit(h), []).append(i)
    twins = {i: members for members in copies.values() if len(members) > 1 for i in members}
    cursor = 0  # apply-patch: anchors are looked for after the previous chunk
    section = 0
    for i, h in enumerate(hunks):
        if h.section != section:  # of the same directive only
            section, cursor = h.section, 0
        members = twins.get(i)
        if members and i != members[0]:
            continue  # located with the first copy
        try:
            cands = _candidates(h, i, h.old, lines, index, cursor, problem, path)
        except EditProblem as e:
            problems.append(e.problem)
            continue
        if members:
            _share(hunks, members, cands, candidates, restated, problem, problems)
            continue
        candidates[i] = cands
        if len(cands) == 1:
            cursor = cands[0].end
    return candidates, restated


def _share(hunks, members, cands, candidates, restated, problem, problems) -> None:
    """Candidates of the copies ``members`` of one edit whose old side fits at ``cands``."""
    k = len(members)
    # copies that state their line are placed by it (narrow_by_line_numbers): a restated
    # hunk of a numbered diff names the place of the first, not a second place
    numbered = len(cands) > 1 and any(hunks[m].line_hint is not None for m in members)
    if k >= len(cands) and not numbered:
        for m, c in zip(members, cands):
            candidates[m] = [replace(c, hunk=hunks[m], index=m)]
        restated.update(members[len(cands):])
    elif k * len(cands) > SEARCH_BUDGET:
        problems.append(problem(
            hunks[members[0]],
            f"ambiguous: {k} identical edits and {len(cands)} places where they fit "
            "(too many to decide)",
            hint="include more unchanged context lines so each edit matches exactly one place",
            candidates=[c.start + 1 for c in cands]))
    else:
        for m in members:
            candidates[m] = [replace(c, hunk=hunks[m], index=m) for c in cands]


def _corrected_shapes(p: Placement, shapes, lines: Sequence[str], path: str = ""):
    """The hunk's changed runs with the added lines as the file writes them: what a loose
    tier tolerated (indentation, typographic punctuation) corrected, blank lines emptied,
    then brought to a code file's conventions whatever the tier (``code_style``: tabs,
    plain delimiters, plain spaces in indentation).  Sets the placement's ``indent`` /
    ``fold``.  CannotCorrect when they cannot be."""
    shapes = _loose_corrected(p, shapes, lines, path)
    return code_style.conform(path, shapes, lines, p.start, p.end) if path else shapes


def _loose_corrected(p: Placement, shapes, lines: Sequence[str], path: str = ""):
    """What a loose tier tolerated, corrected in the added lines (BEHAVIOR.md §3); an
    added line inside a string literal is text: never re-indented."""
    if p.tier == 0:
        return shapes
    if p.tier == 1:  # trailing whitespace tolerated: whitespace-only added lines emptied
        return [(a, b, [t if t.strip() else "" for t in texts]) for a, b, texts in shapes]
    old = p.hunk.old
    matched = lines[p.start:p.end]
    every_added = [t for _a, _b, texts in shapes for t in texts]
    # a string's lines are text: they neither take the mapping nor decide it
    inside = _added_in_strings(p.hunk, path) if path else set()
    added = [t for k, t in enumerate(every_added) if t.strip() and k not in inside]
    p.indent = _indent_mapping(p, matched, added, lines)
    indents = iter([None if k in inside else p.indent for k in range(len(every_added))])
    if p.tier < 3:
        return [(a, b, [correct_added(t, next(indents), None) for t in texts])
                for a, b, texts in shapes]
    # punctuation folded: each added line takes the file's characters where it copies a
    # matched line, in both directions (BEHAVIOR.md §3)
    p.fold = fold_map(matched, old)
    return [(a, b, [correct_added(t, next(indents), p.fold, k) for t, k in zip(texts, sources)])
            for (a, b, texts), sources in zip(shapes, copy_sources(old, shapes))]


def _added_in_strings(h: Hunk, path: str) -> set[int]:
    """The ordinals of ``h``'s added lines that begin inside a string literal of its new
    side (context and added lines, as the model wrote them, read by the file's grammar: a
    multi-line string, a heredoc, a raw string, whose leading whitespace is the string's)."""
    from ..grammar.code_tree import fragment_string_rows

    new_side = [(tag, t) for tag, t in h.lines if tag != REMOVE]
    if not any('"' in t or "'" in t or "`" in t or "<<" in t for _tag, t in new_side):
        return set()  # no string can open: nothing to parse
    rows = fragment_string_rows(path, [t for _tag, t in new_side])
    added = [row for row, (tag, _t) in enumerate(new_side) if tag != CONTEXT]
    return {k for k, row in enumerate(added) if row in rows}


def _indent_mapping(p: Placement, matched, added: list[str], lines: Sequence[str]):
    """The indentation mapping of a loose match; None when the added lines keep their own
    (nothing to map, or a diff's context only slipped its one-space prefix)."""
    slip = prefix_slip(p.hunk.kind, [(tag, t) for tag, t in p.hunk.lines if tag != "+"], matched)
    near = lines[max(0, p.start - 200):p.end + 200]
    if slip and added_keep_their_indent(slip, [leading_ws(t) for t in added], near):
        return None
    pairs = [(leading_ws(e), leading_ws(f), p.start + k + 1)
             for k, (f, e) in enumerate(zip(matched, p.hunk.old)) if f.strip() and e.strip()]
    edit_unit = file_unit = None
    if len({e for e, _f, _n in pairs}) == 1:  # one depth matched: the units tell the levels
        edit_unit = edit_indent_unit(t for _tag, t in p.hunk.lines)
        file_unit = indent_unit(near)
    return indent_mapping(pairs, [leading_ws(t) for t in added], edit_unit, file_unit)


def _candidates(h: Hunk, i: int, old: list[str], lines: Sequence[str], index: LineIndex,
                cursor: int, problem, path: str = "") -> list[Placement]:
    n_lines = len(lines)
    # apply-patch anchors narrow the search to the block of the last anchor line
    lo, hi = 0, None
    anchor_line = block = None
    if h.anchors:
        try:
            anchor_line, hi, block = locate_anchors(h.anchors, lines, index, cursor)
        except AnchorRefusal as e:
            raise EditProblem(problem(h, e.reason, **e.details)) from None
        lo = anchor_line + 1

    refusal = add_only_refusal(h, lines)  # the whole new file as added lines
    if refusal is not None:
        raise EditProblem(problem(h, refusal[0], hint=refusal[1],
                                  nearby=numbered(lines, 0, min(n_lines, 5)),
                                  nearby_label="the file begins"))
    if not old:  # only added lines
        return [Placement(h, i, add_only_place(h, lines, anchor_line, path), 0)]

    at_end = (lambda s: s + len(old) == n_lines) if h.at_eof else None
    change = first_change(h.lines)  # it must lie in the anchored block; context may run past
    try:  # after an anchor: its first fit there, the model's own choice (or at the anchor line)
        tier, fits = (fit_after_anchor(old, index, anchor_line, hi, at_end, change)
                      if anchor_line is not None else index.first_fits(old, lo, hi, keep=at_end))
    except AnchorRefusal as e:
        raise EditProblem(problem(h, e.reason, **e.details)) from None
    if fits:
        return [Placement(h, i, s, len(old), tier) for s in fits]
    if block is not None:
        try:
            refuse_outside_block(old, index, block, hi, change)
        except AnchorRefusal as e:
            raise EditProblem(problem(h, e.reason, **e.details)) from None
    reason = "could not find the edit's old lines (context and removed lines) in the file"
    if h.at_eof:
        reason += " at its end (the edit is marked *** End of File)"
    elif anchor_line is not None:
        reason += f" after the anchor at line {anchor_line + 1}"
    nearby = nearby_lines(lines, old, index)
    differs = _first_difference(lines, old, nearby)
    raise EditProblem(problem(
        h, reason + (f"; {differs}" if differs else ""), nearby=nearby,
        hint="copy the unchanged and removed lines exactly as the file has them now "
             "(the closest lines are shown above) and send the response again with this edit "
             "corrected"))


def _first_difference(lines: Sequence[str], old: list[str], nearby: list[tuple[int, str]]) -> str:
    """Where the edit parts from the file at the closest place, for the refusal text (so
    a model sees what to fix): the edit's old lines are aligned with the file's lines
    around that place (a diff over that small window, whitespace and punctuation folded),
    so a line the edit left out or added is named as such instead of shifting every
    later line.  Empty when no line of the edit is found there."""
    if not nearby or not old:
        return ""
    import difflib

    first, last = nearby[0][0] - 1, nearby[-1][0]
    lo = max(0, first - len(old) - 2)
    hi = min(len(lines), last + len(old) + 2)
    want = [norm_line(3, l) for l in old]
    have = [norm_line(3, l) for l in lines[lo:hi]]
    sm = difflib.SequenceMatcher(None, want, have, autojunk=False)
    blocks = [b for b in sm.get_matching_blocks() if b.size]
    # only lines that say something anchor the alignment (a blank or a brace matches anywhere)
    solid = [b for b in blocks if any(want[b.a + k] for k in range(b.size))]
    if not solid:
        return ""
    # the file region the edit maps onto: from its first matched line, extended to the
    # edit's first line, to its last matched line, extended to the edit's end
    f0 = max(0, solid[0].b - solid[0].a)
    end = solid[-1].b + solid[-1].size + (len(old) - solid[-1].a - solid[-1].size)
    f1 = min(len(have), end)
    place = lo + f0 + 1
    head = f"the closest place starts at line {place}, but "
    ops = difflib.SequenceMatcher(None, want, have[f0:f1], autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        at = lo + f0 + j1  # 0-based file line where the difference starts
        if tag == "replace":
            return head + f"line {at + 1} there is {quote_short(lines[at])} where the edit has {quote_short(old[i1])}"
        if tag == "delete":  # edit lines the file does not have there
            if at >= len(lines):
                return (head + f"the file ends at line {len(lines)} before the edit's line "
                               f"{i1 + 1} ({quote_short(old[i1])})")
            after = f"after line {at}" if at > 0 else "at the top of the file"
            return head + f"the edit has {quote_short(old[i1])} {after}, which the file does not have there"
        # insert: file lines the edit left out
        n = j2 - j1
        what = f"line {at + 1} ({quote_short(lines[at])})" if n == 1 else \
            f"lines {at + 1}-{at + n} (starting {quote_short(lines[at])})"
        return head + f"the edit leaves out {what}, which the file has there"
    return ""
