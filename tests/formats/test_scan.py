"""The one-pass block scanner (formats/scan.py ``scan_blocks``), BEHAVIOR.md §2.

- a block's content (a REPLACE section, a context line, a new file's content, a fenced
  example) is never read as another block or as a marker: the reproductions of issue 10,
  and a property test over generated responses whose blocks hold other formats' markup;
- a cut-off answer is refused with a message that says so: every text format left open,
  a fence holding a change left open, a unified-diff hunk short of its counts, a raw diff
  cut mid-line;
- the truncation sweep: every realistic response of tests/cases and the conformance
  suites, cut at every line and at many byte offsets, is either refused or gives exactly
  the operations of the complete blocks before the cut (never a changed or partial one).
"""
from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import git_aiapply
from git_aiapply.errors import ApplyError, ParseError
from git_aiapply.formats import parse_response, selected_formats
from git_aiapply.formats.scan import new_file_text, scan_blocks
from git_aiapply.formats.search_blocks import looks_like_marker
from git_aiapply.ops import EditFile, NewFile
from git_aiapply.answer.response import normalize_newlines, read_response
from git_aiapply.answer.toolcalls import parse_with_tools

F = "```"


def ops_of(text: str, only: str | None = None):
    return parse_response(text, only).ops


def summary(text: str):
    out = []
    for op in ops_of(text):
        out.append((type(op).__name__, op.path))
    return out


def refused(text: str) -> str:
    with pytest.raises(ParseError) as e:
        parse_response(text)
    return str(e.value)


# --------------------------------------------------------------- markup inside content

def test_file_delete_example_inside_a_codechange_replace_is_content():
    text = ('Add an example to the prompt.\n\n<CodeChange filePath="prompt.md">\n'
            "<<<<<<< SEARCH\nExamples:\n=======\nExamples:\n<FILE_CHANGES>\n"
            '<FILE_DELETE file_path="notes.txt"/>\n</FILE_CHANGES>\n'
            ">>>>>>> REPLACE\n</CodeChange>\n")
    (op,) = ops_of(text)
    assert isinstance(op, EditFile) and op.path == "prompt.md"
    assert [t for tag, t in op.hunks[0].lines if tag == "+"] == [
        "<FILE_CHANGES>", '<FILE_DELETE file_path="notes.txt"/>', "</FILE_CHANGES>"]


def test_apply_patch_example_inside_a_codechange_replace_is_content():
    text = ('<CodeChange filePath="prompt.md">\n<<<<<<< SEARCH\nExamples:\n=======\n'
            "Examples:\n*** Begin Patch\n*** Add File: evil.txt\n+x\n*** End Patch\n"
            ">>>>>>> REPLACE\n</CodeChange>\n")
    assert summary(text) == [("EditFile", "prompt.md")]


def test_file_changes_quoted_in_apply_patch_context_is_content():
    text = ("Doc.\n\n*** Begin Patch\n*** Update File: doc.md\n@@\n Example:\n <FILE_CHANGES>\n"
            ' <FILE_NEW file_path="evil.txt">\n x\n </FILE_NEW>\n </FILE_CHANGES>\n'
            "-old\n+new\n*** End Patch\n")
    (op,) = ops_of(text)
    assert op.path == "doc.md" and op.hunks[0].old[1] == "<FILE_CHANGES>"


def test_indented_end_patch_is_a_context_line_and_the_patch_goes_on():
    text = ("*** Begin Patch\n*** Update File: doc.md\n@@\n Finish with:\n   *** End Patch\n"
            "-old\n+new\n*** Update File: b.md\n@@\n-x\n+y\n*** End Patch\nThat is all.\n")
    r = parse_response(text)
    assert [op.path for op in r.ops] == ["doc.md", "b.md"]
    assert r.ops[0].hunks[0].old == ["Finish with:", "  *** End Patch", "old"]
    assert r.explanation == "That is all."


def test_a_diff_inside_a_new_markdown_file_is_content():
    text = ("Docs.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"doc.md\">\n# Doc\n" + F + "diff\n"
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" + F + "\n*** Begin Patch\n"
            "*** Delete File: y\n*** End Patch\n</FILE_NEW>\n</FILE_CHANGES>\n")
    (op,) = ops_of(text)
    assert isinstance(op, NewFile) and op.path == "doc.md" and "*** Delete File: y" in op.text


