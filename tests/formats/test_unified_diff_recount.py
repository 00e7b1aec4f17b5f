"""Unified-diff hunks are read to their real end and recounted (BEHAVIOR.md §2, §3).

- a hunk that something closes (the next ``@@``, the next file's header, a closing fence,
  ``</patch>``, the end of a chat answer its JSON calls whole) is complete whatever its
  header counts say: no hunk is dropped, none is cut at its counts, none is called cut off;
- an unfenced hunk whose counts are met ends at a blank line followed by a markdown list:
  the list is prose; where the two readings cannot be told apart the answer is refused;
- an ``@@`` header with no lines in a diff that goes on is left out with a note;
- ``<patch>...</patch>`` wraps a diff;
- the property: for generated files and diffs whose counts are randomly wrong, the parsed
  hunks are exactly the written hunks, and applying them gives the file the edits describe
  (and what ``git apply --recount`` gives, for a handful of seeds).
"""
from __future__ import annotations

import random
import re
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_aiapply.errors import ApplyError, ParseError
from git_aiapply.formats import parse_response
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import EditFile
from conftest import file_text, text_of

F = "```"


def hunks_of(text: str, **kw) -> dict[str, list[list[tuple[str, str]]]]:
    """path -> the body of each of its hunks."""
    out: dict[str, list] = {}
    for op in parse_response(text, **kw).ops:
        out.setdefault(op.path, []).extend(h.lines for h in op.hunks)
    return out


def refused(text: str, **kw) -> str:
    with pytest.raises(ParseError) as e:
        parse_response(text, **kw)
    return str(e.value)


def body(*lines: str) -> list[tuple[str, str]]:
    return [(ln[0], ln[1:]) for ln in lines]


# ------------------------------------------------------------ hunks read to their real end

TWO_FILES = ("--- a/a.py\n+++ b/a.py\n{h1}\n a\n-b\n+B\n"
             "--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-c\n+C\n")


@pytest.mark.parametrize("h1", ["@@ -1,7 +1,7 @@", "@@ -1,3 +1,4 @@", "@@ -1,1 +1,1 @@"])
@pytest.mark.parametrize("wrap", ["raw", "fence", "patch"])
def test_the_next_files_header_ends_a_hunk_whatever_its_counts(h1, wrap):
    # the known bug: with counts still open, '--- a/c.py' / '+++ b/c.py' were read as a
    # removed and an added line of a.py, and c.py's hunk became a.py's second hunk
    diff = TWO_FILES.format(h1=h1)
    text = {"raw": diff, "fence": F + "diff\n" + diff + F + "\n",
            "patch": "<patch>\n" + diff + "</patch>\n"}[wrap]
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B")], "c.py": [body("-c", "+C")]}


def test_a_header_pair_that_exactly_completes_the_counts_is_a_removed_and_an_added_line():
    text = ("--- a/a.md\n+++ b/a.md\n@@ -1,2 +1,2 @@\n x\n--- old\n+++ new\n"
            "@@ -9 +9 @@\n-y\n+Y\n")
    assert hunks_of(text) == {"a.md": [body(" x", "--- old", "+++ new"), body("-y", "+Y")]}


MISCOUNTED = {
    # header counts -> too few and too many lines in the body, closed by a fence
    "too few lines": "@@ -1,9 +1,12 @@",
    "too many lines": "@@ -1,2 +1,1 @@",
    "no counts": "@@ -1 +1 @@",
    "zero counts": "@@ -0,0 +0,0 @@",
}


@pytest.mark.parametrize("header", MISCOUNTED.values(), ids=MISCOUNTED.keys())
@pytest.mark.parametrize("closer", [F + "\n", F + "\n\nDone.\n", "@@ -20,2 +20,2 @@\n q\n-r\n+R\n" + F + "\n"])
def test_a_miscounted_hunk_closed_by_something_is_recounted_never_cut(header, closer):
    text = ("Fix it.\n\n" + F + "diff\n--- a/a.py\n+++ b/a.py\n" + header
            + "\n a\n-b\n+B\n c\n-d\n+D\n e\n" + closer)
    hunks = hunks_of(text)["a.py"]
    assert hunks[0] == body(" a", "-b", "+B", " c", "-d", "+D", " e")
    assert len(hunks) == (2 if closer.startswith("@@") else 1)


