"""Hashline ids, operation parsing and application (BEHAVIOR.md §4)."""
from __future__ import annotations

from pathlib import Path

import pytest
import xxhash

from git_aiapply.locate import hashline
from git_aiapply.errors import ApplyError, ParseError
from git_aiapply.locate.hashline import (INSERT_AFTER, INSERT_BEFORE, SET, _read_ref,
    apply_hashline, line_id, parse_ops, render_view)
from git_aiapply.ops import HashlineEdit, Source
from git_aiapply.text import FileText
from conftest import file_text, text_of

SEEDS = Path("/work/shared/conformance/seed-examples")
SRC = Source("hashline", "FILE_HASHLINE_PATCH f.txt", line=10)


def ref(lines: list[str], n: int) -> str:
    """`N#ID` of line n (1-based) of ``lines``, computed, never hard-coded."""
    return f"{n}#{line_id(lines[n - 1])}"


def to_letters(ident: str) -> str:
    b = int(ident, 16)
    return hashline.NIBBLE_LETTERS[b >> 4] + hashline.NIBBLE_LETTERS[b & 15]


# ---------------------------------------------------------------------------- ids


def parse_ref(s: str) -> tuple[int, str]:
    """``'12#3f'`` or ``'12#ZP'`` -> ``(12, '3f')`` / ``(12, '01')``: one whole reference
    read with the parser's own reader (the package has no use for this wrapper)."""
    s = s.strip()
    got = _read_ref(s, 0)
    if isinstance(got, str):
        raise ParseError(f"bad line reference {s!r}: {got}")
    number, ident, end = got
    if end != len(s):
        raise ParseError(f"bad line reference {s!r}: unexpected text after the ID")
    return number, ident

def test_seed_ids_are_real():
    # the ids written in seed-examples/hashline-example
    assert line_id("fn main() {") == "6c"
    assert line_id('    println!("Old Message");') == "33"


@pytest.mark.parametrize("a, b", [
    ("fn main() {", "fnmain(){"),
    ("fn main() {", "\tfn  main()\u00a0{  "),
    ("x = 1", "x=1\u3000"),
    ("a b", "a\u2003b\ufeff"),
])
def test_whitespace_does_not_count(a, b):
    assert line_id(a) == line_id(b)


@pytest.mark.parametrize("line", ["", "x", "héllo wörld", "\udcff bad byte", "    return None"])
def test_id_is_low_byte_of_xxh32(line):
    data = "".join(line.split()).replace("\ufeff", "").encode("utf-8", "surrogateescape")
    expected = format(xxhash.xxh32_intdigest(data, 0) & 0xFF, "02x")
    assert line_id(line) == expected
    assert len(line_id(line)) == 2 and line_id(line) == line_id(line).lower()


@pytest.mark.parametrize("text, expected", [
    ("12#3f", (12, "3f")),
    ("12#3F", (12, "3f")),
    (" 7#00 ", (7, "00")),
    ("1#ZZ", (1, "00")),
    ("1#ZP", (1, "01")),
    ("1#PZ", (1, "10")),
    ("1#HH", (1, "ff")),
    ("1#BB", (1, "dd")),   # both letters of the alphabet: read as letters, not hex
    ("1#B3", (1, "b3")),   # one letter only: hex
    ("1#ab", (1, "ab")),   # lower case is hex
    ("1#zz", None),        # lower-case letters are not the alphabet, nor hex
    ("1#3", None),
    ("1#3fa", None),
    ("0#3f", None),
    ("#3f", None),
    ("12", None),
    ("x#3f", None),
])
def test_parse_ref(text, expected):
    if expected is None:
        with pytest.raises(ParseError):
            parse_ref(text)
    else:
        assert parse_ref(text) == expected


def test_letters_and_hex_agree():
    for line in ["fn main() {", "}", "", "import os"]:
        ident = line_id(line)
        assert parse_ref(f"4#{to_letters(ident)}") == (4, ident)


# ---------------------------------------------------------------------------- parsing

