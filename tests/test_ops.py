"""ops.py: the format-independent operations: a hunk's old and new sides, the line an edit
is recognised by, every operation carrying its Source, and bytes a response holds surviving
into an operation's text (surrogateescape)."""
from __future__ import annotations

import typing

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply import ops
from git_aiapply.formats import parse_response
from git_aiapply.ops import ADD, CONTEXT, REMOVE, Hunk, NewFile, Source

lines = st.lists(st.tuples(st.sampled_from([CONTEXT, REMOVE, ADD]),
                           st.text("ab \t", max_size=3)), max_size=8)


@settings(max_examples=100, deadline=None)
@given(lines)
def test_a_hunk_is_its_old_lines_replaced_by_its_new(tagged):
    hunk = Hunk(tagged)
    assert hunk.old == [t for tag, t in tagged if tag in (CONTEXT, REMOVE)]
    assert hunk.new == [t for tag, t in tagged if tag in (CONTEXT, ADD)]
    # the context lines are on both sides, in the same order
    context = [t for tag, t in tagged if tag == CONTEXT]
    assert len(hunk.old) + len(hunk.new) == len(tagged) + len(context)
    # what a person recognises it by: a line of the file when it has one that is not blank,
    # else an added one, else nothing
    of_file = [t for tag, t in tagged if tag != ADD and t.strip()]
    added = [t for tag, t in tagged if tag == ADD and t.strip()]
    assert hunk.first_line() == (of_file or added or [""])[0]


def test_first_line_prefers_the_files_own_line():
    hunk = Hunk([(ADD, "new()"), (CONTEXT, "   "), (REMOVE, "old()"), (CONTEXT, "kept()")])
    assert hunk.first_line() == "old()"
    assert Hunk([(ADD, ""), (ADD, "  x = 1")]).first_line() == "  x = 1"  # kept as written
    assert Hunk([]).first_line() == ""


def test_every_operation_carries_its_source_and_a_path():
    named = set(typing.get_args(ops.Operation))
    records = {c for c in vars(ops).values()
               if isinstance(c, type) and c.__module__ == ops.__name__
               and "source" in getattr(c, "__annotations__", {})}
    assert named == records  # an operation class added is named in Operation
    for cls in named:
        fields = cls.__annotations__
        assert fields["source"] == "Source"
        assert "path" in fields or {"old_path", "new_path"} <= set(fields), cls


def test_a_source_is_a_frozen_value():
    a = Source("unified-diff", "diff a.txt", block=2, line=5, git_prefix=True, prefixes="cw")
    b = Source("unified-diff", "diff a.txt", block=2, line=5, git_prefix=True, prefixes="cw")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert Source("unified-diff", "diff a.txt") != a
    with pytest.raises(AttributeError):
        a.line = 6  # type: ignore[misc]
    assert (Source("x", "y").block, Source("x", "y").prefixes) == (1, "ab")


def test_mutable_operations_do_not_share_their_lists():
    one, two = Hunk([]), Hunk([])
    one.anchors.append("def f():")
    assert two.anchors == [] and two.readings == []
    with pytest.raises(TypeError):
        hash(one)


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=20).filter(lambda b: b"\n" not in b and b"\r" not in b
                                     and b"<" not in b and b.strip() == b))
def test_any_byte_of_a_response_survives_into_the_operation(content):
    raw = (b"Add it.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"n.txt\">\nbefore " + content
           + b" after\n</FILE_NEW>\n</FILE_CHANGES>\n")
    op, = parse_response(raw.decode("utf-8", "surrogateescape"), only="file-changes").ops
    assert isinstance(op, NewFile)
    assert op.text.encode("utf-8", "surrogateescape") == b"before " + content + b" after\n"
