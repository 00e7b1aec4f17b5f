"""Typographic punctuation in added code lines is folded only where it is certainly a
string delimiter (docs/DECISIONS.md "Locating"): a pair of curly quotes in code position;
never a dash or an ellipsis; never the edit's own change (a character the removed lines
hold at that place); never inside what the scanner does not read (a regex literal, JSX
text, a heredoc, a Lua long string, a dollar-quoted SQL body).  A line whose curly quotes
cannot all be folded is kept as written, so no line is left half folded."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.locate.code_style import fold_delimiters, syntax_for
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from conftest import file_text, text_of

LSQ, RSQ, LDQ, RDQ, NDASH, MDASH, ELLIPSIS = "\u2018", "\u2019", "\u201c", "\u201d", "\u2013", "\u2014", "\u2026"
TYPO = (LSQ, RSQ, LDQ, RDQ, NDASH, MDASH, ELLIPSIS)


def run(before: str, lines: list[tuple[str, str]], path: str) -> str:
    new, _a, _r = apply_hunks(file_text(before), [Hunk(lines, kind="search")], path=path)
    return text_of(new)


def fold(line: str, path: str) -> str:
    return fold_delimiters([line], syntax_for(path), [True])[0]


# ---- G3: the edit's own change is the typographic character ---------------------------------

def test_rust_char_literal_dash_made_em_dash_is_applied():
    before = "fn sep() -> char {\n    '-'\n}\n"
    out = run(before, [("-", "    '-'"), ("+", f"    '{MDASH}'")], path="src/lib.rs")
    assert out == f"fn sep() -> char {{\n    '{MDASH}'\n}}\n"


def test_a_fold_that_would_restore_the_removed_line_is_not_made():
    before = "x = 1\nlabel = 'a'\n"
    out = run(before, [(" ", "x = 1"), ("-", "label = 'a'"), ("+", f"label = {LSQ}a{RSQ}")], path="a.py")
    assert out == f"x = 1\nlabel = {LSQ}a{RSQ}\n"


def test_quotes_the_removed_line_holds_at_the_same_place_are_kept():
    before = f"x = {LDQ}a{RDQ}\n"
    out = run(before, [("-", f"x = {LDQ}a{RDQ}"), ("+", f"x = {LDQ}a{RDQ}  # kept as the file has it")],
              path="a.py")
    assert out == f"x = {LDQ}a{RDQ}  # kept as the file has it\n"


def test_quotes_the_removed_line_holds_are_kept_when_the_line_changed_before_them():
    # the file's own delimiters, copied after a renamed variable: another column, the same
    # place in the line (difflib's alignment), so still the file's (issue 30 item 5)
    before = f"x = {LDQ}a{RDQ}\n"
    out = run(before, [("-", f"x = {LDQ}a{RDQ}"), ("+", f"value = {LDQ}a{RDQ}")], path="a.py")
    assert out == f"value = {LDQ}a{RDQ}\n"


@pytest.mark.parametrize("line", [f"x = a {NDASH} b;", f"f(a{ELLIPSIS})", f"let s = {MDASH};"])
def test_dashes_and_ellipses_in_code_are_never_folded(line):
    assert fold(line, "a.js") == line
    assert fold(line, "a.c") == line


# ---- G4: regex literals -----------------------------------------------------------------

@pytest.mark.parametrize("line, path", [
    (f"  return s.replace(/[{LSQ}{RSQ}]/g, \"'\").replace(/[{LDQ}{RDQ}]/g, '\"').trim();", "a.js"),
    (f"  return s.replace(/[{NDASH}{MDASH}]/g, \"-\");", "a.ts"),
    (f"  s.gsub(/[{LDQ}{RDQ}]/, '\"')", "a.rb"),
    (f"const re = /{LDQ}(.*?){RDQ}/;", "a.js"),
    (f"if (x.match(/{LSQ}a{RSQ}/)) return;", "a.ts"),
])
def test_regex_literals_are_kept_as_written(line, path):
    assert fold(line, path) == line


def test_regex_literal_end_to_end():
    before = "function clean(s) {\n  return s.trim();\n}\n"
    line = f"  return s.replace(/[{LSQ}{RSQ}]/g, \"'\").replace(/[{LDQ}{RDQ}]/g, '\"').trim();"
    out = run(before, [("-", "  return s.trim();"), ("+", line)], path="src/text.js")
    assert out == f"function clean(s) {{\n{line}\n}}\n"


def test_division_is_not_a_regex():
    assert fold(f"x = a / b + {LSQ}c{RSQ};", "a.js") == "x = a / b + 'c';"


# ---- G5: JSX text -------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    f"  return <p>Don{RSQ}t {LDQ}panic{RDQ} {MDASH} it{RSQ}s fine</p>;",
    f"  return <p>{LDQ}Quoted{RDQ}</p>;",
    f"      {LDQ}Quoted{RDQ} text in an element",
])
def test_jsx_text_in_a_js_file_is_kept(line):
    assert fold(line, "src/Hello.js") == line


def test_jsx_lines_of_an_edit_keep_their_text_end_to_end():
    before = "export function Hello() {\n  return <p>Hello</p>;\n}\n"
    lines = ["  return (", "    <p>", f"      {LDQ}Quoted{RDQ} text", "    </p>", "  );"]
    out = run(before, [("-", "  return <p>Hello</p>;")] + [("+", t) for t in lines], path="src/Hello.js")
    assert out == "export function Hello() {\n" + "".join(t + "\n" for t in lines) + "}\n"


# ---- G6: heredocs and long strings ---------------------------------------------------------------

TEXT = f"Welcome {MDASH} it{RSQ}s {LDQ}great{RDQ} to see you{ELLIPSIS}"


@pytest.mark.parametrize("path, lines", [
    ("lib/banner.rb", ["  <<~TEXT", f"    {TEXT}", "  TEXT"]),
    ("lib/banner.rb", ["  puts <<-EOS", f"    {LDQ}great{RDQ}", "  EOS"]),
    ("a.php", ["$t = <<<EOT", f"{LDQ}great{RDQ} Don{RSQ}t", "EOT;"]),
    ("a.php", ["$t = <<<'EOT'", f"{LDQ}great{RDQ}", "EOT;"]),
    ("m.lua", [f"M.msg = [[He said {LDQ}hi{RDQ} {MDASH} it{RSQ}s {LSQ}fine{RSQ}]]"]),
    ("m.lua", ["M.msg = [==[", f"{LDQ}hi{RDQ}", "]==]"]),
    ("q.sql", [f"COMMENT ON TABLE t IS $$Users{RSQ} {LDQ}raw{RDQ} data {MDASH} do not edit$$;"]),
    ("q.sql", ["CREATE FUNCTION f() RETURNS text AS $body$", f"  SELECT {LSQ}x{RSQ};", "$body$;"]),
])
def test_text_the_scanner_does_not_read_is_kept(path, lines):
    assert fold_delimiters(lines, syntax_for(path), [True] * len(lines)) == lines


def test_code_after_a_heredoc_closes_is_folded_again():
    lines = ["x = <<~TEXT", f"  {LDQ}a{RDQ}", "TEXT", f"y = {LDQ}b{RDQ}"]
    assert fold_delimiters(lines, syntax_for("a.rb"), [True] * 4) == lines[:3] + ['y = "b"']


def test_a_heredoc_opened_above_the_edit_keeps_its_text():
    before = f"def banner\n  <<~TEXT\n    hi\n  TEXT\nend\n"
    out = run(before, [(" ", "  <<~TEXT"), ("-", "    hi"), ("+", f"    {LDQ}hi{RDQ}"), (" ", "  TEXT")],
              path="lib/banner.rb")
    assert out == f"def banner\n  <<~TEXT\n    {LDQ}hi{RDQ}\n  TEXT\nend\n"


def test_shift_operator_is_not_a_heredoc():
    assert fold(f"std::cout << {LDQ}hi{RDQ};", "a.cpp") == 'std::cout << "hi";'


# ---- the pair rule ---------------------------------------------------------------------------------

@pytest.mark.parametrize("line, want", [
    (f"x = {LDQ}a{RDQ};", 'x = "a";'),
    (f"return {LSQ}n/a{RSQ};", "return 'n/a';"),
    (f"f({LSQ}a{RSQ}, {LDQ}b{RDQ})", "f('a', \"b\")"),
    (f"{{k: {LDQ}v{RDQ}}}", '{k: "v"}'),
    (f"x = a ? {LSQ}y{RSQ} : {LSQ}n{RSQ};", "x = a ? 'y' : 'n';"),
    (f"s = {LSQ}a{RSQ} + {LSQ}b{RSQ}", "s = 'a' + 'b'"),
    (f"x = {LDQ}it{RSQ}s{RDQ}", f"x = \"it{RSQ}s\""),
    # kept: not certainly a delimiter, and then the whole line is kept
    (f"x = [{LDQ}a{RDQ}, {LDQ}b{RDQ}]", f"x = [{LDQ}a{RDQ}, {LDQ}b{RDQ}]"),  # '[' may be a regex class
    (f"x = a{LDQ}b{RDQ}", f"x = a{LDQ}b{RDQ}"),
    (f"x = {LSQ}don{RSQ}t{RSQ}", f"x = {LSQ}don{RSQ}t{RSQ}"),  # a closer followed by a word
    (f"x = {LDQ}say \"hi\"{RDQ}", f"x = {LDQ}say \"hi\"{RDQ}"),  # plain quote inside would end it
    (f"x = {LDQ}a{RDQ}b", f"x = {LDQ}a{RDQ}b"),
    (f"f({LDQ}a{RDQ}, b{LDQ}c{RDQ})", f"f({LDQ}a{RDQ}, b{LDQ}c{RDQ})"),  # no half-folded line
])
def test_pair_rule(line, want):
    assert fold(line, "a.js") == want


_words = st.text(alphabet="abcxyz_ .,;()=[]{}<>/+-:?!'\"" + "".join(TYPO), max_size=30)


@settings(max_examples=200, deadline=None)
@given(line=_words, path=st.sampled_from(["a.js", "a.py", "a.rb", "a.rs", "a.lua", "a.sql", "a.php"]))
def test_property_folding_changes_only_paired_quotes(line, path):
    """A fold changes only curly quotes, each to its plain kind, in pairs; dashes and
    ellipses are never changed; the line keeps its length."""
    out = fold(line, path)
    assert len(out) == len(line)
    changed = [(a, b) for a, b in zip(line, out) if a != b]
    assert all((a in (LSQ, RSQ) and b == "'") or (a in (LDQ, RDQ) and b == '"') for a, b in changed)
    assert len(changed) % 2 == 0
    if changed:  # nothing typographic left as a quote outside strings: never half folded
        assert fold(out, path) == out


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.lists(st.sampled_from(["a", " ", "'", '"', "<<~A", "<<<B", "A", "B;", "[[", "[=[",
                                                 "]]", "]=]", "--", "--[[", "$$", "$t$", "/*", "*/", "#"]),
                               max_size=6).map("".join), max_size=8),
       path=st.sampled_from(["a.rb", "a.php", "a.lua", "a.sql"]))
def test_property_the_quick_scan_agrees_for_heredocs_and_long_strings(lines, path):
    """Skipping lines that cannot open or close a heredoc or long string changes nothing."""
    from git_aiapply.locate.code_style import _scan_line, scan_state

    syntax, state = syntax_for(path), None
    for line in lines:
        _text, state = _scan_line(line, syntax, state, False)
    assert scan_state(lines, syntax) == state
