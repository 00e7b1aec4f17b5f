"""The unified-diff format: git diff output and GNU unified diffs."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from git_aiapply.errors import ParseError
from git_aiapply.formats import parse_response, unified_diff
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import DeleteFile, EditFile, NewFile, RenameFile, SetMode
from git_aiapply.text import FileText
from conftest import blocks_of


def summary(blocks):
    """Every block's operations as plain tuples, easy to compare."""
    out = []
    for b in blocks:
        for op in b.ops:
            if isinstance(op, NewFile):
                out.append(("new", op.path, op.text, op.mode and oct(op.mode)))
                assert op.replace is False
            elif isinstance(op, DeleteFile):
                out.append(("delete", op.path))
            elif isinstance(op, RenameFile):
                out.append(("rename", op.old_path, op.new_path))
            elif isinstance(op, SetMode):
                out.append(("mode", op.path, oct(op.mode)))
            elif isinstance(op, EditFile):
                out.append(("edit", op.path, [(h.number, h.line_hint, h.lines, h.old_no_newline,
                                               h.new_no_newline) for h in op.hunks]))
            else:  # pragma: no cover - the format makes no other operation
                out.append(("other", op))
    return out


def hunk(number, hint, *lines, old_nonl=False, new_nonl=False):
    return (number, hint, [(ln[0], ln[1:]) for ln in lines], old_nonl, new_nonl)


SIMPLE_HUNK = "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
SIMPLE = hunk(1, 1, " a", "-b", "+B", " c")

