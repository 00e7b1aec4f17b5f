"""Which edits write a placeholder, and the refusal that says so (``op_placeholder_problems``,
for every operation).  For files whose language has a grammar they are judged by
structure (BEHAVIOR.md §5): what a line of an edit's new text *is* comes from the grammar,
where it sits from the alignment of the edit's old and new lines, and words decide only
what structure cannot; other files keep the text rules of ``placeholders``.

A note is a line the grammar reads as nothing but a comment, or a bare ``...``.  In an
edit that drops lines of code, a note counts as a placeholder:
- whatever its words and human language, when the stretch of new text that replaces
  those lines holds nothing but notes (``# 其余代码保持不变`` over ``main()``'s body), unless
  it is the reason an error or other branch is left empty (a comment alone in a
  ``catch`` / ``except`` / ``else`` block, not worded as a stand-in);
- when the stretch also writes code, only when it is worded as a stand-in
  (``stand_in``: an ellipsis around the note, or "unchanged", "rest of", "as before"...
  in the languages models answer in): a comment over new code, a sentence about it, or a
  section header (``# Other settings``) is content.
In an edit that drops nothing, a stand-in note with new code after it means "the
existing lines go here" (``setup()`` / ``# ... existing code ...`` / ``cleanup()``):
refused, since written as is it would put ``cleanup()`` before the body it should follow.
A note the old text holds as often is the file's own.  Python's ``...`` as the whole
body of a stub (a ``Protocol``, an ``ABC``, ``@overload``, ``@abstractmethod``, a
``.pyi`` file) is code.  JavaScript's ``...rest`` is never a note: the grammar reads it
as code.
"""
from __future__ import annotations

import re

from ..lazy_re import lazy_compile
from .placeholders import (alignment, comment_words, drops_lines, is_placeholder, kept_lines,
                           placeholder_lines, refers_elsewhere, stand_in_words,
                           trailing_placeholder_lines)

_BARE_ELLIPSIS = ("...", "…", ". . .")
# the kinds of node whose block may be left empty on purpose, with a comment saying why
_BRANCH = lazy_compile(r"catch|except|rescue|finally|else|elif|if_|switch|case|when|"
                       r"match_arm|default")
_DEFINITION = lazy_compile(r"function|method|def|class|lambda|closure|constructor|impl")

# a section header over new lines ("Other settings", "More options"): the words of a
# stand-in without its tail ("other settings unchanged")
_HEADER = lazy_compile(r"^(?:other|more|additional|further|extra|misc(?:ellaneous)?)\s+\w+\W*$",
                       re.IGNORECASE)
_STUB_BASES = lazy_compile(r"^\s*class\s+\w+\s*\(.*\b(?:Protocol|ABC|ABCMeta|Interface)\b")
_STUB_DECORATORS = lazy_compile(r"^\s*@(?:\w+\.)*(?:overload|abstractmethod|"
                                r"abstractproperty|abstractclassmethod|abstractstaticmethod)\b")
_OPENS_DEF = lazy_compile(r"^\s*(?:async\s+)?def\s.*:\s*$")


def stand_in(line: str) -> bool:
    """Whether the note on ``line`` is worded as standing for code elsewhere: a bare or
    framing ellipsis, the English phrases of ``placeholders``, or a stand-in word of the
    other languages; a section header (``# Other settings``) is not."""

    words = comment_words(line)
    if words is None:
        words = line.strip()
    if _HEADER.match(words):
        return False
    return is_placeholder(line) or stand_in_words(words)


