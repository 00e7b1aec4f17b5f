"""Placement rules of BEHAVIOR.md §3 as plain functions: restated edits are applied once,
different edits of the same lines are refused, line numbers are evidence of place, and a
file's edits from several directives are located together against the original."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import EditFile, Hunk, Source
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_FILE, make_plan
from git_aiapply.text import FileText

from plan_base import DictBase


def H(spec: str, **kw) -> Hunk:
    """A hunk from diff-like text: each line starts with ' ', '-' or '+'."""
    return Hunk([(raw[0], raw[1:]) for raw in spec.split("\n") if raw], **kw)


def run(before: bytes, *hunks: Hunk) -> bytes:
    new, _a, _r = apply_hunks(FileText.from_bytes(before), list(hunks), path="f")
    return new.to_bytes()


def refusal(before: bytes, *hunks: Hunk) -> str:
    with pytest.raises(ApplyError) as e:
        run(before, *hunks)
    return str(e.value)


# ---- the same edit given more than once ----------------------------------------------

def test_restated_insertion_is_applied_once():
    # the insertion keeps its old side: applied on top of itself it would fit again
    before = b"a\nx = 1\nb\n"
    edit = " x = 1\n+x += 1"
    assert run(before, H(edit), H(edit, number=2)) == b"a\nx = 1\nx += 1\nb\n"


def test_restatement_written_another_way_is_the_same_edit():
    # a SEARCH/REPLACE block removes and re-adds its first line; the diff keeps it as
    # context: same old and new sides, so the same edit
    before = b"a\nx = 1\nb\n"
    as_block = H("-x = 1\n+x = 1\n+x += 1")
    as_diff = H(" x = 1\n+x += 1", number=2)
    assert run(before, as_block, as_diff) == b"a\nx = 1\nx += 1\nb\n"
    assert run(before, as_diff, as_block) == b"a\nx = 1\nx += 1\nb\n"


def test_restatement_with_other_context_lines_is_made_once():
    # a SEARCH/REPLACE block, then the same change as a diff with more context: the
    # old sides differ, the change at their places is the same
    before = b"a\nx = 1\nb\n"
    block = H("-x = 1\n+x = 1\n+x += 1")
    diff = H(" a\n x = 1\n+x += 1\n b", number=2)
    removal = H("-b", number=3), H(" x = 1\n-b", number=4)
    assert run(before, block, diff) == b"a\nx = 1\nx += 1\nb\n"
    assert run(before, *removal) == b"a\nx = 1\n"


def test_a_change_partly_like_another_still_overlaps():
    before = b"a\nx = 1\nb\n"
    assert "overlap" in refusal(before, H("-x = 1\n-b\n+y"), H("-x = 1\n+y", number=2))


def test_copies_take_as_many_places_as_fits_then_are_restatements():
    before = b"k\nu\nk\n"
    copies = [H("-k\n+K", number=n) for n in range(1, 4)]
    assert run(before, *copies) == b"K\nu\nK\n"


def test_restated_edit_overlapping_another_edit_is_still_refused():
    before = b"a\nb\nc\n"
    assert "overlap" in refusal(before, H(" a\n-b\n+B"), H(" a\n-b\n+B", number=2),
                                H("-b\n+X\n c", number=3))


@pytest.mark.parametrize("second", ["-x = 1\n+x = 3", " a\n-x = 1\n+y", "-x = 1\n-b\n+z"])
def test_different_edits_of_the_same_lines_are_refused_as_overlapping(second):
    before = b"a\nx = 1\nb\n"
    assert "overlap" in refusal(before, H("-x = 1\n+x = 2"), H(second, number=2))


def test_no_chaining_on_an_edit_that_recreates_the_context():
    # edit 1 adds a line 'x' that edit 2's old side needs twice: located against the
    # original (one 'x' only), edit 2 does not fit
    before = b"x\ny\n"
    assert "could not find" in refusal(before, H(" x\n+x"), H(" x\n x\n+z", number=2))


# ---- line numbers are evidence of place ----------------------------------------------

BLOCKS = b"".join(b"line %d\n" % i for i in range(1, 10)) + b"dup\n" + \
    b"".join(b"line %d\n" % i for i in range(11, 30)) + b"dup\n" + b"end\n"
# 'dup' at lines 10 and 30, 'line 20' unique in between


def test_line_number_beats_response_order():
    # edit 2 comes after edit 1 in the response, which sits between the two fits: the
    # order rule alone would take line 30; the stated line 10 says otherwise
    unique = H("-line 20\n+LINE 20", line_hint=20)
    dup = H("-dup\n+DUP", number=2, line_hint=10)
    out = run(BLOCKS, unique, dup).split(b"\n")
    assert out[9] == b"DUP" and out[29] == b"dup" and out[19] == b"LINE 20"


def test_equally_near_fits_stay_ambiguous():
    assert "ambiguous" in refusal(BLOCKS, H("-dup\n+DUP", line_hint=20))


def test_tie_falls_back_to_response_order():
    unique = H("-line 20\n+LINE 20", line_hint=20)
    dup = H("-dup\n+DUP", number=2, line_hint=20)
    # tie at 10 / 30 from line 20 ... the order rule takes the fit after edit 1
    assert run(BLOCKS, unique, dup).split(b"\n")[29] == b"DUP"


def test_numbers_far_from_every_fit_are_ignored():
    # stated line 2000: the nearest fit (30) would be a guess; numberless, it is ambiguous
    assert "ambiguous" in refusal(BLOCKS, H("-dup\n+DUP", line_hint=2000))


def test_offset_of_earlier_hunks_shifts_the_stated_line():
    # the diff's numbers are 15 lines short throughout: hunk 1's unique place sets the
    # offset, so hunk 2's stated line 15 means 30 (as GNU patch and git apply place it)
    first = H("-line 16\n+LINE 16", line_hint=1)
    dup = H("-dup\n+DUP", number=2, line_hint=15)
    out = run(BLOCKS, first, dup).split(b"\n")
    assert out[29] == b"DUP" and out[9] == b"dup"


def test_offsets_are_per_directive():
    first = H("-line 16\n+LINE 16", line_hint=1, section=0)
    dup = H("-dup\n+DUP", number=1, line_hint=10, section=1)
    out = run(BLOCKS, first, dup).split(b"\n")
    assert out[9] == b"DUP" and out[29] == b"dup"


# ---- a file's edits from several directives are located together ----------------------

def _edit(path: str, spec: str, n: int, **kw) -> EditFile:
    return EditFile(path, [H(spec)], Source("search-replace", f"block {n} {path}", block=n), **kw)


def _plan(ops, files):
    return make_plan(ops, DictBase(files), lambda p: normalize_path(p, worktree="/w"))


def test_restatement_in_another_directive_is_applied_once():
    files = {"m.py": (MODE_FILE, b"a\nx = 1\nb\n"), "o.py": (MODE_FILE, b"o\n")}
    ops = [_edit("m.py", " x = 1\n+x += 1", 1, in_turn=True), _edit("o.py", "-o\n+O", 2),
           _edit("m.py", " x = 1\n+x += 1", 3, in_turn=True)]
    p = _plan(ops, files)
    assert p.final["m.py"].data == b"a\nx = 1\nx += 1\nb\n"
    assert p.final["o.py"].data == b"O\n"
    assert [(c.path, c.added) for c in p.changes] == [("m.py", 1), ("o.py", 1)]


def test_overlap_across_directives_names_both():
    files = {"m.py": (MODE_FILE, b"a\nx = 1\nb\n")}
    with pytest.raises(ApplyError) as e:
        _plan([_edit("m.py", "-x = 1\n+x = 2", 1), _edit("m.py", "-x = 1\n+x = 3", 2)], files)
    text = str(e.value)
    assert "overlap" in text and "block 1 m.py" in text and "block 2 m.py" in text


def test_edits_after_a_rename_are_not_grouped_with_edits_before_it():
    from git_aiapply.ops import RenameFile

    files = {"a": (MODE_FILE, b"x\n")}
    src = Source("file-changes", "FILE_RENAME a")
    p = _plan([_edit("a", "-x\n+y", 1), RenameFile("a", "b", src), _edit("b", "-y\n+z", 2)], files)
    assert p.final == {"a": None, "b": p.final["b"]} and p.final["b"].data == b"z\n"


def test_edit_after_a_whole_file_rewrite_sees_the_rewrite():
    from git_aiapply.ops import NewFile

    files = {"a": (MODE_FILE, b"x\n")}
    src = Source("file-changes", "FILE_NEW a")
    p = _plan([_edit("a", "-x\n+y", 1), NewFile("a", "q\n", src), _edit("a", "-q\n+r", 2)], files)
    assert p.final["a"].data == b"r\n"


# ---- property: every parsed edit is placed exactly once, or the response is refused ------

@st.composite
def responses(draw):
    n = draw(st.integers(3, 40))
    lines = [f"L{i}" for i in range(n)]
    # disjoint ranges of removed lines (a, b), each with a context line before when any
    cuts = sorted(draw(st.sets(st.integers(0, n), min_size=2, max_size=12)))
    edits = []
    for k, (a, b) in enumerate(zip(cuts[::2], cuts[1::2])):
        added = [f"N{k}.{j}" for j in range(draw(st.integers(0, 2)))]
        if a == b and not added:
            continue
        spec = [(" ", lines[a - 1])] if a else []
        spec += [("-", lines[i]) for i in range(a, b)] + [("+", t) for t in added]
        if a == b and b < n:
            spec.append((" ", lines[b]))  # an insertion needs some old line to fit
        if not any(t != "+" for t, _ in spec):
            continue
        edits.append(((a, b, added), spec))
    # restate some edits, in any order, across directives
    order = draw(st.permutations(edits + draw(st.lists(st.sampled_from(edits), max_size=4))
                                 if edits else []))
    sections = draw(st.integers(1, 3))
    return lines, edits, order, sections


def _expected(lines, edits) -> bytes:
    out, pos = [], 0
    for (a, b, added), _spec in sorted(edits, key=lambda e: e[0][:2]):
        out += lines[pos:a] + added
        pos = b
    out += lines[pos:]
    return "".join(t + "\n" for t in out).encode()


@settings(max_examples=150, deadline=None)
@given(responses())
def test_parsed_edits_are_applied_exactly_once(case):
    lines, edits, order, sections = case
    files = {"f": (MODE_FILE, "".join(t + "\n" for t in lines).encode())}
    ops = []
    for k, (_e, spec) in enumerate(order):
        ops.append(EditFile("f", [Hunk(list(spec), number=1)], Source("unified-diff", f"diff {k % sections}")))
    if not ops:
        return
    p = _plan(ops, files)  # removed lines are disjoint and every line unique: never refused
    assert p.final["f"].data == _expected(lines, edits)


@settings(max_examples=100, deadline=None)
@given(responses(), st.data())
def test_a_different_edit_of_the_same_lines_refuses_the_response(case, data):
    lines, edits, order, sections = case
    removing = [spec for (a, b, _t), spec in edits if b > a]
    if not removing:
        return
    spec = data.draw(st.sampled_from(removing))
    rival = [(t, x) for t, x in spec if t != "+"] + [("+", "RIVAL")]
    ops = [EditFile("f", [Hunk(list(s), number=1)], Source("unified-diff", f"diff {k % sections}"))
           for k, s in enumerate([s for _e, s in order] + [rival])]
    files = {"f": (MODE_FILE, "".join(t + "\n" for t in lines).encode())}
    with pytest.raises(ApplyError) as e:
        _plan(ops, files)
    assert "overlap" in str(e.value)


def test_aider_blocks_applied_in_turn_apply_a_restatement_once():
    from git_aiapply.locate.divider_readings import apply_edit

    # block 3 quotes block 1's REPLACE, so the blocks only fit one after another
    # (aider's way); block 2 restates block 1 and must not be applied on top of it
    hunks = [H("-x = 1\n+x = 1\n+x += 1"), H("-x = 1\n+x = 1\n+x += 1", number=2),
             H("-x += 1\n+x += 2", number=3)]
    new, _a, _r = apply_edit(FileText.from_bytes(b"a\nx = 1\nb\n"), hunks, path="f", in_turn=True)
    assert new.to_bytes() == b"a\nx = 1\nx += 2\nb\n"


def test_anchors_of_another_directive_are_looked_for_from_the_top():
    # two apply-patch sections of one file: the second's anchor is searched from the top
    # of the file, as when the sections were located one by one, not after the first's chunk
    files = {"m.py": (MODE_FILE, b"def f():\n    pass\ndef g():\n    pass\ndef f():\n    pass\n")}
    src = [Source("apply-patch", f"*** Update File: m.py ({n})", block=n) for n in (1, 2)]
    first = EditFile("m.py", [H("-    pass\n+    one()", anchors=["def g():"])], src[0])
    second = EditFile("m.py", [H("-    pass\n+    two()", anchors=["def f():"])], src[1])
    p = _plan([first, second], files)
    assert p.final["m.py"].data == b"def f():\n    two()\ndef g():\n    one()\ndef f():\n    pass\n"


def _render(fmt: str, spec: list[tuple[str, str]], start: int) -> str:
    """One edit of file f in a response format; ``start``: 0-based first old line."""
    old = [t for tag, t in spec if tag != "+"]
    new = [t for tag, t in spec if tag != "-"]
    body = "".join(f"{tag}{t}\n" for tag, t in spec)
    if fmt == "ud":
        return (f"```diff\n--- a/f\n+++ b/f\n@@ -{start + 1},{len(old)} +{start + 1},{len(new)} @@\n"
                f"{body}```\n")
    if fmt == "fc":
        return f'<FILE_CHANGES>\n<FILE_PATCH file_path="f">\n@@\n{body}</FILE_PATCH>\n</FILE_CHANGES>\n'
    blocks = ("<<<<<<< SEARCH\n" + "".join(t + "\n" for t in old) + "=======\n"
              + "".join(t + "\n" for t in new) + ">>>>>>> REPLACE\n")
    if fmt == "sr":
        return f"f\n```\n{blocks}```\n"
    return f"<CodeChange file='f'>\n<Description>Change</Description>\n{blocks}</CodeChange>\n"


@settings(max_examples=100, deadline=None)
@given(responses(), st.data())
def test_parsed_edits_in_any_format_are_applied_exactly_once(case, data):
    """Parsed from a response (each edit, or its restatement, in any format, with prose
    between): every edit is made exactly once."""
    from git_aiapply.formats import parse_response

    lines, edits, order, _sections = case
    if not order:
        return
    starts = {id(spec): max(a - 1, 0) for (a, _b, _t), spec in edits}
    parts = ["Here are the changes.\n\n"]
    for _e, spec in order:
        fmt = data.draw(st.sampled_from(["ud", "fc", "sr", "cc"]))
        parts.append(_render(fmt, spec, starts[id(spec)]) + "\nAnd then:\n\n")
    parsed = parse_response("".join(parts))
    files = {"f": (MODE_FILE, "".join(t + "\n" for t in lines).encode())}
    assert _plan(parsed.ops, files).final["f"].data == _expected(lines, edits)


# ---- a diff in the text, made again by a text editor call ----------------------------

def test_text_editor_call_restating_a_diff_is_made_once():
    from git_aiapply.ops import InsertText, ReplaceText

    files = {"m.py": (MODE_FILE, b"a\nx = 1\nb\n")}
    diff = EditFile("m.py", [H(" x = 1\n+x += 1\n b")], Source("unified-diff", "diff m.py"))
    call = Source("tool-call", "tool call 1 (str_replace)")
    again = ReplaceText("m.py", "x = 1\n", "x = 1\nx += 1\n", call)
    assert _plan([diff, again], files).final["m.py"].data == b"a\nx = 1\nx += 1\nb\n"
    inserted = InsertText("m.py", 2, "x += 1\n", call)
    assert _plan([diff, inserted], files).final["m.py"].data == b"a\nx = 1\nx += 1\nb\n"
    # a call that changes something else still applies, on the file as the diff left it
    other = ReplaceText("m.py", "b\n", "c\n", call)
    assert _plan([diff, other], files).final["m.py"].data == b"a\nx = 1\nx += 1\nc\n"


def test_directives_that_only_fit_one_after_another_apply_in_turn():
    # a conversation: the later turn's diff is written against the earlier turn's result;
    # a restatement of the earlier edit in between is still made once
    files = {"m.py": (MODE_FILE, b"a\nb\nc\n")}
    turn1 = _edit("m.py", "-b\n+B", 1)
    restated = _edit("m.py", "-b\n+B", 2)
    turn2 = _edit("m.py", " B\n-c\n+C", 3)
    assert _plan([turn1, restated, turn2], files).final["m.py"].data == b"a\nB\nC\n"
    # when they fit neither way, the refusal is that of locating them together (never a
    # second edit of b made on top of the first)
    with pytest.raises(ApplyError) as e:
        _plan([turn1, _edit("m.py", "-b\n+X", 2), turn2], files)
    assert "block 3 m.py" in str(e.value) and "could not find" in str(e.value)
    with pytest.raises(ApplyError) as e:
        _plan([turn1, _edit("m.py", "-b\n+X", 2)], files)
    assert "overlap" in str(e.value)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 80), min_size=2, max_size=5, unique=True), st.integers(0, 100))
def test_a_stated_line_takes_the_nearest_fit_within_reach(fits, stated):
    """One hunk whose old side fits at ``fits``: the fit nearest the stated line when it
    is the only nearest and within NEAR_LINES (20) or at most half as far as the next,
    else refused as ambiguous."""
    from git_aiapply.locate.placer import NEAR_LINES

    fits = sorted(fits)
    lines = [f"u{i}" for i in range(max(fits) + 3)]
    for f in fits:
        lines[f] = "dup"
    before = "".join(t + "\n" for t in lines).encode()
    hunk = H("-dup\n+DUP", line_hint=stated + 1)
    dist = sorted((abs(f - stated), f) for f in fits)
    near = dist[0][0] <= NEAR_LINES or 2 * dist[0][0] <= dist[1][0]
    if not near or dist[0][0] == dist[1][0]:
        assert "ambiguous" in refusal(before, hunk)
    else:
        out = run(before, hunk).decode().split("\n")
        assert [i for i, t in enumerate(out) if t == "DUP"] == [dist[0][1]]


def test_in_turn_directives_skip_a_restatement_with_other_context():
    # directive 3 quotes directive 1's result, so they apply one after another; directive
    # 2 restates directive 1 with more context lines and must not be made a second time
    files = {"m.py": (MODE_FILE, b"a\nx = 1\nb\n")}
    block = _edit("m.py", "-x = 1\n+x = 1\n+x += 1", 1)
    as_diff = _edit("m.py", " a\n x = 1\n+x += 1\n b", 2)
    after = _edit("m.py", " x += 1\n-b\n+c", 3)
    assert _plan([block, as_diff, after], files).final["m.py"].data == b"a\nx = 1\nx += 1\nc\n"
