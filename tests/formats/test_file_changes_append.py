"""FILE_APPEND inside <FILE_CHANGES> (udiffx's later directive): parsed as an AppendFile,
planned as lines added at the end of the file, which is created when missing."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ApplyError, ParseError
from git_aiapply.formats import parse_response
from git_aiapply.ops import AppendFile
from git_aiapply.plan.plan import MODE_EXEC, MODE_FILE, FileState

from plan_base import plan


def fc(*directives: str) -> str:
    return "<FILE_CHANGES>\n" + "\n".join(directives) + "\n</FILE_CHANGES>\n"


@pytest.mark.parametrize("body,text", [
    ("\nline\n", "line\n"),
    ("\n\n  two\nlines\n\n", "  two\nlines\n"),
    ("\n```text\nfenced\n```\n", "fenced\n"),
    ("", ""),
])
def test_parse(body, text):
    (op,) = parse_response(fc(f'<FILE_APPEND file_path="log.md">{body}</FILE_APPEND>')).ops
    assert op == AppendFile("log.md", text, op.source)
    assert op.source.directive == "FILE_APPEND log.md"


def test_self_closing_and_unclosed():
    (op,) = parse_response(fc('<FILE_APPEND file_path="log.md"/>')).ops
    assert op.text == ""
    with pytest.raises(ParseError) as e:
        parse_response('<FILE_CHANGES>\n<FILE_APPEND file_path="log.md">\nx\n')
    assert "never closed" in str(e.value)


def test_appends_after_the_last_line_keeping_endings_mode_and_bom():
    p = plan(fc('<FILE_APPEND file_path="a">\nz\n</FILE_APPEND>'),
             {"a": (MODE_EXEC, b"\xef\xbb\xbfx\r\ny\r\n")})
    assert p.final == {"a": FileState(MODE_EXEC, b"\xef\xbb\xbfx\r\ny\r\nz\r\n")}
    assert [(c.action, c.added, c.removed) for c in p.changes] == [("update", 1, 0)]


def test_a_missing_final_newline_is_supplied_before_the_new_lines():
    p = plan(fc('<FILE_APPEND file_path="a">\nz\n</FILE_APPEND>'), {"a": (MODE_FILE, b"x")})
    assert p.final["a"].data == b"x\nz\n"


def test_creates_a_missing_file_and_appends_twice_in_order():
    p = plan(fc('<FILE_APPEND file_path="d/n.md">\none\n</FILE_APPEND>',
                '<FILE_APPEND file_path="d/n.md">\ntwo\n</FILE_APPEND>'), {"a": (MODE_FILE, b"")})
    assert p.final == {"d/n.md": FileState(MODE_FILE, b"one\ntwo\n")}
    assert [c.action for c in p.changes] == ["add"]


def test_empty_append_to_an_existing_file_changes_nothing():
    p = plan(fc('<FILE_APPEND file_path="a"></FILE_APPEND>'), {"a": (MODE_FILE, b"x\n")})
    assert p.is_noop()


@pytest.mark.parametrize("files,untracked,message", [
    ({"b": (MODE_FILE, b"")}, {"a"}, "not tracked"),
    ({"a/b": (MODE_FILE, b"x\n")}, set(), "folder"),
    ({"a": (0o120000, b"target")}, set(), "symbolic link"),
    ({"a": (MODE_FILE, b"x\0y")}, set(), "binary"),
])
def test_refusals(files, untracked, message):
    with pytest.raises(ApplyError) as e:
        plan(fc('<FILE_APPEND file_path="a">\nz\n</FILE_APPEND>'), files, untracked)
    assert message in str(e.value)
