"""A whole-file text that is a fragment of the tracked file it would replace (BEHAVIOR.md
§5) is never written as the whole file: the rule as a pure function (fragments.py), and
the planner refusing it in every format that writes a whole file, worded for the model."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.plan.fragments import (MIN_OUTSIDE, OUTSIDE_FACTOR, Fragment, fragment_of,
    fragment_refusal)
from git_aiapply.answer.toolcalls import ToolCall, call_ops
from git_aiapply.formats import parse_response
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan
from plan_base import DictBase, plan


def module(n: int, tag: str = "f") -> list[str]:
    """A Python file of ``n`` small functions (6 lines each, a blank line included)."""
    out = []
    for i in range(n):
        out += [f"def {tag}{i}(a, b):", f"    total = a + b * {i}", f"    if total > {i * 10}:",
                f"        return total - {i}", f"    return total + {i}", ""]
    return out


BIG = module(140)  # 840 lines


# ---- the rule --------------------------------------------------------------------------

def test_a_50_line_snippet_of_an_840_line_file_is_a_fragment():
    snippet = BIG[300:350]
    snippet[3] = "        return total - 999"  # with an edit or two
    snippet.insert(10, "    log(total)")
    frag = fragment_of(BIG, snippet)
    assert frag == Fragment(301, 350, 840, frag.shown, frag.lines)
    assert frag.lines - frag.shown == 2


def test_a_snippet_shown_at_another_depth_is_one_too():
    assert fragment_of(BIG, ["    " + l for l in BIG[60:90]]) is not None


def test_the_top_or_the_end_of_the_file_is_one_too():
    assert fragment_of(BIG, BIG[:40]) is not None
    assert fragment_of(BIG, BIG[-40:]) is not None


def test_a_stray_match_far_off_does_not_stretch_it():
    snippet = ["import os", ""] + BIG[400:440]
    frag = fragment_of(BIG, snippet)
    assert frag is not None and frag.first == 401


def test_a_rewrite_that_keeps_most_of_the_file_is_no_fragment():
    new = BIG[:500] + BIG[560:]  # a few functions removed
    assert fragment_of(BIG, new) is None
    assert fragment_of(BIG, BIG) is None


def test_a_short_new_content_of_other_lines_is_no_fragment():
    assert fragment_of(BIG, ["from .impl import *", "", "__all__ = ['run']"]) is None
    assert fragment_of(BIG, [f"print({i})" for i in range(40)]) is None


def test_a_rewrite_of_a_short_file_is_no_fragment():
    short = module(2)  # 12 lines: a third of it is no fragment of anything worth keeping
    assert fragment_of(short, short[:6]) is None


def test_common_lines_scattered_over_the_file_are_no_run():
    # a new short content whose lines all occur in the file, but far apart
    new = [BIG[k] for k in range(0, 840, 97) if BIG[k].strip()]
    assert fragment_of(BIG, new) is None


def test_mostly_new_lines_are_no_fragment():
    snippet = BIG[300:312] + [f"    step_{i}()" for i in range(20)]
    assert fragment_of(BIG, snippet) is None


def test_lines_moved_to_another_file_are_not_lost():
    kept = BIG[:240]  # the first 40 functions stay, the rest moves away
    assert fragment_of(BIG, kept) is not None
    assert fragment_of(BIG, kept, moved={l.strip() for l in BIG[240:]}) is None


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 60), st.integers(0, 400), st.integers(5, 60), st.integers(0, 3))
def test_any_short_run_with_a_few_edits_is_a_fragment(n, start, length, edits):
    """Property: a run of a file's lines, a third of it or less, with up to 3 lines
    changed, is a fragment naming a stretch around the run; the whole file never is."""
    old = module(n)
    start %= len(old)
    run = old[start:start + length]
    solid = [l for l in old if l.strip()]
    shown = [l for l in run if l.strip()]
    for k in range(min(edits, len(run))):
        run[k * 2 % len(run)] = f"    changed_{k}()"
    frag = fragment_of(old, run)
    outside = len(solid) - len(shown)
    if len(shown) >= 10 and outside >= max(MIN_OUTSIDE, OUTSIDE_FACTOR * len(shown)):
        assert frag is not None
        assert start + 1 <= frag.first and frag.last <= start + length
    assert fragment_of(old, old) is None


def test_the_refusal_names_the_file_and_the_lines():
    reason, hint = fragment_refusal("big.py", Fragment(301, 350, 840, 46, 48))
    assert "big.py" in reason and "lines 301-350 of the file's 840 lines" in reason
    assert "all but 2" in reason and "delete" in reason
    assert "edit of them" in hint and "whole file" in hint


# ---- the planner: every format that writes a whole file --------------------------------

SNIPPET = "\n".join(BIG[300:350]).replace("return total - 50", "return total - 5000")
FILES = {"big.py": (0o100644, ("\n".join(BIG) + "\n").encode())}


WRITES = {
    "file-changes": f'<FILE_CHANGES>\n<FILE_NEW file_path="big.py">\n{SNIPPET}\n</FILE_NEW>\n</FILE_CHANGES>\n',
    "apply-patch add": "*** Begin Patch\n*** Add File: big.py\n"
                       + "\n".join("+" + l for l in SNIPPET.split("\n")) + "\n*** End Patch\n",
    "whole": "big.py\n```python\n" + SNIPPET + "\n```\n",
}
CALLS = {
    "text editor create": ToolCall(1, "tool_use", "str_replace_based_edit_tool",
                                   {"command": "create", "path": "big.py", "file_text": SNIPPET}),
    "Write": ToolCall(1, "tool_use", "Write", {"file_path": "big.py", "content": SNIPPET}),
}


def _refusal(make) -> str:
    with pytest.raises(ApplyError) as e:
        make()
    return str(e.value)


def _planned(ops):
    return make_plan(ops, DictBase(FILES), lambda p: normalize_path(p, worktree="/w"))


# a fragment whose first and last lines bound one block of the file is merged as that block
# (plan/lazy_merge.py, BEHAVIOR.md §5), never written as the whole file
MERGED = ("\n".join(BIG).replace("return total - 50", "return total - 5000", 1) + "\n").encode()


@pytest.mark.parametrize("kind", list(WRITES))
def test_a_fragment_over_a_tracked_file_is_merged_as_its_block(kind):
    ops = parse_response("Fix it.\n\n" + WRITES[kind], only="whole" if kind == "whole" else None).ops
    assert _planned(ops).final["big.py"].data == MERGED


@pytest.mark.parametrize("kind", list(CALLS))
def test_a_fragment_written_by_a_tool_call_is_merged_as_its_block(kind):
    ops = call_ops(CALLS[kind])
    assert _planned(ops).final["big.py"].data == MERGED


def test_a_fragment_that_bounds_no_single_block_is_refused():
    twice = {"big.py": (0o100644, ("\n".join(BIG + BIG) + "\n").encode())}
    ops = parse_response("Fix it.\n\n" + WRITES["file-changes"]).ops
    text = _refusal(lambda: make_plan(ops, DictBase(twice),
                                      lambda p: normalize_path(p, worktree="/w")))
    assert "big.py" in text and "cannot be merged into the file exactly" in text


def test_the_whole_file_rewritten_applies():
    new = "\n".join(BIG).replace("return total - 50", "return total - 5000") + "\n"
    p = plan(f'<FILE_CHANGES>\n<FILE_NEW file_path="big.py">\n{new}</FILE_NEW>\n</FILE_CHANGES>\n',
             FILES)
    assert p.final["big.py"].data.rstrip() == new.encode().rstrip()


def test_a_fragment_as_a_new_file_is_written():
    p = plan(f'<FILE_CHANGES>\n<FILE_NEW file_path="part.py">\n{SNIPPET}\n</FILE_NEW>\n'
             '</FILE_CHANGES>\n', FILES)
    assert p.final["part.py"].data == (SNIPPET + "\n").encode()


def test_a_module_split_in_two_applies():
    head, tail = "\n".join(BIG[:240]) + "\n", "\n".join(BIG[240:]) + "\n"
    p = plan('<FILE_CHANGES>\n<FILE_NEW file_path="big.py">\n' + head + '</FILE_NEW>\n'
             '<FILE_NEW file_path="rest.py">\n' + tail + '</FILE_NEW>\n</FILE_CHANGES>\n', FILES)
    assert p.final["big.py"].data.rstrip() == head.encode().rstrip()
