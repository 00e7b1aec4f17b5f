"""The block an apply-patch `@@` anchor opens (BEHAVIOR.md §3): it does not end inside
brackets or a multi-line string opened from the anchor line on, an unclosed one is bounded,
and a chunk whose old side starts at the anchor line itself is placed there."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.locate.anchors import Nesting, block_extent
from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText


def H(spec: str, **kw) -> Hunk:
    """A hunk from diff-like text: each line starts with ' ', '-' or '+'."""
    return Hunk([(raw[0], raw[1:]) for raw in spec.split("\n") if raw], **kw)


def run(before: str, *hunks: Hunk) -> str:
    new, _a, _r = apply_hunks(FileText.from_bytes(before.encode()), list(hunks), path="f")
    return new.to_bytes().decode()


def refusal(before: str, *hunks: Hunk) -> str:
    with pytest.raises(ApplyError) as e:
        run(before, *hunks)
    return str(e.value)


def anchored_block(lines: list[str], at: int) -> int | None:
    """End (exclusive) of the block the anchor line ``at`` opens, None when it opens none."""
    return block_extent(lines, at)[0]


def block_lines(text: str, anchor: str) -> list[str] | None:
    """The lines of the block the anchor line opens, the anchor line first."""
    lines = text.split("\n")
    at = lines.index(anchor)
    end = anchored_block(lines, at)
    return None if end is None else lines[at:end]


# ---- where a block ends ----------------------------------------------------------------

BLOCKS = [
    ("black signature: the ')' line closes the brackets and the body follows",
     "def f(\n    a,\n    b=1,\n):\n    return a\n\n\ndef g():\n    pass",
     "def f(", "def g():"),
    ("a column-0 line inside a triple-quoted string",
     'def usage():\n    text = """\nUsage: x [options]\n  --path FILE\n"""\n    return text\n\ndef g():\n    pass',
     "def usage():", "def g():"),
    ("a column-0 line inside a template literal",
     "function f() {\n  const s = `\nline one\n`;\n  return s;\n}\nfunction g() {\n}",
     "function f() {", "}"),
    ("preprocessor lines at column 0 inside braces",
     "int f(void) {\n#ifdef X\n    return 1;\n#endif\n    return 0;\n}\nint g(void) {\n}",
     "int f(void) {", "}"),
    ("a bracket inside a string opens nothing",
     'def f():\n    s = "(["\n    t = \'{\'\ndef g():\n    pass',
     "def f():", "def g():"),
    ("a quote inside a comment opens no string",
     "def f():\n    # don't use \"\"\" here (or `\n    x = 1\ndef g():\n    pass",
     "def f():", "def g():"),
    ("a bracket inside a block comment opens nothing",
     "int f(void) {\n    /* see f( and\n{ */\n    return 0;\n}\nint g(void) {\n}",
     "int f(void) {", "}"),
    ("a shell glob opens no comment",
     'clean() {\n    rm -rf "$dir"/* build/*\n}\nbuild() {\n    for d in */; do make -C "$d"; done\n}',
     "clean() {", "}"),
    ("an escaped quote does not close the string",
     'def f():\n    s = """a \\""" b\nnot the end\n"""\n    return s\ndef g():\n    pass',
     "def f():", "def g():"),
    ("a wrapped call at the anchor's level ends at its closing line",
     "x = compute(\n    a,\n)\ny = 2\nz = 3",
     "x = compute(", ")"),
    ("the closing brace ends the block, else branch and all",
     "    if (a) {\n        b();\n    } else {\n        c();\n    }\n    d();\n    e();",
     "    if (a) {", "    }"),
]


@pytest.mark.parametrize("text,anchor,last", [c[1:] for c in BLOCKS], ids=[c[0] for c in BLOCKS])
def test_block_ends_at_the_line_outside_what_the_block_opened(text, anchor, last):
    got = block_lines(text, anchor)
    lines = text.split("\n")
    at = lines.index(anchor)
    # the block's last line is the first line equal to `last` after the anchor
    want_end = next(i for i, l in enumerate(lines) if l == last and i > at)
    assert got == lines[at:want_end + 1]