def test_a_markdown_fence_quoted_as_context_does_not_close_the_fence_around_a_patch():
    # a README's own ' ```' context line inside a ``` fenced patch
    text = ("Fix.\n\n" + F + "\n*** Begin Patch\n*** Update File: README.md\n@@\n " + F + "sh\n"
            "-make\n+make all\n " + F + "\n*** End Patch\n" + F + "\nDone.\n")
    r = parse_response(text)
    (op,) = r.ops
    assert op.hunks[0].lines == [(" ", F + "sh"), ("-", "make"), ("+", "make all"), (" ", F)]
    assert r.explanation == "Fix.\n\nDone."


def test_a_markdown_fence_quoted_as_diff_context_stays_content():
    text = ("Fix docs.\n\n" + F + "diff\n--- a/README.md\n+++ b/README.md\n@@ -1,4 +1,4 @@\n"
            " Example:\n " + F + "sh\n-make\n+make all\n " + F + "\n" + F + "\n\nDone.\n")
    r = parse_response(text)
    (op,) = r.ops
    assert op.hunks[0].old == ["Example:", F + "sh", "make", F]
    assert r.explanation == "Fix docs.\n\nDone."


def test_the_fence_around_a_block_is_not_explanation():
    text = ("Before.\n\n~~~~patch\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n~~~~\n\n"
            "After.\n\n" + F + "python\nprint('kept: no change here')\n" + F + "\n")
    r = parse_response(text)
    assert [type(op).__name__ for op in r.ops] == ["DeleteFile"]
    assert "~~~~" not in r.explanation and "*** " not in r.explanation
    assert "print('kept: no change here')" in r.explanation  # a prose fence stays prose


# --------------------------------------------------------------- cut-off answers

CUT_OFF = {
    "diff fence never closed, hunk short of its counts":
        F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,7 +1,7 @@\n a\n b\n-c\n+C\n",
    "diff fence never closed, hunk complete":
        "Here:\n\n" + F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n",
    "raw diff cut in its last line":
        "--- a/cfg.py\n+++ b/cfg.py\n@@ -1,2 +1,2 @@\n import os\n-TIMEOUT = 300\n+TIMEOUT = 3",
    "raw diff short of its counts":
        "Fix.\n\n--- a/a.py\n+++ b/a.py\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n",
    "FILE_CHANGES never closed":
        '<FILE_CHANGES>\n<FILE_DELETE file_path="a"/>\n',
    "FILE_NEW never closed":
        '<FILE_CHANGES>\n<FILE_NEW file_path="a">\nx\n',
    "FILE_PATCH never closed":
        '<FILE_CHANGES>\n<FILE_PATCH file_path="a">\n@@\n-x\n+y\n',
    "apply-patch never closed":
        "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n",
    "apply-patch in a fence never closed":
        "Here:\n" + F + "\n*** Begin Patch\n*** Add File: a\n+x\n",
    "CodeChange never closed":
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n',
    "CodeChange cut in REPLACE":
        '<CodeChange filePath="a.py">\n<<<<<<< SEARCH\nx\n=======\ny',
    "cut in the opening line of a second block":
        "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n<CodeCha",
    "cut right after the opening fence of a second block":
        "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n" + F + "diff\n",
    "cut after a diff header":
        "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n--- a/b.py\n+++ b/b.py\n",
    "cut after a heredoc line":
        "*** Begin Patch\n*** Delete File: a\n*** End Patch\n" + F + "sh\napply_patch <<'EOF'\n",
    "indented End Patch closing a chunk of only context":
        "*** Begin Patch\n*** Update File: doc.md\n@@\n Finish with:\n   *** End Patch\n",
    "a later block in a fence never closed":
        "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n" + F + "diff\n--- a/b\n+++ b/b\n"
        "@@ -1 +1 @@\n-a\n+b\n",
}


@pytest.mark.parametrize("text", CUT_OFF.values(), ids=CUT_OFF.keys())
def test_cut_off_answers_are_refused_and_say_so(text):
    message = refused(text)
    assert "cut off" in message and "response line" in message


@pytest.mark.parametrize("fence", [F, "````", "~~~"])
@pytest.mark.parametrize("after", ["\nDone.\n", "", "\n", "\n\nMore prose.\n"])
def test_a_hunk_its_fence_closes_is_recounted_whatever_its_counts(fence, after):
    # BEHAVIOR §2: "a hunk that ends at something that closes it (... a closing fence ...)
    # is complete whatever its header counts say: its body is recounted"
    text = fence + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,7 +1,7 @@\n a\n-b\n+B\n\n" + fence + after
    (op,) = parse_response(text).ops
    assert op.hunks[0].lines == [(" ", "a"), ("-", "b"), ("+", "B")]


