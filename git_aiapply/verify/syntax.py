"""Syntax: a planned file that parsed before the response and does not after is refused
(BEHAVIOR.md §5), for the languages the tool has a grammar for (grammar/).

A file that did not parse before is judged on the lines the response changes: an error
that starts on a line the response wrote (or right after it) and that the original did
not have there.  A new file is judged whole: every line of it is the response's.

``aiapply.syntaxCheck`` / ``--syntax-check``: ``refuse`` (the default), ``warn`` (the
findings are reported, the result applied: for agent loops that apply one tool call at a
time, where a file may be half-written between two calls), ``off``.
"""
from __future__ import annotations

from ..errors import Problem
from ..text import FileText

SYNTAX_MODES = ("refuse", "warn", "off")
_AROUND = 3  # lines shown on each side of the error

HINT = ("send the edit again so that the file stays valid {language}: check the brackets, "
        "quotes, indentation and any line the edit cut in two around line {line}")


def file_problem(path: str, old: list[str] | None, new: list[str]) -> Problem | None:
    """The refusal for ``path`` going from ``old`` (None: a new file) to ``new``, when the
    response breaks its syntax; None when it does not, or no grammar reads the file."""
    from ..grammar.code_tree import read_file

    after = read_file(path, new)
    if after is None or not after.has_error:
        return None
    if old is None:
        row = after.first_error()
        return _problem(path, after.grammar.name, new, row, parsed_before=None)
    before = read_file(path, old)
    if before is None or not before.has_error:
        return _problem(path, after.grammar.name, new, after.first_error(), parsed_before=True)
    row = _new_error_on_changed_lines(old, new, before.error_rows(), after.error_rows())
    if row is None:
        return None
    return _problem(path, after.grammar.name, new, row, parsed_before=False)


def _new_error_on_changed_lines(old: list[str], new: list[str], old_errors: list[int],
                                new_errors: list[int]) -> int | None:
    """The first error of ``new`` that starts in a stretch the response changed (or on
    the line right after it) where the original's same stretch had none: a file that was
    broken already is judged on what the response wrote, not on what it kept."""
    from difflib import SequenceMatcher

    matcher = SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        # a removal leaves no line: an error it causes shows on the line that follows
        after = [r for r in new_errors if j1 <= r <= max(j2, j1 + 1)]
        if after and not any(i1 <= r <= max(i2, i1 + 1) for r in old_errors):
            return after[0]
    return None


def _problem(path: str, language: str, lines: list[str], row: int | None,
             parsed_before: bool | None) -> Problem:
    row = 0 if row is None else min(row, max(len(lines) - 1, 0))
    number = row + 1
    if parsed_before is None:
        reason = f"the new file is not valid {language}: the first syntax error is on line {number}"
    elif parsed_before:
        reason = (f"the file parsed as {language} before this response and does not after "
                  f"it: the first syntax error is on line {number}")
    else:
        reason = (f"this response adds a syntax error to the file ({language}) on line "
                  f"{number}")
    start = max(row - _AROUND, 0)
    nearby = [(start + i + 1, line) for i, line in enumerate(lines[start:row + _AROUND + 1])]
    return Problem(reason, file=path, nearby=nearby,
                   nearby_label="the file as the response leaves it",
                   hint=HINT.format(language=language, line=number))


_REGULAR = (0o100644, 0o100755)


def plan_problems(final: dict, base: dict, renames=()) -> list[Problem]:
    """The syntax findings of a plan's files (``Plan.final`` and ``Plan.base``: path ->
    FileState or None; ``renames``: (old, new) paths), in path order; files removed,
    unchanged, or not regular files are not read."""
    came_from = {new: old for old, new in renames}
    found = []
    for path in sorted(final):
        state = final[path]
        if state is None or state.data is None or state.mode not in _REGULAR:
            continue
        before = base.get(path)
        if before is None and path in came_from:
            before = base.get(came_from[path])
        if before is not None and before.data == state.data:
            continue
        problem = _state_problem(path, before, state)
        if problem is not None:
            found.append(problem)
    return found


def _state_problem(path: str, before, state) -> Problem | None:
    from ..grammar.code_tree import MAX_PARSE_BYTES
    from ..grammar.languages import grammar_for

    if len(state.data) > MAX_PARSE_BYTES:
        return None  # read by the text rules only (code_tree.MAX_PARSE_BYTES)
    grammar = grammar_for(path, state.data[:200].split(b"\n", 1)[0])
    if grammar is None:
        return None  # no grammar: nothing decoded, nothing loaded
    from ..grammar.code_tree import parses

    if parses(grammar, state.data) is not False:
        return None  # it parses (most files): nothing else read
    new = _lines(state.data)
    if new is None:
        return None
    old = None if before is None or before.data is None else _lines(before.data)
    if before is not None and before.data is not None and old is None:
        return None  # the original is not text we read: nothing to compare
    return file_problem(path, old, new)


def _lines(data: bytes) -> list[str] | None:
    if b"\0" in data[:8000]:
        return None
    lines = list(FileText.from_bytes(data).lines)
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]  # a BOM is the file's encoding, not its code
    return lines
