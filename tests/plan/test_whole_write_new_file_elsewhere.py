"""--format whole names a file that does not exist while a file of that name is tracked in
another folder: refused with "did you mean", as a patch of the path would be, unless the
response says the file is new (a "(new file)" note on the path line, or "new file" /
"create" in the sentence just before it).  Aider's whole format creates files by naming
them, so a plain missing path with no namesake is still created."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan
from plan_base import DictBase

BODY = "```python\ndef add(a, b):\n    return b + a\n```\n"
SRC = {"src/app.py": (0o100644, b"def add(a, b):\n    return a + b\n")}


class TreeBase(DictBase):
    """A DictBase that lists its tracked paths, as the repository's base does."""

    def paths_under(self, folder, budget=None):
        return [(p, "file") for p in self.files if p.startswith(folder)]


def _plan(text: str, files: dict):
    ops = parse_response(text, "whole").ops
    return make_plan(ops, TreeBase(files), lambda p: normalize_path(p, worktree="/w"))


@pytest.mark.parametrize("intro", ["Here is the updated file:\n\n", "", "Changed:\n"])
def test_a_missing_path_named_like_a_tracked_file_elsewhere_is_refused(intro):
    with pytest.raises(ApplyError) as e:
        _plan(intro + "app.py\n" + BODY, SRC)
    text = str(e.value) + " ".join(p.hint or "" for p in e.value.problems)
    assert "did you mean src/app.py" in text
    assert "app.py" in str(e.value)


@pytest.mark.parametrize("text", [
    "Here is a new file:\n\napp.py\n" + BODY,
    "Create this file:\n\napp.py\n" + BODY,
    "app.py (new file)\n" + BODY,
    "**app.py** (new)\n" + BODY,
])
def test_a_response_that_says_the_file_is_new_creates_it(text):
    p = _plan(text, SRC)
    assert p.final["app.py"].data == b"def add(a, b):\n    return b + a\n"
    assert "src/app.py" not in p.final


def test_a_missing_path_with_no_namesake_is_created():
    p = _plan("Here is the updated file:\n\nlib/util.py\n" + BODY, SRC)
    assert "lib/util.py" in p.final


def test_the_tracked_path_itself_is_rewritten():
    p = _plan("src/app.py\n" + BODY, SRC)
    assert p.final["src/app.py"].data == b"def add(a, b):\n    return b + a\n"


def test_the_new_file_note_is_read_from_the_path_line_and_the_line_before_only():
    text = "A new file would be overkill.\n\nSo, the update:\n\napp.py\n" + BODY
    with pytest.raises(ApplyError, match="app.py"):
        _plan(text, SRC)
