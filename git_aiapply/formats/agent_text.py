"""Agents' tool uses written as text in the answer (BEHAVIOR.md §1, round 4; issue 32).

Some agents have their model write a tool use as text, which the harness parses:

- Cline, Roo Code, Kilo Code: an XML-like element per tool, its parameters as child
  elements: ``<replace_in_file><path>P</path><diff>...</diff></replace_in_file>``,
  ``<write_to_file>``, ``<apply_diff>`` (also Roo's multi-file form ``<args><file><path>
  ..</path><diff><content>..</content></diff></file></args>``), ``<insert_content>``,
  ``<search_and_replace>``.  A parameter's value is trimmed, except ``content``, of which
  one newline is dropped on each side (Roo's parser); CDATA around a value is dropped.
- Zed's edit agent: ``<edits>`` holding ``<old_text line=N>`` / ``<new_text>`` pairs, for
  the file named on the path line above it (or in a ``path`` attribute); one newline is
  dropped on each side of each text (Zed's parser), ``line=`` is a hint.
- Continue's ```` ```tool ```` blocks: ``TOOL_NAME: NAME``, then ``BEGIN_ARG: KEY`` /
  value lines / ``END_ARG``; each value trimmed, a JSON string value unquoted.

This module reads the grammar only: the tool's name and its arguments.  What a tool
does is the agent's shape (answer/shapes.py), which the caller applies through
``Scan.read_call`` (``toolcalls.call_ops``, the path every JSON tool call takes), so a
tool written as text means exactly what the same call means as JSON.  Without a reader
(a caller below the answer stage) nothing is claimed.

A block opens only where its structure is there: the tool's tag at the start of a line
and, next, one of its parameters (``<path>``...); ``<edits>`` followed by ``<old_text``;
```` ```tool ```` followed by a ``TOOL_NAME:`` line.  Prose that names the tags opens
nothing.  A block that opened and does not parse (no closing tag, a stray text between
parameters, an unknown parameter) is refused, naming it.
"""
from __future__ import annotations

import re
from typing import Callable

from ..errors import ParseError
from .agent_blocks import LEFTOVER_MARKUP
from .scan import Block, Format, Scan
from ..lazy_re import lazy_compile
from .search_replace import fence_of, path_in_info, strip_path

# (tool name, its arguments, how errors name the block) -> the call's operations
ReadCall = Callable[[str, dict, str], list]

# Cline's, Roo's and Kilo's text tools and their parameters (their prompts' tool sections)
TOOLS: dict[str, tuple[str, ...]] = {
    "replace_in_file": ("path", "diff"),
    "write_to_file": ("path", "content", "line_count"),
    "apply_diff": ("path", "diff", "args", "start_line", "end_line"),
    "insert_content": ("path", "line", "content"),
    "search_and_replace": ("path", "search", "replace", "use_regex", "ignore_case",
                           "start_line", "end_line"),
}
# Roo's options that change what search_and_replace matches: taken only when false
_SEARCH_OPTIONS = ("use_regex", "ignore_case", "start_line", "end_line")
# a whole file's text: ends with exactly one newline, as every created file (§5)
_WHOLE = {("write_to_file", "content"), ("create_new_file", "contents")}

_OPEN = re.compile(r"[ \t]*<([a-z_]+)>[ \t]*")
_CDATA = lazy_compile(r"\A\s*<!\[CDATA\[(.*)\]\]>\s*\Z", re.DOTALL)
_LINE_HINT = lazy_compile(r'line="?(\d+)')
_TOOL_NAME = lazy_compile(r"[ \t]*tool_?name:[ \t]*(\S.*?)[ \t]*", re.IGNORECASE)
_BEGIN_ARG = lazy_compile(r"[ \t]*begin_?arg:[ \t]*(\S.*?)[ \t]*", re.IGNORECASE)
_END_ARG = lazy_compile(r"[ \t]*end_?arg[ \t]*", re.IGNORECASE)


class _Refused(Exception):
    """A block's grammar is broken: why."""


def _after_tag(text: str, pos: int) -> str:
    """The text after ``pos``, blank space dropped (where the next tag must stand)."""
    return text[pos:pos + 200].lstrip()


def _next_param(text: str, pos: int, names: tuple[str, ...]) -> str | None:
    m = re.match(r"<([a-z_]+)>", _after_tag(text, pos))
    return m.group(1) if m and m.group(1) in names else None


