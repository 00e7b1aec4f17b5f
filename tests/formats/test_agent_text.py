"""Agents' tool uses written as text in the answer (formats/agent_text.py, BEHAVIOR.md §1
round 4): each agent's text as its model writes it, planned on a small tree, the result
exact; a malformed block refused, naming it; prose that names the tags is no edit.
Plain functions; the end-to-end runs are test_agent_text_e2e.py."""
from __future__ import annotations

import pytest

from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import parse_with_tools
from git_aiapply.errors import ApplyError
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan


class DictBase:
    def __init__(self, files):
        self.files = files

    def entry(self, path):
        return (0o100644, self.files[path]) if path in self.files else None

    def kind(self, path):
        if path in self.files:
            return "file"
        return "dir" if any(p.startswith(path + "/") for p in self.files) else None

    def disk_kind(self, path):
        return None


A = b"def f():\n    return 1\n\n\ndef g():\n    return 1\n"
G2 = A.replace(b"def g():\n    return 1", b"def g():\n    return 2")
BOTH = A.replace(b"return 1", b"return 2")


def applied(text: str, files=None) -> dict:
    files = dict(files or {"a.py": A})
    parsed = parse_with_tools(read_response(text.encode(), "r.md"))
    result = make_plan(parsed.ops, DictBase(files), lambda p: normalize_path(p, worktree="/repo"))
    for p, s in result.final.items():
        if s is None:
            files.pop(p, None)
        else:
            files[p] = s.data
    return files


CLINE_REPLACE = """I'll change g.

<replace_in_file>
<path>a.py</path>
<diff>
------- SEARCH
def g():
    return 1
=======
def g():
    return 2
+++++++ REPLACE
</diff>
</replace_in_file>
"""
CLINE_LEGACY = CLINE_REPLACE.replace("------- SEARCH", "<<<<<<< SEARCH").replace(
    "+++++++ REPLACE", ">>>>>>> REPLACE")
CLINE_TWO_BLOCKS = """Both.

<replace_in_file>
<path>a.py</path>
<diff>
------- SEARCH
def f():
    return 1
=======
def f():
    return 2
+++++++ REPLACE
------- SEARCH
def g():
    return 1
=======
def g():
    return 2
+++++++ REPLACE
</diff>
</replace_in_file>
"""
CLINE_WRITE = """A new module.

<write_to_file>
<path>b.py</path>
<content>
x = 1
</content>
</write_to_file>
"""
# a file whose text holds the closing tag itself (a doc about Cline)
CLINE_WRITE_NESTED = """Docs.

<write_to_file>
<path>doc.md</path>
<content>
Write <content>text</content> inside.
</content>
</write_to_file>
"""
# Roo: :start_line: picks the second of two equal places
ROO_APPLY_DIFF = """Second return.

<apply_diff>
<path>a.py</path>
<diff>
<<<<<<< SEARCH
:start_line:6
-------
    return 1
=======
    return 2
>>>>>>> REPLACE
</diff>
</apply_diff>
"""
ROO_MULTI = """Both files.

<apply_diff>
<args>
<file>
  <path>a.py</path>
  <diff>
    <content><![CDATA[
<<<<<<< SEARCH
:start_line:5
-------
def g():
    return 1
=======
def g():
    return 2
>>>>>>> REPLACE
]]></content>
    <start_line>5</start_line>
  </diff>
</file>
<file>
  <path>n.txt</path>
  <diff>
    <content>
<<<<<<< SEARCH
n
=======
m
>>>>>>> REPLACE
</content>
  </diff>
</file>
</args>
</apply_diff>
"""
# Roo's multi-file prompt: blocks without :start_line:, the <diff>'s <start_line> standing
# for them; two diffs of one file, the second on the file as the first left it
ROO_MULTI_START_LINE = """Renaming g and changing what it returns.

<apply_diff>
<args>
<file>
  <path>a.py</path>
  <diff>
    <content><![CDATA[
<<<<<<< SEARCH
    return 1
=======
    return 2
>>>>>>> REPLACE
]]></content>
    <start_line>6</start_line>
  </diff>
  <diff>
    <content><![CDATA[
<<<<<<< SEARCH
def g():
    return 2
=======
def h():
    return 2
>>>>>>> REPLACE
]]></content>
    <start_line>5</start_line>
  </diff>
</file>
</args>
</apply_diff>
"""
ROO_INSERT = """Import first.

<insert_content>
<path>a.py</path>
<line>1</line>
<content>
import os
</content>
</insert_content>
"""
ROO_INSERT_END = ROO_INSERT.replace("<line>1</line>", "<line>0</line>")
ROO_SEARCH_REPLACE = """Every return.

<search_and_replace>
<path>a.py</path>
<search>return 1</search>
<replace>return 2</replace>
</search_and_replace>
"""
ZED_EDITS = """a.py
<edits>

<old_text line=5>
def g():
    return 1
</old_text>
<new_text>
def g():
    return 2
</new_text>

</edits>
"""
# line= breaks the tie between two equal places
ZED_HINT = """In `a.py`:

<edits path="a.py">
<old_text line=6>
    return 1
</old_text>
<new_text>
    return 2
</new_text>
</edits>
"""
CONTINUE_REPLACE = """Changing g.

```tool
TOOL_NAME: single_find_and_replace
BEGIN_ARG: filepath
a.py
END_ARG
BEGIN_ARG: old_string
return 1
END_ARG
BEGIN_ARG: new_string
return 2
END_ARG
BEGIN_ARG: replace_all
true
END_ARG
```
"""
CONTINUE_CREATE = """New file.

```tool
TOOL_NAME: create_new_file
BEGIN_ARG: filepath
b.py
END_ARG
BEGIN_ARG: contents
x = 1
END_ARG
```
"""

