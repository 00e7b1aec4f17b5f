"""Makefile recipes are led by a tab in every Makefile name (BEHAVIOR.md §3, issue 30 item
5): one rule says what a Makefile is (``code_style.is_makefile``: Makefile, makefile,
GNUmakefile, BSDmakefile, Makefile.am, Makefile.in, Makefile.in.in, Makefile.inc, *.mk,
*.mak, *.make), and a recipe line an edit writes with spaces gets its tab there whatever
the file's other lines indent with (continuation lines in spaces included), unless the
file sets another recipe prefix.  Names that are not Makefiles (Makefile.toml is
cargo-make's TOML) are not."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.locate.code_style import is_makefile, is_prose
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from conftest import GitRepo, file_text, text_of

MAKEFILE_NAMES = ["Makefile", "makefile", "GNUmakefile", "BSDmakefile", "Makefile.am",
                  "Makefile.in", "Makefile.in.in", "Makefile.inc", "rules.mk", "build.make",
                  "NMAKE.MAK", "src/Makefile.am", "po/Makefile.in.in", "lib/common.mk"]
OTHER_NAMES = ["Makefile.toml", "makefile.py", "mk", "README.make.md", "notes.txt",
               "config.yaml", "Makefiles", "my.makefile.txt"]


@pytest.mark.parametrize("name", MAKEFILE_NAMES)
def test_every_makefile_name_is_a_makefile_and_code(name):
    assert is_makefile(name) and not is_prose(name)


@pytest.mark.parametrize("name", OTHER_NAMES)
def test_other_names_are_not_makefiles(name):
    assert not is_makefile(name)


def run(before: str, lines, path: str) -> str:
    new, _a, _r = apply_hunks(file_text(before), [Hunk(lines, kind="search")], path=path)
    return text_of(new)


# the shapes of Makefile a recipe is added to: tabs only, and with space-indented
# continuation lines (which made the file "not indented with tabs only" before)
BASES = [
    "bin_PROGRAMS = app\napp_SOURCES = main.c\n\ncheck-local:\n\t./app --test\n",
    "SRCS = a.c \\\n    b.c \\\n    c.c\n\ncheck-local:\n\t./app --test\n",
]


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(MAKEFILE_NAMES), st.sampled_from(BASES), st.sampled_from([2, 4, 8]),
       st.lists(st.text("abcxyz-$()@ ", min_size=1, max_size=12).map(str.strip).filter(bool),
                min_size=1, max_size=4))
def test_property_every_makefile_name_gets_tab_recipes(name, base, unit, commands):
    """A new rule written with space-indented recipe lines, in any Makefile name and any
    file shape, lands with each recipe line led by one tab and nothing else changed."""
    added = ["", "lint:"] + [" " * unit + c for c in commands]
    out = run(base, [(" ", "\t./app --test"), *(("+", t) for t in added)], path=name)
    assert out == base + "\nlint:\n" + "".join(f"\t{c}\n" for c in commands)


@given(st.sampled_from(OTHER_NAMES[:3]))
def test_property_a_name_that_is_no_makefile_keeps_spaces_in_a_file_with_spaces(name):
    base = BASES[1]
    out = run(base, [(" ", "\t./app --test"), ("+", ""), ("+", "lint:"), ("+", "    cppcheck")],
              path=name)
    assert out == base + "\nlint:\n    cppcheck\n"


def test_a_recipe_prefix_set_by_the_file_is_respected():
    base = ".RECIPEPREFIX = >\nall:\n> echo hi\n"
    out = run(base, [(" ", "> echo hi"), ("+", ""), ("+", "lint:"), ("+", "    cppcheck")],
              path="Makefile.am")
    assert out == base + "\nlint:\n    cppcheck\n"


def test_assignments_continued_in_spaces_keep_their_spaces():
    base = BASES[1]
    out = run(base, [(" ", "    c.c"), ("+", "    d.c")], path="Makefile.am")
    assert out == base.replace("    c.c\n", "    c.c\n    d.c\n")


# ---- the real command ----------------------------------------------------------------------

AM = "bin_PROGRAMS = app\napp_SOURCES = main.c \\\n    util.c\n\ncheck-local:\n\t./app --test\n"


def _response(fmt: str) -> str:
    new = ["", "lint-local:", "    cppcheck --quiet src", "    @echo linted"]
    if fmt == "search":
        return ("Makefile.am\n```make\n<<<<<<< SEARCH\ncheck-local:\n\t./app --test\n=======\n"
                "check-local:\n\t./app --test\n" + "".join(t + "\n" for t in new)
                + ">>>>>>> REPLACE\n```\n")
    return ("```diff\n--- a/Makefile.am\n+++ b/Makefile.am\n@@ -5,2 +5,6 @@\n check-local:\n"
            " \t./app --test\n" + "".join(f"+{t}\n" for t in new) + "```\n")


@pytest.mark.parametrize("fmt", ["search", "diff"])
def test_e2e_a_new_recipe_in_makefile_am_gets_tabs(repo: GitRepo, fmt):
    repo.write("Makefile.am", AM)
    repo.commit_all("base")
    r = repo.run(response=_response(fmt))
    assert r.returncode == 0, r.out + r.err
    want = AM + "\nlint-local:\n\tcppcheck --quiet src\n\t@echo linted\n"
    assert repo.read("Makefile.am").decode() == want
    assert repo.git("show", "HEAD:Makefile.am") == want
    assert repo.git("status", "--porcelain") == ""
