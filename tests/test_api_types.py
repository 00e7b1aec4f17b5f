"""api_types.py: the library's argument types say what the library really takes
(every kind of ``ResponseInput`` is read, an option's value is accepted exactly when it has
its declared type, ``PathOptions`` are the options ``parse`` takes) and what docs/API.md
and docs/JSON.md document."""
from __future__ import annotations

import os
import pathlib
import re
import types
import typing
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

import git_aiapply
from git_aiapply.doors import api
from git_aiapply.api_types import ApplyOptions, PathOptions, ResponseInput, Status

DOCS = Path(__file__).resolve().parents[1] / "docs"
TEXT = ("Make beta louder.\n\n```diff\n--- a/src/b.txt\n+++ b/src/b.txt\n@@\n alpha\n-beta\n"
        "+BETA\n```\n")
HINTS = typing.get_type_hints(ApplyOptions)


class BytesPath:
    """A path-like object whose path is bytes (os.PathLike[bytes])."""

    def __init__(self, path: bytes):
        self.path = path

    def __fspath__(self) -> bytes:
        return self.path


def test_every_kind_of_response_input_is_read_alike(tmp_path):
    file = tmp_path / "answer.md"
    file.write_text(TEXT)
    assistant = {"role": "assistant", "content": TEXT}
    makers = {
        str: lambda: TEXT, bytes: lambda: TEXT.encode(),
        bytearray: lambda: bytearray(TEXT.encode()),
        memoryview: lambda: memoryview(TEXT.encode()),
        os.PathLike[str]: lambda: file, os.PathLike[bytes]: lambda: BytesPath(os.fsencode(file)),
        dict[str, typing.Any]: lambda: {"model": "m", "choices": [{"message": assistant}]},
        list[typing.Any]: lambda: [{"role": "user", "content": "louder"}, assistant],
    }
    assert set(typing.get_args(ResponseInput)) == set(makers)  # a new kind needs a line here
    expected = git_aiapply.parse(TEXT).operations
    assert len(expected) == 1 and expected[0].path == "src/b.txt"
    for kind, make in makers.items():
        assert git_aiapply.parse(make()).operations == expected, kind


def test_a_path_like_is_a_file_and_a_str_is_the_text(tmp_path):
    file = tmp_path / "answer.md"
    file.write_text(TEXT)
    expected = git_aiapply.parse(TEXT).operations
    try:  # a str is never a path: its words are the response (refused, or other edits)
        from_str = git_aiapply.parse(str(file)).operations
    except git_aiapply.ApplyError:
        from_str = None
    assert from_str != expected
    assert git_aiapply.parse(pathlib.PurePath(file)).operations == expected  # os.PathLike[str]


def fits(value: object, hint: object) -> bool:
    """``value`` has the type ``hint`` declares (bool is not an int here)."""
    for arg in typing.get_args(hint) or (hint,):
        origin = typing.get_origin(arg)
        if arg is types.NoneType:
            ok = value is None
        elif origin in (list, tuple):
            ok = isinstance(value, origin) and all(isinstance(v, str) for v in value)
        elif arg is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        else:
            ok = isinstance(value, arg)
        if ok:
            return True
    return False


values = st.one_of(st.none(), st.booleans(), st.integers(-3, 300), st.sampled_from(
    ["", "main", "src/*", "2005-04-07T22:13:13"]), st.floats(0, 1), st.binary(max_size=3),
    st.lists(st.sampled_from(["*.md", "src/*"]), max_size=2),
    st.lists(st.sampled_from(["*.md", "src/*"]), max_size=2).map(tuple),
    st.just(["*.md", 3]), st.just({"x": 1}))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(HINTS)), values)
def test_an_option_is_accepted_exactly_when_it_has_its_declared_type(name, value):
    """The types a checker sees are the ones the library checks at run time."""
    if name == "branch" and isinstance(value, str):
        value = "try/1"  # a branch is also a name git takes (a bad one: test_api.py)
    try:
        api.typed_options({name: value})
    except git_aiapply.InvalidOptions as e:
        assert not fits(value, HINTS[name]), (name, value)
        assert name in str(e)
    else:
        assert fits(value, HINTS[name]), (name, value)


def test_the_path_options_are_the_options_parse_takes():
    path_options = typing.get_type_hints(PathOptions)
    assert set(path_options) <= set(HINTS)  # ApplyOptions holds them too
    given = {"strip": 2, "directory": "lib", "include": ["lib/*"], "exclude": "*.md"}
    assert set(given) == set(path_options)
    op, = git_aiapply.parse(TEXT, **given).operations
    assert op.path == "lib/b.txt"  # a/ then src/ stripped, lib/ prepended
    for name in sorted(set(HINTS) - set(path_options) - {"format"}):
        with pytest.raises(git_aiapply.InvalidOptions, match=name):
            git_aiapply.parse(TEXT, **{name: None})


def documented_options() -> dict[str, str]:
    """option -> its type, as the options table of docs/API.md says it."""
    doc = (DOCS / "API.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^  \| `(\w+)` \| ([a-z ]+?) \| ", doc, re.M))


def test_the_option_types_are_those_docs_api_lists():
    words = {"bool": {bool}, "int": {int}, "str": {str},
             "str or list of str": {str, list[str], tuple[str, ...]}}
    rows = documented_options()
    assert len(rows) > 20 and set(rows) <= set(HINTS)
    for name, word in rows.items():
        assert set(typing.get_args(HINTS[name])) - {types.NoneType} == words[word], name


def test_docs_api_lists_every_option():
    assert set(HINTS) - set(documented_options()) == set()


def test_the_status_type_holds_the_statuses_docs_json_lists():
    doc = (DOCS / "JSON.md").read_text(encoding="utf-8")
    table = doc.split("### `status`", 1)[1].split("###", 1)[0]
    documented = re.findall(r"^\| `([a-z-]+)` \| (\d+) \|", table, re.M)
    assert [s for s, _ in documented] == list(typing.get_args(Status))


def test_the_types_are_where_docs_api_says_programs_import_them():
    # docs/API.md names git_aiapply.api_types: the stage packages moved the library's
    # modules, not this documented path (issue 29 item 6)
    import importlib
    import re

    text = (DOCS / "API.md").read_text(encoding="utf-8")
    assert "`git_aiapply.api_types`" in text
    types = importlib.import_module("git_aiapply.api_types")
    for name in ("ApplyOptions", "PathOptions", "ResponseInput", "Status", "Fault"):
        assert re.search(rf"\b{name}\b", text), name
        assert getattr(types, name) is not None