@pytest.mark.parametrize("after", ["", "\n", "\n\n"])
def test_a_short_hunk_that_ends_the_answer_with_nothing_closing_it_looks_cut_off(after):
    text = "--- a/a.py\n+++ b/a.py\n@@ -1,7 +1,7 @@\n a\n-b\n+B\n" + after
    message = refused(text)
    assert "cut off" in message and "nothing closes it" in message and "response line 3" in message


def test_loose_counts_are_hints_where_the_hunk_does_not_end_the_response_or_its_fence():
    # a short hunk followed by another hunk, another file, or (unfenced) prose was finished
    # by the model: its counts are only hints (§3)
    for text in (
            F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,7 +1,7 @@\n a\n-b\n+B\n@@ -9,2 +9,2 @@\n-x\n+X\n y\n" + F + "\n",
            F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,7 +1,7 @@\n a\n-b\n+B\n--- a/c.py\n+++ b/c.py\n"
                "@@ -1 +1 @@\n-c\n+C\n" + F + "\n",
            "--- a/a.py\n+++ b/a.py\n@@ -1,7 +1,7 @@\n a\n-b\n+B\n\nDone.\n"):
        assert {op.path for op in parse_response(text).ops} <= {"a.py", "c.py"}, text


def test_a_blank_context_line_written_empty_before_the_fence_completes_the_hunk():
    text = F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n\n" + F + "\nDone.\n"
    (op,) = parse_response(text).ops
    assert op.hunks[0].lines[-1] == (" ", "")


RAW_DIFF_NO_NEWLINE = "--- a/cfg.py\n+++ b/cfg.py\n@@ -1 +1 @@\n-TIMEOUT = 300\n+TIMEOUT = 3"


def test_a_chat_answer_ending_in_a_diff_line_is_complete_when_the_api_says_it_stopped():
    # chat APIs return text without a final newline; the JSON says whether it was cut
    done = {"object": "chat.completion", "model": "m", "choices": [{"index": 0,
            "finish_reason": "stop", "message": {"role": "assistant", "content": RAW_DIFF_NO_NEWLINE}}]}
    response = read_response(json.dumps(done).encode())
    assert [op.path for op in parse_with_tools(response).ops] == ["cfg.py"]
    # the same text as a plain response stops mid-line: refused
    assert "cut off" in refused(RAW_DIFF_NO_NEWLINE)
    cut = json.loads(json.dumps(done))
    cut["choices"][0]["finish_reason"] = "length"
    with pytest.raises(ApplyError, match="cut off"):
        read_response(json.dumps(cut).encode())


def test_a_raw_diff_with_no_newline_marker_at_the_end_is_complete():
    text = "--- a/a\n+++ b/a\n@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file"
    assert summary(text) == [("EditFile", "a")]


def test_a_response_ending_in_prose_without_newline_is_complete():
    text = "*** Begin Patch\n*** Delete File: a\n*** End Patch\nDone, as asked"
    assert summary(text) == [("DeleteFile", "a")]


def test_a_padded_end_patch_after_a_change_ends_the_patch():
    # Codex's padded last line
    assert summary("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n  *** End Patch\n") == [
        ("EditFile", "a")]


def test_prose_that_merely_starts_like_a_marker_is_not_cut_off():
    for tail in ("That is all.", "Run `git diff` to see it.", "---\nThanks!", "*Note*: done"):
        text = "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n" + tail
        assert summary(text) == [("DeleteFile", "a")], tail


SR_BLOCK = "src/app.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"


@pytest.mark.parametrize("tail", ["\nsrc/util.py\n", "\nsrc/util.py\n```python\n", "\n```\n",
                                  "\nsrc/ut", "\n### ut"])
def test_aider_answers_cut_in_the_next_blocks_path_or_fence_are_refused(tail):
    assert "cut off" in refused(SR_BLOCK + tail)


OTHER_BLOCKS = {
    "fenced diff": F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-a\n+b\n" + F + "\n",
    "apply-patch": "*** Begin Patch\n*** Delete File: a\n*** End Patch\n",
    "FILE_CHANGES": '<FILE_CHANGES>\n<FILE_DELETE file_path="a"/>\n</FILE_CHANGES>\n',
}