def children(text: str, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """The child elements of ``text`` (``<name>value</name>``, names from ``names``), in
    order.  A value ends at the first ``</name>`` followed by the next child's opening
    or by the end: a file's text may hold ``</content>`` itself."""
    out: list[tuple[str, str]] = []
    pos = 0
    while True:
        rest = text[pos:]
        if not rest.strip():
            return out
        m = re.match(r"\s*<([a-z_]+)>", rest)
        if not m or m.group(1) not in names:
            raise _Refused(f"expected one of <{'>, <'.join(names)}> but found "
                           f"{rest.strip()[:60]!r}")
        name, start = m.group(1), pos + m.end()
        close = f"</{name}>"
        end = text.find(close, start)
        while end >= 0:
            after = end + len(close)
            if not text[after:].strip() or _next_param(text, after, names):
                break
            end = text.find(close, after)
        if end < 0:
            first = text.find(close, start)
            if first >= 0:
                raise _Refused(f"after {close} comes {text[first + len(close):].strip()[:60]!r}"
                               f", which is none of <{'>, <'.join(names)}>")
            raise _Refused(f"<{name}> is never closed by {close}")
        out.append((name, text[start:end]))
        pos = end + len(close)


def _value(name: str, raw: str) -> str:
    m = _CDATA.match(raw)
    if m:
        raw = m.group(1)
    if name == "content":
        return re.sub(r"\A\n", "", re.sub(r"\n\Z", "", raw))
    return raw.strip()


def _whole(tool: str, key: str, value: object) -> object:
    if (tool, key) in _WHOLE and isinstance(value, str) and value and not value.endswith("\n"):
        return value + "\n"
    return value


def _xml_calls(tool: str, body: str) -> list[dict]:
    """A Cline/Roo tool element's body as the arguments of one call per edit."""
    args: dict = {}
    for name, raw in children(body, TOOLS[tool]):
        if name in args:
            raise _Refused(f"<{name}> is given twice")
        args[name] = raw if name == "args" else _whole(tool, name, _value(name, raw))
    if tool == "apply_diff" and "args" in args:
        return _multi_file(args.pop("args"), args)
    if tool == "search_and_replace":
        on = [k for k in _SEARCH_OPTIONS if args.get(k, "false").lower() not in ("", "false")]
        if on:
            raise _Refused(f"<{on[0]}> is {args[on[0]]!r}; only a plain search of the whole "
                           "file is applied exactly (leave it out)")
    for key in ("start_line", "end_line", "line_count"):
        if tool != "insert_content":
            args.pop(key, None)  # hints Roo and Cline do not use either
    return [args]


def _multi_file(raw: str, outer: dict) -> list[dict]:
    """Roo's multi-file apply_diff: the call its native tool makes (``files``, each a
    ``path`` and ``diffs``, each a ``content`` and its ``start_line``), so that both
    forms mean the same (answer/shapes.py)."""
    if outer:
        raise _Refused(f"<args> is given with <{next(iter(outer))}>; give one or the other")
    files = []
    for _f, file_body in children(raw, ("file",)):
        path, diffs = None, []
        for name, value in children(file_body, ("path", "diff")):
            if name == "path":
                path = _value(name, value)
                continue
            parts = children(value, ("content", "start_line"))
            names = [n for n, _ in parts]
            if names.count("content") != 1 or names.count("start_line") > 1:
                raise _Refused("each <diff> of <args> holds one <content> (and at most one "
                               "<start_line>)")
            diff = {n: _value(n, v) for n, v in parts}
            if "start_line" in diff:
                if not re.fullmatch(r"-?\d+", diff["start_line"]):
                    raise _Refused(f"<start_line> is {diff['start_line']!r}, not a line number")
                diff["start_line"] = int(diff["start_line"])
            diffs.append(diff)
        if not path or not diffs:
            raise _Refused("each <file> of <args> needs a <path> and a <diff>")
        files.append({"path": path, "diffs": diffs})
    if not files:
        raise _Refused("<args> holds no <file>")
    return [{"files": files}]


PROMPT = """\
Answer with your explanation, then one tool element per file, as Cline writes them:

<replace_in_file>
<path>src/util.py</path>
<diff>
------- SEARCH
def slugify(text):
    return text.strip().lower().replace(" ", "-")
=======
def slugify(text):
    return "-".join(text.strip().lower().split())
+++++++ REPLACE
</diff>
</replace_in_file>

<write_to_file>
<path>src/names.py</path>
<content>
SEPARATOR = "-"
</content>
</write_to_file>

- SEARCH holds lines copied exactly from the file; REPLACE holds what replaces them.
  A <diff> may hold several blocks, in the file's order, each matching the file as it
  was before any of them.
- <write_to_file> gives a file's whole content: it creates the file or replaces it.
"""


class AgentText(Format):
    """Cline's, Roo's and Kilo's XML tools, Zed's ``<edits>``, Continue's ```tool."""

    name = "agent-text"
    prompts = {"agent-text": PROMPT}
    leftover_markup = tuple((rf"^\s*</?{t}>\s*$", f"a <{t}> tag") for t in TOOLS) + (
        (r"^\s*</?edits>\s*$", "an <edits> tag"),) + LEFTOVER_MARKUP
    triggers = "<`~"
    markers = tuple(f"<{t}>" for t in TOOLS) + ("<edits>",)  # a bare ``` is no tool's start
    tells = tuple(f"</{t}>" for t in TOOLS) + ("</old_text>", "BEGIN_ARG:")
    new_file_hint = "<write_to_file><path>PATH</path><content>...</content></write_to_file>"

    def opens(self, scan: Scan, i: int) -> bool:
        if getattr(scan, "read_call", None) is None:
            return False
        line = scan.lines[i]
        m = _OPEN.match(line)
        if m and m.group(1) in TOOLS:
            return _next_param(scan.text, scan.starts[i] + m.end(), TOOLS[m.group(1)]) \
                is not None
        stripped = line.strip()
        if stripped.startswith("<edits") and re.fullmatch(r"<edits(\s[^>]*)?>", stripped):
            return _after_tag(scan.text, scan.end_of(i)).startswith("<old_text")
        if stripped.lower() in ("```tool", "~~~tool"):
            return i + 1 < len(scan.lines) and _TOOL_NAME.fullmatch(scan.lines[i + 1]) \
                is not None
        return False

    def begins_block(self, scan: Scan, k: int, mid_line: bool) -> bool:
        """The last line is a tool's opening tag alone (or, cut mid-line, its start)."""
        line = scan.lines[k].strip()
        return any(line == m or (mid_line and len(line) > 1 and m.startswith(line))
                   for m in self.markers)

    def parse(self, scan: Scan, i: int) -> Block:
        stripped = scan.lines[i].strip()
        where = f"response line {i + 1}"
        try:
            if stripped.startswith("<edits"):
                return self._zed(scan, i, where)
            if stripped[:1] in "`~":
                return self._continue(scan, i, where)
            return self._xml(scan, i, where)
        except _Refused as e:
            raise ParseError(f"the {_label(stripped)} block at {where}: {e}", line=i + 1) \
                from None

    # ------------------------------------------------------------ Cline, Roo, Kilo

    def _xml(self, scan: Scan, i: int, where: str) -> Block:
        tool = _OPEN.match(scan.lines[i]).group(1)
        start = scan.starts[i] + scan.lines[i].index("<") + len(tool) + 2
        close = f"</{tool}>"
        end = scan.text.find(close, start)
        problem = None
        while end >= 0:  # the first close at which the body parses (a file may hold one)
            try:
                calls = _xml_calls(tool, scan.text[start:end])
                break
            except _Refused as e:
                problem = problem or e
                end = scan.text.find(close, end + len(close))
        if end < 0:
            raise problem or _Refused(f"it is never closed by {close} (cut off?)")
        label = f"the <{tool}> block at {where}"
        ops = [op for args in calls for op in scan.read_call(tool, args, label)]
        return Block(self.name, scan.starts[i], _line_end(scan, end + len(close)), ops)

    # ------------------------------------------------------------ Zed

    def _zed(self, scan: Scan, i: int, where: str) -> Block:
        tag = scan.lines[i].strip()
        m = re.search(r"""\bpath=(["'])(.*?)\1""", tag)
        path = m.group(2).strip() if m else _path_above(scan, i)
        if not path:
            raise _Refused("no file is named for it: write the file's path on the line "
                           "above <edits>, or as <edits path=\"...\">")
        end = scan.text.find("</edits>", scan.end_of(i))
        if end < 0:
            raise _Refused("it is never closed by </edits> (cut off?)")
        edits = _zed_edits(scan.text[scan.end_of(i):end])
        label = f"the <edits> block at {where}"
        args = {"path": path, "mode": "edit", "edits": edits}
        ops = scan.read_call("streaming_edit_file", args, label)
        return Block(self.name, scan.starts[i], _line_end(scan, end + len("</edits>")), ops)

    # ------------------------------------------------------------ Continue

    def _continue(self, scan: Scan, i: int, where: str) -> Block:
        lines = scan.lines
        opener = lines[i].strip()[0] * 3
        name = _TOOL_NAME.fullmatch(lines[i + 1]).group(1)
        args: dict = {}
        j, key, value = i + 2, None, []
        while j < len(lines):
            line = lines[j]
            if key is not None:
                if _END_ARG.fullmatch(line):
                    args[key] = _whole(name, key, _continue_value("\n".join(value)))
                    key, value = None, []
                else:
                    value.append(line)
            elif line.strip() == opener:
                break
            elif _BEGIN_ARG.fullmatch(line):
                key = _BEGIN_ARG.fullmatch(line).group(1)
                if key in args:
                    raise _Refused(f"the argument {key!r} is given twice")
            elif line.strip():
                raise _Refused(f"line {j + 1} is neither BEGIN_ARG: nor the closing "
                               f"{opener}: {line.strip()[:60]!r}")
            j += 1
        if j >= len(lines):
            what = f"its argument {key!r} has no END_ARG" if key else f"it has no closing {opener}"
            raise _Refused(f"{what} (cut off?)")
        label = f"the ```tool block ({name}) at {where}"
        ops = scan.read_call(name, args, label)
        return Block(self.name, scan.starts[i], scan.end_of(j), ops)


def _continue_value(raw: str) -> object:
    """An argument's value as Continue reads it: trimmed, a JSON string unquoted (other
    JSON values stay text: the tool's shape reads numbers and flags from text)."""
    text = raw.strip()
    if text.startswith('"'):
        try:
            import json

            value = json.loads(text)
        except ValueError:
            return text
        return value if isinstance(value, str) else text
    return text


def _zed_text(raw: str) -> str:
    return re.sub(r"\A\n", "", re.sub(r"\n\Z", "", raw))


def _zed_edits(body: str) -> list[dict]:
    """The ``<old_text>`` / ``<new_text>`` pairs of an ``<edits>`` body."""
    edits = []
    pos = 0
    pair = re.compile(r"\s*<old_text(\s[^>]*)?>(.*?)</old_text>\s*<new_text>(.*?)</new_text>",
                      re.DOTALL)
    while body[pos:].strip():
        m = pair.match(body, pos)
        if not m:
            raise _Refused(f"edit {len(edits) + 1} is not an <old_text>...</old_text> then "
                           f"<new_text>...</new_text> pair: {body[pos:].strip()[:60]!r}")
        edit = {"old_text": _zed_text(m.group(2)), "new_text": _zed_text(m.group(3))}
        hint = _LINE_HINT.search(m.group(1) or "")
        if hint:
            edit["line"] = int(hint.group(1))
        edits.append(edit)
        pos = m.end()
    if not edits:
        raise _Refused("it holds no <old_text> / <new_text> pair")
    return edits


def _path_above(scan: Scan, i: int) -> str | None:
    """The path on the nearest line above ``i`` (a fence opening around the block is
    passed over, or names the path in its info string)."""
    k = i - 1
    while k >= scan.floor and not scan.lines[k].strip():
        k -= 1
    if k >= scan.floor and fence_of(scan.lines[k]) is not None:
        named = path_in_info(fence_of(scan.lines[k])[2])
        if named:
            return named
        k -= 1
        while k >= scan.floor and not scan.lines[k].strip():
            k -= 1
    return strip_path(scan.lines[k]) if k >= scan.floor else None


def _line_end(scan: Scan, offset: int) -> int:
    """The block ends with its closing tag's line."""
    nl = scan.text.find("\n", offset)
    return len(scan.text) if nl < 0 else nl + 1


def _label(stripped: str) -> str:
    if stripped[:1] in "`~":
        return "```tool"
    m = re.match(r"<([a-z_]+)", stripped)
    return f"<{m.group(1)}>" if m else stripped[:20]


FORMAT = AgentText()
