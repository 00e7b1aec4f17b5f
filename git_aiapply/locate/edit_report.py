"""Where each edit landed and how it was found: the facts of ``-v`` / ``--verbose`` and of
the ``edits`` list of ``--json`` (docs/JSON.md).

The facts are the ones locating records anyway (``locate.Placement``: tier, indentation
mapping, folding; the candidates line numbers narrowed; anchors; restatements): they are
collected only while a run asks for them (``collecting``), so the plain path pays one
context-variable read per located file.  A plan that is refused leaves no reports
(``kept_on_success``): -3 tries several bases, and only the plan that is used speaks.
"""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from functools import wraps

from ..record import field, record

_current: ContextVar[list | None] = ContextVar("edit_report", default=None)


@record
class EditReport:
    """One edit: where it landed (1-based inclusive line ranges; an empty range, a pure
    insertion, has ``end == start - 1``) and how it was found."""

    file: str
    directive: str | None
    edit: int  # 1-based number of the edit within its directive
    old_start: int | None = None  # the old side's lines in the file as it was
    old_end: int | None = None
    new_start: int | None = None  # the new lines in the result
    new_end: int | None = None
    how: list[str] = field(default_factory=list)
    detail: str | None = None
    # a lazy snippet merged: for each placeholder, the file's lines it kept
    kept: list | None = None

    def to_json(self) -> dict:
        out = {"file": self.file, "directive": self.directive, "edit": self.edit,
               "old_start": self.old_start, "old_end": self.old_end,
               "new_start": self.new_start, "new_end": self.new_end,
               "how": list(self.how), "detail": self.detail}
        if self.kept:
            out["kept"] = [{"note_line": k.note_line, "note": k.note, "start": k.first,
                            "end": k.last} for k in self.kept]
        return out

    def render(self) -> str:
        """One line, e.g. ``m.py: edit 2 lines 14-18 -> 14-19 (whitespace: indentation 2 -> 4
        spaces)``."""
        where = ""
        if self.old_start is not None and self.new_start is not None:
            old, new = _range(self.old_start, self.old_end), _range(self.new_start, self.new_end)
            if old.startswith("line") and new.startswith("line"):  # lines 14-18 -> 14-19
                new = new.split(" ")[-1]
            where = f" {old} -> {new}"
        how = ", ".join(self.how)
        return f"{self.file}: edit {self.edit}{where} ({how}{': ' + self.detail if self.detail else ''})"


def _range(start: int, end: int) -> str:
    if end < start:  # empty: the place between two lines
        return f"after line {end}" if end > 0 else "at the top"
    return f"line {start}" if end == start else f"lines {start}-{end}"


# -- collecting ---------------------------------------------------------------------
def collecting() -> bool:
    return _current.get() is not None


def note(reports) -> None:
    """Add ``reports`` to the collection, when one is running."""
    got = _current.get()
    if got is not None:
        got.extend(reports)


@contextmanager
def scope():
    """A collection whose reports reach the enclosing one only when the block finishes
    without an exception (a refused attempt reports nothing)."""
    parent = _current.get()
    mine: list[EditReport] = []
    token = _current.set(mine)
    try:
        yield mine
    finally:
        _current.reset(token)
    if parent is not None:
        parent.extend(mine)


@contextmanager
def muted():
    """No reports from inside: for trial applications whose result is only compared."""
    token = _current.set(None)
    try:
        yield
    finally:
        _current.reset(token)


def kept_on_success(fn):
    """``fn``'s reports are kept only when it returns (see ``scope``)."""
    @wraps(fn)
    def run(*args, **kwargs):
        if _current.get() is None:
            return fn(*args, **kwargs)
        with scope():
            return fn(*args, **kwargs)
    return run