def _ops(body: str):
    return [(o.kind, o.start, o.start_id, o.end, o.end_id, o.text_lines)
            for o in parse_ops(body.split("\n"), SRC)]


@pytest.mark.parametrize("body, expected", [
    # set one line, text verbatim after the single ':'
    ("3#ab:new text", [(SET, 3, "ab", 3, "ab", ["new text"])]),
    ("3#ab:    indented: with colon", [(SET, 3, "ab", 3, "ab", ["    indented: with colon"])]),
    ("3#ab: leading space kept", [(SET, 3, "ab", 3, "ab", [" leading space kept"])]),
    # letters alphabet
    ("3#ZP:x", [(SET, 3, "01", 3, "01", ["x"])]),
    # range
    ("2#aa-4#bb:one", [(SET, 2, "aa", 4, "bb", ["one"])]),
    ("2#aa-2#aa:same", [(SET, 2, "aa", 2, "aa", ["same"])]),
    # empty text deletes
    ("3#ab:", [(SET, 3, "ab", 3, "ab", [])]),
    ("2#aa-4#bb:", [(SET, 2, "aa", 4, "bb", [])]),
    # empty text with continuation lines: the continuation is the whole text
    ("3#ab:\nfirst\n  second", [(SET, 3, "ab", 3, "ab", ["first", "  second"])]),
    # continuation after text
    ("3#ab:first\nsecond\n\tthird", [(SET, 3, "ab", 3, "ab", ["first", "second", "\tthird"])]),
    # blank lines inside continuation kept, before the next op / the end dropped
    ("3#ab:a\n\nb\n\n\n5#cd:c\n\n", [(SET, 3, "ab", 3, "ab", ["a", "", "b"]),
                                    (SET, 5, "cd", 5, "cd", ["c"])]),
    ("3#ab:\n\n4#cd:x", [(SET, 3, "ab", 3, "ab", []), (SET, 4, "cd", 4, "cd", ["x"])]),
    # inserts: space or ':' separator
    (">+3#ab text", [(INSERT_AFTER, 3, "ab", 3, "ab", ["text"])]),
    (">+3#ab:text", [(INSERT_AFTER, 3, "ab", 3, "ab", ["text"])]),
    ("<+3#ab  two spaces", [(INSERT_BEFORE, 3, "ab", 3, "ab", [" two spaces"])]),
    ("<+3#ab:", [(INSERT_BEFORE, 3, "ab", 3, "ab", [""])]),
    ("<+3#ab ", [(INSERT_BEFORE, 3, "ab", 3, "ab", [""])]),
    ("<+3#ab", [(INSERT_BEFORE, 3, "ab", 3, "ab", [""])]),
    (">+3#ab first\nsecond", [(INSERT_AFTER, 3, "ab", 3, "ab", ["first", "second"])]),
    (">+3#ab:\nfirst\nsecond", [(INSERT_AFTER, 3, "ab", 3, "ab", ["first", "second"])]),
    # blank lines before the first op are ignored
    ("\n\n1#ab:x", [(SET, 1, "ab", 1, "ab", ["x"])]),
    # a line starting with digits but no '#' is content
    ("1#ab:x\n12 apples", [(SET, 1, "ab", 1, "ab", ["x", "12 apples"])]),
    # a line that starts with '>' or '<' but not '>+' is content
    ("1#ab:x\n<div>\n> quote", [(SET, 1, "ab", 1, "ab", ["x", "<div>", "> quote"])]),
    # fenced body
    ("```text\n1#ab:x\n```", [(SET, 1, "ab", 1, "ab", ["x"])]),
    ("\n~~~~\n>+1#ab y\n~~~~\n", [(INSERT_AFTER, 1, "ab", 1, "ab", ["y"])]),
])
def test_parse_ops(body, expected):
    assert _ops(body) == expected


def test_parse_ops_numbers_and_raw():
    ops = parse_ops(["1#ab:x", ">+2#cd y", "more"], SRC)
    assert [o.number for o in ops] == [1, 2]
    assert [o.raw for o in ops] == ["1#ab:x", ">+2#cd y"]


