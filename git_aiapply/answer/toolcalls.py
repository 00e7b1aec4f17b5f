"""Edits that arrive as tool calls in chat-API JSON (BEHAVIOR.md §1).

``response.py`` walks the JSON and hands over every tool call it meets, in order, as a
``ToolCall``; this module decides what each one is and turns the edits into operations:

- OpenAI Responses ``apply_patch_call`` items: ``operation`` ``create_file`` (a V4A diff
  whose lines are the file's lines, each prefixed ``+``), ``update_file`` (a V4A diff:
  the body of an apply-patch ``*** Update File:`` section, ``@@`` anchors,
  ``*** End of File``) and ``delete_file``;
- a tool named ``apply_patch`` called as a custom tool (its input is apply-patch text),
  as a function (arguments ``{"input": TEXT}`` or ``{"patch": TEXT}``), in Chat
  Completions ``tool_calls`` or as an Anthropic ``tool_use``; and Codex's ``shell`` tool
  running ``["apply_patch", TEXT]`` (or a Responses ``shell_call`` whose command is only an
  ``apply_patch`` heredoc);
- Anthropic's text editor tool (``str_replace_based_edit_tool``, formerly
  ``str_replace_editor``): ``str_replace`` (``old_str`` must occur exactly once, as a
  substring), ``create`` (``file_text``), ``insert`` (``insert_text`` or ``new_str`` as
  whole lines after line ``insert_line``, 0 = the top); ``view`` changes nothing.

- every coding agent's own edit tools (Claude Code, Gemini CLI, Cline, Roo Code, Kilo
  Code, OpenCode, Copilot, Windsurf, Cursor, Amp, Goose, Continue, Zed, Augment...):
  their shapes are data (``shapes.SHAPES``), read by ``agent_tools``.

Any other tool call is left out when it is a known read-only tool (``shapes.READ_ONLY``)
or names no file; one that names a path (or a source and a destination), or whose
arguments look like an edit (content, a diff, an ``old_str``...), refuses the response,
naming the tool, because applying the rest would silently drop that edit.

V4A bodies are parsed by the apply-patch format's own block parser, so a V4A diff means
exactly what the same lines mean inside ``*** Begin Patch``.  ``str_replace`` and
``insert`` are planned by ``text_edits.apply_text_edit`` (called from ``plan.py``): pure
functions of a file's text, keeping its line endings, BOM and final newline.
"""
from __future__ import annotations

from ..record import record, replace


from ..errors import ApplyError, Problem
from ..text import normalize_newlines
from ..ops import (DeleteFile, EditFile, InsertText, NewFile, Operation, RenameFile, ReplaceText,
    Source)

# the input kind, as AI-Format and --json name it (the planner's word too: the core's)
from ..locate.text_edits import TOOL_CALL as NAME  # noqa: E402

APPLY_PATCH_TOOLS = frozenset({"apply_patch", "applypatch"})
TEXT_EDITOR_TOOLS = frozenset({"str_replace_based_edit_tool", "str_replace_editor"})
# the text editors whose harness (SWE-agent, OpenHands) refuses ``create`` over a file
CREATE_ONLY_EDITORS = frozenset({"str_replace_editor"})
SHELL_TOOLS = frozenset({"shell", "local_shell", "exec_command", "container.exec", "bash"})
# SWE-agent/OpenHands call the text editor str_replace_editor (above); every agent's own
# edit tools are entries of shapes.SHAPES; the lazy edit tools (a snippet with placeholders:
# edit_file's code_edit...) are its LAZY entries.

# Argument keys that name a file, and keys that carry file content or a change to one:
# a call of an unknown tool with both (or with a patch text) looks like an edit.
_PATH_KEYS = ("path", "file_path", "filepath", "filePath", "file", "filename", "target_file",
              "targetFile", "file_name", "fileName", "relative_path", "absolute_path",
              "notebook_path", "TargetFile", "AbsolutePath", "uri", "file_paths", "paths",
              "filePaths", "target_notebook", "relative_workspace_path")
