"""Fences as markdown writes them and aider's other fences (BEHAVIOR.md §2, §3, §5):
the fence reader as plain functions, SEARCH/REPLACE and whole answers in every fence
kind, prose path lines, the path a block inherits, wrapping fences around FILE_NEW
content, model end tokens, divider readings that nearly fit, and answers cut anywhere
in each fence kind."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from git_aiapply.locate.divider_readings import apply_edit
from git_aiapply.errors import ApplyError, ParseError
from git_aiapply.formats import parse_response
from git_aiapply.formats.search_replace import _word_path, closes, fence_of, strip_path
from git_aiapply.ops import EditFile, NewFile
from git_aiapply.answer.response import read_response, response_id, strip_end_tokens
from git_aiapply.text import strip_fence
from conftest import file_text, text_of

PROPS = settings(max_examples=150, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])

SR = "<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
X_LINES = [("-", "x = 1"), ("+", "x = 2")]
TAGS = ("source", "code", "pre", "codeblock", "sourcecode")
# (opening line, closing line) of every fence kind aider may choose, and markdown's tildes
FENCES = {"backticks": ("```python", "```"), "four backticks": ("````python", "````"),
          "tildes": ("~~~python", "~~~"),
          **{f"<{t}>": (f"<{t}>python", f"</{t}>") for t in TAGS},
          "<source> bare": ("<source>", "</source>")}


def edits(text: str, only: str | None = None):
    out = []
    for op in parse_response(text, only=only).ops:
        if isinstance(op, NewFile):
            out.append(("new", op.path, op.text))
        else:
            assert isinstance(op, EditFile)
            out.append(("edit", op.path, [h.lines for h in op.hunks]))
    return out


def refusal(text: str, only: str | None = None) -> str:
    with pytest.raises(ApplyError) as e:
        parse_response(text, only=only)
    return str(e.value)


# --------------------------------------------------------------- the fence reader

@pytest.mark.parametrize("line,fence", [
    ("```python", ("`", 3, "python")), ("   ~~~~", ("~", 4, "")),
    ("<source>python", ("<source>", 0, "python")), ("<SOURCE>", ("<source>", 0, "")),
    ("  <pre> python ", ("<pre>", 0, "python")), ("</codeblock>", ("</codeblock>", 0, "")),
    ("</sourcecode>  ", ("</sourcecode>", 0, "")),
    ("</source> trailing", None),  # a closing tag takes nothing after it
    ("<div>", None), ("<source", None), ("print('<code>')", None), ("x = 1", None),
])
def test_fence_of_reads_aiders_tag_fences(line, fence):
    assert fence_of(line) == fence


@pytest.mark.parametrize("line,opened,closed", [
    ("```", "```python", True), (" ```", "```python", True), ("   ```", "```", True),
    ("`````", "```", True), ("``", "```", False), ("```js", "```", False),
    ("~~~", "```", False), ("```", "````", False),
    ("</source>", "<source>python", True), ("</code>", "<source>", False),
    ("```", "<source>", False), ("</SOURCE>", "<source>", True),
])
def test_what_closes_a_fence(line, opened, closed):
    assert closes(line, fence_of(opened)) is closed


# --------------------------------------------------------------- SEARCH/REPLACE in every fence

@pytest.mark.parametrize("kind", FENCES)
def test_search_replace_in_every_fence_kind(kind):
    opening, closing = FENCES[kind]
    text = (f"Change x.\n\nsrc/a.py\n{opening}\n{SR}{closing}\n\nThen b.\n\n"
            f"src/b.py\n{opening}\n{SR}{closing}\n\nDone.")
    parsed = parse_response(text)
    assert [(op.path, [h.lines for h in op.hunks]) for op in parsed.ops] == [
        ("src/a.py", [X_LINES]), ("src/b.py", [X_LINES])]
    assert parsed.explanation == "Change x.\n\nThen b.\n\nDone."


@pytest.mark.parametrize("kind", FENCES)
def test_diff_fenced_path_inside_every_fence_kind(kind):
    opening, closing = FENCES[kind]
    assert edits(f"{opening}\nsrc/a.py\n{SR}{closing}\n") == [("edit", "src/a.py", [X_LINES])]


@given(kind=st.sampled_from(sorted(FENCES)), indent=st.integers(0, 3), longer=st.integers(0, 3),
       path=st.sampled_from(["a.py", "src/a.py", "**a.py**", "`a.py`", "File: a.py",
                             "#### File: `a.py`", "a.py (the module)", "Now in `a.py`:"]))
@PROPS
def test_closing_fences_as_markdown_writes_them(kind, indent, longer, path):
    opening, closing = FENCES[kind]
    if not closing.startswith("<"):
        closing = closing + closing[0] * longer
    text = f"Intro.\n\n{path}\n{opening}\n{SR}{' ' * indent}{closing}\n\nOutro.\n"
    parsed = parse_response(text)
    assert [(op.path.rsplit("/", 1)[-1], [h.lines for h in op.hunks]) for op in parsed.ops] == [
        ("a.py", [X_LINES])]
    assert parsed.explanation == "Intro.\n\nOutro."


def test_a_tag_fence_keeps_backtick_lines_as_content():
    text = ("README.md\n<source>markdown\n<<<<<<< SEARCH\n```\nold\n```\n=======\n```\nnew\n```\n"
            ">>>>>>> REPLACE\n</source>\n")
    assert edits(text) == [("edit", "README.md", [[(" ", "```"), ("-", "old"), ("+", "new"),
                                                   (" ", "```")]])]


# --------------------------------------------------------------- path lines in prose

@pytest.mark.parametrize("line,path", [
    ("File: utils.py", "utils.py"), ("#### File: `utils.py`", "utils.py"),
    ("**File:** `src/utils.py`", "src/utils.py"), ("Filename: utils.py", "utils.py"),
    ("Path: src/utils.py", "src/utils.py"), ("- File: utils.py", "utils.py"),
    ("utils.py (helper module)", "utils.py"), ("`utils.py` (new file):", "utils.py"),
    ("File: utils.py (helpers)", "utils.py"),
    ("Now the same in `utils.py`:", "utils.py"), ("Then in `src/app.js`:", "src/app.js"),
    # prose that names no file surely, or two of them, is no path
    ("File: the helpers", None), ("Now the same in `utils`:", None),
    ("Change `a.py` and `b.py`:", None), ("Now the same in `utils.py`", None),
    ("Run (this):", None), ("See https://example.com/a.py (docs):", None),
    ("Here is the change:", None),
])
def test_prose_path_lines(line, path):
    assert strip_path(line) == path


def test_a_block_without_a_path_inherits_only_across_whitespace():
    two = f"a.py\n```python\n{SR}```\n\n\n```python\n{SR.replace('x', 'y')}```\n"
    assert [p for _, p, _ in edits(two)] == ["a.py"]
    message = refusal(f"a.py\n```python\n{SR}```\n\nAnd in the helpers:\n\n```python\n{SR}```\n")
    assert "'And in the helpers:' (response line 10) stands between it" in message
    assert "a.py" in message


def test_a_block_after_another_formats_block_does_not_inherit():
    diff = "```diff\n--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-c\n+C\n```\n"
    message = refusal(f"a.py\n```python\n{SR}```\n\n{diff}\n```python\n{SR}```\n")
    assert "stands between it and the previous block" in message


# --------------------------------------------------------------- whole files in every fence

@pytest.mark.parametrize("kind", FENCES)
def test_whole_in_every_fence_kind(kind):
    opening, closing = FENCES[kind]
    text = f"Rewrote it.\n\nsrc/a.py\n{opening}\nx = 2\n {closing}\n\nDone.\n"
    parsed = parse_response(text, only="whole")
    assert [(op.path, op.text) for op in parsed.ops] == [("src/a.py", "x = 2\n")]
    assert parsed.explanation == "Rewrote it.\n\nDone."


INNER = "# Tool\n\n```\npip install tool\n```\n\nRun:\n\n```\ntool\n```\n"


@pytest.mark.parametrize("opening,closing", [("````markdown", "````"), ("<source>markdown", "</source>"),
                                             ("~~~", "~~~")])
def test_whole_keeps_a_files_bare_inner_fences(opening, closing):
    parsed = parse_response(f"README.md\n{opening}\n{INNER}{closing}\n\nDone.\n", only="whole")
    assert [(op.path, op.text) for op in parsed.ops] == [("README.md", INNER)]
    assert parsed.explanation == "Done."


def test_whole_refuses_a_document_its_own_bare_fence_may_close():
    message = refusal(f"README.md\n```markdown\n{INNER}```\n", only="whole")
    assert "README.md" in message and "ambiguous" in message and "````" in message


def test_whole_files_after_one_another_with_bare_fences_still_apply():
    text = "README.md\n```\n# Tool\n```\n\nsrc/a.py\n```\nx = 2\n```\n"
    assert edits(text, only="whole") == [("new", "README.md", "# Tool\n"),
                                         ("new", "src/a.py", "x = 2\n")]


# --------------------------------------------------------------- wrapping fences (FILE_NEW)

@pytest.mark.parametrize("lines,kept", [
    (["```python", "x", "```"], ["x"]),
    (["", "````markdown", "```py", "x", "```", "````", ""], ["```py", "x", "```"]),
    (["```markdown", "# T", "```python", "x", "```", "more", "```"],
     ["# T", "```python", "x", "```", "more"]),
    (["```python", "x", "```", "text", "```js", "y", "```"], None),  # two blocks: verbatim
    (["```", "x", "```", "```", "y", "```"], None),
    (["```python", "x", "````"], ["x"]),  # a longer closing fence pairs
    (["```python", "x", "  ```"], ["x"]),
    (["```python", "x"], None),
])
def test_strip_fence_drops_only_a_fence_that_pairs_around_the_whole_content(lines, kept):
    assert strip_fence(lines) == (lines if kept is None else kept)


_code_line = st.sampled_from(["x = 1", "", "```", "```python", "~~~", "# heading", "  ```js"])


@given(first=st.lists(_code_line, max_size=4), second=st.lists(_code_line, max_size=4),
       between=st.sampled_from(["text", "", "and then"]))
@PROPS
def test_content_of_two_fenced_blocks_is_never_unwrapped(first, second, between):
    content = ["```python", *[l for l in first if "`" not in l], "```", between,
               "```js", *[l for l in second if "`" not in l], "```"]
    assert strip_fence(content) == content


@given(body=st.lists(_code_line, max_size=8))
@PROPS
def test_a_fence_longer_than_any_inside_is_always_unwrapped(body):
    assert strip_fence(["`````text", *body, "`````"]) == body


def test_file_new_keeps_two_fenced_blocks_verbatim():
    content = "```python\nimport app\n```\n\nThen:\n\n```sh\npython -m app\n```\n"
    text = f'<FILE_CHANGES>\n<FILE_NEW file_path="u.md">\n{content}</FILE_NEW>\n</FILE_CHANGES>\n'
    assert edits(text) == [("new", "u.md", content)]


# --------------------------------------------------------------- model end tokens

TOKENS = ["<|endoftext|>", "<|im_end|>", "<|eot_id|>", "<|end|>"]


@pytest.mark.parametrize("text,expected", [
    ("done\n<|im_end|>", "done\n"), ("done<|eot_id|>", "done\n"),
    ("done\n<|eot_id|><|endoftext|>\n\n", "done\n"), ("done\n</s>", "done\n"),
    ("a <s>struck</s>", "a <s>struck</s>"),  # HTML's end tag glued to text is text
    ("```</s>", "```\n"),  # glued to the last line, with no <s> opened there
    ("@@ -1,2 +1,2 @@\n-a\n+b\n \n<|im_end|>", "@@ -1,2 +1,2 @@\n-a\n+b\n \n"),  # blank context kept
    ("<|im_end|> in the middle\n", "<|im_end|> in the middle\n"), ("plain", "plain"),
    ("<|end|>", ""),
])
def test_strip_end_tokens(text, expected):
    assert strip_end_tokens(text) == expected


@given(body=st.text(st.characters(blacklist_characters="\r", blacklist_categories=("Cs",)),
                    max_size=40),
       tokens=st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3),
       glue=st.sampled_from(["", "\n", " \n\n"]))
@PROPS
def test_end_tokens_are_dropped_and_nothing_before_them(body, tokens, glue):
    body = body.rstrip()
    stripped = strip_end_tokens(body + glue + "".join(tokens))
    if body and strip_end_tokens(body) == body:
        # what stood before the tokens stays, blanks after it included (a diff's blank
        # context line is a single space), and the answer ends with a newline
        assert stripped.rstrip() == body and stripped.endswith("\n")
        assert stripped.startswith(body)


def test_end_token_reading_keeps_the_response_id():
    raw = f"a.py\n```python\n{SR}```<|im_end|>".encode()
    resp = read_response(raw)
    assert resp.response_id == response_id(raw)
    assert resp.text.endswith("```\n") and "<|im_end|>" not in resp.text
    assert [p for _, p, _ in edits(resp.text)] == ["a.py"]


# --------------------------------------------------------------- divider readings that nearly fit

def _apply(file: str, response: str) -> str:
    (op,) = parse_response(response).ops
    ft, _a, _r = apply_edit(file_text(file), op.hunks, path=op.path, in_turn=True)
    return text_of(ft)


SETEXT_BLOCK = ("README.md\n```markdown\n<<<<<<< SEARCH\nUsage\n=======\n\nRun it.\n=======\n"
                "Usage\n=======\n\nRun it with a NAME.\n>>>>>>> REPLACE\n```\n")


def test_a_heading_is_not_rewritten_when_the_literal_reading_nearly_fits():
    with pytest.raises(ApplyError) as e:
        _apply("Intro\n\nUsage\n=====\n\nRun it.\n", SETEXT_BLOCK)
    assert "but for one line" in str(e.value)


def test_the_literal_reading_that_fits_still_applies():
    assert (_apply("Intro\n\nUsage\n=======\n\nRun it.\n", SETEXT_BLOCK)
            == "Intro\n\nUsage\n=======\n\nRun it with a NAME.\n")


# --------------------------------------------------------------- answers cut in every fence kind

def _sweep(text: str, closing: str, only: str | None = None) -> None:
    """Cut ``text`` at every character: a cut answer is refused or yields exactly the
    complete blocks before the cut, never a partial or different edit; all of them only
    once the last block's closing line is there."""
    full = edits(text, only)
    assert len(full) == 2
    last_close = text.rfind("\n" + closing) + 1 + len(closing)
    for cut in range(1, len(text)):
        where = f"cut at {cut}: {text[max(0, cut - 40):cut]!r}"
        try:
            got = edits(text[:cut], only)
        except ApplyError:
            continue
        assert got == full[:len(got)], where
        assert len(got) < len(full) or cut >= last_close, where