@pytest.mark.parametrize("block", OTHER_BLOCKS.values(), ids=OTHER_BLOCKS.keys())
@pytest.mark.parametrize("tail", ["Makef", "util", "`util", "**util", "src/ut", "### ut"])
def test_an_answer_cut_in_a_first_aider_blocks_path_after_other_blocks_is_refused(block, tail):
    # the response stops mid-line in one word after a complete block: the start of the next
    # block's path line (aider's first block may follow blocks of another format)
    message = refused("Fix.\n\n" + block + "\n" + tail)
    assert "cut off" in message and "where a change block begins" in message


@pytest.mark.parametrize("block", OTHER_BLOCKS.values(), ids=OTHER_BLOCKS.keys())
@pytest.mark.parametrize("tail", ["Done.", "That is all", "Thanks!", "Makefile\n",
                                  "See util.py for the rest.\n"])
def test_prose_or_a_whole_line_after_other_blocks_is_not_cut_off(block, tail):
    # a sentence, several words, or a word that need not name a file cannot be told from
    # prose
    assert len(parse_response("Fix.\n\n" + block + "\n" + tail).ops) == 1


@pytest.mark.parametrize("block", OTHER_BLOCKS.values(), ids=OTHER_BLOCKS.keys())
@pytest.mark.parametrize("tail", ["util.py\n", "src/util.py\n", "`src/util.py`\n"])
def test_a_last_line_that_only_names_a_file_after_other_blocks_is_cut_off(block, tail):
    # a file's name alone is an aider block's path line (aider's first block may follow
    # blocks of another format), and its block never came: the answer may be only part
    message = refused("Fix.\n\n" + block + "\n" + tail)
    assert "cut off" in message and "where a change block begins" in message


@pytest.mark.parametrize("block", [SR_BLOCK, *OTHER_BLOCKS.values()],
                         ids=["aider", *OTHER_BLOCKS.keys()])
@pytest.mark.parametrize("tail", ["Modified files:\n\n- `src/app.py`\n",
                                  "Files changed:\nsrc/app.py\n",
                                  "**Changed files:**\n- src/app.py\n",
                                  "Touched:\n- `src/app.py`\n- `src/util.py`\n"])
def test_a_closing_list_of_the_files_changed_is_not_cut_off(block, tail):
    # the entries of a list of files (under 'Files changed:', or list items after a line
    # ending in ':') close the answer; they are no path line of a block that never came
    assert len(parse_response("Fix.\n\n" + block + "\n" + tail).ops) == 1


@pytest.mark.parametrize("tail", ["\nThat is all.", "\nDone.", "\nRun it with:\n```sh\npytest\n```"])
def test_aider_answers_ending_in_prose_apply(tail):
    assert summary(SR_BLOCK + tail) == [("EditFile", "src/app.py")]


def test_a_raw_diff_cut_between_hunks_or_files_applies_its_whole_hunks():
    # BEHAVIOR §2 names the signals of a cut-off answer; a raw diff that stops right after a
    # whole hunk (counts met, final newline) shows none of them: it is a smaller diff
    two_files = ("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-a\n+A\n b\n@@ -9,2 +9,2 @@\n-i\n+I\n j\n"
                 "--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-c\n+C\n")
    first_hunk = two_files[:two_files.index("@@ -9")]
    (op,) = parse_response(first_hunk).ops
    assert [h.lines for h in op.hunks] == [[("-", "a"), ("+", "A"), (" ", "b")]]
    first_file = two_files[:two_files.index("--- a/c.py")]
    assert [(op.path, len(op.hunks)) for op in parse_response(first_file).ops] == [("a.py", 2)]
    # fenced, the same cuts leave the fence open: refused
    for text in (first_hunk, first_file):
        assert "cut off" in refused("Here:\n" + F + "diff\n" + text)


def _in_list(block: str, k: int) -> str:
    pad = " " * k
    return "Steps:\n\n1. Apply this:\n\n" + "".join(
        (pad + l if l else "") + "\n" for l in block.split("\n")[:-1]) + "\n2. Done.\n"