_CONTENT_KEYS = ("content", "contents", "file_text", "new_content", "old_str", "new_str",
                 "old_string", "new_string", "oldString", "newString", "insert_text", "diff",
                 "patch", "code", "text", "edits", "replacement", "replace", "code_edit",
                 "new_text", "old_text", "new_source")


@record
class ToolCall:
    """One tool call of the answer, as the JSON gave it."""

    number: int  # 1-based among the answer's tool calls
    shape: str  # 'apply_patch_call', 'custom_tool_call', 'function_call', 'tool_use', ...
    name: str  # the tool's name ('apply_patch' for an apply_patch_call item)
    args: object  # the operation / input / arguments: a dict, or a string
    call_id: str | None = None
    label: str | None = None  # a tool use written as text: how errors name its block

    def words(self) -> str:
        """How errors name the call: 'tool call 2 (apply_patch_call)'."""
        if self.label:
            return self.label
        if self.shape in ("apply_patch_call", "local_shell_call") or self.name == self.shape:
            return f"tool call {self.number} ({self.shape})"
        return f"tool call {self.number} ({self.shape} {self.name})"

    def canonical(self) -> str:
        """A stable text of the call, for the AI-Response id."""
        import json

        return json.dumps({"name": self.name, "args": self.args}, sort_keys=True,
                          ensure_ascii=False)


# --------------------------------------------------------------------- classifying


def arguments(call: ToolCall) -> object:
    """A function call's arguments parsed from their JSON string (a dict), or as given."""
    args = call.args
    if isinstance(args, str) and call.shape not in ("custom_tool_call", "custom"):
        import json

        text = args.strip()
        if text.startswith("{"):
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                return args
            return value
    return args


def is_edit_call(call: ToolCall) -> bool:
    """Whether the call changes files (known edit tools; text editor 'view' does not)."""
    from .shapes import shape_of

    args = arguments(call)
    if call.shape == "apply_patch_call" or _named(call, APPLY_PATCH_TOOLS):
        return True
    if _named(call, TEXT_EDITOR_TOOLS):
        return not (isinstance(args, dict) and args.get("command") == "view")
    shape = shape_of(call.name, args)
    if shape is not None:
        return shape.kind != "read"
    return _shell_patch(call, args) is not None


def _named(call: ToolCall, names: frozenset) -> bool:
    """The call's name, or its name without a harness prefix, is one of ``names``."""
    from .shapes import base_name  # the table loads with the answer's first tool call

    return call.name in names or base_name(call.name) in names


def _names_a_path(args: object) -> str | None:
    """Arguments that name a file (a path key holding text, or a list of them): a call of
    a tool not known as read-only that names one may have changed it."""
    if not isinstance(args, dict):
        return None
    for k in _PATH_KEYS:
        value = args.get(k)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = value[0]
        if isinstance(value, str) and value.strip():
            return f"its arguments name a file ({k!r}: {value.strip()[:80]!r})"
    return None


def looks_like_edit(args: object) -> str | None:
    """Why an unknown tool's arguments look like an edit ('path' and 'content'), or None."""
    if isinstance(args, str):
        return _input_looks_like_edit(args)
    if not isinstance(args, dict):
        return None
    return (_names_file_and_content(args) or _moves_a_file(args) or _carries_patch(args)
            or _nested_input_looks_like_edit(args))


# Argument pairs that move or copy a file (an MCP filesystem server's move_file, Zed's
# move_path...): a tree change the model believes it made, never dropped silently
_MOVE_KEYS = (("source", "destination"), ("src", "dst"), ("from", "to"),
              ("old_path", "new_path"), ("oldPath", "newPath"), ("source_path",
              "destination_path"), ("sourcePath", "destinationPath"), ("from_path", "to_path"))


# Tools that delete a file by its path alone (Cursor's delete_file, an MCP filesystem
# server's), by their name without the harness's prefix (mcp__server__, developer__)
_REMOVING_TOOLS = frozenset({"delete_file", "remove_file", "delete_path", "remove_path",
                             "deletefile", "removefile", "unlink"})


