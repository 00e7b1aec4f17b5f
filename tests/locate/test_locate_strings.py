"""Lines inside a string literal are text: the indentation mapping a loose match derives
never moves them (locate._indents, BEHAVIOR.md §3), in every language with such strings."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.grammar.code_tree import fragment_string_rows
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText


def run(path: str, before: str, spec: list[tuple[str, str]]) -> list[str]:
    new, _a, _r = apply_hunks(FileText.from_bytes(before.encode()), [Hunk(spec)], path=path)
    return new.to_bytes().decode().split("\n")


# (path, file, the edit written one level shallower than the file, the string's own lines)
CASES = [
    ("m.py", "class A:\n    def f(self):\n        x = 1\n        return x\n",
     [(" ", "def f(self):"), (" ", "    x = 1"), ("+", '    s = """'), ("+", "line one"),
      ("+", "  line two"), ("+", '"""'), ("+", "    y = 2")],
     ["line one", "  line two", '"""'], "        y = 2"),
    ("m.js", "class A {\n  f() {\n    const x = 1;\n  }\n}\n",
     [(" ", "f() {"), (" ", "  const x = 1;"), ("+", "  const t = `"), ("+", "first"),
      ("+", "  second`;"), ("+", "  log(t);")],
     ["first", "  second`;"], "    log(t);"),
    ("m.rb", "class A\n  def f\n    x = 1\n  end\nend\n",
     [(" ", "def f"), (" ", "  x = 1"), ("+", "  s = <<~EOS"), ("+", "text"), ("+", "EOS"),
      ("+", "  log(s)")],
     ["text", "EOS"], "    log(s)"),
    ("m.sh", "main() {\n  if true; then\n    x=1\n  fi\n}\n",
     [(" ", "if true; then"), (" ", "  x=1"), ("+", "  cat <<EOF"), ("+", "text"), ("+", "EOF"),
      ("+", "  y=2")],
     ["text", "EOF"], "    y=2"),
    # statements these grammars read only inside a function: read wrapped in one too
    ("m.go", "package m\n\nfunc f() {\n\tif true {\n\t\tx := 1\n\t}\n}\n",
     [(" ", "if true {"), (" ", "\tx := 1"), ("+", "\ts := `a"), ("+", "  b`"), ("+", "\tuse(s)")],
     ["  b`"], "\t\tuse(s)"),
    ("m.rs", "mod m {\n    fn f() {\n        let x = 1;\n    }\n}\n",
     [(" ", "fn f() {"), (" ", "    let x = 1;"), ("+", '    let s = r#"a'), ("+", '  b"#;'),
      ("+", "    use_it(s);")],
     ['  b"#;'], "        use_it(s);"),
    ("M.java", "class M {\n    void f() {\n        int x = 1;\n    }\n}\n",
     [(" ", "void f() {"), (" ", "    int x = 1;"), ("+", '    String s = """'), ("+", "  text"),
      ("+", '  """;'), ("+", "    use(s);")],
     ["  text", '  """;'], "        use(s);"),
]


@pytest.mark.parametrize("path, before, spec, verbatim, shifted", CASES,
                         ids=[c[0] for c in CASES])
def test_string_lines_keep_their_text_while_code_is_reindented(path, before, spec, verbatim,
                                                                shifted):
    out = run(path, before, spec)
    for line in verbatim:
        assert line in out, (line, out)
    assert shifted in out


def test_a_file_with_no_grammar_keeps_the_mapping_for_every_line():
    spec = [(" ", "b"), ("+", 's = """'), ("+", "text"), ("+", '"""')]
    assert run("m.txt", "a\n    b\n", spec)[2:5] == ['    s = """', "    text", '    """']
    assert run("m.py", "a\n    b\n", spec)[2:5] == ['    s = """', "text", '"""']


@pytest.mark.parametrize("path, lines, rows", [
    ("a.go", ["x := 1", "s := `a", "  b`"], {2}),
    ("a.rs", ['let s = "a', '  b";'], {1}),
    ("a.py", ['s = """', "  a", '"""'], {1, 2}),
    ("a.txt", ['s = """', "  a"], set()),
])
def test_fragment_string_rows(path, lines, rows):
    assert fragment_string_rows(path, lines) == rows


_TEXT = st.lists(st.from_regex(r"[ ]{0,6}[a-z][a-z ]{0,10}", fullmatch=True), min_size=1,
                 max_size=4)


@settings(max_examples=25, deadline=None)
@given(inner=_TEXT, file_depth=st.integers(1, 3), edit_depth=st.integers(0, 2))
def test_a_string_literals_lines_are_never_moved_by_the_mapping(inner, file_depth, edit_depth):
    # the file nests the function file_depth levels; the edit writes it edit_depth levels
    pad, epad = "    " * file_depth, "    " * edit_depth
    before = f"{pad}def f(self):\n{pad}    x = 1\n{pad}    return x\n"
    spec = ([(" ", f"{epad}def f(self):"), (" ", f"{epad}    x = 1"), ("+", f'{epad}    s = """')]
            + [("+", t) for t in inner] + [("+", '"""'), ("+", f"{epad}    y = 2")])
    out = run("m.py", before, spec)
    at = out.index(f'{pad}    s = """')
    assert out[at + 1:at + 1 + len(inner)] == inner and out[at + 1 + len(inner)] == '"""'
    assert f"{pad}    y = 2" in out
