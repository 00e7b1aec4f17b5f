"""A prose line that opens with a reasoning tag and goes on, on that line, as a sentence
ABOUT the tag ("<think> blocks come from DeepSeek-R1 style models.") is prose, not
reasoning never closed (G14; docs/DECISIONS.md "Reasoning").  Decided narrowly: only when
the tag is never closed and the next word names the tag itself (blocks, tags, sections,
elements, markers, tokens); reasoning that is cut off is still refused."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ParseError
from git_aiapply.formats import parse_response

REAL = ("src/app.py\n```python\n<<<<<<< SEARCH\n    print('hi')\n=======\n"
        "    print('hello')\n>>>>>>> REPLACE\n```\n")


@pytest.mark.parametrize("line", [
    "<think> blocks come from DeepSeek-R1 style models.",
    "<thinking> tags are what Claude's extended thinking used to print.",
    "<think> sections should be dropped before parsing.",
    "<THINK> markers, too, are stripped.",
])
def test_a_line_about_the_tag_is_prose(line):
    parsed = parse_response("Your parser should drop reasoning first:\n" + line + "\n\n" + REAL)
    assert len(parsed.ops) == 1 and parsed.ops[0].path == "src/app.py"
    assert line in parsed.explanation


@pytest.mark.parametrize("text", [
    "<think> The user wants hello.\n\n" + REAL,  # reasoning that is cut off
    "<think>\nblocks come from the user\n" + REAL,  # the tag alone on its line
    "<think> blocking is the issue here\n" + REAL,  # not the tag's name
])
def test_reasoning_never_closed_is_still_refused(text):
    with pytest.raises(ParseError) as e:
        parse_response(text)
    assert "cut off" in str(e.value)


def test_a_closed_reasoning_block_is_still_skipped_whatever_its_first_words():
    text = "<think> blocks of code I might write:\n" + REAL.replace("hello", "draft") + \
        "</think>\n" + REAL
    parsed = parse_response(text)
    assert len(parsed.ops) == 1 and "draft" not in str(parsed.ops[0])