@pytest.mark.parametrize("text", [
    # the content of an indented (list item) fence that is closed
    "1. Apply:\n\n   " + F + "diff\n   --- a/a.py\n   +++ b/a.py\n   @@ -1,7 +1,7 @@\n    a\n   -b\n"
    "   +B\n   " + F + "\n",
    # <patch> ... </patch>
    "<patch>\n--- a/a.py\n+++ b/a.py\n@@ -1,7 +1,7 @@\n a\n-b\n+B\n</patch>\n",
])
def test_a_short_hunk_that_a_fence_or_tag_closes_is_whole(text):
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B")]}


def test_a_short_last_hunk_of_a_chat_answer_its_json_calls_whole_is_recounted():
    text = "--- a/a.py\n+++ b/a.py\n@@ -1,7 +1,7 @@\n a\n-b\n+B\n"
    assert hunks_of(text, ends_whole=True) == {"a.py": [body(" a", "-b", "+B")]}
    # the same text from a file: nothing closes the hunk and it is short: cut off
    message = refused(text)
    assert "cut off" in message and "2 of the 7 old" in message


def test_trailing_blank_context_lines_the_model_wrote_empty_are_kept_when_counts_say_so():
    text = F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n\n\n" + F + "\n"
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B", " ", " ")]}
    # written with their space, they are context whatever the counts say
    text = F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n \n\n" + F + "\n"
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B", " ")]}
    # counts that announce fewer: the blank lines are the fence's padding
    text = F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\n\n" + F + "\n"
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B")]}


@pytest.mark.parametrize("wrap", ["raw", "fence"])
def test_blank_lines_between_two_hunks_keep_the_second_one(wrap):
    # the second hunk was left as prose (inside the fence) and dropped while the first applied
    diff = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\n\n@@ -8,2 +8,2 @@\n-x\n+X\n y\n"
    text = diff if wrap == "raw" else F + "diff\n" + diff + F + "\n"
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B"), body("-x", "+X", " y")]}


@pytest.mark.parametrize("text", [
    "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\nAnd also:\n\n@@ -8,2 +8,2 @@\n-x\n+X\n",
    F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n# then\n@@ -8 +8 @@\n-x\n+X\n" + F + "\n",
    "Change line 8:\n\n" + F + "diff\n@@ -8 +8 @@\n-x\n+X\n" + F + "\n",
    # headers that do not make a file section (they were read as prose, the hunk lost)
    "--- a/x\n@@ -1 +1 @@\n-a\n+b\n",
    "--- a/x\n+++ b/x\n\n@@ -1 +1 @@\n-a\n+b\n",
])
def test_a_hunk_outside_any_files_diff_is_refused_never_dropped(text):
    message = refused(text)
    assert "stands outside any file's diff" in message


# ------------------------------------------------------- unfenced: prose after the hunk

UNFENCED = "Fix b.\n\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"


@pytest.mark.parametrize("prose", [
    "\n+ Handles the empty case\n+ Adds a test\n",
    "\n- Fixed the typo\n\nThat is all.\n",
    "\n\n- Fixed the typo\n- Renamed b\nDone.\n",
    # glued to the hunk, right after the last line its counts announce
    "+ Handles the empty case\n+ Adds a test\n",
    "- Fixed the typo\n\nThat is all.\n",
])
def test_a_list_after_an_unfenced_hunk_whose_counts_are_met_is_prose(prose):
    r = parse_response(UNFENCED + prose)
    assert [h.lines for op in r.ops for h in op.hunks] == [body(" a", "-b", "+B")]
    first_item = prose.strip().split("\n")[0]
    assert first_item in r.explanation


@pytest.mark.parametrize("more,extra", [
    ("+C\n c\n", ["+C", " c"]),
    # list-like lines, but the diff goes on after them: the counts are what is wrong
    ("+ x\n@@ -9 +9 @@\n-q\n+Q\n", ["+ x"]),
    ("+ x\n y\n", ["+ x", " y"]),
])
def test_lines_glued_to_an_unfenced_hunk_past_its_counts_are_its_own(more, extra):
    # no blank line between: the counts are wrong, as git apply --recount reads it
    assert hunks_of(UNFENCED + more)["a.py"][0] == body(" a", "-b", "+B", *extra)


def test_diff_lines_after_a_blank_line_before_the_next_hunk_are_the_hunks():
    # a blank context line written empty where the (too small) counts ran out
    text = UNFENCED + "\n d\n-e\n+E\n@@ -9 +9 @@\n-x\n+X\n"
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B", " ", " d", "-e", "+E"),
                                       body("-x", "+X")]}


