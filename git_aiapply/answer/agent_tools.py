"""Coding agents' own edit tools, as tool calls (BEHAVIOR.md §1, issue 22 item 5, issue 32).

Every agent tool is an entry of ``shapes.SHAPES``; ``shape_ops`` turns a call into
operations by that entry alone:

- REPLACE (Claude Code's ``Edit``/``MultiEdit``, Gemini CLI's ``replace``, OpenCode's
  ``edit``/``multiedit``, Copilot's ``replace_string_in_file``, Windsurf's
  ``ReplacementChunks``, Amp's ``edit_file``, Zed's edits...): each old text becomes a
  ``ReplaceText`` with the agent's count rule: exactly one occurrence; every one (at
  least one) when its flag (``replace_all``, ``replaceAll``, ``allow_multiple``,
  ``AllowMultiple``) is true; exactly N with ``expected_replacements``.  A list of edits
  applies in order, each to the result of the ones before, and one that fails refuses the
  response, so none of them lands.  An empty old text creates the file (or fills an
  empty one) where the agent does so.  Claude Code's Edit also finds the file's
  typographic quotes with straight ones (``text_edits.fold_quotes``).
- WRITE: the whole file (``NewFile``); INSERT: ``InsertText`` after the line the agent's
  insert rule says (after N with 0 = the top; before N; 0 or -1 = the end).
- BLOCKS: Cline's and Roo's SEARCH/REPLACE text (``------- SEARCH`` / ``=======`` /
  ``+++++++ REPLACE``, ``<<<<<<< SEARCH`` / ``:start_line:N`` / ``-------`` / ``=======``
  / ``>>>>>>> REPLACE``): one ``EditFile`` whose hunks are located together against the
  file as it was, a ``:start_line:`` being each hunk's line hint.  Roo's multi-file
  ``apply_diff`` (``files``, each a path and ``diffs``): each diff such an EditFile, in
  turn, its ``start_line`` the hint of all its blocks.
- UNIFIED: a unified diff, read by that format's parser (PATCH, apply-patch text, is
  read by ``toolcalls`` as every apply_patch call is).
- DELETE / MOVE / READ: ``DeleteFile``, ``RenameFile``, nothing.
- LAZY (BEHAVIOR.md §5): Cursor's, Kilo Code's and Morph's ``edit_file``
  (``code_edit``), Copilot's ``insert_edit_into_file`` (``code``) and Continue's
  ``edit_existing_file`` (``changes``) send a snippet of the file with placeholders for
  the code they leave out: a ``NewFile(lazy=True)``, merged into the tracked file by the
  planner (plan/lazy_merge.py), written whole where nothing is tracked.

Paths stay as given: an absolute path is made relative, or refused outside the worktree,
where every path is normalised (``paths.normalize_path``).
"""
from __future__ import annotations

import re
from typing import Callable

from ..errors import ApplyError, Problem
from ..ops import DeleteFile, EditFile, HashlineEdit, HashlineOp, Hunk, InsertText, NewFile, \
    Operation, RenameFile, ReplaceText, Source
from . import shapes as S

# where an operation came from, given what it does ('Edit a.py'): toolcalls.py's naming
SourceOf = Callable[[str], Source]


def agent_tool_ops(call, args: object, source: SourceOf, shape: "S.Shape | None" = None
                   ) -> list[Operation]:
    """The operations of one call of an agent tool (its entry in ``shapes.SHAPES``)."""
    if not isinstance(args, dict):
        why = ("its arguments are not valid JSON (cut off?)"
               if isinstance(args, str) and args.lstrip().startswith("{")
               else "it has no arguments object")
        raise _refuse(call, why, hint="send the call again with its whole arguments object")
    shape = shape or S.shape_of(call.name, args)
    if shape is None:
        raise _refuse(call, "its arguments fit none of the tool's known shapes")
    if shape.kind == S.READ or (shape.dry_run and _flag(call, args, shape.dry_run, "") is True):
        return []
    if shape.kind == S.MOVE:
        return [_move(call, args, shape, source)]
    if shape.kind == S.DELETE:
        return _delete(call, args, shape, source)
    if shape.per_edit_path:
        return _per_edit_path(call, args, shape, source)
    if shape.files:
        return _files(call, args, shape, source)
    if shape.kind == S.LINES:
        return [_lines(call, args, shape, source)]
    return _file_ops(call, args, shape, _file_path(call, args, shape), source)


