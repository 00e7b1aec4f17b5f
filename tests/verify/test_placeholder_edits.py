"""Placeholders judged by structure (verify/placeholder_edits.py, BEHAVIOR.md §5): a comment is what
the file's grammar calls one; a note alone over dropped code is a placeholder in any human
language; a comment that comes with code, a reason for an empty branch, a section header,
JavaScript's ``...rest`` and a Protocol's ``...`` are content."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.verify.placeholder_edits import grammar_findings, stand_in

# "the rest of the code stays unchanged", as models write it in ten human languages
NOTES = ["rest of the code unchanged", "其余代码保持不变", "resto del código sin cambios",
         "reste du code inchangé", "Rest des Codes unverändert", "остальной код без изменений",
         "既存のコードはそのまま", "기존 코드 변경 없음", "resto do código sem alterações",
         "resto del codice invariato"]

# per language: a file path, a function with a three-line body, and how a comment is written
FUNCTIONS = {
    "py": ("m.py", ["def main():", "    a = load()", "    b = run(a)", "    return b"], "    # {}"),
    "js": ("m.js", ["function main() {", "  const a = load();", "  const b = run(a);",
                    "  return b;", "}"], "  // {}"),
    "ts": ("m.ts", ["function main(): number {", "  const a = load();", "  const b = run(a);",
                    "  return b;", "}"], "  /* {} */"),
    "go": ("m.go", ["func main() {", "\ta := load()", "\tb := run(a)", "\tfmt.Println(b)", "}"],
           "\t// {}"),
    "rs": ("m.rs", ["fn main() {", "    let a = load();", "    let b = run(a);",
                    "    println!(\"{}\", b);", "}"], "    // {}"),
    "java": ("M.java", ["class M {", "  void main() {", "    int a = load();",
                        "    int b = run(a);", "  }", "}"], "    // {}"),
    "c": ("m.c", ["int main(void) {", "  int a = load();", "  int b = run(a);", "  return b;",
                  "}"], "  /* {} */"),
    "cpp": ("m.cpp", ["int main() {", "  auto a = load();", "  auto b = run(a);",
                      "  return b;", "}"], "  // {}"),
    "cs": ("M.cs", ["class M {", "  void Main() {", "    var a = Load();", "    var b = Run(a);",
                    "  }", "}"], "    // {}"),
    "rb": ("m.rb", ["def main", "  a = load", "  b = run(a)", "  b", "end"], "  # {}"),
    "php": ("m.php", ["<?php", "function main() {", "  $a = load();", "  $b = run($a);",
                      "  return $b;", "}"], "  // {}"),
    "sh": ("m.sh", ["main() {", "  a=$(load)", "  b=$(run \"$a\")", "  echo \"$b\"", "}"], "  # {}"),
}


def _body_replaced(lang: str, note: str) -> tuple[str, list[str], list[str]]:
    path, lines, comment = FUNCTIONS[lang]
    opener = next(i for i, line in enumerate(lines) if line.rstrip().endswith(("{", ":"))
                  or line.startswith("def ") or line.endswith("() {"))
    body_end = len(lines) - (0 if lang in ("py",) else 1) - (1 if lang in ("java", "cs") else 0)
    new = lines[:opener + 1] + [comment.format(note)] + lines[body_end:]
    return path, lines, new


@pytest.mark.parametrize("lang", list(FUNCTIONS))
@settings(max_examples=10, deadline=None)
@given(note=st.sampled_from(NOTES))
def test_a_note_alone_over_a_dropped_body_is_a_placeholder_in_any_human_language(lang, note):
    path, old, new = _body_replaced(lang, note)
    found, kind = grammar_findings(path, old, new)
    assert kind == "replaced" and [line.strip() for _n, line in found] != []
    assert note in found[0][1]


@pytest.mark.parametrize("lang", list(FUNCTIONS))
def test_any_comment_alone_over_a_dropped_body_is_one_whatever_it_says(lang):
    # no stand-in word at all: the structure alone says it stands for the body
    path, old, new = _body_replaced(lang, "load and run")
    found, _kind = grammar_findings(path, old, new)
    assert found


@pytest.mark.parametrize("note", NOTES)
def test_a_stand_in_note_inside_an_insertion_is_refused(note):
    old = ["def run():", "    setup()"]
    new = ["def run():", "    setup()", f"    # ... {note} ...", "    cleanup()"]
    found, kind = grammar_findings("r.py", old, new)
    assert kind == "inside" and found == [(3, new[2])]
    new = ["def run():", "    setup()", f"    # {note}", "    cleanup()"]
    assert grammar_findings("r.py", old, new)[0] == [(3, new[2])]


@pytest.mark.parametrize("path, old, new", [
    # JavaScript's rest and spread are code
    ("f.js", ["  const x = a;"], ["  const {", "    x,", "    ...rest", "  } = a;"]),
    ("f.js", ["  const x = a;", "  return x;"], ["  return {", "    ...others", "  };"]),
    # a Protocol's, an ABC's and an overload's bodies of ...
    ("p.py", ["class Reader:", "    def read(self) -> bytes:", "        return b''"],
     ["class Reader(typing.Protocol):", "    def read(self) -> bytes:", "        ..."]),
    ("p.py", ["class Base(ABC):", "    @abstractmethod", "    def run(self):", "        return 1"],
     ["class Base(ABC):", "    @abstractmethod", "    def run(self):", "        ..."]),
    ("p.pyi", ["def f(x): return x"], ["def f(x: int) -> int:", "    ..."]),
    # a section header over new lines, a comment on a line of code
    ("c.toml", ["port = 8080", "host = 'x'"], ["port = 9090", "", "# Other settings", "host = 'y'"]),
    ("c.py", ['    "timeout": 10,', '    "retries": 2,'],
     ['    "timeout": 30,  # unchanged', '    "retries": 5,']),
    # a comment that comes with the code replacing the dropped lines
    ("s.py", ["    s = requests.Session()", "    r = s.get(url)", "    s.close()", "    return r"],
     ["    # Reuse the existing session so connections are pooled", "    return SESSION.get(url)"]),
    ("s.py", ["    e = np.exp(x)", "    s = e.sum()", "    return e / s"],
     ["    # 1. Apply softmax…", "    return softmax(x)"]),
    ("i.js", ["  const a = compute();", "  const b = a + 1;", "  return b;"],
     ["  // ID from previous commit", "  return lastId;"]),
    # the reason a branch is left empty
    ("l.js", ["  } catch (e) {", "    console.error(e);", "    throw e;", "  }"],
     ["  } catch (e) {", "    // the caller retries and reports the failure", "  }"]),
    ("l.rb", ["begin", "  read", "rescue IOError", "  log", "  raise", "end"],
     ["begin", "  read", "rescue IOError", "  # a missing cache is normal", "end"]),
    # comments rewritten as comments
    ("c.py", ["# old note", "x = 1"], ["# 新的说明", "x = 1"]),
    # a note the file already holds
    ("h.py", ["    # ... existing code ...", "    a = 1"], ["    # ... existing code ...", "    a = 2"]),
    # ... inside a string is text
    ("d.py", ['    """', "    >>> f()", "    1", '    """'], ['    """', "    >>> f()", "    ...", '    """']),
])
def test_content_that_the_word_lists_refused(path, old, new):
    assert grammar_findings(path, old, new)[0] == []


def test_a_note_in_a_definition_body_is_no_reason_for_an_empty_branch():
    old = ["function load() {", "  read();", "  parse();", "}"]
    new = ["function load() {", "  // reads and parses, as the caller expects", "}"]
    assert grammar_findings("l.js", old, new)[0]


def test_a_stand_in_in_an_emptied_branch_is_still_a_placeholder():
    old = ["  } catch (e) {", "    console.error(e);", "    throw e;", "  }"]
    new = ["  } catch (e) {", "    // ... existing error handling ...", "  }"]
    assert grammar_findings("l.js", old, new)[0]


def test_no_grammar_no_verdict_here():
    assert grammar_findings("notes.txt", ["a"], ["b"]) is None
    assert grammar_findings("README.md", ["a"], ["# b"]) is None


@pytest.mark.parametrize("line, says", [
    ("# ... existing code ...", True), ("// 其余代码保持不变", True), ("# sin cambios", True),
    ("# Other settings", False), ("# More options", False), ("# 1. Apply softmax…", False),
    ("// load the config", False), ("# rest of the file unchanged", True),
])
def test_stand_in_wording(line, says):
    assert stand_in(line) is says


# the same classes through the command, in two formats
PY = "import os\n\n\ndef main():\n    args = os.environ\n    print(args)\n    return 0\n"


def _sr(search: str, replace: str) -> str:
    return f"m.py\n```python\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n```\n"


def _diff(lines: str) -> str:
    return f"```diff\n--- a/m.py\n+++ b/m.py\n@@ -4,4 +4,2 @@\n{lines}```\n"


@pytest.fixture
def py_repo(repo, env):
    repo.write("m.py", PY)
    repo.commit_all("base")
    return repo


@pytest.mark.parametrize("response", [
    _sr("def main():\n    args = os.environ\n    print(args)\n    return 0",
        "def main():\n    # 其余代码保持不变"),
    _diff(" def main():\n-    args = os.environ\n-    print(args)\n-    return 0\n"
          "+    # resto del código sin cambios\n"),
], ids=["search-replace", "unified-diff"])
def test_the_command_refuses_a_note_in_another_language_over_main(py_repo, response):
    head = py_repo.head()
    r = py_repo.run(response=response)
    assert r.returncode == 1 and "looks like a placeholder" in r.err
    assert py_repo.head() == head and py_repo.git("status", "--porcelain") == ""


@pytest.mark.parametrize("response", [
    _sr("def main():\n    args = os.environ", "def main():\n    args = os.environ\n"
        "    # ... existing code ...\n    cleanup()"),
    "```diff\n--- a/m.py\n+++ b/m.py\n@@ -4,2 +4,4 @@\n def main():\n     args = os.environ\n"
    "+    # ... existing code ...\n+    cleanup()\n```\n",
], ids=["search-replace", "unified-diff"])
def test_the_command_refuses_a_note_inside_an_insertion(py_repo, response):
    r = py_repo.run("--check", response=response)
    assert r.returncode == 1 and "stands for existing code" in r.err


def test_the_command_applies_a_comment_that_comes_with_code(py_repo):
    r = py_repo.run(response=_sr("    print(args)\n    return 0",
                                 "    # Reuse the existing session so connections are pooled\n"
                                 "    return run(args)"))
    assert r.returncode == 0, r.err
    assert "return run(args)" in py_repo.git("show", "HEAD:m.py")
