"""The line model (FileText) kept as bytes plus line offsets, and TextBuilder.

The reference below is the plain model FileText must agree with: decode the whole file
with surrogateescape, drop a BOM, split at CRLF, LF or a lone CR (nothing else).
"""
from __future__ import annotations

import re
import tracemalloc

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText, TextBuilder

SETTINGS = settings(max_examples=400, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def reference(data: bytes) -> tuple[list[str], list[str], bool]:
    text = data.decode("utf-8", "surrogateescape")
    bom = text.startswith("\ufeff")
    if bom:
        text = text[1:]
    lines, endings = [], []
    for m in re.finditer(r"([^\r\n]*)(\r\n|\n|\r|$)", text):
        if not m.group(0):
            break
        lines.append(m.group(1))
        endings.append(m.group(2))
    return lines, endings, bom


# bytes that make line splitting and decoding hard: every ending, invalid and truncated
# UTF-8, a BOM (at the start and elsewhere), characters str.splitlines would split on
PIECES = [b"a", b"b c", b"  x", b"", b"\n", b"\r\n", b"\r", b"\r\r\n", b"\n\r", b"\xff",
          b"\xe2\x82", b"\xc3\xa9", b"\xef\xbb\xbf", b"\x0b", b"\x0c", b"\xe2\x80\xa8", b"\x00"]
file_bytes = st.lists(st.sampled_from(PIECES), max_size=30).map(b"".join)


@SETTINGS
@given(file_bytes)
def test_line_model_matches_the_reference(data):
    lines, endings, bom = reference(data)
    ft = FileText.from_bytes(data)
    assert len(ft) == len(lines)  # counted from the bytes, before any offsets exist
    assert list(ft.lines) == lines and ft.lines == lines
    # kept lines keep their own endings: the whole file kept is the same bytes
    kept = TextBuilder(ft, "\n")
    kept.keep(0, len(lines))
    assert kept.finish(ft.final_newline).to_bytes() == data
    assert [ft.lines[i] for i in range(len(lines))] == lines
    assert ft.bom == bom
    assert ft.final_newline == (not endings or endings[-1] != "")
    assert ft.to_bytes() == data
    assert text_of(ft) == data.decode("utf-8", "surrogateescape")


@SETTINGS
@given(file_bytes, st.integers(-3, 40), st.integers(-3, 40))
def test_slices_and_iteration_from_a_line(data, a, b):
    lines, _endings, _bom = reference(data)
    ft = FileText.from_bytes(data)
    assert ft.lines[a:b] == lines[a:b]
    assert ft.lines[a:b:2] == lines[a:b:2]
    assert list(ft.lines.iter_from(max(a, 0))) == lines[max(a, 0):]


def test_dominant_ending_counts_every_kind_and_ties_go_to_lf():
    assert FileText.from_bytes(b"a\r\nb\r\nc\n").dominant_ending() == "\r\n"
    assert FileText.from_bytes(b"a\rb\rc\r\n").dominant_ending() == "\r"
    assert FileText.from_bytes(b"a\r\nb\n").dominant_ending() == "\n"
    assert FileText.from_bytes(b"a\rb\r\n").dominant_ending() == "\r\n"
    assert FileText.from_bytes(b"no ending").dominant_ending() == "\n"


def test_index_errors_like_a_list():
    ft = FileText.from_bytes(b"a\nb")
    assert ft.lines[-1] == "b" and ft.lines[0] == "a"
    for bad in (2, -3):
        try:
            ft.lines[bad]
        except IndexError:
            pass
        else:
            raise AssertionError(f"lines[{bad}] did not raise")


def build(data: bytes, steps, final_newline: bool, ending: str = "\n") -> bytes:
    b = TextBuilder(FileText.from_bytes(data), ending)
    for kind, arg in steps:
        if kind == "keep":
            b.keep(*arg)
        else:
            b.add(arg)
    return b.finish(final_newline).to_bytes()


def test_builder_copies_runs_with_their_own_endings():
    data = b"a\r\nb\rc\n"
    assert build(data, [("keep", (0, 3))], True) == data
    assert build(data, [("keep", (0, 1)), ("add", ["X", "Y"]), ("keep", (2, 3))], True) \
        == b"a\r\nX\nY\nc\n"


def test_builder_gives_the_old_last_line_an_ending_when_lines_follow():
    assert build(b"a\nb", [("keep", (0, 2)), ("add", ["c"])], False, "\r\n") == b"a\nb\r\nc"
    assert build(b"a\nb", [("keep", (0, 2)), ("add", ["c"])], True, "\r\n") == b"a\nb\r\nc\r\n"
    assert build(b"a\nb", [("keep", (0, 2))], True) == b"a\nb\n"


def test_builder_final_newline_state_and_bom():
    assert build(b"a\r\nb\r\n", [("keep", (0, 2))], False) == b"a\r\nb"
    assert build(b"a\n", [("keep", (0, 1)), ("add", ["z"])], False) == b"a\nz"
    assert build(b"\xef\xbb\xbfa\n", [("add", ["b"])], True) == b"\xef\xbb\xbfb\n"
    assert build(b"\xef\xbb\xbfa\n", [], True) == b"\xef\xbb\xbf"
    assert build(b"", [("add", ["\udcff"])], True) == b"\xff\n"


def test_builder_merges_adjacent_runs_into_one_copy():
    b = TextBuilder(FileText.from_bytes(b"".join(b"%d\n" % i for i in range(100))), "\n")
    for i in range(100):
        b.add(())  # nothing added: the run stays open
        b.keep(i, i + 1)
    assert len(b._parts) == 0 and b._run == (0, 100)


def test_big_file_edits_do_not_hold_a_str_per_line():
    """The whole apply of a 200,000-line file peaks well under three times the file's size
    (a str and two list slots per line took about five times)."""
    n = 200_000
    data = b"".join(b"    value_%06d = compute(%d, 'some text here')\n" % (i, i) for i in range(n))
    hunks = [Hunk([(" ", f"    value_{i:06d} = compute({i}, 'some text here')"),
                   ("-", f"    value_{i + 1:06d} = compute({i + 1}, 'some text here')"),
                   ("+", f"    value_{i + 1:06d} = compute({i + 1}, 'other text')")], number=k)
             for k, i in enumerate(range(0, n - 2, 1000))]
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        new, added, removed = apply_hunks(FileText.from_bytes(data), hunks, path="f")
        out = new.to_bytes()
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert added == removed == len(hunks)
    assert out.count(b"'other text'") == len(hunks) and len(out) == len(data) - 4 * len(hunks)
    assert peak < 3 * len(data), (peak, len(data))


# --------------------------------------------------------------------------- @@ headers

import pytest  # noqa: E402

from git_aiapply.text import HunkHeader, read_hunk_header  # noqa: E402
from conftest import text_of


@pytest.mark.parametrize(("line", "expected"), [
    ("@@ -12,7 +12,8 @@ def main():", HunkHeader(12, 7, 12, 8, "def main():")),
    ("@@ -1 +1 @@", HunkHeader(1, None, 1, None, "")),
    ("@@ -0,0 +1,3 @@", HunkHeader(0, 0, 1, 3, "")),
    ("@@\t-3,4\t+3,5\t@@", HunkHeader(3, 4, 3, 5, "")),  # tabs, as models write them
    ("@@ -3,4 +3,5", HunkHeader(3, 4, 3, 5, None)),  # no closing @@: numbers still read
    ("@@", None),
    ("@@ def main():", None),  # an apply-patch anchor
    ("@@ -3 @@", None),  # no new side
    ("@@ -\u0663 +1 @@", None),  # digits are ASCII digits
])
def test_read_hunk_header(line, expected):
    assert read_hunk_header(line) == expected


def test_read_hunk_header_reads_what_git_writes(tmp_path):
    import subprocess

    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("".join(f"line {i}\n" for i in range(40)))
    b.write_text("".join(f"line {i}\n" for i in range(40) if i not in (3, 30)) + "end\n")
    out = subprocess.run(["git", "diff", "--no-index", "-U2", str(a), str(b)],
                         capture_output=True, text=True).stdout
    hunks = []  # [header, old lines, new lines] as the hunk bodies count them
    for line in out.splitlines():
        if line.startswith("@@"):
            hunks.append([read_hunk_header(line), 0, 0])
        elif hunks and line[:1] in (" ", "-", "+"):
            hunks[-1][1] += line[0] != "+"
            hunks[-1][2] += line[0] != "-"
    assert len(hunks) == 3
    for header, old, new in hunks:
        assert (header.old_count, header.new_count) == (old, new)
    # the first hunk starts two lines of context before the removed line 4 (1-based)
    assert (hunks[0][0].old_start, hunks[0][0].new_start) == (2, 2)