def _removes_a_file(call: ToolCall, args: object) -> str | None:
    base = call.name.rsplit("__", 1)[-1].rsplit(".", 1)[-1].lower()
    if base not in _REMOVING_TOOLS or not isinstance(args, dict):
        return None
    path = next((args[k] for k in _PATH_KEYS if isinstance(args.get(k), str)), None)
    return f"it deletes a file ({path!r})" if path else None


def _moves_a_file(args: dict) -> str | None:
    for a, b in _MOVE_KEYS:
        if isinstance(args.get(a), str) and isinstance(args.get(b), str) and args[a].strip():
            return f"its arguments move or copy a file ({args[a]!r} to {args[b]!r})"
    return None


def _input_looks_like_edit(text: str) -> str | None:
    """A text input holding a block of one of the formats."""
    from ..formats import edit_tell  # the formats know what their blocks look like

    tell = edit_tell(text)
    return f"its input holds {tell.strip()!r}" if tell is not None else None


def _names_file_and_content(args: dict) -> str | None:
    """Arguments with a file's path and content (or a change) for it."""
    path = next((k for k in _PATH_KEYS if isinstance(args.get(k), str) and args[k].strip()), None)
    content = next((k for k in _CONTENT_KEYS if k in args and args[k] is not None
                    and not isinstance(args[k], bool)), None)
    if path and content:
        return f"its arguments name a file ({path!r}) and carry {content!r}"
    return None


def _carries_patch(args: dict) -> str | None:
    for k in ("patch", "diff"):
        if isinstance(args.get(k), str) and args[k].strip():
            return f"its arguments carry a {k!r}"
    return None


def _nested_input_looks_like_edit(args: dict) -> str | None:
    """A string argument (or one in a list) that holds a block of one of the formats."""
    for value in args.values():
        for item in (value if isinstance(value, list) else [value]):
            if isinstance(item, str):
                why = looks_like_edit(item)
                if why:
                    return why
    return None


# --------------------------------------------------------------------- operations


def call_ops(call: ToolCall) -> list[Operation]:
    """The operations of one tool call ([] for a call that changes nothing); ApplyError
    when it is an edit that cannot be read, or looks like one of an unknown tool."""
    from .agent_tools import agent_tool_ops
    from .shapes import base_name, is_read_only, runs_commands, shape_of, shapes_named

    args = arguments(call)
    if call.shape == "apply_patch_call":
        return _apply_patch_operation(call, args)
    if _named(call, APPLY_PATCH_TOOLS):
        return _apply_patch_text(call, _patch_text(call, args))
    if _named(call, TEXT_EDITOR_TOOLS):
        return _text_editor(call, args)
    patch = _shell_patch(call, args)
    if patch is not None:
        return _apply_patch_text(call, patch)
    shape = shape_of(call.name, args)
    if shape is not None and shape.kind == "patch":  # OpenCode's patch {patchText}
        return _apply_patch_text(call, _patch_text(call, {"patch": args.get(shape.content)}))
    if shape is not None or (shapes_named(call.name) and not isinstance(args, dict)):
        return agent_tool_ops(call, args, lambda what: _source(call, what), shape)
    if is_read_only(call.name) and not runs_commands(call.name):
        return []  # a read, a search, a subagent's prompt: whatever its arguments hold
    why = looks_like_edit(args) or _removes_a_file(call, args) or (
        None if is_read_only(call.name) else _names_a_path(args))
    if why:
        known = shapes_named(call.name)
        if known:  # a known tool whose arguments fit none of its entries
            raise ApplyError(Problem(
                f"{call.words()}: {why}, but they fit none of the shapes of "
                f"{known[0].agent}'s {base_name(call.name)!r}{_unknown_command(known, args)}, "
                "so this edit cannot be applied",
                hint="send the call again with the tool's own argument names (an undo "
                     "cannot be replayed: send the edit that should remain instead)"))
        raise ApplyError(Problem(
            f"{call.words()}: {why}, but {call.name!r} is not a tool ai-apply knows, so this "
            "edit cannot be applied",
            hint="edit files with the apply_patch tool or the text editor tool "
                 "(str_replace_based_edit_tool), or write the change as a patch in the answer"))
    return []


