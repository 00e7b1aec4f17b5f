"""Agents' own edit blocks written as text (BEHAVIOR.md §1 round 4; issue 32), read with
the ``agent-text`` format (``--format agent-text`` selects both modules):

- SWE-agent's windowed editor, as its model writes its actions (the thought-action
  parser: one command per turn, fenced): ``open "PATH"`` (or ``create PATH``), later
  ``edit N:M`` / the replacement lines / ``end_of_edit``, which replaces lines N to M
  (inclusive) of the file opened last, as that file is at that point of the trajectory;
  an empty replacement deletes them.  The first edit of a file ``create`` made fills it.
- Mentat's block format: ``@@start``, a JSON object (``file``, ``action``: insert,
  replace, delete, create-file, delete-file, rename-file; ``insert-after-line`` /
  ``insert-before-line``, ``start-line`` / ``end-line``, ``name``), then for insert,
  replace and create-file ``@@code`` and the lines, then ``@@end``.  Every line number of
  a file's blocks refers to the file as it was (Mentat applies a file's edits together).
- Plandex's file blocks: the path label (``- src/a.go:``), ``<PlandexBlock lang="go"
  path="src/a.go">``, the code, ``</PlandexBlock>``: a new file's content, or a snippet
  of a tracked file with ``// ... existing code ...`` references, merged into it (a lazy
  edit, BEHAVIOR.md §5); ``_apply.sh`` is a script Plandex runs, not a file, and is
  refused.  Its file operations: ``### Move Files`` (``- `a` → `b```), ``### Remove
  Files`` (``- `a```), each ended by ``<EndPlandexFileOps/>``; ``### Reset Changes``
  undoes Plandex's own pending changes and is refused.

SWE-agent's own structure around its edits is no explanation either (a response where an
``edit N:M`` block was read): the line holding only ``DISCUSSION`` (its thought-action
format's label before the thought) and the fenced blocks that hold only its other
commands (``open``, ``goto``, ``scroll_down``, ``search_file``, ...: ``SWE_AGENT_COMMANDS``),
the actions of the turns before the edit; the thoughts around them stay prose.

Line-range edits are ``HashlineEdit`` operations without ids (``HashlineOp`` with empty
ids: the line must exist, its text is not checked), so they apply where their agent
applied them.  A block opens only on its structure (the command line and its closing
line; ``@@start`` then a JSON object; the tag with a ``path``; the heading then list
items then the end tag), and only where the caller reads agents' text (``read_call``, as
agent_text.py); one that opened and does not parse is refused, naming it.
"""
from __future__ import annotations

import re

from ..errors import ParseError
from ..lazy_re import lazy_compile
from ..ops import DeleteFile, HashlineEdit, HashlineOp, NewFile, RenameFile, Source
from .scan import Block, Format, Scan

NAME = "agent-text"

_EDIT = lazy_compile(r"[ \t]*edit[ \t]+(\d+)[ \t]*:[ \t]*(\d+)[ \t]*")
_END_OF_EDIT = "end_of_edit"
_OPEN = lazy_compile(r"""[ \t]*(open|create)[ \t]+("[^"\n]+"|'[^'\n]+'|[^\s"']+)"""
                     r"""(?:[ \t]+\d+)?[ \t]*""")
_PLANDEX = lazy_compile(r"[ \t]*<PlandexBlock\b([^>]*)>[ \t]*")
_PLANDEX_END = "</PlandexBlock>"
_FILE_OPS = lazy_compile(r"[ \t]*###[ \t]*(Move Files|Remove Files|Reset Changes)[ \t]*",
                         re.IGNORECASE)
_FILE_OPS_END = "<EndPlandexFileOps/>"
_TICKED = lazy_compile(r"`([^`\n]+)`")
_ATTR = lazy_compile(r"""\b(\w+)=(["'])(.*?)\2""")
# SET, INSERT_BEFORE, INSERT_AFTER (locate/hashline.py's kinds, without importing it)
SET, INSERT_BEFORE, INSERT_AFTER = "set", "insert_before", "insert_after"


# SWE-agent's commands besides edit (its default tool bundles: the windowed file viewer,
# search, submit): a fenced block holding only these is an action, never message prose
SWE_AGENT_COMMANDS = frozenset("""
open goto scroll_up scroll_down create search_dir search_file find_file submit
""".split())
_LABEL = "DISCUSSION"  # the thought-action format's label, a line of its own


