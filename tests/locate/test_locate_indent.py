"""What a loose match tolerated is corrected in what is added (BEHAVIOR.md §3), and
`@@` anchors name a block: the locator as a plain function, file text + hunks -> text."""
from __future__ import annotations

import pytest
from hypothesis import assume, given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText


def H(spec: str, **kw) -> Hunk:
    """A hunk from diff-like text: each line starts with ' ', '-' or '+'."""
    return Hunk([(raw[0], raw[1:]) for raw in spec.split("\n") if raw], **kw)


def run(before: bytes, *hunks: Hunk) -> bytes:
    new, _a, _r = apply_hunks(FileText.from_bytes(before), list(hunks), path="f")
    return new.to_bytes()


def refusal(before: bytes, *hunks: Hunk) -> str:
    with pytest.raises(ApplyError) as e:
        run(before, *hunks)
    return str(e.value)


# ---- indentation -----------------------------------------------------------------------

PY4 = b"def f(x):\n    if x:\n        a()\n    return x\n"

INDENT_CASES = [
    # the known bug: the response's 2-space lines were shifted, not re-levelled, so the
    # re-indented body left its `if`
    ("python 2 -> 4 spaces per level", PY4,
     H(" def f(x):\n-  if x:\n-    a()\n+  if x:\n+    b()\n+    c()"),
     b"def f(x):\n    if x:\n        b()\n        c()\n    return x\n"),
    ("added line deeper than every matched line", PY4,
     H("   if x:\n-    a()\n+    for y in x:\n+      if y:\n+        b(y)"),
     b"def f(x):\n    if x:\n        for y in x:\n            if y:\n                b(y)\n    return x\n"),
    ("added line shallower than the matched block",
     b"class A:\n    def f(self):\n        return 1\n\nx = A()\n",
     H("   def f(self):\n-    return 1\n+    return 2\n+\n+def g():\n+  return 3"),
     b"class A:\n    def f(self):\n        return 2\n\ndef g():\n    return 3\n\nx = A()\n"),
    ("makefile: 4 spaces in the response are a tab in the file",
     b"all: build\n\nbuild:\n\tgcc -o x x.c\n\tstrip x\n",
     H(" build:\n     gcc -o x x.c\n-    strip x\n+    strip -s x\n+    ls -l x"),
     b"all: build\n\nbuild:\n\tgcc -o x x.c\n\tstrip -s x\n\tls -l x\n"),
    ("yaml: 4 spaces per level in the response, 2 in the file",
     b"a:\n  b:\n    c: 1\n  d: 2\n",
     H(" a:\n     b:\n-        c: 1\n+        c: 2\n+        e:\n+            f: 3"),
     b"a:\n  b:\n    c: 2\n    e:\n      f: 3\n  d: 2\n"),
    ("de-indented snippet of a tab-indented file: spaces become tabs",
     b"func f() {\n\tif x {\n\t\ta()\n\t}\n}\n",
     H("-a()\n+if y {\n+    b()\n+}"),
     b"func f() {\n\tif x {\n\t\tif y {\n\t\t\tb()\n\t\t}\n\t}\n}\n"),
    ("one matched level, units told by the lines around", PY4,
     H("   if x:\n+    b()"),
     b"def f(x):\n    if x:\n        b()\n        a()\n    return x\n"),
    ("uniform shift still carried over", b"class A:\n    def f(self):\n        return 1\n",
     H(" def f(self):\n-    return 1\n+    y = 2\n+    return y"),
     b"class A:\n    def f(self):\n        y = 2\n        return y\n"),
    ("blank and whitespace-only added lines stay empty", PY4,
     H("   if x:\n     a()\n+\n+    \n+    b()"),
     b"def f(x):\n    if x:\n        a()\n\n\n        b()\n    return x\n"),
    ("context lines keep the file's bytes", b"if a:  \n\tb()\n\tc()\n",
     H(" if a:\n-    b()\n+    B()\n     c()"),
     b"if a:  \n\tB()\n\tc()\n"),
    ("edit indented more than the file", b"x = 1\nif x:\n    y()\n",
     H("     if x:\n-        y()\n+        z()\n+    w()"),
     b"x = 1\nif x:\n    z()\nw()\n"),
]


@pytest.mark.parametrize("before,hunk,after", [c[1:] for c in INDENT_CASES],
                         ids=[c[0] for c in INDENT_CASES])
def test_added_lines_take_the_files_indentation(before, hunk, after):
    assert run(before, hunk) == after


