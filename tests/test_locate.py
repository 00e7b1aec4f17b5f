"""The locator as a plain function: file text + hunks -> new file text."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.locate import LineIndex, apply_hunks, fold_punctuation
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText


def H(spec: str, **kw) -> Hunk:
    """A hunk from diff-like text: each line starts with ' ', '-' or '+'."""
    lines = []
    for raw in spec.split("\n"):
        if raw == "":
            continue
        lines.append((raw[0], raw[1:]))
    return Hunk(lines, **kw)


def run(before: bytes, *hunks: Hunk, **kw) -> bytes:
    new, _a, _r = apply_hunks(FileText.from_bytes(before), list(hunks), path="f", **kw)
    return new.to_bytes()


# (name, file before, hunks, file after)
CASES = [
    ("exact", b"a\nb\nc\n", [H(" a\n-b\n+B\n c")], b"a\nB\nc\n"),
    ("trailing whitespace tier keeps context bytes", b"a  \nb\t\nc\n", [H(" a\n-b\n+B")], b"a  \nB\nc\n"),
    ("indent more: added lines shifted", b"    if x:\n        y()\n", [H(" if x:\n-    y()\n+    z()\n+    w()")],
     b"    if x:\n        z()\n        w()\n"),
    ("indent less: added lines unshifted", b"if x:\n    y()\n", [H("     if x:\n-        y()\n+        z()")],
     b"if x:\n    z()\n"),
    ("blank added lines stay empty", b"  a\n  b\n", [H(" a\n+\n+c\n b")], b"  a\n\n  c\n  b\n"),
    ("punctuation folded", "x = \u201cq\u201d \u2014 1\ny\n".encode(), [H("-x = \"q\" - 1\n+x = 2")], b"x = 2\ny\n"),
    ("nbsp folded", "a\u00a0b\n".encode(), [H("-a b\n+ab")], b"ab\n"),
    ("crlf file keeps crlf, new lines take it", b"a\r\nb\r\n", [H(" a\n+x\n b")], b"a\r\nx\r\nb\r\n"),
    ("mixed endings: dominant for new", b"a\r\nb\nc\r\nd\r\n", [H(" b\n-c\n+C")], b"a\r\nb\nC\r\nd\r\n"),
    ("lone CR lines", b"a\rb\rc\r", [H("-b\n+B")], b"a\rB\rc\r"),
    ("no final newline kept", b"a\nb", [H("-b\n+c")], b"a\nc"),
    ("no final newline: append after last", b"a\nb", [H(" b\n+c")], b"a\nb\nc"),
    ("bom kept", b"\xef\xbb\xbfa\nb\n", [H("-a\n+A")], b"\xef\xbb\xbfA\nb\n"),
    ("additions only at end", b"a\n", [H("+b\n+c")], b"a\nb\nc\n"),
    ("additions into empty file", b"", [H("+x")], b"x\n"),
    ("line hint inserts after line", b"a\nb\nc\n", [H("+x", line_hint=1)], b"a\nx\nb\nc\n"),
    ("line hint 0 inserts at top", b"a\n", [H("+x", line_hint=0)], b"x\na\n"),
    ("hunks in reverse order", b"1\n2\n3\n4\n5\n", [H("-4\n+four"), H("-2\n+two", number=2)], b"1\ntwo\n3\nfour\n5\n"),
    ("ambiguity resolved by another edit's position", b"x\nx\ny\n", [H(" x\n-y\n+Y"), H("-x\n+X", number=2)],
     b"X\nx\nY\n"),
    ("identical edits, as many places as copies", b"x\na\nx\n", [H("-x\n+X"), H("-x\n+X", number=2)], b"X\na\nX\n"),
    ("line hint chooses nearest", b"x\na\nb\nc\nx\n", [H("-x\n+X", line_hint=5)], b"x\na\nb\nc\nX\n"),
    ("anchor then first fit", b"class A:\n  pass\nclass B:\n  pass\n", [H("-  pass\n+  run()", anchors=["class B:"])],
     b"class A:\n  pass\nclass B:\n  run()\n"),
    ("anchor prefix match", b"class A(Base):\n  pass\nclass B(Base):\n  pass\n",
     [H("-  pass\n+  go()", anchors=["class B"])], b"class A(Base):\n  pass\nclass B(Base):\n  go()\n"),
    ("nested anchors", b"class A:\n def f():\n  pass\nclass B:\n def f():\n  pass\n",
     [H("-  pass\n+  x", anchors=["class B:", "def f():"])], b"class A:\n def f():\n  pass\nclass B:\n def f():\n  x\n"),
    ("additions after anchor", b"def f():\n  a\ndef g():\n  b\n", [H("+  new", anchors=["def g():"])],
     b"def f():\n  a\ndef g():\n  new\n  b\n"),
    ("end of file marker picks the last copy", b"x\ny\nx\n", [H("-x\n+X", at_eof=True)], b"x\ny\nX\n"),
    ("ensure final newline", b"a\nb", [H("-a\n+A")], b"A\nb\n", {"ensure_final_newline": True}),
    ("unified diff: no newline marker on new side", b"a\nb\n", [H(" a\n-b\n+c", new_no_newline=True)], b"a\nc"),
    ("unified diff: newline added", b"a\nb", [H(" a\n-b\n+c", old_no_newline=True)], b"a\nc\n"),
    ("invalid utf-8 outside edit survives", b"\xff\xfe\nb\n\xc3\n", [H("-b\n+B")], b"\xff\xfe\nB\n\xc3\n"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_apply(case):
    _name, before, hunks, after, *kw = case
    assert run(before, *hunks, **(kw[0] if kw else {})) == after


REFUSALS = [
    ("not found", b"a\nb\n", [H("-c\n+C")], "could not find"),
    ("ambiguous names both lines", b"x\na\nx\n", [H("-x\n+X")], "lines 1, 3"),
    ("ambiguous with hint tie", b"x\na\nx\n", [H("-x\n+X", line_hint=2)], "ambiguous"),
    ("overlap", b"a\nb\nc\n", [H(" a\n-b\n+B"), H("-b\n c\n+C", number=2)], "overlap"),
    ("eof marker but not at end", b"x\ny\n", [H("-x\n+X", at_eof=True)], "End of File"),
    ("anchor missing", b"a\nb\n", [H("-a\n+A", anchors=["class Z"])], "anchor"),
    ("old side after anchor missing", b"a\nb\nclass Z\nc\n", [H("-a\n+A", anchors=["class Z"])], "after the anchor"),
]


@pytest.mark.parametrize("before,hunks,why", [c[1:] for c in REFUSALS], ids=[c[0] for c in REFUSALS])
def test_refusals(before, hunks, why):
    with pytest.raises(ApplyError) as e:
        run(before, *hunks)
    assert why in str(e.value)


def test_first_tier_with_a_match_wins():
    # exact match at line 2 wins over a whitespace-tolerant match at line 1
    assert run(b"  x\nx\n", H("-x\n+y")) == b"  x\ny\n"


def test_not_found_shows_closest_lines_numbered():
    before = b"".join(b"line %d\n" % i for i in range(1, 30)) + b"def add(a, b):\n    return a + b\n"
    with pytest.raises(ApplyError) as e:
        run(before, H(" def add(a, b):\n-    return a - b\n+    return a + b"))
    p = e.value.problems[0]
    assert (30, "def add(a, b):") in p.nearby
    assert p.edit == 1 and p.file == "f"


def test_all_failing_edits_reported_at_once():
    with pytest.raises(ApplyError) as e:
        run(b"a\nb\n", H("-x\n+X"), H("-y\n+Y", number=2))
    assert [p.edit for p in e.value.problems] == [1, 2]


def test_counts_added_and_removed():
    new, added, removed = apply_hunks(FileText.from_bytes(b"a\nb\nc\n"), [H(" a\n-b\n-c\n+B")], path="f")
    assert (added, removed) == (1, 2)


def test_fold_punctuation():
    assert fold_punctuation("\u2018a\u2019 \u201cb\u201d \u2013 \u2026") == "'a' \"b\" - ..."


def test_index_checks_only_positions_of_the_rarest_line():
    # 10,000 identical lines and one unique line: the unique line anchors the search
    lines = ["same"] * 10000 + ["unique"] + ["same"] * 10
    idx = LineIndex(lines)
    assert idx.fits(["same", "unique", "same"], 0) == [9999]


def test_large_file_many_hunks_linear():
    n = 60000
    lines = [f"line {i}" for i in range(n)]
    text = ("\n".join(lines) + "\n").encode()
    hunks = [H(f" line {i}\n-line {i + 1}\n+LINE {i + 1}", number=k) for k, i in enumerate(range(0, n - 2, 30))]
    out = run(text, *hunks).decode().split("\n")
    assert out[1] == "LINE 1" and out[31] == "LINE 31" and out[2] == "line 2"
