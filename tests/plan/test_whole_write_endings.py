"""A whole-file write over a tracked file keeps the file's line-ending convention (its
dominant ending) when the new content comes with plain LF; content that brings its own CR
endings, new files and binary files are written as given (BEHAVIOR.md §5)."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from plan_base import fc, plan

FC = '<FILE_NEW file_path="m.py">\n{}\n</FILE_NEW>'


def _write(body: str, files: dict) -> bytes:
    return plan(fc(FC.format(body)), files).final["m.py"].data


def test_a_crlf_file_rewritten_with_lf_content_stays_crlf():
    old = b"def add(a, b):\r\n    return a + b\r\n"
    assert _write("def add(a, b):\n    # add\n    return a + b", {"m.py": (0o100644, old)}) \
        == b"def add(a, b):\r\n    # add\r\n    return a + b\r\n"


def test_content_with_its_own_crlf_is_kept_as_given():
    old = b"a\r\nb\r\n"
    body = "x\r\ny"
    assert b"\r\n" in _write(body, {"m.py": (0o100644, old)})
    lf_old = b"a\nb\n"
    assert _write(body, {"m.py": (0o100644, lf_old)}).count(b"\r\n") >= 1


def test_an_lf_file_and_a_new_file_take_the_content_as_given():
    assert _write("x\ny", {"m.py": (0o100644, b"a\nb\n")}) == b"x\ny\n"
    assert _write("x\ny", {}) == b"x\ny\n"


def test_a_mostly_lf_file_is_rewritten_with_lf():
    assert _write("x\ny", {"m.py": (0o100644, b"a\r\nb\nc\n")}) == b"x\ny\n"


def test_a_binary_file_is_not_converted():
    assert _write("x\ny", {"m.py": (0o100644, b"\x00a\r\nb\r\n")}) == b"x\ny\n"


@settings(max_examples=150, deadline=None)
@given(lines=st.lists(st.from_regex(r"[a-z0-9 =()+]{0,10}[a-z0-9]", fullmatch=True),
                      min_size=1, max_size=8),
       ending=st.sampled_from(["\r\n", "\r"]))
def test_rewriting_with_lf_content_takes_the_old_dominant_ending(lines, ending):
    old = ("o1" + ending + "o2" + ending).encode()
    data = _write("\n".join(lines), {"m.py": (0o100644, old)})
    assert data == "".join(ln + ending for ln in lines).encode()
