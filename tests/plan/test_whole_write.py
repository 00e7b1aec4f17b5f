"""Two whole-file writes of one path in one response (BEHAVIOR.md §3: the same edit given
twice is one edit; different edits of the same lines are refused), in every format that
writes a whole file, as plain planner calls."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ApplyError
from plan_base import plan

FC = "<FILE_CHANGES>\n<FILE_NEW file_path=\"a.py\">\n{}\n</FILE_NEW>\n</FILE_CHANGES>\n"
AP = "*** Begin Patch\n*** Add File: a.py\n+{}\n*** End Patch\n"


def _twice(kind: str, first: str, second: str) -> str:
    block = FC if kind == "fc" else AP
    return "Write it.\n\n" + block.format(first) + "\nAgain:\n\n" + block.format(second)


@pytest.mark.parametrize("kind", ["fc", "ap", "mixed"])
@pytest.mark.parametrize("tracked", [True, False])
def test_the_same_whole_content_twice_is_written_once(kind, tracked):
    text = _twice("fc" if kind != "ap" else "ap", "x = 1", "x = 1")
    if kind == "mixed":
        text = "Write it.\n\n" + FC.format("x = 1") + "\n" + AP.format("x = 1")
    files = {"a.py": (0o100644, b"old\n")} if tracked else {}
    p = plan(text, files)
    assert p.final["a.py"].data == b"x = 1\n"


@pytest.mark.parametrize("kind", ["fc", "ap"])
@pytest.mark.parametrize("tracked", [True, False])
def test_two_different_whole_contents_are_refused(kind, tracked):
    files = {"a.py": (0o100644, b"old\n")} if tracked else {}
    with pytest.raises(ApplyError, match="two different whole contents for a.py"):
        plan(_twice(kind, "x = 1", "x = 2"), files)


def test_a_whole_content_after_a_patch_of_the_first_is_still_applied_in_order():
    text = ("Write, patch, write.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"a.py\">\nx = 1\n"
            "</FILE_NEW>\n<FILE_PATCH file_path=\"a.py\">\n@@\n-x = 1\n+x = 2\n</FILE_PATCH>\n"
            "<FILE_NEW file_path=\"a.py\">\nx = 3\n</FILE_NEW>\n</FILE_CHANGES>\n")
    assert plan(text, {}).final["a.py"].data == b"x = 3\n"


@pytest.mark.parametrize("second", [["X", "Y"], ["X", "Y", "Z"]])
def test_an_insertion_restated_and_extended_at_one_gap_is_refused(second):
    # context above the gap only: applied together, X would be inserted twice
    # one directive (sections that do not fit together may apply in turn, as a
    # conversation's later turns: docs/DECISIONS.md)
    hunks = "".join("@@\n b\n" + "".join(f"+{t}\n" for t in added) for added in (["X"], second))
    text = ("Add X, then X and Y.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"f.txt\">\n" + hunks
            + "</FILE_PATCH>\n</FILE_CHANGES>\n")
    with pytest.raises(ApplyError, match="overlap"):
        plan(text, {"f.txt": (0o100644, b"a\nb\nc\n")})


def test_aider_blocks_restating_and_extending_an_insertion_apply_in_turn_as_aider():
    # aider applies its blocks one after another: the second SEARCH finds b again
    block = "f.txt\n```\n<<<<<<< SEARCH\nb\n=======\n{}\n>>>>>>> REPLACE\n```\n"
    text = "Add X.\n\n" + block.format("b\nX") + "\nAnd Y too:\n\n" + block.format("b\nX\nY")
    assert plan(text, {"f.txt": (0o100644, b"a\nb\nc\n")}).final["f.txt"].data == \
        b"a\nb\nX\nY\nX\nc\n"


def test_two_unrelated_insertions_at_one_gap_keep_their_order():
    block = "f.txt\n```\n<<<<<<< SEARCH\nb\n=======\n{}\n>>>>>>> REPLACE\n```\n"
    text = "Add.\n\n" + block.format("b\nX") + "\nThen:\n\n" + block.format("b\nY")
    assert plan(text, {"f.txt": (0o100644, b"a\nb\nc\n")}).final["f.txt"].data == b"a\nb\nX\nY\nc\n"


def test_a_numbered_hunk_given_twice_takes_both_copies_of_its_lines():
    # the same block at lines 4 and 37; the diff, given twice, says line 4 both times: the
    # copies take as many places as the old side has fits (BEHAVIOR.md §3), as `git apply`
    # applies one hunk twice; a third copy is a restatement
    block = "begin\nx = 1\nend\n"
    before = "a\nb\nc\n" + block + "".join(f"l{n}\n" for n in range(30)) + block
    diff = ("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -4,3 +4,3 @@\n begin\n-x = 1\n+x = 2\n end\n```\n")
    for copies in (2, 3):
        text = "Set x to 2.\n\n" + "\nThe same in the second block:\n\n".join([diff] * copies)
        after = plan(text, {"f.txt": (0o100644, before.encode())}).final["f.txt"].data.decode()
        assert after == before.replace("x = 1", "x = 2"), copies


def test_a_stated_line_far_from_both_fits_still_chooses_the_clearly_nearer():
    # fits at lines 4 and 207, the hunk says line 30: git apply takes line 4
    block = "begin\nx = 1\nend\n"
    before = "a\nb\nc\n" + block + "".join(f"l{n}\n" for n in range(200)) + block
    diff = ("```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -30,3 +30,3 @@\n begin\n-x = 1\n+x = 2\n end\n```\n")
    after = plan("Set x.\n\n" + diff, {"f.txt": (0o100644, before.encode())}).final["f.txt"].data
    assert after.decode().index("x = 2") < after.decode().index("l0")



def test_a_create_only_write_over_a_file_is_refused_unless_the_response_retries_it():
    from git_aiapply.ops import NewFile, ReplaceText, Source
    from git_aiapply.paths import normalize_path
    from git_aiapply.plan.plan import make_plan
    from plan_base import DictBase

    src = Source("tool-call", "create m.py")
    create = NewFile("m.py", "x = 2\n", src, create_only="str_replace_editor")
    files = {"m.py": (0o100644, b"x = 1\n")}
    norm = lambda p: normalize_path(p, worktree="/w")  # noqa: E731
    with pytest.raises(ApplyError) as e:
        make_plan([create], DictBase(files), norm)
    assert "str_replace_editor" in str(e.value) and "Cannot overwrite files" in str(e.value)
    retried = make_plan([create, ReplaceText("/w/m.py", "x = 1", "x = 3", src)],
                        DictBase(files), norm)
    assert retried.final["m.py"].data == b"x = 3\n"
    assert make_plan([create], DictBase({}), norm).final["m.py"].data == b"x = 2\n"
