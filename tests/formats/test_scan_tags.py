"""formats/scan.py's tag and attribute syntax, shared by <FILE_CHANGES> directives and
<CodeChange>: one reading of a name, a value, a quote."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ParseError
from git_aiapply.formats import codechange, file_changes
from git_aiapply.formats.scan import parse_tag, read_attributes
from conftest import blocks_of


@pytest.mark.parametrize("written", ["filePath", "file_path", "FILE-PATH", "filepath"])
def test_one_attribute_name_in_both_formats(written):
    fc = f'<FILE_CHANGES>\n<FILE_NEW {written}="a.txt">\nx\n</FILE_NEW>\n</FILE_CHANGES>\n'
    cc = (f'<CodeChange {written}="a.txt">\n<<<<<<< SEARCH\nx\n=======\ny\n'
          '>>>>>>> REPLACE\n</CodeChange>\n')
    assert [op.path for b in blocks_of(file_changes, fc) for op in b.ops] == ["a.txt"]
    assert [op.path for b in blocks_of(codechange, cc) for op in b.ops] == ["a.txt"]


@pytest.mark.parametrize("inside, expected", [
    (' filePath="a b.txt" x=1', {"filepath": "a b.txt", "x": "1"}),
    (" path='it' s", {"path": "it", "s": ""}),
    (' path="a" path="b"', {"path": "a"}),  # first value kept
    (' bare filePath = "a" /', {"bare": "", "filepath": "a"}),
    (' path="never closed', {"path": "never closed"}),
    ("", {}),
])
def test_read_attributes_is_lenient(inside, expected):
    assert read_attributes(inside) == expected


@pytest.mark.parametrize("tag, problem", [
    ('<FILE_NEW path="a"', "not finished"),
    ('<FILE_NEW path>', "has no value"),
    ('<FILE_NEW path="a>', "no closing"),
    ('<FILE_NEW path="a" file_path="b" filePath="c">', "given twice"),
    ('<FILE_NEW / x>', "stray '/'"),
])
def test_parse_tag_is_strict(tag, problem):
    with pytest.raises(ParseError, match=problem):
        parse_tag(tag, 0, 1)


def test_parse_tag_reads_names_values_and_ends():
    text = '< FILE_DELETE file-path = a.txt  />rest'
    tag = parse_tag(text, 0, 1)
    assert (tag.name, tag.closing, tag.self_closing, tag.attrs) == (
        "FILE_DELETE", False, True, {"filepath": "a.txt"})
    assert text[tag.end:] == "rest"
    assert parse_tag("<>", 0, 1) is None and parse_tag("< -x", 0, 1) is None