@pytest.mark.parametrize("after", ["\n d\n-e\n+E\n\nDone.\n", "\n-e\n+E\nDone.\n"])
def test_code_after_a_blank_line_past_the_counts_is_refused_not_guessed(after):
    # the rest of a miscounted hunk or prose: dropping it would lose an edit, taking it
    # could commit prose
    message = refused(UNFENCED + after)
    assert "may be the hunk's or prose" in message and "response line 9" in message


def test_diff_lines_after_a_blank_that_complete_open_counts_are_the_hunks():
    text = "--- a/a.py\n+++ b/a.py\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n\n c\n d\n\nDone.\n"
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B", " ", " c", " d")]}
    # the last of them a blank context line written empty, before the blank separator
    text = "--- a/a.py\n+++ b/a.py\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n\n c\n\n\nDone.\n"
    assert hunks_of(text) == {"a.py": [body(" a", "-b", "+B", " ", " c", " ")]}


# ------------------------------------------------------------------------- empty hunks

def test_an_empty_hunk_inside_a_diff_that_goes_on_is_left_out_with_a_note():
    text = (F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n@@ -5,2 +5,2 @@\n e\n-f\n+F\n"
            "--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n@@ -4 +4 @@\n-c\n+C\n" + F + "\n")
    r = parse_response(text)
    assert [(op.path, [h.lines for h in op.hunks]) for op in r.ops] == [
        ("a.py", [body(" e", "-f", "+F")]), ("c.py", [body("-c", "+C")])]
    assert len(r.notes) == 2
    assert "hunk 1 of a.py" in r.notes[0] and "response line 4" in r.notes[0]
    assert "hunk 1 of c.py" in r.notes[1] and "response line 11" in r.notes[1]


def test_an_empty_hunk_is_left_out_and_the_others_numbered_as_written():
    text = F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n@@ -5,2 +5,2 @@\n e\n-f\n+F\n" + F + "\n"
    r = parse_response(text)
    (op,) = r.ops
    assert [(h.number, h.lines) for h in op.hunks] == [(2, body(" e", "-f", "+F"))]
    assert len(r.notes) == 1 and "has no lines; left out" in r.notes[0]