INDENT_REFUSALS = [
    ("matched lines disagree on one mapping", b"if a:\n    b()\n    c()\n",
     H(" if a:\n-  b()\n-      c()\n+  d()")),
    ("two response depths, one file depth", b"if a:\n    b()\n    c()\n",
     H(" if a:\n   b()\n-    c()\n+    d()")),
    ("added line between two levels of a 4 -> tab mapping", b"if a:\n\tb()\n\tc()\n",
     H(" if a:\n-    b()\n+      d()")),
    ("added line shallower than a shift can take back", b"x = 1\nif x:\n    y()\n",
     H("     if x:\n-        y()\n+  z()")),
]


@pytest.mark.parametrize("before,hunk", [c[1:] for c in INDENT_REFUSALS],
                         ids=[c[0] for c in INDENT_REFUSALS])
def test_indentation_that_cannot_be_corrected_is_refused(before, hunk):
    text = refusal(before, hunk)
    assert "indentation" in text and "edit 1" in text


def test_inconsistent_refusal_names_the_lines():
    text = refusal(b"if a:\n    b()\n    c()\n", H(" if a:\n-  b()\n-      c()\n+  d()"))
    assert "does not match the file in a way that can be corrected" in text
    assert "line 3" in text  # the file line the mapping breaks on


# Python source as a list of (level, statement): a block opens after a line ending in ':'.
def _program(draw, n):
    """Levels and statements; a blank statement ("") is a blank line, which takes the
    level of the line before it and changes nothing."""
    levels, stmts = [0], ["if c0:"]  # the file shows its indentation step at least once
    last, last_lv = "if c0:", 0
    for i in range(1, n):
        stmt = draw(st.sampled_from([f"if c{i}:", f"s{i} = {i}", f"f{i}()", ""]))
        if not stmt:
            levels.append(last_lv)
            stmts.append("")
            continue
        lv = last_lv + 1 if last.endswith(":") else draw(st.integers(0, last_lv))
        levels.append(lv)
        stmts.append(stmt)
        last, last_lv = stmt, lv
    if last.endswith(":"):
        levels.append(last_lv + 1)
        stmts.append(f"s{n} = 0")
    return levels, stmts


@st.composite
def reindented_edits(draw):
    """(file, hunk, expected): a block in the file's indentation, the edit written in
    another unit and base, and the same edit made directly in the file's indentation."""
    levels, stmts = _program(draw, draw(st.integers(3, 12)))
    n = len(levels)
    a = draw(st.integers(0, n - 1))
    b = draw(st.integers(a + 1, n))
    f_unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    e_unit = draw(st.sampled_from(["    ", "  ", "\t"]))
    low = min(levels[a:b])
    if len({lv for lv, s in zip(levels[a:b], stmts[a:b]) if s}) <= 1:
        # one matched depth cannot tell 2 levels of 2 spaces from 1 level of 4: the
        # response is taken to use the file's step (tested with other steps below)
        e_unit = f_unit
    e_shift = draw(st.integers(-low, 1))  # the response drops (or adds) outer levels
    removed = set(draw(st.sets(st.integers(a, b - 1), max_size=b - a)))
    # added lines: after some old line of the span, at a level that keeps the file valid
    # (at least 0 in both indentations), never deeper than one past the block
    added_at = {}
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(a, b - 1))
        lv = draw(st.integers(max(0, -e_shift), max(levels[a:b]) + 1))
        text = draw(st.sampled_from([f"new{pos}_{len(added_at.get(pos, []))}()", ""]))
        added_at.setdefault(pos, []).append((lv, text))
    file_lines, want, hunk = [], [], []
    def file_line(lv, s):
        return f_unit * lv + s if s else ""

    def edit_line(lv, s):  # a blank line of the response may hold stray spaces
        return e_unit * (lv + e_shift) + s if s else draw(st.sampled_from(["", "  ", "\t"]))

    for i, (lv, s) in enumerate(zip(levels, stmts)):
        file_lines.append(file_line(lv, s))
        if not a <= i < b:
            want.append(file_line(lv, s))
            continue
        tag = "-" if i in removed else " "
        hunk.append((tag, edit_line(lv, s)))
        if i not in removed:
            want.append(file_line(lv, s))
        for alv, text in added_at.get(i, []):
            hunk.append(("+", edit_line(alv, text)))
            want.append(file_line(alv, text))
    # an exact match tolerated nothing, so nothing is corrected, and old lines that are all
    # blank show no indentation: not this property's cases
    old = [t for tag, t in hunk if tag != "+"]
    assume(old != file_lines[a:b] and any(t.strip() for t in old))
    return ("\n".join(file_lines) + "\n").encode(), Hunk(hunk), ("\n".join(want) + "\n").encode()