LEFTOVER_MARKUP = ((r"^\s*@@(start|code|end)\s*$", "a Mentat @@ marker"),
                   (r"^\s*</?PlandexBlock\b", "a <PlandexBlock> tag"),
                   (r"^\s*end_of_edit\s*$", "SWE-agent's end_of_edit"))


class _Refused(Exception):
    """A block's grammar is broken: why."""


class AgentBlocks(Format):
    """SWE-agent's ``edit N:M``, Mentat's ``@@start`` blocks, Plandex's file blocks."""

    name = NAME
    selects = (NAME,)
    prompts: dict = {}  # agent_text.py holds the agent-text prompt
    triggers = "e@<#"
    markers = ("@@start", "<PlandexBlock")
    tells = ("end_of_edit", "@@code", "</PlandexBlock>")
    new_file_hint = "<PlandexBlock path=\"PATH\">...</PlandexBlock>"
    # their markup left in a file is caught with the agent-text format's (agent_text.py,
    # whose prompt is this format's)

    def opens(self, scan: Scan, i: int) -> bool:
        if getattr(scan, "read_call", None) is None:
            return False
        line = scan.lines[i]
        if _EDIT.fullmatch(line):
            return _closing(scan.lines, i + 1, _END_OF_EDIT, stop=_EDIT.fullmatch) is not None
        stripped = line.strip()
        if stripped == "@@start":
            return scan.lines[i + 1:i + 2] != [] and scan.lines[i + 1].lstrip().startswith("{")
        m = _PLANDEX.fullmatch(line)
        if m:
            return "path" in dict((k, v) for k, _q, v in _ATTR.findall(m.group(1)))
        if _FILE_OPS.fullmatch(line):
            return (i + 1 < len(scan.lines) and scan.lines[i + 1].lstrip().startswith("- ")
                    and _closing(scan.lines, i + 1, _FILE_OPS_END) is not None)
        return False

    def begins_block(self, scan: Scan, k: int, mid_line: bool) -> bool:
        """The last line opens a block alone (or, cut mid-line, the start of one)."""
        line = scan.lines[k].strip()
        if line == "@@start" or _PLANDEX.fullmatch(line) or _EDIT.fullmatch(line):
            return True
        return mid_line and len(line) > 1 and any(m.startswith(line) for m in self.markers)

    def parse(self, scan: Scan, i: int) -> Block:
        line = scan.lines[i]
        where = f"response line {i + 1}"
        try:
            if _EDIT.fullmatch(line):
                return self._swe_agent(scan, i, where)
            if line.strip() == "@@start":
                return self._mentat(scan, i, where)
            if _PLANDEX.fullmatch(line):
                return self._plandex(scan, i, where)
            return self._file_ops(scan, i, where)
        except _Refused as e:
            raise ParseError(f"the {_label(line)} block at {where}: {e}", line=i + 1) from None

    # ------------------------------------------------------------ SWE-agent

    def _swe_agent(self, scan: Scan, i: int, where: str) -> Block:
        lines = scan.lines
        m = _EDIT.fullmatch(lines[i])
        start, end = int(m.group(1)), int(m.group(2))
        close = _closing(lines, i + 1, _END_OF_EDIT, stop=_EDIT.fullmatch)
        body = lines[i + 1:close]
        command, path = _opened(lines, i)
        if path is None:
            raise _Refused("no file is open: SWE-agent edits the file of the last `open PATH` "
                           "(or `create PATH`) command, and none comes before it")
        if start < 1 or end < start:
            raise _Refused(f"edit {start}:{end} is no range of lines (the first line is 1, "
                           "and the end is not before the start)")
        source = Source(NAME, f"SWE-agent edit {start}:{end} of {path}", line=i + 1)
        made = scan.memo.setdefault("swe-agent", set())
        if command == "create" and path not in made and start == 1:
            op = NewFile(path, "\n".join(body) + "\n" if body else "", source, replace=False)
        else:
            op = HashlineEdit(path, [HashlineOp(SET, start, "", end, "", body, 1,
                                                lines[i].strip())], source)
        made.add(path)
        return Block(NAME, scan.starts[i], scan.end_of(close), [op])

    # ------------------------------------------------------------ Mentat

    def _mentat(self, scan: Scan, i: int, where: str) -> Block:
        import json

        lines = scan.lines
        j = _closing(lines, i + 1, "@@code", stop=lambda l: l.strip() in ("@@end", "@@start"))
        k = j if j is not None else _closing(lines, i + 1, "@@end",
                                             stop=lambda l: l.strip() == "@@start")
        if k is None:
            raise _Refused("it has no @@code or @@end line (cut off?)")
        try:
            spec = json.loads("\n".join(lines[i + 1:k]))
        except ValueError as e:
            raise _Refused(f"its JSON section does not parse ({e.msg})") from None
        if not isinstance(spec, dict) or not isinstance(spec.get("file"), str):
            raise _Refused("its JSON section names no \"file\"")
        end = k
        code: list[str] | None = None
        if j is not None:
            end = _closing(lines, j + 1, "@@end", stop=lambda l: l.strip() == "@@start")
            if end is None:
                raise _Refused("its @@code section has no @@end line (cut off?)")
            code = lines[j + 1:end]
        ops = _mentat_ops(spec, code, Source(NAME, f"Mentat {spec.get('action')} "
                                                   f"{spec['file']}", line=i + 1), i + 1)
        block = Block(NAME, scan.starts[i], scan.end_of(end), ops)
        scan.memo.setdefault("mentat", []).append(block)
        return block

    def finish(self, scan: Scan) -> list[tuple[int, int]]:
        """A file's Mentat line edits, together, against the file as it was; the spans of
        SWE-agent's labels and command blocks, which are no explanation."""
        self._join_mentat(scan)
        if scan.memo.get("swe-agent") and not scan.inside_fence:
            return _swe_agent_structure(scan)
        return []

    def _join_mentat(self, scan: Scan) -> None:
        first: dict = {}
        for block in scan.memo.get("mentat", ()):
            kept = []
            for op in block.ops:
                if isinstance(op, HashlineEdit) and op.path in first:
                    first[op.path].ops.extend(op.ops)
                    continue
                if isinstance(op, HashlineEdit):
                    first[op.path] = op
                kept.append(op)
            block.ops = kept
        for edit in first.values():
            for n, op in enumerate(edit.ops, 1):
                op.number = n

    # ------------------------------------------------------------ Plandex

    def _plandex(self, scan: Scan, i: int, where: str) -> Block:
        lines = scan.lines
        attrs = {k: v for k, _q, v in _ATTR.findall(_PLANDEX.fullmatch(lines[i]).group(1))}
        path = attrs["path"].strip()
        close = _closing(lines, i + 1, _PLANDEX_END)
        if close is None:
            raise _Refused(f"it is never closed by {_PLANDEX_END} (cut off?)")
        if path.rsplit("/", 1)[-1] == "_apply.sh":
            raise _Refused("_apply.sh is the script Plandex runs when it applies a plan, not a "
                           "file of the project; run its commands yourself")
        text = "\n".join(lines[i + 1:close])
        source = Source(NAME, f"PlandexBlock {path}", line=i + 1)
        op = NewFile(path, text + "\n" if text else "", source, replace=True, lazy=True)
        start = i
        label = lines[i - 1].strip() if i - 1 >= scan.floor else ""
        if label in (f"- {path}:", f"{path}:", f"- `{path}`:"):
            start = i - 1  # the path label is the block's, not prose
        return Block(NAME, scan.starts[start], scan.end_of(close), [op])

    def _file_ops(self, scan: Scan, i: int, where: str) -> Block:
        lines = scan.lines
        kind = _FILE_OPS.fullmatch(lines[i]).group(1).lower()
        close = _closing(lines, i + 1, _FILE_OPS_END)
        if kind == "reset changes":
            raise _Refused("Reset Changes undoes Plandex's own pending changes; here nothing "
                           "is pending: leave it out")
        ops = []
        for k in range(i + 1, close):
            item = lines[k].strip()
            if not item:
                continue
            paths = _TICKED.findall(item)
            want = 2 if kind == "move files" else 1
            if not item.startswith("- ") or len(paths) != want or (want == 2 and "→" not in item):
                shape = "- `source` → `destination`" if want == 2 else "- `path`"
                raise _Refused(f"line {k + 1} is not a {shape} item: {item[:60]!r}")
            source = Source(NAME, f"{kind.split()[0]} {' → '.join(paths)}", line=k + 1)
            ops.append(RenameFile(paths[0], paths[1], source) if want == 2
                       else DeleteFile(paths[0], source))
        return Block(NAME, scan.starts[i], scan.end_of(close), ops)