def _unknown_command(known: list, args: object) -> str:
    """' (command 'undo_edit' is none of str_replace, write...)' for a tool whose entries
    a command picks."""
    keys = {s.when[0] for s in known if s.when}
    if len(keys) != 1 or not isinstance(args, dict):
        return ""
    key = keys.pop()
    values = ", ".join(dict.fromkeys(s.when[1] for s in known if s.when))
    return f" ({key} {args.get(key)!r} is none of {values})"


def _source(call: ToolCall, what: str) -> Source:
    return Source(NAME, f"{call.words()}: {what}", block=0, line=0)


def _refuse(call: ToolCall, reason: str, hint: str | None = None, path: str | None = None):
    return ApplyError(Problem(f"{call.words()}: {reason}", file=path, hint=hint))


def _path_arg(call: ToolCall, args: dict, verb: str) -> str:
    path = args.get("path")
    if not isinstance(path, str) or not path.strip():
        raise _refuse(call, f"{verb} without a path", hint="give the file's path in 'path'")
    return path


def _not_json(call: ToolCall, args: object) -> bool:
    """A function call whose arguments start as a JSON object but do not parse (a call
    cut off while it was being written, most often)."""
    return (isinstance(args, str) and call.shape not in ("custom_tool_call", "custom")
            and args.lstrip().startswith("{"))


def _patch_text(call: ToolCall, args: object) -> str:
    """The apply-patch text an apply_patch tool call carries."""
    if _not_json(call, args):
        raise _refuse(call, "the apply_patch call's arguments are not valid JSON (cut off?)",
                      hint="send the call again with its whole arguments object")
    if isinstance(args, str):
        return args
    if isinstance(args, dict):
        for key in ("input", "patch", "patch_text", "patchText", "diff"):
            if isinstance(args.get(key), str):
                return args[key]
        command = args.get("command")
        if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
            return command[-1]
    raise _refuse(call, "the apply_patch call carries no patch text",
                  hint="pass the patch as the tool's input (or as {\"input\": PATCH})")


def _shell_patch(call: ToolCall, args: object) -> str | None:
    """Codex's shell tool running apply_patch: command ["apply_patch", PATCH]; or a
    ``shell_call``'s separate commands, of which those that are only an apply_patch
    heredoc are its patches (the others, a test run or a listing, change nothing)."""
    if call.name not in SHELL_TOOLS and call.shape != "local_shell_call":
        return None
    commands = args.get("commands") if isinstance(args, dict) else None
    if isinstance(commands, list) and all(isinstance(c, str) for c in commands):
        return _shell_call_patches(commands)
    return _command_patch(_shell_command(args))


def _shell_call_patches(commands: list[str]) -> str | None:
    """A ``shell_call``'s patches: its commands that are only an apply_patch heredoc."""
    patches = [c for c in commands if _heredoc_patch(c) is not None]
    if any("*** Begin Patch" in c and _heredoc_patch(c) is None for c in commands):
        return None  # a patch inside another script: refused as such, never dropped
    return "\n".join(patches) if patches else None


def _shell_command(args: object) -> object:
    """The command a shell call runs (a list of words or a script), or None."""
    command = args.get("command") if isinstance(args, dict) else None
    if isinstance(args, dict) and command is None:
        command = args.get("cmd")  # Codex's unified exec tool: exec_command {"cmd": SCRIPT}
    if isinstance(args, dict) and command is None and isinstance(args.get("action"), dict):
        command = args["action"].get("command")  # local_shell_call: action.command
    return command


def _command_patch(command: object) -> str | None:
    """The patch of ["apply_patch", PATCH], or of a script that is only an apply_patch
    heredoc (given as a string or as the last word of ["bash", "-lc", SCRIPT])."""
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        if len(command) == 2 and command[0].strip() in APPLY_PATCH_TOOLS:
            return command[1]
        script = command[-1]  # ["bash", "-lc", "apply_patch <<'EOF' ..."]
    elif isinstance(command, str):
        script = command
    else:
        return None
    return _heredoc_patch(script)