def _file_ops(call, args: dict, shape: "S.Shape", path: str, source: SourceOf
              ) -> list[Operation]:
    """The operations of a call that names its one file, ``path``."""
    if shape.kind == S.LAZY:
        return [_lazy_edit(call, args, shape, path, source)]
    if shape.kind == S.WRITE:
        return [_write(call, args, shape, path, source)]
    if shape.kind == S.INSERT:
        return _inserts(call, args, shape, path, source)
    if shape.kind == S.BLOCKS:
        return blocks_ops(call, _text(call, args, shape.content, path), path, source)
    if shape.kind == S.UNIFIED:
        return _unified(call, args, shape, path, source)
    if shape.edits:
        return _edit_list(call, args, shape, path, source)
    if shape.numbered:
        return _numbered(call, args, shape, path, source)
    return _one_edit(call, args, shape, path, source, what=f"{call.name} {path}")


def _lines(call, args: dict, shape: "S.Shape", source: SourceOf) -> HashlineEdit:
    """SWE-agent's ``edit``: lines start to end (inclusive) of the opened file replaced
    by the text's lines, as the file is at this point (a HashlineEdit without ids: the
    lines must exist); an empty text deletes them."""
    path = _a_path(call, args.get("path"), "path")
    if path is None:
        raise _refuse(call, "no file is open: SWE-agent's edit changes the file the last "
                            "`open` named, and no open comes before it",
                      hint="open the file (open PATH) before editing it")
    what = f"{call.name} {path}"
    start, end = (_line(call, args, k, what, path) for k in (shape.line, shape.end))
    if start is None or end is None or start < 1 or end < start:
        raise _refuse(call, f"{what}: {shape.line} and {shape.end} must be line numbers, the "
                            f"end not before the start (not {start!r}:{end!r})", path=path)
    text = _text(call, args, shape.new, path)
    op = HashlineOp("set", start, "", end, "", text.split("\n") if text else [], 1,
                    f"edit {start}:{end}")
    return HashlineEdit(path, [op], source(f"{what} {start}:{end}"))


def _lazy_edit(call, args: dict, shape: "S.Shape", path: str, source: SourceOf) -> NewFile:
    """A lazy edit tool's snippet, to be merged into its file (module docstring)."""
    tool, key = S.base_name(call.name), shape.content
    text = args.get(key)
    if not isinstance(text, str):
        raise _refuse(call, f"{tool} {path} has no '{key}' string", path=path,
                      hint=f"give the changed lines, with placeholder comments for the code "
                           f"left out, in '{key}'")
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


def project_path(call, path: str) -> str:
    """A path that begins with the project folder's name, as Zed writes every path
    (``myproject/src/a.rs`` for ``src/a.rs``): that name dropped when the repository says
    so.  Kept as given when it does not begin with the worktree folder's name, or when it
    names a tracked file and the rest does not; dropped when the rest names a tracked
    file, or when neither does and the repository has no folder of that name; refused
    when both readings name tracked files, or neither does and both could be meant (a
    new file, and the repository has a folder of the project's name).  Without a
    repository (a parse alone) the path stays as given."""
    from ..paths import tracked_kind, worktree_folder

    folder = worktree_folder()
    first, sep, rest = path.strip().partition("/")
    if not folder or not sep or first != folder or not rest:
        return path
    given, stripped = tracked_kind(path.strip()) == "file", tracked_kind(rest) == "file"
    if given != stripped:
        return path if given else rest
    if not given and tracked_kind(first) is None:
        return rest  # a new file: the project's folder holds no folder of its name
    why = ("both name tracked files" if given else
           f"the file is new and the repository has a folder {first}/ too")
    raise _refuse(call, f"the path {path!r} may be {rest!r} in the project folder "
                        f"{folder!r} or {path.strip()!r} itself: {why}", path=path,
                  hint=f"name it {rest} for the file at the worktree root, "
                       f"{folder}/{path.strip()} for the one under {first}/")


def _refuse(call, reason: str, hint: str | None = None, path: str | None = None) -> ApplyError:
    return ApplyError(Problem(f"{call.words()}: {reason}", file=path, hint=hint))


def _a_path(call, value: object, key: str) -> str | None:
    if isinstance(value, str) and value.strip():
        if "\n" in value or "\r" in value:
            raise _refuse(call, f"the {key} holds a line break", path=value)
        return value
    return None


def _file_path(call, args: dict, shape: "S.Shape") -> str:
    for key in shape.path:
        path = _a_path(call, args.get(key), key)
        if path is not None:
            return project_path(call, path) if shape.project_folder else path
    key = shape.path[0] if shape.path else "path"
    raise _refuse(call, f"{call.name} without a {key}", hint=f"give the file's path in '{key}'")


