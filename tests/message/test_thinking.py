"""What the model thought aloud, kept out (message/thinking.py, BEHAVIOR.md §8 round 4):
exploration with the rest of its paragraph, retracted attempts, line-by-line narration,
and paths outside the repository (rewritten when they name a path of the change)."""
from __future__ import annotations

import pytest

from git_aiapply.message.explanation import parse_chunks
from git_aiapply.message.thinking import RepoPaths, without_thinking

CHANGED = [("update", "src/_pytest/skipping.py"), ("rename", "old.py -> lib/new.py")]


def kept(text: str, changed=CHANGED) -> list[str]:
    out = []
    for c in without_thinking(parse_chunks(text), RepoPaths(changed)):
        out.append(c.text if c.kind in ("prose", "heading") else "\n".join(c.lines))
    return out


def test_exploration_leaves_out_itself_and_the_rest_of_its_paragraph():
    assert kept("The hook returns early. Wait, let me re-read it. It may not.\n\nKeep this.") == \
        ["The hook returns early.", "Keep this."]
    assert kept("Hmm, odd.\nStill thinking.\n\nKeep this.") == ["Keep this."]


def test_a_retraction_leaves_out_the_attempt_it_retracts():
    text = ("I'll change the `elif` to `if`.\n\n```python\nif x:\n```\n\n"
            "Wait, that's wrong. The check must stay first.\n\nKeep this.")
    assert kept(text) == ["The check must stay first.", "Keep this."]
    # inside a paragraph: the sentences before it
    assert kept("Swap the branches. Actually, no. Reorder them.") == ["Reorder them."]
    # an attempt already left out as exploration is what it retracts, not the paragraph before
    assert kept("Keep this.\n\nWait, maybe the loop.\n\nNo, that's wrong.") == ["Keep this."]
    # never past a heading
    assert kept("# Fix the loop\n\nWait, that's wrong.") == ["Fix the loop"]


def test_line_by_line_narration_is_left_out():
    text = "Line 12: `x` becomes `y`.\n\n- L3: import added\n- Handle `None`\n\nKeep this."
    assert kept(text) == ["- Handle `None`", "Keep this."]


@pytest.mark.parametrize("text, expected", [
    ("See /testbed/src/_pytest/skipping.py for the hook.", "See src/_pytest/skipping.py for the hook."),
    ("Edited `/tmp/tmpq8x7/repo/lib/new.py`.", "Edited `lib/new.py`."),
    ("Also C:\\Users\\me\\proj\\src\\_pytest\\skipping.py changed.", "Also src/_pytest/skipping.py changed."),
    ("I ran it in /home/runner/work/pytest. The hook is fixed.", "The hook is fixed."),
    ("Cached under ~/.cache/pip there. The hook is fixed.", "The hook is fixed."),
    ("The `/api/users` route and /usr/bin/env stay.", "The `/api/users` route and /usr/bin/env stay."),
    ("See https://example.com/tmp/x for details.", "See https://example.com/tmp/x for details."),
])
def test_paths_outside_the_repository(text, expected):
    assert kept(text) == [expected]


def test_paths_outside_in_code_and_lists():
    text = ("```\ncd /workspace/proj\npytest -q\n```\n\n"
            "- checked in /tmp/x/y\n- fixed `src/_pytest/skipping.py`\n\n```\ncd /tmp/a\n```")
    assert kept(text) == ["```\npytest -q\n```", "- fixed `src/_pytest/skipping.py`"]


def test_the_change_is_asked_for_only_when_an_absolute_path_appears():
    asked = []

    def changed():
        asked.append(1)
        return CHANGED

    kept("Fix the hook in src/app.py.\n\n```\nx = a/b\n```", changed)
    assert asked == []
    kept("Fix the hook in /srv/app/src/_pytest/skipping.py.", changed)
    assert asked == [1]
