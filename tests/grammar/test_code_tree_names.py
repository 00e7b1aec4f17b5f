"""The definitions a change touches, as the file's grammar names them
(grammar/code_tree.py ``names_at``, ``changed_rows``, ``changed_definitions``): what a
subject made from the change names (BEHAVIOR.md §8 round 4)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.grammar.code_tree import changed_definitions, changed_rows, read_file

PY = """import os


class Parser:
    def parse(self, text):
        return text.split()

    def close(self):
        pass


def load(path):
    with open(path) as f:
        return f.read()


@cache
def save(path, data):
    return None
"""


def touch(text: str, *rows: int) -> str:
    """``text`` with a comment added at the end of each row."""
    lines = text.split("\n")
    for row in rows:
        lines[row] += "  # changed"
    return "\n".join(lines)


@pytest.mark.parametrize("rows, names", [
    ((5,), ["Parser.parse"]),  # a method, qualified by its class
    ((4,), ["Parser.parse"]),  # its header line
    ((12, 18), ["load", "save"]),  # two functions, in order of the text
    ((18,), ["save"]),  # inside a decorated definition
    ((0,), []),  # module code names nothing
    ((5, 6, 8), ["Parser.parse", "Parser.close"]),
])
def test_the_innermost_definitions_around_the_changed_rows(rows, names):
    assert changed_definitions("src/app.py", PY, touch(PY, *rows)) == names


def test_removed_lines_are_read_in_the_old_text():
    new = PY.replace("    def close(self):\n        pass\n\n", "")
    assert changed_definitions("app.py", PY, new) == ["Parser.close"]


@pytest.mark.parametrize("path, old, new, names", [
    ("a.js", "function g() {\n  return 1;\n}\n", "function g() {\n  return 2;\n}\n", ["g"]),
    ("a.js", "const f = (x) => {\n  return x;\n};\n", "const f = (x) => {\n  return x + 1;\n};\n", ["f"]),
    ("a.go", "package p\n\nfunc (t *T) M() int {\n\treturn 1\n}\n",
     "package p\n\nfunc (t *T) M() int {\n\treturn 2\n}\n", ["M"]),
    ("a.rs", "impl S {\n    fn m(&self) -> i32 {\n        1\n    }\n}\n",
     "impl S {\n    fn m(&self) -> i32 {\n        2\n    }\n}\n", ["S.m"]),
    ("a.c", "static char *g(void) {\n  return 0;\n}\n", "static char *g(void) {\n  return 1;\n}\n", ["g"]),
    ("A.java", "class A {\n  void m() {\n    x();\n  }\n}\n", "class A {\n  void m() {\n    y();\n  }\n}\n",
     ["A.m"]),
    ("a.rb", "class A\n  def m\n    1\n  end\nend\n", "class A\n  def m\n    2\n  end\nend\n", ["A.m"]),
    # the sections of data files
    ("pyproject.toml", "[project]\nname = 'x'\n\n[tool.ruff]\nline-length = 88\n",
     "[project]\nname = 'x'\n\n[tool.ruff]\nline-length = 100\n", ["tool.ruff"]),
    ("package.json", '{\n  "scripts": {\n    "test": "jest"\n  }\n}\n',
     '{\n  "scripts": {\n    "test": "vitest"\n  }\n}\n', ["scripts.test"]),
    ("ci.yml", "jobs:\n  test:\n    runs-on: ubuntu\n", "jobs:\n  test:\n    runs-on: macos\n", ["test.runs-on"]),
    # a call's keyword in code is no section
    ("b.py", "def f():\n    g(x=1,\n      y=2)\n", "def f():\n    g(x=1,\n      y=3)\n", ["f"]),
])
def test_definitions_in_every_kind_of_grammar(path, old, new, names):
    assert changed_definitions(path, old, new) == names


def test_no_grammar_binary_or_huge_names_nothing():
    assert changed_definitions("notes.md", "# A\ntext\n", "# A\nmore\n") == []
    assert changed_definitions("a.py", b"\xff\xfe", b"\xff\xff") == []
    big = "x = 1\n" * 200_000
    assert changed_definitions("a.py", big, big + "def f():\n    pass\n") == []


def test_names_at_keeps_to_its_limit():
    text = "\n".join(f"def f{i}():\n    pass" for i in range(20))
    tree = read_file("a.py", text.split("\n"))
    assert tree.names_at([(0, 39)], limit=3) == ["f0", "f1", "f2"]


@pytest.mark.parametrize("old, new, written, removed", [
    ("a\nb\nc", "a\nB\nc", [(1, 1)], []),
    ("a\nb\nc", "a\nc", [], [(1, 1)]),
    ("a\nc", "a\nb\nc", [(1, 1)], []),
    ("a\nb\nc\nd", "A\nb\nc\nD", [(0, 0), (3, 3)], []),
    ("same", "same", [], []),
])
def test_changed_rows(old, new, written, removed):
    assert changed_rows(old.split("\n"), new.split("\n")) == (written, removed)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=12),
       st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=12))
def test_changed_rows_cover_every_difference(old, new):
    written, removed = changed_rows(old, new)
    rows = {r for a, b in written for r in range(a, b + 1)}
    assert all(0 <= r < len(new) for r in rows)
    assert all(0 <= a <= b < len(old) for a, b in removed)
    # the rows left untouched, read in order, are lines the old text had in that order
    kept = [line for r, line in enumerate(new) if r not in rows]
    it = iter(old)
    assert all(any(line == o for o in it) for line in kept)