def test_a_bracket_left_open_in_the_body_holds_only_closing_lines():
    # Python's floor division reads as a `//` comment and hides a `)`: the `(` it leaves
    # open was opened in the body, so the next line at the anchor's level (not a closing
    # line) still ends the block, and nothing is reported unclosed
    lines = ["def f(a):", "    x = (a // 2)", "    return x", "def g():", "    y = (", "    )"]
    assert block_extent(lines, 0) == (4, None)


def test_a_closing_line_at_the_anchors_level_continues_a_body_bracket():
    lines = ["def f():", "    x = call(", "        1,", ")", "    return x", "def g():"]
    assert block_extent(lines, 0) == (6, None)


def test_a_heading_still_opens_no_block():
    assert block_lines("# T\n\n## Usage\nRun it.\nStop.", "## Usage") is None


def test_an_unclosed_bracket_does_not_swallow_the_rest_of_the_file():
    # a cut-off file: the anchor's own '(' never closes; the block ends where the
    # indentation says, at the first line at the anchor's level after it, and says why
    lines = ["def f(a,", "def g():", "    pass", "def h():", "    pass"]
    assert block_extent(lines, 0) == (2, ("(", 0))


def test_an_unclosed_bracket_bounds_even_an_anchor_the_indentation_gives_no_block():
    # where the block ends cannot be decided: it is bounded, and a refusal says why
    lines = ["- item (see below", "- other", "  sub"]
    assert block_extent(lines, 0) == (2, ("(", 0))


def test_an_unclosed_string_does_not_swallow_the_rest_of_the_file():
    text = 'def f():\n    s = """\nnot closed\ndef g():\n    pass'
    assert block_lines(text, "def f():") == text.split("\n")[:3]


# ---- properties --------------------------------------------------------------------------

SAFE_TEXT = st.text(alphabet="ab ([{}])'#/*-:", max_size=12).map(str.rstrip)


@st.composite
def python_function(draw, name: str) -> list[str]:
    """A function as black writes it: a one-line or wrapped signature, a body that may hold
    a triple-quoted string with lines at column 0 (brackets and quotes in them), comments
    with brackets and quotes."""
    args = draw(st.lists(st.sampled_from(["a", "b=1", "c='('", "d=[]"]), max_size=4, unique=True))
    if draw(st.booleans()):
        head = [f"def {name}("] + [f"    {a}," for a in args] + ["):"]
    else:
        head = [f"def {name}({', '.join(args)}):"]
    body = []
    for kind in draw(st.lists(st.sampled_from(["stmt", "string", "comment", "call", "blank", "div"]),
                              min_size=1, max_size=6)):
        if kind == "stmt":
            body.append("    x = 1")
        elif kind == "div":  # a floor division reads as a `//` comment: `)` unseen
            body.append("    x = (x // 2)")
        elif kind == "string":
            inner = draw(st.lists(SAFE_TEXT, min_size=1, max_size=3))
            body += ['    s = """'] + [t.replace("'''", "") for t in inner] + ['"""']
        elif kind == "comment":
            body.append("    # " + draw(SAFE_TEXT) + ' """ (')
        elif kind == "call":
            body += ["    y = f(", "        1,", "    )"]
        else:
            body.append("")
    return head + body + ["    return x"]


@settings(max_examples=150, deadline=None)
@given(python_function("f"), python_function("g"), st.integers(0, 2))
def test_a_python_function_block_ends_at_the_next_top_level_def(f, g, blanks):
    lines = f + [""] * blanks + g
    # the next top-level line is g's `def`; the block includes it (context may reach it)
    assert anchored_block(lines, 0) == len(f) + blanks + 1


def strings_free(lines: list[str]) -> bool:
    return not any('"""' in l for l in lines)


@settings(max_examples=150, deadline=None)
@given(python_function("f"), python_function("g"), st.data())
def test_an_unclosed_bracket_or_string_never_takes_in_the_next_function(f, g, data):
    # a broken file: f's body stops in the middle of a call or a string and g follows; the
    # block of f ends at g's `def`, as the indentation alone would say
    cut = data.draw(st.integers(len(f) - 1, len(f)))  # before or after f's last line
    opener = data.draw(st.sampled_from(["    x = call(", "    x = [", '    s = """']))
    if opener.endswith('"""') and not strings_free(g):
        g = ["def g():", "    return 1"]  # a later string would pair with the open one
    lines = f[:cut] + [opener] + g
    assert anchored_block(lines, 0) == cut + 2


