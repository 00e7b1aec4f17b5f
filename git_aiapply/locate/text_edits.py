"""The text editor's ``str_replace`` and ``insert`` (and the agents' Edit / replace, read
as ReplaceText) applied to a file's text: pure functions of that text, keeping its line
endings, BOM and final newline.  The planner (plan.py, gather.py) owns this step; the
readers (toolcalls.py, agent_tools.py) only turn tool calls into ReplaceText / InsertText.
"""
from __future__ import annotations

from ..errors import ApplyError, Problem
from .matching import common_ends
from ..ops import InsertText
from ..text import line_number

TOOL_CALL = "tool-call"  # the input kind of tool calls, as AI-Format and --json name it
# how a tool call creates a file, for the refusal of an edit to a missing one
TOOL_CALL_NEW_FILE_HINT = ("the text editor's create command or an apply_patch create_file "
                           "operation")

# --------------------------------------------------------------------------- quotes

# Claude Code's Edit finds an old string written with straight quotes where the file has
# typographic ones (its findActualString), and keeps the file's quotes (preserveQuoteStyle);
# the text editor and Gemini CLI's replace match exactly.
QUOTE_FOLDING_TOOLS = frozenset({"Edit", "MultiEdit"})
# count arguments that give a number of occurrences (the others are flags for every one)
COUNT_KEYS = frozenset({"expected_replacements", "expectedReplacements"})
_QUOTE_FOLD = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})


def fold_quotes(text: str) -> str:
    """Typographic quotes as straight ones, one character for one (offsets stay)."""
    return text.translate(_QUOTE_FOLD)


def keep_file_quotes(old: str, actual: str, new: str) -> str:
    """``new`` with the file's characters where it repeats ``old`` (their common start and
    end) and the file differs only by its quotes: text the edit does not change keeps
    the file's bytes; what it writes anew is as the model wrote it."""
    out = list(new)
    head, tail = common_ends(old, new)
    for k in [*range(head), *(-1 - t for t in range(tail))]:
        if old[k] != actual[k]:
            out[k] = actual[k]
    return "".join(out)


# --------------------------------------------------------------------- str_replace, insert


def apply_text_edit(ft, op, path: str):
    """(new FileText, added, removed) of a ReplaceText or InsertText on ``ft``."""
    if isinstance(op, InsertText):
        return _insert(ft, op, path)
    return _replace(ft, op, path)


def _insert(ft, op, path: str):
    """``insert``: the text's lines after line ``op.line`` (0: at the top)."""
    from ..text import TextBuilder

    lines = ft.lines
    n = len(lines)
    at = n if op.at_end else op.line
    if at > n:
        raise ApplyError(Problem(
            f"{op.line_name} {op.line} is past the end of the file ({n} line"
            f"{'s' if n != 1 else ''})", file=path, directive=op.source.directive,
            hint=f"{op.line_name} counts the lines to insert after: 0 to {n}",
            nearby=[(i + 1, lines[i]) for i in range(max(0, n - 3), n)],
            nearby_label="the file ends with"))
    new_lines = _split_whole_lines(op.text)
    if not new_lines:
        return ft, 0, 0
    b = TextBuilder(ft, ft.dominant_ending())
    b.keep(0, at)
    b.add(new_lines)
    b.keep(at, n)
    final = ft.final_newline if at < n else True
    return b.finish(final), len(new_lines), 0


