"""The operations of one git diff grouped, as plain functions (plan/diff_groups.py,
BEHAVIOR.md §5): which diff an operation belongs to, the paths each diff deletes or
renames away (where its own new files may go under them), where renames read their
sources, and no final file under a final file."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.paths import normalize_path
from git_aiapply.plan.diff_groups import diff_key, files_under_files, leaving_paths
from git_aiapply.plan.plan import MODE_FILE, FileState
from plan_base import fc, plan


def _norm(p: str) -> str:
    return normalize_path(p, worktree="/w")


def diff(*sections: str) -> str:
    return "```diff\n" + "".join(sections) + "```\n"


def rename(a: str, b: str) -> str:
    return f"diff --git a/{a} b/{b}\nrename from {a}\nrename to {b}\n"


def delete(path: str, line: str) -> str:
    return (f"diff --git a/{path} b/{path}\ndeleted file mode 100644\n--- a/{path}\n"
            f"+++ /dev/null\n@@ -1 +0,0 @@\n-{line}\n")


def test_the_paths_each_diff_takes_away_and_where_renames_read():
    text = (diff(rename("a", "b"), delete("c", "C")) + "\nThen:\n\n" + diff(rename("b", "d"))
            + "\nAnd:\n\n" + fc('<FILE_RENAME from_path="d" to_path="e" />',
                                '<FILE_DELETE file_path="e" />'))
    ops = parse_response(text).ops
    assert [diff_key(op) for op in ops] == [1, 1, 2, None, None]
    leaving, renamed_away = leaving_paths(ops, _norm)
    assert leaving == {1: {"a", "c"}, 2: {"b"}}  # a directive belongs to no diff
    assert renamed_away == {"a": [(0, 1)], "b": [(2, 2)], "d": [(3, None)]}


def test_a_path_the_normaliser_refuses_is_left_to_its_operation():
    ops = parse_response(diff(rename("../out", "in"), delete("c", "C"))).ops
    leaving, renamed_away = leaving_paths(ops, _norm)
    assert leaving == {1: {"c"}} and renamed_away == {}
    with pytest.raises(ApplyError, match=r"\.\."):
        plan(diff(rename("../out", "in")), {"c": (MODE_FILE, b"C\n")})


def test_a_file_a_diff_keeps_cannot_hold_the_file_it_put_under_it():
    # the diff writes x, so its rename of x reads x as found and keeps it (as git apply):
    # x stays a file, and x/y cannot be under it
    text = diff("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-X\n+X2\n",
                "diff --git a/x/y b/x/y\nnew file mode 100644\n--- /dev/null\n+++ b/x/y\n"
                "@@ -0,0 +1 @@\n+Y\n", rename("x", "w"))
    with pytest.raises(ApplyError) as e:
        plan(text, {"x": (MODE_FILE, b"X\n")})
    (p,) = e.value.problems
    assert p.reason == "cannot create x/y: x is a file" and p.file == "x/y"


def test_files_under_files_names_the_nearest_file_once():
    f = FileState(MODE_FILE, b"")
    final = {"a": f, "a/b": f, "a/b/c": f, "d": None, "d/e": f, "g/h": f}
    assert [(p.file, p.reason) for p in files_under_files(final)] == [
        ("a/b", "cannot create a/b: a is a file"), ("a/b/c", "cannot create a/b/c: a is a file")]
    assert files_under_files({}) == []


_PATHS = st.sampled_from(["a", "b", "a/b", "a/c", "a/b/c", "b/a", "b/a/x", "c/d"])


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(_PATHS, st.booleans(), max_size=8))
def test_a_file_is_refused_exactly_when_a_folder_of_its_path_is_a_final_file(present):
    """Property: every final file with a leading folder that is also a final file (a
    removed path does not count) is named once, under its nearest such folder."""
    final = {p: FileState(MODE_FILE, p.encode()) if there else None for p, there in present.items()}
    want = {}
    for p, st_ in final.items():
        parts = p.split("/")
        above = [("/".join(parts[:i])) for i in range(1, len(parts))]
        files = [q for q in above if final.get(q) is not None]
        if st_ is not None and files:
            want[p] = f"cannot create {p}: {files[0]} is a file"
    assert {p.file: p.reason for p in files_under_files(final)} == want
    assert len(files_under_files(final)) == len(want)