def grammar_findings(path: str, old: list[str], new: list[str]
                     ) -> tuple[list[tuple[int, str]], str] | None:
    """The placeholders of an edit of ``path`` replacing ``old`` by ``new`` (1-based
    index in ``new``, line) and where they are (``replaced``: over dropped lines;
    ``inside``: inside an insertion), judged by the file's grammar; None when no grammar
    reads the file (the caller keeps the text rules)."""
    from ..grammar.code_tree import read_file
    from ..grammar.languages import grammar_for

    if grammar_for(path, new[0] if new else None) is None:
        return None
    if not any(_may_be_a_note(line) for line in new):
        return [], "replaced"  # nothing the grammar could call a note: nothing parsed
    after = read_file(path, new)
    if after is None:
        return None

    notes = {j for j in _note_rows(after, new) if not _stub_body(path, new, j)}
    notes = _not_held(notes, old, new)
    if not notes:
        return [], "replaced"

    if not drops_lines(old, new):
        return _inside_insertion(notes, new), "inside"
    before = read_file(path, old)
    old_notes = before.comment_rows() if before is not None else set()
    return _over_dropped(notes, old, new, old_notes, after), "replaced"


def _note_rows(after, new: list[str]) -> set[int]:
    """The rows of ``new`` that are notes as its grammar reads it (module docstring)."""
    strings = after.string_rows()
    notes = after.comment_rows() | {j for j, line in enumerate(new)
                                    if line.strip() in _BARE_ELLIPSIS and j not in strings}
    # a line the grammar cannot read that is written as another language's comment (`//
    # unchanged` in Python): a note, not code
    notes |= {j for j in after.error_rows() if j < len(new) and j not in strings
              and comment_words(new[j]) is not None}
    # a placeholder comment wrapped in code's brackets (JSX's `{/* ... */}`)
    notes |= {j for j in after.rows_with_comments() - strings
              if j < len(new) and new[j].lstrip().startswith(("{/*", "{{/*"))
              and is_placeholder(new[j])}
    return notes


def snippet_placeholders(path: str, file_lines: list[str], snippet: list[str]) -> set[int]:
    """The placeholders of a lazy snippet of ``path`` (0-based indexes in ``snippet``):
    its notes worded as standing for code, that the file does not hold (its own notes are
    anchors); by the grammar where the file has one, else by the text rules."""
    from ..grammar.code_tree import read_file

    tree = read_file(path, snippet) if any(_may_be_a_note(line) for line in snippet) else None
    if tree is not None:
        notes = {j for j in _note_rows(tree, snippet) if not _stub_body(path, snippet, j)}
    else:
        notes = {j for j, line in enumerate(snippet) if is_placeholder(line)}
    held = {line.strip() for line in file_lines}
    return {j for j in notes if snippet[j].strip() not in held and stand_in(snippet[j])}


def holds_placeholders(path: str, snippet: list[str]) -> bool:
    """Whether a fenced text shown for the tracked file ``path`` holds a placeholder note
    (formats/lazy_snippet.py's test while parsing, where the file's own notes are not
    known: the planner's merge tells them apart).  A cheap test by the words first."""
    if not any(stand_in(line) for line in snippet if line.strip()):
        return False
    return bool(snippet_placeholders(path, [], snippet))


_NOTE_MARKS = ("#", "//", "/*", "<!--", "=begin")


def _may_be_a_note(line: str) -> bool:
    """Whether ``line`` could be read as a note by some grammar: it holds a comment marker
    of one of the languages, or is a bare ellipsis (a cheap test that spares the parse of
    most edits)."""
    return any(mark in line for mark in _NOTE_MARKS) or line.strip() in _BARE_ELLIPSIS


def _not_held(notes: set[int], old: list[str], new: list[str]) -> set[int]:
    """The notes the old text does not hold where they stand (a file's own notes, kept in
    place, are content; a copy written elsewhere over dropped lines is new)."""

    texts = {line.strip() for line in old}
    if not any(new[j].strip() in texts for j in notes):
        return notes
    return notes - kept_lines(old, new)


