"""Syntax (verify/syntax.py, BEHAVIOR.md §5): a file that parsed before the response and
does not after it is refused; one that did not parse is judged on the lines the response
changes; --syntax-check / aiapply.syntaxCheck choose refuse, warn or off, at every door."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

import git_aiapply
from git_aiapply.grammar import languages as L
from git_aiapply.verify.syntax import file_problem, plan_problems
from git_aiapply.plan.plan import FileState

# whole statements of each language: any sequence of them is a valid file, and the broken
# one makes any file invalid
UNITS = {
    L.PYTHON: ("a.py", ["x = 1", "def f():\n    return 2", "class C:\n    pass", "# note",
                        's = """\n  text\n"""'], "def g(:"),
    L.JAVASCRIPT: ("a.js", ["let x = 1;", "function f(...r) {\n  return {...r};\n}",
                            "// note", "const t = `a\n  b`;"], "function g( {"),
    L.TYPESCRIPT: ("a.ts", ["let x: number = 1;", "interface I {\n  a: string;\n}",
                            "/* note */"], "let y: = ;"),
    L.TSX: ("a.tsx", ["const a = <div>{x}</div>;", "// note"], "const b = <div>;"),
    L.GO: ("a.go", ["var x = 1", "func f() int {\n\treturn 2\n}", "// note"], "func g( {"),
    L.RUST: ("a.rs", ["fn f() -> i32 { 1 }", "struct S {\n    a: i32,\n}", "// note"],
             "fn g( {"),
    L.JAVA: ("A.java", ["class A {\n  int f() { return 1; }\n}", "// note", "interface I {}"],
             "class B {"),
    L.C: ("a.c", ["int x = 1;", "int f(void) {\n  return 1;\n}", "/* note */"], "int g( {"),
    L.CPP: ("a.cpp", ["int x = 1;", "namespace n {\nint f() { return 1; }\n}", "// note"],
            "int g( {"),
    L.CSHARP: ("A.cs", ["class A {\n  int F() { return 1; }\n}", "// note"], "class B {"),
    L.RUBY: ("a.rb", ["x = 1", "def f\n  2\nend", "# note"], "def g("),
    L.BASH: ("a.sh", ["x=1", "f() {\n  echo 1\n}", "# note"], "f() {"),
    L.YAML: ("a.yml", ["a: 1", "b:\n  - 2", "# note"], "c: [1, 2"),
    L.TOML: ("a.toml", ["a = 1", "[t]\nb = 2", "# note"], "c = "),
    L.CSS: ("a.css", ["a { color: red; }", "/* note */", "p {\n  margin: 0;\n}"], "b { color: red;"),
    L.HTML: ("a.html", ["<p>hi</p>", "<!-- note -->", "<div>\n  <b>x</b>\n</div>"], "</span>"),
}


def test_the_units_cover_the_statement_languages():
    # JSON and PHP need one document or an opening tag: their own tests below
    assert set(UNITS) == set(L.ALL) - {L.JSON, L.PHP}


@pytest.mark.parametrize("grammar", list(UNITS), ids=lambda g: g.name)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_an_edit_that_keeps_the_file_valid_is_never_refused(grammar, data):
    path, units, _broken = UNITS[grammar]
    pick = st.lists(st.sampled_from(units), min_size=0, max_size=5)
    old = "\n".join(data.draw(pick)).split("\n")
    new = "\n".join(data.draw(pick)).split("\n")
    assert file_problem(path, old, new) is None
    assert file_problem(path, None, new) is None


@pytest.mark.parametrize("grammar", list(UNITS), ids=lambda g: g.name)
@settings(max_examples=6, deadline=None)
@given(data=st.data())
def test_a_broken_statement_written_into_a_valid_file_is_refused(grammar, data):
    path, units, broken = UNITS[grammar]
    chosen = data.draw(st.lists(st.sampled_from(units), min_size=1, max_size=4))
    at = data.draw(st.integers(0, len(chosen)))  # between statements, never inside a string
    old_lines = "\n".join(chosen).split("\n")
    new_lines = "\n".join(chosen[:at] + [broken] + chosen[at:]).split("\n")
    problem = file_problem(path, old_lines, new_lines)
    assert problem is not None and problem.file == path
    assert f"parsed as {grammar.name} before" in problem.reason
    assert problem.nearby and problem.hint


def test_json_and_php():
    assert file_problem("a.json", ['{"a": 1}'], ['{"a": 2, "b": [1]}']) is None
    assert file_problem("a.json", ['{"a": 1}'], ['{"a": 1,}']) is not None
    assert file_problem("a.php", ["<?php", "$a = 1;"], ["<?php", "$a = 2;"]) is None
    assert file_problem("a.php", ["<?php", "$a = 1;"], ["<?php", "$a = ;"]) is not None


def test_the_refusal_names_the_first_error_and_shows_the_lines_around_it():
    old = ["def f():", "    a = 1", "    b = 2", "    c = 3", "    return a", ""]
    new = ["def f():", "    a = 1", "    b = (2", "    c = 3", "    return a", ""]
    problem = file_problem("src/m.py", old, new)
    text = problem.render()
    assert problem.reason.endswith("the first syntax error is on line 3") or "line 3" in text
    assert [n for n, _ in problem.nearby][0] == 1 and (3, "    b = (2") in problem.nearby
    assert "valid Python" in problem.hint


def test_a_file_broken_before_is_judged_on_the_lines_the_response_changes():
    broken = ["def f(:", "    return 1", "x = 1"]
    # the response changes a line that parses, and keeps the broken one: applied
    assert file_problem("a.py", broken, ["def f(:", "    return 2", "x = 1"]) is None
    # it writes a new error elsewhere: refused there
    problem = file_problem("a.py", broken, ["def f(:", "    return 1", "x = ("])
    assert problem is not None and "adds a syntax error" in problem.reason
    # a line that was an error before and is another error after: not the response's
    assert file_problem("a.py", ["line 1", "line 2"], ["line 1", "line two"]) is None


def test_no_grammar_no_check():
    assert file_problem("notes.txt", ["a"], ["def f(:"]) is None
    assert file_problem("README.md", ["a"], ["```", "def f(:"]) is None


def test_a_new_file_is_judged_whole():
    problem = file_problem("new.py", None, ["def f(:", "    pass"])
    assert problem is not None and problem.reason.startswith("the new file is not valid Python")


def test_plan_problems_reads_only_changed_regular_files():
    ok, bad = b"x = 1\n", b"x = (\n"
    final = {"a.py": FileState(0o100644, bad), "same.py": FileState(0o100644, bad),
             "gone.py": None, "link.py": FileState(0o120000, bad),
             "moved.py": FileState(0o100644, bad), "bin.py": FileState(0o100644, b"\0(\n")}
    base = {"a.py": FileState(0o100644, ok), "same.py": FileState(0o100644, bad),
            "gone.py": FileState(0o100644, ok), "link.py": None, "moved.py": None,
            "old.py": FileState(0o100644, bad), "bin.py": None}
    found = plan_problems(final, base, renames=[("old.py", "moved.py")])
    # a renamed file carries its old content's errors: not the response's
    assert [p.file for p in found] == ["a.py"]


def test_a_bom_is_not_code():
    final = {"a.py": FileState(0o100644, "\ufeffx = 2\n".encode())}
    base = {"a.py": FileState(0o100644, "\ufeffx = 1\n".encode())}
    assert plan_problems(final, base) == []


BREAK = "```diff\n--- a/m.py\n+++ b/m.py\n@@\n-def f():\n+def f(:\n     return 1\n```\n"


@pytest.fixture
def m_repo(repo, env):
    repo.write("m.py", "def f():\n    return 1\n")
    repo.commit_all("base")
    return repo


def test_the_command_refuses_warns_or_does_not_look(m_repo):
    head = m_repo.head()
    r = m_repo.run(response=BREAK)
    assert r.returncode == 1 and "m.py: the file parsed as Python before" in r.err
    assert "1 | def f(:" in r.err and m_repo.head() == head
    assert m_repo.git("status", "--porcelain") == ""
    out = json.loads(m_repo.run("--json", "--check", "--syntax-check=warn", response=BREAK).out)
    assert out["status"] == "would-apply" and out["warnings"][0]["file"] == "m.py"
    r = m_repo.run("--syntax-check=off", response=BREAK)
    assert r.returncode == 0 and "warning" not in r.err
    assert m_repo.git("show", "HEAD:m.py").startswith("def f(:")


def test_the_setting_and_bad_values(m_repo):
    m_repo.git("config", "aiapply.syntaxCheck", "warn")
    r = m_repo.run("--check", response=BREAK)
    assert r.returncode == 0 and "warning: m.py: the file parsed as Python" in r.err
    r = m_repo.run("--check", "--syntax-check=refuse", response=BREAK)
    assert r.returncode == 1
    m_repo.git("config", "aiapply.syntaxCheck", "sometimes")
    r = m_repo.run("--check", response=BREAK)
    assert r.returncode == 128 and "bad config value 'sometimes'" in r.err
    r = m_repo.run("--check", "--syntax-check=maybe", response=BREAK)
    assert r.returncode == 2 and "unknown --syntax-check mode 'maybe'" in r.err


def test_the_library_and_attempts_check_the_same(m_repo):
    r = git_aiapply.apply(BREAK, repo=m_repo.root, check=True)
    assert r.status == "refused" and r.errors[0].file == "m.py"
    r = git_aiapply.apply(BREAK, repo=m_repo.root, check=True, syntax_check="warn")
    assert r.status == "would-apply" and r.warnings[0].file == "m.py"
    r = m_repo.run("--branch", "try", response=BREAK)
    assert r.returncode == 1 and "parsed as Python" in r.err


def test_serve_and_mcp_take_the_option_too(m_repo):
    import subprocess
    import sys

    req = json.dumps({"response": BREAK, "id": 1, "options": {"check": True,
                                                                "syntax_check": "warn"}})
    bad = json.dumps({"response": BREAK, "id": 2, "options": {"check": True}})
    out = subprocess.run([sys.executable, "-m", "git_aiapply", "serve"], input=req + "\n" + bad + "\n",
                         cwd=m_repo.root, env=m_repo.env, capture_output=True, text=True)
    first, second = [json.loads(line) for line in out.stdout.splitlines()]
    assert first["status"] == "would-apply" and first["warnings"][0]["file"] == "m.py"
    assert second["status"] == "refused" and "parsed as Python" in second["error_text"]
