"""A text read by its grammar: errors, comment rows, string rows, headers
(grammar/code_tree.py), for every grammar the tool ships."""
import pytest

from git_aiapply.grammar import languages as L
from git_aiapply.grammar.code_tree import read, read_file

# for every grammar: a valid text, the rows that are only comments, a broken text and the
# row of its first error
SAMPLES = {
    L.PYTHON: ("x = 1\n# note\ndef f():\n    return x\n", {1}, "def f(:\n    pass\n", 0),
    L.JAVASCRIPT: ("const a = 1;\n// note\nfunction f(...r) { return {...r}; }\n", {1},
                   "function f( {\n", 0),
    L.TYPESCRIPT: ("let a: number = 1;\n/* note */\n", {1}, "let a: = ;\nlet b = 1;\n", 0),
    L.TSX: ("const a = <div>{x}</div>;\n// note\n", {1}, "const a = <div>;\n", 0),
    L.GO: ("package m\n\n// note\nfunc f() int { return 1 }\n", {2}, "package m\nfunc f( {\n", 1),
    L.RUST: ("// note\nfn f() -> i32 { 1 }\n", {0}, "fn f( { 1 }\n", 0),
    L.JAVA: ("class A {\n  // note\n  int f() { return 1; }\n}\n", {1}, "class A {\n  int f( {\n}\n", 1),
    L.C: ("/* note */\nint f(void) { return 1; }\n", {0}, "int f(void { return 1; }\n", 0),
    L.CPP: ("// note\nint f() { return 1; }\n", {0}, "int f() { return 1 }\n", 0),
    L.CSHARP: ("class A {\n  // note\n  int F() { return 1; }\n}\n", {1}, "class A {\n  int F() { return 1 }\n}\n", 1),
    L.RUBY: ("# note\ndef f\n  1\nend\n", {0}, "def f(\n  1\n", 0),
    L.PHP: ("<?php\n// note\n$a = 1;\n", {1}, "<?php\n$a = ;\n", 1),
    L.BASH: ("# note\nf() { echo 1; }\n", {0}, "f() { echo 1;\n", 0),
    L.JSON: ('{"a": 1}\n', set(), '{"a": }\n', 0),
    L.YAML: ("# note\na: 1\n", {0}, "a: [1, 2\nb: 1\n", 0),
    L.TOML: ("# note\na = 1\n", {0}, "a = \n", 0),
    L.HTML: ("<!-- note -->\n<p>hi</p>\n", {0}, "<p>hi</p>\n</div>\n", 1),
    L.CSS: ("/* note */\na { color: red; }\n", {0}, "a { color: red;\n", 0),
}


def lines(text: str) -> list[str]:
    return text.split("\n")


def test_every_grammar_has_a_sample():
    assert set(SAMPLES) == set(L.ALL)


@pytest.mark.parametrize("grammar", L.ALL, ids=lambda g: g.name)
def test_every_grammar_reads_valid_text_and_finds_comments(grammar):
    valid, comments, _broken, _row = SAMPLES[grammar]
    tree = read(grammar, lines(valid))
    assert tree is not None, f"the {grammar.name} grammar did not load"
    assert not tree.has_error and tree.first_error() is None
    assert tree.comment_rows() == comments


@pytest.mark.parametrize("grammar", L.ALL, ids=lambda g: g.name)
def test_every_grammar_finds_the_first_error(grammar):
    _valid, _comments, broken, row = SAMPLES[grammar]
    tree = read(grammar, lines(broken))
    assert tree.has_error
    assert tree.first_error() == row


def test_no_grammar_reads_nothing():
    assert read(None, ["x"]) is None
    assert read_file("README.md", ["# title"]) is None


def test_spread_and_rest_are_code_not_comments():
    tree = read_file("a.js", ["function f(...rest) {", "  return {...others};", "  // real",
                              "}"])
    assert tree.comment_rows() == {2}


