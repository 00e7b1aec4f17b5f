"""Agents' own edit blocks written as text (formats/agent_blocks.py, BEHAVIOR.md §1 round
4): SWE-agent's ``edit N:M`` over the file ``open`` named, Mentat's ``@@start`` blocks and
Plandex's file blocks, each as its model writes it, planned on a small tree, the result
exact; a malformed block refused, naming it; prose that names the markers is no edit."""
from __future__ import annotations

import json

import pytest

from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import parse_with_tools
from git_aiapply.errors import ApplyError
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan
from plan_base import DictBase

LIMITS = (b"def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n"
          b"        return lo\n    return x\n")
FIXED = LIMITS.replace(b"        return lo\n    return x", b"        return hi\n    return x")


def applied(data: bytes, files: dict, name: str = "r.md") -> dict:
    parsed = parse_with_tools(read_response(data, name))
    result = make_plan(parsed.ops, DictBase({p: (0o100644, d) for p, d in files.items()}),
                       lambda p: normalize_path(p, worktree="/testbed"))
    tree = dict(files)
    for p, s in result.final.items():
        if s is None:
            tree.pop(p, None)
        else:
            tree[p] = s.data
    return tree


def swe_agent_turns(*actions: str) -> bytes:
    """A SWE-agent run as its history saves it: each turn a DISCUSSION and one fenced
    command, then the environment's observation."""
    history = []
    for k, action in enumerate(actions):
        history.append({"role": "assistant", "content": f"DISCUSSION\nStep {k + 1}.\n\n```\n"
                                                        f"{action}\n```\n"})
        history.append({"role": "user", "content": "(Open file: /testbed/src/limits.py)"})
    return json.dumps(history[:-1]).encode()


SWE_OPEN = 'open "src/limits.py"'
SWE_EDIT = "edit 5:5\n        return hi\nend_of_edit"


def test_swe_agent_edit_over_the_opened_file():
    data = swe_agent_turns("find_file limits.py", SWE_OPEN, SWE_EDIT)
    assert applied(data, {"src/limits.py": LIMITS}, "r.json") == {"src/limits.py": FIXED}


def test_swe_agent_edits_in_turn_each_on_the_file_as_the_last_left_it():
    data = swe_agent_turns(SWE_OPEN, "edit 2:3\n    if x <= lo:\n        return lo\n"
                           "        # below\nend_of_edit", "edit 6:6\n        return hi\nend_of_edit",
                           "edit 1:1\nend_of_edit")
    assert applied(data, {"src/limits.py": LIMITS}, "r.json") == {"src/limits.py": (
        b"    if x <= lo:\n        return lo\n        # below\n    if x > hi:\n"
        b"        return hi\n    return x\n")}


def test_swe_agent_create_then_edit_fills_the_new_file():
    data = swe_agent_turns("create reproduce.py", "edit 1:1\nfrom src.limits import clamp\n"
                           "print(clamp(5, 0, 3))\nend_of_edit")
    assert applied(data, {}, "r.json") == {
        "reproduce.py": b"from src.limits import clamp\nprint(clamp(5, 0, 3))\n"}


MENTAT = """I will fix the upper bound and add a docstring.

Steps:
1. Return hi above the range.
2. Document clamp.

@@start
{
    "file": "src/limits.py",
    "action": "replace",
    "start-line": 5,
    "end-line": 5
}
@@code
        return hi
@@end
@@start
{
    "file": "src/limits.py",
    "action": "insert",
    "insert-after-line": 1,
    "insert-before-line": 2
}
@@code
    # x, kept between lo and hi
@@end
@@start
{
    "file": "src/old.py",
    "action": "rename-file",
    "name": "src/new.py"
}
@@end
@@start
{
    "file": "src/gone.py",
    "action": "delete-file"
}
@@end
"""


def test_mentat_blocks_line_numbers_of_the_file_as_it_was():
    files = {"src/limits.py": LIMITS, "src/old.py": b"o\n", "src/gone.py": b"g\n"}
    after = applied(MENTAT.encode(), files)
    assert after == {"src/limits.py": FIXED.replace(
        b"hi):\n", b"hi):\n    # x, kept between lo and hi\n", 1), "src/new.py": b"o\n"}


PLANDEX = """I'll fix the upper bound of clamp and add a test.

- src/limits.py:
<PlandexBlock lang="python" path="src/limits.py">
def clamp(x, lo, hi):
    # ... existing code ...
    if x > hi:
        return hi
    return x
</PlandexBlock>

- tests/test_limits.py:
<PlandexBlock lang="python" path="tests/test_limits.py">
from src.limits import clamp


def test_clamp_high():
    assert clamp(5, 0, 3) == 3
</PlandexBlock>

### Move Files
- `notes.txt` → `docs/notes.txt`
<EndPlandexFileOps/>
"""


