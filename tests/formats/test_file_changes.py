"""The file-changes format (BEHAVIOR.md §2, §3, §5): containers, directives, leniencies,
refusals."""
from __future__ import annotations

from pathlib import Path

import pytest

from git_aiapply.errors import ParseError
from git_aiapply.formats import file_changes, parse_response
from git_aiapply.locate.hashline import line_id
from git_aiapply.ops import DeleteFile, EditFile, HashlineEdit, NewFile, RenameFile
from conftest import blocks_of

SEEDS = Path("/work/shared/conformance/seed-examples")


def wrap(body: str) -> str:
    return f"<FILE_CHANGES>\n{body}\n</FILE_CHANGES>\n"


def only_op(text: str):
    blocks = blocks_of(file_changes, text)
    assert len(blocks) == 1 and len(blocks[0].ops) == 1
    return blocks[0].ops[0]


def refused(text: str):
    with pytest.raises(ParseError) as err:
        blocks_of(file_changes, text)
    assert len(err.value.problems) == 1
    return err.value.problems[0]


# ---------------------------------------------------------------------------- seeds

def test_seed_file_changes_example():
    text = (SEEDS / "file-changes-example/response.md").read_text()
    blocks = blocks_of(file_changes, text)
    assert len(blocks) == 1
    b = blocks[0]
    assert b.format == "file-changes" and b.formats == ["file-changes"]
    assert text[b.start:b.end].startswith("<FILE_CHANGES>")
    assert text[b.start:b.end].endswith("</FILE_CHANGES>")
    new, patch, rename, delete = b.ops
    assert new == NewFile("src/hello.rs", 'pub fn hello() {\n    println!("Hello from hello.rs");\n}\n',
                          new.source)
    assert new.source.directive == "FILE_NEW src/hello.rs" and new.source.line == 6
    assert isinstance(patch, EditFile) and patch.path == "src/main.rs"
    assert patch.source.directive == "FILE_PATCH src/main.rs" and patch.source.line == 13
    [hunk] = patch.hunks
    assert hunk.lines == [("+", "mod hello;"), ("+", ""), (" ", "fn main() {"),
                          ("-", '    println!("Old Message");'), ("+", "    hello::hello();"),
                          (" ", "}")]
    assert hunk.line_hint is None
    assert (rename.old_path, rename.new_path) == ("docs/OLD_README.md", "README.md")
    assert rename.source.line == 23
    assert isinstance(delete, DeleteFile) and delete.path == "temp_notes.txt"
    assert all(op.source.format == "file-changes" for op in b.ops)


def test_seed_hashline_example():
    text = (SEEDS / "hashline-example/response.md").read_text()
    [b] = blocks_of(file_changes, text)
    assert b.format == "hashline" and b.formats == ["hashline"]
    new, edit, rename, delete = b.ops
    assert isinstance(new, NewFile) and isinstance(rename, RenameFile) and isinstance(delete, DeleteFile)
    assert isinstance(edit, HashlineEdit) and edit.path == "src/main.rs"
    assert edit.source.format == "hashline"
    assert edit.source.directive == "FILE_HASHLINE_PATCH src/main.rs" and edit.source.line == 11
    assert [(o.kind, o.start, o.start_id, o.text_lines) for o in edit.ops] == [
        ("insert_before", 1, "6c", ["mod hello;"]),
        ("insert_before", 1, "6c", [""]),
        ("set", 2, "33", ["    hello::hello();"]),
    ]


def test_seed_hashline_stale_example_parses():
    # refused only when applied (stale ids): parsing it is fine
    text = (SEEDS / "hashline-example-stale/response.md").read_text()
    [b] = blocks_of(file_changes, text)
    edit = b.ops[1]
    assert [(o.kind, o.start, o.start_id) for o in edit.ops] == [
        ("insert_after", 1, "00"), ("insert_after", 2, "00"), ("set", 5, "00")]


# ---------------------------------------------------------------------------- FILE_NEW