@pytest.mark.parametrize("body, message, line", [
    ("4#ab-2#cd:x", "end-first", 11),
    ("1#ab:x\n3#ab-2#cd:", "end-first", 12),
    ("3#ab text", "expected ':'", 11),
    ("3#ab", "expected ':'", 11),
    ("3#abc:x", "expected ':'", 11),
    ("3#g1:x", "not a line ID", 11),
    ("0#ab:x", "start at 1", 11),
    (">+3ab x", "'#'", 11),
    (">+#ab x", "line number", 11),
    (">+3#abx", "space or ':'", 11),
    ("2#aa-x:", "range end", 11),
    ("just text", "expected a hashline operation", 11),
    ("\n\n", "no operation", 10),
    ("", "no operation", 10),
])
def test_parse_ops_refusals(body, message, line):
    with pytest.raises(ParseError) as err:
        parse_ops(body.split("\n"), SRC)
    problem = err.value.problems[0]
    assert message in problem.reason
    assert problem.response_line == line
    assert problem.directive == "FILE_HASHLINE_PATCH f.txt"


def test_parse_ops_error_line_counts_fence_and_first_line():
    with pytest.raises(ParseError) as err:
        parse_ops(["", "```", "1#ab:x", "9#zz:y", "```"], SRC, first_line=40)
    assert err.value.problems[0].response_line == 43


# ---------------------------------------------------------------------------- applying

BASE = ["alpha", "beta", "gamma", "delta", "epsilon"]


def _apply(lines: list[str], ops_text: list[str], *, data: bytes | None = None):
    ft = FileText.from_bytes(data) if data is not None else file_text("\n".join(lines) + "\n")
    edit = HashlineEdit("f.txt", parse_ops(ops_text, SRC), SRC)
    new, added, removed = apply_hashline(ft, edit, "f.txt")
    return new, added, removed


def R(n: int) -> str:
    return ref(BASE, n)


@pytest.mark.parametrize("ops, expected, added, removed", [
    ([f"{R(2)}:BETA"], ["alpha", "BETA", "gamma", "delta", "epsilon"], 1, 1),
    ([f"{R(2)}:"], ["alpha", "gamma", "delta", "epsilon"], 0, 1),
    ([f"{R(2)}-{R(4)}:mid"], ["alpha", "mid", "epsilon"], 1, 3),
    ([f"{R(2)}-{R(4)}:"], ["alpha", "epsilon"], 0, 3),
    ([f"{R(1)}:", "one", "two"], ["one", "two", "beta", "gamma", "delta", "epsilon"], 2, 1),
    ([f">+{R(5)} zeta"], BASE + ["zeta"], 1, 0),
    ([f"<+{R(1)} zero"], ["zero"] + BASE, 1, 0),
    ([f"<+{R(1)}"], [""] + BASE, 1, 0),
    # inserts at one anchor keep their order
    ([f"<+{R(3)} a", f"<+{R(3)} b", f">+{R(3)} c", f">+{R(3)} d"],
     ["alpha", "beta", "a", "b", "gamma", "c", "d", "delta", "epsilon"], 4, 0),
    # between L and L+1: '>+L' before '<+L+1', whatever the order written
    ([f"<+{R(3)} before3", f">+{R(2)} after2"],
     ["alpha", "beta", "after2", "before3", "gamma", "delta", "epsilon"], 2, 0),
    # an insert anchored on a replaced line goes before / after the replacement
    ([f"{R(2)}-{R(4)}:mid", f"<+{R(3)} pre", f">+{R(3)} post", f">+{R(2)} post2"],
     ["alpha", "pre", "mid", "post2", "post", "epsilon"], 4, 3),
    ([f"{R(3)}:", f"<+{R(3)} x", f">+{R(3)} y"],
     ["alpha", "beta", "x", "y", "delta", "epsilon"], 2, 1),
    # all numbers refer to the original file
    ([f"<+{R(1)} top", f"{R(3)}:G", f"{R(5)}:E"],
     ["top", "alpha", "beta", "G", "delta", "E"], 3, 2),
    # op order in the response does not matter
    ([f"{R(5)}:E", f"{R(1)}:A"], ["A", "beta", "gamma", "delta", "E"], 2, 2),
    # letters instead of hex
    ([f"2#{to_letters(line_id('beta'))}:B"], ["alpha", "B", "gamma", "delta", "epsilon"], 1, 1),
])
def test_apply(ops, expected, added, removed):
    new, a, r = _apply(BASE, ops)
    assert text_of(new) == "\n".join(expected) + "\n"
    assert (a, r) == (added, removed)


