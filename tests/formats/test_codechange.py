"""The codechange format: <CodeChange> tags with SEARCH/REPLACE blocks."""
from __future__ import annotations

from pathlib import Path

import pytest

from git_aiapply.errors import ParseError
from git_aiapply.formats import codechange, parse_response
from git_aiapply.ops import EditFile, NewFile
from conftest import blocks_of

SEED = Path("/work/shared/conformance/seed-examples/codechange-example")


def summary(blocks):
    """Every block's operations as plain tuples, easy to compare."""
    out = []
    for b in blocks:
        for op in b.ops:
            if isinstance(op, NewFile):
                out.append(("new", op.path, op.text, op.replace))
            elif isinstance(op, EditFile):
                out.append(("edit", op.path, [(h.number, h.kind, h.lines) for h in op.hunks]))
            else:  # pragma: no cover - the format makes no other operation
                out.append(("other", op))
    return out


def edit(path, *hunks):
    return ("edit", path, [(n, "search", lines) for n, lines in hunks])


BASIC = """<CodeChange filePath="src/a.py">
<<<<<<< SEARCH
def f():
    return 1
=======
def f():
    return 2
>>>>>>> REPLACE
</CodeChange>"""
BASIC_OPS = [edit("src/a.py", (1, [(" ", "def f():"), ("-", "    return 1"), ("+", "    return 2")]))]

CASES = {
    "basic": (BASIC, BASIC_OPS),
    "file attribute, single quotes, spaces around =": (
        BASIC.replace('filePath="src/a.py"', "file = 'src/a.py'"), BASIC_OPS),
    "attribute case and extra attributes": (
        BASIC.replace('filePath="src/a.py"', 'lang="py" FILEPATH="src/a.py"'), BASIC_OPS),
    "tags indented, CodeChange lower case": (
        "  <codechange filePath=\"src/a.py\">\n" + "\n".join(BASIC.split("\n")[1:]), BASIC_OPS),
    "opening tag over two lines": (
        BASIC.replace('<CodeChange filePath="src/a.py">', '<CodeChange\n    filePath="src/a.py"\n>'),
        BASIC_OPS),
    "five and nine marker characters, trailing spaces": (
        BASIC.replace("<<<<<<< SEARCH", "<<<<< SEARCH  ").replace("=======", "=========  ")
             .replace(">>>>>>> REPLACE", ">>>>>>>>>REPLACE "), BASIC_OPS),
    "fences around SEARCH and REPLACE": (
        BASIC.replace("<<<<<<< SEARCH\n", "<<<<<<< SEARCH\n```python\n")
             .replace("\n=======\n", "\n```\n=======\n```python\n")
             .replace("\n>>>>>>> REPLACE", "\n```\n>>>>>>> REPLACE"), BASIC_OPS),
    "fence around the whole tag content": (
        BASIC.replace("<<<<<<< SEARCH", "```python\n<<<<<<< SEARCH")
             .replace(">>>>>>> REPLACE", ">>>>>>> REPLACE\n```"), BASIC_OPS),
    "prose and blank lines between blocks are ignored": (
        BASIC.replace("<<<<<<< SEARCH", "Change the return value:\n\n<<<<<<< SEARCH"), BASIC_OPS),
    "two blocks in one tag, numbered": (
        """<CodeChange filePath="m.py">
<<<<<<< SEARCH
a = 1
=======
a = 2
>>>>>>> REPLACE

<<<<<<< SEARCH
b = 1
c = 1
=======
c = 1
>>>>>>> REPLACE
</CodeChange>""",
        [edit("m.py", (1, [("-", "a = 1"), ("+", "a = 2")]),
              (2, [("-", "b = 1"), (" ", "c = 1")]))]),
    "two tags": (
        BASIC + "\n\nand\n\n" + BASIC.replace("src/a.py", "src/b.py"),
        BASIC_OPS + [edit("src/b.py", BASIC_OPS[0][2][0][::2])]),
    "empty REPLACE deletes the lines": (
        '<CodeChange filePath="x">\n<<<<<<< SEARCH\ngone\n=======\n>>>>>>> REPLACE\n</CodeChange>',
        [edit("x", (1, [("-", "gone")]))]),
    "SEARCH equal to REPLACE is all context": (
        '<CodeChange filePath="x">\n<<<<<<< SEARCH\nsame\n=======\nsame\n>>>>>>> REPLACE\n</CodeChange>',
        [edit("x", (1, [(" ", "same")]))]),
    "empty SEARCH creates the file, blank lines around dropped": (
        '<CodeChange filePath="new.py">\n<<<<<<< SEARCH\n\n=======\n\n\nprint(1)\n\nprint(2)\n\n'
        '>>>>>>> REPLACE\n</CodeChange>',
        [("new", "new.py", "print(1)\n\nprint(2)\n", False)]),
    "empty SEARCH with fenced REPLACE": (
        '<CodeChange filePath="new.py">\n<<<<<<< SEARCH\n=======\n```python\nx = 1\n```\n'
        '>>>>>>> REPLACE\n</CodeChange>',
        [("new", "new.py", "x = 1\n", False)]),
    "empty SEARCH and empty REPLACE: empty file": (
        '<CodeChange filePath="empty.txt">\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n</CodeChange>',
        [("new", "empty.txt", "", False)]),
    "empty SEARCH block plus edits: new file first, then the edits": (
        '<CodeChange filePath="n.py">\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n'
        '<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n</CodeChange>',
        [("new", "n.py", "x\n", False), edit("n.py", (1, [("-", "x"), ("+", "y")]))]),
    "markdown file keeps its own fences": (
        '<CodeChange filePath="README.md">\n<<<<<<< SEARCH\n```sh\nmake\n```\n=======\n```sh\n'
        'make all\n```\n>>>>>>> REPLACE\n</CodeChange>',
        [edit("README.md", (1, [(" ", "```sh"), ("-", "make"), ("+", "make all"), (" ", "```")]))]),
    "only one side fenced: fences are content": (
        '<CodeChange filePath="t.py">\n<<<<<<< SEARCH\n```\nx\n```\n=======\ny\n>>>>>>> REPLACE\n'
        '</CodeChange>',
        [edit("t.py", (1, [("-", "```"), ("-", "x"), ("-", "```"), ("+", "y")]))]),
    "closing tag on the REPLACE marker line": (
        BASIC.replace(">>>>>>> REPLACE\n</CodeChange>", ">>>>>>> REPLACE</CodeChange>"), BASIC_OPS),
    "closing tag mentioned inside content stays content": (
        '<CodeChange filePath="t.xml">\n<<<<<<< SEARCH\n<a></CodeChange>\n=======\n<b/>\n'
        '>>>>>>> REPLACE\n</CodeChange>',
        [edit("t.xml", (1, [("-", "<a></CodeChange>"), ("+", "<b/>")]))]),
    "CodeChange mentioned mid-line in prose is not a tag": (
        "Use a <CodeChange> tag per file.\n" + BASIC, BASIC_OPS),
    "indentation kept verbatim": (
        '<CodeChange filePath="i.py">\n<<<<<<< SEARCH\n\tif x:\n\t\treturn\n=======\n\tif x:\n'
        '\t\treturn 0\n>>>>>>> REPLACE\n</CodeChange>',
        [edit("i.py", (1, [(" ", "\tif x:"), ("-", "\t\treturn"), ("+", "\t\treturn 0")]))]),
}


