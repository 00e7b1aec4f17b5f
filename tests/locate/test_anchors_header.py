"""An add-only chunk anchored at a definition goes after the definition's whole header as
the file's grammar reads it: a wrapped signature, the line of its opening brace, a
docstring (anchors.insertion_after_anchor, BEHAVIOR.md §3)."""
from __future__ import annotations

import pytest

from git_aiapply.grammar.code_tree import read_file
from git_aiapply.locate.anchors import insertion_after_anchor
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText

CLIENT = ('class Client:\n    """A client.\n\n    More words."""\n\n    retries = 1\n\n'
          "    def connect(\n        self,\n        host,\n    ) -> None:\n"
          '        """Connect."""\n        self.sock = open_socket(host)\n')


def add(path: str, before: str, anchor: str, added: list[str]) -> str:
    h = Hunk([("+", t) for t in added], kind="chunk", anchors=[anchor])
    new, _a, _r = apply_hunks(FileText.from_bytes(before.encode()), [h], path=path)
    return new.to_bytes().decode()


def test_after_a_wrapped_signature_and_its_docstring():
    out = add("c.py", CLIENT, "def connect(", ["        self.host = host"])
    lines = out.splitlines()
    at = lines.index("        self.host = host")
    assert lines[at - 1] == '        """Connect."""' and lines[at + 1].endswith("open_socket(host)")
    assert read_file("c.py", out.split("\n")).has_error is False


def test_after_a_class_docstring():
    out = add("c.py", CLIENT, "class Client:", ["    timeout = 5"])
    lines = out.splitlines()
    assert lines[lines.index("    timeout = 5") - 1] == '    More words."""'


@pytest.mark.parametrize("path, text, anchor, added, after", [
    ("a.js", "function f(a,\n           b)\n{\n  return a;\n}\n", "function f(", "  log(a);", "{"),
    ("a.go", "package m\n\nfunc f(a int,\n\tb int) int {\n\treturn a\n}\n", "func f(", "\tlog(a)",
     "\tb int) int {"),
    ("A.java", "class A {\n  int f(int a,\n        int b) {\n    return a;\n  }\n}\n", "int f(",
     "    log(a);", "        int b) {"),
    ("a.rs", "fn f(\n    a: i32,\n) -> i32 {\n    a\n}\n", "fn f(", "    log(a);", ") -> i32 {"),
])
def test_brace_languages_insert_after_the_opening_brace(path, text, anchor, added, after):
    out = add(path, text, anchor, [added]).splitlines()
    assert out[out.index(added) - 1] == after


def test_without_a_grammar_or_a_body_the_line_after_the_anchor():
    assert insertion_after_anchor(["x = 1", "y = 2"], 0, "c.py") == 1
    assert insertion_after_anchor(["def f(", "  a):", "  pass"], 0, "notes.txt") == 1
    assert insertion_after_anchor(["def f(", "  a):", "  pass"], 0, "") == 1
    assert insertion_after_anchor(["def f(", "  a):", "  pass"], 0, "f.py") == 2
