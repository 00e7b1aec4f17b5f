"""``text.fence_close_line`` reads an inner fence's opening line at any indentation it
reads a closing line at (up to three columns right of the outer opening line): before,
an inner ```` ```python ```` indented four spaces under a fence indented two did not
open, so its own closing line closed the outer fence."""
from __future__ import annotations

from git_aiapply.text import fence_close_line, strip_fence


def test_an_inner_fence_indented_like_its_close_nests():
    lines = ["  ```", "  text", "    ```python", "    x", "    ```", "  more", "  ```"]
    assert fence_close_line(lines, 0, ("`", 3)) == 6
    assert strip_fence(lines) == lines[1:-1]


def test_a_fence_line_indented_past_the_outer_reach_is_content():
    lines = ["```", "        ```python", "x", "```"]
    assert fence_close_line(lines, 0, ("`", 3)) == 3