@st.composite
def c_function(draw, name: str) -> list[str]:
    """A brace-language function: strings and comments with braces in them, column-0
    preprocessor lines, a nested if/else block."""
    body = []
    for kind in draw(st.lists(st.sampled_from(["stmt", "string", "comment", "pre", "if"]),
                              min_size=1, max_size=6)):
        if kind == "stmt":
            body.append("    x++;")
        elif kind == "string":
            body.append('    s = "' + draw(SAFE_TEXT).replace("'", "") + '";')
        elif kind == "comment":
            body.append("    // " + draw(SAFE_TEXT) + " {")
        elif kind == "pre":
            body += ["#ifdef X", "    y();", "#endif"]
        else:
            body += ["    if (x) {", "        a();", "    } else {", "        b();", "    }"]
    return [f"int {name}(void) {{"] + body + ["}"]


@settings(max_examples=150, deadline=None)
@given(c_function("f"), c_function("g"))
def test_a_brace_function_block_ends_at_its_closing_brace(f, g):
    assert anchored_block(f + g, 0) == len(f)


# ---- the refusal names what could not be decided ----------------------------------------------

def test_old_side_beyond_an_unclosed_string_is_refused_naming_it():
    before = 'def f():\n    """Cut off here.\ndef g():\n    y = 2\n'
    text = refusal(before, H("-    y = 2\n+    y = 3", anchors=["def f():"]))
    assert "outside the block of the anchor 'def f():'" in text
    assert "\'\"\"\"\' opened at line 2 is never closed" in text


# ---- end to end: the findings ---------------------------------------------------------------

def test_an_edit_in_the_body_of_a_wrapped_signature_applies():
    before = "def restock(\n    warehouse,\n    qty=10,\n):\n    item = warehouse.get()\n    if item is None:\n        return None\n    return item\n"
    got = run(before, H("     if item is None:\n-        return None\n+        raise KeyError()",
                        anchors=["def restock("]))
    assert got == before.replace("        return None", "        raise KeyError()")


def test_an_edit_after_a_column0_string_applies():
    before = 'def usage():\n    text = """\nUsage: x\n"""\n    return text.strip()\n'
    got = run(before, H('-    return text.strip()\n+    return text', anchors=["def usage():"]))
    assert got == before.replace("return text.strip()", "return text")


def test_an_anchor_on_the_line_the_chunk_changes():
    before = "def a(x):\n    return x\n\n\ndef load(path):\n    return path\n\n\ndef b():\n    pass\n"
    hunk = H("-def load(path):\n+def load(path, mode):\n     return path", anchors=["def load(path):"])
    assert run(before, hunk) == before.replace("def load(path):", "def load(path, mode):")


def test_an_anchor_restated_as_the_first_context_line():
    before = "class A:\n    def f(self):\n        pass\n\nclass B:\n    def f(self):\n        pass\n"
    hunk = H("     def f(self):\n-        pass\n+        go()", anchors=["class B:", "    def f(self):"])
    assert run(before, hunk) == ("class A:\n    def f(self):\n        pass\n\n"
                                 "class B:\n    def f(self):\n        go()\n")


def test_an_edit_whose_context_starts_before_its_anchor_line():
    # the decorator above the anchored `def` is context: the fit holds the anchor line
    before = "@cache\ndef load(path):\n    return path\n\n\n@cache\ndef save(path):\n    pass\n"
    hunk = H(" @cache\n-def load(path):\n+def load(path, mode):", anchors=["def load(path):"])
    assert run(before, hunk) == before.replace("def load(path):", "def load(path, mode):")


def test_a_fit_at_the_anchor_line_and_another_after_it_is_refused_as_ambiguous():
    # no block bounds the search (a top-level statement): the old side fits at the anchor
    # line and again further down; which the model meant is not clear
    before = "x = 1\ny = 2\nx = 1\ny = 2\n"
    text = refusal(before, H("-x = 1\n+x = 0\n y = 2", anchors=["x = 1"]))
    assert "ambiguous" in text and "starting at lines 1, 3" in text


def test_a_chunk_whose_old_side_fits_after_the_anchor_still_goes_there():
    # the first fit after the anchor line wins when the anchor line itself does not fit
    before = "def f():\n    a = 1\n    a = 1\n"
    assert run(before, H("-    a = 1\n+    a = 2", anchors=["def f():"])) == \
        "def f():\n    a = 2\n    a = 1\n"


