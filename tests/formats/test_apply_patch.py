"""The apply-patch parser: operations produced, block spans, tolerances and refusals."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aiapply.errors import ParseError
from git_aiapply.formats import apply_patch, parse_response
from git_aiapply.ops import DeleteFile, EditFile, NewFile, RenameFile
from conftest import blocks_of


# -- helpers ----------------------------------------------------------------------------

def ch(*lines: str, anchors: tuple[str, ...] = (), eof: bool = False, hint: int | None = None):
    """Expected chunk: lines written as tag + text ('-old', '+new', ' ctx')."""
    return (tuple(lines), tuple(anchors), eof, hint)


def summary(op):
    """An operation as a plain tuple, checking the invariants every op of this format has."""
    assert op.source.format == "apply-patch"
    if isinstance(op, NewFile):
        assert op.replace is True and op.mode is None
        return ("add", op.path, op.text)
    if isinstance(op, DeleteFile):
        return ("delete", op.path)
    if isinstance(op, RenameFile):
        return ("rename", op.old_path, op.new_path)
    if isinstance(op, EditFile):
        assert op.ensure_final_newline is True
        chunks = []
        for n, h in enumerate(op.hunks, 1):
            assert h.kind == "chunk" and h.number == n
            chunks.append((tuple(tag + text for tag, text in h.lines), tuple(h.anchors), h.at_eof,
                           h.line_hint))
        return ("update", op.path, chunks)
    raise AssertionError(f"unexpected op {op!r}")


def parse_ops(text: str) -> list[tuple]:
    return [summary(op) for b in blocks_of(apply_patch, text) for op in b.ops]


def refusal(text: str) -> ParseError:
    with pytest.raises(ParseError) as info:
        blocks_of(apply_patch, text)
    return info.value


def patch(*body: str) -> str:
    return "\n".join(["*** Begin Patch", *body, "*** End Patch"]) + "\n"


# -- the conformance responses ------------------------------------------------------------
# Inlined so this file stands alone; test_conformance_texts_in_sync checks them against
# /work/shared/conformance when it is there.

CONFORMANCE = {
    "codex-001_add_file": '*** Begin Patch\n*** Add File: bar.md\n+This is a new file\n*** End Patch\n',
    "codex-002_multiple_operations": '*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch\n',
    "codex-003_multiple_chunks": '*** Begin Patch\n*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n*** End Patch\n',
    "codex-004_move_to_new_directory": '*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content\n*** End Patch\n',
    "codex-005_rejects_empty_patch": '*** Begin Patch\n*** End Patch\n',
    "codex-006_rejects_missing_context": '*** Begin Patch\n*** Update File: modify.txt\n@@\n-missing\n+changed\n*** End Patch\n',
    "codex-007_rejects_missing_file_delete": '*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch\n',
    "codex-008_rejects_empty_update_hunk": '*** Begin Patch\n*** Update File: foo.txt\n*** End Patch\n',
    "codex-009_requires_existing_file_for_update": '*** Begin Patch\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n',
    "codex-010_move_overwrites_existing_destination": '*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+new\n*** End Patch\n',
    "codex-011_add_overwrites_existing_file": '*** Begin Patch\n*** Add File: duplicate.txt\n+new content\n*** End Patch\n',
    "codex-012_delete_directory_fails": '*** Begin Patch\n*** Delete File: dir\n*** End Patch\n',
    "codex-013_rejects_invalid_hunk_header": '*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch\n',
    "codex-014_update_file_appends_trailing_newline": '*** Begin Patch\n*** Update File: no_newline.txt\n@@\n-no newline at end\n+first line\n+second line\n*** End Patch\n',
    "codex-015_failure_after_partial_success_leaves_changes": '*** Begin Patch\n*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n*** End Patch\n',
    "codex-016_pure_addition_update_chunk": '*** Begin Patch\n*** Update File: input.txt\n@@\n+added line 1\n+added line 2\n*** End Patch\n',
    "codex-017_whitespace_padded_hunk_header": '*** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch\n',
    "codex-018_whitespace_padded_patch_markers": ' *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n',
    "codex-019_unicode_simple": '*** Begin Patch\n*** Update File: foo.txt\n@@\n line1\n-naïve café\n+naïve café ✅\n*** End Patch\n',
    "codex-020_delete_file_success": '*** Begin Patch\n*** Delete File: obsolete.txt\n*** End Patch\n',
    "codex-020_whitespace_padded_patch_marker_lines": '*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n',
    "codex-021_update_file_deletion_only": '*** Begin Patch\n*** Update File: lines.txt\n@@\n line1\n-line2\n line3\n*** End Patch\n',
    "codex-022_update_file_end_of_file_marker": '*** Begin Patch\n*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n*** End Patch\n',
    "codex-023_preserves_crlf_line_endings": '*** Begin Patch\n*** Update File: lines.txt\n@@\n-one\n+ONE\n two\n+between\n three\n*** End Patch\n',
    "codex-024_preserves_mixed_line_endings": '*** Begin Patch\n*** Update File: lines.txt\n@@\n one\n two\n-three\n+THREE\n four\n*** End Patch\n',
    "apply-patch-anchors-example": 'Both `search` methods now raise `NotImplementedError`, so a caller that forgets\nto override them fails loudly instead of getting `None`.\n\n```\n*** Begin Patch\n*** Update File: pygorithm/searching/binary_search.py\n@@ class BaseClass\n@@     def search():\n-        pass\n+        raise NotImplementedError()\n@@ class Subclass  \n@@     def search():\n-        pass\n+        raise NotImplementedError()\n*** End Patch\n```\n',
    "apply-patch-example": '*** Begin Patch\n*** Add File: hello.txt\n+Hello world\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def greet():\n-print("Hi")\n+print("Hello, world!")\n*** Delete File: obsolete.txt\n*** End Patch\n',
}

# Cases whose response parses; some are refused later (missing file, folder, bad context,
# all-or-nothing), which is not the parser's matter.
CONFORMANCE_OPS = {
    "codex-001_add_file": [("add", "bar.md", "This is a new file\n")],
    "codex-002_multiple_operations": [
        ("add", "nested/new.txt", "created\n"),
        ("delete", "delete.txt"),
        ("update", "modify.txt", [ch("-line2", "+changed")]),
    ],
    "codex-003_multiple_chunks": [
        ("update", "multi.txt", [ch("-line2", "+changed2"), ch("-line4", "+changed4")]),
    ],
    "codex-004_move_to_new_directory": [
        ("update", "old/name.txt", [ch("-old content", "+new content")]),
        ("rename", "old/name.txt", "renamed/dir/name.txt"),
    ],
    "codex-006_rejects_missing_context": [("update", "modify.txt", [ch("-missing", "+changed")])],
    "codex-007_rejects_missing_file_delete": [("delete", "missing.txt")],
    "codex-009_requires_existing_file_for_update": [("update", "missing.txt", [ch("-old", "+new")])],
    "codex-010_move_overwrites_existing_destination": [
        ("update", "old/name.txt", [ch("-from", "+new")]),
        ("rename", "old/name.txt", "renamed/dir/name.txt"),
    ],
    "codex-011_add_overwrites_existing_file": [("add", "duplicate.txt", "new content\n")],
    "codex-012_delete_directory_fails": [("delete", "dir")],
    "codex-014_update_file_appends_trailing_newline": [
        ("update", "no_newline.txt", [ch("-no newline at end", "+first line", "+second line")]),
    ],
    "codex-015_failure_after_partial_success_leaves_changes": [
        ("add", "created.txt", "hello\n"),
        ("update", "missing.txt", [ch("-old", "+new")]),
    ],
    "codex-016_pure_addition_update_chunk": [
        ("update", "input.txt", [ch("+added line 1", "+added line 2")]),
    ],
    "codex-017_whitespace_padded_hunk_header": [("update", "foo.txt", [ch("-old", "+new")])],
    "codex-018_whitespace_padded_patch_markers": [("update", "file.txt", [ch("-one", "+two")])],
    "codex-019_unicode_simple": [
        ("update", "foo.txt", [ch(" line1", "-naïve café", "+naïve café ✅")]),
    ],
    "codex-020_delete_file_success": [("delete", "obsolete.txt")],
    "codex-020_whitespace_padded_patch_marker_lines": [("update", "file.txt", [ch("-one", "+two")])],
    "codex-021_update_file_deletion_only": [
        ("update", "lines.txt", [ch(" line1", "-line2", " line3")]),
    ],
    "codex-022_update_file_end_of_file_marker": [
        ("update", "tail.txt", [ch(" first", "-second", "+second updated", eof=True)]),
    ],
    "codex-023_preserves_crlf_line_endings": [
        ("update", "lines.txt", [ch("-one", "+ONE", " two", "+between", " three")]),
    ],
    "codex-024_preserves_mixed_line_endings": [
        ("update", "lines.txt", [ch(" one", " two", "-three", "+THREE", " four")]),
    ],
    "apply-patch-anchors-example": [
        ("update", "pygorithm/searching/binary_search.py", [
            ch("-        pass", "+        raise NotImplementedError()",
               anchors=("class BaseClass", "    def search():")),
            ch("-        pass", "+        raise NotImplementedError()",
               anchors=("class Subclass", "    def search():")),
        ]),
    ],
    "apply-patch-example": [
        ("add", "hello.txt", "Hello world\n"),
        ("update", "src/app.py", [ch('-print("Hi")', '+print("Hello, world!")', anchors=("def greet():",))]),
        ("rename", "src/app.py", "src/main.py"),
        ("delete", "obsolete.txt"),
    ],
}

# Cases refused by the parser itself: (case, words the message must hold, response line).
CONFORMANCE_REFUSED = {
    "codex-005_rejects_empty_patch": (["empty patch"], 1),
    "codex-008_rejects_empty_update_hunk": (["empty update", "foo.txt"], 2),
    "codex-013_rejects_invalid_hunk_header": (["invalid header", "Frobnicate File: foo"], 2),
}


def test_every_conformance_case_has_an_expectation():
    assert set(CONFORMANCE) == set(CONFORMANCE_OPS) | set(CONFORMANCE_REFUSED)
    assert not set(CONFORMANCE_OPS) & set(CONFORMANCE_REFUSED)


@pytest.mark.parametrize("case", sorted(CONFORMANCE_OPS))
def test_conformance_ops(case):
    assert parse_ops(CONFORMANCE[case]) == CONFORMANCE_OPS[case]


@pytest.mark.parametrize("case", sorted(CONFORMANCE_REFUSED))
def test_conformance_refusals(case):
    words, line = CONFORMANCE_REFUSED[case]
    err = refusal(CONFORMANCE[case])
    for w in words:
        assert w in str(err)
    assert err.problems[0].response_line == line
    assert err.kind == "parse"


_SHARED = Path("/work/shared/conformance")


@pytest.mark.skipif(not _SHARED.is_dir(), reason="shared conformance folder not present")
@pytest.mark.parametrize("case", sorted(CONFORMANCE))
def test_conformance_texts_in_sync(case):
    suite = "seed-examples" if case.startswith("apply-patch") else "peer-codex"
    [response] = (_SHARED / suite / case).glob("response.*")
    assert response.read_text(encoding="utf-8").replace("\r\n", "\n") == CONFORMANCE[case]


# -- tolerances ---------------------------------------------------------------------------

EDIT_AB = [("update", "a.txt", [ch("-a", "+b")])]

TOLERATED = [
    # padded markers
    ("padded begin", " *** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch\n", EDIT_AB),
    ("padded end", "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n*** End Patch   \n", EDIT_AB),
    ("tab padded end", "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+b\n\t*** End Patch\n", EDIT_AB),
    ("padded update header", patch("  *** Update File: a.txt", "@@", "-a", "+b"), EDIT_AB),
    ("padded add header", patch("   *** Add File: n.txt  ", "+x"), [("add", "n.txt", "x\n")]),
    ("padded delete header", patch("\t*** Delete File: d.txt"), [("delete", "d.txt")]),
    ("padded move", patch("*** Update File: a.txt", "  *** Move to: b.txt ", "@@", "-a", "+b"),
     EDIT_AB + [("rename", "a.txt", "b.txt")]),
    # inside a chunk a line is read by its first character, as in Codex: an indented
    # marker is a context line (BEHAVIOR §3), a tab-indented one still a marker
    ("indented end of file is context", patch("*** Update File: a.txt", "@@", "-a", "+b", "  *** End of File"),
     [("update", "a.txt", [ch("-a", "+b", "  *** End of File")])]),
    ("indented header after a chunk is context",
     patch("*** Update File: a.txt", "@@", "-a", "+b", " *** Delete File: c"),
     [("update", "a.txt", [ch("-a", "+b", " *** Delete File: c")])]),
    ("tab-padded header after a chunk", patch("*** Update File: a.txt", "@@", "-a", "+b", "\t*** Delete File: c"),
     EDIT_AB + [("delete", "c")]),
    # paths padded with spaces
    ("padded paths", patch("*** Update File:    a.txt   ", "*** Move to:   b.txt  ", "@@", "-a", "+b"),
     EDIT_AB + [("rename", "a.txt", "b.txt")]),
    # header keywords: any case, colon forgotten
    ("lower-case headers", "*** begin patch\n*** update file: a.txt\n@@\n-a\n+b\n*** end patch\n", EDIT_AB),
    ("header without colon", patch("*** Update File a.txt", "@@", "-a", "+b"), EDIT_AB),
    ("header without space after colon", patch("*** Update File:a.txt", "@@", "-a", "+b"), EDIT_AB),
    # chunks
    ("first chunk without @@", patch("*** Update File: a.txt", " ctx", "-a", "+b"),
     [("update", "a.txt", [ch(" ctx", "-a", "+b")])]),
    ("first chunk without @@ then more",
     patch("*** Update File: a.txt", "-a", "+b", "@@ def f():", "-c", "+d"),
     [("update", "a.txt", [ch("-a", "+b"), ch("-c", "+d", anchors=("def f():",))])]),
    ("bare empty line is empty context", patch("*** Update File: a.txt", "@@", " x", "", "-a", "+b"),
     [("update", "a.txt", [ch(" x", " ", "-a", "+b")])]),
    ("whitespace-only line inside is context", patch("*** Update File: a.txt", "@@", " x", "   ", "-a"),
     [("update", "a.txt", [ch(" x", "   ", "-a")])]),
    ("blank lines before next @@ ignored",
     patch("*** Update File: a.txt", "@@", "-a", "+b", "", "  ", "@@", "-c", "+d"),
     [("update", "a.txt", [ch("-a", "+b"), ch("-c", "+d")])]),
    ("blank context line before next @@ ignored",
     patch("*** Update File: a.txt", "@@", "-a", "+b", " ", "@@", "-c", "+d"),
     [("update", "a.txt", [ch("-a", "+b"), ch("-c", "+d")])]),
    ("blank lines before next header ignored",
     patch("*** Update File: a.txt", "@@", "-a", "+b", "", "", "*** Delete File: c"),
     EDIT_AB + [("delete", "c")]),
    ("blank lines before end ignored", patch("*** Update File: a.txt", "@@", "-a", "+b", "", ""), EDIT_AB),
    ("blank lines before End of File ignored",
     patch("*** Update File: a.txt", "@@", "-a", "+b", "", "*** End of File"),
     [("update", "a.txt", [ch("-a", "+b", eof=True)])]),
    ("added empty lines kept at the end", patch("*** Update File: a.txt", "@@", "-a", "+b", "+", "+"),
     [("update", "a.txt", [ch("-a", "+b", "+", "+")])]),
    ("blank lines between header and first @@",
     patch("*** Update File: a.txt", "", "@@", "-a", "+b"), EDIT_AB),
    ("blank lines between sections", patch("", "*** Delete File: x", "", "", "*** Delete File: y", ""),
     [("delete", "x"), ("delete", "y")]),
    ("context line that looks like a comment marker",
     patch("*** Update File: a.c", "@@", " *** NOTE ***", "-a", "+b"),
     [("update", "a.c", [ch(" *** NOTE ***", "-a", "+b")])]),
    ("removed and added lines starting with markers",
     patch("*** Update File: a.md", "@@", "--- a/x", "+++ b/x", "-@@ y", "+*** z"),
     [("update", "a.md", [ch("--- a/x", "+++ b/x", "-@@ y", "+*** z")])]),
    # anchors
    ("anchor", patch("*** Update File: a.py", "@@ def f():", "-a", "+b"),
     [("update", "a.py", [ch("-a", "+b", anchors=("def f():",))])]),
    ("anchor keeps indentation, drops trailing spaces", patch("*** Update File: a.py", "@@     def f():  ", "-a"),
     [("update", "a.py", [ch("-a", anchors=("    def f():",))])]),
    ("anchor without space after @@", patch("*** Update File: a.py", "@@class A", "-a"),
     [("update", "a.py", [ch("-a", anchors=("class A",))])]),
    ("nested anchors", patch("*** Update File: a.py", "@@ class A", "@@   def f():", "@@     if x:", "-a", "+b"),
     [("update", "a.py", [ch("-a", "+b", anchors=("class A", "  def f():", "    if x:"))])]),
    ("nested anchors with a blank line between",
     patch("*** Update File: a.py", "@@ class A", "", "@@ def f():", "-a"),
     [("update", "a.py", [ch("-a", anchors=("class A", "def f():"))])]),
    ("bare @@ among nested anchors adds nothing",
     patch("*** Update File: a.py", "@@", "@@ class A", "@@", "-a"),
     [("update", "a.py", [ch("-a", anchors=("class A",))])]),
    ("whitespace-only anchor is no anchor", patch("*** Update File: a.py", "@@   ", "-a"),
     [("update", "a.py", [ch("-a")])]),
    ("unified-diff header gives a line hint", patch("*** Update File: a.py", "@@ -12,7 +12,8 @@", "-a"),
     [("update", "a.py", [ch("-a", hint=12)])]),
    ("unified-diff header with section", patch("*** Update File: a.py", "@@ -3 +3 @@ def f():", "-a"),
     [("update", "a.py", [ch("-a", anchors=("def f():",), hint=3)])]),
    # End of File
    ("End of File then another chunk",
     patch("*** Update File: a.txt", "@@", "-a", "*** End of File", "@@ x", "-c"),
     [("update", "a.txt", [ch("-a", eof=True), ch("-c", anchors=("x",))])]),
    ("End of File on a first chunk without @@", patch("*** Update File: a.txt", "-a", "+b", "*** End of File"),
     [("update", "a.txt", [ch("-a", "+b", eof=True)])]),
    ("blank lines after End of File", patch("*** Update File: a.txt", "@@", "-a", "*** End of File", "", ""),
     [("update", "a.txt", [ch("-a", eof=True)])]),
    # Move to
    ("pure rename", patch("*** Update File: a.txt", "*** Move to: b/c.txt"), [("rename", "a.txt", "b/c.txt")]),
    ("Move to after a blank line", patch("*** Update File: a.txt", "", "*** Move to: b.txt", "@@", "-a", "+b"),
     EDIT_AB + [("rename", "a.txt", "b.txt")]),
    # Add File content: exactly its '+' lines
    ("add file verbatim", patch("*** Add File: n.py", "+", "+  x = 1  ", "+", "+\ty"),
     [("add", "n.py", "\n  x = 1  \n\n\ty\n")]),
    ("add file with marker-looking content", patch("*** Add File: n.md", "+*** End Patch", "+@@ x", "+-y"),
     [("add", "n.md", "*** End Patch\n@@ x\n-y\n")]),
    ("empty add file", patch("*** Add File: empty.txt"), [("add", "empty.txt", "")]),
    ("empty add file before another section", patch("*** Add File: e", "*** Delete File: d"),
     [("add", "e", ""), ("delete", "d")]),
    ("blank lines after add file content are not content", patch("*** Add File: n", "+a", "", "  ", "*** Delete File: d"),
     [("add", "n", "a\n"), ("delete", "d")]),
    ("bare empty line between add lines is an empty line", patch("*** Add File: n", "+a", "", "+b"),
     [("add", "n", "a\n\nb\n")]),
    ("add file text is not stripped", patch("*** Add File: n", "+  ", "+a"), [("add", "n", "  \na\n")]),
    # edit first, then the rename
    ("edit then rename order", patch("*** Update File: a", "*** Move to: b", "@@", "-x", "+y"),
     [("update", "a", [ch("-x", "+y")]), ("rename", "a", "b")]),
]


@pytest.mark.parametrize("name,text,expected", TOLERATED, ids=[t[0] for t in TOLERATED])
def test_tolerated(name, text, expected):
    assert parse_ops(text) == expected


# -- block spans: heredoc wrappers, several blocks, prose around ------------------------------

BODY = "*** Begin Patch\n*** Delete File: d\n*** End Patch\n"

SPANS = [
    # (name, text, expected block texts)
    ("plain", BODY, [BODY]),
    ("prose around", "Intro.\n\n" + BODY + "\nOutro.\n", [BODY]),
    ("no final newline", BODY.rstrip("\n"), [BODY.rstrip("\n")]),
    ("heredoc quoted", "apply_patch <<'EOF'\n" + BODY + "EOF\n", ["apply_patch <<'EOF'\n" + BODY + "EOF\n"]),
    ("heredoc bare", "x\napply_patch <<EOF\n" + BODY + "EOF\ny\n", ["apply_patch <<EOF\n" + BODY + "EOF\n"]),
    ("heredoc double-quoted", 'apply_patch <<"EOF"\n' + BODY + "EOF\n", ['apply_patch <<"EOF"\n' + BODY + "EOF\n"]),
    ("heredoc without command", "<<'EOF'\n" + BODY + "EOF\n", ["<<'EOF'\n" + BODY + "EOF\n"]),
    ("heredoc other delimiter", "apply_patch << 'PATCH'\n" + BODY + "PATCH\n",
     ["apply_patch << 'PATCH'\n" + BODY + "PATCH\n"]),
    ("heredoc padded", "  apply_patch <<'EOF'  \n" + BODY + " EOF \n", ["  apply_patch <<'EOF'  \n" + BODY + " EOF \n"]),
    ("heredoc shell prompt", "$ apply_patch <<'EOF'\n" + BODY + "EOF\n", ["$ apply_patch <<'EOF'\n" + BODY + "EOF\n"]),
    ("heredoc closing missing", "apply_patch <<'EOF'\n" + BODY + "done\n", ["apply_patch <<'EOF'\n" + BODY]),
    ("heredoc closing mismatched", "apply_patch <<'EOF'\n" + BODY + "END\n", ["apply_patch <<'EOF'\n" + BODY]),
    ("not a heredoc line", "run apply_patch <<'EOF' later\n" + BODY, [BODY]),
    ("two blocks", BODY + "and\n" + BODY, [BODY, BODY]),
]


@pytest.mark.parametrize("name,text,expected", SPANS, ids=[s[0] for s in SPANS])
def test_block_spans(name, text, expected):
    blocks = blocks_of(apply_patch, text)
    assert [text[b.start:b.end] for b in blocks] == expected
    for b in blocks:
        assert b.format == "apply-patch" and b.formats == ["apply-patch"]
        assert [summary(op) for op in b.ops] == [("delete", "d")]


def test_blocks_are_separate():
    text = patch("*** Delete File: a") + "prose\n" + patch("*** Add File: b", "+x")
    blocks = blocks_of(apply_patch, text)
    assert [[summary(op) for op in b.ops] for b in blocks] == [[("delete", "a")], [("add", "b", "x\n")]]


@pytest.mark.parametrize("text,explanation", [
    ("Fix it.\n\n```bash\napply_patch <<'EOF'\n" + BODY + "EOF\n```\n\nDone.\n", "Fix it.\n\nDone."),
    ("Fix it.\n~~~\n" + BODY + "~~~\n", "Fix it."),
    ("Fix it.\napply_patch <<'EOF'\n" + BODY + "EOF\nDone.\n", "Fix it.\n\nDone."),
    (CONFORMANCE["apply-patch-anchors-example"],
     "Both `search` methods now raise `NotImplementedError`, so a caller that forgets\n"
     "to override them fails loudly instead of getting `None`."),
])
def test_wrappers_are_not_explanation(text, explanation):
    parsed = parse_response(text, only="apply-patch")
    assert parsed.explanation == explanation
    assert parsed.formats == ["apply-patch"]


# -- sources ----------------------------------------------------------------------------------

def test_sources_name_directive_and_response_line():
    text = ("Intro\n"
            "*** Begin Patch\n"                 # 2
            "*** Add File: n.txt\n"             # 3
            "+x\n"
            "  *** Update File:  src/app.py \n"  # 5
            "*** Move to: src/main.py\n"        # 6
            "@@\n-a\n+b\n"
            "*** Delete File: old.txt\n"        # 10
            "*** End Patch\n")
    ops = blocks_of(apply_patch, text)[0].ops
    assert [(type(op).__name__, op.source.directive, op.source.line) for op in ops] == [
        ("NewFile", "Add File: n.txt", 3),
        ("EditFile", "Update File: src/app.py", 5),
        ("RenameFile", "Move to: src/main.py", 6),
        ("DeleteFile", "Delete File: old.txt", 10),
    ]


# -- refusals ---------------------------------------------------------------------------------

REFUSED = [
    # (name, text, words the message holds, response line, file)
    ("no End Patch", "*** Begin Patch\n*** Delete File: a\n", ["never closed", "cut off"], 1, "a"),
    ("truncated mid chunk", "x\n*** Begin Patch\n*** Update File: a\n@@\n-a\n", ["never closed"], 2, "a"),
    ("second Begin before End", "*** Begin Patch\n*** Delete File: a\n*** Begin Patch\n*** Delete File: b\n"
     "*** End Patch\n", ["never closed", "line 3"], 1, None),
    ("second block unclosed", BODY + "*** Begin Patch\n*** Delete File: b\n", ["never closed"], 4, "b"),
    ("empty patch", patch(), ["empty patch"], 1, None),
    ("only blank lines", patch("", "   ", ""), ["empty patch"], 1, None),
    ("empty update", patch("*** Update File: a.txt"), ["empty update", "a.txt"], 2, "a.txt"),
    ("empty update before next section", patch("*** Update File: a.txt", "", "*** Delete File: b"),
     ["empty update"], 2, "a.txt"),
    ("unknown header", patch("*** Frobnicate File: foo"), ["invalid header", "Frobnicate"], 2, None),
    ("unknown header after chunk", patch("*** Update File: a", "@@", "-x", "*** Rename File: b"),
     ["invalid header", "Rename File"], 5, None),
    ("header without keyword", patch("*** Delete File: a", "***"), ["invalid header"], 3, None),
    ("unexpected line in chunk", patch("*** Update File: src/a.py", "@@", "-x", "+y", "oops"),
     ["unexpected line in chunk 1", "oops"], 6, "src/a.py"),
    ("unexpected line in second chunk", patch("*** Update File: a", "@@", "-x", "@@ def f", "+y", "\tz"),
     ["unexpected line in chunk 2", "\\tz"], 7, "a"),
    ("unexpected first line of update", patch("*** Update File: a", "x = 1"),
     ["unexpected line in chunk 1"], 3, "a"),
    ("single star line in chunk", patch("*** Update File: a", "@@", "-x", "* item"),
     ["unexpected line in chunk 1"], 5, "a"),
    ("diff line outside any section", patch("-x"), ["outside any file section"], 2, None),
    ("prose inside the patch", patch("Here is the patch:", "*** Delete File: a"), ["outside any file section"], 2, None),
    ("stray @@ line", patch("*** Delete File: a", "@@"), ["outside any file section"], 3, None),
    ("add file line without +", patch("*** Add File: n.txt", "+a", "b"),
     ["unexpected line", "Add File: n.txt", "'b'"], 4, "n.txt"),
    ("Move to without Update", patch("*** Move to: b"), ["Move to", "Update File"], 2, None),
    ("Move to after chunks", patch("*** Update File: a", "@@", "-x", "*** Move to: b"), ["Move to"], 5, "a"),
    ("Move to after Add File", patch("*** Add File: a", "+x", "*** Move to: b"), ["Move to"], 4, None),
    ("End of File outside update", patch("*** Add File: a", "+x", "*** End of File"), ["End of File"], 4, None),
    ("End of File before any line", patch("*** Update File: a", "@@", "*** End of File"),
     ["End of File", "no chunk lines"], 4, "a"),
    ("End of File after only blank lines", patch("*** Update File: a", "@@", "", "*** End of File"),
     ["no chunk lines"], 5, "a"),
    ("line after End of File without @@", patch("*** Update File: a", "@@", "-x", "*** End of File", "-y"),
     ["End of File", "@@"], 6, "a"),
    ("chunk with no lines", patch("*** Update File: a", "@@ def f():"), ["chunk 1 has no lines"], 3, "a"),
    ("second chunk with no lines", patch("*** Update File: a", "@@", "-x", "@@ tail", "", "*** Delete File: b"),
     ["chunk 2 has no lines"], 5, "a"),
    ("add without path", patch("*** Add File:", "+x"), ["without a path"], 2, None),
    ("update without path", patch("*** Update File:   ", "@@", "-x"), ["without a path"], 2, None),
    ("move without path", patch("*** Update File: a", "*** Move to:"), ["without a path"], 3, None),
]


@pytest.mark.parametrize("name,text,words,line,file", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused(name, text, words, line, file):
    err = refusal(text)
    message = str(err)
    for w in words:
        assert w in message
    problem = err.problems[0]
    assert problem.response_line == line
    assert problem.file == file
    if file is not None:
        assert file in problem.directive


def test_unexpected_chunk_line_message_names_everything():
    err = refusal(patch("*** Update File: src/app.py", "@@", " a", "@@ def g():", "-b", "bogus"))
    assert str(err).startswith(
        "Update File: src/app.py, response line 7: unexpected line in chunk 2: 'bogus'")
    assert "starts with ' ' (context), '-' (removed) or '+' (added)" in str(err)


def test_no_block_no_ops():
    assert blocks_of(apply_patch, "just prose\n*** End Patch\n--- a\n+++ b\n") == []


def test_masked_regions_are_blank():
    # a region another format claimed arrives as spaces and is not read
    text = " " * 40 + "\n" + BODY
    assert [summary(op) for b in blocks_of(apply_patch, text) for op in b.ops] == [("delete", "d")]


# -- robustness ---------------------------------------------------------------------------------

PIECES = ["*** Begin Patch", "*** End Patch", "*** Add File: a", "*** Update File: b", "*** Move to: c",
          "*** Delete File: d", "*** End of File", "*** Bogus", "@@", "@@ x", "@@ -1,2 +1,3 @@ f",
          "+add", "-del", " ctx", "", "  ", "prose", "apply_patch <<'EOF'", "EOF", "```", " *** End Patch"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30))
def test_never_raises_anything_but_parse_error(pieces):
    text = "\n".join(pieces)
    try:
        blocks = blocks_of(apply_patch, text)
    except ParseError as err:
        assert err.problems and err.problems[0].reason
        return
    for b in blocks:
        assert 0 <= b.start < b.end <= len(text)
        assert b.ops


# Linear time on such inputs is measured by bench/linear.py (CPU time at n and 4n), not
# with a stopwatch here.
def test_large_patch_keeps_every_hunk():
    n = 15_000
    body = ["*** Update File: big.txt"]
    for i in range(n):
        body += [f"@@ def f{i}():", f"-old {i}", f"+new {i}", ""]
    text = patch(*body)
    [block] = blocks_of(apply_patch, text)
    assert len(block.ops[0].hunks) == n
    last = block.ops[0].hunks[-1]
    assert (last.anchors, last.lines) == ([f"def f{n - 1}():"], [("-", f"old {n - 1}"),
                                                                  ("+", f"new {n - 1}")])


def test_long_pathological_lines_are_parsed():
    text = patch("*** Update File: a", "@@ " + "-1," * 50_000, "-x") + ("<<" + "'" * 50_000 + "\n") * 3
    [block] = blocks_of(apply_patch, text)
    assert block.ops and block.ops[0].path == "a"