@pytest.mark.parametrize("text,expected", list(CASES.values()), ids=list(CASES))
def test_parses(text, expected):
    assert summary(blocks_of(codechange, text)) == expected


DESCRIPTIONS = {
    "one line": ("<Description>Fix the bug</Description>", ["Fix the bug"]),
    "spans lines, stripped": ("<Description>\n  Fix the\n  bug\n</Description>", ["Fix the\n  bug"]),
    "opening on its own line, closing after text": ("<Description>\nFix it</Description>", ["Fix it"]),
    "two descriptions": ("<Description>one</Description>\n<description>two</description>",
                         ["one", "two"]),
    "empty description dropped": ("<Description> </Description>", []),
    "none": ("", []),
}


@pytest.mark.parametrize("desc,expected", list(DESCRIPTIONS.values()), ids=list(DESCRIPTIONS))
def test_descriptions(desc, expected):
    text = BASIC.replace('<CodeChange filePath="src/a.py">\n',
                         '<CodeChange filePath="src/a.py">\n' + desc + "\n")
    (block,) = blocks_of(codechange, text)
    assert block.descriptions == [("src/a.py", d) for d in expected]
    assert summary([block]) == BASIC_OPS


def test_span_and_source():
    text = "Intro line.\n\n" + BASIC + "\n\nOutro."
    (block,) = blocks_of(codechange, text)
    assert text[block.start:block.end] == BASIC
    (op,) = block.ops
    assert op.source.format == "codechange"
    assert op.source.directive == "CodeChange src/a.py"
    assert op.source.line == 3


def test_several_tags_give_several_blocks_with_their_lines():
    text = BASIC + "\nmiddle\n" + BASIC.replace("src/a.py", "b.py")
    blocks = blocks_of(codechange, text)
    assert [b.ops[0].source.line for b in blocks] == [1, 11]
    assert [text[b.start:b.end] for b in blocks] == [BASIC, BASIC.replace("src/a.py", "b.py")]


def test_dispatcher_explanation_and_fence():
    text = "Make f return 2.\n\n```xml\n" + BASIC + "\n```\n\nDone."
    parsed = parse_response(text, only="codechange")
    assert parsed.explanation == "Make f return 2.\n\nDone."
    assert parsed.formats == ["codechange"]
    assert summary(parsed.blocks) == BASIC_OPS