@pytest.mark.parametrize("body, expected", [
    ("a\nb", "a\nb\n"),
    ("\n\n  a\n\tb\n\n\n", "  a\n\tb\n"),          # blank lines around dropped, indentation kept
    ("a\n\n\nb", "a\n\n\nb\n"),                   # inner blank lines kept
    ("", ""),
    ("\n\n   \n", ""),
    ("```rust\nfn x() {}\n```", "fn x() {}\n"),
    ("\n```\n\nx\n\n```\n", "x\n"),
    ("~~~\nx\n~~~", "x\n"),
    ("````markdown\n```py\ncode\n```\n````", "```py\ncode\n```\n"),  # a longer fence wraps a shorter one
    ("```\n```", ""),
    ("  keep trailing spaces  \n", "  keep trailing spaces  \n"),
    ('print("</FILE_NEW>")', 'print("</FILE_NEW>")\n'),  # a closing tag inside a line is content
])
def test_file_new_content(body, expected):
    op = only_op(wrap(f'<FILE_NEW file_path="a.txt">\n{body}\n</FILE_NEW>'))
    assert isinstance(op, NewFile) and op.replace is True
    assert op.text == expected


@pytest.mark.parametrize("directive, expected", [
    ('<FILE_NEW file_path="a.txt">one line</FILE_NEW>', "one line\n"),
    ('<FILE_NEW file_path="a.txt">first\nsecond</FILE_NEW>', "first\nsecond\n"),
    ('<FILE_NEW file_path="a.txt">\nx\nlast</FILE_NEW>', "x\nlast\n"),
    ('<FILE_NEW file_path="a.txt" />', ""),
    ('<FILE_NEW file_path="a.txt"></FILE_NEW>', ""),
    ('<FILE_NEW file_path="a.txt">\nx\n    </FILE_NEW>', "x\n"),
    ('<FILE_NEW file_path="a.txt">\nx\n</FILE_NEW  >', "x\n"),
    ('<FILE_NEW file_path="a.txt">\nx\n< / FILE_NEW>', "x\n"),
    ('<file_new file_path="a.txt">\nx\n</file_new>', "x\n"),
])
def test_file_new_tag_shapes(directive, expected):
    assert only_op(wrap(directive)).text == expected


def test_file_new_holding_a_file_changes_example_nests():
    inner = ('<FILE_CHANGES>\n<FILE_NEW file_path="inner.txt">\nhi\n</FILE_NEW>\n'
             '</FILE_CHANGES>')
    text = wrap(f'<FILE_NEW file_path="docs/example.md">\nExample:\n{inner}\nend\n</FILE_NEW>')
    op = only_op(text)
    assert op.path == "docs/example.md"
    assert op.text == f"Example:\n{inner}\nend\n"


# ---------------------------------------------------------------------------- FILE_PATCH

def patch_hunks(body: str, path: str = "a.py"):
    op = only_op(wrap(f'<FILE_PATCH file_path="{path}">\n{body}\n</FILE_PATCH>'))
    assert isinstance(op, EditFile) and op.path == path
    return op.hunks


@pytest.mark.parametrize("body, expected", [
    # bare @@
    ("@@\n a\n-b\n+c", [[(" ", "a"), ("-", "b"), ("+", "c")]]),
    # first hunk without @@
    (" a\n-b\n+c", [[(" ", "a"), ("-", "b"), ("+", "c")]]),
    # several hunks, section text after @@
    ("@@ def f():\n-x\n+y\n@@ class A @@ more\n-p\n+q",
     [[("-", "x"), ("+", "y")], [("-", "p"), ("+", "q")]]),
    # a hunk without @@ then one with
    ("-x\n+y\n@@\n-p", [[("-", "x"), ("+", "y")], [("-", "p")]]),
    # a bare empty line is an empty context line
    (" a\n\n-b", [[(" ", "a"), (" ", ""), ("-", "b")]]),
    # a whitespace-only untagged line too
    (" a\n\t\n-b", [[(" ", "a"), (" ", ""), ("-", "b")]]),
    # blank lines before the next @@ and before the closing tag are ignored
    ("@@\n-a\n+b\n\n\n@@\n-c\n\n\n", [[("-", "a"), ("+", "b")], [("-", "c")]]),
    # a whitespace-only context line is ignored before the closing tag (BEHAVIOR §3)
    ("-a\n ", [[("-", "a")]]),
    ("-a\n \n  \n@@\n-b", [[("-", "a")], [("-", "b")]]),
    # ... but kept, as written, inside a hunk
    ("-a\n  \n b", [[("-", "a"), (" ", " "), (" ", "b")]]),
    # blank lines before the first hunk ignored
    ("\n\n@@\n-a", [[("-", "a")]]),
    # tags kept exactly, indentation of the content included
    ("-    x = 1\n+\tx = 2\n+", [[("-", "    x = 1"), ("+", "\tx = 2"), ("+", "")]]),
    # lines that look like headers inside a hunk are content
    ("@@\n--- a\n+++ b", [[("-", "-- a"), ("+", "++ b")]]),
    # fenced content
    ("```diff\n@@\n-a\n+b\n```", [[("-", "a"), ("+", "b")]]),
    ("\n~~~\n-a\n~~~\n", [[("-", "a")]]),
])
def test_file_patch_hunks(body, expected):
    assert [h.lines for h in patch_hunks(body)] == expected


