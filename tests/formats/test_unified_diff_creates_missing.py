"""A unified diff whose '---' and '+++' lines name the same path and whose hunks hold only
added lines creates that path when it is missing, as aider's udiff coder does; it never
replaces or rewrites a file that exists, and any context or removed line keeps the usual
"no such file" refusal (BEHAVIOR.md §5)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from plan_base import plan

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


def test_a_header_past_line_one_names_an_existing_file_not_a_new_one():
    # '@@ -12,0' adds after line 12 of a file that has lines: on a missing (misspelled)
    # path it is refused, never a new file holding a fragment
    with pytest.raises(ApplyError, match="no such file"):
        plan(_diff("a/utils.py", "b/utils.py", "+x = 1\n+y = 2\n", "@@ -12,0 +13,2 @@"), M)


def test_a_created_file_named_like_a_tracked_one_elsewhere_is_refused(tmp_path):
    # the same rule as a whole file's (whole_write.namesake_refusal): a diff that creates
    # util.py while src/util.py is tracked most likely meant that file
    import subprocess
    import sys
    from pathlib import Path

    repo = tmp_path / "r"
    run = lambda *a, **k: subprocess.run(a, cwd=repo, capture_output=True, text=True, **k)
    repo.mkdir()
    run("git", "init", "-q")
    (repo / "src").mkdir()
    (repo / "src" / "util.py").write_text("def once(x):\n    return x\n")
    run("git", "add", ".")
    run("git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    (repo / "r.md").write_text(_diff("util.py", "util.py", "+def twice(x):\n+    return 2 * x\n"))
    ai_apply = Path(sys.executable).with_name("git-ai-apply")
    r = run(str(ai_apply), "r.md", env={**__import__("os").environ, "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})
    assert r.returncode == 1 and "src/util.py" in r.stderr
    assert not (repo / "util.py").exists()
    assert run("git", "status", "--porcelain").stdout.strip() == "?? r.md"


def test_a_later_section_of_the_created_file_applies_to_what_it_made():
    first = _diff("util.py", "util.py", "+def f():\n+    return 1\n", "@@ -0,0 +1,2 @@")
    second = ("\nAnd a second helper:\n\n```diff\n--- util.py\n+++ util.py\n@@ -1,2 +1,4 @@\n"
              " def f():\n     return 1\n+def g():\n+    return 2\n```\n")
    p = plan(first + second, M)
    assert p.final["util.py"].data == b"def f():\n    return 1\ndef g():\n    return 2\n"
