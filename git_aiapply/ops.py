"""The format-independent operation model.

Every parser (one module per format under ``git_aiapply/formats``) turns response text
into a list of these operations; the rest of the tool (planning, locating, the git
transaction, messages) consumes only them.  Paths are as the response wrote them
(``git_aiapply.paths`` normalises and checks them later), text is ``str`` decoded from
the response with ``surrogateescape`` so any byte survives a round trip.
"""
from __future__ import annotations

from .record import field, record
from typing import Union


@record(frozen=True)
class Source:
    """Where an operation came from, for error messages and the commit trailer."""

    format: str  # 'file-changes', 'hashline', 'apply-patch', 'codechange', 'unified-diff'
    directive: str  # human words for the directive, e.g. 'FILE_PATCH src/app.py'
    block: int = 1  # 1-based number of the change block in the response
    line: int = 0  # 1-based line in the response where the directive starts (0 = unknown)
    # a git diff's a/ b/ prefix was taken off the paths: `-p N` counts it, as git apply's
    # -p1 (limits.reroot)
    git_prefix: bool = False
    prefixes: str = "ab"  # the letters of that prefix, old side then new (a/ b/, or c/ w/ ...)


# Tags of hunk lines.
CONTEXT = " "
REMOVE = "-"
ADD = "+"


@record
class Hunk:
    """One located edit: a run of old lines (context + removed) replaced by new lines.

    ``lines`` is a list of ``(tag, text)`` with tag ``' '`` (context), ``'-'``
    (removed) or ``'+'`` (added); text carries no line ending.
    """

    lines: list[tuple[str, str]]
    number: int = 1  # 1-based number of the edit within its directive
    kind: str = "hunk"  # 'hunk' (diff), 'chunk' (apply-patch), 'search' (SEARCH/REPLACE)
    anchors: list[str] = field(default_factory=list)  # apply-patch '@@ text' lines, outermost first
    at_eof: bool = False  # apply-patch '*** End of File': fits only at the end of the file
    line_hint: int | None = None  # 1-based old start line (unified diff): evidence of place
    # unified diff '\ No newline at end of file' after the old / new side's last line
    old_no_newline: bool = False
    new_no_newline: bool = False
    # SEARCH/REPLACE with several '=======' lines that could be its divider: every reading
    # as (what it assumes, lines); ``divider_readings.choose_readings`` keeps the one the file fits.
    readings: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)
    # set when a file's edits from several directives are located together (plan.py):
    # the directive this hunk came from, for errors, and its ordinal among them (line
    # numbers are shifted by the offsets of earlier hunks of the same directive only)
    directive: str | None = None
    section: int = 0
    block: int = 0  # the response's change block it came from (Source.block), when gathered

    @property
    def old(self) -> list[str]:
        return [t for tag, t in self.lines if tag != ADD]

    @property
    def new(self) -> list[str]:
        return [t for tag, t in self.lines if tag != REMOVE]

    def first_line(self) -> str:
        """The line a person recognises the edit by, for error messages."""
        for tag, text in self.lines:
            if tag != ADD and text.strip():
                return text
        for _tag, text in self.lines:
            if text.strip():
                return text
        return ""


@record
class NewFile:
    """Create a file (or, when ``replace`` is true, replace a tracked file's content).

    ``text`` is the final content (decoded); ``replace`` false means the path must not
    exist (empty SEARCH in codechange)."""

    path: str
    text: str
    source: Source
    replace: bool = True
    mode: int | None = None  # None: 0o100644 for a new file, the old mode when replacing
    says_new: bool = True  # False: the response does not say the file is new (--format whole)
    # a snippet of the tracked file (an edit_file call's code_edit): merged into it by its
    # anchors and placeholders (plan/lazy_merge.py), never written as the whole file
    lazy: bool = False
    # set when the text is such a snippet merged into the file: what each of its
    # placeholders kept (lazy_merge.KeptRun), for -v and --json
    merged: tuple | None = None
    # a tool whose harness refuses to create a file that exists (SWE-agent's and
    # OpenHands' str_replace_editor ``create``): its name, for errors (plan/whole_write.py)
    create_only: str | None = None


