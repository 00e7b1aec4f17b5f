"""The planner's checks of deletions and renames (plan/plan_moves.py, BEHAVIOR.md §5) as
plain functions over a dict-backed base: a diff's deletion lists exactly the file's
content (a binary file's is not checked), a rename moves a file as the running diff found
it (as `git apply` does), and a rename's source and target must be files."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.ops import DeleteFile, Source
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_FILE, FileState, make_plan
from plan_base import DictBase, fc, plan

FILES = {"a": (MODE_FILE, b"A\n"), "d/x": (MODE_FILE, b"x\n"), "sub": (0o160000, b"")}
DIFF = Source("unified-diff", "diff f", block=1)


def diff(*sections: str) -> str:
    return "```diff\n" + "".join(sections) + "```\n"


def rename(a: str, b: str) -> str:
    return f"diff --git a/{a} b/{b}\nrename from {a}\nrename to {b}\n"


NEW_N = "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+N\n"
PATCH_A = "diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -1 +1 @@\n-A\n+A2\n"


def deleted(files: dict, old_lines: list[str]):
    return make_plan([DeleteFile("f", DIFF, old_lines=old_lines)], DictBase(files),
                     lambda p: normalize_path(p, worktree="/w"))


def refusal(text: str) -> str:
    with pytest.raises(ApplyError) as e:
        plan(text, dict(FILES))
    (p,) = e.value.problems
    return p.reason


def test_a_binary_files_deletion_is_not_checked_line_by_line():
    p = deleted({"f": (MODE_FILE, b"\x00\x01binary\n")}, ["anything"])
    assert p.final == {"f": None}


def test_a_deletion_that_is_not_the_file_shows_how_the_file_begins():
    content = "".join(f"line {i}\n" for i in range(1, 21)).encode()
    with pytest.raises(ApplyError) as e:
        deleted({"f": (MODE_FILE, content)}, ["line 1", "line 2"])
    (p,) = e.value.problems
    assert p.file == "f" and p.directive == "diff f"
    assert p.nearby_label == "the file begins"
    assert p.nearby == [(i, f"line {i}") for i in range(1, 9)]  # its first eight lines
    assert "deletes by name" in p.hint


def test_a_rename_moves_the_file_as_the_diff_found_it():
    # the diff patches a, then renames a: b is a as the diff found it, and a, which the
    # diff wrote, stays (as `git apply` leaves them)
    p = plan(diff(PATCH_A, rename("a", "b")), dict(FILES))
    assert p.final["a"] == FileState(MODE_FILE, b"A2\n")
    assert p.final["b"] == FileState(MODE_FILE, b"A\n")
    # a file the diff itself creates was not there when the diff began
    assert refusal(diff(NEW_N, rename("n", "m"))) == (
        "cannot rename n: no such file (this diff creates it, and a rename reads the file "
        "as the diff found it, as `git apply`)")
    # directives apply in order: there, the new file is what is renamed
    p = plan(fc('<FILE_NEW file_path="n">\nN\n</FILE_NEW>', '<FILE_RENAME from_path="n" to_path="m" />'),
             dict(FILES))
    assert p.final == {"n": None, "m": FileState(MODE_FILE, b"N\n")}


def test_a_rename_needs_a_file_at_its_source_and_no_submodule_at_its_target():
    assert refusal(diff(rename("d", "e"))) == "cannot rename d: it is a folder"
    assert refusal(diff(rename("sub", "s2"))) == "cannot rename sub: it is a submodule"
    assert refusal(diff(rename("zz", "y"))) == "cannot rename zz: no such file"
    assert refusal(diff(rename("a", "sub"))) == "cannot rename a to sub: sub is a submodule"


_LINE = st.sampled_from(["x = 1", "  y()", "", "}", "# note"])


@settings(max_examples=80, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=8), st.data())
def test_a_deletion_is_accepted_exactly_when_it_lists_the_files_lines(lines, data):
    """Property: a diff's deletion listing every line of the file deletes it; one that
    leaves out a line, adds one, or changes one to text the file does not hold there is
    refused and nothing is planned."""
    files = {"f": (MODE_FILE, "".join(t + "\n" for t in lines).encode())}
    assert deleted(files, list(lines)).final == {"f": None}
    k = data.draw(st.integers(0, len(lines) - 1))
    how = data.draw(st.sampled_from(["drop", "add", "change"]))
    wrong = list(lines)
    if how == "drop":
        del wrong[k]
    elif how == "add":
        wrong.insert(k, "extra()")
    else:
        wrong[k] = "other()"
    with pytest.raises(ApplyError) as e:
        deleted(files, wrong)
    assert "removed lines are not the file's content" in e.value.problems[0].reason


# --------------------------------------------------------------------------- the net change

_RENAME = '<FILE_RENAME from_path="{}" to_path="{}" />'
_DELETE = '<FILE_DELETE file_path="{}" />'
_NEW = '<FILE_NEW file_path="{}">\nnew {}\n</FILE_NEW>'


@pytest.mark.parametrize("steps, renames, changes", [
    # moved away and back: no rename of a file onto itself (an update of a to what it
    # was, which the report leaves out, pipeline.net_changes)
    ([_RENAME.format("a", "c"), _RENAME.format("c", "a")], [], [("a", "update", None)]),
    # a chain is one rename
    ([_RENAME.format("a", "b"), _RENAME.format("b", "c")], [("a", "c")], [("c", "rename", "a")]),
    # moved away and a new file made where it was: a rename and a new a
    ([_RENAME.format("a", "c"), _NEW.format("a", "a")], [("a", "c")],
     [("c", "rename", "a"), ("a", "update", None)]),
    # deleted and made again: an update
    ([_DELETE.format("a"), _NEW.format("a", "a")], [], [("a", "update", None)]),
    # moved, then its new name deleted: the file is deleted
    ([_RENAME.format("a", "b"), _DELETE.format("b")], [], [("a", "delete", None)]),
])
def test_renames_and_changes_are_the_net_change(steps, renames, changes):
    p = plan(fc(*steps), dict(FILES))
    assert p.renames == renames
    assert [(c.path, c.action, c.old_path) for c in p.changes] == changes


_STEP = st.sampled_from([_RENAME.format(a, b) for a in "abc" for b in "abc" if a != b]
                        + [_DELETE.format(x) for x in "abc"] + [_NEW.format(x, x) for x in "abc"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=4))
def test_no_step_sequence_reports_a_rename_the_net_change_does_not_hold(steps):
    """Property: whatever renames, deletions and new files a response chains, a rename
    reported goes from a path the base holds to one the result holds, never onto itself,
    and every change's action is what the path's first and last states say."""
    try:
        p = plan(fc(*steps), {"a": (MODE_FILE, b"A\n"), "b": (MODE_FILE, b"B\n")})
    except ApplyError:
        return  # refused (a file in the way, no such file): nothing reported
    for old, new in p.renames:
        assert old != new and p.base.get(old) is not None and p.final.get(new) is not None
    for c in p.changes:
        before, after = p.base.get(c.path), p.final.get(c.path)
        assert c.old_path != c.path
        assert (before, after) != (None, None), c
        if c.action == "rename":
            assert (c.old_path, c.path) in p.renames
        else:
            assert c.action == ("add" if before is None else
                                "delete" if after is None else "update"), c