def test_a_comment_after_code_is_not_a_comment_row():
    tree = read_file("a.py", ["x = 1  # unchanged", "# alone", "  # indented"])
    assert tree.comment_rows() == {1, 2}
    assert tree.rows_with_comments() == {0, 1, 2}


def test_comment_markers_inside_strings_are_text():
    tree = read_file("a.py", ['s = """', "# not a comment", '"""', "u = '# nor this'"])
    assert tree.comment_rows() == set()
    assert tree.string_rows() == {1, 2}


@pytest.mark.parametrize("path, text, rows", [
    ("a.py", 'def f():\n    s = """\n  keep\n    """\n    return s\n', {2, 3}),
    ("a.js", "const t = `a\n  b\nc`;\n", {1, 2}),
    ("a.go", "package m\nvar s = `x\n  y`\n", {2}),
    ("a.rs", 'fn f() { let s = r#"a\n  b"#; }\n', {1}),
    ("a.rb", "x = <<~EOS\n  text\nEOS\n", {1, 2}),
    ("a.sh", "cat <<EOF\n  text\nEOF\n", {1, 2}),
    ("A.java", 'class A { String s = """\n  x\n  """; }\n', {1, 2}),
])
def test_string_rows_are_the_lines_that_begin_inside_a_string(path, text, rows):
    assert read_file(path, lines(text)).string_rows() >= rows


@pytest.mark.parametrize("path, text, row, end", [
    # a wrapped signature: the header ends at the colon
    ("a.py", "def connect(\n    host,\n    port,\n) -> None:\n    pass\n", 0, 3),
    # a docstring opens the body: the header runs to its end
    ("a.py", 'class Client:\n    """Doc.\n\n    More."""\n\n    x = 1\n', 0, 3),
    ("a.py", "class C:\n    def m(self,\n          a):\n        return a\n", 1, 2),
    # braces: the line of the opening brace
    ("a.js", "function f(a,\n           b)\n{\n  return a;\n}\n", 0, 2),
    ("a.go", "package m\nfunc f(a int,\n  b int) int {\n  return a\n}\n", 1, 2),
    ("A.java", "class A {\n  int f() {\n    return 1;\n  }\n}\n", 0, 0),
])
def test_header_end(path, text, row, end):
    assert read_file(path, lines(text)).header_end(row) == end


def test_no_header_where_no_statement_opens_a_body():
    tree = read_file("a.py", ["x = 1", "def f():", "    return x"])
    assert tree.header_end(0) is None
    assert tree.header_end(7) is None


def test_shebang_decides_for_a_file_without_extension():
    tree = read_file("bin/tool", ["#!/usr/bin/env python3", "def f(:"])
    assert tree is not None and tree.grammar == L.PYTHON and tree.has_error


@pytest.mark.parametrize("path, text, names", [
    ("m.py", "from a.b import c\nimport os\n@x\ndef f(a):\n    pass\nclass A(B):\n"
             "    def g(self): pass\nx = f(timeout=3)\n",
     {0: "from a.b", 3: "def f", 5: "class A", 6: "def g"}),
    ("m.ts", 'import { a } from "b";\nexport function f(x: number) {\n}\nclass C {\n'
             "  m(a) {\n  }\n}\nconst g = (a) => {\n};\n",
     {1: "export function f", 3: "class C", 4: "m", 7: "const g"}),
    ("m.go", "package p\nfunc (s *S) Stop(a int) {\n}\nfunc New() *S {\n}\n",
     {1: "func (s *S) Stop", 3: "func New"}),
    ("m.rb", "class U\n  def greet(a)\n  end\n  def bye\n  end\nend\n",
     {0: "class U", 1: "def greet", 3: "def bye"}),
    ("m.yml", "a:\n  image: x\n", {0: "a", 1: "image"}),
])
def test_declared_names_are_the_text_up_to_the_name(path, text, names):
    assert read_file(path, text.split("\n")).declared_names() == names