def _over_dropped(notes: set[int], old: list[str], new: list[str], old_notes: set[int],
                  after) -> list[tuple[int, str]]:

    found = []
    for i1, i2, j1, j2 in _stretches(alignment(old, new), old):
        here = [j for j in range(j1, j2) if j in notes]
        if not here or i1 == i2:
            continue
        if not any(old[i].strip() and i not in old_notes for i in range(i1, i2)):
            continue  # comments rewritten as comments
        written = [j for j in range(j1, j2) if new[j].strip() and j not in notes]
        for j in here:
            if written:
                counts = stand_in(new[j]) or _closes_a_shortened_stretch(
                    old[i1:i2], new, j, written, old_notes, i1)
            else:
                counts = stand_in(new[j]) or not _reason_for_empty_branch(after, new, j)
            if counts:
                found.append((j + 1, new[j]))
    return found


def _stretches(ops, old: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed stretches of an alignment: its unequal runs, joined across equal runs
    of blank lines only (a note inserted after a blank line the file had, over lines
    deleted after it, replaces them)."""
    out: list[list[int]] = []
    joinable = False
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            joinable = bool(out) and all(not old[i].strip() for i in range(i1, i2))
            if not joinable:
                continue
            continue
        if out and joinable:
            out[-1][1], out[-1][3] = i2, j2
        else:
            out.append([i1, i2, j1, j2])
        joinable = True
    return [tuple(s) for s in out]


def _closes_a_shortened_stretch(old_part: list[str], new: list[str], j: int,
                                written: list[int], old_notes: set[int], i1: int) -> bool:
    """A note after the last code its stretch writes, in a stretch that drops more code
    than it writes, worded as referring to code elsewhere (``# (body identical to the
    previous version)``, ``// (lookup code here)``): it stands for what was dropped.  A
    note with written code after it is that code's comment."""

    if j < max(written):
        return False
    dropped = sum(1 for k, line in enumerate(old_part) if line.strip()
                  and i1 + k not in old_notes)
    return dropped > len(written) and refers_elsewhere(new[j])


def _reason_for_empty_branch(after, lines: list[str], row: int) -> bool:
    """Whether the comment on ``row`` sits in a branch's block (a ``catch``, an ``else``),
    not a definition's: the reason the branch is left empty.  An edit's text is often a
    fragment the grammar cannot place (it opens with ``} catch (e) {``): then the block's
    header line says, by its keyword."""
    # the root is the fragment's, not the file's: the header line decides from there
    for kind in after.enclosing(row)[1:-1]:
        if kind == "ERROR":
            break
        if _DEFINITION.search(kind):
            return False
        if _BRANCH.search(kind):
            return True
    depth = _indent(lines[row])
    header = next((line for line in reversed(lines[:row])
                   if line.strip() and _indent(line) < depth), "")
    return bool(_BRANCH_HEADER.match(header))


# the keyword that opens a branch's block, in the languages with a grammar
_BRANCH_HEADER = lazy_compile(r"^\s*(?:\}\s*)?(?:catch|except|rescue|else|elif|elsif|else\s+if|"
                              r"finally|case|default|when|if|unless)\b")


def _inside_insertion(notes: set[int], new: list[str]) -> list[tuple[int, str]]:
    """Stand-in notes with new code after them in an edit that drops nothing: the existing
    lines would go where the note is."""
    found = []
    for j in sorted(notes):
        if not stand_in(new[j]):
            continue
        depth = _indent(new[j])
        later = [line for line in new[j + 1:] if line.strip()]
        if later and _indent(later[0]) >= depth and later[0].strip() not in _CLOSERS:
            found.append((j + 1, new[j]))
    return found


_CLOSERS = ("}", "};", "},", ")", "]", "end", "</div>", "fi", "done", "esac")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _stub_body(path: str, lines: list[str], j: int) -> bool:
    """Python's ``...`` as the whole body of a stub definition: in a ``.pyi`` file, under
    ``@overload`` / ``@abstractmethod``, or in a ``Protocol`` / ``ABC`` class."""
    if lines[j].strip() != "..." or not path.endswith((".py", ".pyi", ".pyw")):
        return False
    if path.endswith(".pyi"):
        return True
    k = j - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    if k < 0 or not _OPENS_DEF.match(lines[k]):
        return False
    depth = _indent(lines[k])
    d = k - 1
    while d >= 0 and lines[d].strip().startswith("@"):
        if _STUB_DECORATORS.match(lines[d]):
            return True
        d -= 1
    for line in reversed(lines[:k]):
        if line.strip() and _indent(line) < depth:
            return bool(_STUB_BASES.match(line))
    return False


# -- the verdict on an operation -----------------------------------------------------
def placeholder_reason(path: str, found: list[tuple[int, str]], where: str) -> str:
    """The refusal's words: which line, and why it cannot be committed."""
    number, line = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return (f"{where} of {path} replaces existing lines, and line {number} of its new text, "
            f"{line.strip()!r}{more}, looks like a placeholder for code left out; "
            "committing it would delete that code")


def trailing_placeholder_reason(path: str, found: list[tuple[int, str]], where: str) -> str:
    """The refusal's words for a placeholder at the edge of an edit that drops nothing."""
    number, line = found[0]
    return (f"{where} of {path} removes nothing, but line {number} of its new text, "
            f"{line.strip()!r}, looks like a placeholder for the lines of the file around "
            "the edit; committing it would add that note to the file as code")


def inside_placeholder_reason(path: str, found: list[tuple[int, str]], where: str) -> str:
    """The refusal's words for a note inside an insertion that stands for existing lines."""
    number, line = found[0]
    return (f"{where} of {path} adds lines around line {number} of its new text, "
            f"{line.strip()!r}, which stands for existing code (the lines the new ones should "
            "go around); written as is, the new lines would land before that code and the "
            "note would be committed")


PLACEHOLDER_HINT = ("send the complete new text of the file, or a patch that changes only "
                    "the lines it means to change, with every line written out")
TRAILING_PLACEHOLDER_HINT = ("leave the note out: the lines around the edit stay as they are "
                             "without it; write only the lines that change")
INSIDE_PLACEHOLDER_HINT = ("write out the lines the note stands for, or send the new lines as "
                           "an edit of the lines they go after, with no note")
# each kind of finding: its reason, the label of the lines shown, its hint
_WORDING = {
    "replaced": (placeholder_reason, "the lines it replaces begin", PLACEHOLDER_HINT),
    "edge": (trailing_placeholder_reason, "the lines it keeps begin", TRAILING_PLACEHOLDER_HINT),
    "inside": (inside_placeholder_reason, "the lines it keeps begin", INSIDE_PLACEHOLDER_HINT),
}


def _findings(old: list[str], new: list[str], path: str = "") -> tuple[list[tuple[int, str]], str]:
    """The placeholders of one edit, and where they are: ``replaced`` (over dropped
    lines), ``inside`` (an insertion's note standing for the lines it would go around),
    ``edge`` (at the edge of an edit that drops nothing).  A file whose language has a
    grammar is judged by structure (above), any other by the text rules of placeholders.py."""
    judged = grammar_findings(path, old, new) if path else None
    if judged is not None and judged[0]:
        return judged
    if judged is None:
        hits = placeholder_lines(old, new, prose=_is_prose(path))
        if hits:
            return hits, "replaced"
    return trailing_placeholder_lines(old, new), "edge"


# markup whose ``#`` opens a heading and whose quoted code is text: only ``<!-- -->`` is
# a comment of the file's own
_PROSE_MARKUP = (".md", ".markdown", ".mdown", ".mkd", ".mdx", ".rst", ".adoc", ".asciidoc",
                 ".txt", ".org")


def _is_prose(path: str) -> bool:
    return path.lower().endswith(_PROSE_MARKUP)


def op_placeholder_problems(op, path: str, file_lines) -> list:
    """The refusals (``Problem``) for the placeholders an operation writes over lines it
    replaces, or at the edge of lines it keeps: a full-content write (``NewFile`` over
    ``file_lines``), every hunk of an ``EditFile`` (each reading of a SEARCH/REPLACE
    block), a hashline ``set`` or ``insert_after``, a text editor ``str_replace`` or
    ``insert`` (after line N of ``file_lines``).  An append has none."""
    return [p for edit in _edits(op, list(file_lines), path) for p in _problem(op, path, *edit)]


# One edit as judged: (where, edit number, its first line, (the file's line number of the
# first line it replaces, None when unknown; the lines it replaces), its new lines).
_INSERTIONS = ("the insertion", "this insertion")
_Edit = tuple[str, int | None, str | None, tuple[int | None, list[str]], list[str]]


def _edits(op, file_lines: list[str], path: str) -> list[_Edit]:
    """The edits of ``op`` whose old and new lines the detector judges."""
    from ..ops import EditFile, HashlineEdit, InsertText, NewFile, ReplaceText

    if isinstance(op, NewFile):
        return [("the new content", None, None, (1, file_lines), op.text.split("\n"))]
    if isinstance(op, EditFile):
        return [edit for h in op.hunks for edit in _hunk_edit(h, path)]
    if isinstance(op, HashlineEdit):
        return [edit for hop in op.ops for edit in _hashline_edit(hop, file_lines)]
    if isinstance(op, ReplaceText):
        return [("the replacement", op.number, None, (None, op.old.split("\n")),
                 op.new.split("\n"))]
    if isinstance(op, InsertText) and 0 < op.line <= len(file_lines):
        # nothing is replaced; the line inserted after is what a trailing note follows
        after = file_lines[op.line - 1]
        return [("the insertion", op.number, None, (op.line, [after]),
                 [after] + op.text.split("\n"))]
    return []


def _hunk_edit(h, path: str) -> list[_Edit]:
    """A hunk's first reading (of a SEARCH/REPLACE block's several) with a placeholder."""
    for lines in [h.lines] + [r for _why, r in h.readings if r is not h.lines]:
        old = [t for tag, t in lines if tag != "+"]
        new = [t for tag, t in lines if tag != "-"]
        if _findings(old, new, path)[0]:
            return [("this edit", h.number, h.first_line(), (None, old), new)]
    return []


def _hashline_edit(hop, file_lines: list[str]) -> list[_Edit]:
    """A hashline ``set`` replaces its range; an ``insert_after`` keeps the line it
    follows, after which a trailing note stands for what comes next."""
    if hop.kind == "set":
        return [("this operation", hop.number, hop.raw,
                 (hop.start, file_lines[hop.start - 1:hop.end]), hop.text_lines)]
    if hop.kind == "insert_after" and 0 < hop.start <= len(file_lines):
        after = file_lines[hop.start - 1]
        return [("this insertion", hop.number, hop.raw, (hop.start, [after]),
                 [after] + hop.text_lines)]
    return []


def _problem(op, path: str, where: str, number: int | None, first: str | None,
             replaced: tuple[int | None, list[str]], new: list[str]) -> list:
    """The refusal for one edit's placeholders, if it has any."""
    from ..errors import Problem

    start, old = replaced
    hits, kind = _findings(old, new, path)
    if not hits:
        return []
    if where in _INSERTIONS:  # numbered in the inserted text, without the line it follows
        hits = [(n - 1, line) for n, line in hits]
    reason, label, hint = _WORDING[kind]
    # an edit's own old lines carry no line numbers of the file: not shown
    nearby = [] if start is None else [(start + i, line) for i, line in enumerate(old[:6])]
    return [Problem(reason(path, hits, where), file=path, directive=op.source.directive,
                    edit=number, edit_first_line=first, nearby=nearby, nearby_label=label,
                    hint=hint)]