CASES = [
    ("Cline replace_in_file", CLINE_REPLACE, {"a.py": G2}),
    ("Cline legacy markers", CLINE_LEGACY, {"a.py": G2}),
    ("Cline two blocks", CLINE_TWO_BLOCKS, {"a.py": BOTH}),
    ("Cline write_to_file", CLINE_WRITE, {"a.py": A, "b.py": b"x = 1\n"}),
    ("Cline content holding </content>", CLINE_WRITE_NESTED,
     {"a.py": A, "doc.md": b"Write <content>text</content> inside.\n"}),
    ("Roo apply_diff :start_line:", ROO_APPLY_DIFF, {"a.py": G2}),
    ("Roo multi-file apply_diff", ROO_MULTI, {"a.py": G2, "n.txt": b"m\n"}),
    ("Roo multi-file <start_line> breaks a tie, diffs in turn", ROO_MULTI_START_LINE,
     {"a.py": G2.replace(b"def g", b"def h")}),
    ("Roo insert_content before line 1", ROO_INSERT, {"a.py": b"import os\n" + A}),
    ("Roo insert_content 0 = the end", ROO_INSERT_END, {"a.py": A + b"import os\n"}),
    ("Roo search_and_replace", ROO_SEARCH_REPLACE, {"a.py": BOTH}),
    ("Zed edits after a path line", ZED_EDITS, {"a.py": G2}),
    ("Zed line= breaks a tie", ZED_HINT, {"a.py": G2}),
    ("Continue tool block", CONTINUE_REPLACE, {"a.py": BOTH}),
    ("Continue create_new_file", CONTINUE_CREATE, {"a.py": A, "b.py": b"x = 1\n"}),
]


@pytest.mark.parametrize("what, text, after", CASES, ids=[c[0] for c in CASES])
def test_each_agents_text_applies_as_its_agent_means(what, text, after):
    files = {"a.py": A, "n.txt": b"n\n"} if "n.txt" in after else {"a.py": A}
    assert applied(text, files) == after


@pytest.mark.parametrize("what, text", [
    ("in a fence", "Here:\n\n```xml\n" + CLINE_REPLACE.split("\n\n", 1)[1] + "```\n"),
    ("CRLF", CLINE_REPLACE.replace("\n", "\r\n")),
])
def test_wrappings(what, text):
    assert applied(text) == {"a.py": G2}


def test_the_commit_message_is_the_prose():
    parsed = parse_with_tools(read_response(CLINE_REPLACE.encode(), "r.md"))
    assert parsed.explanation.strip() == "I'll change g."
    assert parsed.formats == ["agent-text"]


@pytest.mark.parametrize("text, fragment", [
    (CLINE_REPLACE.replace("</replace_in_file>\n", ""), "never closed by </replace_in_file>"),
    (CLINE_REPLACE.replace("+++++++ REPLACE\n", ""), "block 1 has no REPLACE marker"),
    (CLINE_REPLACE.replace("<path>a.py</path>", "<path>a.py</path>\nstray words"),
     "stray words"),
    (CLINE_REPLACE.replace("<diff>", "<patch>").replace("</diff>", "</patch>"), "<patch>"),
    (ROO_SEARCH_REPLACE.replace("</replace>", "</replace>\n<use_regex>true</use_regex>"),
     "<use_regex>"),
    (ROO_MULTI_START_LINE.replace("<start_line>6<", "<start_line>six<"), "not a line number"),
    (ROO_MULTI_START_LINE.replace("<start_line>6</start_line>", "").split("  <diff>\n    <content><![CDATA[\n<<<<<<< SEARCH\ndef")[0] + "</file>\n</args>\n</apply_diff>\n", "occur 2 times"),
    (ROO_MULTI.replace("<path>n.txt</path>", ""), "needs a <path>"),
    (ZED_EDITS.replace("a.py\n", "Here it is:\n"), "no file is named"),
    (ZED_EDITS.replace("<new_text>", "<new>").replace("</new_text>", "</new>"),
     "not an <old_text>"),
    (CONTINUE_REPLACE.replace("END_ARG\n```", "```"), "no END_ARG"),
    (CLINE_REPLACE.replace("def g():\n    return 1\n=", "def h():\n    return 1\n="),
     "<replace_in_file> block at response line 3"),
])
def test_a_malformed_block_is_refused_naming_it(text, fragment):
    with pytest.raises(ApplyError) as e:
        applied(text)
    assert fragment in str(e.value)


@pytest.mark.parametrize("text", [
    "Cline edits with <replace_in_file> and <write_to_file> tags.\n",
    "<replace_in_file> is Cline's tool; its <path> names the file.\n",
    "Use `<edits>` with `<old_text>` pairs, as Zed does.\n",
    "<edits>\nare what Zed streams\n</edits>\n",
    "```tool\nnot a tool call\n```\n",
])
def test_prose_that_names_the_tags_is_no_edit(text):
    parsed = parse_with_tools(read_response(text.encode(), "r.md"))
    assert parsed.ops == []


def test_without_a_reader_nothing_is_claimed():
    """Below the answer stage (a tool's own patch text) these blocks are not read."""
    from git_aiapply.formats import parse_response

    assert parse_response(CLINE_WRITE).ops == []