def _swe_agent_structure(scan: Scan) -> list[tuple[int, int]]:
    """The spans of SWE-agent's ``DISCUSSION`` lines and of the fenced blocks holding only
    its commands other than edit (SWE_AGENT_COMMANDS), in a response where its edits were
    read."""
    from ..text import fence_open, is_fence_close

    lines, out, i = scan.lines, [], 0
    while i < len(lines):
        if lines[i].strip() == _LABEL:
            out.append((scan.starts[i], scan.end_of(i)))
        fence = fence_open(lines[i])
        if fence is None:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not is_fence_close(lines[j], *fence):
            j += 1
        body = [ln.split(None, 1)[0] for ln in lines[i + 1:j] if ln.strip()]
        if j < len(lines) and body and all(w in SWE_AGENT_COMMANDS for w in body):
            out.append((scan.starts[i], scan.end_of(j)))
        i = j + 1
    return out


def _closing(lines: list[str], j: int, marker: str, stop=None) -> int | None:
    """The index of the first line from ``j`` that is ``marker`` alone, or None when
    ``stop`` (the next block's opening) or the end comes first."""
    while j < len(lines):
        if lines[j].strip() == marker:
            return j
        if stop is not None and stop(lines[j]):
            return None
        j += 1
    return None


def _opened(lines: list[str], i: int) -> tuple[str | None, str | None]:
    """The last ``open`` / ``create`` command above line ``i``: (command, path)."""
    for k in range(i - 1, -1, -1):
        m = _OPEN.fullmatch(lines[k])
        if m:
            path = m.group(2)
            return m.group(1), path[1:-1] if path[:1] in "\"'" else path
    return None, None