CASES = {
    "git diff edit": (
        "diff --git a/src/x.py b/src/x.py\nindex 1..2 100644\n--- a/src/x.py\n+++ b/src/x.py\n"
        + SIMPLE_HUNK, [("edit", "src/x.py", [SIMPLE])]),
    "plain ---/+++ with a/ b/ prefixes": (
        "--- a/src/x.py\n+++ b/src/x.py\n" + SIMPLE_HUNK, [("edit", "src/x.py", [SIMPLE])]),
    "no prefixes": ("--- src/x.py\n+++ src/x.py\n" + SIMPLE_HUNK, [("edit", "src/x.py", [SIMPLE])]),
    "only one side prefixed: kept": (
        "--- a/x.py\n+++ a/x.py\n" + SIMPLE_HUNK, [("edit", "a/x.py", [SIMPLE])]),
    "GNU timestamps after a tab": (
        "--- x.py\t2024-01-02 10:11:12.000000000 +0100\n+++ x.py\t2024-01-02 10:12:00.000000000 +0100\n"
        + SIMPLE_HUNK, [("edit", "x.py", [SIMPLE])]),
    "timestamps after spaces": (
        "--- a/x.py 2024-01-02 10:11:12 +0000\n+++ b/x.py 2024-01-02 10:12:00 +0000\n" + SIMPLE_HUNK,
        [("edit", "x.py", [SIMPLE])]),
    "svn revision after a tab": (
        "--- x.py\t(revision 12)\n+++ x.py\t(working copy)\n" + SIMPLE_HUNK,
        [("edit", "x.py", [SIMPLE])]),
    "backup name on the old side": (
        "--- x.py.orig\n+++ x.py\n" + SIMPLE_HUNK, [("edit", "x.py", [SIMPLE])]),
    "GNU diff command line before the headers": (
        "diff -u a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n" + SIMPLE_HUNK, [("edit", "x.py", [SIMPLE])]),
    "quoted names with spaces and octal escapes": (
        'diff --git "a/d\\303\\251j\\303\\240 vu.txt" "b/d\\303\\251j\\303\\240 vu.txt"\n'
        '--- "a/d\\303\\251j\\303\\240 vu.txt"\n+++ "b/d\\303\\251j\\303\\240 vu.txt"\n' + SIMPLE_HUNK,
        [("edit", "déjà vu.txt", [SIMPLE])]),
    "unquoted names with spaces": (
        "diff --git a/my dir/f x.txt b/my dir/f x.txt\n--- a/my dir/f x.txt\t\n+++ b/my dir/f x.txt\t\n"
        + SIMPLE_HUNK, [("edit", "my dir/f x.txt", [SIMPLE])]),
    "mnemonic prefixes": (
        "diff --git i/x.py w/x.py\n--- i/x.py\n+++ w/x.py\n" + SIMPLE_HUNK,
        [("edit", "x.py", [SIMPLE])]),
    "diff --git --no-prefix": (
        "diff --git src/x.py src/x.py\n--- src/x.py\n+++ src/x.py\n" + SIMPLE_HUNK,
        [("edit", "src/x.py", [SIMPLE])]),
    "section heading after @@ and several hunks": (
        "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ def f():\n-a\n+A\n b\n@@ -10,2 +10,3 @@ class C:\n k\n+l\n m\n",
        [("edit", "x", [hunk(1, 1, "-a", "+A", " b"), hunk(2, 10, " k", "+l", " m")])]),
    "counts too small: the body decides": (
        "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n-b\n+B\n c\n", [("edit", "x", [SIMPLE])]),
    "counts too large: the body decides": (
        "--- a/x\n+++ b/x\n@@ -1,30 +1,31 @@\n a\n-b\n+B\n c\n\nDone.\n", [("edit", "x", [SIMPLE])]),
    "counts missing (single line)": (
        "--- a/x\n+++ b/x\n@@ -7 +7 @@\n-b\n+B\n", [("edit", "x", [hunk(1, 7, "-b", "+B")])]),
    "closing @@ missing": (
        "--- a/x\n+++ b/x\n@@ -1,3 +1,3\n a\n-b\n+B\n c\n", [("edit", "x", [SIMPLE])]),
    "numberless @@": (
        "--- a/x\n+++ b/x\n@@\n a\n-b\n+B\n c\n", [("edit", "x", [hunk(1, None, " a", "-b", "+B", " c")])]),
    "old start 0: start of file": (
        "--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+top\n", [("edit", "x", [hunk(1, 0, "+top")])]),
    "removed '--' line and added '++' line while counts run": (
        "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n--- old rule\n+++ new rule\n",
        [("edit", "x", [hunk(1, 1, " a", "--- old rule", "+++ new rule")])]),
    "bare empty line inside a hunk is empty context": (
        "--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@\n a\n\n-b\n+B\n c\n",
        [("edit", "x", [hunk(1, 1, " a", " ", "-b", "+B", " c")])]),
    "trailing blank lines end the hunk": (
        "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\n\nThat is all.\n",
        [("edit", "x", [SIMPLE])]),
    "trailing blank context kept when the counts announce it": (
        "```diff\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n\n```\n",
        [("edit", "x", [hunk(1, 1, "-a", "+A", " b", " ")])]),
    "no newline at end of the old side": (
        "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
        [("edit", "x", [hunk(1, 1, " a", "-b", "+b", old_nonl=True)])]),
    "no newline at end of the new side": (
        "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n",
        [("edit", "x", [hunk(1, 1, " a", "-b", "+b", new_nonl=True)])]),
    "no newline on a context last line: both sides": (
        "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n\\ No newline at end of file\n",
        [("edit", "x", [hunk(1, 1, "-a", "+A", " b", old_nonl=True, new_nonl=True)])]),
    "new file": (
        "--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,3 @@\n+one\n+\n+three\n",
        [("new", "n.py", "one\n\nthree\n", None)]),
    "new file, blank lines without '+'": (
        "--- /dev/null\n+++ n.py\n@@ -0,0 +1,3 @@\n+one\n\n+three\n", [("new", "n.py", "one\n\nthree\n", None)]),
    "new file without final newline": (
        "diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n"
        "\\ No newline at end of file\n", [("new", "n", "x", None)]),
    "new empty file": (
        "diff --git a/e b/e\nnew file mode 100644\nindex 0000000..e69de29\n", [("new", "e", "", None)]),
    "new executable file": (
        "diff --git a/run.sh b/run.sh\nnew file mode 100755\n--- /dev/null\n+++ b/run.sh\n@@ -0,0 +1 @@\n"
        "+echo hi\n", [("new", "run.sh", "echo hi\n", "0o100755")]),
    "deleted file": (
        "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\nindex 1..0\n--- a/old.txt\n+++ /dev/null\n"
        "@@ -1,2 +0,0 @@\n-a\n-b\n", [("delete", "old.txt")]),
    "deleted file, plain diff": ("--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n", [("delete", "old.txt")]),
    "deleted empty file": ("diff --git a/e b/e\ndeleted file mode 100644\nindex e69de29..0000000\n",
                           [("delete", "e")]),
    "mode change only": (
        "diff --git a/s.sh b/s.sh\nold mode 100644\nnew mode 100755\n", [("mode", "s.sh", "0o100755")]),
    "mode change with an edit": (
        "diff --git a/s.sh b/s.sh\nold mode 100755\nnew mode 100644\n--- a/s.sh\n+++ b/s.sh\n" + SIMPLE_HUNK,
        [("edit", "s.sh", [SIMPLE]), ("mode", "s.sh", "0o100644")]),
    "pure rename": (
        "diff --git a/old name.py b/new name.py\nsimilarity index 100%\nrename from old name.py\n"
        "rename to new name.py\n", [("rename", "old name.py", "new name.py")]),
    "rename with an edit: the edit names the new path": (
        "diff --git a/a.py b/lib/b.py\nsimilarity index 80%\nrename from a.py\nrename to lib/b.py\n"
        "index 1..2 100644\n--- a/a.py\n+++ b/lib/b.py\n" + SIMPLE_HUNK,
        [("rename", "a.py", "lib/b.py"), ("edit", "lib/b.py", [SIMPLE])]),
    "several files in one diff": (
        "--- a/x\n+++ b/x\n" + SIMPLE_HUNK + "--- a/y\n+++ b/y\n" + SIMPLE_HUNK,
        [("edit", "x", [SIMPLE]), ("edit", "y", [SIMPLE])]),
    "blank line between files: still one diff": (
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n" + SIMPLE_HUNK + "\n\ndiff --git a/y b/y\n--- a/y\n+++ b/y\n"
        + SIMPLE_HUNK, [("edit", "x", [SIMPLE]), ("edit", "y", [SIMPLE])]),
    "format-patch signature after the last hunk": (
        "--- a/x\n+++ b/x\n" + SIMPLE_HUNK + "-- \n2.43.0\n", [("edit", "x", [SIMPLE])]),
    "subversion Index lines belong to the diff": (
        "Index: x\n=====\n--- x\t(revision 3)\n+++ x\t(working copy)\n" + SIMPLE_HUNK
        + "Index: y\n=====\n--- y\t(revision 3)\n+++ y\t(working copy)\n" + SIMPLE_HUNK,
        [("edit", "x", [SIMPLE]), ("edit", "y", [SIMPLE])]),
    "numberless hunk: '---'/'+++' lines without '@@' after them are hunk lines": (
        "--- a/x\n+++ b/x\n@@\n a\n--- old\n+++ new\n z\n",
        [("edit", "x", [hunk(1, None, " a", "--- old", "+++ new", " z")])]),
    "fenced": ("Here:\n\n```diff\n--- a/x\n+++ b/x\n" + SIMPLE_HUNK + "```\n\nDone.\n",
               [("edit", "x", [SIMPLE])]),
    "tilde fence, CRLF already folded": ("~~~patch\n--- a/x\n+++ b/x\n" + SIMPLE_HUNK + "~~~\n",
                                         [("edit", "x", [SIMPLE])]),
    "a line that is not a hunk line ends the hunk": (
        "--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n a\n-b\n+B\n c\nThat was it.\n", [("edit", "x", [SIMPLE])]),
}


