"""Commit messages from SWE-agent final answers (BEHAVIOR.md §8, issue 35): its
DISCUSSION label and its command blocks (open, goto, search_file, ...) are no message
text, its narration of opening files and of the lines it edits says nothing of the
change, and when no sentence says what changed, the change names the subject."""
from __future__ import annotations

import pytest

from conftest import GitRepo
from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import parse_with_tools
from git_aiapply.message.message import build_message

LIMITS = ("def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n"
          "        return lo\n    return x\n")

ONLY_LOOKING = """DISCUSSION
Let me open the file.
```
open "src/limits.py"
```
Now edit lines 5 to 5.
```
edit 5:5
        return hi
end_of_edit
```
"""
SEE_WHATS_GOING_ON = """Let me open the file to see what's going on.
```
open "src/limits.py"
```
I'll now edit line 5.
```
edit 5:5
        return hi
end_of_edit
```
"""
SEARCHING = """DISCUSSION
First, let's find the file that defines clamp.

```
find_file "limits.py"
```
DISCUSSION
Now I'll open the file and go to the function.

```
open src/limits.py
goto 1
```
DISCUSSION
I'll now edit lines 4 to 5.

```
edit 4:5
    if x > hi:
        return hi
end_of_edit
```
"""
SAYS_WHY = """DISCUSSION
Let me open the file.

```
open "src/limits.py"
```
DISCUSSION
Return hi, not lo, for values above the range.

```
edit 5:5
        return hi
end_of_edit
```
"""


def _message(answer: str) -> str:
    parsed = parse_with_tools(read_response(answer.encode(), "r.md"))
    return build_message(parsed.explanation, formats=parsed.formats, response_id="0" * 16,
                         model=None, descriptions=[], changed=[("update", "src/limits.py")],
                         names_of=lambda _path: ["clamp"], trailers=False)


@pytest.mark.parametrize("answer", [ONLY_LOOKING, SEE_WHATS_GOING_ON, SEARCHING])
def test_an_answer_that_only_narrates_gets_its_subject_from_the_change(answer):
    assert _message(answer) == "Change clamp (src/limits.py)\n"


def test_the_sentence_that_says_what_changed_is_the_subject_and_nothing_else_is_kept():
    assert _message(SAYS_WHY) == "Return hi, not lo, for values above the range\n"


def test_through_the_command(repo: GitRepo):
    repo.write("src/limits.py", LIMITS)
    repo.commit_all("base")
    r = repo.run(response=ONLY_LOOKING)
    assert r.returncode == 0, r.err
    msg = repo.message()
    assert msg.splitlines()[0] == "Change clamp (src/limits.py)"
    assert "DISCUSSION" not in msg and "open" not in msg and "edit lines" not in msg
    assert repo.read("src/limits.py").decode() == LIMITS.replace(
        "        return lo\n    return x", "        return hi\n    return x")