@pytest.mark.parametrize("text,reason", [
    # a file whose only hunk is empty changes nothing: refused, not an empty commit
    (F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,3 +1,3 @@\n" + F + "\n", "hunk 1 has no lines"),
    # a new file's hunks are its content
    (F + "diff\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1,3 @@\n" + F + "\n", "hunk 1 has no lines"),
    # the answer ends at the header: cut off
    ("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-a\n+A\n@@ -5,2 +5,2 @@\n", "cut off"),
])
def test_empty_hunks_that_cannot_be_left_out_are_refused(text, reason):
    assert reason in refused(text)


# ------------------------------------------------------------------------------ <patch>

@pytest.mark.parametrize("fence", ["", F + "diff\n", "~~~\n"])
@pytest.mark.parametrize("around", ["", F + "\n"])
def test_a_patch_tag_wraps_a_diff_and_stays_out_of_the_message(fence, around):
    close = fence and fence[:3] + "\n"
    text = ("I fixed the bug.\n\n" + around + "<patch>\n" + fence + "diff --git a/a.py b/a.py\n"
            "--- a/a.py\n+++ b/a.py\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n" + close + "</patch>\n"
            + around + "\nThanks.\n")
    r = parse_response(text)
    assert [(op.path, [h.lines for h in op.hunks]) for op in r.ops] == [
        ("a.py", [body(" a", "-b", "+B")])]
    assert r.explanation == "I fixed the bug.\n\nThanks."


@pytest.mark.parametrize("text,reason", [
    ("<patch>\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n", "never closed"),
    ("<patch>\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\nDone.\n</patch>\n",
     "where </patch> should close it"),
    ("<patch>\n" + F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n", "never closed"),
    ("<patch>\n" + F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n" + F + "\n",
     "never closed"),
    ("<patch>\n" + F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n</patch>\n",
     "where the code fence inside it should close"),
])
def test_a_patch_tag_left_open_or_holding_prose_is_refused(text, reason):
    message = refused(text)
    assert reason in message


def test_an_answer_ending_at_an_opening_patch_tag_is_cut_off():
    assert "cut off" in refused("--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+A\n\n<patch>\n")


# --------------------------------------------------------- property: parsed = applied

# prose after an unfenced diff, as a markdown list (BEHAVIOR §2, issue 21 item 11)
LIST_AFTER = "\n- Fixed the loop\n+ Added a test\n\nThat is all.\n"
LISTED = [("-", " Fixed the loop"), ("+", " Added a test")]


def _file(n: int) -> list[str]:
    # unique code lines (no list items, no diff headers) with a few blank lines between
    return ["" if k % 5 == 4 else f"v{k} = {k}" for k in range(n)]


@st.composite
def miscounted_diffs(draw):
    """(file lines, response text, expected new lines, expected hunk bodies, wrapper)."""
    lines = _file(draw(st.integers(8, 30)))
    cuts = sorted(draw(st.sets(st.integers(0, len(lines)), min_size=2, max_size=6)))
    pairs = [(cuts[k], cuts[k + 1]) for k in range(0, len(cuts) - 1, 2)]
    wrapper = draw(st.sampled_from(["fence", "patch", "raw", "raw+prose", "raw+list"]))
    replaced, bodies, hunk_texts = [], [], []
    prev_end = 0
    for n, (start, end) in enumerate(pairs):
        cb = draw(st.integers(0, min(3, start - prev_end)))
        ca = draw(st.integers(0, 3))
        ca = min(ca, len(lines) - end)
        if n + 1 < len(pairs):
            ca = min(ca, pairs[n + 1][0] - end)
        new = [f"w{n}_{k} = {k}" for k in range(draw(st.integers(0, 3)))]
        old = lines[start - cb:end + ca]
        if not any(old):
            continue  # only blank lines: fits anywhere, no unique place
        hunk = ([(" ", t) for t in lines[start - cb:start]] + [("-", t) for t in lines[start:end]]
                + [("+", t) for t in new] + [(" ", t) for t in lines[end:end + ca]])
        if not any(tag != " " for tag, _ in hunk):
            continue  # only context: changes nothing
        while hunk and hunk[-1] == (" ", ""):
            hunk.pop()  # a trailing blank context line may be read as padding
        prev_end = end + ca
        old_n = sum(1 for t, _ in hunk if t != "+")
        new_n = sum(1 for t, _ in hunk if t != "-")
        d_old, d_new = draw(st.integers(-3, 3)), draw(st.integers(-3, 3))
        header = f"@@ -{start - cb + 1},{max(0, old_n + d_old)} +{start - cb + 1},{max(0, new_n + d_new)} @@"
        # blank context lines written with or without their space, as models do
        rows = []
        for tag, t in hunk:
            rows.append("" if tag == " " and t == "" and draw(st.booleans()) else tag + t)
        hunk_texts.append(header + "\n" + "".join(r + "\n" for r in rows))
        bodies.append([(t, c) for t, c in hunk])
        replaced.append((start, end, new))
    if not bodies:
        return None
    diff = "--- a/f.py\n+++ b/f.py\n" + "".join(hunk_texts)
    text = {"fence": "Here.\n\n" + F + "diff\n" + diff + F + "\n",
            "patch": "<patch>\n" + diff + "</patch>\n",
            "raw": diff,
            "raw+prose": "Here.\n\n" + diff + "\nThis fixes it.\n",
            "raw+list": "Here.\n\n" + diff + LIST_AFTER}[wrapper]
    expected: list[str] = []
    at = 0
    for start, end, new in replaced:
        expected += lines[at:start] + new
        at = end
    expected += lines[at:]
    return lines, text, expected, bodies, wrapper


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(miscounted_diffs())
def test_parsed_hunks_are_the_written_hunks_and_apply_as_written(case):
    if case is None:
        return
    lines, text, expected, bodies, wrapper = case
    try:
        r = parse_response(text)
    except ParseError as e:
        # an unfenced diff that ends the answer short of its counts is cut off (no fence
        # or tag closes it); a blank line past the counts in a raw diff may be refused
        # as undecidable.  A fenced or tagged diff is always whole.
        assert wrapper.startswith("raw"), e
        assert "cut off" in str(e) or "may be the hunk's or prose" in str(e), e
        return
    (op,) = r.ops
    got = [[(t, c) for t, c in h.lines] for h in op.hunks]
    assert len(got) == len(bodies)  # no hunk dropped
    guessed = False
    for g, b in zip(got, bodies):
        # none cut at its counts; the guesses left to the counts: trailing blank lines
        # written empty are context when the counts announce exactly that many more, and
        # a list after the diff is the hunk's when it completes the counts exactly
        extra = g[len(b):]
        assert g[:len(b)] == b
        assert set(extra) <= {(" ", "")} or [x for x in extra if x != (" ", "")] == LISTED
        guessed = guessed or len(g) > len(b)
    ft = file_text("".join(t + "\n" for t in lines))
    try:
        result, _a, _r = apply_hunks(ft, op.hunks, path="f.py")
    except ApplyError:
        assert guessed  # a blank context line the file lacks: refused, never misplaced
        return
    assert result.lines == expected


# a few seeds checked against git itself: git apply --recount on the same diff
@pytest.mark.parametrize("seed", range(4))
def test_the_recount_agrees_with_git_apply_recount(seed, tmp_path):
    rnd = random.Random(seed)
    lines = _file(24)
    hunks, bodies = [], []
    for start in (2, 12):
        end = start + rnd.randint(1, 2)
        new = [f"n{start}_{k} = 0" for k in range(rnd.randint(0, 2))]
        hunk = ([" " + t for t in lines[start - 2:start]] + ["-" + t for t in lines[start:end]]
                + ["+" + t for t in new] + [" " + t for t in lines[end:end + 2]])
        old_n = sum(1 for h in hunk if h[0] != "+") + rnd.choice([-2, -1, 1, 2])
        new_n = sum(1 for h in hunk if h[0] != "-") + rnd.choice([-2, -1, 1, 2])
        hunks.append(f"@@ -{start - 1},{max(old_n, 0)} +{start - 1},{max(new_n, 0)} @@\n"
                     + "".join(h + "\n" for h in hunk))
        bodies.append(hunk)
    diff = "diff --git a/f.py b/f.py\n--- a/f.py\n+++ b/f.py\n" + "".join(hunks)
    original = "".join(t + "\n" for t in lines)
    (tmp_path / "f.py").write_text(original)
    (tmp_path / "x.diff").write_text(diff)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "--recount", "x.diff"], cwd=tmp_path, check=True,
                   capture_output=True)
    by_git = (tmp_path / "f.py").read_text()
    (op,) = parse_response(F + "diff\n" + diff + F + "\n").ops
    assert [["".join(l) for l in h.lines] for h in op.hunks] == bodies
    ours, _a, _r = apply_hunks(file_text(original), op.hunks, path="f.py")
    assert text_of(ours) == by_git != original