@pytest.mark.parametrize("body, hints", [
    ("@@\n-a", [None]),
    ("@@ -3,4 +3,5 @@\n-a", [3]),
    ("@@ -12 +12 @@ def f():\n-a", [12]),
    ("@@ -0,0 +1,2 @@\n+a", [0]),
    ("@@ def f(): @@\n-a\n@@ -7,2 +7,2 @@\n-b", [None, 7]),
    ("-a", [None]),
])
def test_file_patch_line_hints(body, hints):
    hunks = patch_hunks(body)
    assert [h.line_hint for h in hunks] == hints
    assert [h.number for h in hunks] == list(range(1, len(hunks) + 1))
    assert all(h.kind == "hunk" for h in hunks)


@pytest.mark.parametrize("body, expected", [
    ("--- a/a.py\n+++ b/a.py\n@@\n-x\n+y", [("-", "x"), ("+", "y")]),
    ("--- a.py\n+++ a.py\n-x\n+y", [("-", "x"), ("+", "y")]),  # names the file: header
    ("---\n+++\n\n@@ -1 +1 @@\n-x", [("-", "x")]),
    ("diff --git a/a.py b/a.py\nindex 123..456 100644\n--- a/a.py\n+++ b/a.py\n@@\n-x",
     [("-", "x")]),
    ("--- a/a.py\t2024-01-01\n+++ b/a.py\t2024-01-02\n-x", [("-", "x")]),
    # not a header (names no file, no @@ after): removed '-- SQL' and added '++ i'
    ("--- SQL comment\n+++ i\n x", [("-", "-- SQL comment"), ("+", "++ i"), (" ", "x")]),
])
def test_file_patch_headers(body, expected):
    [hunk] = patch_hunks(body)
    assert hunk.lines == expected


@pytest.mark.parametrize("body, old_nl, new_nl", [
    ("-a\n\\ No newline at end of file\n+b", True, False),
    ("-a\n+b\n\\ No newline at end of file", False, True),
    (" a\n\\ No newline at end of file", True, True),
    ("-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file", True, True),
    ("-a\n+b", False, False),
])
def test_file_patch_no_newline_markers(body, old_nl, new_nl):
    [hunk] = patch_hunks(body)
    assert (hunk.old_no_newline, hunk.new_no_newline) == (old_nl, new_nl)
    assert all(not t.startswith("\\") for _, t in hunk.lines)


@pytest.mark.parametrize("body, reason, line", [
    # response line: line 1 <FILE_CHANGES>, 2 <FILE_PATCH>, body from line 3
    (" a\nno tag here\n-b", "no diff tag", 4),
    ("@@\n-a\n\tindented without tag", "no diff tag", 5),
    ("```diff\n-a\nbad\n```", "no diff tag", 5),
    ("", "no hunk lines", 2),
    ("\n\n", "no hunk lines", 2),
    ("@@\n\n", "hunk 1 has no lines", 3),
    ("@@\n-a\n@@\n@@\n-b", "hunk 2 has no lines", 5),
    ("--- a/a.py\n+++ b/a.py\n@@", "hunk 1 has no lines", 5),
])
def test_file_patch_refusals(body, reason, line):
    p = refused(wrap(f'<FILE_PATCH file_path="a.py">\n{body}\n</FILE_PATCH>'))
    assert reason in p.reason
    assert p.response_line == line
    assert p.directive == "FILE_PATCH a.py"


def test_self_closing_file_patch_refused():
    p = refused(wrap('<FILE_PATCH file_path="a.py" />'))
    assert "no hunk lines" in p.reason


# ---------------------------------------------------------------------------- RENAME / DELETE

