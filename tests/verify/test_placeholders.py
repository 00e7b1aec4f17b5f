"""The placeholder detector (git_aiapply/verify/placeholders.py) as a pure function: a corpus
of placeholder lines models write, and of real code lines that must not count."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.verify.placeholders import is_placeholder, placeholder_lines

PLACEHOLDERS = [
    "# ... existing code ...",
    "    # ... existing code ...",
    "# ...existing code...",
    "// ... rest of the file unchanged",
    "// ... rest of the file unchanged ...",
    "/* ... */",
    "/* ... existing methods ... */",
    "<!-- ... -->",
    "<!-- rest of the page unchanged -->",
    "-- ...",
    "-- rest of the query unchanged",
    "; ...",
    "% ...",
    "{{/* ... */}}",
    "{/* ... existing JSX ... */}",
    "{# ... #}",
    "(* ... *)",
    "#",  # replaced below: never a placeholder on its own (kept out by the filter)
    "# ...",
    "# …",
    "// …",
    "# . . .",
    "...",
    "…",
    "[...]",
    "(...)",
    "# (unchanged)",
    "(unchanged)",
    "[unchanged]",
    "# unchanged",
    "// unchanged",
    "# rest of the function stays the same",
    "# rest of the function remains the same",
    "// rest of the class",
    "# Rest of the code",
    "# the rest is unchanged",
    "# the rest",
    "# remaining methods unchanged",
    "# remaining imports",
    "// other methods",
    "// other methods omitted for brevity",
    "# same as before",
    "# Same as before",
    "// ... same as before ...",
    "# existing code",
    "# existing imports",
    "// previous implementation unchanged",
    "# keep existing code",
    "# omitted for brevity",
    "# code omitted",
    "# ... (omitted) ...",
    "// etc.",
    "// ...etc",
    "# ... other fields ...",
    "# ... handle errors ...",
    "# ... rest of setup",
    "rest of the file unchanged",
    "... rest of the file unchanged ...",
    "[... existing code ...]",
    "<existing code>",
    "<rest of the file>",
    "// ... previous code remains the same ...",
    "    // TODO ... existing logic",
    "/** ... */",
    " * ...",
    "''' ... '''",
    '""" ... existing code ... """',
    "REM ...",
    "def helper(x):  # ... unchanged",
    "def helper(x):  # ...",
    "class Widget:  # ... existing methods",
    "function foo() { ... }",
    "function foo() { /* ... */ }",
    "constructor() { /* ... existing ... */ }",
    "} // ... rest of the class",
    "# <rest of the file unchanged>",
    "#... existing code ...",
    "//...",
    "# [...]",
    "# (...)",
    "# no changes below",
    "# nothing else changed",
    "# code here",
    "# implementation goes here",
    "# snip",
    ";; ...",
    "## ...",
    "/// ... existing code",
    "# -- snip --",
    "// [existing code]",
    "# (other functions remain the same)",
    "/* unchanged */",
    "<!-- existing content -->",
    "{/* rest of component */}",
    "// … 200 lines omitted …",
    "# everything else stays the same",
    "# the rest of the file stays the same",
    "# other methods unchanged",
    "# imports unchanged",
    "# all other methods",
    "// Rest of implementation",
    "# same as above",
    "# this is the same as before",
    "# no changes below",
    "# your code here",
    "    pass  # ... existing implementation",
    "const f = () => { ... };",
    "if (ready) { ... }",
    # worded without the usual phrases: what else there is, and that it stays
    "# the rest of the file is identical",
    "# everything else is identical",
    "// remainder of the file is unchanged",
    "-- no other changes",
    "<!-- everything else stays as it was -->",
    "    pass  # ...",
]
PLACEHOLDERS = [p for p in PLACEHOLDERS if p != "#"]

CODE = [
    "def f(): ...",
    "    def f(self) -> int: ...",
    "class P(Protocol): ...",
    "foo(...args)",
    "    ...args,",
    "  ...state,",
    "return {...a, ...b}",
    "const x = { ...obj };",
    "const x = [...items];",
    "x = arr[..., 0]",
    "# TODO",
    "# TODO: handle errors",
    "// unchanged behaviour is intended",
    "# keep the existing behaviour when the flag is off",
    "# the rest of the request is parsed below",
    "pass  # done",
    "pass",
    "#",
    "//",
    "/* */",
    "<!-- -->",
    "# Loading...",
    'print("Loading...")',
    'print("... rest of the code ...")',
    "log.info('waiting...')",
    "#include <stdio.h>",
    "#!/bin/sh",
    "# -*- coding: utf-8 -*-",
    "--verbose \\",
    "SELECT * FROM t; -- fetch all rows",
    "    return x",
    "}",
    "else:",
    "    * @param x the value",
    "The rest of the file is parsed lazily when it is first needed.",
    "- Existing users keep their settings across upgrades and restarts.",
    "x = 1  # the remaining count",
    "for (const a of rest) {",
    "if rest_of_file:",
    "existing_code = load()",
    "    other.methods()",
    "range(1, ...)",
    "float('...')",
    "a = b  # same value",
    '"""Return the thing."""',
    "'''Helpers for the tests.'''",
    "# Copyright (c) 2024 The Authors",
    "<div>...</div>",
    # real comments that mention the vocabulary: prose about the code, not left-out code
    "# handle other cases",
    "# validate existing entries",
    "# update the existing config",
    "# parse the rest of the file",
    "# the value stays the same across calls",
    "# leave the file unchanged",
    "# more tests for the parser",
    "# current config values",
    "# Old style config",
    "# works the same as before the refactor, but faster",
    "timeout = 30  # unchanged",
    "x = compute()  # same as before",
    "int printf(const char *fmt,",
    "    ...);",
    "    ...)",
]


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_placeholder_lines_are_recognised(line):
    assert is_placeholder(line), line


@pytest.mark.parametrize("line", CODE)
def test_code_lines_are_not_placeholders(line):
    assert not is_placeholder(line), line


def test_a_replacing_edit_reports_its_new_placeholder():
    old = ["def a():", "    return 1", "", "def b():", "    return 2"]
    new = ["def a():", "    return 10", "", "# ... existing code ..."]
    assert placeholder_lines(old, new) == [(4, "# ... existing code ...")]


def test_an_additive_edit_never_reports():
    old = ["def a():", "    return 1"]
    new = ["def a():", "    # ... existing code ...", "    return 1", "    ..."]
    assert placeholder_lines(old, new) == []


def test_a_placeholder_the_old_text_holds_is_content():
    old = ["x = 1", "    # ... existing code ...", "y = 2"]
    new = ["x = 2", "  # ... existing code ...", "y = 2"]  # only its indentation moved
    assert placeholder_lines(old, new) == []


def test_dropping_only_blank_lines_is_not_a_removal():
    assert placeholder_lines(["a", "", "b"], ["a", "# ...", "b"]) == []


_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_0123456789 =(),.:'\"", max_size=40)


@settings(max_examples=150, deadline=None)
@given(st.lists(_WORDS, max_size=8), st.lists(_WORDS, max_size=8))
def test_no_placeholder_without_a_removal(old, extra):
    # whatever is added around the old lines, keeping them all removes nothing
    new = extra[: len(extra) // 2] + old + extra[len(extra) // 2:]
    assert placeholder_lines(old, new) == []


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(PLACEHOLDERS), st.lists(_WORDS.filter(str.strip), min_size=1, max_size=6),
       st.integers(min_value=0, max_value=6))
def test_a_new_placeholder_in_a_replacement_is_always_reported(placeholder, old, at):
    # any replacement that drops an old line and adds a placeholder it did not hold
    if placeholder.strip() in {line.strip() for line in old}:
        return
    new = old[1:]
    new.insert(min(at, len(new)), placeholder)
    if old[0].strip() in {line.strip() for line in new}:
        return  # the dropped line is still there: nothing removed
    found = placeholder_lines(old, new)
    assert [line for _n, line in found] == [placeholder]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80))
def test_never_raises(line):
    assert is_placeholder(line) in (True, False)


_IDENT = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(_IDENT, st.lists(_IDENT, max_size=3), st.sampled_from(["", "  # same value", "  // note", ";"]),
       st.sampled_from(["", "    ", "\t"]))
def test_assignments_calls_and_spreads_are_code(name, args, tail, indent):
    # whatever the names (rest, existing, other, unchanged...), code shapes are code
    for line in (f"{name} = {name}({', '.join(args)}){tail}", f"{name}(...{name}){tail}",
                 f"...{name},", f"return {{...{name}, {', '.join(args)}}}", f"def {name}(): ..."):
        assert not is_placeholder(indent + line), line