# ------------------------------------------------------------------------- end to end

def test_a_left_out_empty_hunk_is_noted_end_to_end(repo):
    import json

    repo.write("x.txt", "a\nb\nc\nd\ne\nf\n")
    repo.commit_all("base")
    text = (F + "diff\n--- a/x.txt\n+++ b/x.txt\n@@ -1,3 +1,3 @@\n@@ -4,3 +4,3 @@\n d\n-e\n+E\n f\n"
            + F + "\n")
    r = repo.run("--check", response=text)
    assert r.returncode == 0 and "note: response line 4: hunk 1 of x.txt" in r.err, r.err
    r = repo.run("--json", response=text)
    out = json.loads(r.out)
    assert out["status"] == "applied", r.out
    assert "hunk 1 of x.txt (@@ -1,3 +1,3 @@) has no lines; left out" in out["note"]
    assert repo.read("x.txt") == b"a\nb\nc\nd\nE\nf\n"


# ----------------------------------------------- no hunk header is ever left as prose

def _case_responses():
    from pathlib import Path

    roots = [Path(__file__).parent.parent / "cases", Path("/work/shared/conformance/seed-examples"),
             Path("/work/shared/conformance/peer-codex")]
    for root in roots:
        for path in sorted(root.glob("*/response.*")) if root.is_dir() else ():
            if path.suffix != ".json":
                yield pytest.param(path.read_text(encoding="utf-8", errors="replace"),
                                   id=f"{root.name}/{path.parent.name}")


@pytest.mark.parametrize("text", list(_case_responses()))
def test_every_hunk_header_of_a_diff_answer_is_a_hunk_or_a_note(text):
    # a hunk left as prose (even inside the diff's fence, which stays out of the message)
    # is a hunk dropped while the rest commits: count them from the text to the operations
    text = text.replace("\r\n", "\n")
    try:
        r = parse_response(text)
    except ApplyError:
        return
    if r.formats != ["unified-diff"] or not all(isinstance(op, EditFile) for op in r.ops):
        return  # other formats' '@@' lines; a new or deleted file's hunks are its content
    headers = [line for line in text.split("\n") if re.match(r"@@ -\d", line.lstrip())]
    assert len(headers) == sum(len(op.hunks) for op in r.ops) + len(r.notes)