INDENTED = {
    "diff": (F + "diff\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n" + F + "\n",
             [("EditFile", "a.py")]),
    "apply-patch": (F + "\n*** Begin Patch\n*** Update File: a.py\n@@\n a\n-b\n+B\n*** End Patch\n" + F + "\n",
                    [("EditFile", "a.py")]),
    "file-changes": ("~~~xml\n<FILE_CHANGES>\n<FILE_DELETE file_path=\"a.py\"/>\n</FILE_CHANGES>\n~~~\n",
                     [("DeleteFile", "a.py")]),
}


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("name", INDENTED)
def test_a_fence_indented_in_a_list_item_holds_its_block(name, k):
    # CommonMark: a fence indented N spaces has up to N spaces removed from its lines
    block, ops = INDENTED[name]
    r = parse_response(_in_list(block, k))
    assert [(type(op).__name__, op.path) for op in r.ops] == ops
    assert r.explanation == "Steps:\n\n1. Apply this:\n\n2. Done."
    if name != "file-changes":
        assert r.ops[0].hunks[0].lines == [(" ", "a"), ("-", "b"), ("+", "B")]


@pytest.mark.parametrize("name", INDENTED)
def test_an_indented_fence_cut_off_is_refused(name):
    text = _in_list(INDENTED[name][0], 3)
    cut = text[:text.index("+B" if name != "file-changes" else "</FILE") ] + "\n"  # inside the block
    assert "cut off" in refused(cut)
    whole = text[:text.rindex(F if name != "file-changes" else "~~~")]  # block whole, fence open
    assert "cut off" in refused(whole)


def test_indented_fence_lines_inside_an_indented_fence_are_read_once(monkeypatch):
    # every line after an unclosed indented fence is inside it: none opens a fence again
    # (each would read the rest of the response: quadratic)
    from git_aiapply.formats import scan as base
    calls = []
    real = base.scan_blocks
    monkeypatch.setattr(base, "scan_blocks", lambda *a, **k: calls.append(1) or real(*a, **k))
    r = base.scan_blocks("x\n" + "    ```a\n" * 2000 + "    ```b\n   ```c\n", selected_formats(None))
    assert r.blocks == [] and len(calls) == 2  # the outer scan and the first fence's content


def test_an_indented_prose_fence_stays_prose():
    text = _in_list(F + "sh\npytest -q\n--- a/x is not a header here\n" + F + "\n", 3)
    r = parse_response(text)
    assert r.ops == [] and "   pytest -q" in r.explanation


def test_an_unclosed_prose_fence_holding_no_change_is_prose():
    text = "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\nRun:\n" + F + "sh\npytest -q\n"
    r = parse_response(text)
    assert summary(text) == [("DeleteFile", "a")] and "pytest -q" in r.explanation


# --------------------------------------------------------------- the truncation sweep

ROOT = Path(__file__).parent.parent  # tests/
SWEEP_DIRS = [ROOT / "cases", Path("/work/shared/conformance/peer-codex"),
              Path("/work/shared/conformance/seed-examples")]


def _sweep_responses() -> list[tuple[str, str, str | None]]:
    """(name, response text, --format) of every case with a text response; a case that
    asks for a format (``whole`` is read only so) is cut with that option."""
    out = []
    for d in SWEEP_DIRS:
        if not d.is_dir():
            continue
        for case in sorted(p for p in d.iterdir() if (p / "case.json").exists()):
            args = json.loads((case / "case.json").read_text()).get("args", [])
            only = args[args.index("--format") + 1] if "--format" in args[:-1] else None
            for name in ("response.md", "response.txt", "response.patch"):
                if (case / name).exists():
                    raw = (case / name).read_bytes().decode("utf-8", "surrogateescape")
                    out.append((f"{d.name}/{case.name}", normalize_newlines(raw), only))
    return out + _miscounted(out)


_COUNTS = re.compile(r"^@@ -(\d+),(\d+) \+(\d+),(\d+) @@", re.M)


def _miscounted(responses: list[tuple[str, str, str | None]]) -> list[tuple[str, str, str | None]]:
    """The responses holding unified-diff hunks again with wrong header counts (a
    complete hunk is recounted, BEHAVIOR §2): counts too large everywhere (every cut in a
    hunk leaves it short: cut off); counts too small only where each diff is fenced or
    tagged (a raw diff with counts too small, cut at a line, cannot be told from a
    complete one: docs/DECISIONS.md)."""
    out = []
    for name, text, only in responses:
        if not _COUNTS.search(text):
            continue
        out.append((name + "+counts-too-large", _COUNTS.sub(
            lambda m: f"@@ -{m[1]},{int(m[2]) + 2} +{m[3]},{int(m[4]) + 3} @@", text), only))
        try:
            found = scan_blocks(text, selected_formats(only))
        except ApplyError:
            continue
        if all(any(a <= b.start and b.end <= z for a, z in found.wrappers) or "<patch>" in
               text[b.start:b.end] for b in found.blocks if b.format == "unified-diff"):
            out.append((name + "+counts-too-small", _COUNTS.sub(
                lambda m: f"@@ -{m[1]},{max(0, int(m[2]) - 1)} +{m[3]},{max(0, int(m[4]) - 2)} @@",
                text), only))
    return out