def _heredoc_patch(script: str) -> str | None:
    """The script itself when it is nothing but an apply_patch heredoc: anything else
    around it (a `cd`, a pipe) would change what the patch means."""
    words = script.strip().split(None, 1)
    if not (words and words[0] in APPLY_PATCH_TOOLS and "*** Begin Patch" in script):
        return None
    from ..formats.apply_patch import heredoc_delimiter

    lines = script.strip().split("\n")
    word = heredoc_delimiter(lines[0])
    if word is not None:
        end = next((k for k, line in enumerate(lines) if k and line.strip() == word), None)
        if end is not None and any(line.strip() for line in lines[end + 1:]):
            return None  # a command after the patch (`sed -i ...`) changes what it made
    return script


def _apply_patch_text(call: ToolCall, text: str) -> list[Operation]:
    """apply-patch text (``*** Begin Patch`` ... ``*** End Patch``) to operations."""
    from ..formats import parse_response

    try:
        parsed = parse_response(normalize_newlines(text), only="apply-patch")
    except ApplyError as e:
        raise _relabel(e, call) from None
    if not parsed.ops:
        raise _refuse(call, "the apply_patch input holds no patch ('*** Begin Patch' ... "
                            "'*** End Patch')",
                      hint="pass the whole patch, from '*** Begin Patch' to '*** End Patch'")
    return [_retag(op, call) for op in parsed.ops]


def _retag(op: Operation, call: ToolCall) -> Operation:
    op.source = replace(op.source, format=NAME, directive=f"{call.words()}: {op.source.directive}",
                        block=0, line=0)
    return op


def _relabel(e: ApplyError, call: ToolCall, offset: int = 0, what: str = "the patch") -> ApplyError:
    """Problems of a tool call's patch: line numbers are the patch's, not the response's."""
    for p in e.problems:
        if p.response_line:
            p.reason = f"{p.reason} (line {p.response_line - offset} of {what})"
            p.response_line = None
        p.directive = f"{call.words()}" + (f": {p.directive}" if p.directive else "")
    return ApplyError(e.problems, kind=e.kind)  # the message is rendered at creation


def _apply_patch_operation(call: ToolCall, op: object) -> list[Operation]:
    """An apply_patch_call item's ``operation``."""
    if not isinstance(op, dict):
        raise _refuse(call, "the apply_patch_call has no operation")
    kind = op.get("type")
    if kind not in ("create_file", "update_file", "delete_file"):
        raise _refuse(call, f"unknown apply_patch operation {kind!r}",
                      hint="operations are create_file, update_file and delete_file")
    path = _path_arg(call, op, kind)
    if "\n" in path or "\r" in path:
        raise _refuse(call, f"the path of {kind} holds a line break", path=path)
    if kind == "delete_file":
        return [DeleteFile(path, _source(call, f"delete_file {path}"))]
    diff = op.get("diff")
    if not isinstance(diff, str):
        raise _refuse(call, f"{kind} {path} has no diff", path=path,
                      hint="create_file and update_file carry their change as a V4A 'diff'")
    return v4a_operations(call, kind, path, diff)


# apply-patch section headers a model may have left around a V4A body
_ENVELOPE_HEAD = ("*** begin patch", "*** update file:", "*** add file:")


def v4a_operations(call: ToolCall, kind: str, path: str, diff: str) -> list[Operation]:
    """A create_file / update_file V4A diff, read by the apply-patch block parser as the
    body of an ``*** Add File:`` / ``*** Update File:`` section for ``path``."""
    from ..formats.apply_patch import parse_patch

    body, dropped = _v4a_body(diff)
    header = "*** Add File: " if kind == "create_file" else "*** Update File: "
    lines = ["*** Begin Patch", header + path, *body, "*** End Patch"]
    what = f"{kind} {path}"
    try:
        ops = parse_patch(lines)
    except ApplyError as e:
        raise _relabel(e, call, offset=2 - dropped, what="the diff") from None
    _refuse_other_sections(call, kind, path, ops)
    out = []
    for op in ops:
        op.source = _source(call, what)
        if isinstance(op, NewFile):
            op.path = path
        elif isinstance(op, EditFile):
            op.path = path
        out.append(op)
    return out


