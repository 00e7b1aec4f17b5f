"""lazy_re.py: a pattern made with ``lazy_compile`` compiles on its first use, once, and
then acts as ``re.compile(pattern, flags)`` in every method and attribute; a bad pattern
fails when used, not when made (at a module's import)."""
from __future__ import annotations

import re
import threading

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.lazy_re import lazy_compile


def test_a_lazy_pattern_compiles_on_first_use_and_acts_as_the_pattern():
    pattern = lazy_compile(r"(\w+)@(\w+)", re.IGNORECASE)
    assert pattern._compiled is None  # nothing compiled when made
    assert pattern.search("mail: A@B").groups() == ("A", "B")
    assert pattern.sub(r"\2", "x@y") == "y" and pattern.pattern == r"(\w+)@(\w+)"
    assert pattern.flags & re.IGNORECASE
    assert pattern.groups == 2 and pattern.groupindex == {}


def test_it_compiles_once():
    pattern = lazy_compile(r"a+b")
    assert pattern.match("aab")
    compiled = pattern._compiled
    assert isinstance(compiled, re.Pattern) and compiled.pattern == "a+b"
    assert pattern.fullmatch("ab") and pattern._compiled is compiled


def test_a_bad_pattern_fails_when_used_not_when_made():
    pattern = lazy_compile(r"(unclosed")  # a module holding it still imports
    for _ in range(2):  # and it fails again: nothing half-made is kept
        with pytest.raises(re.error):
            pattern.search("x")
    with pytest.raises(AttributeError):
        lazy_compile("x").no_such_method


def test_threads_using_it_first_all_get_the_patterns_answers():
    pattern = lazy_compile(r"(\d+)-(\d+)")
    start = threading.Barrier(8)
    got: list = []

    def use() -> None:
        start.wait()
        got.append(pattern.findall("1-2 and 30-40"))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [[("1", "2"), ("30", "40")]] * 8


pieces = st.sampled_from(["a", "b", ".", r"\d", r"\s", r"\w+", "[ab]", "(a|b)", "x*", "^", "$",
                          "(?P<n>b)", r"\b", "?"])
flags = st.sampled_from([0, re.IGNORECASE, re.MULTILINE, re.DOTALL, re.IGNORECASE | re.MULTILINE])


@settings(max_examples=80, deadline=None)
@given(st.lists(pieces, min_size=1, max_size=5).map("".join), flags,
       st.text("abAB1 \n.x", max_size=12))
def test_it_answers_as_the_compiled_pattern(source, flag, text):
    try:
        compiled = re.compile(source, flag)
    except re.error:
        with pytest.raises(re.error):
            lazy_compile(source, flag).search(text)
        return
    lazy = lazy_compile(source, flag)
    m, n = lazy.search(text), compiled.search(text)
    assert (m and (m.span(), m.groups())) == (n and (n.span(), n.groups()))
    assert lazy.findall(text) == compiled.findall(text)
    assert lazy.split(text) == compiled.split(text)
    assert lazy.sub("<>", text) == compiled.sub("<>", text)
    assert (lazy.pattern, lazy.flags, lazy.groupindex) == (compiled.pattern, compiled.flags,
                                                           compiled.groupindex)