def _cut_points(text: str, rng: random.Random) -> list[int]:
    points = {i + 1 for i, c in enumerate(text) if c == "\n"}  # at every line
    points |= {i for i, c in enumerate(text) if c == "\n"}  # just before each newline
    # where a cut line can look finished: after a dot ('runner.' of 'runner.py'), a
    # slash, a colon, a backtick, a quote ('file_path="sr'), and in each line's first
    # characters (a marker's or a fence's start)
    points |= {i + 1 for i, c in enumerate(text) if c in "./:`\"'<*"}
    points |= {i + k for i in points.copy() if text[i - 1:i] == "\n" for k in (1, 2, 3)}
    points |= {rng.randrange(1, len(text)) for _ in range(min(60, len(text)))} if len(text) > 1 else set()
    return sorted(p for p in points if 0 < p < len(text))


def _full_ops(text: str, only: str | None = None):
    try:
        return parse_response(text, only).ops
    except ApplyError:
        return None


RESPONSES = _sweep_responses()


def _sweep_params() -> list:
    """One test per response; a response the parser refuses whole has no complete blocks
    to compare the cuts with: left out here, at collection, with the reason."""
    params = []
    for name, text, only in RESPONSES:
        refused = _full_ops(text, only) is None
        marks = [pytest.mark.skip(reason="the whole response is refused by the parser")] \
            if refused else []
        params.append(pytest.param(text, only, id=name, marks=marks))
    return params


def _rest_closes_a_fence(text: str, cut: int, end: int) -> bool:
    """The cut is in a block's last line, a closing fence already long enough to close
    (``   ~~~`` of ``   ~~~~~``): the block is whole, its close just written longer."""
    line_start = text.rfind("\n", 0, cut) + 1
    return ("\n" not in text[cut:end].rstrip("\n") and not text[cut:end].strip(" `~\n")
            and text[line_start:cut].strip()[:3] in ("```", "~~~"))


@pytest.mark.parametrize("text,only", _sweep_params())
def test_truncation_sweep_never_yields_a_wrong_or_partial_edit(text, only):
    full = parse_response(text, only).ops
    found = scan_blocks(text, selected_formats(only))
    # each block with its wrappers (fences, heredoc lines)
    spans = [(b.start, b.end) for b in found.blocks] + found.wrappers
    # an unfenced unified diff has no closing line: cut right after a whole hunk, it is a
    # whole diff of fewer hunks and carries no cut-off signal (BEHAVIOR §2), so it may
    # apply those hunks (checked below: they must be the answer's first ones, whole)
    raw_diffs = [(b.start, b.end) for b in found.blocks if b.format == "unified-diff"
                 and not any(a <= b.start and b.end <= z for a, z in found.wrappers)]
    rng = random.Random(len(text))
    for cut in _cut_points(text, rng):
        where = f"cut at {cut}: {text[max(0, cut - 40):cut]!r}"
        try:
            got = parse_response(text[:cut], only).ops
        except ApplyError:
            continue  # refused: nothing would change
        # a cut inside a block (or its fence) refuses the whole answer: no operations
        # (the command then says no file changes were found) ...
        if (any(a < cut < b and text[cut:b].strip() and not _rest_closes_a_fence(text, cut, b)
                for a, b in spans)
                and not any(a < cut < b and text[cut - 1] == "\n" for a, b in raw_diffs)):
            assert got == [], where
        # ... and between blocks only complete blocks count, exactly as in the whole answer
        units = _units(got)
        assert units == _units(full)[:len(units)], where


def _units(ops) -> list:
    """Operations with each edit split into its hunks: consecutive SEARCH/REPLACE blocks of
    one file are one edit, so a cut between them keeps the first hunks of that edit."""
    out = []
    for op in ops:
        if isinstance(op, EditFile):
            out += [(op.path, op.source, op.ensure_final_newline, h) for h in op.hunks]
        else:
            out.append(op)
    return out


def test_the_sweep_covers_every_format():
    seen = set()
    for _, text, only in RESPONSES:
        try:
            seen.update(parse_response(text, only).formats)
        except ApplyError:
            pass
    assert {"file-changes", "hashline", "apply-patch", "codechange", "search-replace",
            "unified-diff", "whole"} <= seen