def _v4a_body(diff: str) -> tuple[list[str], int]:
    """A V4A diff's lines without its final newline and without an apply-patch envelope
    around them (as models sometimes send it), and how many header lines were dropped
    (problems' line numbers are the diff's)."""
    body = normalize_newlines(diff).split("\n")
    if body and body[-1] == "":
        body.pop()  # the diff's final newline
    dropped = 0
    while body and body[0].strip().lower().startswith(_ENVELOPE_HEAD):
        body.pop(0)
        dropped += 1
    while body and not body[-1].strip():
        body.pop()
    if body and body[-1].strip().lower() == "*** end patch":
        body.pop()
    return body, dropped


def _refuse_other_sections(call: ToolCall, kind: str, path: str, ops: list[Operation]) -> None:
    """The body may not open sections of its own (another file, a deletion)."""
    what = f"{kind} {path}"
    for op in ops:
        if kind == "create_file" and not isinstance(op, NewFile):
            raise _refuse(call, f"the diff of {what} holds more than the file's '+' lines",
                          path=path, hint="a create_file diff is the file's lines, each "
                                          "prefixed with '+'")
        if kind == "update_file" and not isinstance(op, (EditFile, RenameFile)):
            raise _refuse(call, f"the diff of {what} opens another file section", path=path,
                          hint="send one apply_patch_call per file")
        if getattr(op, "path", getattr(op, "old_path", None)) != path.strip() and not (
                isinstance(op, RenameFile) and op.old_path == path.strip()):
            raise _refuse(call, f"the diff of {what} changes another file as well", path=path,
                          hint="send one apply_patch_call per file")


def _text_editor(call: ToolCall, args: object) -> list[Operation]:
    """Anthropic's text editor tool."""
    if not isinstance(args, dict):
        why = ("its arguments are not valid JSON (cut off?)" if _not_json(call, args)
               else "the text editor call has no arguments object")
        raise _refuse(call, why, hint="send the call again with its whole arguments object")
    command = args.get("command")
    if command == "view":
        return []
    if command not in ("str_replace", "create", "insert"):
        hint = ("undo_edit cannot be replayed; send the edit that should remain instead"
                if command == "undo_edit" else "commands that change files are str_replace, "
                                               "create and insert")
        raise _refuse(call, f"unknown text editor command {command!r}", hint=hint)
    path = _path_arg(call, args, command)
    source = _source(call, f"{command} {path}")
    if command == "create":
        return [_text_editor_create(call, args, path, source)]
    if command == "str_replace":
        return [_text_editor_str_replace(call, args, path, source)]
    return [_text_editor_insert(call, args, path, source)]


def _text_editor_create(call: ToolCall, args: dict, path: str, source: Source) -> NewFile:
    text = args.get("file_text")
    if not isinstance(text, str):
        raise _refuse(call, f"create {path} has no 'file_text'", path=path)
    # SWE-agent's and OpenHands' editor refuses a create over a file that exists
    # ("File already exists at: ... Cannot overwrite files using command `create`.")
    create_only = call.name if _named(call, CREATE_ONLY_EDITORS) else None
    return NewFile(path, text, source, replace=True, create_only=create_only)


def _text_editor_str_replace(call: ToolCall, args: dict, path: str,
                             source: Source) -> ReplaceText:
    old = args.get("old_str")
    new = args.get("new_str", "")
    if not isinstance(old, str) or old == "":
        raise _refuse(call, f"str_replace in {path} has no 'old_str'", path=path,
                      hint="give the exact text to replace in 'old_str'")
    if new is None:
        new = ""
    if not isinstance(new, str):
        raise _refuse(call, f"str_replace in {path}: 'new_str' is not a string", path=path)
    return ReplaceText(path, old, new, source, number=call.number)