# -- located edits (locate.apply_hunks) ---------------------------------------------
def placement_reports(path: str, directive: str | None, hunks, placed, dropped=(),
                      restated=(), several=frozenset()) -> list[EditReport]:
    """The reports of one application of ``hunks``: ``placed`` (the placements applied),
    ``dropped`` (placements left out because an earlier edit has their effect),
    ``restated`` (indices of copies of an edit, applied once), ``several`` (indices of
    edits that fitted several places before their stated line numbers chose one)."""
    news: dict[int, tuple[int, int]] = {}
    delta = 0
    for p in sorted(placed, key=lambda p: (p.start, p.index)):
        n_new = len(p.hunk.new)
        news[p.index] = (p.start + delta + 1, p.start + delta + n_new)
        delta += n_new - p.length
    out = [_placed_report(path, directive, p, news[p.index], p.index in several)
           for p in placed]
    by_key = {_same(p.hunk): p for p in placed}
    for p in dropped:
        twin = by_key.get(_same(p.hunk), p)
        out.append(_restated_report(path, directive, p.hunk, twin, news.get(twin.index)))
    for i in restated:
        twin = by_key.get(_same(hunks[i]))
        out.append(_restated_report(path, directive, hunks[i], twin,
                                    news.get(twin.index) if twin else None))
    return out


def _same(h) -> tuple:
    from .placer import same_edit

    return same_edit(h)


def _placed_report(path, directive, p, new_range, several: bool) -> EditReport:
    how, details = tier_words(p)
    h = p.hunk
    if several and h.line_hint is not None:
        how.append("line-number")
        details.append(f"the stated line {h.line_hint} chose among several fits")
    if h.anchors:
        how.append("anchor")
        details.append("after @@ " + " / ".join(a.strip() for a in h.anchors))
    if h.kind == "append":
        how = ["append"]
    return EditReport(path, h.directive or directive, h.number, p.start + 1, p.end,
                      new_range[0], new_range[1], how, "; ".join(details) or None)


def restated_report(path: str, directive: str | None, number: int) -> EditReport:
    """An edit left out as the same change another edit of the file makes (its place is
    that edit's)."""
    return EditReport(path, directive, number, how=["restated"],
                      detail="the same change as another edit of the file, made once")


def _restated_report(path, directive, h, twin, new_range) -> EditReport:
    if twin is None or new_range is None:
        return restated_report(path, h.directive or directive, h.number)
    return EditReport(path, h.directive or directive, h.number, twin.start + 1, twin.end,
                      new_range[0], new_range[1], ["restated"],
                      f"a copy of edit {twin.hunk.number}, applied once")


def tier_words(p) -> tuple[list[str], list[str]]:
    """The words and details of a placement's matching tier (matching.py)."""
    if p.tier == 0:
        return ["exact"], []
    if p.tier == 1:
        return ["trailing-whitespace"], []
    how, details = [], []
    if p.tier == 3:
        how.append("punctuation-folded")
        # the edit's typographic characters, else the plain ones the file has curled
        chars = sorted(p.fold.chars or p.fold.classes) if p.fold is not None else []
        if chars:
            details.append("punctuation " + " ".join(chars) + " folded")
    if p.tier == 2 or p.indent is not None:
        how.insert(0, "whitespace")
        details.insert(0, indent_words(p.indent))
    return how, details


def indent_words(m) -> str:
    """An indentation mapping (matching.IndentMap) in a careful git user's words."""
    if m is None:
        return "indentation kept"
    if m.edit_unit:
        if set(m.edit_unit + m.file_unit) == {" "}:
            words = f"indentation {len(m.edit_unit)} -> {len(m.file_unit)} spaces"
        else:
            words = f"indentation {ws_words(m.edit_unit)} -> {ws_words(m.file_unit)} per level"
        k = len(m.edit_base) // len(m.edit_unit)
        if (m.edit_base, m.file_base) != (m.edit_unit * k, m.file_unit * k):  # not whole levels
            words += f", from {ws_words(m.edit_base)} -> {ws_words(m.file_base)}"
        return words
    return f"indentation {ws_words(m.edit_base)} -> {ws_words(m.file_base)}"


def ws_words(ws: str) -> str:
    if not ws:
        return "none"
    for ch, name in ((" ", "space"), ("\t", "tab")):
        if set(ws) == {ch}:
            return f"{len(ws)} {name}{'s' if len(ws) != 1 else ''}"
    return repr(ws)


