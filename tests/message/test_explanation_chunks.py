"""The explanation read into chunks (explanation.parse_chunks): one case per construct
and per way one construct ends another, as a table of (explanation, chunks).  A chunk is
written (kind, its text for prose and headings, else its number of lines, blank line
before it); a list also gives its items' markers ('' for a paragraph of the item above)."""
from __future__ import annotations

import pytest

from git_aiapply.message.explanation import parse_chunks


def _summary(chunk):
    what = chunk.text if chunk.kind in ("prose", "heading") else len(chunk.lines)
    if chunk.kind == "list":
        return ("list", [(it.marker, it.verbatim) for it in chunk.items], chunk.blank_before)
    return (chunk.kind, what, chunk.blank_before)


CASES = [
    ("# Title\nSome prose.\nMore.",
     [("heading", "Title", False), ("prose", "Some prose.\nMore.", False)]),
    ("## Title ##\n\ntext", [("heading", "Title", False), ("prose", "text", True)]),
    # setext headings: the paragraph's last line is the heading
    ("Line one\nTitle\n---", [("prose", "Line one", False), ("heading", "Title", False)]),
    ("===", [("prose", "===", False)]),
    ("a\n\n---\n\nb", [("prose", "a", False), ("break", 1, True), ("prose", "b", True)]),
    ("a\n***\nb", [("prose", "a", False), ("break", 1, False), ("prose", "b", True)]),
    # a model's reasoning is dropped, an empty fence too
    ("<think>\nhidden\n</think>\nShown.", [("prose", "Shown.", False)]),
    ("<THINKING>\nhidden", []),
    ("```\n\n```\ntext", [("prose", "text", False)]),
    ("```py\nx = 1\n```\n", [("code", 3, False)]),
    ("~~~\nunclosed\nfence", [("code", 3, False)]),
    # tables and quotes
    ("| a | b |\n|---|---|\n| 1 | 2 |", [("table", 3, False)]),
    ("a | b\n---|---\nnext", [("table", 2, False), ("prose", "next", False)]),
    ("a | b\nnext", [("prose", "a | b\nnext", False)]),
    ("> q1\n> q2\nafter", [("quote", 2, False), ("prose", "after", False)]),
    # indented code: only where it cannot continue a paragraph or a list
    ("Intro.\n\n    code\n    more\n\nafter",
     [("prose", "Intro.", False), ("code", 2, True), ("prose", "after", True)]),
    ("Intro.\n    not code", [("prose", "Intro.\nnot code", False)]),
    ("    code first", [("code", 1, False)]),
    # lists
    ("- a\n- b\n# H", [("list", [("-", False), ("-", False)], False),
                       ("heading", "H", False)]),
    ("1. one\n2) two\nlazy", [("list", [("1.", False), ("2)", False)], False)]),
    ("- a\n\n    continued", [("list", [("-", False), ("", False)], False)]),
    ("- a\n\nafter", [("list", [("-", False)], False), ("prose", "after", True)]),
    ("- a\n\n    code?", [("list", [("-", False), ("", False)], False)]),
    ("- a\n---", [("list", [("-", False)], False), ("break", 1, False)]),
    ("- a\n> q", [("list", [("-", False)], False), ("quote", 1, False)]),
    ("- a\n  ===", [("list", [("-", False)], False), ("prose", "===", False)]),
    ("- ```\n  code\n\n  ```\n- b", [("list", [("-", True), ("-", False)], False)]),
    ("* **x**: y\n+ z", [("list", [("*", False), ("+", False)], False)]),
    # paragraphs
    ("**Bold line**\ntext", [("heading", "**Bold line**", False), ("prose", "text", False)]),
    ("text\n**Bold:**", [("prose", "text", False), ("heading", "**Bold:**", False)]),
    ("Here is the change to `foo`:\nThis makes it work.",
     [("prose", "Here is the change to `foo`:", False), ("prose", "This makes it work.", False)]),
    ("lead:\nlowercase continues", [("prose", "lead:\nlowercase continues", False)]),
    ("a\r\nb\r\n\r\n\r\nc", [("prose", "a\nb", False), ("prose", "c", True)]),
    ("", []),
]


@pytest.mark.parametrize("explanation, chunks", CASES, ids=[c[0][:30] for c in CASES])
def test_chunks(explanation, chunks):
    assert [_summary(c) for c in parse_chunks(explanation)] == chunks


@pytest.mark.parametrize("explanation, chunks", [
    ("Title\n===\nBody.", [("heading", "Title", False), ("prose", "Body.", True)]),
    ("Fix it.\n\nDetails\n=======\nThe locale was ignored.",
     [("prose", "Fix it.", False), ("heading", "Details", True),
      ("prose", "The locale was ignored.", True)]),
    ("Line one\nTitle\n==", [("prose", "Line one", False), ("heading", "Title", False)]),
])
def test_an_equals_underline_makes_the_line_above_a_heading(explanation, chunks):
    """As a dashed one does: the paragraph reader used to take the '===' line in as
    words ("Details ======= The locale was ignored." in the body)."""
    assert [_summary(c) for c in parse_chunks(explanation)] == chunks