@record
class AppendFile:
    """Add lines at the end of a file, creating it when missing (FILE_APPEND).

    ``text`` is the content to add (decoded, ending with a newline unless empty)."""

    path: str
    text: str
    source: Source


@record
class DeleteFile:
    """Remove a tracked file."""

    path: str
    source: Source
    # unified diff ('+++ /dev/null'): the '-' lines, which must be the file's whole content
    # (as `git apply` checks); None when the directive names the file only
    old_lines: list[str] | None = None


@record
class RenameFile:
    """Move a file to a new path (its mode kept)."""

    old_path: str
    new_path: str
    source: Source


@record
class SetMode:
    """A mode change (unified diff 'new mode 100755')."""

    path: str
    mode: int  # 0o100644 or 0o100755
    source: Source


@record
class EditFile:
    """Hunks to locate in a file's current content and apply all at once."""

    path: str
    hunks: list[Hunk]
    source: Source
    # apply-patch: the result always ends with a newline
    ensure_final_newline: bool = False
    # aider's SEARCH/REPLACE blocks: if the hunks do not fit together, they may apply one
    # after another, as aider applies them (``divider_readings.apply_edit``)
    in_turn: bool = False
    # a unified diff naming one path on both sides with only added lines: the file's
    # content when that path is missing (aider's udiff coder creates it), else None
    text_if_missing: str | None = None


@record
class HashlineOp:
    """One hashline operation; line numbers refer to the file as it was.

    kind: 'set' (lines start..end replaced by ``text_lines``; empty list deletes),
    'insert_after' / 'insert_before' (``text_lines`` inserted at ``start``).
    """

    kind: str
    start: int
    start_id: str
    end: int
    end_id: str
    text_lines: list[str]
    number: int  # 1-based within its directive
    raw: str  # the operation's first line as written, for errors


@record
class HashlineEdit:
    """A file's hashline operations (LINE#ID references)."""

    path: str
    ops: list[HashlineOp]
    source: Source


@record
class ReplaceText:
    """A tool call's string replacement (the text editor's ``str_replace``, Claude Code's
    ``Edit``/``MultiEdit``, Gemini CLI's ``replace``): ``old`` (a substring, not
    necessarily whole lines) must occur ``expected`` times in the file, each replaced by
    ``new``; ``expected`` None means every occurrence, at least one (``replace_all``)."""

    path: str
    old: str
    new: str
    source: Source
    number: int = 1  # the tool call's number, for errors
    expected: int | None = 1
    tool: str = "str_replace"  # the tool or command, as errors name it
    old_name: str = "old_str"  # the argument that held ``old``, as errors name it
    # the agent's count argument, as hints name it ('replace_all', 'replaceAll',
    # 'allow_multiple', 'expected_replacements'...; answer/shapes.py), None: none
    count_key: str | None = None
    fold_quotes: bool = False  # Claude Code's Edit: straight quotes find typographic ones
    # 1-based line the agent says ``old`` starts on (Roo's :start_line:, Augment's
    # old_str_start_line_number): of several occurrences, the one starting there is meant
    line_hint: int | None = None


@record
class InsertText:
    """A tool call's insert (Anthropic's text editor ``insert`` and the agents' own,
    answer/shapes.py): ``text`` as whole lines after line ``line`` (0 = the top) of the
    file as it is at this point of the response; ``at_end``: after its last line, however
    many there are (Roo's line 0, Goose's -1)."""

    path: str
    line: int
    text: str
    source: Source
    number: int = 1
    at_end: bool = False
    line_name: str = "insert_line"  # the argument that held the line, as errors name it


@record
class PutFile:
    """A file's whole new state, as bytes and a mode, computed elsewhere: ``-3``'s merge of
    an answer applied at its base (threeway/drift.py).  No parser makes one; the planner
    puts it through the checks every write gets (what stands at the path, its folders)."""

    path: str
    mode: int
    data: bytes
    source: Source


Operation = Union[NewFile, AppendFile, DeleteFile, RenameFile, SetMode, EditFile, HashlineEdit,
                  ReplaceText, InsertText, PutFile]