@pytest.mark.parametrize("directive, old, new", [
    ('<FILE_RENAME from_path="a" to_path="b" />', "a", "b"),
    ('<FILE_RENAME from_path="a" to_path="b"/>', "a", "b"),
    ("<FILE_RENAME from_path='a' to_path='b' />", "a", "b"),
    ('<FILE_RENAME from="a" to="b" />', "a", "b"),
    ('<FILE_RENAME old_path="a" new_path="b" />', "a", "b"),
    ('<FILE_RENAME fromPath="a" toPath="b" />', "a", "b"),
    ('<FILE_RENAME file_path="a" to_path="b" />', "a", "b"),
    ('<FILE_RENAME from_path="a" to_path="b"></FILE_RENAME>', "a", "b"),
    ('<FILE_RENAME from_path="a" to_path="b">\n</FILE_RENAME>', "a", "b"),
    ('<FILE_RENAME from_path="a" to_path="b">', "a", "b"),
    ('<  FILE_RENAME   from_path = "a"\n   to_path = "b"   /  >', "a", "b"),
    ('<file_rename from_path="a" to_path="b" />', "a", "b"),
    ('<FILE_RENAME from_path=a to_path=b/>', "a", "b"),
    ('<FILE_RENAME from_path=" a " to_path="dir with space/b" />', "a", "dir with space/b"),
])
def test_rename(directive, old, new):
    op = only_op(wrap(directive))
    assert isinstance(op, RenameFile)
    assert (op.old_path, op.new_path) == (old, new)
    assert op.source.directive == f"FILE_RENAME {old} -> {new}"


@pytest.mark.parametrize("directive", [
    '<FILE_DELETE file_path="x.txt" />',
    '<FILE_DELETE file_path="x.txt"/>',
    "<FILE_DELETE file_path='x.txt' />",
    '<FILE_DELETE path="x.txt" />',
    '<FILE_DELETE file="x.txt" />',
    '<FILE_DELETE filePath="x.txt" />',
    '<FILE_DELETE file-path="x.txt" />',
    '<FILE_DELETE file_path="x.txt"></FILE_DELETE>',
    '<FILE_DELETE file_path="x.txt">  </FILE_DELETE >',
    '<FILE_DELETE file_path="x.txt">',
    '  <FILE_DELETE   file_path="x.txt"   />  ',
    '<File_Delete file_path="x.txt" />',
    '<FILE_DELETE file_path="x.txt" path="x.txt" />',  # the same path twice is fine
])
def test_delete(directive):
    op = only_op(wrap(directive))
    assert isinstance(op, DeleteFile) and op.path == "x.txt"
    assert op.source.directive == "FILE_DELETE x.txt"


@pytest.mark.parametrize("directive", [
    '<FILE_NEW path="p/a.txt">\nx\n</FILE_NEW>',
    "<FILE_NEW file='p/a.txt'>\nx\n</FILE_NEW>",
    '<FILE_NEW filePath="p/a.txt">\nx\n</FILE_NEW>',
    '<FILE_NEW language="text" file_path="p/a.txt">\nx\n</FILE_NEW>',  # unknown attributes ignored
])
def test_path_aliases(directive):
    assert only_op(wrap(directive)).path == "p/a.txt"


# ---------------------------------------------------------------------------- containers

def test_several_containers_and_prose():
    text = ("Intro.\n\n<FILE_CHANGES>\n<FILE_DELETE file_path=\"a\" />\n</FILE_CHANGES>\n"
            "Middle prose mentions <FILE_CHANGES> inline.\n"
            "```xml\n<FILE_CHANGES>\n<FILE_DELETE file_path=\"b\" />\n</FILE_CHANGES>\n```\nEnd.\n")
    blocks = blocks_of(file_changes, text)
    assert [[op.path for op in b.ops] for b in blocks] == [["a"], ["b"]]
    for b in blocks:
        assert text[b.start:b.end].startswith("<FILE_CHANGES>")
        assert text[b.start:b.end].endswith("</FILE_CHANGES>")


def test_no_container():
    assert blocks_of(file_changes, "Just prose, and `<FILE_CHANGES>` in backticks.\n") == []
    assert blocks_of(file_changes, '<FILE_DELETE file_path="a" />\n') == []  # directives need a container


