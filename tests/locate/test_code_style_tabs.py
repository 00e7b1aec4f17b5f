"""Which added lines of a tab-indented file get tabs for their spaces (BEHAVIOR.md §3,
DECISIONS "Locating"): in a Makefile only recipe lines; nowhere a line of a heredoc's
body or a multi-line string; elsewhere only a run of lines next to a tab-indented line
of the edit.  And among two tab readings, the one putting a line under a finished
statement is dropped.  The locator as a plain function."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.locate.code_style import heredoc_bodies, makefile_recipes
from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from conftest import file_text, text_of


def run(before: str, lines: list[tuple[str, str]], path: str, kind: str = "search") -> str:
    new, _a, _r = apply_hunks(file_text(before), [Hunk(lines, kind=kind)], path=path)
    return text_of(new)


# ---- Makefiles: recipe lines only ---------------------------------------------------------

MAKEFILE = "CFLAGS = -O2\n\nall: main.o\n\t$(CC) $(CFLAGS) -o app main.o\n\nclean:\n\trm -f app *.o\n"


def test_assignment_inside_a_conditional_keeps_its_spaces():
    # G7: a tab would make it a recipe line of `clean`, and CFLAGS would never change
    out = run(MAKEFILE, [(" ", "clean:"), (" ", "\trm -f app *.o"), ("+", ""),
                         ("+", "ifeq ($(DEBUG),1)"), ("+", "    CFLAGS += -g -O0"), ("+", "endif")],
              path="Makefile")
    assert out.endswith("\nifeq ($(DEBUG),1)\n    CFLAGS += -g -O0\nendif\n")


def test_define_block_keeps_its_spaces():
    out = run(MAKEFILE, [(" ", "CFLAGS = -O2"), ("+", "define CONFIG"), ("+", "services:"),
                         ("+", "  web:"), ("+", "    image: nginx"), ("+", "endef")], path="Makefile")
    assert "define CONFIG\nservices:\n  web:\n    image: nginx\nendef\n" in out


def test_new_rule_gets_tabbed_recipe_lines():
    out = run(MAKEFILE, [(" ", "\trm -f app *.o"), ("+", ""), ("+", "lint: src"),
                         ("+", "    flake8 src"), ("+", "    mypy src")], path="Makefile")
    assert out.endswith("\nlint: src\n\tflake8 src\n\tmypy src\n")


def test_recipe_line_inside_a_conditional_after_a_recipe_line_gets_a_tab():
    before = "all:\n\techo a\nifeq ($(X),1)\n\techo b\nendif\n"
    out = run(before, [(" ", "\techo b"), ("+", "    echo c"), (" ", "endif")], path="Makefile")
    assert out == "all:\n\techo a\nifeq ($(X),1)\n\techo b\n\techo c\nendif\n"


@pytest.mark.parametrize("line", ["X = 1", "X := 1", "X ::= 1", "X += 1", "X ?= 1", "export X=1",
                                  "app: CFLAGS += -g", "a.o: X := 1", "X = a:b", "include a.mk"])
def test_simple_assignments_are_not_rule_lines(line):
    seq = ["all:", "\techo", line, "    Y = 2"]
    assert makefile_recipes(seq, 3) == [False]


@pytest.mark.parametrize("line", ["all:", "all: a b", "a.o: a.c", "all:: x", "%.o: %.c", "a b: c",
                                  "app: $(SRCS:.c=.o)", "$(OBJ): x.h # a: b=c"])
def test_rule_lines_start_a_recipe(line):
    assert makefile_recipes([line, "    cc"], 1) == [True]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["all: x", "\tcmd", "X = 1", "ifeq (a,b)", "ifdef Y", "else",
                                 "endif", "define V", "endef", "# note", "", "    body"]),
                max_size=12))
def test_property_a_recipe_is_never_inside_define_or_straight_after_a_directive(seq):
    """Whatever came before: a line after a directive or an assignment, or inside
    define...endef, is never a recipe line."""
    seq = seq + ["    added"]
    recipe = makefile_recipes(seq, len(seq) - 1)[0]
    open_define = 0
    for line in seq[:-1]:
        s = line.strip()
        open_define = 1 if s.startswith("define") else 0 if s == "endef" else open_define
    previous = next((line for line in reversed(seq[:-1]) if line.strip()
                     and not line.startswith("#")), "")
    if open_define or previous.startswith(("ifeq", "ifdef", "else", "endif", "X =", "define", "endef")):
        assert not recipe


# ---- heredocs -----------------------------------------------------------------------------

def test_heredoc_body_keeps_its_spaces():
    # G8: YAML written through a heredoc in a tab-indented script
    before = "#!/bin/sh\nsetup() {\n\techo start\n}\n"
    out = run(before, [(" ", "setup() {"), (" ", "\techo start"), ("+", "\tcat > compose.yml <<EOF"),
                       ("+", "services:"), ("+", "  web:"), ("+", "    image: nginx"), ("+", "EOF"),
                       (" ", "}")], path="setup.sh")
    assert "<<EOF\nservices:\n  web:\n    image: nginx\nEOF\n}\n" in out


@pytest.mark.parametrize("opener, end", [("cat <<EOF", "EOF"), ("cat <<-EOF", "\tEOF"),
                                         ("cat << 'END'", "END"), ('cat <<"X1" >f', "X1"),
                                         ("s = <<~TEXT", "  TEXT"), ("$s = <<<EOT;", "EOT;")])
def test_heredoc_openers(opener, end):
    assert heredoc_bodies([opener, "  a", "b", end, "  after"]) == [False, True, True, False, False]


@pytest.mark.parametrize("line", ["x := 1<<n", "cout << endl;", "a <<= 2", "x << y"])
def test_a_shift_without_a_terminator_line_is_no_heredoc(line):
    assert heredoc_bodies([line, "    a", "b"]) == [False, False, False]


# ---- elsewhere: next to a tab-indented line of the edit --------------------------------------

def test_spaces_run_with_no_tabbed_neighbour_keeps_its_spaces():
    before = "package main\n\nfunc f() {\n\ta()\n}\n"
    out = run(before, [(" ", "}"), ("+", ""), ("+", "var doc = []string{"),
                       ("+", "    \"x\","), ("+", "}")], path="f.go")
    assert out.endswith("var doc = []string{\n    \"x\",\n}\n")


def test_spaces_run_after_a_tabbed_line_gets_tabs():
    before = "package main\n\nfunc f() {\n\ta()\n}\n"
    out = run(before, [(" ", "\ta()"), ("+", "    b()"), ("+", "    c()"), (" ", "}")], path="f.go")
    assert out.endswith("\ta()\n\tb()\n\tc()\n}\n")


def test_spaces_run_before_a_tabbed_line_gets_tabs():
    before = "package main\n\nfunc f() {\n\ta()\n}\n"
    out = run(before, [(" ", "func f() {"), ("+", "    z()"), (" ", "\ta()")], path="f.go")
    assert "func f() {\n\tz()\n\ta()\n" in out


# ---- one tab or two: a finished statement opens no level ------------------------------------

def test_eight_spaces_after_a_statement_are_one_tab():
    # G17: two tabs would put y := 2 under x := 1, which opens no block
    before = "package main\n\nfunc main() {\n\tx := 1\n\tfmt.Println(x)\n}\n"
    out = run(before, [(" ", "func main() {"), (" ", "\tx := 1"), ("-", "\tfmt.Println(x)"),
                       ("+", "        y := 2"), ("+", "        fmt.Println(x, y)"), (" ", "}")],
              path="main.go", kind="hunk")
    assert out.endswith("\tx := 1\n\ty := 2\n\tfmt.Println(x, y)\n}\n")


def test_eight_spaces_after_a_block_opener_stay_ambiguous():
    before = "package main\n\nfunc f(x int) {\n\tif x > 0 {\n\t\treturn\n\t}\n}\n"
    with pytest.raises(ApplyError) as e:
        run(before, [(" ", "\tif x > 0 {"), ("+", "        y := x * 2"), (" ", "\t\treturn")], path="f.go")
    assert "could be one tab or 2" in str(e.value)


@settings(max_examples=150, deadline=None)
@given(body=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["a:", "b: 1", "- x", "c"])),
                     min_size=1, max_size=6),
       word=st.sampled_from(["EOF", "END", "YAML"]), dash=st.sampled_from(["", "-"]))
def test_property_a_heredoc_body_is_kept_as_written(body, word, dash):
    """Whatever a heredoc's body holds, its lines keep their spaces in a tab-indented file."""
    lines = [" " * (2 * n) + text for n, text in body]
    before = "#!/bin/sh\nf() {\n\techo start\n}\n"
    hunk = [(" ", "f() {"), (" ", "\techo start"), ("+", f"\tcat >out <<{dash}{word}")]
    hunk += [("+", line) for line in lines] + [("+", word), (" ", "}")]
    out = run(before, hunk, path="run.sh")
    assert "\n".join(lines + [word, "}"]) + "\n" in out