@settings(max_examples=200, deadline=None)
@given(reindented_edits())
def test_reindented_edit_lands_as_if_made_in_the_files_indentation(case):
    before, hunk, want = case
    try:
        got = run(before, hunk)
    except ApplyError as e:
        # a refusal is acceptable only when the response's indentation is truly undecided
        assert "indentation" in str(e), str(e)
        return
    assert got == want


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["    ", "  ", "\t"]), st.sampled_from(["    ", "  ", "\t"]),
       st.integers(0, 2), st.integers(0, 1), st.lists(st.integers(0, 3), min_size=1, max_size=4))
def test_two_level_evidence_always_applies(f_unit, e_unit, base, e_shift, new_levels):
    # a matched `if` and its body give the mapping; added lines at any level from the
    # `if` down to two levels inside it must land exactly
    head = "".join(f_unit * k + f"if c{k}:\n" for k in range(base))
    before = (head + f_unit * base + "if x:\n" + f_unit * (base + 1) + "a()\n").encode()
    lines = [(" ", e_unit * e_shift + "if x:"), ("-", e_unit * (e_shift + 1) + "a()")]
    want = head + f_unit * base + "if x:\n"
    for k, lv in enumerate(new_levels):
        lv = min(lv, 2)
        lines.append(("+", e_unit * (e_shift + lv) + f"n{k}()"))
        want += f_unit * (base + lv) + f"n{k}()\n"
    assert run(before, Hunk(lines)) == want.encode()


# ---- typographic punctuation -----------------------------------------------------------

FOLD_CASES = [
    ("curly quotes the file does not have become plain",
     "name = 'x'\nprint(name)\n",
     H("-name = \u2018x\u2019\n+name = \u2018y\u2019\n+other = \u201cz\u201d"),
     "name = 'y'\nother = \"z\"\nprint(name)\n"),
    ("curly quotes the file has at the matched spots are kept, and so is the dash the "
     "edit wrote plain where it copies the line (folding goes both ways)",
     "title = \u201cHello\u201d \u2014 x\n",
     H("-title = \u201cHello\u201d - x\n+title = \u201cBye\u201d - y"),
     "title = \u201cBye\u201d \u2014 y\n"),
    ("dashes and ellipsis folded like the quotes",
     "a = b - c  # wait...\n",
     H("-a = b \u2013 c  # wait\u2026\n+a = b \u2013 d  # done\u2026"),
     "a = b - d  # done...\n"),
    ("odd spaces folded", "x = 1\n", H("-x\u00a0= 1\n+x\u00a0= 2"), "x = 2\n"),
    ("a class the old side never showed follows the rest",
     "s = 'a'\n", H("-s = \u2018a\u2019\n+s = \u201cb\u201d \u2014 1"), "s = \"b\" - 1\n"),
    ("context lines keep the file's bytes, typographic or not",
     "# \u201cq\u201d\nx = 'a'\n", H(" # \"q\"\n-x = \u2018a\u2019\n+x = \u2018b\u2019"),
     "# \u201cq\u201d\nx = 'b'\n"),
]


@pytest.mark.parametrize("before,hunk,after", [c[1:] for c in FOLD_CASES],
                         ids=[c[0] for c in FOLD_CASES])
def test_added_lines_get_the_folding_the_match_needed(before, hunk, after):
    assert run(before.encode(), hunk).decode() == after


def test_mixed_quote_evidence_is_refused_for_a_line_written_anew():
    before = "a = 'x'\nb = \u2018y\u2019\n".encode()
    text = refusal(before, H("-a = \u2018x\u2019\n-b = \u2018y\u2019\n+print(\u2018done\u2019)"))
    assert "typographic" in text and "\u2018" in text


def test_mixed_quote_evidence_does_not_matter_for_a_copy_of_a_matched_line():
    # the added line copies line 1, whose quotes the file writes plain (before the
    # evidence of both lines, plain and curly, refused it)
    before = "a = 'x'\nb = \u2018y\u2019\n".encode()
    got = run(before, H("-a = \u2018x\u2019\n-b = \u2018y\u2019\n+a = \u2018z\u2019\n+b = \u2018w\u2019"))
    assert got == "a = 'z'\nb = \u2018w\u2019\n".encode()