@pytest.mark.parametrize("kind", FENCES)
def test_a_cut_search_replace_answer_is_refused_in_every_fence_kind(kind):
    opening, closing = FENCES[kind]
    _sweep(f"Fix.\n\nFile: src/a.py\n{opening}\n{SR}{closing}\n\n"
           f"src/b.py\n{opening}\n{SR.replace('x', 'y')}{closing}\nDone.", closing)


@pytest.mark.parametrize("kind", FENCES)
def test_a_cut_whole_answer_is_refused_in_every_fence_kind(kind):
    opening, closing = FENCES[kind]
    _sweep(f"Fix.\n\nsrc/a.py\n{opening}\nx = 2\ny = 3\n{closing}\n\n"
           f"src/b.py\n{opening}\nz = 4\n{closing}\nDone.", closing, only="whole")


def test_whole_takes_no_path_from_a_sentence():
    # any fence after a path line is a whole file here: a file named in a sentence may
    # introduce a command, never that file's new content
    text = "Run `main.py`:\n```bash\npython main.py\n```\n\nFile: src/a.py\n```python\nx = 2\n```\n"
    assert edits(text, only="whole") == [("new", "src/a.py", "x = 2\n")]


def test_a_reading_set_aside_for_a_later_one_is_no_near_fit():
    # the first reading ("## Intro", "Usage") fits exactly and, with one line different,
    # at "## Intro" / "Other" too; the literal reading fits: it is taken
    file = "## Intro\nOther\n\n## Intro\nUsage\n=======\n\nRun it.\n"
    block = ("README.md\n```markdown\n<<<<<<< SEARCH\n## Intro\nUsage\n=======\n\nRun it.\n=======\n"
             "## Intro\nUsage\n=======\n\nRun it with a NAME.\n>>>>>>> REPLACE\n```\n")
    assert _apply(file, block) == file.replace("Run it.", "Run it with a NAME.")