@pytest.mark.parametrize("text,expected", list(CASES.values()), ids=list(CASES))
def test_parses(text, expected):
    assert summary(blocks_of(unified_diff, text)) == expected


NOT_A_DIFF = {
    "markdown rule and list": "Intro\n---\n- one\n+ two\n",
    "---/+++ without @@": "--- a/x\n+++ b/x\nsome prose\n",
    "diff --git mentioned inside a line": "Run `diff --git a/x b/x` to see.\n",
    "Binary files line outside a git section": "Binary files a/x and b/x differ\n",
}


@pytest.mark.parametrize("text", list(NOT_A_DIFF.values()), ids=list(NOT_A_DIFF))
def test_prose_is_not_a_diff(text):
    assert blocks_of(unified_diff, text) == []


def test_span_covers_headers_to_last_hunk():
    diff = "diff --git a/x b/x\nindex 1..2\n--- a/x\n+++ b/x\n" + SIMPLE_HUNK
    text = "Intro.\n\n" + diff + "\nOutro.\n"
    (block,) = blocks_of(unified_diff, text)
    assert text[block.start:block.end] == diff
    (op,) = block.ops
    assert op.source.format == "unified-diff"
    assert op.source.directive == "diff x"
    assert op.source.line == 3


def test_subversion_span():
    diff = "Index: x\n=====\n--- x\n+++ x\n" + SIMPLE_HUNK
    text = "Intro.\n" + diff + "\nOutro.\n"
    (block,) = blocks_of(unified_diff, text)
    assert text[block.start:block.end] == diff