@pytest.mark.parametrize("text", [
    "  <FILE_CHANGES>  \n<FILE_DELETE file_path=\"a\" />\n  </FILE_CHANGES>  ",
    "< FILE_CHANGES >\n<FILE_DELETE file_path=\"a\" />\n</ FILE_CHANGES >",
    "<file_changes>\n<FILE_DELETE file_path=\"a\" />\n</file_changes>",
    "<FILE_CHANGES><FILE_DELETE file_path=\"a\" /></FILE_CHANGES>",
    "<FILE_CHANGES>\n\n\n<FILE_DELETE file_path=\"a\" />\n\n\n</FILE_CHANGES>",
    # fences around directives inside the container, and comments
    "<FILE_CHANGES>\n```xml\n<FILE_DELETE file_path=\"a\" />\n```\n</FILE_CHANGES>",
    "<FILE_CHANGES>\n<!-- the scratch file -->\n<FILE_DELETE file_path=\"a\" />\n</FILE_CHANGES>",
])
def test_container_leniencies(text):
    op = only_op(text)
    assert isinstance(op, DeleteFile) and op.path == "a"


def test_empty_container_is_a_block_without_ops():
    [b] = blocks_of(file_changes, "<FILE_CHANGES>\n</FILE_CHANGES>\n")
    assert b.ops == [] and b.formats == ["file-changes"]


def test_source_lines_count_from_response_start():
    text = "line 1\nline 2\n<FILE_CHANGES>\n\n<FILE_DELETE file_path=\"a\" />\n" \
           "<FILE_RENAME from_path=\"b\" to_path=\"c\" />\n</FILE_CHANGES>\n"
    [b] = blocks_of(file_changes, text)
    assert [op.source.line for op in b.ops] == [5, 6]
    assert b.start == text.index("<FILE_CHANGES>")
    assert b.end == text.index("</FILE_CHANGES>") + len("</FILE_CHANGES>")


def test_directive_content_is_not_altered():
    body = "\tdef f():\n\t\treturn  1  \n# trailing spaces kept   "
    op = only_op(wrap(f'<FILE_NEW file_path="a.py">\n{body}\n</FILE_NEW>'))
    assert op.text == body + "\n"


# ---------------------------------------------------------------------------- formats of a block

H = '<FILE_HASHLINE_PATCH file_path="h.txt">\n1#ab:x\n</FILE_HASHLINE_PATCH>'
P = '<FILE_PATCH file_path="p.txt">\n-a\n+b\n</FILE_PATCH>'
N = '<FILE_NEW file_path="n.txt">\nn\n</FILE_NEW>'
D = '<FILE_DELETE file_path="d.txt" />'


@pytest.mark.parametrize("directives, formats", [
    ([N, D], ["file-changes"]),
    ([P], ["file-changes"]),
    ([H], ["hashline"]),
    ([N, H, D], ["hashline"]),
    ([P, H], ["file-changes", "hashline"]),
    ([H, N, P], ["hashline", "file-changes"]),
])
def test_block_formats(directives, formats):
    [b] = blocks_of(file_changes, wrap("\n".join(directives)))
    assert b.formats == formats and b.format == formats[0]


@pytest.mark.parametrize("body, expected", [
    ("1#ab:x", [("set", 1, "ab", ["x"])]),
    ("```\n>+2#ZP new\n```", [("insert_after", 2, "01", ["new"])]),
    ("<+1#6c mod hello;\n<+1#6c \n2#33:    hello::hello();",
     [("insert_before", 1, "6c", ["mod hello;"]), ("insert_before", 1, "6c", [""]),
      ("set", 2, "33", ["    hello::hello();"])]),
])
def test_hashline_directive(body, expected):
    op = only_op(wrap(f'<FILE_HASHLINE_PATCH file_path="h.txt">\n{body}\n</FILE_HASHLINE_PATCH>'))
    assert isinstance(op, HashlineEdit) and op.path == "h.txt"
    assert [(o.kind, o.start, o.start_id, o.text_lines) for o in op.ops] == expected


def test_hashline_directive_with_computed_ids():
    lines = ["def f():", "    return 1"]
    body = f"2#{line_id(lines[1])}:    return 2"
    op = only_op(wrap(f'<FILE_HASHLINE_PATCH file_path="h.py">\n{body}\n</FILE_HASHLINE_PATCH>'))
    assert op.ops[0].start_id == line_id("    return 1")


