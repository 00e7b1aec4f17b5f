"""A unified diff whose '---' and '+++' lines name the same path and whose hunks hold only
added lines creates that path when it is missing, as aider's udiff coder does; it never
replaces or rewrites a file that exists, and any context or removed line keeps the usual
"no such file" refusal (BEHAVIOR.md §5)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from test_plan import plan

M = {"m.py": (0o100644, b"def add(a, b):\n    return a + b\n")}


def _diff(old: str, new: str, body: str, header: str = "@@ ... @@") -> str:
    return f"Add the helper file:\n\n```diff\n--- {old}\n+++ {new}\n{header}\n{body}```\n"


@pytest.mark.parametrize("header", ["@@ ... @@", "@@ -0,0 +1,2 @@", "@@ -1,0 +1,2 @@"])
@pytest.mark.parametrize("names", [("util.py", "util.py"), ("a/util.py", "b/util.py")])
def test_all_added_lines_with_the_same_path_on_both_sides_create_the_file(names, header):
    p = plan(_diff(*names, "+def twice(x):\n+    return 2 * x\n", header), M)
    assert p.final["util.py"].data == b"def twice(x):\n    return 2 * x\n"
    assert [c.action for c in p.changes] == ["add"]


@pytest.mark.parametrize("header", ["@@ ... @@", "@@ -0,0 +1 @@"])
def test_an_existing_file_is_never_replaced_by_the_added_lines(header):
    try:
        p = plan(_diff("m.py", "m.py", "+# top\n", header), M)
    except ApplyError:
        return  # refused as a patch of the file: fine, nothing replaced
    assert M["m.py"][1] in p.final["m.py"].data


@pytest.mark.parametrize("body", [" def add(a, b):\n+    x = 1\n", "-old\n+new\n"])
def test_context_or_removed_lines_on_a_missing_path_are_still_refused(body):
    with pytest.raises(ApplyError, match="no such file"):
        plan(_diff("util.py", "util.py", body), M)


def test_different_names_on_the_two_sides_do_not_create():
    with pytest.raises(ApplyError):
        plan(_diff("old_util.py", "util.py", "+x = 1\n"), M)


def test_an_untracked_file_on_disk_is_never_overwritten():
    with pytest.raises(ApplyError, match="not tracked"):
        plan(_diff("util.py", "util.py", "+x = 1\n"), M, untracked={"util.py"})


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.from_regex(r"[a-z0-9 =()+]{0,10}[a-z0-9]", fullmatch=True),
                      min_size=1, max_size=8))
def test_the_created_file_holds_exactly_the_added_lines(lines):
    body = "".join("+" + ln + "\n" for ln in lines)
    p = plan(_diff("new.py", "new.py", body), M)
    assert p.final["new.py"].data == "".join(ln + "\n" for ln in lines).encode()
