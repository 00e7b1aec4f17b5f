"""Which grammar reads a file: by its name, its extension, or the interpreter its shebang
names.  Pure data and lookups; loading a grammar is ``code_tree``'s.

A file with no entry here keeps the text rules (docs/DECISIONS.md, "Grammars").
"""
from __future__ import annotations

import posixpath

from ..record import record


@record(frozen=True)
class Grammar:
    """One grammar: the package that ships it and the function of its ``_binding`` module
    that returns the language."""

    name: str  # the language, as messages name it
    package: str  # the official grammar package (a core dependency)
    function: str = "language"
    # several definitions may share a name (overloads: Java, C#, C++): a definition
    # written with a name the file has may be a new one beside it
    overloads: bool = False


PYTHON = Grammar("Python", "tree_sitter_python")
JAVASCRIPT = Grammar("JavaScript", "tree_sitter_javascript")
TYPESCRIPT = Grammar("TypeScript", "tree_sitter_typescript", "language_typescript")
TSX = Grammar("TSX", "tree_sitter_typescript", "language_tsx")
GO = Grammar("Go", "tree_sitter_go")
RUST = Grammar("Rust", "tree_sitter_rust")
JAVA = Grammar("Java", "tree_sitter_java", overloads=True)
C = Grammar("C", "tree_sitter_c")
CPP = Grammar("C++", "tree_sitter_cpp", overloads=True)
CSHARP = Grammar("C#", "tree_sitter_c_sharp", overloads=True)
RUBY = Grammar("Ruby", "tree_sitter_ruby")
PHP = Grammar("PHP", "tree_sitter_php", "language_php")
BASH = Grammar("Bash", "tree_sitter_bash")
JSON = Grammar("JSON", "tree_sitter_json")
YAML = Grammar("YAML", "tree_sitter_yaml")
TOML = Grammar("TOML", "tree_sitter_toml")
HTML = Grammar("HTML", "tree_sitter_html")
CSS = Grammar("CSS", "tree_sitter_css")

ALL = (PYTHON, JAVASCRIPT, TYPESCRIPT, TSX, GO, RUST, JAVA, C, CPP, CSHARP, RUBY, PHP, BASH,
       JSON, YAML, TOML, HTML, CSS)

# .h is read as C++: the C++ grammar reads C headers too, the C grammar fails on C++ ones
_BY_EXTENSION = {
    ".py": PYTHON, ".pyi": PYTHON, ".pyw": PYTHON,
    ".js": JAVASCRIPT, ".mjs": JAVASCRIPT, ".cjs": JAVASCRIPT, ".jsx": JAVASCRIPT,
    ".ts": TYPESCRIPT, ".mts": TYPESCRIPT, ".cts": TYPESCRIPT, ".tsx": TSX,
    ".go": GO, ".rs": RUST, ".java": JAVA,
    ".c": C, ".h": CPP,
    ".cc": CPP, ".cpp": CPP, ".cxx": CPP, ".c++": CPP, ".hh": CPP, ".hpp": CPP, ".hxx": CPP,
    ".h++": CPP, ".ipp": CPP, ".inl": CPP,
    ".cs": CSHARP,
    ".rb": RUBY, ".rake": RUBY, ".gemspec": RUBY, ".ru": RUBY,
    ".php": PHP,
    ".sh": BASH, ".bash": BASH,
    ".json": JSON,
    ".yml": YAML, ".yaml": YAML,
    ".toml": TOML,
    ".html": HTML, ".htm": HTML, ".xhtml": HTML,
    ".css": CSS,
}
_BY_NAME = {
    "Rakefile": RUBY, "Gemfile": RUBY, "Guardfile": RUBY, "Vagrantfile": RUBY,
    "Podfile": RUBY, "Brewfile": RUBY,
    ".bashrc": BASH, ".bash_profile": BASH, ".profile": BASH, "PKGBUILD": BASH,
    "Pipfile": TOML, "Cargo.lock": TOML, "poetry.lock": TOML,
}
# the interpreter a shebang runs (`#!/usr/bin/env python3`, `#!/bin/bash -e`)
_BY_INTERPRETER = {
    "python": PYTHON, "node": JAVASCRIPT, "nodejs": JAVASCRIPT, "ruby": RUBY,
    "php": PHP, "bash": BASH, "sh": BASH, "dash": BASH, "ts-node": TYPESCRIPT,
    "deno": TYPESCRIPT, "bun": TYPESCRIPT,
}


def grammar_for(path: str, first_line: str | bytes | None = None) -> Grammar | None:
    """The grammar for ``path`` (a repository path), from its name or extension, else from
    the shebang of its ``first_line``; None when no grammar reads it."""
    base = posixpath.basename(path)
    found = _BY_NAME.get(base)
    if found is None:
        _stem, ext = posixpath.splitext(base)
        found = _BY_EXTENSION.get(ext.lower()) if ext else None
    if found is None and first_line is not None:
        found = _by_shebang(first_line)
    return found


def _by_shebang(line: str | bytes) -> Grammar | None:
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    if not line.startswith("#!"):
        return None
    words = line[2:].split()
    if not words:
        return None
    program = posixpath.basename(words[0])
    if program == "env":  # `env [-S] [VAR=x] python3 -u`
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if not rest:
            return None
        program = posixpath.basename(rest[0])
    name = program.rstrip("0123456789.")  # python3.12, node18
    return _BY_INTERPRETER.get(name)
