"""Lines inside a string literal are text: the indentation mapping a loose match derives
never moves them (locate._indents, BEHAVIOR.md §3), in every language with such strings."""
from __future__ import annotations

import pytest

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
]
# Go, Rust, Java, C#: an edit's lines are statements, which these grammars read only
# inside a function; the edit's text alone shows them no string, and a string line the
# mapping cannot place is refused, never moved silently.


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
