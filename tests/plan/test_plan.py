"""The planner as a plain function over a dict-backed base (no repository)."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.plan.plan import MODE_EXEC, MODE_FILE, MODE_LINK, FileState
from plan_base import fc, plan


def test_directives_apply_in_order_rename_then_patch():
    p = plan(fc('<FILE_RENAME from_path="a" to_path="b/c" />',
                '<FILE_PATCH file_path="b/c">\n@@\n-x\n+y\n</FILE_PATCH>'),
             {"a": (MODE_EXEC, b"x\n")})
    assert p.final == {"a": None, "b/c": FileState(MODE_EXEC, b"y\n")}
    assert p.renames == [("a", "b/c")]
    assert [(c.action, c.path, c.old_path) for c in p.changes] == [("rename", "b/c", "a")]


def test_new_then_delete_is_nothing():
    p = plan(fc('<FILE_NEW file_path="t">\nx\n</FILE_NEW>', '<FILE_DELETE file_path="t" />'), {"a": (MODE_FILE, b"")})
    assert p.is_noop()
    assert p.changes == []


def test_new_file_replaces_tracked_and_keeps_mode():
    p = plan(fc('<FILE_NEW file_path="run.sh">\necho\n</FILE_NEW>'), {"run.sh": (MODE_EXEC, b"old\n")})
    assert p.final["run.sh"] == FileState(MODE_EXEC, b"echo\n")


def test_every_problem_is_reported():
    with pytest.raises(ApplyError) as e:
        plan(fc('<FILE_DELETE file_path="missing" />', '<FILE_PATCH file_path="a">\n@@\n-nope\n+x\n</FILE_PATCH>'),
             {"a": (MODE_FILE, b"x\n")})
    reasons = [p.reason for p in e.value.problems]
    assert len(reasons) == 2 and "no such file" in reasons[0] and "could not find" in reasons[1]


@pytest.mark.parametrize("directive,files,untracked,why", [
    ('<FILE_NEW file_path="u.txt">\nx\n</FILE_NEW>', {}, {"u.txt"}, "not tracked"),
    ('<FILE_PATCH file_path="l">\n@@\n-x\n+y\n</FILE_PATCH>', {"l": (MODE_LINK, b"target")}, None, "symbolic link"),
    ('<FILE_NEW file_path="l/x">\nx\n</FILE_NEW>', {"l": (MODE_LINK, b"dir")}, None, "symbolic link"),
    ('<FILE_NEW file_path="f/x">\nx\n</FILE_NEW>', {"f": (MODE_FILE, b"")}, None, "is a file"),
    ('<FILE_NEW file_path="d">\nx\n</FILE_NEW>', {"d/x": (MODE_FILE, b"")}, None, "folder"),
    ('<FILE_DELETE file_path="d" />', {"d/x": (MODE_FILE, b"")}, None, "folder"),
    ('<FILE_PATCH file_path="sub">\n@@\n-x\n+y\n</FILE_PATCH>', {"sub": (0o160000, b"")}, None, "submodule"),
    ('<FILE_NEW file_path="sub/x">\nx\n</FILE_NEW>', {"sub": (0o160000, b"")}, None, "submodule"),
    ('<FILE_PATCH file_path="bin">\n@@\n-x\n+y\n</FILE_PATCH>', {"bin": (MODE_FILE, b"x\n\0")}, None, "binary"),
    ('<FILE_RENAME from_path="a" to_path="d" />', {"a": (MODE_FILE, b""), "d/x": (MODE_FILE, b"")}, None, "folder"),
    ('<FILE_RENAME from_path="a" to_path="u" />', {"a": (MODE_FILE, b"")}, {"u"}, "not tracked"),
    ('<FILE_RENAME from_path="a" to_path="a" />', {"a": (MODE_FILE, b"")}, None, "same path"),
    ('<FILE_PATCH file_path="../x">\n@@\n-x\n+y\n</FILE_PATCH>', {}, None, ".."),
])
def test_refusals(directive, files, untracked, why):
    with pytest.raises(ApplyError) as e:
        plan(fc(directive), files, untracked)
    assert why in str(e.value)


def test_delete_then_new_under_same_name_as_folder():
    # a file replaced by a folder of the same name within one response
    p = plan(fc('<FILE_DELETE file_path="x" />', '<FILE_NEW file_path="x/y">\nz\n</FILE_NEW>'), {"x": (MODE_FILE, b"")})
    assert p.final == {"x": None, "x/y": FileState(MODE_FILE, b"z\n")}


def test_stats_per_file():
    p = plan(fc('<FILE_PATCH file_path="a">\n@@\n a\n-b\n-c\n+d\n</FILE_PATCH>', '<FILE_NEW file_path="n">\n1\n2\n</FILE_NEW>'),
             {"a": (MODE_FILE, b"a\nb\nc\n")})
    got = {c.path: (c.action, c.added, c.removed) for c in p.changes}
    assert got == {"a": ("update", 1, 2), "n": ("add", 2, 0)}


# ---- a unified-diff deletion removes exactly the file's content (BEHAVIOR.md §5) -------

def ud_delete(path: str, removed: list[str]) -> str:
    body = "".join(f"-{l}\n" for l in removed)
    return f"```diff\n--- a/{path}\n+++ /dev/null\n@@ -1,{len(removed)} +0,0 @@\n{body}```\n"


BIG = "".join(f"line {i}\n" for i in range(1, 201)).encode()


def test_deletion_of_the_whole_content():
    p = plan(ud_delete("big.txt", [f"line {i}" for i in range(1, 201)]), {"big.txt": (MODE_FILE, BIG)})
    assert p.final == {"big.txt": None}
    # whitespace the model lost is tolerated as when locating an edit
    p = plan(ud_delete("t.py", ["def f():", "return 1"]), {"t.py": (MODE_FILE, b"def f():\n    return 1\n")})
    assert p.final == {"t.py": None}


@pytest.mark.parametrize("removed,why", [
    (["line 1", "line 2"], "cover only the first 2 of the file's 200 lines"),
    (["scratch", "todo"], "line 1 of the file is 'line 1' where the diff has 'scratch'"),
    ([f"line {i}" for i in range(1, 201)] + ["line 201"], "has 201 '-' lines but the file has only 200"),
    ([f"line {i}" for i in range(1, 100)] + ["other"] + [f"line {i}" for i in range(101, 201)],
     "line 100 of the file is 'line 100' where the diff has 'other'"),
    ([], "the diff lists none of the file's 200 lines"),
])
def test_deletion_that_is_not_the_file_is_refused(removed, why):
    with pytest.raises(ApplyError) as e:
        plan(ud_delete("big.txt", removed) if removed else
             "```diff\ndiff --git a/big.txt b/big.txt\ndeleted file mode 100644\n--- a/big.txt\n"
             "+++ /dev/null\n```\n", {"big.txt": (MODE_FILE, BIG)})
    assert why in str(e.value) and "big.txt" in str(e.value)
    assert (1, "line 1") in e.value.problems[0].nearby


def test_deletion_by_name_is_not_checked_and_empty_file_diff_deletes():
    assert plan(fc('<FILE_DELETE file_path="big.txt" />'), {"big.txt": (MODE_FILE, BIG)}).final == {"big.txt": None}
    p = plan("```diff\ndiff --git a/e b/e\ndeleted file mode 100644\n--- a/e\n+++ /dev/null\n```\n",
             {"e": (MODE_FILE, b"")})
    assert p.final == {"e": None}


# ---- an empty SEARCH fills an empty file ------------------------------------------------

def cc_create(path: str, text: str) -> str:
    return f'<CodeChange filePath="{path}">\n<<<<<<< SEARCH\n=======\n{text}>>>>>>> REPLACE\n</CodeChange>\n'


def test_empty_search_fills_an_existing_empty_file_and_keeps_its_mode():
    p = plan(cc_create("pkg/__init__.py", "x = 1\n"), {"pkg/__init__.py": (MODE_EXEC, b"")})
    assert p.final == {"pkg/__init__.py": FileState(MODE_EXEC, b"x = 1\n")}
    assert [(c.action, c.added) for c in p.changes] == [("update", 1)]


@pytest.mark.parametrize("content", [b"x\n", b"\n", b" ", b"\xef\xbb\xbf"])
def test_empty_search_on_a_file_with_content_is_refused(content):
    with pytest.raises(ApplyError) as e:
        plan(cc_create("a.py", "y = 2\n"), {"a.py": (MODE_FILE, content)})
    assert "already exists" in str(e.value)


# ---- folders made and emptied by the response itself (the planner's folder count) -------

def test_leading_folder_checks_see_the_responses_own_files():
    with pytest.raises(ApplyError) as e:
        plan(fc('<FILE_NEW file_path="n">\nx\n</FILE_NEW>', '<FILE_NEW file_path="n/y">\nx\n</FILE_NEW>'), {})
    assert "n is a file, so it cannot hold n/y" in str(e.value)
    with pytest.raises(ApplyError) as e:
        plan(fc('<FILE_NEW file_path="m/y">\nx\n</FILE_NEW>', '<FILE_NEW file_path="m">\nx\n</FILE_NEW>'), {})
    assert "cannot create m: it is a folder" in str(e.value)


def test_a_folder_emptied_by_the_response_is_no_folder():
    p = plan(fc('<FILE_NEW file_path="m/a/y">\nx\n</FILE_NEW>', '<FILE_DELETE file_path="m/a/y" />',
                '<FILE_NEW file_path="m">\nx\n</FILE_NEW>'), {})
    assert p.final["m"] == FileState(MODE_FILE, b"x\n")
    p = plan(fc('<FILE_NEW file_path="k/y">\nx\n</FILE_NEW>', '<FILE_RENAME from_path="k/y" to_path="z" />',
                '<FILE_NEW file_path="k">\nx\n</FILE_NEW>'), {})
    assert p.final == {"z": FileState(MODE_FILE, b"x\n"), "k": FileState(MODE_FILE, b"x\n"), "k/y": None}


def test_many_new_files_in_few_folders():
    n = 3000
    p = plan(fc(*[f'<FILE_NEW file_path="d{i % 7}/s{i % 3}/f{i}.txt">\n{i}\n</FILE_NEW>' for i in range(n)]), {})
    assert len(p.final) == n and p.final["d5/s2/f2000.txt"] == FileState(MODE_FILE, b"2000\n")
