"""--format whole pairs the fences inside a file's block by the one rule every reader uses
(``text.fence_close_line``): fences nest as models nest them, at any depth, so a file
quoting a fenced example that itself holds a fenced block is read whole.  Before, whole
kept its own one-level pairing: such a file was refused as ambiguous or as cut off."""
from __future__ import annotations

from git_aiapply.formats import parse_response
from git_aiapply.ops import NewFile


def _files(text: str) -> dict[str, str]:
    parsed = parse_response(text, "whole")
    assert all(isinstance(op, NewFile) for op in parsed.ops)
    return {op.path: op.text for op in parsed.ops}


def test_a_document_nesting_two_fenced_examples_is_read_whole():
    text = ("docs/guide.md\n```markdown\nExample:\n```markdown\nUse:\n```python\nx = 1\n```\n"
            "```\nEnd.\n```\n")
    assert _files(text) == {
        "docs/guide.md": "Example:\n```markdown\nUse:\n```python\nx = 1\n```\n```\nEnd.\n"}


def test_a_source_file_quoting_nested_fences_is_one_file():
    text = "src/a.py\n```python\nDOC = '''\n```markdown\n```python\nx\n```\n```\n'''\n```\n"
    assert _files(text) == {"src/a.py": "DOC = '''\n```markdown\n```python\nx\n```\n```\n'''\n"}


def test_an_indented_block_nests_fences_at_its_own_indentation():
    # a list item's block: its inner fences stand where its own lines do (unchanged)
    text = "- src/doc.md\n\n  ```markdown\n  Intro\n    ```python\n    x\n    ```\n  More\n  ```\n"
    assert _files(text) == {"src/doc.md": "  Intro\n    ```python\n    x\n    ```\n  More\n"}


def test_tag_fences_still_take_everything_up_to_the_closing_tag():
    text = "src/a.md\n<source>markdown\n```python\nx\n</source>\n"
    assert _files(text) == {"src/a.md": "```python\nx\n"}
