"""Coding agents' own edit tools, as tool calls (BEHAVIOR.md §1, issue 22 item 5).

- Claude Code's ``Edit`` (``file_path``, ``old_string``, ``new_string``, ``replace_all``):
  without ``replace_all`` the old string must occur exactly once; with it, every
  occurrence (at least one) is replaced.  An empty ``old_string`` creates the file (or
  fills an empty one).  ``MultiEdit`` (``file_path``, ``edits``: a list of such edits)
  applies them in order, each to the result of the one before; one that fails refuses the
  response, so none of them lands.  ``Write`` (``file_path``, ``content``) writes the file.
  As Claude Code does, an old string with straight quotes also finds the file's
  typographic ones (``text_edits.fold_quotes``), and the text it keeps keeps them.
- Gemini CLI's ``replace`` (``file_path``, ``old_string``, ``new_string``,
  ``expected_replacements``, default 1): the old string must occur exactly that many
  times.  ``write_file`` (``file_path``, ``content``) writes the file.
- Lazy edits (BEHAVIOR.md §5): Cursor's and Kilo Code's ``edit_file`` (``target_file``,
  ``instructions``, ``code_edit``), Morph's MCP ``edit_file`` (``path``, ``instruction``,
  ``code_edit``), Copilot's ``insert_edit_into_file`` (``filePath``, ``code``,
  ``explanation``) and Continue's ``edit_existing_file`` (``filepath``, ``changes``) send
  a snippet of the file with placeholders for the code they leave out: a
  ``NewFile(lazy=True)``, merged into the tracked file by the planner (plan/lazy_merge.py),
  written whole where nothing is tracked (these tools create a missing file so).  Known by
  the tool's name without a harness's prefix (``mcp__morph__edit_file``).

Every string replacement becomes a ``ReplaceText``, as the text editor's ``str_replace``
does, so all tool-call edits are one kind of operation; a whole file becomes a
``NewFile``.  Paths stay as given: an absolute path (these tools take absolute paths) is
made relative, or refused outside the worktree, where every path is normalised
(``paths.normalize_path``).
"""
from __future__ import annotations

from typing import Callable

from ..errors import ApplyError, Problem
from ..ops import NewFile, Operation, ReplaceText, Source

# where an operation came from, given what it does ('Edit a.py'): toolcalls.py's naming
SourceOf = Callable[[str], Source]

# the argument that names the file, per tool; ``path`` is taken too, as a tired model
# writes it (the text editor's name)
_PATH_KEYS = ("file_path", "path")


# Lazy edit tools by their name without a harness prefix: the keys of their path and of
# their snippet, each tool's own first
LAZY_TOOLS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "edit_file": (("target_file", "path", "file_path"), ("code_edit",)),
    "insert_edit_into_file": (("filePath", "file_path", "path"), ("code",)),
    "edit_existing_file": (("filepath", "filePath", "path"), ("changes",)),
}


def lazy_tool(name: str) -> str | None:
    """The lazy edit tool ``name`` calls (its name without ``mcp__server__`` or
    ``developer__``), or None."""
    base = name.rsplit("__", 1)[-1].rsplit(".", 1)[-1]
    return base if base in LAZY_TOOLS else None


def agent_tool_ops(call, args: object, source: SourceOf) -> list[Operation]:
    """The operations of one call of Edit, MultiEdit, Write, replace or write_file, or of
    a lazy edit tool (``LAZY_TOOLS``)."""
    if not isinstance(args, dict):
        why = ("its arguments are not valid JSON (cut off?)"
               if isinstance(args, str) and args.lstrip().startswith("{")
               else "it has no arguments object")
        raise _refuse(call, why, hint="send the call again with its whole arguments object")
    lazy = lazy_tool(call.name)
    if lazy is not None:
        return [_lazy_edit(call, args, lazy, source)]
    path = _file_path(call, args)
    if call.name in ("Write", "write_file"):
        return [_write(call, args, path, source)]
    if call.name == "MultiEdit":
        return _multi_edit(call, args, path, source)
    return _one_edit(call, args, path, source, what=f"{call.name} {path}")


def _lazy_edit(call, args: dict, tool: str, source: SourceOf) -> NewFile:
    """A lazy edit tool's snippet, to be merged into its file (module docstring)."""
    path_keys, text_keys = LAZY_TOOLS[tool]
    path = _file_path(call, args, path_keys)
    text = next((args[k] for k in text_keys if isinstance(args.get(k), str)), None)
    if text is None:
        raise _refuse(call, f"{tool} {path} has no '{text_keys[0]}' string", path=path,
                      hint=f"give the changed lines, with placeholder comments for the code "
                           f"left out, in '{text_keys[0]}'")
    return NewFile(path, _unfenced(text, path), source(f"{tool} {path}"), replace=True,
                   lazy=True)


def _unfenced(text: str, path: str) -> str:
    """A snippet sent as one fenced block (Continue once asked for ``changes`` so): its
    content; a document's text (Markdown...) is kept as written, fences and all."""
    from ..text import fence_close_line, fence_open

    if path.lower().endswith((".md", ".markdown", ".mdx", ".rst", ".txt", ".adoc")):
        return text
    lines = text.strip("\n").split("\n")
    opened = fence_open(lines[0]) if lines else None
    if opened is None or fence_close_line(lines, 0, opened[:2]) != len(lines) - 1:
        return text
    return "\n".join(lines[1:-1]) + "\n"


