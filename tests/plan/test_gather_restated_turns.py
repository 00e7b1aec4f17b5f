"""An edit of a later turn (or later section) that restates what an earlier operation of
the same response already made is that edit restated, applied once (BEHAVIOR.md §3, red
team F22: a Claude Code Edit recapped as a ```diff in the final turn), whatever the
shapes and whichever comes first; compared by effect (restated.py).  A later edit that
restates nothing and does not fit is still refused, saying what it was matched against."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from conftest import GitRepo
from git_aiapply.locate import edit_report
from git_aiapply.errors import ApplyError
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan
from git_aiapply.answer.response import read_response
from git_aiapply.plan.restated import already_made
from git_aiapply.answer.toolcalls import parse_with_tools

CONFIG = "server:\n  host: 0.0.0.0\n  port: 8080\ndatabase:\n  url: postgres://localhost/inv\n"


class _Files:
    """A base of plain files for the planner."""

    def __init__(self, files):
        self.files = files

    def entry(self, path):
        return (0o100644, self.files[path]) if path in self.files else None

    def kind(self, path):
        return "file" if path in self.files else None

    def disk_kind(self, path):
        return None


def _tool(name: str, args: dict, n: int = 1) -> list[dict]:
    """An assistant turn calling ``name`` and the user turn answering 'ok'."""
    return [{"role": "assistant", "content": [
                {"type": "tool_use", "id": f"t{n}", "name": name, "input": args}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}]}]


def _text(text: str) -> list[dict]:
    return [{"role": "assistant", "content": [{"type": "text", "text": text}]}]


def _edit(old: str, new: str, path: str = "config.yaml", n: int = 1) -> list[dict]:
    return _tool("Edit", {"file_path": path, "old_string": old, "new_string": new}, n)


def _plan(files: dict[str, str], turns: list[dict]) -> dict[str, str]:
    """The final content of every file after the conversation ``turns``, through the
    planner (ApplyError when refused)."""
    messages = [{"role": "user", "content": "go"}] + turns
    response = read_response(json.dumps(messages).encode(), "r.json")
    ops = parse_with_tools(response).ops
    plan = make_plan(ops, _Files({p: t.encode() for p, t in files.items()}),
                     lambda p: normalize_path(p, worktree="/repo"))
    return {p: s.data.decode() for p, s in plan.final.items() if s is not None}


def _diff(path: str, body: str) -> str:
    return f"Summary:\n\n```diff\n--- a/{path}\n+++ b/{path}\n{body}```\n"


RECAP = _diff("config.yaml", "@@ -1,4 +1,4 @@\n server:\n   host: 0.0.0.0\n-  port: 8080\n"
                             "+  port: 9090\n database:\n")
AFTER = CONFIG.replace("8080", "9090")


# -- every shape of the earlier operation, every shape of the restatement ------------
def test_an_edit_recapped_as_a_diff_is_made_once():
    assert _plan({"config.yaml": CONFIG}, _edit("  port: 8080", "  port: 9090")
                 + _text(RECAP)) == {"config.yaml": AFTER}


def test_a_multiedit_recapped_as_search_replace_blocks_is_made_once():
    turns = _tool("MultiEdit", {"file_path": "config.yaml", "edits": [
        {"old_string": "port: 8080", "new_string": "port: 9090"},
        {"old_string": "host: 0.0.0.0", "new_string": "host: 127.0.0.1"}]})
    recap = ("config.yaml\n```yaml\n<<<<<<< SEARCH\n  host: 0.0.0.0\n=======\n"
             "  host: 127.0.0.1\n>>>>>>> REPLACE\n```\n")
    want = AFTER.replace("0.0.0.0", "127.0.0.1")
    assert _plan({"config.yaml": CONFIG}, turns + _text(recap)) == {"config.yaml": want}


def test_a_write_recapped_by_a_diff_of_one_of_its_changes_is_made_once():
    written = AFTER + "logging:\n  level: info\n"
    turns = _tool("Write", {"file_path": "config.yaml", "content": written})
    assert _plan({"config.yaml": CONFIG}, turns + _text(RECAP)) == {"config.yaml": written}


def test_an_edit_recapped_as_an_apply_patch_chunk_is_made_once():
    recap = ("*** Begin Patch\n*** Update File: config.yaml\n@@ server:\n-  port: 8080\n"
             "+  port: 9090\n*** End Patch\n")
    assert _plan({"config.yaml": CONFIG}, _edit("  port: 8080", "  port: 9090")
                 + _text(recap)) == {"config.yaml": AFTER}


def test_an_edit_made_again_by_a_later_edit_call_is_made_once():
    turns = _edit("  port: 8080", "  port: 9090") + _edit("port: 8080\n", "port: 9090\n", n=2)
    assert _plan({"config.yaml": CONFIG}, turns) == {"config.yaml": AFTER}


def test_a_diff_made_again_by_a_later_edit_call_is_made_once():
    assert _plan({"config.yaml": CONFIG}, _text(RECAP) + _edit("  port: 8080", "  port: 9090")
                 ) == {"config.yaml": AFTER}


def test_the_recap_of_two_calls_as_one_hunk_is_made_once():
    turns = _edit("  port: 8080", "  port: 9090") + _edit("  host: 0.0.0.0", "  host: ::", n=2)
    recap = _diff("config.yaml", "@@ -1,3 +1,3 @@\n server:\n-  host: 0.0.0.0\n-  port: 8080\n"
                                 "+  host: ::\n+  port: 9090\n")
    want = AFTER.replace("0.0.0.0", "::")
    assert _plan({"config.yaml": CONFIG}, turns + _text(recap)) == {"config.yaml": want}


def test_a_new_file_written_then_recapped_as_a_diff_from_dev_null_is_made_once():
    new = "def f():\n    return 1\n"
    recap = "```diff\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,2 @@\n+def f():\n+    return 1\n```\n"
    turns = _tool("Write", {"file_path": "n.py", "content": new})
    assert _plan({}, turns + _text(recap)) == {"n.py": new}
    with pytest.raises(ApplyError) as e:  # another content is no recap: refused
        _plan({}, turns + _text(recap.replace("return 1", "return 2")))
    assert "already exists" in str(e.value)


def test_a_text_editor_insert_recapped_as_a_diff_is_made_once():
    turns = _tool("str_replace_based_edit_tool", {"command": "insert", "path": "config.yaml",
                                                  "insert_line": 3, "insert_text": "  tls: true\n"})
    recap = _diff("config.yaml", "@@ -2,3 +2,4 @@\n   host: 0.0.0.0\n   port: 8080\n"
                                 "+  tls: true\n database:\n")
    want = CONFIG.replace("8080\n", "8080\n  tls: true\n")
    assert _plan({"config.yaml": CONFIG}, turns + _text(recap)) == {"config.yaml": want}


def test_the_edits_of_one_multiedit_are_not_restatements_of_each_other():
    # Claude Code runs them strictly: the second finds nothing and fails the call
    turns = _tool("MultiEdit", {"file_path": "config.yaml", "edits": [
        {"old_string": "port: 8080", "new_string": "port: 9090"},
        {"old_string": "port: 8080", "new_string": "port: 9090"}]})
    with pytest.raises(ApplyError):
        _plan({"config.yaml": CONFIG}, turns)


_TWO_BLOCKS = ("config.yaml\n```yaml\n<<<<<<< SEARCH\n  port: 8080\n=======\n  port: 9090\n"
               ">>>>>>> REPLACE\n```\n\nconfig.yaml\n```yaml\n<<<<<<< SEARCH\n  host: 0.0.0.0\n"
               "=======\n  host: ::\n>>>>>>> REPLACE\n```\n")


def test_two_search_blocks_recapped_as_one_hunk_in_a_later_turn_are_made_once():
    recap = _diff("config.yaml", "@@ -1,3 +1,3 @@\n server:\n-  host: 0.0.0.0\n-  port: 8080\n"
                                 "+  host: ::\n+  port: 9090\n")
    turns = _text(_TWO_BLOCKS) + [{"role": "user", "content": "ok"}] + _text(recap)
    assert _plan({"config.yaml": CONFIG}, turns) == {"config.yaml": AFTER.replace("0.0.0.0", "::")}


def test_a_later_hunk_that_restates_one_block_and_changes_more_is_refused():
    more = _diff("config.yaml", "@@ -1,3 +1,3 @@\n server:\n-  host: 0.0.0.0\n-  port: 8080\n"
                                "+  host: ::\n+  port: 9191\n")
    turns = _text(_TWO_BLOCKS) + [{"role": "user", "content": "ok"}] + _text(more)
    with pytest.raises(ApplyError):
        _plan({"config.yaml": CONFIG}, turns)


def test_verbose_says_the_recap_was_restated():
    with edit_report.scope() as reports:
        _plan({"config.yaml": CONFIG}, _edit("  port: 8080", "  port: 9090") + _text(RECAP))
    assert any("restated" in r.how for r in reports)


# -- what is not a restatement -------------------------------------------------------
def test_a_follow_up_edit_of_the_edited_line_goes_on_top():
    follow = _diff("config.yaml", "@@ -2,3 +2,3 @@\n   host: 0.0.0.0\n-  port: 9090\n"
                                  "+  port: 9191\n database:\n")
    got = _plan({"config.yaml": CONFIG}, _edit("  port: 8080", "  port: 9090") + _text(follow))
    assert got == {"config.yaml": CONFIG.replace("8080", "9191")}


def test_another_change_of_the_edited_line_is_refused_saying_what_it_was_matched_against():
    other = _diff("config.yaml", "@@ -1,4 +1,4 @@\n server:\n   host: 0.0.0.0\n-  port: 8080\n"
                                 "+  port: 7070\n database:\n")
    with pytest.raises(ApplyError) as e:
        _plan({"config.yaml": CONFIG}, _edit("  port: 8080", "  port: 9090") + _text(other))
    message = str(e.value)
    assert "as the response's earlier edits left it" in message
    assert "earlier edits: tool call 1 (tool_use Edit))" in message
    assert "not as the repository holds it" in message


def test_a_later_edit_call_that_does_not_fit_says_what_it_was_matched_against():
    turns = _edit("  port: 8080", "  port: 9090") + _edit("  port: 8080", "  port: 7070", n=2)
    with pytest.raises(ApplyError) as e:
        _plan({"config.yaml": CONFIG}, turns)
    assert "as the response's earlier edits left it" in str(e.value)


def test_a_first_edit_that_does_not_fit_says_nothing_of_earlier_edits():
    with pytest.raises(ApplyError) as e:
        _plan({"config.yaml": CONFIG}, _edit("  port: 1234", "  port: 9090"))
    assert "earlier edits" not in str(e.value)


# -- the rule itself: a three-way merge of the later edit into the earlier result ----
def _lines(words: list[str]) -> list[bytes]:
    return [w.encode() + b"\n" for w in words]


# distinct lines, as most lines of code are: where lines repeat, which copy a change took
# can be told two ways, and the rule then errs towards "not made" (applied, or refused)
_WORDS = st.lists(st.sampled_from("abcdefghijklmnop"), min_size=2, max_size=12, unique=True)


@st.composite
def _change(draw, base: list[bytes]):
    """``base`` with one run [i, j) replaced by other lines."""
    i = draw(st.integers(0, len(base)))
    j = draw(st.integers(i, min(len(base), i + 3)))
    new = _lines(draw(st.lists(st.sampled_from(["x", "y", "z"]), max_size=3)))
    return i, j, base[:i] + new + base[j:]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_same_change_is_already_made_alone_or_among_others(data):
    base = _lines(data.draw(_WORDS))
    i, j, mine = data.draw(_change(base))
    if mine == base:
        assert not already_made(base, mine, mine)  # a change of nothing restates nothing
        return
    assert already_made(base, mine, mine)
    # another change well away from it (not touching) leaves it made
    if j + 2 <= len(base):
        k = data.draw(st.integers(j + 1, len(base) - 1))
        made = mine[:len(mine) - (len(base) - k)] + [b"far\n"] + mine[len(mine) - (len(base) - k) + 1:]
        assert already_made(base, made, mine)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_change_the_earlier_edit_did_not_make_is_never_taken_as_made(data):
    base = _lines(data.draw(_WORDS))
    i, j, mine = data.draw(_change(base))
    a, b, made = data.draw(_change(base))
    if mine == base:
        return
    apart = j < a or b < i  # changes of separate runs, not touching
    if apart or made == base:
        assert not already_made(base, made, mine)
    if already_made(base, made, mine):
        # then the later edit adds nothing: where it changed lines, the earlier result
        # already holds its lines (the common run before and after it agrees)
        head = len(base[:i])
        tail = len(base) - j
        assert made[:head] == mine[:head] and (tail == 0 or made[-tail:] == mine[-tail:])


# -- a later edit that restates nothing and does not fit is refused, never dropped ---
@settings(max_examples=100, deadline=None)
@given(line=st.integers(0, 4), value=st.sampled_from(["9090", "8080", "7070", "info"]))
def test_a_later_diff_is_restated_applied_or_refused_never_dropped(line, value):
    lines = CONFIG.split("\n")[:-1]
    old = lines[line]
    new = old.split(":")[0] + ": " + value
    body = "".join(f" {l}\n" if k != line else f"-{old}\n+{new}\n" for k, l in enumerate(lines))
    later = _diff("config.yaml", f"@@ -1,5 +1,5 @@\n{body}")
    try:
        got = _plan({"config.yaml": CONFIG}, _edit("  port: 8080", "  port: 9090") + _text(later))
    except ApplyError as e:
        assert "earlier edits left it" in str(e)  # refused against the Edit's result
        assert not (line == 2 and new == "  port: 9090")  # the recap itself is made once
        return
    if line == 2:
        assert new == "  port: 9090" and got == {"config.yaml": AFTER}  # restated, made once
    else:
        # the later diff's context holds the original port line: it can only fit the file
        # as it was, so it is neither dropped nor made on the Edit's result
        raise AssertionError(f"applied a diff written against a changed line: {got}")


# -- end to end --------------------------------------------------------------------
def test_f22_conversation_recap_applies_once(repo: GitRepo):
    repo.write("config.yaml", CONFIG)
    base = repo.commit_all()
    messages = [{"role": "user", "content": "Use port 9090."}] + \
        _edit("  port: 8080", "  port: 9090") + _text("Done. " + RECAP)
    r = repo.run("-v", response=json.dumps(messages))
    assert r.returncode == 0, r.err
    assert repo.count() == repo.count(base) + 1
    assert repo.read("config.yaml").decode() == AFTER
    assert "restated" in r.out + r.err