def test_prose_between_diffs_gives_two_blocks():
    one = "--- a/x\n+++ b/x\n" + SIMPLE_HUNK
    two = "--- a/y\n+++ b/y\n" + SIMPLE_HUNK
    text = one + "\nAnd then:\n\n" + two
    blocks = blocks_of(unified_diff, text)
    assert [text[b.start:b.end] for b in blocks] == [one, two]
    assert [b.ops[0].source.line for b in blocks] == [1, 11]


def test_directive_words():
    text = ("diff --git a/a.py b/b.py\nrename from a.py\nrename to b.py\n--- a/a.py\n+++ b/b.py\n"
            + SIMPLE_HUNK + "--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\n")
    ops = blocks_of(unified_diff, text)[0].ops
    assert [op.source.directive for op in ops] == ["diff a.py => b.py", "diff a.py => b.py", "diff n"]
    assert [op.source.line for op in ops] == [1, 1, 11]


def test_dispatcher_widens_to_fence_and_keeps_prose():
    text = "Fix the typo.\n\n```diff\n--- a/x\n+++ b/x\n" + SIMPLE_HUNK + "```\n\nThat's it.\n"
    parsed = parse_response(text, only="unified-diff")
    assert parsed.explanation == "Fix the typo.\n\nThat's it."
    assert parsed.formats == ["unified-diff"]


REFUSALS = {
    "binary files differ": (
        "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n",
        "binary patches are not supported", 3),
    "GIT binary patch": (
        "diff --git a/i.png b/i.png\nindex 1..2 100644\nGIT binary patch\nliteral 5\nabc\n",
        "binary patches are not supported", 3),
    "copy": ("diff --git a/a b/b\nsimilarity index 100%\ncopy from a\ncopy to b\n", "copies are not supported", 3),
    "combined diff": ("diff --cc x\n--- a/x\n+++ b/x\n@@@ -1,1 -1,1 +1,1 @@@\n- a\n +b\n",
                      "combined diffs", 4),
    "empty hunk": ("```diff\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n```\n", "has no lines", 4),
    "hunk lines after a line that lost its leading space": (
        "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\nb\n+c\n", "does not start with", 5),
    "new file with context lines": (
        "--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n a\n+b\n", "context line", 1),
    "new file with removed lines": (
        "--- /dev/null\n+++ b/n\n@@ -1,1 +1,1 @@\n-a\n+b\n", "removed line", 1),
    "deleted file with added lines": (
        "--- a/d\n+++ /dev/null\n@@ -1,1 +1,1 @@\n-a\n+b\n", "added line", 1),
    "different names without a rename header": (
        "--- a/one.py\n+++ b/two.py\n" + SIMPLE_HUNK, "'+++' line names two.py", 1),
    "git header with nothing else": ("diff --git a/x b/x\nindex 1..2 100644\n", "changes nothing", 1),
    "symlink": ("diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+t\n",
                "symlinks are not supported", 1),
    "submodule": ("diff --git a/m b/m\nnew file mode 160000\nindex 0..1\n--- /dev/null\n+++ b/m\n"
                  "@@ -0,0 +1 @@\n+Subproject commit 1\n", "submodules are not supported", 1),
    "unreadable diff --git names": ("diff --git onlyone\n", "cannot read the two file names", 1),
    "--- not followed by +++ in a git section": (
        "diff --git a/x b/x\n--- a/x\n@@ -1 +1 @@\n-a\n+b\n", "not followed by a '+++ ' line", 2),
    "rename from without rename to": (
        "diff --git a/x b/y\nrename from x\n", "needs both 'rename from' and 'rename to'", 1),
    "both sides /dev/null": ("--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n", "both sides", 1),
}

