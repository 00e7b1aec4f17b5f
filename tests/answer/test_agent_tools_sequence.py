"""Claude Code's MultiEdit applies its edits in sequence, each on the result of the ones
before (BEHAVIOR.md §1, finding F24): a later edit may change text an earlier one wrote,
with the count rules each edit has (exactly one occurrence unless replace_all), and a
later edit that fits nothing refuses the whole call, naming that edit."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from conftest import GitRepo
from git_aiapply.errors import ApplyError
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan
from git_aiapply.answer.toolcalls import ToolCall, call_ops


class _Files:
    """A base of plain files for the planner."""

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


def multi_edit(text: str, edits: list[dict]) -> str:
    """The file after a MultiEdit of ``edits`` on ``text``, through the planner."""
    ops = call_ops(ToolCall(1, "tool_use", "MultiEdit", {"file_path": "f.py", "edits": edits}))
    result = make_plan(ops, _Files({"f.py": text.encode()}),
                       lambda p: normalize_path(p, worktree="/repo"))
    return result.final["f.py"].data.decode()


def test_a_later_edit_changes_what_an_earlier_one_wrote():
    text = "def helper_5(x):\n    return x + 5\n"
    got = multi_edit(text, [
        {"old_string": "def helper_5(x):", "new_string": "def helper_five(x):"},
        {"old_string": "return x + 5", "new_string": "return x + 5.0"},
        {"old_string": "helper_five", "new_string": "helper_5b"}])
    assert got == "def helper_5b(x):\n    return x + 5.0\n"


def test_a_later_edit_inside_an_earlier_new_string_still_needs_exactly_one():
    # after edit 1 the file holds 'ab' twice: edit 2 without replace_all is ambiguous
    with pytest.raises(ApplyError) as e:
        multi_edit("ab\nx\n", [{"old_string": "x", "new_string": "ab"},
                               {"old_string": "ab", "new_string": "c"}])
    assert "MultiEdit f.py, edit 2" in str(e.value)


def test_a_later_edit_that_fits_nothing_is_refused_naming_it():
    with pytest.raises(ApplyError) as e:
        multi_edit("one\ntwo\n", [{"old_string": "one", "new_string": "uno"},
                                  {"old_string": "one", "new_string": "eins"}])
    assert "MultiEdit f.py, edit 2" in str(e.value)
    assert "does not occur" in str(e.value)


_PIECES = st.sampled_from(["a", "b", "ab", "a\n", "\nb", "c", "bc"])


def _in_sequence(text: str, edits: list[tuple[str, str, bool]]) -> str | None:
    """What Claude Code's documented rule gives: each edit on the result of the ones
    before; exactly one occurrence unless replace_all (then at least one); None: refused."""
    for old, new, every in edits:
        count = text.count(old)
        overlapping = sum(text.startswith(old, i) for i in range(len(text)))
        if old == new or count == 0 or not every and (count != 1 or overlapping != 1):
            return None
        text = text.replace(old, new) if every else text.replace(old, new, 1)
    return text


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from(["a", "b", "c", "\n"]), max_size=20).map("".join),
       edits=st.lists(st.tuples(_PIECES, _PIECES, st.booleans()), min_size=1, max_size=4))
def test_multi_edit_is_its_edits_in_sequence(text, edits):
    want = _in_sequence(text, edits)
    try:
        got = multi_edit(text, [{"old_string": o, "new_string": n, "replace_all": every}
                                for o, n, every in edits])
    except ApplyError:
        got = None
    assert got == want


def test_f24_through_the_command(repo: GitRepo):
    repo.write("src/inventory.py", "def helper_4(x):\n    return x + 4\n\n\n"
                                   "def helper_5(x):\n    return x + 5\n")
    repo.commit_all("base")
    resp = json.dumps({"type": "message", "role": "assistant", "model": "claude-test",
                       "stop_reason": "tool_use", "content": [
                           {"type": "text", "text": "Rename helper 5."},
                           {"type": "tool_use", "id": "t0", "name": "MultiEdit", "input": {
                               "file_path": "src/inventory.py", "edits": [
                                   {"old_string": "def helper_5(x):",
                                    "new_string": "def helper_five(x):"},
                                   {"old_string": "return x + 5", "new_string": "return x + 5.0"},
                                   {"old_string": "helper_five", "new_string": "helper_5b"}]}}]})
    r = repo.run(response=resp)
    assert r.returncode == 0, r.err
    assert repo.read("src/inventory.py") == (b"def helper_4(x):\n    return x + 4\n\n\n"
                                             b"def helper_5b(x):\n    return x + 5.0\n")


def test_each_multi_edit_edit_is_reported_by_its_number(repo: GitRepo):
    repo.write("a.py", "one\ntwo\nthree\n")
    repo.commit_all("base")
    resp = json.dumps({"type": "message", "role": "assistant", "model": "claude-test",
                       "stop_reason": "tool_use", "content": [
                           {"type": "tool_use", "id": "t0", "name": "MultiEdit", "input": {
                               "file_path": "a.py", "edits": [
                                   {"old_string": "one", "new_string": "uno"},
                                   {"old_string": "three", "new_string": "tres"},
                                   {"old_string": "uno", "new_string": "eins"}]}}]})
    r = repo.run("-v", response=resp)
    assert r.returncode == 0, r.err
    report = r.out + r.err
    assert "a.py: edit 2 line 3 -> 3" in report
    assert "a.py: edit 3 line 1 -> 1" in report
    assert repo.read("a.py") == b"eins\ntwo\ntres\n"


def test_a_later_edits_refusal_says_it_was_matched_after_the_earlier_ones():
    with pytest.raises(ApplyError) as e:
        multi_edit("one\ntwo\nthree\n", [{"old_string": "one", "new_string": "uno"},
                                         {"old_string": "two", "new_string": "dos"},
                                         {"old_string": "one\ntwo", "new_string": "x"}])
    assert "MultiEdit f.py, edit 3 (on the file as edits 1-2 left it)" in str(e.value)
    with pytest.raises(ApplyError) as e:
        multi_edit("one\ntwo\n", [{"old_string": "one", "new_string": "uno"},
                                  {"old_string": "one", "new_string": "x"}])
    assert "edit 2 (on the file as edit 1 left it)" in str(e.value)
