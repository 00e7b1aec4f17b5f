"""Cut-off answers are refused in every format (BEHAVIOR.md §2), complete ones never.

A response cut inside the opening of a later block (its path line, its opening fence or
tag, a tag's attributes, an ``*** Update File:`` line) must not apply the blocks before
it: they may be only part of the answer.  A closing sentence, an end token or trailing
prose without a final newline is a complete answer.  Pure parser tests: nothing here
needs a repository.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.answer.response import read_response

CASES = Path(__file__).parent.parent / "cases"

# format -> (--format option, one complete block editing PATH)
BLOCKS = {
    "file-changes": (None, '<FILE_CHANGES>\n<FILE_PATCH file_path="PATH">\n@@\n-x\n+y\n'
                           "</FILE_PATCH>\n</FILE_CHANGES>\n"),
    "hashline": ("hashline", '<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path="PATH">\n'
                             "2#33:    y\n</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n"),
    "apply-patch": (None, "*** Begin Patch\n*** Update File: PATH\n@@\n-x\n+y\n*** End Patch\n"),
    "codechange": (None, '<CodeChange filePath="PATH">\n<<<<<<< SEARCH\nx\n=======\ny\n'
                         ">>>>>>> REPLACE\n</CodeChange>\n"),
    "search-replace": (None, "PATH\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"),
    "unified-diff": (None, "```diff\n--- a/PATH\n+++ b/PATH\n@@ -1 +1 @@\n-x\n+y\n```\n"),
    "whole": ("whole", "PATH\n```python\ny\n```\n"),
}


def _answer(fmt: str) -> tuple[str, int, str | None]:
    """A two-block answer of ``fmt``, where its second block starts, its --format."""
    only, block = BLOCKS[fmt]
    first = "Fix both files.\n\n" + block.replace("PATH", "src/one.py") + "\n"
    return first + block.replace("PATH", "src/two.py"), len(first), only


def _paths(text: str, only: str | None) -> list[str]:
    return [op.path for op in parse_response(text, only).ops]


@pytest.mark.parametrize("fmt", sorted(BLOCKS))
def test_a_cut_anywhere_in_a_later_block_refuses_the_answer(fmt):
    text, second, only = _answer(fmt)
    assert _paths(text, only) == ["src/one.py", "src/two.py"]
    assert _paths(text[:second], only) == ["src/one.py"]  # cut between blocks: whole ones
    closing = text.rstrip("\n").rfind("\n") + 1  # the second block's last line
    for cut in range(second + 1, len(text)):
        if cut > closing and not text[cut:].strip(" `~\n"):
            continue  # cut in a closing fence line that already closes (```` ``` ````)
        with pytest.raises(ApplyError) as e:
            parse_response(text[:cut], only)
        assert "cut off" in str(e.value), f"cut at {cut}: {text[second:cut]!r}: {e.value}"


def test_the_aider_answer_cut_at_the_next_path_or_fence_is_refused():
    # the reproduction: a cut at 'runner.' (runner.py's path line) applied cli.py's blocks
    text = (CASES / "sr-aider-answer-two-files" / "response.md").read_text()
    start = text.rindex("runner.py\n")
    for cut in range(start + 1, text.index("<<<<<<< SEARCH", start)):
        with pytest.raises(ApplyError, match="cut off"):
            parse_response(text[:cut])


TAILS_COMPLETE = ["", "\n", "\nDone.", "\nThat's all.", "\nHappy coding! 🚀", "\nDone!",
                  "<|im_end|>", "\n<|endoftext|>", "\nAll set.\n"]


@pytest.mark.parametrize("fmt", sorted(BLOCKS))
@pytest.mark.parametrize("tail", TAILS_COMPLETE)
def test_a_complete_answer_is_never_refused(fmt, tail):
    text, _second, only = _answer(fmt)
    read = read_response((text + tail).encode())  # drops end tokens, as the command does
    assert _paths(read.text, only) == ["src/one.py", "src/two.py"]


@pytest.mark.parametrize("fmt", ["file-changes", "apply-patch", "codechange", "unified-diff"])
def test_prose_without_punctuation_ends_an_answer_of_marked_blocks(fmt):
    # no prose line can begin these formats' blocks: only their markers can
    text, _second, only = _answer(fmt)
    assert _paths(text + "\nDone, as asked", only) == ["src/one.py", "src/two.py"]


@pytest.mark.parametrize("fmt", ["search-replace", "whole"])
@pytest.mark.parametrize("tail", ["\nNow the same in", "\nTry it with:", "\nrunner.",
                                  "\nsrc/", "\nREADME.", "\nFile: app.",
                                  "\nTry it with:\n\n    "])
def test_aider_prose_cut_mid_word_is_refused(fmt, tail):
    # after aider's blocks a line of prose may name the next file: the rule is what the
    # last line ends with (a sentence's punctuation or a symbol ends it)
    text, _second, only = _answer(fmt)
    with pytest.raises(ApplyError, match="cut off"):
        parse_response(text + tail, only)


@pytest.mark.parametrize("fmt", ["search-replace", "whole"])
@pytest.mark.parametrize("tail", ["\nLet me know if that helps", "\nThese changes make it faster",
                                  "\nHope this helps, happy coding"])
def test_aider_closing_remark_without_its_full_stop_is_complete(fmt, tail):
    # several words, no file name in sight, not ending on a word that leads into a block
    text, _second, only = _answer(fmt)
    assert _paths(text + tail, only) == ["src/one.py", "src/two.py"]


# ---------------------------------------------------------------- property: path lines

names = st.from_regex(r"[a-z]{1,6}(/[a-z_]{1,6})?\.[a-z]{1,3}", fullmatch=True)
PATH_LINES = ["{}", "File: {}", "**File:** `{}`", "Now the same in `{}`:", "{} (helper module)",
              "- `{}`"]


@settings(max_examples=150, deadline=None)
@given(names, st.sampled_from(PATH_LINES), st.sampled_from(["search-replace", "whole"]),
       st.data())
def test_a_cut_in_the_next_blocks_path_line_is_refused(path, line, fmt, data):
    if fmt == "whole" and ":" in line and "File" not in line:
        line = "{}"  # whole reads no backticked name of a sentence as its file
    only, block = BLOCKS[fmt]
    first = "Fix.\n\n" + block.replace("PATH", "src/one.py") + "\n"
    second = block.replace("PATH\n", line.format(path) + "\n", 1)
    text = first + second
    assert _paths(text, only)[-1] == path
    cut = data.draw(st.integers(len(first) + 1, len(first) + second.index("\n", len(line) + 1)))
    with pytest.raises(ApplyError, match="cut off"):
        parse_response(text[:cut], only)


@pytest.mark.parametrize("fmt", sorted(BLOCKS))
def test_a_bare_opening_fence_after_prose_is_a_cut_but_a_stray_close_is_not(fmt):
    text, second, only = _answer(fmt)
    first = text[:second]
    with pytest.raises(ApplyError, match="cut off"):
        parse_response(first + "And the second file:\n\n```\n", only)
    # a bare fence right after the block (blank lines between at most) may close a fence
    # the model never opened: the answer is whole (docs/DECISIONS.md); after aider's
    # blocks it is the next block's (a diff-fenced block names its file inside)
    if fmt == "search-replace":
        with pytest.raises(ApplyError, match="cut off"):
            parse_response(first + "```\n", only)
    else:
        assert _paths(first + "```\n", only) == ["src/one.py"]


def test_a_finished_chat_answer_is_never_called_cut_off(repo):
    # the JSON says the model stopped on its own: a malformed patch is refused for what
    # it is, not as "cut off" (issue 22: the message names a real signal only)
    import json

    repo.write("a.py", "x = 1\n")
    repo.commit_all("base")
    text = "Fix.\n\n*** Begin Patch\n*** Update File: a.py\n"
    answer = {"model": "m", "choices": [{"finish_reason": "stop",
                                          "message": {"role": "assistant", "content": text}}]}
    r = repo.run(response=json.dumps(answer))
    assert r.returncode == 1 and "cut off" not in r.err, r.err