@pytest.mark.parametrize("body, reason, line", [
    ("1#ab:x\n3#ab-2#cd:y", "end-first", 4),
    ("not an op", "expected a hashline operation", 3),
    ("", "no operation", 2),
    ("```\n\n1#zz:x\n```", "not a line ID", 5),
])
def test_hashline_directive_refusals(body, reason, line):
    p = refused(wrap(f'<FILE_HASHLINE_PATCH file_path="h.txt">\n{body}\n</FILE_HASHLINE_PATCH>'))
    assert reason in p.reason
    assert p.response_line == line
    assert p.directive == "FILE_HASHLINE_PATCH h.txt"


# ---------------------------------------------------------------------------- refusals

@pytest.mark.parametrize("text, reason, line, directive", [
    # truncated responses
    ("prose\n<FILE_CHANGES>\n<FILE_DELETE file_path=\"a\" />\n", "never closed", 2, "FILE_CHANGES"),
    ("<FILE_CHANGES>\n<FILE_NEW file_path=\"a\">\nx\n", "never closed", 2, "FILE_NEW a"),
    ("<FILE_CHANGES>\n<FILE_PATCH file_path=\"a\">\n-x\n</FILE_CHANGES>\n", "never closed", 2,
     "FILE_PATCH a"),
    ("<FILE_CHANGES>\n\n<FILE_HASHLINE_PATCH file_path=\"a\">\n1#ab:x\n", "never closed", 3,
     "FILE_HASHLINE_PATCH a"),
    ("<FILE_CHANGES>\n<FILE_NEW file_path=\"a\">\nx</FILE_NEW>y\n</FILE_CHANGES>", "never closed",
     2, "FILE_NEW a"),
    ("<FILE_CHANGES>\n<FILE_DELETE file_path=\"a\" />\n<FILE_CHANGES>\n</FILE_CHANGES>",
     "not closed before the next", 1, "FILE_CHANGES"),
    # unknown or stray things inside the container
    ("<FILE_CHANGES>\n<FILE_EDIT file_path=\"a\">\nx\n</FILE_EDIT>\n</FILE_CHANGES>",
     "unknown directive <FILE_EDIT>", 2, "FILE_EDIT"),
    ("<FILE_CHANGES>\nHere is the change:\n<FILE_DELETE file_path=\"a\" />\n</FILE_CHANGES>",
     "unexpected text", 2, "FILE_CHANGES"),
    ("<FILE_CHANGES>\nFILE_DELETE file_path=\"a\" />\n</FILE_CHANGES>", "unexpected text", 2,
     "FILE_CHANGES"),
    ("<FILE_CHANGES>\n</FILE_NEW>\n</FILE_CHANGES>", "unexpected </FILE_NEW>", 2, "FILE_CHANGES"),
    ("<FILE_CHANGES>\n<!-- x\n</FILE_CHANGES>", "comment", 2, "FILE_CHANGES"),
    # missing or malformed attributes
    ("<FILE_CHANGES>\n<FILE_DELETE />\n</FILE_CHANGES>", "no file_path", 2, "FILE_DELETE"),
    ("<FILE_CHANGES>\n<FILE_NEW>\nx\n</FILE_NEW>\n</FILE_CHANGES>", "no file_path", 2, "FILE_NEW"),
    ("<FILE_CHANGES>\n<FILE_PATCH file_path=\"\">\n-x\n</FILE_PATCH>\n</FILE_CHANGES>",
     "empty file_path", 2, "FILE_PATCH"),
    ("<FILE_CHANGES>\n<FILE_RENAME from_path=\"a\" />\n</FILE_CHANGES>", "no to_path", 2,
     "FILE_RENAME"),
    ("<FILE_CHANGES>\n<FILE_RENAME to_path=\"a\" />\n</FILE_CHANGES>", "no from_path", 2,
     "FILE_RENAME"),
    ("<FILE_CHANGES>\n<FILE_DELETE file_path=\"a\" path=\"b\" />\n</FILE_CHANGES>",
     "two different", 2, "FILE_DELETE"),
    ("<FILE_CHANGES>\n<FILE_DELETE file_path=\"a />\n</FILE_CHANGES>", "no closing", 2,
     "FILE_DELETE"),
    ("<FILE_CHANGES>\n<FILE_DELETE file_path />\n</FILE_CHANGES>", "has no value", 2, "FILE_DELETE"),
    ("<FILE_CHANGES>\n<FILE_DELETE file_path=\"a\" / x>\n</FILE_CHANGES>", "stray '/'", 2,
     "FILE_DELETE"),
    ("<FILE_CHANGES>\n<FILE_DELETE file_path=\"a\"", "not finished", 2, "FILE_DELETE"),
    # content after a RENAME/DELETE that was not closed is stray
    ("<FILE_CHANGES>\n<FILE_DELETE file_path=\"a\">\nreason\n</FILE_DELETE>\n</FILE_CHANGES>",
     "unexpected text", 3, "FILE_CHANGES"),
])
def test_refusals(text, reason, line, directive):
    p = refused(text)
    assert reason in p.reason, p.reason
    assert p.response_line == line
    assert p.directive == directive