def _replace(ft, op, path: str):
    """``str_replace`` (and Edit / replace): every occurrence the tool's count allows,
    each on the whole lines it touches, the lines it leaves as they were kept."""
    from ..text import TextBuilder

    lines = ft.lines
    n = len(lines)
    text = "\n".join(lines) + ("\n" if n and ft.final_newline else "")
    old = _lf(op.old)
    places, news = _occurrences_and_texts(text, old, _lf(op.new), op)
    places, news = _hinted(text, places, news, op)
    if op.expected is None and not places or op.expected is not None and len(places) != op.expected:
        raise ApplyError(_count_problem(text, lines, old, places, path, op))
    b = TextBuilder(ft, ft.dominant_ending())
    kept = added = removed = 0
    final = ft.final_newline
    starts = _LineStarts(text)
    i = 0
    while i < len(places):
        a, end, replaced, i = _span(text, places, i, old, news)
        first = starts.index(a)  # 0-based
        last = first + _count_lines(text[a:end])  # exclusive
        new_lines = _split_whole_lines(replaced)
        lo, hi = common_ends(lines[first:last], new_lines)
        b.keep(kept, first + lo)
        b.add(new_lines[lo:len(new_lines) - hi])
        kept = last - hi
        added += len(new_lines) - lo - hi
        removed += last - first - lo - hi
        if last >= n:  # the last span runs to the end: it decides the final newline
            final = replaced.endswith("\n") if replaced else True
    b.keep(kept, n)
    return b.finish(final), added, removed


def _occurrences_and_texts(text: str, old: str, new: str, op) -> tuple[list[int], list[str]]:
    """Where ``old`` occurs in ``text`` and what replaces each occurrence: ``new``, or, for
    the tools that fold quotes (a match found only with typographic quotes folded), ``new``
    keeping the file's quotes where it repeats ``old``."""
    places = _places(text, old, op.expected)
    if not places and (op.fold_quotes or op.tool in QUOTE_FOLDING_TOOLS):
        folded_text, folded_old = fold_quotes(text), fold_quotes(old)  # one char for one
        if (folded_text, folded_old) != (text, old):
            places = _places(folded_text, folded_old, op.expected)
            news = [keep_file_quotes(old, text[p:p + len(old)], new) for p in places]
            return places, news or [new] * len(places)
    return places, [new] * len(places)


def _hinted(text: str, places: list[int], news: list[str], op) -> tuple[list[int], list[str]]:
    """Of several occurrences where one is meant, the one starting on the line the agent
    named (``op.line_hint``), when exactly one does; else all of them (refused)."""
    if op.expected != 1 or len(places) < 2 or not getattr(op, "line_hint", None):
        return places, news
    picked = [k for k, p in enumerate(places) if line_number(text, p) == op.line_hint]
    if len(picked) != 1:
        return places, news
    return [places[picked[0]]], [news[picked[0]]]


def _places(text: str, old: str, expected: int | None) -> list[int]:
    """Where ``old`` occurs: for exactly one, overlapping occurrences count too (``aa`` is
    twice in ``aaa``: which one was meant is unknown); otherwise one after another, as
    Claude Code and Gemini CLI count and replace (``str.replace``)."""
    if expected == 1:
        return _occurrences(text, old, limit=20)
    out = []
    pos = text.find(old)
    while pos >= 0:
        out.append(pos)
        pos = text.find(old, pos + len(old))
    return out


def _span(text: str, places: list[int], i: int, old: str, news: list[str]):
    """The whole lines touched by the occurrence ``places[i]`` and any that follow on the
    same lines (occurrence k replaced by ``news[k]``): (start, end, the lines' new text,
    index of the next occurrence)."""
    a = text.rfind("\n", 0, places[i]) + 1  # the start of the first line touched
    pieces: list[str] = []
    pos = end = a
    while True:
        if i < len(places) and (not pieces or places[i] < end):
            pieces += [text[pos:places[i]], news[i]]
            pos = places[i] + len(old)
            i += 1
            end = max(end, _line_end(text, pos))
            continue
        replaced = "".join(pieces) + text[pos:end]
        if replaced and not replaced.endswith("\n") and end < len(text):
            end = _line_end(text, end + 1)  # the new text runs into the next line: take it
            continue
        return a, end, replaced, i


