"""The locator as a plain function: file text + hunks -> new file text."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.locate.matching import LineIndex, fold_punctuation
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
    # (on a file with lines '@@ -0,0' is refused: tests/formats/test_unified_diff_shapes.py)
    ("line hint 0 fills an empty file", b"", [H("+x", line_hint=0)], b"x\n"),
    ("hunks in reverse order", b"1\n2\n3\n4\n5\n", [H("-4\n+four"), H("-2\n+two", number=2)], b"1\ntwo\n3\nfour\n5\n"),
    ("ambiguity resolved by another edit's changed lines", b"x\nx\ny\n", [H("-x\n+X\n y"), H("-x\n+Z", number=2)],
     b"Z\nX\ny\n"),
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
    ("insertion inside removed lines", b"a\nb\nc\nd\n", [H("-a\n-b\n-c\n+X"), H(" a\n+Y\n b", number=2)],
     "overlap"),
    ("context-only edit must fit", b"a\nb\n", [H(" a\n c")], "could not find"),
    ("changes another edit's context: two readings", b"x\nx\ny\n", [H(" x\n-y\n+Y"), H("-x\n+X", number=2)],
     "ambiguous"),
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


# ---- placement (BEHAVIOR.md §3): only changed lines may not overlap ---------------------

def refused(before: bytes, *hunks: Hunk) -> ApplyError:
    with pytest.raises(ApplyError) as e:
        run(before, *hunks)
    return e.value


def test_two_identical_blocks_one_edit_is_refused_naming_both():
    before = b"def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n"
    err = refused(before, H("-    x = 1\n+    x = 2\n     return x"))
    assert "ambiguous" in str(err) and "lines 2, 6" in str(err)


def test_shared_context_never_eliminates_the_right_place():
    """The bug of issue 10: edit 2's second candidate shares a context line with edit 1;
    treating that as an overlap made edit 2 look certain (the first block).  Both places
    are consistent, neither order rule decides: refused, in either response order."""
    before = b"x = 1\nreturn x\n\nx = 1\nreturn x\nend\n"
    edit_end = H("     return x\n-end\n+END")
    edit_x = H("-x = 1\n+x = 2\n return x", number=2)
    for hunks in ([edit_end, edit_x], [edit_x, edit_end]):
        err = refused(before, *hunks)
        assert "ambiguous" in str(err) and "lines 1, 4" in str(err)
        assert [p.edit for p in err.problems] == [2]


def test_two_edits_for_two_identical_blocks_take_them_in_response_order():
    before = b"def a():\n    x = 1\n\ndef b():\n    x = 1\n"
    assert run(before, H("-    x = 1\n+    x = 2"), H("-    x = 1\n+    x = 3", number=2)) == \
        b"def a():\n    x = 2\n\ndef b():\n    x = 3\n"
    assert run(before, H("-    x = 1\n+    x = 3"), H("-    x = 1\n+    x = 2", number=2)) == \
        b"def a():\n    x = 3\n\ndef b():\n    x = 2\n"


def test_identical_edits_three_copies_three_places_in_any_response_position():
    before = b"u\nk\nk\nk\n"
    # the unique edit comes first but sits above: in order, the copies follow it
    assert run(before, H("-u\n+U"), H("-k\n+K", number=2), H("-k\n+K", number=3), H("-k\n+K", number=4)) \
        == b"U\nK\nK\nK\n"
    # out of order (the unique edit last, above them): still one way, identical copies
    assert run(before, H("-k\n+K"), H("-k\n+K", number=2), H("-k\n+K", number=3), H("-u\n+U", number=4)) \
        == b"U\nK\nK\nK\n"


def test_identical_edits_more_places_than_copies_are_refused():
    err = refused(b"k\nk\nk\n", H("-k\n+K"), H("-k\n+K", number=2))
    assert "ambiguous" in str(err)


def test_unique_neighbour_decides_by_response_order():
    before = b"class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        pass\n"
    doc = H(" class B:\n+    '''B.'''")
    body = H("     def f(self):\n-        pass\n+        return 1", number=2)
    # the docstring edit first: the body edit comes after it, in B
    assert run(before, doc, body) == (b"class A:\n    def f(self):\n        pass\nclass B:\n"
                                      b"    '''B.'''\n    def f(self):\n        return 1\n")
    # the body edit first: it comes before the docstring edit, in A
    assert run(before, body, doc) == (b"class A:\n    def f(self):\n        return 1\nclass B:\n"
                                      b"    '''B.'''\n    def f(self):\n        pass\n")


def test_out_of_order_but_unique_in_any_order():
    # edit 1 (x, ambiguous) then edit 2 (unique, at the top): in response order x would
    # have to come before the top, impossible; in any order, edit 2's change rules out
    # nothing, so x stays ambiguous: refused.  With a third edit pinning one x, unique.
    before = b"top\nx\nmid\nx\n"
    assert "ambiguous" in str(refused(before, H("-x\n+X"), H("-top\n+TOP", number=2)))
    assert run(before, H(" mid\n-x\n+Y"), H("-x\n+X", number=2), H("-top\n+TOP", number=3)) == \
        b"TOP\nX\nmid\nY\n"


def test_hunks_sharing_one_context_line():
    before = b"a\nb\nc\nd\ne\n"
    assert run(before, H(" a\n-b\n+B\n c"), H(" c\n-d\n+D\n e", number=2)) == b"a\nB\nc\nD\ne\n"


def test_insertion_inside_an_earlier_blocks_range():
    before = b"import os\nimport sys\n\ndef main():\n    x = 1\n    return x\n"
    big = H(" import os\n import sys\n \n def main():\n-    x = 1\n+    x = 2\n     return x")
    imp = H(" import os\n+import json\n import sys", number=2)
    want = b"import os\nimport json\nimport sys\n\ndef main():\n    x = 2\n    return x\n"
    assert run(before, big, imp) == want
    assert run(before, imp, big) == want


def test_edit_may_change_a_line_another_edit_keeps_as_context():
    before = b"def f():\n    a = 1\n    return a\n"
    body = H(" def f():\n-    a = 1\n+    a = 2\n     return a")
    sig = H("-def f():\n+def f(x):", number=2)
    assert run(before, body, sig) == b"def f(x):\n    a = 2\n    return a\n"


def test_insertions_into_one_gap_keep_response_order():
    before = b"import os\nx = 1\n"
    assert run(before, H(" import os\n+import json"), H(" import os\n+import re", number=2)) == \
        b"import os\nimport json\nimport re\nx = 1\n"


def test_insertion_next_to_a_replaced_line():
    assert run(b"a\nb\nc\n", H("-b\n+B"), H(" a\n+X\n b", number=2)) == b"a\nX\nB\nc\n"
    assert run(b"a\nb\nc\n", H("-b\n+B"), H(" b\n+Y\n c", number=2)) == b"a\nB\nY\nc\n"


def test_context_only_edit_fits_and_is_dropped():
    # it may fit anywhere (even ambiguously): it changes nothing
    assert run(b"x\na\nx\n", H(" x"), H("-a\n+A", number=2)) == b"x\nA\nx\n"


def test_line_hints_break_ties_only_after_order():
    before = b"x\na\nx\n"
    assert run(before, H("-x\n+X", line_hint=3)) == b"x\na\nX\n"
    assert run(before, H("-x\n+X", line_hint=1)) == b"X\na\nx\n"
    assert "ambiguous" in str(refused(before, H("-x\n+X", line_hint=2)))


def test_many_identical_edits_in_order_are_linear_and_exact():
    n = 3000
    before = b"".join(b"k\nsep %d\n" % i for i in range(n))
    hunks = [H("-k\n+K", number=i + 1) for i in range(n)]
    out = run(before, *hunks)
    assert out == b"".join(b"K\nsep %d\n" % i for i in range(n))
    assert "ambiguous" in str(refused(before + b"k\n", *hunks))


def test_many_unique_edits_and_one_ambiguous_pair_resolved_by_neighbours():
    n = 2000
    lines = [f"line {i}" for i in range(n)]
    lines[1000] = lines[1500] = "dup"
    before = ("\n".join(lines) + "\n").encode()
    hunks = [H(f"-line {i}\n+LINE {i}", number=k + 1) for k, i in enumerate(range(0, n, 10))
             if i not in (1000, 1500)]
    # in response order between the edits of lines 1490 and 1510: the dup at 1500
    at = next(k for k, h in enumerate(hunks) if h.lines[0][1] == "line 1490") + 1
    hunks.insert(at, H("-dup\n+DUP", number=9999))
    out = run(before, *hunks).decode().split("\n")
    assert out[1500] == "DUP" and out[1000] == "dup" and out[10] == "LINE 10"


# ---- where a not-found edit parts from the file -------------------------------------

def _not_found(before: bytes, hunk: Hunk) -> str:
    return refused(before, hunk).problems[0].reason


def test_first_difference_when_the_edit_leaves_out_a_line():
    before = b"".join(b"pad %d\n" % i for i in range(20)) + b"def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n"
    reason = _not_found(before, H(" def f():\n     b = 2\n     c = 3\n-    return a\n+    return c"))
    assert "the closest place starts at line 21" in reason
    assert "leaves out line 22 ('    a = 1')" in reason


def test_first_difference_when_the_edit_adds_a_line():
    before = b"def f():\n    a = 1\n    c = 3\n    return a\n"
    reason = _not_found(before, H(" def f():\n     a = 1\n     b = 2\n     c = 3\n-    return a\n+    return c"))
    assert "the edit has '    b = 2' after line 2, which the file does not have there" in reason


def test_first_difference_when_a_line_differs():
    before = b"def f():\n    a = 1\n    c = 3\n    return a\n"
    reason = _not_found(before, H(" def f():\n     a = 1\n     c = 4\n-    return a\n+    return c"))
    assert "line 3 there is '    c = 3' where the edit has '    c = 4'" in reason


# ---- the placement rule against its definition, by brute force -------------------------

def _brute_force(before: list[str], hunks: list[Hunk]) -> list[str] | None:
    """BEHAVIOR.md §3 read literally over every assignment of exact-match places: the
    unique in-order placement, else the unique one in any order (identical edits being
    interchangeable, two edits making the same change at their places being one), else
    None (refused).  Independent of the locator's algorithm."""
    from itertools import product

    def places(h):
        old = h.old
        return [s for s in range(len(before) - len(old) + 1) if before[s:s + len(old)] == old]

    def runs(h, s):
        out, q, cur = [], s, None
        for tag, text in h.lines:
            if tag == " ":
                cur, q = None, q + 1
                continue
            if cur is None:
                cur = [q, q, []]
                out.append(cur)
            if tag == "-":
                q += 1
                cur[1] = q
            else:
                cur[2].append(text)
        return out

    def collide(r1, r2):
        for a1, b1, _ in r1:
            for a2, b2, _ in r2:
                if a1 < b1 and a2 < b2 and a1 < b2 and a2 < b1:
                    return True
                if a1 == b1 and a2 < a1 < b2 or a2 == b2 and a1 < a2 < b1:
                    return True
        return False

    if any(not places(h) for h in hunks):
        return None
    # the same edit given more often than its old side fits: the copies beyond are
    # restatements, applied once (BEHAVIOR.md §3)
    given: dict[tuple, int] = {}
    restated = set()
    for i, h in enumerate(hunks):
        key = (tuple(h.old), tuple(h.new))
        given[key] = given.get(key, 0) + 1
        if given[key] > len(places(h)):
            restated.add(i)
    changing = [i for i, h in enumerate(hunks)
                if any(t != " " for t, _ in h.lines) and i not in restated]
    sols = []
    for combo in product(*[places(hunks[i]) for i in changing]):
        rs = {i: runs(hunks[i], s) for i, s in zip(changing, combo)}
        ok = True
        for x in range(len(changing)):
            for y in range(x + 1, len(changing)):
                i, j = changing[x], changing[y]
                if collide(rs[i], rs[j]) and rs[i] != rs[j]:
                    ok = False  # (the same change stated twice is one change)
                if hunks[i].lines == hunks[j].lines and combo[x] >= combo[y]:
                    ok = False  # identical edits: one place each, taken in order
        if ok:
            sols.append(rs)

    def in_order(rs):
        spans = [(min(a for a, _b, _t in rs[i]), max(b for _a, b, _t in rs[i])) for i in changing]
        return all(spans[k + 1][0] >= spans[k][1] for k in range(len(spans) - 1))

    ordered = [s for s in sols if in_order(s)]
    pick = ordered[0] if len(ordered) == 1 else sols[0] if len(sols) == 1 else None
    if pick is None:
        return None
    once = [i for n, i in enumerate(changing) if pick[i] not in [pick[j] for j in changing[:n]]]
    allruns = sorted((a, b, i, k, t) for i in once for k, (a, b, t) in enumerate(pick[i]))
    out, pos = [], 0
    for a, b, _i, _k, t in allruns:
        out += before[pos:a] + t
        pos = b
    return out + before[pos:]


@pytest.mark.parametrize("seed", range(300))
def test_placement_matches_the_rule_by_brute_force(seed):
    import random

    rnd = random.Random(seed)
    before = [rnd.choice("abcx") for _ in range(rnd.randint(3, 9))]
    hunks = []
    for k in range(rnd.randint(1, 3)):
        s = rnd.randrange(len(before))
        n = rnd.randint(1, min(3, len(before) - s))
        lines = []
        for j, line in enumerate(before[s:s + n]):
            r = rnd.random()
            if r < 0.4:
                lines.append((" ", line))
            elif r < 0.8:
                lines.append(("-", line))
                if rnd.random() < 0.5:
                    lines.append(("+", line.upper() + str(k)))
            else:
                lines.append((" ", line))
                lines.append(("+", f"new{k}{j}"))
        hunks.append(Hunk(lines, number=k + 1))
    want = _brute_force(before, hunks)
    text = ("\n".join(before) + "\n").encode()
    try:
        got = run(text, *hunks).decode().split("\n")[:-1]
    except ApplyError:
        got = None
    assert got == want, (before, [h.lines for h in hunks])
