"""The search-replace format (aider's SEARCH/REPLACE blocks) and the whole format, as
plain functions: text in, operations out."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ParseError
from git_aiapply.formats import parse_response, search_replace, whole
from git_aiapply.formats.search_replace import find_path, path_in_info, strip_path
from git_aiapply.ops import EditFile, NewFile
from conftest import blocks_of

BLOCK = "<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE"
X_LINES = [("-", "x = 1"), ("+", "x = 2")]


def summary(text: str, only: str | None = None):
    out = []
    for op in parse_response(text, only=only).ops:
        if isinstance(op, NewFile):
            out.append(("new", op.path, op.text, op.replace))
        else:
            assert isinstance(op, EditFile)
            out.append(("edit", op.path, [h.lines for h in op.hunks]))
    return out


@pytest.mark.parametrize("line,path", [
    ("src/app.py", "src/app.py"),
    ("  src/app.py  ", "src/app.py"),
    ("`src/app.py`", "src/app.py"),
    ("**src/app.py**", "src/app.py"),
    ("**`src/app.py`**", "src/app.py"),
    ("`src/app.py`:", "src/app.py"),
    ("### src/app.py", "src/app.py"),
    ("#src/app.py", "src/app.py"),
    ("src/app.py:", "src/app.py"),
    ("*src/app.py*:", "src/app.py"),
    ("Makefile", "Makefile"),
    ("1. `src/app.py`", "src/app.py"),
    ("- **src/app.py**:", "src/app.py"),
    ("* src/app.py", "src/app.py"),
    ("Changes:", None),  # a bare word with a colon is prose
    ("Here is the change:", None),
    ("...", None),
    ("", None),
    ("```python", None),
    (">>>>>>> REPLACE", None),
    ("---", None),
])
def test_strip_path(line, path):
    assert strip_path(line) == path


@pytest.mark.parametrize("info,path", [
    ("python", None), ("", None), ("c++", None),
    ("python src/app.py", "src/app.py"), ("python:src/app.py", "src/app.py"),
    ("src/app.py", "src/app.py"), ('python title="src/app.py"', "src/app.py"),
    ("Makefile", None),
])
def test_path_in_info(info, path):
    assert path_in_info(info) == path


LENIENCIES = {
    "path line before the fence": (f"src/a.py\n```python\n{BLOCK}\n```", "src/a.py"),
    "diff-fenced: path inside the fence": (f"```python\nsrc/a.py\n{BLOCK}\n```", "src/a.py"),
    "path in bold and backticks": (f"**`src/a.py`**\n```python\n{BLOCK}\n```", "src/a.py"),
    "path as a heading with a colon": (f"### src/a.py:\n```\n{BLOCK}\n```", "src/a.py"),
    "blank line between path and fence": (f"src/a.py\n\n```python\n{BLOCK}\n```", "src/a.py"),
    "path on the fence line": (f"```python src/a.py\n{BLOCK}\n```", "src/a.py"),
    "path after a colon on the fence line": (f"```python:src/a.py\n{BLOCK}\n```", "src/a.py"),
    "path in a fence of its own (Deepseek)": (
        f"```python\nsrc/a.py\n```\n```python\n{BLOCK}\n```", "src/a.py"),
    "no fence at all": (f"src/a.py\n{BLOCK}\n", "src/a.py"),
    "tildes": (f"src/a.py\n~~~python\n{BLOCK}\n~~~", "src/a.py"),
    "four backticks": (f"src/a.py\n````python\n{BLOCK}\n````", "src/a.py"),
    "a shell fence holding the block": (f"src/a.py\n```bash\n{BLOCK}\n```", "src/a.py"),
}


@pytest.mark.parametrize("text,path", list(LENIENCIES.values()), ids=list(LENIENCIES))
def test_leniencies(text, path):
    assert summary(text) == [("edit", path, [X_LINES])]


def test_indented_blocks_in_a_list_item_are_dedented():
    text = ("1. Change x:\n\n    src/a.py\n    ```python\n    <<<<<<< SEARCH\n        x = 1\n"
            "    =======\n        x = 2\n    >>>>>>> REPLACE\n    ```\n")
    assert summary(text) == [("edit", "src/a.py", [[("-", "    x = 1"), ("+", "    x = 2")]])]


def test_markdown_fences_inside_a_four_backtick_block_are_content():
    text = ("README.md\n````markdown\n<<<<<<< SEARCH\n```sh\nmake\n```\n=======\n```sh\nmake all\n"
            "```\n>>>>>>> REPLACE\n````\n")
    ((kind, path, (lines,)),) = summary(text)
    assert (kind, path) == ("edit", "README.md")
    assert [t for tag, t in lines if tag != "+"] == ["```sh", "make", "```"]
    assert [t for tag, t in lines if tag != "-"] == ["```sh", "make all", "```"]


def test_blocks_without_a_path_take_the_previous_one_and_group_per_file():
    # only whitespace between the blocks (prose there refuses: tests/formats/test_search_replace_fences.py)
    text = (f"First.\n\nsrc/a.py\n```python\n{BLOCK}\n```\n\n```python\n"
            f"{BLOCK.replace('x', 'y')}\n```\n\nsrc/b.py\n```\n{BLOCK}\n```\n\n"
            f"src/a.py\n```\n{BLOCK.replace('x', 'z')}\n```\n")
    parsed = parse_response(text)
    assert [(type(op).__name__, op.path, [h.number for h in op.hunks]) for op in parsed.ops] == [
        ("EditFile", "src/a.py", [1, 2]), ("EditFile", "src/b.py", [1]),
        ("EditFile", "src/a.py", [1])]
    assert parsed.explanation == "First."
    assert parsed.formats == ["search-replace"]
    assert [op.source.line for op in parsed.ops] == [5, 22, 31]


def test_several_blocks_in_one_fence_and_a_path_between_them():
    text = (f"```python\nsrc/a.py\n{BLOCK}\n{BLOCK.replace('x', 'y')}\nsrc/b.py\n{BLOCK}\n```\n"
            "Done.")
    parsed = parse_response(text)
    assert [(op.path, len(op.hunks)) for op in parsed.ops] == [("src/a.py", 2), ("src/b.py", 1)]
    assert parsed.explanation == "Done."


def test_empty_search_creates_and_shell_fences_stay_prose():
    text = ("Add a module and run the tests.\n\nsrc/new.py\n```python\n<<<<<<< SEARCH\n=======\n"
            "def f():\n    return 1\n>>>>>>> REPLACE\n```\n\n```bash\npython -m pytest\n```\n")
    parsed = parse_response(text)
    assert summary(text) == [("new", "src/new.py", "def f():\n    return 1\n", False)]
    assert parsed.explanation == ("Add a module and run the tests.\n\n```bash\npython -m pytest\n"
                                  "```")


def test_a_command_in_a_shell_fence_is_not_a_path():
    text = f"```bash\npytest\n```\n```python\n{BLOCK}\n```"
    with pytest.raises(ParseError) as e:
        parse_response(text)
    assert "no file path" in str(e.value)


def test_aider_divider_close():
    text = "src/a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n=======\n```\n"
    assert summary(text) == [("edit", "src/a.py", [X_LINES])]


def test_setext_in_search_keeps_every_reading():
    text = ("README.md\n```markdown\n<<<<<<< SEARCH\nTitle\n=======\nold\n=======\nTitle\n=======\n"
            "new\n>>>>>>> REPLACE\n```\n")
    (op,) = parse_response(text).ops
    (hunk,) = op.hunks
    assert [label for label, _ in hunk.readings] == [
        f"the ======= at response line {n} as the divider" for n in (5, 7, 9)]


def test_path_is_taken_as_written():
    text = f"App.PY\n```\n{BLOCK}\n```"
    assert summary(text)[0][1] == "App.PY"


REFUSALS = {
    "markers without any path": (f"Change this:\n```python\n{BLOCK}\n```", "no file path", 3),
    "markers with prose before the fence": (
        f"Update the function in src/a.py:\n```python\n{BLOCK}\n```", "no file path", 3),
    "cut off inside REPLACE": ("src/a.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n",
                               "never closed", 3),
    "cut off inside SEARCH": ("src/a.py\n```\n<<<<<<< SEARCH\nx = 1\n", "never closed", 3),
    "no divider": ("src/a.py\n<<<<<<< SEARCH\nx = 1\n>>>>>>> REPLACE\n", "no '======='", 2),
    "no REPLACE marker before the next block": (
        f"src/a.py\n<<<<<<< SEARCH\nx\n=======\ny\n{BLOCK}\n", "before the next", 2),
    "a stray REPLACE marker after a block": (
        f"src/a.py\n{BLOCK}\nmore\n>>>>>>> REPLACE\n", "after the SEARCH/REPLACE block", 8),
    "a stray REPLACE marker before the block's fence closes": (
        f"src/a.py\n```\n{BLOCK}\nmore\n\n>>>>>>> REPLACE\n```\n", "after the SEARCH/REPLACE block",
        10),
    "two empty SEARCH blocks for one file": (
        "n.py\n<<<<<<< SEARCH\n=======\na\n>>>>>>> REPLACE\n<<<<<<< SEARCH\n=======\nb\n"
        ">>>>>>> REPLACE\n", "empty SEARCH too", 6),
}


@pytest.mark.parametrize("text,message,line", list(REFUSALS.values()), ids=list(REFUSALS))
def test_refusals(text, message, line):
    with pytest.raises(ParseError) as e:
        blocks_of(search_replace, text)
    (problem,) = e.value.problems
    assert message in problem.reason
    assert problem.response_line == line


def test_refusal_names_the_markers_not_no_changes():
    with pytest.raises(ParseError) as e:
        parse_response(f"```python\n{BLOCK}\n```")
    assert "SEARCH/REPLACE block" in str(e.value) and "no file changes" not in str(e.value)
    assert "path alone on the line before the opening fence" in str(e.value)


def test_a_replace_marker_elsewhere_is_prose():
    text = (f"src/a.py\n```\n{BLOCK}\n```\n\nThe block ends with\n\n>>>>>>> REPLACE\n\n"
            "as usual.\n")
    assert summary(text) == [("edit", "src/a.py", [X_LINES])]
    assert blocks_of(search_replace, "Blocks end with\n>>>>>>> REPLACE\n") == []


def test_find_path_does_not_look_past_the_floor():
    lines = ["src/a.py", "```", "<<<<<<< SEARCH"]
    assert find_path(lines, 2, 0)[0] == "src/a.py"
    assert find_path(lines, 2, 1)[0] is None


def test_other_formats_claim_their_blocks_first():
    # a CodeChange's content is never read as an aider block
    text = ('<CodeChange filePath="a.py">\n' + BLOCK + "\n</CodeChange>\n")
    parsed = parse_response(text)
    assert parsed.formats == ["codechange"]


_SR_LINES = st.sampled_from([
    "src/a.py", "`b.py`", "**c.py**", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "x", "",
    "```", "```python", "````", "```bash", "Prose here.", "<<<<< SEARCH", "=====",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_SR_LINES, max_size=30))
def test_any_text_parses_or_is_refused(lines):
    text = "\n".join(lines)
    try:
        blocks = blocks_of(search_replace, text)
    except ParseError:
        return
    for b in blocks:
        assert 0 <= b.start < b.end <= len(text)
    assert any(b.ops for b in blocks) == bool(blocks)


# --- whole ------------------------------------------------------------------------------

def test_whole_only_when_asked():
    text = "Greet louder.\n\nsrc/a.py\n```python\nprint('HI')\n```\n"
    assert summary(text, only="whole") == [("new", "src/a.py", "print('HI')\n", True)]
    assert parse_response(text).ops == []  # never auto-detected
    assert parse_response(text, only="whole").explanation == "Greet louder."


def test_whole_nested_fences_of_a_markdown_file():
    text = "README.md\n```markdown\n# T\n\n```sh\nmake\n```\n\nEnd.\n```\n\nDone."
    (op,) = parse_response(text, only="whole").ops
    assert op.text == "# T\n\n```sh\nmake\n```\n\nEnd.\n"


def test_whole_fences_without_a_path_are_prose():
    text = "Run:\n```bash\nmake\n```\n\n`src/a.py`:\n```\nx = 1\n```\n"
    parsed = parse_response(text, only="whole")
    assert [(op.path, op.text) for op in parsed.ops] == [("src/a.py", "x = 1\n")]
    assert "make" in parsed.explanation


def test_whole_unclosed_fence_is_refused():
    with pytest.raises(ParseError) as e:
        blocks_of(whole, "src/a.py\n```python\nx = 1\n")
    assert "never closed" in str(e.value)


@pytest.mark.parametrize("fmt", ["search-replace", "whole"])
def test_the_prompt_example_is_an_answer_in_its_format(fmt):
    from git_aiapply.workflows.prompts import PROMPTS

    parsed = parse_response(PROMPTS[fmt], only=fmt)
    assert parsed.formats == [fmt]
    assert [op.path for op in parsed.ops] == [{"search-replace": "src/util.py",
                                               "whole": "src/config.py"}[fmt]]


ZED_TWICE = ("a.py\n```\n<<<<<<< SEARCH line={n}\n    return 1\n=======\n    return 2\n"
             ">>>>>>> REPLACE\n```\n")


@pytest.mark.parametrize("n", [2, 6])
def test_zed_search_line_hint_is_the_hunks(n):
    """Zed's '<<<<<<< SEARCH line=N': the line is the hunk's hint, which picks one of
    several places (locate); its refusal without one is the format's usual one."""
    (op,) = parse_response(ZED_TWICE.format(n=n)).ops
    assert isinstance(op, EditFile) and [h.line_hint for h in op.hunks] == [n]