def test_mixed_evidence_of_a_class_not_added_does_not_matter():
    before = "a = 'x'\nb = \u2018y\u2019\n".encode()
    got = run(before, H("-a = \u2018x\u2019\n+a = 1\n b = \u2018y\u2019"))
    assert got == "a = 1\nb = \u2018y\u2019\n".encode()


_PLAIN_TO_CURLY = {"'": "\u2018\u2019", '"': "\u201c\u201d", "-": "\u2013\u2014"}


@st.composite
def typographized_edits(draw):
    """A line of code with plain punctuation, the response's copy with some of it made
    typographic, and added lines in the response's style: the file must get plain text."""
    alphabet = st.sampled_from(list("ab=(), ") + list(_PLAIN_TO_CURLY))
    plain = "x" + draw(st.text(alphabet, min_size=1, max_size=20)) + "y"
    spots = [i for i, c in enumerate(plain) if c in _PLAIN_TO_CURLY]
    if not spots:
        plain, spots = plain + "'", [len(plain)]
    chosen = draw(st.sets(st.sampled_from(spots), min_size=1))
    curly = "".join(draw(st.sampled_from(_PLAIN_TO_CURLY[c])) if i in chosen else c
                    for i, c in enumerate(plain))
    # the added line uses typographic characters of the classes the old side folded
    classes = sorted({plain[i] for i in chosen})
    added_plain = "z = " + " ".join(f"{c}k{c}" for c in classes)
    added = "".join(draw(st.sampled_from(_PLAIN_TO_CURLY[c])) if c in _PLAIN_TO_CURLY else c
                    for c in added_plain)
    return plain, curly, added_plain, added


@settings(max_examples=150, deadline=None)
@given(typographized_edits())
def test_typographized_response_adds_plain_text(case):
    plain, curly, added_plain, added = case
    before = f"top()\n{plain}\nend()\n".encode()
    got = run(before, Hunk([(" ", "top()"), ("-", curly), ("+", added)]))
    assert got == f"top()\n{added_plain}\nend()\n".encode()


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["\u2018", "\u2019", "\u201c", "\u201d", "\u2014"]),
       st.sampled_from(["\u2013", "\u00a0"]))
def test_typographic_characters_the_file_uses_are_kept(kept, folded):
    # the file writes `kept` itself; the match needed folding only for `folded`
    plain_of = {"\u2013": "-", "\u00a0": " "}[folded]
    before = f"t = {kept}a{kept} {plain_of} b\n".encode()
    hunk = Hunk([("-", f"t = {kept}a{kept} {folded} b"), ("+", f"t = {kept}c{kept} {folded} d")])
    assert run(before, hunk) == f"t = {kept}c{kept} {plain_of} d\n".encode()


# ---- anchors ---------------------------------------------------------------------------

ANCHOR_CASES = [
    ("a prefix matches only at an identifier boundary",
     b"def load_config():\n    pass\n\ndef load(path):\n    pass\n",
     H("-    pass\n+    return path", anchors=["def load"]),
     b"def load_config():\n    pass\n\ndef load(path):\n    return path\n"),
    ("a whole line wins over an earlier prefix",
     b"x = 1 + y\nz()\nx = 1\nz()\n", H("-z()\n+w()", anchors=["x = 1"]),
     b"x = 1 + y\nz()\nx = 1\nw()\n"),
    ("the old side may reach the line that closes the block",
     b"function f() {\n  return 1;\n}\nfunction g() {\n  return 2;\n}\n",
     H("   return 1;\n+  // one\n }", anchors=["function f() {"]),
     b"function f() {\n  return 1;\n  // one\n}\nfunction g() {\n  return 2;\n}\n"),
    ("an anchor that opens no indented block bounds nothing",
     b"# Title\n\n## Usage\nRun it.\nThen stop.\n",
     H(" Run it.\n-Then stop.\n+Then rest.", anchors=["## Usage"]),
     b"# Title\n\n## Usage\nRun it.\nThen rest.\n"),
    ("nested anchors each inside the one before",
     b"class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        pass\n",
     H("-        pass\n+        go()", anchors=["class B", "def f"]),
     b"class A:\n    def f(self):\n        pass\nclass B:\n    def f(self):\n        go()\n"),
    ("added lines only go right after the anchor",
     b"def f():\n    a()\ndef g():\n    b()\n", H("+    first()", anchors=["def g"]),
     b"def f():\n    a()\ndef g():\n    first()\n    b()\n"),
]