def test_seed_example_applies():
    case = SEEDS / "hashline-example"
    before = (case / "before/src/main.rs").read_bytes()
    ops = ["<+1#6c mod hello;", "<+1#6c ", "2#33:    hello::hello();"]
    edit = HashlineEdit("src/main.rs", parse_ops(ops, SRC), SRC)
    new, added, removed = apply_hashline(FileText.from_bytes(before), edit, "src/main.rs")
    assert new.to_bytes() == (case / "after/src/main.rs").read_bytes()
    assert (added, removed) == (3, 1)


def test_seed_stale_example_refused_per_reference():
    case = SEEDS / "hashline-example-stale"
    ft = FileText.from_bytes((case / "before/src/main.rs").read_bytes())
    edit = HashlineEdit("src/main.rs", parse_ops([">+1#ZZ:mod hello;", ">+2#ZZ:",
                                                 "5#ZZ:    hello::hello();"], SRC), SRC)
    with pytest.raises(ApplyError) as err:
        apply_hashline(ft, edit, "src/main.rs")
    problems = err.value.problems
    assert len(problems) == 3
    assert [p.edit for p in problems] == [1, 2, 3]
    assert "stale" in problems[0].reason and "1#6c" in problems[0].reason
    assert "does not exist" in problems[2].reason
    assert all(p.file == "src/main.rs" and p.nearby_label == "current lines" for p in problems)
    assert problems[0].nearby == [(1, "1#6c:fn main() {"), (2, '2#33:    println!("Old Message");'),
                                  (3, f"3#{line_id('}')}:}}")]
    assert "src/main.rs" in err.value.render()


def wrong_id(line: str) -> str:
    """An ID that is not the line's."""
    return "00" if line_id(line) != "00" else "01"


@pytest.mark.parametrize("ops, bad_edits, reason", [
    (["9#00:x"], [1], "does not exist"),
    ([f"2#{wrong_id('beta')}:x"], [1], "stale"),
    ([f">+2#{wrong_id('beta')} x"], [1], "stale"),
    ([f"<+6#{line_id('beta')} x"], [1], "does not exist"),
    ([f"{R(2)}-4#{wrong_id('delta')}:x"], [1], "stale"),
    ([f"{R(2)}-9#00:x"], [1], "does not exist"),
    # one problem per bad reference; good ones are not reported
    ([f"{R(1)}:ok", f"2#{wrong_id('beta')}:x", f"{R(3)}:ok", "7#00:y"], [2, 4], "stale"),
    ([f"1#{wrong_id('alpha')}-5#{wrong_id('epsilon')}:x"], [1, 1], "stale"),
])
def test_bad_references_refuse(ops, bad_edits, reason):
    with pytest.raises(ApplyError) as err:
        _apply(BASE, ops)
    problems = err.value.problems
    assert [p.edit for p in problems] == bad_edits
    assert reason in problems[0].reason
    assert all(p.nearby and p.nearby_label == "current lines" for p in problems)
    assert problems[-1].hint


def test_nearby_shows_lines_around_mismatch():
    lines = [f"line {i}" for i in range(1, 11)]
    wrong = next(f"{h:02x}" for h in range(256) if f"{h:02x}" != line_id("line 6"))
    with pytest.raises(ApplyError) as err:
        _apply(lines, [f"6#{wrong}:x"])
    assert err.value.problems[0].nearby == [(k, f"{k}#{line_id(f'line {k}')}:line {k}")
                                            for k in range(4, 9)]