def _text_editor_insert(call: ToolCall, args: dict, path: str, source: Source) -> InsertText:
    line = _insert_line(args.get("insert_line"))
    if line is None:
        raise _refuse(call, f"insert into {path}: 'insert_line' must be a line number (0 = the "
                            f"top), not {args.get('insert_line')!r}", path=path)
    text = args.get("insert_text", args.get("new_str"))
    if not isinstance(text, str):
        raise _refuse(call, f"insert into {path} has no 'insert_text'", path=path)
    return InsertText(path, line, text, source, number=call.number)


def _insert_line(value: object) -> int | None:
    """'insert_line' as a line number (models send "3" and 3.0 too), or None."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    elif isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        return None
    return value


# --------------------------------------------------------------------- the whole answer


def text_call_ops(name: str, args: dict, label: str) -> list[Operation]:
    """A tool use the model wrote as text (formats/agent_text.py: Cline's and Roo's XML
    tools, Zed's ``<edits>``, Continue's ```tool blocks) read as the same call in JSON
    is: by the agent's shape, through ``call_ops``."""
    return call_ops(ToolCall(0, "text", name, args, label=label))


def opened_files(calls: list) -> list:
    """``(offset, call)`` pairs with the file SWE-agent's editor has open given as the
    ``path`` of each ``edit`` that names none: the last ``open`` (``path``) before it
    (answer/shapes.py, its LINES entry)."""
    from .shapes import base_name

    out, opened = [], None
    for offset, call in calls:
        base, args = base_name(call.name), arguments(call)
        if base == "open" and isinstance(args, dict) and isinstance(args.get("path"), str):
            opened = args["path"]
        elif (base == "edit" and isinstance(args, dict) and "start_line" in args
              and "path" not in args and opened is not None):
            call = replace(call, args=dict(args, path=opened))
        out.append((offset, call))
    return out


def parse_with_tools(response, only: str | None = None):
    """The response's text blocks and tool calls as one ParsedResponse, in answer order.

    The text is parsed by the format scanner as always; each tool call's operations go
    where the call stood among the text blocks (``response.tool_calls`` holds
    ``(offset in the text, ToolCall)``).  Every tool call's problem is reported, not
    only the first."""
    from ..formats import ParsedResponse, parse_response

    from ..verify.placeholder_edits import holds_placeholders

    # a chat API's answer ended where its JSON says (a cut one was refused when read); a
    # tracked file's lazy snippet is told by the placeholder rules (formats/lazy_snippet.py)
    parsed = parse_response(response.text, only=only,
                            ends_whole=getattr(response, "is_json", False),
                            is_snippet=holds_placeholders, read_call=text_call_ops)
    calls = getattr(response, "tool_calls", None) or []
    if not calls:
        return parsed
    calls = opened_files(calls)  # SWE-agent's edit changes the file open named
    problems: list[Problem] = []
    call_ops_at: list[tuple[int, list[Operation]]] = []
    for offset, call in calls:
        try:
            ops = call_ops(call)
        except ApplyError as e:
            problems.extend(e.problems)
            continue
        if ops:
            call_ops_at.append((offset, ops))
    if problems:
        raise ApplyError(problems)
    if not call_ops_at:
        return parsed
    blocks = sorted(parsed.blocks, key=lambda b: b.start)
    ops: list[Operation] = []
    formats: list[str] = []

    def note(names) -> None:
        for f in names:
            if f not in formats:
                formats.append(f)

    k = 0
    for offset, c_ops in call_ops_at:
        while k < len(blocks) and blocks[k].start < offset:
            ops.extend(blocks[k].ops)
            note(blocks[k].formats)
            k += 1
        ops.extend(c_ops)
        note([NAME])
    for b in blocks[k:]:
        ops.extend(b.ops)
        note(b.formats)
    if len(ops) != len(parsed.ops) + sum(len(o) for _off, o in call_ops_at):
        # the scanner's blocks do not account for all its operations: keep its order
        ops = list(parsed.ops) + [op for _off, o in call_ops_at for op in o]
        formats = list(parsed.formats) + ([NAME] if NAME not in parsed.formats else [])
    return ParsedResponse(ops, parsed.blocks, parsed.explanation, formats,
                          list(parsed.descriptions), list(parsed.notes))