# -- whole-file operations and the other edit kinds (plan.py) -----------------------
def changed_range(old: list[str], new: list[str]) -> tuple[int, int, int, int]:
    """(old_start, old_end, new_start, new_end), 1-based inclusive, of the lines between
    the common first and last lines of ``old`` and ``new`` (for edits that are not
    located line by line: tool-call string replacements)."""
    from .matching import common_ends

    lo, hi = common_ends(old, new)
    return lo + 1, len(old) - hi, lo + 1, len(new) - hi


def lazy_merge_report(path: str, directive: str | None, old_lines: int, new_lines: int,
                      kept) -> EditReport:
    """A lazy snippet merged into the file (plan/lazy_merge.py): the whole file, and for
    each placeholder (its line in the snippet) the file's lines it kept."""
    runs = [f"{k.note!r} (snippet line {k.note_line}) kept {_range(k.first, k.last)}"
            for k in kept]
    return EditReport(path, directive, 1, 1, old_lines, 1, new_lines, ["whole file"],
                      "; ".join(["lazy snippet merged"] + runs), list(kept))


def hashline_reports(path: str, directive: str | None, ops) -> list[EditReport]:
    """One report per hashline operation (line numbers the file's own, by LINE#ID)."""
    def span(op) -> tuple[int, int]:  # the old lines it takes, and where it goes in order
        if op.kind == "set":
            return op.start, op.end
        at = op.start - 1 if op.kind == "insert_before" else op.start
        return at + 1, at

    out: list[tuple[int, int, EditReport]] = []
    delta = 0
    for k, op in sorted(enumerate(ops), key=lambda ko: (span(ko[1])[0], ko[0])):
        a, b = span(op)
        removed = b - a + 1
        new_a = a + delta
        what = {"set": "set", "insert_before": "insert before",
                "insert_after": "insert after"}.get(op.kind, op.kind)
        ids = op.start_id if op.end_id in (None, "", op.start_id) else f"{op.start_id}-{op.end_id}"
        ids = ids or (f"line {a}" if a == b else f"lines {a}-{b}")  # an agent's line range
        out.append((k, 0, EditReport(path, directive, op.number, a, b, new_a,
                                     new_a + len(op.text_lines) - 1, ["hashline id"],
                                     f"{what} {ids}")))
        delta += len(op.text_lines) - removed
    return [r for _k, _z, r in sorted(out, key=lambda t: t[0])]


def text_edit_report(path: str, op, old, new) -> EditReport:
    """A tool call's str_replace or insert (text_edits.apply_text_edit): the changed lines
    between the common first and last lines of the file before and after."""
    number = getattr(op, "number", 1)
    if hasattr(op, "at_end"):  # insert: the stated line places it
        n = len(op.text.splitlines())
        at = len(old.lines) if op.at_end else op.line
        return EditReport(path, op.source.directive, number, at + 1, at, at + 1,
                          at + n, ["line-number"], f"insert after line {at}")
    a, b, c, d = changed_range(old.lines, new.lines)
    plain = op.old.replace("\r\n", "\n") in "\n".join(old.lines)
    how = ["exact"] if plain else ["punctuation-folded"]
    detail = None if plain else "typographic quotes folded (the file's kept)"
    if op.expected is None:
        detail = "; ".join(filter(None, ["every occurrence (replace_all)", detail]))
    return EditReport(path, op.source.directive, number, a, b, c, d, how, detail)


def mark_three_way(reports: list[EditReport], base: str, merged) -> None:
    """-3: the edits of the ``merged`` files were located at commit ``base`` (their line
    numbers are that commit's) and merged into the current files."""
    for r in reports:
        if r.file in merged:
            r.how.append("three-way")
            r.detail = "; ".join(filter(None, [r.detail, f"from base {base[:12]}, lines as "
                                                          "there, merged into the current file"]))


@contextmanager
def in_turn():
    """Edits applied one after another, each on the result of the ones before (aider's
    blocks, a conversation's turns): their reports are kept only when all of them fit,
    and say that their old lines are those of that intermediate result."""
    if _current.get() is None:  # not collecting: nothing to do
        yield None
        return
    with scope() as got:
        yield got
        for r in got:
            if "in turn" not in (r.detail or ""):
                r.detail = "; ".join(filter(None, [r.detail, "in turn: old lines as the edits "
                                                             "before it left the file"]))