@pytest.mark.parametrize("before,hunk,after", [c[1:] for c in ANCHOR_CASES],
                         ids=[c[0] for c in ANCHOR_CASES])
def test_anchors(before, hunk, after):
    assert run(before, hunk) == after


def test_prefix_is_never_taken_inside_an_identifier():
    text = refusal(b"def load_config():\n    pass\n", H("-    pass\n+    x", anchors=["def load"]))
    assert "anchor line 'def load' not found" in text


def test_old_side_outside_the_anchored_block_is_refused_naming_it():
    before = b"def f():\n    a = 1\n\ndef g():\n    b = 2\n"
    text = refusal(before, H("-    b = 2\n+    b = 3", anchors=["def f"]))
    assert "'def f'" in text and "outside" in text and "lines 1-" in text


def test_nested_anchor_outside_the_outer_block_is_refused():
    before = b"class A:\n    def g(self):\n        pass\nclass B:\n    def f(self):\n        pass\n"
    text = refusal(before, H("-        pass\n+        go()", anchors=["class A", "def f"]))
    assert "'def f'" in text and "'class A'" in text


# ---- corners ---------------------------------------------------------------------------

def test_indentation_and_punctuation_corrected_together():
    before = "def f():\n    if x:\n        s = 'a'\n".encode()
    hunk = H("  if x:\n-    s = \u2018a\u2019\n+    s = \u2018b\u2019\n+    t = \u2018c\u2019")
    assert run(before, hunk) == b"def f():\n    if x:\n        s = 'b'\n        t = 'c'\n"


def test_deletion_with_an_inconsistent_mapping_applies():
    # an edit that only removes lines needs no mapping (BEHAVIOR.md §3): the lines it
    # names are removed, however its context is indented
    assert run(b"if a:\n    b()\n    c()\n", H(" if a:\n-  b()\n-      c()")) == b"if a:\n"


def test_tabs_then_spaces_only_where_the_file_writes_them():
    # kernel style: a continuation aligned with spaces after the tabs
    before = b"\tif (a &&\n\t    b)\n\t\tgo();\n"
    got = run(before, H(" if (a &&\n-    b)\n+    b && c)"))
    assert got == b"\tif (a &&\n\t    b && c)\n\t\tgo();\n"


def test_a_shift_never_puts_spaces_after_the_files_tabs():
    # one matched depth, and a one-space step tells no level: refused, not "\t\t x"
    before = b"func f() {\n\tif x {\n\t\ta()\n\t}\n}\n"
    text = refusal(before, H(" a()\n+ b()"))
    assert "indentation" in text


def test_whitespace_only_added_lines_are_emptied_when_trailing_whitespace_was_tolerated():
    assert run(b"a \nb\n", H(" a\n+  \n+x\n b")) == b"a \n\nx\nb\n"


def test_zero_width_characters_follow_the_evidence():
    before = b"x = 1\n"
    got = run(before, H("-x\u200b = 1\n+x\u200b = 2"))
    assert got == b"x = 2\n"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["load", "load_config", "loader", "load2", "reload", "lo"]),
                min_size=1, max_size=6, unique=True), st.data())
def test_an_anchor_names_exactly_its_function(names, data):
    # every function has the same body: only the anchor tells them apart
    target = data.draw(st.sampled_from(names))
    before = "".join(f"def {n}(x):\n    return x\n\n" for n in names)
    want = "".join(f"def {n}(x):\n    return {'x + 1' if n == target else 'x'}\n\n" for n in names)
    hunk = H("-    return x\n+    return x + 1", anchors=[f"def {target}"])
    assert run(before.encode(), hunk).decode() == want


def test_one_matched_depth_and_the_files_own_step_is_a_shift():
    # the response dropped the class level; its own lines step by 4, as the file does
    before = b"class A:\n    def f(self, x):\n        return x\n"
    got = run(before, H("-    return x\n+    if x:\n+        return 1\n+    return 0"))
    assert got == b"class A:\n    def f(self, x):\n        if x:\n            return 1\n        return 0\n"


def test_one_matched_depth_that_cannot_tell_the_step_is_refused():
    # 8 spaces for two tabs: 4 spaces a tab (the depths agree) or 8 (the largest step the
    # response's lines share)?  The line 16 spaces deep is 4 tabs or 3: refused
    before = b"func f() {\n\tif x {\n\t\ta()\n\t}\n}\n"
    text = refusal(before, H("         a()\n+                b()"))
    assert "cannot tell how deep" in text