def test_end_tokens_leave_a_chat_answer_too():
    import json
    body = {"choices": [{"finish_reason": "stop", "message": {
        "role": "assistant", "content": f"a.py\n```python\n{SR}```\n<|eot_id|>"}}]}
    resp = read_response(json.dumps(body).encode())
    assert "<|eot_id|>" not in resp.text and resp.text.endswith("```\n")


_WORDS = ["Now", "the", "same", "in", "File:", "Path:", "####", "**", "utils.py", "`utils.py`",
          "src/app.js", "`src/app.js`", "(helper)", "(new", "file)", "and", "see", "Makefile",
          "`Makefile`", "run:", ":", "-", "1.", "https://x.org/a.py", "`a.py`:"]


@given(words=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=7))
@PROPS
def test_a_path_read_from_prose_is_written_there_and_surely_a_file(words):
    line = " ".join(words)
    path = strip_path(line)
    if path is None or _word_path(line) is not None:
        return  # a line of one word (markup aside) is aider's bare path line, not prose
    assert path in line
    assert "/" in path or "." in path.rsplit("/", 1)[-1]
    assert not path.startswith("http")


# --------------------------------------------------------------------------- indented fences inside a file


def test_a_fence_line_indented_past_the_opening_is_the_files_own():
    # CommonMark: a closing fence stands at most three columns right of the opening; a
    # docstring's own fence further in is content (it closed the file before)
    from git_aiapply.formats import parse_response
    from git_aiapply.text import fence_close_line, is_fence_close

    body = 'def f():\n    """Example:\n\n    ```\n    f()\n    ```\n    """\n    return 1\n'
    ops = parse_response("Here.\n\nc.py\n```python\n" + body + "```\n", only="whole").ops
    assert [op.text for op in ops] == [body]
    assert not is_fence_close("    ```", "`", 3, indent=0)
    assert is_fence_close("   ```", "`", 3, indent=0) and is_fence_close("      ```", "`", 3, indent=3)
    lines = ["```", "    ```", "x", "```"]
    assert fence_close_line(lines, 0, ("`", 3)) == 3