# --------------------------------------------------------------- property: opaque content

# Lines of every format's markup that a block's content may hold.
HOSTILE = [
    "<FILE_CHANGES>", "</FILE_CHANGES>", '<FILE_DELETE file_path="evil"/>', '<FILE_NEW file_path="evil">',
    "*** Begin Patch", "*** End Patch", "*** Add File: evil", "*** Delete File: evil",
    '<CodeChange filePath="evil">', "--- a/evil", "+++ b/evil", "@@ -1 +1 @@", "@@",
    "diff --git a/evil b/evil", F, F + "diff", "~~~", "````", "apply_patch <<'EOF'", "EOF",
    "plain text", "", "    indented", "=====", "Title", "-----",
]
PROSE = ["Some explanation.", "", "- a bullet", "## Heading", F + "python", "print(1)", F]

content_lines = st.lists(st.sampled_from(HOSTILE), min_size=1, max_size=8)


def _file_new(path, lines):
    # an opening <FILE_NEW> inside FILE_NEW content nests (a file holding a FILE_CHANGES
    # example closes what it opens), so an unbalanced one is not content
    # (a first and last line framing it: a fence wrapping a whole body is dropped, §2)
    body = ["head"] + [x for x in lines if not x.startswith("<FILE_NEW")] + ["tail"]
    return (["<FILE_CHANGES>", f'<FILE_NEW file_path="{path}">', *body, "</FILE_NEW>",
             "</FILE_CHANGES>"], ("NewFile", path, new_file_text(body)))


def _add_file(path, lines):
    return (["*** Begin Patch", f"*** Add File: {path}", *("+" + x for x in lines), "*** End Patch"],
            ("NewFile", path, "".join(x + "\n" for x in lines)))


def _update_chunk(path, lines):
    ctx = [" " + x for x in lines]
    return (["*** Begin Patch", f"*** Update File: {path}", "@@", *ctx, "-old", "+new",
             "*** End Patch"], ("EditFile", path, [x for x in lines] + ["old"]))


def _replace(path, lines):
    body = [x for x in lines]
    return ([f'<CodeChange filePath="{path}">', "<<<<<<< SEARCH", "old", "=======", *body,
             ">>>>>>> REPLACE", "</CodeChange>"], ("EditFile", path, ["old"]))


def _fenced_diff(path, lines):
    n = len(lines) + 1
    return ([F + "diff", f"--- a/{path}", f"+++ b/{path}", f"@@ -1,{n} +1,{n} @@",
             *(" " + x for x in lines), "-old", "+new", F], ("EditFile", path, [*lines, "old"]))


def _aider_block(path, lines):
    body = [x for x in lines if not looks_like_marker(x)]  # a marker line is a marker here
    return ([path, F + "python", "<<<<<<< SEARCH", "old", "=======", *body, ">>>>>>> REPLACE",
             F], ("EditFile", path, ["old"]))


BUILDERS = [_file_new, _add_file, _update_chunk, _replace, _fenced_diff, _aider_block]


generated_blocks = st.lists(st.tuples(st.sampled_from(range(len(BUILDERS))), content_lines,
                                     st.lists(st.sampled_from(PROSE[:4]), max_size=2)),
                           min_size=1, max_size=5)


def _generated(blocks) -> tuple[str, list]:
    out: list[str] = []
    expected = []
    for n, (kind, lines, prose) in enumerate(blocks):
        block_lines, want = BUILDERS[kind](f"f{n}.txt", lines)
        out += prose + [""] + block_lines + [""]
        expected.append(want)
    return "\n".join(out) + "\n", expected


@settings(max_examples=int(__import__('os').environ.get('SCAN_EXAMPLES', '200')), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_blocks)
def test_a_blocks_content_never_changes_which_blocks_are_found(blocks):
    text, expected = _generated(blocks)
    r = parse_response(text)
    got = []
    for op in r.ops:
        if isinstance(op, NewFile):
            got.append(("NewFile", op.path, op.text))
        else:
            got.append(("EditFile", op.path, op.hunks[0].old))
    assert got == expected
    for line in r.explanation.split("\n"):
        assert line in PROSE, line  # no block content leaked into the message


# --------------------------------------------------------------- the sweep, end to end