# ---- the tokenizer: what is inside a string or comment changes nothing ----------------------

CODE = st.lists(st.sampled_from(["(", ")", "[", "]", "{", "}", "x", " ", "=", ","]), max_size=10).map("".join)
JUNK = st.text(alphabet="()[]{}'\"`#/* x", max_size=10)


def state(lines: list[str]) -> tuple:
    nest = Nesting()
    for i, line in enumerate(lines):
        nest.feed(line, i)
    return [b for b, _ in nest.brackets], nest.long


@settings(max_examples=200, deadline=None)
@given(CODE, CODE, JUNK, st.sampled_from(['"', "'", "#", "//", "/*", '"""']))
def test_brackets_and_quotes_inside_a_string_or_comment_change_nothing(before, after, junk, kind):
    if kind in ('"', "'"):
        inner = junk.replace(kind, "")
        line, plain = f"{before}{kind}{inner}{kind}{after}", f"{before}{kind}{kind}{after}"
    elif kind in ("#", "//"):
        line, plain = f"{before} {kind}{junk}", f"{before} {kind}"
    elif kind == "/*":
        line, plain = f"{before} /*{junk.replace('*', '')}*/{after}", f"{before} /**/{after}"
    else:  # a triple-quoted string over three lines, the middle one at column 0
        inner = junk.replace('"', "")
        assert state([f"{before}'''", inner.replace("'", ""), f"'''{after}"]) == \
            state([f"{before}''''''{after}"])
        line, plain = f'{before}"""{inner}', f'{before}"""'
    assert state([line]) == state([plain])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["load", "load_config", "loader", "reload", "lo"]),
                min_size=1, max_size=5, unique=True), st.data())
def test_a_chunk_that_changes_its_anchor_line_changes_exactly_that_function(names, data):
    # every function has the same body; the chunk rewrites the very `def` it anchors on
    target = data.draw(st.sampled_from(names))
    before = "".join(f"def {n}(x):\n    return x\n\n" for n in names)
    want = before.replace(f"def {target}(x):", f"def {target}(x, y):")
    hunk = H(f"-def {target}(x):\n+def {target}(x, y):\n     return x", anchors=[f"def {target}"])
    assert run(before, hunk) == want


# ---- finding the anchor line: one pass over the lines that hold its text -----------------------

def find_anchor_reference(lines, anchor, start, end=None):
    """The rule as BEHAVIOR.md §3 words it, read line by line: equal, else a prefix where
    an identifier cannot go on; whitespace around ignored, then punctuation folded."""
    from git_aiapply.locate.matching import fold_punctuation
    span = lines[start:end]
    for norm in (str.strip, lambda s: fold_punctuation(s).strip()):
        w = norm(anchor)
        for k, line in enumerate(span):
            if norm(line) == w:
                return start + k
        for k, line in enumerate(span):
            t = norm(line)
            if w and t.startswith(w) and not (
                    (w[-1].isalnum() or w[-1] == "_") and (t[len(w)].isalnum() or t[len(w)] == "_")):
                return start + k
    return None


LINE_TEXT = st.text(alphabet="ab (:_\u2018\u2019'\u2014-\u00a0 ", max_size=8)


@settings(max_examples=200, deadline=None)
@given(st.lists(LINE_TEXT, max_size=8), LINE_TEXT, st.integers(0, 8), st.none() | st.integers(0, 8))
def test_find_anchor_follows_the_rule(lines, anchor, start, end):
    from git_aiapply.locate.anchors import find_anchor
    assert find_anchor(lines, anchor, start, end) == find_anchor_reference(lines, anchor, start, end)


def test_a_comment_written_at_column_0_inside_the_block_does_not_end_it():
    # what an editor's comment shortcut writes ('#    print(y)') sits at column 0 inside a
    # function; the next line with code is deeper, so the block goes on
    lines = ["def f(x):", "    y = x", "#    print(y)", "    return y", "", "def g():",
             "    pass"]
    assert block_extent(lines, 0)[0] == 6  # through 'def g():', as without the comment
    # a comment followed by the next header is still where the block ends
    assert block_extent(["def f(x):", "    y = x", "# about g", "def g():", "    pass"],
                        0)[0] == 3
