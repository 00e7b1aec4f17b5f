"""A model's reasoning block (``<think>`` ... ``</think>``, ``<thinking>`` ... ``</thinking>``)
left in a plain-text answer is not the answer (BEHAVIOR.md §2): change blocks drafted
inside it are never read, its text is not explanation, and an answer that ends inside an
open reasoning block is unfinished (refused).  A think tag inside a change block or a
code fence is that block's content and stays so.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aiapply.errors import ParseError
from git_aiapply.formats import parse_response
from git_aiapply.ops import EditFile

SR = "{path}\n```yaml\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n```\n"
DIFF = ("```diff\n--- a/{path}\n+++ b/{path}\n@@ -1,1 +1,1 @@\n-{old}\n+{new}\n```\n")
REAL = SR.format(path="config.yaml", old="  port: 8080", new="  port: 9090")
DRAFTS = {
    "search-replace": SR.format(path="config.yaml", old="  pool: 5", new="  pool: 50"),
    "unified-diff": DIFF.format(path="config.yaml", old="  pool: 5", new="  pool: 50"),
    "apply-patch": "*** Begin Patch\n*** Update File: config.yaml\n@@\n-  pool: 5\n"
                   "+  pool: 50\n*** End Patch\n",
    "file-changes": '<FILE_CHANGES>\n<FILE_NEW file_path="draft.txt">\nx\n</FILE_NEW>\n'
                    "</FILE_CHANGES>\n",
}


def _added(parsed) -> list[str]:
    """The lines every edit of the parsed answer adds, in order."""
    return [text for op in parsed.ops if isinstance(op, EditFile)
            for h in op.hunks for tag, text in h.lines if tag == "+"]


def _paths(parsed) -> list[str]:
    return [op.path for op in parsed.ops]


@pytest.mark.parametrize("tag", ["think", "thinking", "THINK", "Thinking"])
@pytest.mark.parametrize("draft", sorted(DRAFTS))
def test_a_change_drafted_inside_reasoning_is_not_read(tag, draft):
    text = (f"<{tag}>\nThe user wants port 9090. Maybe also:\n\n{DRAFTS[draft]}\n"
            f"No wait, only the port.\n</{tag}>\n\nMove the server to port 9090.\n\n{REAL}")
    parsed = parse_response(text)
    assert len(parsed.ops) == 1 and parsed.formats == ["search-replace"]
    assert _added(parsed) == ["  port: 9090"]
    assert "pool" not in parsed.explanation and "No wait" not in parsed.explanation
    assert parsed.explanation.startswith("Move the server to port 9090.")


@pytest.mark.parametrize("opening", [
    "<think>The user wants port 9090. I should edit config.yaml.</think>\n",
    "<think>The user wants port 9090.\nI should edit config.yaml.</think>\n",
    "  <think>\nThe user wants port 9090.\n  </think>  \n",
    "<thinking>\nline\n\nI should edit config.yaml.\n</thinking>\n",
])
def test_reasoning_is_not_explanation_whatever_its_line_shape(opening):
    parsed = parse_response(opening + "\nChange the port to 9090.\n\n" + REAL)
    assert parsed.explanation == "Change the port to 9090."
    assert len(parsed.ops) == 1


def test_text_after_the_closing_tag_on_its_line_is_explanation():
    parsed = parse_response("<think>plan it</think> Change the port to 9090.\n\n" + REAL)
    assert parsed.explanation == "Change the port to 9090."


@pytest.mark.parametrize("text", [
    "<think>\nThe user wants port 9090.\n\n" + REAL,  # the answer never came
    "<think>\nI could write\n" + REAL,
    "Sure.\n\n<thinking>\nhmm\n",
])
def test_an_answer_that_ends_inside_its_reasoning_is_refused_as_cut_off(text):
    with pytest.raises(ParseError) as e:
        parse_response(text)
    message = str(e.value)
    assert "cut off" in message and "reasoning" in message
    assert "line " in message


def test_reasoning_that_quotes_a_closing_tag_in_a_fence_is_not_closed_by_it():
    # the close inside the reasoning's own code fence is an example, not the end
    text = ("<think>\nThe file could read:\n```\n</think>\n```\n\n"
            + DRAFTS["search-replace"] + "\n</think>\n\nMove the port.\n\n" + REAL)
    parsed = parse_response(text)
    assert _added(parsed) == ["  port: 9090"]


def test_think_tags_a_change_writes_into_a_file_are_that_files_content():
    body = "<think>\nreasoning goes here\n</think>\n"
    text = ("Teach the template about reasoning.\n\ntemplate.txt\n```\n<<<<<<< SEARCH\n"
            "old\n=======\n" + body + ">>>>>>> REPLACE\n```\n")
    parsed = parse_response(text)
    assert _added(parsed) == body.splitlines()
    assert parsed.explanation == "Teach the template about reasoning."


def test_think_tags_inside_a_prose_fence_stay_prose():
    text = ("Models write:\n\n```\n<think>\n```\n\nthen their answer.\n\n" + REAL)
    parsed = parse_response(text)
    assert len(parsed.ops) == 1
    assert "<think>" in parsed.explanation


def test_think_tags_a_diff_adds_are_the_diffs_content():
    text = DIFF.format(path="t.md", old="x", new="<think>")
    parsed = parse_response("Add the tag.\n\n" + text)
    assert parsed.ops[0].path == "t.md" and len(parsed.ops) == 1


def test_a_think_tag_mentioned_inside_a_prose_line_is_prose():
    text = "Models wrap reasoning in <think> tags; I left them out.\n\n" + REAL
    parsed = parse_response(text)
    assert len(parsed.ops) == 1 and "<think>" in parsed.explanation


@settings(max_examples=150, deadline=None)
@given(drafts=st.lists(st.sampled_from(sorted(DRAFTS)), min_size=1, max_size=3),
       chatter=st.lists(st.sampled_from(["hmm", "", "Let me check.", "```", "```\n```"]),
                        max_size=4),
       tag=st.sampled_from(["think", "thinking"]))
def test_whatever_reasoning_holds_only_the_answer_is_read(drafts, chatter, tag):
    """Drafts of any format, with prose and balanced or unbalanced fences between them,
    inside a closed reasoning block: the answer's one block is all that is read, or the
    response is refused; a draft never lands."""
    inner = "\n".join(DRAFTS[d] + "\n" + c for d, c in zip(drafts, chatter + [""] * 3))
    text = f"<{tag}>\n{inner}\n</{tag}>\n\nMove the port.\n\n{REAL}"
    try:
        parsed = parse_response(text)
    except ParseError as e:
        assert "reasoning" in str(e) or "cut off" in str(e)
        return
    assert _paths(parsed) == ["config.yaml"]
    assert _added(parsed) == ["  port: 9090"]


@pytest.mark.parametrize("draft", sorted(DRAFTS))
def test_reasoning_whose_opening_the_template_wrote_ends_at_its_closing_tag(draft):
    """DeepSeek-R1's chat template opens the reasoning itself: the answer starts inside
    it and only ``</think>`` shows where it ends."""
    text = (f"The user wants port 9090. Maybe also:\n\n{DRAFTS[draft]}\nNo, only the port.\n"
            f"</think>\n\nMove the server to port 9090.\n\n{REAL}")
    parsed = parse_response(text)
    assert _paths(parsed) == ["config.yaml"] and _added(parsed) == ["  port: 9090"]
    assert parsed.explanation == "Move the server to port 9090."


def test_a_closing_tag_after_a_closed_reasoning_block_is_prose():
    text = f"<think>\nplan\n</think>\n\nMove the port.\n\n{REAL}\n</think>\nDone.\n"
    parsed = parse_response(text)
    assert _added(parsed) == ["  port: 9090"] and "</think>" in parsed.explanation


def test_a_closing_tag_a_change_writes_is_content_not_the_end_of_reasoning():
    text = ("Add the template.\n\n*** Begin Patch\n*** Add File: t.txt\n+<think>\n+</think>\n"
            "*** End Patch\n\n" + REAL)
    parsed = parse_response(text)
    assert _paths(parsed) == ["t.txt", "config.yaml"]


@pytest.mark.parametrize("only", ["unified-diff", "search-replace", "apply-patch"])
def test_reasoning_is_skipped_whichever_format_is_forced(only):
    drafts = {"unified-diff": DRAFTS["unified-diff"], "search-replace": DRAFTS["search-replace"],
              "apply-patch": DRAFTS["apply-patch"]}
    real = {"unified-diff": DIFF.format(path="config.yaml", old="  port: 8080", new="  port: 9090"),
            "search-replace": REAL,
            "apply-patch": "*** Begin Patch\n*** Update File: config.yaml\n@@\n-  port: 8080\n"
                           "+  port: 9090\n*** End Patch\n"}
    text = f"<think>\n{drafts[only]}\n</think>\n\nMove the port.\n\n{real[only]}"
    parsed = parse_response(text, only)
    assert _added(parsed) == ["  port: 9090"]
