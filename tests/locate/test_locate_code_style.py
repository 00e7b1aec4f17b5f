"""Added lines brought to a code file's conventions whatever tier matched (BEHAVIOR.md
§3): space indentation in a file indented with tabs only becomes tabs; odd spaces in an
added line's indentation become spaces; typographic quotes standing as a string's delimiters
in code are folded, those inside plain-quoted strings and comments
kept; prose files keep everything.  The locator as a plain function, plus the rules."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.locate.code_style import (fold_delimiters, plain_indentation, scan_state,
    syntax_for)
from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from conftest import file_text, text_of

LSQ, RSQ, LDQ, RDQ, NDASH, NBSP = "\u2018", "\u2019", "\u201c", "\u201d", "\u2013", "\u00a0"


def run(before: str, lines: list[tuple[str, str]], path: str = "f", kind: str = "search") -> str:
    new, _a, _r = apply_hunks(file_text(before), [Hunk(lines, kind=kind)], path=path)
    return text_of(new)


def refusal(before: str, lines, path: str = "f", kind: str = "search") -> str:
    with pytest.raises(ApplyError) as e:
        run(before, lines, path, kind)
    return str(e.value)


# ---- tabs ------------------------------------------------------------------------------

MAKEFILE = "PY = python3\n\ntest:\n\t$(PY) -m pytest\n\nclean:\n\trm -rf build\n"
GO = "package main\n\nfunc f(x int) int {\n\tif x > 0 {\n\t\treturn x\n\t}\n\treturn 0\n}\n"


def test_makefile_recipe_line_in_spaces_becomes_a_tab():
    out = run(MAKEFILE, [(" ", "test:"), (" ", "\t$(PY) -m pytest"), ("+", "    $(PY) -m flake8 src")],
              path="Makefile")
    assert "\t$(PY) -m pytest\n\t$(PY) -m flake8 src\n\nclean:" in out


def test_go_lines_in_spaces_become_tabs_level_by_level():
    out = run(GO, [(" ", "\tif x > 0 {"), ("+", "        y := x * 2"), ("+", "        if y > 9 {"),
                   ("+", "            return y"), ("+", "        }"), (" ", "\t\treturn x")], path="f.go")
    assert "\tif x > 0 {\n\t\ty := x * 2\n\t\tif y > 9 {\n\t\t\treturn y\n\t\t}\n\t\treturn x\n" in out


def test_one_depth_of_eight_spaces_cannot_tell_one_tab_from_two():
    text = refusal(GO, [(" ", "\tif x > 0 {"), ("+", "        y := x * 2"), (" ", "\t\treturn x")],
                   path="f.go")
    assert "tab" in text and "y := x * 2" in text


def test_spaces_too_deep_for_the_line_before_are_refused():
    # tabs of 4 (the unit the two depths show): log() would be two levels below a()
    text = refusal(GO, [(" ", "\treturn 0"), ("+", "    a()"), ("+", "            log()")], path="f.go")
    assert "log()" in text


def test_a_file_that_indents_with_spaces_anywhere_is_left_alone():
    before = "func f() {\n\ta()\n    b()\n}\n"
    out = run(before, [(" ", "\ta()"), ("+", "    c()")], path="f.go")
    assert "\ta()\n    c()\n    b()\n" in out


def test_prose_keeps_space_indentation_in_a_tab_file():
    before = "Notes:\n\tfirst\n"
    assert run(before, [(" ", "\tfirst"), ("+", "    second")], path="notes.md") == \
        "Notes:\n\tfirst\n    second\n"


@settings(max_examples=150, deadline=None)
@given(levels=st.lists(st.integers(1, 4), min_size=1, max_size=6), unit=st.sampled_from([2, 4]))
def test_property_tab_levels_follow_the_answers_space_unit(levels, unit):
    """Added lines written in spaces of one unit, each at most one level deeper than the
    line before, land as that many tabs in a tab-only file."""
    levels = [min(l, 1 + (levels[k - 1] if k else 1)) for k, l in enumerate(levels)]
    if unit == 2 and len(set(levels)) == 1 and levels[0] > 1:
        levels[0] = 1  # one depth in 2s: 4 spaces could be a tab of 4, not two of 2
    levels = [min(l, 1 + (levels[k - 1] if k else 1)) for k, l in enumerate(levels)]
    before = "func f() {\n\tstart()\n}\n"
    added = [("+", " " * (unit * l) + f"s{k}()") for k, l in enumerate(levels)]
    try:
        out = run(before, [(" ", "\tstart()")] + added, path="f.go")
    except ApplyError:
        # only when the answer's unit is not evident: one depth that is several 4-space tabs
        assert len({unit * l for l in levels}) == 1 and unit * levels[0] > 4
        return
    want = "".join("\t" * l + f"s{k}()\n" for k, l in enumerate(levels))
    assert out == "func f() {\n\tstart()\n" + want + "}\n"


# ---- odd spaces in indentation ------------------------------------------------------------

def test_nbsp_indentation_becomes_spaces():
    before = 'def main():\n    w = 1\n'
    out = run(before, [(" ", "def main():"), ("+", NBSP * 4 + 'print("starting")'), (" ", "    w = 1")],
              path="a.py")
    assert out == 'def main():\n    print("starting")\n    w = 1\n'


def test_plain_indentation_rule():
    assert plain_indentation(NBSP + " \u2003x" + NBSP) == "   x" + NBSP
    assert plain_indentation("\u200b\tx") == "\tx"
    assert plain_indentation("  x") == "  x"


# ---- typographic delimiters -------------------------------------------------------------------

JS = "function formatPrice(p) {\n  return '$' + p.toFixed(2);\n}\n"


def test_curly_quotes_as_js_delimiters_are_folded():
    out = run(JS, [(" ", "function formatPrice(p) {"), ("-", "  return '$' + p.toFixed(2);"),
                   ("+", f"  if (p == null) return {LSQ}n/a{RSQ};"),
                   ("+", f"  return {LSQ}${RSQ} + p.toFixed(2);"), (" ", "}")], path="web/app.js")
    assert out == "function formatPrice(p) {\n  if (p == null) return 'n/a';\n  return '$' + p.toFixed(2);\n}\n"


JS_RULES = syntax_for("a.js")
PY_RULES = syntax_for("a.py")


@pytest.mark.parametrize("line, want", [
    (f"x = {LDQ}a{RDQ};", 'x = "a";'),
    (f"x = \"It{RSQ}s {LDQ}fine{RDQ}\";", f"x = \"It{RSQ}s {LDQ}fine{RDQ}\";"),  # inside a plain string
    (f"x = 'say {LDQ}hi{RDQ}';", f"x = 'say {LDQ}hi{RDQ}';"),
    (f"x = a {NDASH} b; // a {NDASH} b", f"x = a {NDASH} b; // a {NDASH} b"),  # dashes are never folded
    (f"/* it{RSQ}s */ y = {LSQ}z{RSQ};", f"/* it{RSQ}s */ y = 'z';"),
    (f"s = `it{RSQ}s`;", f"s = `it{RSQ}s`;"),
    (f"x = \"a\\\"{RSQ}\";", f"x = \"a\\\"{RSQ}\";"),  # an escaped quote does not end the string
    (f"f({LSQ}a{RSQ}, {LDQ}b{RDQ})", "f('a', \"b\")"),
])
def test_js_delimiters(line, want):
    assert fold_delimiters([line], JS_RULES, [True])[0] == want


@pytest.mark.parametrize("line, want", [
    (f"print({LDQ}hi{RDQ})  # it{RSQ}s {LDQ}ok{RDQ}", f'print("hi")  # it{RSQ}s {LDQ}ok{RDQ}'),
    (f"x = {LSQ}it{RSQ}", "x = 'it'"),
    (f"msg = \"don{RSQ}t\"", f"msg = \"don{RSQ}t\""),
])
def test_python_delimiters(line, want):
    assert fold_delimiters([line], PY_RULES, [True])[0] == want


def test_a_docstring_opened_before_keeps_its_punctuation():
    lines = ['def f():', '    """Summary.', f"    It{RSQ}s {LDQ}quoted{RDQ} {NDASH} fine.", '    """',
             f"    return {LDQ}x{RDQ}"]
    out = fold_delimiters(lines, PY_RULES, [False, False, True, False, True])
    assert out[2] == lines[2] and out[4] == '    return "x"'


def test_block_comment_opened_before_keeps_its_punctuation():
    lines = ["/*", f" * it{RSQ}s {NDASH} ok", " */", f"x = {LSQ}a{RSQ};"]
    out = fold_delimiters(lines, JS_RULES, [False, True, False, True])
    assert out[1] == lines[1] and out[3] == "x = 'a';"


def test_prose_and_unknown_files_keep_curly_quotes():
    before = "Say hello.\n"
    line = f"He said {LDQ}hi{RDQ} {NDASH} it{RSQ}s fine."
    for path in ("README.md", "notes.txt", "doc.rst"):
        assert run(before, [(" ", "Say hello."), ("+", line)], path=path) == before + line + "\n"
    assert syntax_for("x.weird") is None and syntax_for("README") is None


def test_strings_holding_curly_quotes_are_untouched_end_to_end():
    before = "const a = 1;\n"
    line = f"const msg = \"It{RSQ}s {LDQ}done{RDQ} {NDASH} ok\";"
    assert run(before, [(" ", "const a = 1;"), ("+", line)], path="a.js") == before + line + "\n"


_plain_text = st.text(alphabet="abc xyz.,;()=", max_size=12)


@settings(max_examples=200, deadline=None)
@given(inner=st.text(alphabet=f"ab {LSQ}{RSQ}{LDQ}{RDQ}{NDASH}\u2014", max_size=10),
       quote=st.sampled_from(["'", '"']), head=_plain_text, tail=_plain_text)
def test_property_text_inside_plain_strings_is_never_changed(inner, quote, head, tail):
    """Whatever typographic text a plain-quoted string holds, it is kept byte for byte."""
    head, tail = head.replace("'", ""), tail.replace("'", "")
    line = f"{head}{quote}{inner}{quote}{tail}"
    assert fold_delimiters([line], JS_RULES, [True])[0] == line
    assert fold_delimiters([line], PY_RULES, [True])[0] == line


@settings(max_examples=200, deadline=None)
@given(words=st.lists(st.text(alphabet="abcxyz_ ", min_size=1, max_size=6), min_size=1, max_size=4),
       quotes=st.lists(st.sampled_from([(LSQ, RSQ, "'"), (LDQ, RDQ, '"'), (RSQ, RSQ, "'")]),
                       min_size=1, max_size=4))
def test_property_curly_delimiters_in_code_fold_to_plain(words, quotes):
    """Strings written with typographic delimiters in code read as the plain ones."""
    parts = [f"{o}{w}{c}" for w, (o, c, _p) in zip(words, quotes)]
    want = [f"{p}{w}{p}" for w, (_o, _c, p) in zip(words, quotes)]
    line = "f(" + ", ".join(parts) + ");"
    assert fold_delimiters([line], JS_RULES, [True])[0] == "f(" + ", ".join(want) + ");"


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.lists(st.sampled_from(["a", " ", "'", '"', '"""', "/*", "*/", "#", "//", "`",
                                                 "\\", RSQ]), max_size=8).map("".join), max_size=8),
       path=st.sampled_from(["a.py", "a.js", "a.go"]))
def test_property_the_quick_scan_agrees_with_reading_every_line(lines, path):
    """Skipping lines that cannot open or close anything spanning lines changes nothing."""
    from git_aiapply.locate.code_style import _scan_line

    syntax, state = syntax_for(path), None
    for line in lines:
        _text, state = _scan_line(line, syntax, state, False)
    assert scan_state(lines, syntax) == state


def test_spaces_inside_a_go_raw_string_are_text_not_indentation():
    before = "package main\n\nfunc f() string {\n\treturn \"\"\n}\n"
    out = run(before, [(" ", "func f() string {"), ("-", "\treturn \"\""), ("+", "\treturn `"),
                       ("+", "    kept as written"), ("+", "`"), (" ", "}")], path="f.go")
    assert "\treturn `\n    kept as written\n`\n}\n" in out