# The file each refusal concerns (None: no file can be read from the section), so that
# --json's "file" names it (every problem that concerns a file names it).
REFUSAL_FILES = {
    "binary files differ": "i.png", "GIT binary patch": "i.png", "copy": "b",
    "combined diff": "x", "empty hunk": "x",
    "hunk lines after a line that lost its leading space": "x",
    "new file with context lines": "n", "new file with removed lines": "n",
    "deleted file with added lines": "d", "different names without a rename header": "two.py",
    "git header with nothing else": "x", "symlink": "l", "submodule": "m",
    "unreadable diff --git names": None, "--- not followed by +++ in a git section": "x",
    "rename from without rename to": "y", "both sides /dev/null": None,
}


@pytest.mark.parametrize("text,message,line", list(REFUSALS.values()), ids=list(REFUSALS))
def test_refusals(text, message, line):
    with pytest.raises(ParseError) as e:
        blocks_of(unified_diff, text)
    (problem,) = e.value.problems
    assert message in problem.reason
    assert problem.response_line == line
    assert problem.directive and problem.directive.startswith("diff")
    assert problem.file == REFUSAL_FILES[next(k for k, v in REFUSALS.items() if v[0] == text)]


@pytest.mark.parametrize("text,file", [
    ("```diff\n--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n a\n-b\n", "app.py"),
    ("--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B", "app.py"),
    ("diff --git a/old.py b/new.py\nrename from old.py\nrename to new.py\n--- a/old.py\n"
     "+++ b/new.py\n@@ -1,3 +1,3 @@\n a\n-b\n", "new.py"),
    ("--- a/gone.py\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-a\n", "gone.py"),
], ids=["short hunk", "cut mid-line", "rename", "deletion"])
def test_cut_off_refusals_name_the_file(text, file):
    with pytest.raises(ParseError, match="cut off") as e:
        parse_response(text)
    assert [p.file for p in e.value.problems] == [file]


# --- real git diffs: parse them and replay the operations on the old tree -------------

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")


def git(repo, *args) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo), "LC_ALL": "C",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          env=env).stdout.decode("utf-8", "surrogateescape")


def snapshot(repo) -> dict[str, tuple[bytes, int]]:
    """path -> (content, mode) of every file in the worktree."""
    out = {}
    for root, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git"]
        for f in files:
            p = os.path.join(root, f)
            mode = 0o100755 if os.stat(p).st_mode & 0o100 else 0o100644
            out[os.path.relpath(p, repo).replace(os.sep, "/")] = (open(p, "rb").read(), mode)
    return out


def replay(tree: dict[str, tuple[bytes, int]], ops) -> dict[str, tuple[bytes, int]]:
    """Apply parsed operations to an in-memory tree, the way the tool would."""
    tree = dict(tree)
    for op in ops:
        if isinstance(op, NewFile):
            assert op.path not in tree
            tree[op.path] = (op.text.encode(), op.mode or 0o100644)
        elif isinstance(op, DeleteFile):
            del tree[op.path]
        elif isinstance(op, RenameFile):
            tree[op.new_path] = tree.pop(op.old_path)
        elif isinstance(op, SetMode):
            tree[op.path] = (tree[op.path][0], op.mode)
        elif isinstance(op, EditFile):
            data, mode = tree[op.path]
            new, _added, _removed = apply_hunks(FileText.from_bytes(data), op.hunks, path=op.path)
            tree[op.path] = (new.to_bytes(), mode)
    return tree


def numbered(n, fmt="line {}\n"):
    return "".join(fmt.format(i) for i in range(1, n + 1))