def _text(call, args: dict, key: str, path: str) -> str:
    value = args.get(key)
    if not isinstance(value, str):
        raise _refuse(call, f"{call.name} {path} has no '{key}' string", path=path,
                      hint=f"give '{key}' as a string")
    return value


def _write(call, args: dict, shape: "S.Shape", path: str, source: SourceOf) -> NewFile:
    content = args.get(shape.content)
    if not isinstance(content, str):
        raise _refuse(call, f"{call.name} {path} has no '{shape.content}' string", path=path,
                      hint=f"give the file's whole new content in '{shape.content}'")
    return NewFile(path, content, source(f"{call.name} {path}"), replace=shape.replaces_file)


def _string(call, edit: dict, key: str, what: str, path: str) -> str:
    value = edit.get(key)
    if not isinstance(value, str):
        raise _refuse(call, f"{what}: '{key}' is missing or not a string", path=path,
                      hint=f"give '{key}' as a string")
    return value


def _one_edit(call, edit: dict, shape: "S.Shape", path: str, source: SourceOf, what: str,
              number: int = 1, suffix: str = "") -> list[Operation]:
    """One old/new edit (or one of a list) as an operation."""
    old_key, new_key = shape.old + suffix, shape.new + suffix
    old = _string(call, edit, old_key, what, path)
    new = edit.get(new_key, "" if shape.all_always else None)  # Roo's replace may be empty
    new = _string(call, {new_key: new}, new_key, what, path)
    if old == new:
        # every agent refuses this: the harness would not have applied it
        raise _refuse(call, f"{what}: {old_key} and {new_key} are the same, so the edit "
                            "changes nothing", path=path,
                      hint=f"give the text as it should be after the edit in {new_key}")
    expected = _expected(call, edit, shape, what, path)
    origin = source(what)
    if old == "":
        if not shape.empty_old_creates or number > 1:
            only = (f"; only a {call.name}'s first edit may create the file"
                    if shape.empty_old_creates else "; it must be the exact text to replace")
            raise _refuse(call, f"{what}: {old_key} is empty{only}", path=path,
                          hint=f"give the exact text to replace in {old_key}")
        # an empty old text creates the file, or fills an empty one
        return [NewFile(path, new, origin, replace=False)]
    # a list's edits are reported by their own numbers (edit 3), as errors name them
    shown = number if (shape.edits or shape.numbered) else call.number
    return [ReplaceText(path, old, new, origin, number=shown, expected=expected,
                        tool=call.name, old_name=old_key,
                        count_key=shape.every or shape.expected, fold_quotes=shape.fold_quotes,
                        line_hint=_line(call, edit, shape.hint + suffix, what, path)
                        if shape.hint else None)]


def _flag(call, edit: dict, key: str, what: str, path: str | None = None) -> bool | None:
    flag = edit.get(key)
    if flag is None or isinstance(flag, bool):
        return flag
    if isinstance(flag, str) and flag.strip().lower() in ("true", "false"):
        return flag.strip().lower() == "true"
    raise _refuse(call, f"{what}: {key} must be true or false, not {flag!r}", path=path)


def _expected(call, edit: dict, shape: "S.Shape", what: str, path: str) -> int | None:
    """How many occurrences the edit must find: None for every one (at least one)."""
    if shape.all_always:
        return None
    if shape.expected:
        return _count(call, edit.get(shape.expected), shape.expected, what, path)
    if shape.every and _flag(call, edit, shape.every, what, path):
        return None
    return 1