def _refuse(call, reason: str, hint: str | None = None, path: str | None = None) -> ApplyError:
    return ApplyError(Problem(f"{call.words()}: {reason}", file=path, hint=hint))


def _file_path(call, args: dict, keys: tuple[str, ...] = _PATH_KEYS) -> str:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            if "\n" in value or "\r" in value:
                raise _refuse(call, "the file_path holds a line break", path=value)
            return value
    raise _refuse(call, f"{call.name} without a {keys[0]}",
                  hint=f"give the file's path in '{keys[0]}'")


def _write(call, args: dict, path: str, source: SourceOf) -> NewFile:
    content = args.get("content")
    if not isinstance(content, str):
        raise _refuse(call, f"{call.name} {path} has no 'content' string", path=path,
                      hint="give the file's whole new content in 'content'")
    return NewFile(path, content, source(f"{call.name} {path}"), replace=True)


def _string(call, edit: dict, key: str, what: str, path: str) -> str:
    value = edit.get(key)
    if not isinstance(value, str):
        raise _refuse(call, f"{what}: '{key}' is missing or not a string", path=path,
                      hint=f"give '{key}' as a string")
    return value


def _one_edit(call, edit: dict, path: str, source: SourceOf, what: str,
              number: int = 1) -> list[Operation]:
    """One Edit / replace (or one edit of a MultiEdit) as an operation."""
    old = _string(call, edit, "old_string", what, path)
    new = _string(call, edit, "new_string", what, path)
    if old == new:
        # both tools refuse this: the harness would not have applied it
        raise _refuse(call, f"{what}: old_string and new_string are the same, so the edit "
                            "changes nothing", path=path,
                      hint="give the text as it should be after the edit in new_string")
    expected = _expected(call, edit, what, path)
    origin = source(what)
    if old == "":
        if number > 1:
            raise _refuse(call, f"{what}: old_string is empty; only a MultiEdit's first edit "
                                "may create the file", path=path,
                          hint="give the exact text to replace in old_string")
        # an empty old_string creates the file, or fills an empty one (both tools)
        return [NewFile(path, new, origin, replace=False)]
    # a MultiEdit's edits are reported by their own numbers (edit 3), as errors name them
    shown = number if call.name == "MultiEdit" else call.number
    return [ReplaceText(path, old, new, origin, number=shown, expected=expected,
                        tool=call.name, old_name="old_string")]


def _expected(call, edit: dict, what: str, path: str) -> int | None:
    """How many occurrences the edit must find: Edit's replace_all (None: every one, at
    least one), Gemini's expected_replacements (exactly N), else exactly one."""
    if call.name == "replace":
        return _count(call, edit.get("expected_replacements"), what, path)
    flag = edit.get("replace_all")
    if flag is None or flag is False:
        return 1
    if flag is True:
        return None
    if isinstance(flag, str) and flag.strip().lower() in ("true", "false"):
        return None if flag.strip().lower() == "true" else 1
    raise _refuse(call, f"{what}: replace_all must be true or false, not {flag!r}", path=path)


def _count(call, value, what: str, path: str) -> int:
    if value is None:
        return 1
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _refuse(call, f"{what}: expected_replacements must be a whole number of at "
                            f"least 1, not {value!r}", path=path)
    return value


def _edits_list(call, args: dict, path: str) -> list:
    edits = args.get("edits")
    if isinstance(edits, str) and edits.lstrip().startswith("["):
        import json  # a model that sent the list as a JSON string

        try:
            edits = json.loads(edits)
        except (ValueError, RecursionError):
            pass
    if not isinstance(edits, list) or not edits:
        raise _refuse(call, f"MultiEdit {path} has no 'edits' list", path=path,
                      hint="give the edits as a list of {old_string, new_string} objects")
    return edits


def _multi_edit(call, args: dict, path: str, source: SourceOf) -> list[Operation]:
    """MultiEdit: its edits in order, each on the result of the ones before, as Claude
    Code documents it (the planner applies operations in order), so a later edit may
    change text an earlier one wrote; each keeps its own count rule, and any that fails
    refuses the whole response, naming it."""
    ops: list[Operation] = []
    for i, edit in enumerate(_edits_list(call, args, path), 1):
        what = f"MultiEdit {path}, edit {i}{_after_edits(i)}"
        if not isinstance(edit, dict):
            raise _refuse(call, f"{what} is not an object", path=path,
                          hint="each edit is {old_string, new_string, replace_all}")
        ops.extend(_one_edit(call, edit, path, source, what, number=i))
    return ops


def _after_edits(i: int) -> str:
    """What the file edit ``i`` of a MultiEdit is matched against, for its errors: the
    result of the edits before it, not the file as the model read it."""
    if i == 1:
        return ""
    return " (on the file as edit 1 left it)" if i == 2 else \
        f" (on the file as edits 1-{i - 1} left it)"