# (files before: path -> content or (content, executable)), change to make in the worktree
GIT_SCENARIOS = {
    "edits in two places": (
        {"a.txt": numbered(40)},
        lambda r: (r / "a.txt").write_text(numbered(40).replace("line 3\n", "line three\n")
                                           .replace("line 30\n", "line 30\nline 30b\n"))),
    "rename with edits": (
        {"old/name.py": numbered(30, "value_{} = 1\n")},
        lambda r: (git(r, "mv", "old/name.py", "new name.py"),
                   (r / "new name.py").write_text(numbered(30, "value_{} = 1\n")
                                                  .replace("value_2 = 1", "value_2 = 2")))),
    "mode change": (
        {"run.sh": "echo hi\n"}, lambda r: os.chmod(r / "run.sh", 0o755)),
    "mode change with an edit": (
        {"run.sh": ("echo hi\n", True)},
        lambda r: (os.chmod(r / "run.sh", 0o644), (r / "run.sh").write_text("echo bye\n"))),
    "new and deleted files": (
        {"gone.txt": "bye\nbye\n", "keep.txt": "k\n"},
        lambda r: ((r / "gone.txt").unlink(), (r / "dir").mkdir(),
                   (r / "dir" / "new.txt").write_text("hello\n\nworld\n"),
                   (r / "tool").write_text("#!/bin/sh\n"), os.chmod(r / "tool", 0o755),
                   (r / "empty").write_text(""))),
    "no newline at end of file, old side": (
        {"n.txt": "a\nb"}, lambda r: (r / "n.txt").write_text("a\nc\n")),
    "no newline at end of file, new side": (
        {"n.txt": "a\nb\n"}, lambda r: (r / "n.txt").write_text("a\nb\nc")),
    "no newline at end of file, both sides": (
        {"n.txt": "a\nb\nc"}, lambda r: (r / "n.txt").write_text("A\nb\nc")),
    "new file without final newline": (
        {"k": "k\n"}, lambda r: (r / "nonl.txt").write_text("x\ny")),
    "non-ASCII and spaced names": (
        {"dé jà/vü.txt": numbered(5)},
        lambda r: (r / "dé jà" / "vü.txt").write_text(numbered(5).replace("line 5", "line five"))),
    "lines that look like headers": (
        {"notes.md": "intro\n-- old\n++ old\nend\n"},
        lambda r: (r / "notes.md").write_text("intro\n-- new\n++ new\nend\n")),
    "blank lines in the changes": (
        {"b.py": "def f():\n\n    return 1\n\n\ndef g():\n    pass\n"},
        lambda r: (r / "b.py").write_text("def f():\n\n    return 2\n\n\n\ndef g():\n\n    pass\n")),
}


def make_repo(tmp_path, files):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for path, content in files.items():
        executable = False
        if isinstance(content, tuple):
            content, executable = content
        p = repo / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(content)
        if executable:
            os.chmod(p, 0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "before")
    return repo


@needs_git
@pytest.mark.parametrize("files,change", list(GIT_SCENARIOS.values()), ids=list(GIT_SCENARIOS))
@pytest.mark.parametrize("git_flags", [(), ("-U1",), ("--no-prefix",), ("-c", "core.quotePath=false")],
                         ids=["default", "U1", "no-prefix", "unquoted"])
def test_real_git_diffs_replay(tmp_path, files, change, git_flags):
    repo = make_repo(tmp_path, files)
    before = snapshot(repo)
    change(repo)
    after = snapshot(repo)
    git(repo, "add", "-A")
    if git_flags[:1] == ("-c",):
        diff = git(repo, *git_flags, "diff", "--cached", "-M")
    else:
        diff = git(repo, "diff", "--cached", "-M", *git_flags)
    blocks = blocks_of(unified_diff, "Here is the patch:\n\n```diff\n" + diff + "```\n")
    assert len(blocks) == 1
    assert replay(before, blocks[0].ops) == after


def corrupt_counts(diff: str) -> str:
    """Every '@@ -l,c +l,c @@' header with wrong line numbers and counts."""
    out = []
    for line in diff.split("\n"):
        if line.startswith("@@ "):
            out.append("@@ -3,99 +4,1 @@" + line.split("@@", 2)[2])
        else:
            out.append(line)
    return "\n".join(out)