@pytest.mark.parametrize("ops", [
    [f"{R(2)}:x", f"{R(2)}:y"],
    [f"{R(2)}-{R(4)}:x", f"{R(4)}:y"],
    [f"{R(3)}:y", f"{R(1)}-{R(5)}:x"],
])
def test_overlapping_edits_refused(ops):
    with pytest.raises(ApplyError) as err:
        _apply(BASE, ops)
    assert "overlap" in err.value.problems[0].reason


def test_adjacent_edits_do_not_overlap():
    new, _, _ = _apply(BASE, [f"{R(2)}:B", f"{R(3)}-{R(4)}:CD"])
    assert new.lines == ["alpha", "B", "CD", "epsilon"]


@pytest.mark.parametrize("data, ops, expected", [
    # CRLF file: new lines take CRLF
    (b"a\r\nb\r\nc\r\n", lambda: [f"2#{line_id('b')}:B", f">+3#{line_id('c')} d"],
     b"a\r\nB\r\nc\r\nd\r\n"),
    # mixed endings: untouched lines keep theirs, new ones take the dominant one
    (b"a\r\nb\nc\r\nd\r\n", lambda: [f"2#{line_id('b')}:B"], b"a\r\nB\r\nc\r\nd\r\n"),
    (b"a\r\nb\nc\r\nd\r\n", lambda: [f">+1#{line_id('a')} x"], b"a\r\nx\r\nb\nc\r\nd\r\n"),
    # no final newline kept, also when inserting after the last line
    (b"a\nb", lambda: [f"2#{line_id('b')}:B"], b"a\nB"),
    (b"a\nb", lambda: [f">+2#{line_id('b')} c"], b"a\nb\nc"),
    (b"a\nb", lambda: [f"2#{line_id('b')}:"], b"a"),
    # BOM kept; the first line's id is computed without it
    (b"\xef\xbb\xbfa\nb\n", lambda: [f"1#{line_id('a')}:A"], b"\xef\xbb\xbfA\nb\n"),
    # deleting everything
    (b"a\nb\n", lambda: [f"1#{line_id('a')}-2#{line_id('b')}:"], b""),
    # bytes that are not UTF-8 survive
    (b"\xff\xfe\nb\n", lambda: [f"2#{line_id('b')}:B"], b"\xff\xfe\nB\n"),
])
def test_apply_keeps_file_shape(data, ops, expected):
    new, _, _ = _apply([], ops(), data=data)
    assert new.to_bytes() == expected


def test_non_utf8_line_id_matches_view():
    data = b"\xff\xfe\nb\n"
    view = render_view("x.bin", data)
    ident = view.split("\n")[1].split(":")[0].split("#")[1]
    new, _, _ = _apply([], [f"1#{ident}:ok"], data=data)
    assert new.to_bytes() == b"ok\nb\n"


def test_apply_refuses_on_empty_file():
    with pytest.raises(ApplyError) as err:
        _apply([], [f">+1#{line_id('')} x"], data=b"")
    assert "does not exist" in err.value.problems[0].reason


# ---------------------------------------------------------------------------- view

@pytest.mark.parametrize("data, rows", [
    (b"fn main() {\n    x\n}\n", ["fn main() {", "    x", "}"]),
    (b"a\r\nb", ["a", "b"]),
    (b"\xef\xbb\xbfhead\n", ["head"]),
    (b"", []),
])
def test_render_view(data, rows):
    out = render_view("src/a.rs", data)
    expected = ['<FILE_CONTENT path="src/a.rs">']
    expected += [f"{i}#{line_id(t)}:{t}" for i, t in enumerate(rows, 1)]
    expected += ["</FILE_CONTENT>"]
    assert out == "\n".join(expected)


def test_view_round_trip():
    """Every reference in the view is accepted by apply."""
    data = b"one\ntwo\n  three\n"
    view = render_view("f", data).split("\n")[1:-1]
    ops = [row.split(":", 1)[0] + ":" + row.split(":", 1)[1].upper() for row in view]
    new, _, _ = _apply([], ops, data=data)
    assert new.to_bytes() == b"ONE\nTWO\n  THREE\n"
