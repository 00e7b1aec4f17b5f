"""A tracked file's lazy snippet after its path, without ``--format whole`` (formats/
lazy_snippet.py, BEHAVIOR.md §5 "Lazy edits", issue 31 item 3): every way models write the
path, read only when the path is tracked and the block holds a placeholder; never a
block of another format, never an example fence; and a ``<CodeChange>`` holding a snippet
and no SEARCH/REPLACE.  The parser's reading (pure), then a few runs of the real command."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from conftest import GitRepo
from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import parse_with_tools
from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.ops import EditFile, NewFile
from git_aiapply.paths import TrackedKinds, known_paths

TRACKED = ["src/app.py", "src/web/App.tsx", "README.md"]
SNIPPET = "class Client:\n    # ... existing code ...\n    def get(self, k):\n        log(k)\n"
FENCED = "```python\n" + SNIPPET + "```\n"


def parsed(text: str, tracked=TRACKED):
    with known_paths(TrackedKinds(lambda: tracked)):
        return parse_with_tools(read_response(text.encode(), "r.md"))


def lazy_ops(text: str, tracked=TRACKED) -> list[tuple[str, str]]:
    ops = parsed(text, tracked).ops
    assert all(isinstance(op, NewFile) and op.lazy for op in ops), ops
    return [(op.path, op.text) for op in ops]


@pytest.mark.parametrize("head", [
    "src/app.py\n", "`src/app.py`\n", "**src/app.py**\n", "### src/app.py\n",
    "#### File: `src/app.py`\n", "- `src/app.py`:\n", "src/app.py\n\n",
    "In `src/app.py`:\n", "Update src/app.py as follows:\n", "./src/app.py\n",
], ids=["bare", "backticks", "bold", "heading", "label", "list-item", "blank-between",
        "sentence", "sentence-bare", "dot-slash"])
def test_every_path_line_before_the_fence_names_the_snippets_file(head):
    r = parsed("Log every read.\n\n" + head + FENCED + "\nThat is all.\n")
    assert [(op.path, op.text, op.lazy) for op in r.ops] == [("src/app.py", SNIPPET, True)]
    assert r.formats == ["whole"]
    assert "Log every read." in r.explanation and "existing code" not in r.explanation


@pytest.mark.parametrize("first", ["# src/app.py", "// src/app.py", "/* src/app.py */",
                                   "<!-- src/app.py -->", "# File: src/app.py"])
def test_a_path_comment_on_the_fences_first_line_names_it_and_is_dropped(first):
    assert lazy_ops(f"Log.\n\n```python\n{first}\n{SNIPPET}```\n") == [("src/app.py", SNIPPET)]
    # with the same path before the fence too
    assert lazy_ops(f"src/app.py\n```python\n{first}\n{SNIPPET}```\n") == [("src/app.py", SNIPPET)]


def test_a_path_in_the_info_string_names_it():
    assert lazy_ops("```python title=\"src/app.py\"\n" + SNIPPET + "```\n") == [
        ("src/app.py", SNIPPET)]


def test_jsx_placeholder_in_a_tsx_file():
    tsx = "export function App() {\n  return (\n    <div>\n      {/* ... existing code ... */}\n" \
          "      <Footer />\n    </div>\n  );\n}\n"
    assert lazy_ops("src/web/App.tsx\n```tsx\n" + tsx + "```\n") == [("src/web/App.tsx", tsx)]


@pytest.mark.parametrize("text", [
    "src/app.py\n```python\nclass Client:\n    def get(self, k):\n        log(k)\n```\n",
    "src/other.py\n" + FENCED,  # not tracked
    "Run this:\n" + FENCED,  # no path
    "src/app.py\n```diff\n class Client:\n+    # ... existing code ...\n```\n",
], ids=["no-placeholder", "untracked", "no-path", "diff-fence"])
def test_an_example_fence_stays_explanation(text):
    r = parsed("Here is how it looks.\n\n" + text)
    assert r.ops == [] and "```" in r.explanation


def test_without_a_repository_nothing_is_read_this_way():
    assert parse_response("src/app.py\n" + FENCED).ops == []
    r = read_response(("src/app.py\n" + FENCED).encode(), "r.md")
    assert parse_with_tools(r).ops == []


@pytest.mark.parametrize("body,kind", [
    ("<<<<<<< SEARCH\nclass Client:\n=======\nclass Client:\n    # ... existing code ...\n"
     "    x()\n>>>>>>> REPLACE\n", "search"),
    ("--- a/src/app.py\n+++ b/src/app.py\n@@ -1,2 +1,3 @@\n class Client:\n"
     "+    # ... existing code ...\n+    x()\n", "hunk"),
], ids=["search-replace", "unified-diff"])
def test_a_block_of_another_format_is_that_format_never_a_snippet(body, kind):
    ops = parsed("src/app.py\n```python\n" + body + "```\n").ops
    assert len(ops) == 1 and isinstance(ops[0], EditFile) and ops[0].hunks[0].kind == kind


def test_a_cut_off_snippet_is_refused():
    with pytest.raises(ApplyError, match="cut off"):
        parsed("src/app.py\n```python\n" + SNIPPET)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["src/app.py", "`src/app.py`", "**src/app.py**", "## src/app.py"]),
       st.sampled_from(["# ... existing code ...", "# ... rest of the class unchanged ...",
                        "# (other methods unchanged)", "..."]),
       st.booleans())
def test_tracked_and_a_placeholder_is_a_snippet_and_only_then(head, note, tracked):
    """The class: a path line of any markup, a placeholder of any wording, tracked or
    not: a lazy snippet exactly when tracked."""
    text = f"Change it.\n\n{head}\n```python\nclass Client:\n    {note}\n    def get(self):\n" \
           "        return 1\n```\n"
    ops = parsed(text, TRACKED if tracked else []).ops
    assert [op.path for op in ops] == (["src/app.py"] if tracked else [])


# ---------------------------------------------------------------- <CodeChange> snippets

CODECHANGE = ('<CodeChange filePath="src/app.py">\n<Description>Log reads</Description>\n'
              + FENCED + "</CodeChange>\n")


def test_a_codechange_holding_a_snippet_is_a_lazy_snippet_of_its_tracked_file():
    r = parsed(CODECHANGE)
    assert [(op.path, op.text, op.lazy) for op in r.ops] == [("src/app.py", SNIPPET, True)]
    assert r.descriptions == [("src/app.py", "Log reads")]
    unfenced = CODECHANGE.replace("```python\n", "").replace("```\n", "")
    assert lazy_ops(unfenced) == [("src/app.py", SNIPPET)]


def test_a_codechange_without_a_block_over_an_untracked_file_is_refused_as_before():
    with pytest.raises(ApplyError, match="no SEARCH/REPLACE"):
        parsed(CODECHANGE, tracked=["README.md"])


# ---------------------------------------------------------------- the real command

APP = ("import os\n\n\nclass Client:\n    def __init__(self):\n        self.data = {}\n\n"
       "    def get(self, k):\n        return self.data[k]\n\n    def put(self, k, v):\n"
       "        self.data[k] = v\n")
CHANGE = ("    def get(self, k):\n        log(k)\n        return self.data[k]\n\n"
          "    # ... rest of the class unchanged ...\n")
MERGED = APP.replace("    def get(self, k):\n", "    def get(self, k):\n        log(k)\n")


def setup(repo: GitRepo) -> None:
    repo.write("src/app.py", APP)
    repo.write("docs/guide.md", "# Guide\n")
    repo.commit_all("base")


def test_the_command_merges_a_path_line_and_a_fence(repo: GitRepo):
    setup(repo)
    r = repo.run(response="Log every read.\n\n**src/app.py**\n```python\nclass Client:\n"
                          "    # ... existing code ...\n\n" + CHANGE + "```\n")
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:src/app.py") == MERGED
    assert "AI-Format: whole" in repo.message()
    assert repo.git("status", "--porcelain") == ""


def test_the_command_merges_a_codechange_snippet(repo: GitRepo):
    setup(repo)
    r = repo.run(response='<CodeChange filePath="src/app.py">\n```python\n' + CHANGE
                          + "```\n</CodeChange>\n")
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:src/app.py") == MERGED


def test_the_command_refuses_a_snippet_it_cannot_place_and_commits_nothing(repo: GitRepo):
    setup(repo)
    head, before = repo.head(), repo.snapshot()
    r = repo.run(response="src/app.py\n```python\ndef elsewhere():\n    # ... existing code ...\n"
                          "    more()\n```\n")
    assert r.returncode == 1 and "existing code" in r.err and "src/app.py" in r.err
    assert repo.head() == head and repo.snapshot() == before


def test_the_command_leaves_an_untracked_paths_snippet_as_prose(repo: GitRepo):
    setup(repo)
    head = repo.head()
    r = repo.run(response="See src/new.py\n```python\n# ... existing code ...\nx = 1\n```\n")
    assert r.returncode == 1 and "no file changes found" in r.err
    assert repo.head() == head