def _line_number(spec: dict, key: str) -> int | None:
    value = spec.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) and not (
            isinstance(value, str) and value.strip().isdigit()):
        raise _Refused(f"\"{key}\" is {value!r}, not a line number")
    return int(value)


def _mentat_ops(spec: dict, code: list[str] | None, source: Source, line: int) -> list:
    """A Mentat block's operations (its ``finish`` joins a file's line edits)."""
    path, action = spec["file"], spec.get("action")
    if action not in ("insert", "replace", "delete", "create-file", "delete-file",
                      "rename-file"):
        raise _Refused(f"its action {action!r} is none of insert, replace, delete, "
                       "create-file, delete-file, rename-file")
    needs_code = action in ("insert", "replace", "create-file")
    if needs_code != (code is not None):
        raise _Refused(f"a {action} block {'needs' if needs_code else 'has no'} @@code section")
    if action == "create-file":
        return [NewFile(path, "\n".join(code) + "\n" if code else "", source, replace=False)]
    if action == "delete-file":
        return [DeleteFile(path, source)]
    if action == "rename-file":
        if not isinstance(spec.get("name"), str) or not spec["name"].strip():
            raise _Refused("a rename-file block needs the new path in \"name\"")
        return [RenameFile(path, spec["name"], source)]
    raw = f"@@start {action} (response line {line})"
    if action == "insert":
        return [HashlineEdit(path, [_mentat_insert(spec, code, raw)], source)]
    start, end = _line_number(spec, "start-line"), _line_number(spec, "end-line")
    if start is None or end is None or start < 1 or end < start:
        raise _Refused(f"a {action} gives start-line and end-line, the end not before the "
                       "start")
    return [HashlineEdit(path, [HashlineOp(SET, start, "", end, "", code or [], 1, raw)],
                         source)]


def _mentat_insert(spec: dict, code: list[str], raw: str) -> HashlineOp:
    """Mentat's insert: after line N (0: the top), or before line N + 1."""
    after = _line_number(spec, "insert-after-line")
    before = _line_number(spec, "insert-before-line")
    if (after is None and before is None) or (None not in (after, before)
                                              and before != after + 1):
        raise _Refused("an insert gives insert-after-line N or insert-before-line N + 1")
    at = after if after is not None else before - 1
    if at == 0:
        return HashlineOp(INSERT_BEFORE, 1, "", 1, "", code, 1, raw)
    return HashlineOp(INSERT_AFTER, at, "", at, "", code, 1, raw)


def _label(line: str) -> str:
    s = line.strip()
    if s.startswith("@@"):
        return "Mentat @@start"
    if s.startswith("<"):
        return "<PlandexBlock>"
    if s.startswith("#"):
        return f"Plandex {s.lstrip('#').strip()!r}"
    return f"SWE-agent {s!r}"


FORMAT = AgentBlocks()
