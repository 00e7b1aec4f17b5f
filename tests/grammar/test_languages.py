"""Which grammar reads a file: by name, extension and shebang (grammar/languages.py)."""
import pytest

from git_aiapply.grammar import languages as L
from git_aiapply.grammar.languages import grammar_for


@pytest.mark.parametrize("path, grammar", [
    ("src/app.py", L.PYTHON), ("types.pyi", L.PYTHON), ("a/b.JS", L.JAVASCRIPT),
    ("x.mjs", L.JAVASCRIPT), ("x.jsx", L.JAVASCRIPT), ("x.ts", L.TYPESCRIPT),
    ("x.tsx", L.TSX), ("main.go", L.GO), ("lib.rs", L.RUST), ("A.java", L.JAVA),
    ("x.c", L.C), ("x.h", L.CPP), ("x.cpp", L.CPP), ("x.hpp", L.CPP), ("x.cs", L.CSHARP),
    ("x.rb", L.RUBY), ("Rakefile", L.RUBY), ("Gemfile", L.RUBY), ("x.php", L.PHP),
    ("x.sh", L.BASH), ("x.json", L.JSON), ("x.yml", L.YAML), ("x.yaml", L.YAML),
    ("Cargo.toml", L.TOML), ("Cargo.lock", L.TOML), ("x.html", L.HTML), ("x.css", L.CSS),
])
def test_by_name_and_extension(path, grammar):
    assert grammar_for(path) == grammar


@pytest.mark.parametrize("path", ["README.md", "Makefile", "notes.txt", "x.kt", "LICENSE",
                                  "x.py.orig", ".gitignore"])
def test_files_without_a_grammar(path):
    assert grammar_for(path) is None


@pytest.mark.parametrize("line, grammar", [
    ("#!/usr/bin/env python3", L.PYTHON), ("#!/usr/bin/python3.12 -u", L.PYTHON),
    ("#!/bin/bash -e", L.BASH), ("#!/bin/sh", L.BASH), ("#!/usr/bin/env -S node --x", L.JAVASCRIPT),
    (b"#!/usr/bin/env ruby", L.RUBY), ("#!/usr/bin/env FOO=1 php", L.PHP),
])
def test_by_shebang(line, grammar):
    assert grammar_for("bin/tool", line) == grammar


@pytest.mark.parametrize("line", ["#!/usr/bin/env", "#!", "# a comment", "#!/usr/bin/perl", ""])
def test_unknown_shebangs(line):
    assert grammar_for("bin/tool", line) is None


def test_the_name_wins_over_the_shebang():
    assert grammar_for("tool.py", "#!/bin/sh") == L.PYTHON