def test_seed_example():
    text = (SEED / "response.md").read_text()
    parsed = parse_response(text, only="codechange")
    (op,) = parsed.ops
    assert op.path == "src/main.py"
    assert parsed.descriptions == [("src/main.py", "Rename count_sheep to count_all_sheep and add "
                                                   "count_stray_sheep() to the sum")]
    assert "Stray sheep" in parsed.explanation
    before = (SEED / "before/src/main.py").read_text().split("\n")
    after = (SEED / "after/src/main.py").read_text().split("\n")
    (hunk,) = op.hunks
    # the hunk's old side occurs in the old file, its new side in the new one
    assert any(before[i:i + len(hunk.old)] == hunk.old for i in range(len(before)))
    assert any(after[i:i + len(hunk.new)] == hunk.new for i in range(len(after)))


def test_no_tag_no_block():
    assert blocks_of(codechange, "just prose\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n") == []


REFUSALS = {
    "never closed": (
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n',
        "never closed", 1),
    "truncated inside SEARCH": (
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n', "never closed", 1),
    "truncated inside REPLACE": (
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n=======\ny\n', "REPLACE", 1),
    "opening tag without '>'": ('<CodeChange filePath="a.py"\n', "no '>'", 1),
    "SEARCH without =======": (
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n</CodeChange>',
        "no '=======' line", 2),
    "SEARCH without ======= before the closing tag": (
        '<CodeChange filePath="a.py">\n\n<<<<<<< SEARCH\nx\n</CodeChange>', "no '=======' line", 3),
    "SEARCH without REPLACE marker before the closing tag": (
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n=======\ny\n</CodeChange>',
        "no '>>>>>>> REPLACE' line", 2),
    "SEARCH without REPLACE marker before the next SEARCH": (
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n=======\ny\n<<<<<<< SEARCH\nz\n=======\n'
        'w\n>>>>>>> REPLACE\n</CodeChange>', "no '>>>>>>> REPLACE' line", 2),
    "tag with no block": ('<CodeChange filePath="a.py">\nJust words.\n</CodeChange>', "no SEARCH", 1),
    "tag with only a description": (
        '<CodeChange filePath="a.py">\n<Description>d</Description>\n</CodeChange>', "no SEARCH", 1),
    "self-closing tag": ('<CodeChange filePath="a.py"/>', "no SEARCH", 1),
    "missing path": ('<CodeChange>\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n</CodeChange>',
                     "no filePath", 1),
    "empty path": ('text\n<CodeChange filePath="  ">\n</CodeChange>', "no filePath", 2),
    "description never closed": (
        '<CodeChange filePath="a.py">\n<Description>d\n</CodeChange>', "<Description> is never closed", 3),
    "two empty SEARCH blocks": (
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\n=======\nx\n>>>>>>> REPLACE\n'
        '<<<<<<< SEARCH\n=======\ny\n>>>>>>> REPLACE\n</CodeChange>', "empty SEARCH too", 6),
    "divider outside a block": (
        '<CodeChange filePath="a.py">\nx\n=======\ny\n>>>>>>> REPLACE\n</CodeChange>',
        "outside a SEARCH/REPLACE block", 3),
    "a new tag while one is open": (
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n'
        '<CodeChange filePath="b.py">\n</CodeChange>', "never closed", 1),
}


@pytest.mark.parametrize("text,message,line", list(REFUSALS.values()), ids=list(REFUSALS))
def test_refusals(text, message, line):
    with pytest.raises(ParseError) as e:
        blocks_of(codechange, text)
    (problem,) = e.value.problems
    assert message in problem.reason
    assert problem.response_line == line
    if "filePath" not in message:
        assert problem.file == "a.py"
        assert problem.directive == "CodeChange a.py"


def test_opening_tag_without_gt_is_not_searched_for_far_away():
    text = ('<CodeChange filePath="a.py"\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n'
            '</CodeChange>')
    with pytest.raises(ParseError) as e:
        blocks_of(codechange, text)
    assert "no '>'" in e.value.problems[0].reason
    assert e.value.problems[0].file == "a.py"


# --- robustness: any text either parses or is refused with a ParseError ----------------

from hypothesis import given, settings, strategies as st  # noqa: E402

_CC_LINES = st.sampled_from([
    '<CodeChange filePath="a.py">', "<CodeChange file='b'>", "<CodeChange>", "<CodeChange", "</CodeChange>",
    "<Description>", "</Description>", "<Description>d</Description>", "<<<<<<< SEARCH", "=======",
    ">>>>>>> REPLACE", "x", "", "```", "```py", "<<<<< SEARCH", ">>>>>>>>> REPLACE</CodeChange>",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_CC_LINES, max_size=30))
def test_any_text_parses_or_is_refused(lines):
    text = "\n".join(lines)
    try:
        blocks = blocks_of(codechange, text)
    except ParseError:
        return
    for b in blocks:
        assert text[b.start:b.end].lower().startswith("<codechange")
        assert text[b.start:b.end].lower().endswith("</codechange>")
        assert b.ops


# Linear time on large and hostile input is measured by bench/linear.py (CPU time at n and
# 4n), never with a stopwatch in a test.
def test_large_input_gives_every_block():
    one = BASIC + "\n"
    blocks = blocks_of(codechange, one * 2000 + "prose\n" * 40000)
    assert len(blocks) == 2000