E2E_SWEEP = ["mixed-three-formats", "sr-aider-answer-two-files"]
E2E_COMMAND_CUTS = 6  # cuts of each answer given to the real command; the rest go to the
# library, the same pipeline in this process (git_aiapply.apply, the command's semantics)


@pytest.mark.parametrize("name", E2E_SWEEP)
def test_cut_answers_never_commit_a_wrong_edit_end_to_end(name, repo, monkeypatch):
    """An answer cut at every line and at a few bytes, applied to a real repository: it
    is refused with nothing changed, or commits exactly what the answer up to the end of
    its last complete block commits (the cut-off tail adds nothing, half a block never
    lands).  Every result is checked with git; a spread of the cuts runs the command."""
    for k in list(os.environ):  # the library sees the environment the command gets
        if k.startswith("GIT_"):
            monkeypatch.delenv(k)
    for k, v in repo.env.items():
        monkeypatch.setenv(k, v)
    case = ROOT / "cases" / name
    for p in (case / "before").rglob("*"):
        if p.is_file():
            repo.write(str(p.relative_to(case / "before")), p.read_bytes())
    base = repo.commit_all()
    repo.settle()
    text = (case / "response.md").read_text()
    found = scan_blocks(text, selected_formats(None))
    spans = [(b.start, b.end) for b in found.blocks] + found.wrappers
    ends = sorted(b.end for b in found.blocks)
    rng = random.Random(7)
    cuts = sorted({i + 1 for i, c in enumerate(text) if c == "\n"} |
                  {rng.randrange(1, len(text)) for _ in range(8)})[:-1]
    by_command = {cuts[i * (len(cuts) - 1) // (E2E_COMMAND_CUTS - 1)]
                  for i in range(E2E_COMMAND_CUTS)}  # the first, the last, evenly between
    clean_trees: dict[int, dict] = {}

    def apply(prefix: str, command: bool) -> tuple[int, str]:
        if command:
            r = repo.run(response=prefix)
            return r.returncode, r.err
        result = git_aiapply.apply(prefix, repo=str(repo.root))
        return result.exit_code, result.error_text or ""

    def tree_of(prefix: str):
        code, err = apply(prefix, command=True)
        assert code == 0, err
        tree = repo.tree()
        repo.git("reset", "-q", "--hard", base)
        return tree

    applied = {True: 0, False: 0}  # by the command, by the library
    refused = {True: 0, False: 0}
    for cut in cuts:
        command = cut in by_command
        snapshot = repo.snapshot()
        code, err = apply(text[:cut], command)
        where = (f"cut at {cut} ({'command' if command else 'library'}): "
                 f"{text[max(0, cut - 40):cut]!r}")
        if code != 0:
            assert code == 1, where + err
            assert repo.snapshot() == snapshot, where
            refused[command] += 1
            continue
        applied[command] += 1
        assert not any(a < cut < b and text[cut:b].strip() for a, b in spans), where
        tree = repo.tree()
        repo.git("reset", "-q", "--hard", base)
        last_end = max(e for e in ends if e <= cut)
        if last_end not in clean_trees:
            clean_trees[last_end] = tree_of(text[:last_end])
        assert tree == clean_trees[last_end], where
    assert applied[True] and refused[True]  # the command met both outcomes
    assert applied[False]  # the sweep did reach cuts between complete blocks


@settings(max_examples=int(__import__('os').environ.get('SCAN_EXAMPLES', '200')), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(generated_blocks, st.floats(min_value=0, max_value=1, exclude_max=True))
def test_a_generated_answer_cut_anywhere_refuses_or_keeps_whole_blocks(blocks, where):
    text, _expected = _generated(blocks)
    full = parse_response(text).ops
    found = scan_blocks(text, selected_formats(None))
    spans = [(b.start, b.end) for b in found.blocks] + found.wrappers
    cut = max(1, int(len(text) * where))
    try:
        got = parse_response(text[:cut]).ops
    except ApplyError:
        return
    for m in re.finditer(r"^f\d+\.txt\n(?=" + F + ")", text, re.M):
        partial = text[m.start():cut]
        if m.start() < cut <= m.end() and partial.endswith("\n"):
            # cut right after an aider block's whole path line ('f1.txt\n') with no aider
            # block before: a whole line of prose, as far as anything can tell ('f1',
            # 'f1.', 'f1.t' are refused)
            return
    if any(a < cut < b and text[cut:b].strip() for a, b in spans):
        assert got == []
    units = _units(got)
    assert units == _units(full)[:len(units)]