@needs_git
def test_real_git_diff_with_corrupted_counts(tmp_path):
    original = numbered(60)
    repo = make_repo(tmp_path, {"a.txt": original, "b.txt": "x\ny\nz\n"})
    before = snapshot(repo)
    (repo / "a.txt").write_text(original.replace("line 10\n", "line ten\n")
                                .replace("line 50\n", "line 50\n--- fifty\n"))
    (repo / "b.txt").write_text("x\nY\nz\n")
    after = snapshot(repo)
    git(repo, "add", "-A")
    diff = corrupt_counts(git(repo, "diff", "--cached"))
    assert "@@ -3,99 +4,1 @@" in diff
    # a last hunk short of its counts that ends the response looks cut off (BEHAVIOR §2) ...
    with pytest.raises(ParseError, match="cut off"):
        blocks_of(unified_diff, diff)
    # ... followed by prose, the counts are only hints
    diff += "\nThat is all.\n"
    (block,) = blocks_of(unified_diff, diff)
    assert [op.path for op in block.ops] == ["a.txt", "b.txt"]
    assert replay(before, block.ops) == after


@needs_git
def test_real_git_diff_wrong_line_numbers_only_break_ties(tmp_path):
    # the same three lines twice: the line number picks the second place even when wrong by 3
    text = "a\nb\nc\n" + numbered(10) + "a\nb\nc\n"
    repo = make_repo(tmp_path, {"t.txt": text})
    before = snapshot(repo)
    (repo / "t.txt").write_text("a\nb\nc\n" + numbered(10) + "a\nB\nc\n")
    after = snapshot(repo)
    git(repo, "add", "-A")
    diff = git(repo, "diff", "--cached", "-U1")
    assert "@@ -14,3 +14,3 @@" in diff
    diff = diff.replace("@@ -14,3 +14,3 @@", "@@ -11,3 +11,3 @@")
    (block,) = blocks_of(unified_diff, diff)
    assert block.ops[0].hunks[0].line_hint == 11
    assert replay(before, block.ops) == after


# --- robustness: any text either parses or is refused with a ParseError ----------------

from hypothesis import given, settings, strategies as st  # noqa: E402

_DIFF_LINES = st.sampled_from([
    "diff --git a/x b/x", "diff --git a/x b/y", "diff -u x y", "--- a/x", "+++ b/x", "--- /dev/null",
    "+++ /dev/null", "@@ -1,2 +1,2 @@", "@@ -0,0 +1 @@", "@@", "@@@ -1 -1 +1 @@@", " ctx", "-old",
    "+new", "", "  ", "\\ No newline at end of file", "new file mode 100755", "new mode 100644",
    "deleted file mode 100644", "rename from x", "rename to y", "index 1..2", "```diff", "```",
    "prose", "-- ", "Index: x", "=====", "Binary files a/x and b/x differ", '--- "a/\\303"',
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_DIFF_LINES, max_size=30))
def test_any_text_parses_or_is_refused(lines):
    try:
        blocks = blocks_of(unified_diff, "\n".join(lines))
    except ParseError:
        return
    for b in blocks:
        assert 0 <= b.start < b.end <= len("\n".join(lines))


# Linear time on large and hostile input is measured by bench/linear.py (CPU time at n and
# 4n), never with a stopwatch in a test.
def test_large_input_gives_every_file():
    big = ("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-" + "o" * 50 + "\n+" + "n" * 50 + "\n") * 5000 + ("prose\n" * 25000)
    (block,) = blocks_of(unified_diff, big)
    assert len(block.ops) == 5000


@pytest.mark.parametrize("text", [
    "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to ne",
    "diff --git a/data.txt b/data.txt\ndeleted file mode 1",
    "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 1007",
    "diff --git a/n.py b/n.py\nnew file mode 100644\nind",
], ids=["rename to", "deleted file mode", "new mode", "the line after the headers"])
def test_a_git_header_cut_mid_line_is_cut_off(text):
    # the response stops inside a header line of a section without hunks: a rename to
    # 'ne' (for 'new.py') must never land
    with pytest.raises(ParseError, match="cut off") as e:
        parse_response(text)
    assert e.value.problems[0].response_line == text.count("\n") + 1


def test_a_whole_git_header_at_the_end_is_complete():
    text = "diff --git a/old.py b/new.py\nsimilarity index 100%\nrename from old.py\nrename to new.py\n"
    (op,) = parse_response(text).ops
    assert (op.old_path, op.new_path) == ("old.py", "new.py")