def _whole_number(value: object) -> object:
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _count(call, value, key: str, what: str, path: str) -> int:
    if value is None:
        return 1
    value = _whole_number(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _refuse(call, f"{what}: {key} must be a whole number of at least 1, not "
                            f"{value!r}", path=path)
    return value


def _line(call, args: dict, key: str, what: str, path: str) -> int | None:
    value = args.get(key)
    if value is None:
        return None
    value = _whole_number(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _refuse(call, f"{what}: {key} must be a line number, not {value!r}", path=path)
    return value


def _edits_of(call, args: dict, shape: "S.Shape", path: str) -> list:
    return _list_of(call, args, shape.edits, path,
                    f"give the edits as a list of {{{shape.old or shape.content}, "
                    f"{shape.new or shape.hint}}} objects")


def _list_of(call, args: dict, key: str, path: str, hint: str) -> list:
    edits = args.get(key)
    if isinstance(edits, str) and edits.lstrip().startswith("["):
        import json  # a model that sent the list as a JSON string

        try:
            edits = json.loads(edits)
        except (ValueError, RecursionError):
            pass
    if not isinstance(edits, list) or not edits:
        raise _refuse(call, f"{call.name} {path} has no '{key}' list", path=path, hint=hint)
    return edits


def _edit_list(call, args: dict, shape: "S.Shape", path: str, source: SourceOf
               ) -> list[Operation]:
    """A list of edits (MultiEdit, multiedit, ReplacementChunks, Zed's edits...): in order,
    each on the result of the ones before (the planner applies operations in order), so
    a later edit may change text an earlier one wrote; each keeps its own count rule,
    and any that fails refuses the whole response, naming it."""
    ops: list[Operation] = []
    for i, edit in enumerate(_edits_of(call, args, shape, path), 1):
        what = f"{call.name} {path}, edit {i}{_after_edits(i)}"
        if not isinstance(edit, dict):
            raise _refuse(call, f"{what} is not an object", path=path,
                          hint=f"each edit is {{{shape.old}, {shape.new}}}")
        ops.extend(_one_edit(call, edit, shape, path, source, what, number=i))
    return ops


def _per_edit_path(call, args: dict, shape: "S.Shape", source: SourceOf) -> list[Operation]:
    """Copilot's multi_replace_string_in_file: each replacement names its own file."""
    ops: list[Operation] = []
    for i, edit in enumerate(_edits_of(call, args, shape, "(its files)"), 1):
        if not isinstance(edit, dict):
            raise _refuse(call, f"{call.name}, edit {i} is not an object")
        path = _file_path(call, edit, shape)
        what = f"{call.name} {path}, edit {i}{_after_edits(i)}"
        ops.extend(_one_edit(call, edit, shape, path, source, what, number=i))
    return ops


def _files(call, args: dict, shape: "S.Shape", source: SourceOf) -> list[Operation]:
    """A list of files, each with a list of diffs (Roo's and Kilo's multi-file apply_diff):
    each diff an EditFile on the file as the diffs before it left it, as Roo applies them,
    its ``start_line`` the line hint of every block it holds."""
    files = _list_of(call, args, shape.files, "(its files)",
                     f"give the files as a list of {{path, {shape.edits}}} objects")
    ops: list[Operation] = []
    for i, entry in enumerate(files, 1):
        if not isinstance(entry, dict):
            raise _refuse(call, f"{call.name}, file {i} is not an object",
                          hint=f"each file is {{path, {shape.edits}}}")
        path = _file_path(call, entry, shape)
        for j, diff in enumerate(_edits_of(call, entry, shape, path), 1):
            what = f"{call.name} {path}, diff {j}{_after_edits(j)}"
            if not isinstance(diff, dict):
                raise _refuse(call, f"{what} is not an object", path=path,
                              hint=f"each diff is {{{shape.content}, {shape.hint}}}")
            hint = _line(call, diff, shape.hint, what, path)
            ops.extend(blocks_ops(call, _text(call, diff, shape.content, path), path, source,
                                  line_hint=hint or None))
    return ops


def _numbered(call, args: dict, shape: "S.Shape", path: str, source: SourceOf
              ) -> list[Operation]:
    """Augment's numbered edits: old_str_1 / new_str_1, old_str_2 / new_str_2 ..."""
    ops: list[Operation] = []
    for i in _numbers(args, shape.old if shape.kind == S.REPLACE else shape.line):
        what = f"{call.name} {path}, edit {i}{_after_edits(i)}"
        ops.extend(_one_edit(call, args, shape, path, source, what, number=i, suffix=f"_{i}"))
    if not ops:
        raise _refuse(call, f"{call.name} {path} has no '{shape.old}_1'", path=path,
                      hint=f"number the edits {shape.old}_1, {shape.new}_1, {shape.old}_2...")
    return ops


def _numbers(args: dict, stem: str) -> list[int]:
    found = (re.fullmatch(re.escape(stem) + r"_(\d+)", k) for k in args)
    return sorted(int(m.group(1)) for m in found if m)


def _after_edits(i: int) -> str:
    """What the file edit ``i`` of a list is matched against, for its errors: the result
    of the edits before it, not the file as the model read it."""
    if i == 1:
        return ""
    return " (on the file as edit 1 left it)" if i == 2 else \
        f" (on the file as edits 1-{i - 1} left it)"


# ------------------------------------------------------------------ inserts


def _inserts(call, args: dict, shape: "S.Shape", path: str, source: SourceOf
             ) -> list[Operation]:
    if not shape.numbered:
        return [_insert(call, args, shape, path, source, "")]
    numbers = _numbers(args, shape.line)
    if not numbers:
        raise _refuse(call, f"{call.name} insert into {path} has no '{shape.line}_1'", path=path)
    return [_insert(call, args, shape, path, source, f"_{i}") for i in numbers]


def _insert(call, args: dict, shape: "S.Shape", path: str, source: SourceOf, suffix: str
            ) -> InsertText:
    """An insert by the agent's rule, as lines after a line (``InsertText``)."""
    key, text_key = shape.line + suffix, shape.new + suffix
    what = f"{call.name} insert into {path}"
    line = _line(call, args, key, what, path)
    text = args.get(text_key)
    if not isinstance(text, str):
        raise _refuse(call, f"{what} has no '{text_key}' string", path=path)
    rule = shape.insert
    at_end = (rule == S.BEFORE_OR_END and line == 0) or (rule == S.AFTER_OR_END and line == -1)
    after = None if line is None else line - 1 if rule in (S.BEFORE, S.BEFORE_OR_END) else line
    if not at_end and (after is None or after < 0):
        rules = {S.AFTER: "the line to insert after, 0 for the top",
                 S.AFTER_OR_END: "the line to insert after, 0 for the top, -1 for the end",
                 S.BEFORE: "the line to insert before, 1 for the top",
                 S.BEFORE_OR_END: "the line to insert before, 1 for the top, 0 for the end"}
        raise _refuse(call, f"{what}: '{key}' must be {rules[rule]}, not {args.get(key)!r}",
                      path=path)
    return InsertText(path, 0 if at_end else after, text, source(what), number=call.number,
                      at_end=at_end, line_name=key)


# ------------------------------------------------------------------ files


def _delete(call, args: dict, shape: "S.Shape", source: SourceOf) -> list[Operation]:
    for key in shape.path:
        value = args.get(key)
        paths = value if isinstance(value, list) else [value]
        if value is not None and paths and all(isinstance(p, str) and p.strip() for p in paths):
            if shape.project_folder:
                paths = [project_path(call, p) for p in paths]
            return [DeleteFile(_a_path(call, p, key), source(f"{call.name} {p}")) for p in paths]
    raise _refuse(call, f"{call.name} without a {shape.path[0]}",
                  hint=f"give the file's path in '{shape.path[0]}'")


def _move(call, args: dict, shape: "S.Shape", source: SourceOf) -> RenameFile:
    src = _file_path(call, args, shape)
    dst = _a_path(call, args.get(shape.destination), shape.destination)
    if dst is None:
        raise _refuse(call, f"{call.name} {src} without a {shape.destination}", path=src)
    if shape.project_folder:
        dst = project_path(call, dst)
    return RenameFile(src, dst, source(f"{call.name} {src} -> {dst}"))


def _unified(call, args: dict, shape: "S.Shape", path: str, source: SourceOf
             ) -> list[Operation]:
    """A unified diff for the call's file (Goose's text_editor ``diff``)."""
    from ..formats import parse_response
    from ..text import normalize_newlines

    text = normalize_newlines(_text(call, args, shape.content, path))
    parsed = parse_response(text if text.endswith("\n") else text + "\n", only="unified-diff",
                            ends_whole=True)
    if not parsed.ops:
        raise _refuse(call, f"the {shape.content} of {call.name} {path} holds no unified diff",
                      path=path, hint="give the change as a unified diff (--- a/..., +++ b/..., "
                                      "@@ hunks)")
    for op in parsed.ops:
        op.source = source(f"{call.name} {path}")
    return list(parsed.ops)


# ------------------------------------------------------------------ SEARCH/REPLACE text

# Cline's markers (``------- SEARCH``, ``+++++++ REPLACE``) and the older ones it and Roo
# take (``<<<<<<< SEARCH``, ``>>>>>>> REPLACE``); a trailing '>' as Cline forgives it
_SEARCH = re.compile(r"[ \t]*(?:-{3,}|<{3,})[ \t]*SEARCH>?[ \t]*")
_DIVIDER = re.compile(r"[ \t]*={3,}[ \t]*")
_REPLACE = re.compile(r"[ \t]*(?:\+{3,}|>{3,})[ \t]*REPLACE>?[ \t]*")
# Roo's lines between the SEARCH marker and the old lines: ':start_line:N', ':end_line:N',
# then '-------'
_ROO_LINE = re.compile(r"[ \t]*:(start|end)_line:[ \t]*(-?\d+)[ \t]*")
_ROO_SEPARATOR = re.compile(r"[ \t]*-{3,}[ \t]*")


def blocks_ops(call, diff: str, path: str, source: SourceOf, line_hint: int | None = None
               ) -> list[Operation]:
    """Cline's / Roo's SEARCH/REPLACE text for ``path``: one EditFile whose hunks are
    located together against the file as it was (both agents match every block against
    the file as read, in order), each ``:start_line:`` its hunk's line hint (``line_hint``,
    a multi-file diff's ``start_line``, stands for all of them, as in Roo); an empty
    SEARCH as the only block creates the file."""
    from ..formats.search_blocks import diff_lines
    from ..text import normalize_newlines

    lines = normalize_newlines(diff).split("\n")
    what = f"{call.name} {path}"
    hunks: list[Hunk] = []
    created: NewFile | None = None
    i, number = 0, 0
    while i < len(lines):
        if not _SEARCH.fullmatch(lines[i]):
            if lines[i].strip() and not lines[i].strip().startswith("```"):
                raise _refuse(call, f"{what}: line {i + 1} of its {_DIFF_WORD} is outside a "
                                    f"SEARCH/REPLACE block: {lines[i].strip()[:80]!r}",
                              path=path, hint=_BLOCK_HINT)
            i += 1
            continue
        number += 1
        i, hint, search, replace = _block(call, lines, i, what, path, number)
        if not any(s.strip() for s in search):
            if created is not None or hunks or number > 1:
                raise _refuse(call, f"{what}, block {number}: the SEARCH part is empty; only a "
                                    "single block may create the file", path=path,
                              hint="give the exact lines to replace in every block")
            created = NewFile(path, "\n".join(replace) + ("\n" if replace else ""),
                              source(what), replace=False)
            continue
        hunks.append(Hunk(diff_lines(search, replace), number=number, kind="search",
                          line_hint=line_hint or hint))
    if created is not None:
        if hunks:
            raise _refuse(call, f"{what}: block 1 creates the file and later blocks edit it",
                          path=path, hint="create the file with its whole content in one block")
        return [created]
    if not hunks:
        raise _refuse(call, f"{what}: its {_DIFF_WORD} holds no SEARCH/REPLACE block",
                      path=path, hint=_BLOCK_HINT)
    return [EditFile(path, hunks, source(what))]


_DIFF_WORD = "diff"
_BLOCK_HINT = ("write each change as ------- SEARCH, the exact old lines, =======, the new "
               "lines, +++++++ REPLACE")


def _block(call, lines: list[str], i: int, what: str, path: str, number: int):
    """One block from its SEARCH marker at ``lines[i]``: (the index after it, the
    :start_line: hint, the SEARCH lines, the REPLACE lines)."""
    hint = None
    j = i + 1
    while j < len(lines) and _ROO_LINE.fullmatch(lines[j]):
        m = _ROO_LINE.fullmatch(lines[j])
        if m.group(1) == "start":
            hint = int(m.group(2)) or None  # Roo: 0 means no line given
        j += 1
    if lines[i].lstrip().startswith("<") and j < len(lines) and _ROO_SEPARATOR.fullmatch(lines[j]):
        j += 1  # Roo's '-------' after the line numbers (taken without them too, as Roo does)
    start = j
    dividers, end = [], None
    while j < len(lines):
        if _REPLACE.fullmatch(lines[j]):
            end = j
            break
        if _SEARCH.fullmatch(lines[j]):
            break
        if _DIVIDER.fullmatch(lines[j]):
            dividers.append(j)
        j += 1
    where = f"{what}, block {number}"
    if end is None:
        raise _refuse(call, f"{where} has no REPLACE marker (+++++++ REPLACE) before "
                            f"{'the next SEARCH' if j < len(lines) else 'its end'} (cut off?)",
                      path=path, hint=_BLOCK_HINT)
    if len(dividers) != 1:
        raise _refuse(call, f"{where} has {len(dividers) or 'no'} ======= lines between SEARCH "
                            "and REPLACE; which one divides it is unknown" if dividers else
                      f"{where} has no ======= line between SEARCH and REPLACE",
                      path=path, hint=_BLOCK_HINT)
    d = dividers[0]
    return end + 1, hint, lines[start:d], lines[d + 1:end]