def test_plandex_blocks_and_file_ops():
    after = applied(PLANDEX.encode(), {"src/limits.py": LIMITS, "notes.txt": b"n\n"})
    assert after == {"src/limits.py": FIXED, "docs/notes.txt": b"n\n", "tests/test_limits.py":
                     b"from src.limits import clamp\n\n\ndef test_clamp_high():\n"
                     b"    assert clamp(5, 0, 3) == 3\n"}
    parsed = parse_with_tools(read_response(PLANDEX.encode(), "r.md"))
    assert "- src/limits.py:" not in parsed.explanation


@pytest.mark.parametrize("data, files, fragment", [
    (swe_agent_turns("edit 5:5\n        return hi\nend_of_edit"), {}, "no file is open"),
    (swe_agent_turns(SWE_OPEN, "edit 9:12\nx\nend_of_edit"), {"src/limits.py": LIMITS},
     "line 9 does not exist"),
    (swe_agent_turns(SWE_OPEN, "edit 5:4\nx\nend_of_edit"), {"src/limits.py": LIMITS},
     "no range of lines"),
    (MENTAT.replace('"start-line": 5,\n', "").encode(), {"src/limits.py": LIMITS},
     "start-line and end-line"),
    (MENTAT.replace('"action": "replace"', '"action": "rewrite"').encode(),
     {"src/limits.py": LIMITS}, "'rewrite'"),
    (MENTAT.replace('"end-line": 5\n}', '"end-line": 5,\n}').encode(), {}, "does not parse"),
    (PLANDEX.replace('path="tests/test_limits.py"', 'path="_apply.sh"').encode(),
     {"src/limits.py": LIMITS, "notes.txt": b"n\n"}, "_apply.sh"),
    (PLANDEX.replace("### Move Files", "### Reset Changes").encode(),
     {"src/limits.py": LIMITS, "notes.txt": b"n\n"}, "Reset Changes"),
    (PLANDEX.replace(" → ", " -> ").encode(), {"src/limits.py": LIMITS, "notes.txt": b"n\n"},
     "is not a - `source` → `destination` item"),
])
def test_a_malformed_block_is_refused_naming_it(data, files, fragment):
    with pytest.raises(ApplyError) as e:
        applied(data, files, "r.json" if data.startswith(b"[") else "r.md")
    assert fragment in str(e.value)


@pytest.mark.parametrize("text", [
    "Use `edit 5:7` and end with end_of_edit, as SWE-agent does.\n",
    "edit 5:7\nthe lines\n",  # never closed: prose
    "Mentat writes @@start, a JSON object, @@code and @@end.\n",
    "@@start\nis Mentat's marker\n@@end\n",
    "<PlandexBlock> is Plandex's tag.\n",
    "### Move Files\nnothing here\n",
])
def test_prose_that_names_the_markers_is_no_edit(text):
    assert parse_with_tools(read_response(text.encode(), "r.md")).ops == []


# a SWE-agent final answer: DISCUSSION labels, read-only commands, the edit
SWE_ANSWER = """DISCUSSION
Let me open the file.

```
open "src/limits.py"
goto 5
```
DISCUSSION
Values above the range came back as the lower bound.

```
search_file "return lo"
```
```
python reproduce.py
```
```
edit 5:5
        return hi
end_of_edit
```
"""


def test_swe_agents_labels_and_commands_are_no_explanation():
    parsed = parse_with_tools(read_response(SWE_ANSWER.encode(), "r.md"))
    assert len(parsed.ops) == 1
    text = parsed.explanation
    assert "DISCUSSION" not in text and "open \"" not in text and "search_file" not in text
    assert "goto" not in text and "end_of_edit" not in text
    assert "Let me open the file." in text and "Values above the range" in text
    assert "python reproduce.py" in text  # a shell command: no SWE-agent command of its own


def test_without_a_swe_agent_edit_its_words_stay_prose():
    text = "DISCUSSION\nThe fix.\n\n```\nopen a.py\n```\n\n```diff\n--- a/a.py\n+++ b/a.py\n" \
           "@@ -1 +1 @@\n-a\n+b\n```\n"
    parsed = parse_with_tools(read_response(text.encode(), "r.md"))
    assert "DISCUSSION" in parsed.explanation and "open a.py" in parsed.explanation