def test_refusal_message_is_renderable():
    p = refused("<FILE_CHANGES>\n<FILE_NEW file_path=\"src/a.py\">\nx\n")
    rendered = p.render()
    assert "FILE_NEW src/a.py" in rendered and "response line 2" in rendered


def test_only_parse_errors_escape_on_garbage():
    # a battery of malformed fragments: each either parses or raises ParseError
    fragments = ["<", "<FILE_CHANGES>", "</FILE_CHANGES>", "<FILE_NEW", "<FILE_NEW file_path='a'>",
                 "</FILE_NEW>", "@@", "-x", "\n", "```", "<!--", "=", "\"", "/>", "1#ab:x",
                 "<FILE_HASHLINE_PATCH path=a>", "</FILE_HASHLINE_PATCH>", "<FILE_PATCH file=a>",
                 "</FILE_PATCH>", "<FILE_RENAME from=a to=b>", "</FILE_RENAME>"]
    import random
    rng = random.Random(7)
    for _ in range(3000):
        text = "".join(rng.choice(fragments) + rng.choice(["", "\n", " "])
                       for _ in range(rng.randint(1, 12)))
        try:
            blocks_of(file_changes, text)
        except ParseError:
            pass


# Linear time on large and hostile input is measured by bench/linear.py (CPU time at n and
# 4n), never with a stopwatch in a test.
def test_large_input_keeps_every_line():
    body = "\n".join(f"+line {i}" for i in range(100_000))
    text = wrap(f'<FILE_PATCH file_path="big.txt">\n{body}\n</FILE_PATCH>') + "<" * 50_000 + "\n"
    [b] = blocks_of(file_changes, text)
    assert len(b.ops[0].hunks[0].lines) == 100_000


NEW_A = '<FILE_CHANGES>\n<FILE_NEW file_path="a">\n'


@pytest.mark.parametrize("text, n_ops", [
    # inputs that would be quadratic (or worse) with a careless scanner
    ("<FILE_CHANGES>\n" + "<   " * 50_000, None),
    (NEW_A + "<" + " " * 200_000 + "\n", None),
    (NEW_A + "< /" + " " * 200_000 + "\n", None),
    (NEW_A + "x</FILE_NEW" * 30_000 + "y\n", None),
    (NEW_A + "x</FILE_NEW>y" * 30_000 + "\n</FILE_NEW>\n</FILE_CHANGES>", 1),
    ("<FILE_CHANGES>" + '<FILE_DELETE file_path="a"/>' * 30_000 + "</FILE_CHANGES>", 30_000),
    ("<FILE_CHANGES>\n" + '<FILE_NEW file_path="a">\nx\n</FILE_NEW>\n' * 30_000
     + "</FILE_CHANGES>", 30_000),
    ("<FILE_CHANGES>\n<FILE_DELETE" + ' a="1"' * 50_000 + " />\n</FILE_CHANGES>", None),
    ("<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path='a'>\n1#ab:x\n" + "9" * 100_000 + "\n"
     + "</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>", 1),
])
def test_pathological_inputs_give_blocks_or_a_parse_error(text, n_ops):
    if n_ops is None:
        with pytest.raises(ParseError):
            blocks_of(file_changes, text)
    else:
        [b] = blocks_of(file_changes, text)
        assert len(b.ops) == n_ops


def test_module_name():
    assert file_changes.NAME == "file-changes"


def test_a_hashline_refusal_names_its_file():
    """Every problem that concerns a file names it (--json's "file")."""
    text = ('<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path="src/app.py">\n9#zz:x\n'
            '</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n')
    with pytest.raises(ParseError, match="malformed hashline operation") as e:
        parse_response(text)
    assert [p.file for p in e.value.problems] == ["src/app.py"]