class _LineStarts:
    """0-based line numbers of offsets met in increasing order, counted once."""

    def __init__(self, text: str):
        self.text, self.offset, self.line = text, 0, 0

    def index(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _lf(text: str) -> str:
    """Line breaks as the file's lines are compared: CRLF and lone CR become LF."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _line_end(text: str, pos: int) -> int:
    """The end (after its newline) of the line holding ``pos``; ``pos`` itself when it is
    already a line start (or the end)."""
    if pos >= len(text) or pos == 0 or text[pos - 1] == "\n":
        return min(pos, len(text))
    nl = text.find("\n", pos)
    return len(text) if nl < 0 else nl + 1


def _count_lines(chunk: str) -> int:
    if not chunk:
        return 0
    return chunk.count("\n") + (0 if chunk.endswith("\n") else 1)


def _split_whole_lines(text: str) -> list[str]:
    """Text as whole lines: its last line break ends the last line."""
    text = _lf(text)
    if not text:
        return []
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def _occurrences(text: str, old: str, limit: int) -> list[int]:
    """Offsets where ``old`` occurs (overlapping ones too), at most ``limit``."""
    out = []
    pos = text.find(old)
    while pos >= 0 and len(out) < limit:
        out.append(pos)
        pos = text.find(old, pos + 1)
    return out


def _count_rule(op) -> tuple[str, str]:
    """What the edit's tool asks of the count, and how to meet it."""
    more = "include more of the surrounding lines in {old} so it matches one place only"
    key = op.count_key or {"replace": "expected_replacements", "Edit": "replace_all",
                           "MultiEdit": "replace_all"}.get(op.tool)
    if op.expected is None:
        return f"{key or 'replace_all'} needs at least one occurrence", ""
    if key in COUNT_KEYS:  # a number of occurrences (Gemini CLI's expected_replacements)
        return (f"{key} is {op.expected}",
                f"set {key} to the number of occurrences to change, or "
                + more.replace("one place only", "just those places"))
    if key:  # a flag for every occurrence (replace_all, replaceAll, allow_multiple...)
        return f"{op.tool} needs exactly one occurrence", more + f", or set {key}"
    return f"{op.tool} needs exactly one occurrence", more


def _count_problem(text: str, lines, old: str, places: list[int], path: str, op) -> Problem:
    first = old.strip("\n").split("\n", 1)[0]
    rule, hint = _count_rule(op)
    name = op.old_name
    if places:
        numbers = list(dict.fromkeys(line_number(text, p) for p in places[:20]))
        capped = op.expected == 1 and len(places) >= 20  # _occurrences stopped counting
        more = " (and more)" if capped or len(places) > 20 else ""
        shown = ", ".join(str(x) for x in numbers) + more
        nearby = [(x, lines[x - 1]) for x in numbers[:6]]
        times = "once" if len(places) == 1 else f"{len(places)}{'+' if capped else ''} times"
        return Problem(
            f"{name} occurs {times} in {path} (at line{'s' if len(numbers) > 1 else ''} "
            f"{shown}); {rule}",
            file=path, directive=op.source.directive, edit_first_line=first,
            candidates=numbers, nearby=nearby, nearby_label=f"where {name} starts",
            hint=hint.format(old=name))
    return Problem(f"{name} does not occur in {path} ({rule}); it must match the file "
                   "character for character",
                   file=path, directive=op.source.directive, edit_first_line=first,
                   nearby=_closest(lines, old),
                   hint=f"copy {name} from the file as it is now (whitespace and indentation "
                        "included)")


def _closest(lines, old: str) -> list[tuple[int, str]]:
    """The file's lines most like old_str's first non-blank line, with some around them."""
    import difflib

    probe = next((l.strip() for l in old.split("\n") if l.strip()), "")
    n = len(lines)
    if not probe or n == 0:
        return []
    best, at = 0.5, None
    for i, line in enumerate(lines):
        s = line.strip()
        if not s:
            continue
        if s == probe:
            at = i
            break
        if i >= 20000:
            break
        m = difflib.SequenceMatcher(None, probe, s)
        if m.real_quick_ratio() > best and m.quick_ratio() > best and m.ratio() > best:
            best, at = m.ratio(), i
    if at is None:
        return []
    span = max(1, len(old.strip("\n").split("\n")))
    lo, hi = max(0, at - 2), min(n, at + span + 2, at + 12)
    return [(i + 1, lines[i]) for i in range(lo, hi)]
