"""An anchored apply-patch chunk (BEHAVIOR.md §3): its first changed line must lie inside
the anchored block, its context may run past the block's end (models quote the next
definition's first lines); a chunk whose changed lines fit only outside is refused,
naming the anchor.  A chunk with only added lines and no anchor goes at the end."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.add_only import add_only_place
from git_aiapply.locate.anchors import change_bound, first_change, insertion_after_anchor
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText


def H(spec: str, **kw) -> Hunk:
    """A chunk from diff-like text: each line starts with ' ', '-' or '+'."""
    return Hunk([(raw[0], raw[1:]) for raw in spec.split("\n") if raw], kind="chunk", **kw)


def run(before: str, *hunks: Hunk) -> str:
    new, _a, _r = apply_hunks(FileText.from_bytes(before.encode()), list(hunks), path="f.py")
    return new.to_bytes().decode()


def refusal(before: str, *hunks: Hunk) -> str:
    with pytest.raises(ApplyError) as e:
        run(before, *hunks)
    return str(e.value)


# ---- the pure rules --------------------------------------------------------------------

@pytest.mark.parametrize("spec,want", [
    (" a\n-b\n+B\n c", (1, True)),
    (" a\n b\n+c", (2, False)),
    ("+x\n a", (0, False)),
    ("-a", (0, True)),
    (" a\n b", (2, False)),  # changes nothing: its end
    (" a\n+x\n-b", (1, False)),  # the insertion comes first
])
def test_first_change_counts_on_the_old_side(spec, want):
    assert first_change(H(spec).lines) == want


def test_change_bound_lets_the_context_run_past_the_block():
    # block [.., 10): a removal at old index 1 may start at 8 at the latest (line 9)
    old_len = 5
    assert change_bound(old_len, (1, True), 10) == 8 + old_len
    # added lines may go right after the block's last line
    assert change_bound(old_len, (1, False), 10) == 9 + old_len
    # a chunk that changes nothing keeps the old rule: all of it inside
    assert change_bound(old_len, (old_len, False), 10) == 10
    assert change_bound(old_len, (0, True), None) is None


@given(st.integers(0, 20), st.integers(1, 8), st.integers(0, 8), st.booleans())
def test_change_bound_is_the_last_start_whose_change_is_inside(hi, n, k, removes):
    k = min(k, n - 1 if removes else n)
    bound = change_bound(n, (k, removes), hi)
    for s in range(0, hi + n + 2):
        fits = s + n <= bound
        first = s + k
        inside = first < hi if removes else first <= hi
        assert fits == inside


def test_add_only_places():
    lines = ["a", "b", "c"]
    assert add_only_place(H("+x"), lines, None) == 3  # no anchor: the end of the file
    assert add_only_place(H("+x", at_eof=True), lines, None) == 3
    assert add_only_place(H("+x", line_hint=1), lines, None) == 1
    assert add_only_place(H("+x"), lines, 0) == insertion_after_anchor(lines, 0) == 1


# ---- located ---------------------------------------------------------------------------

CLASS = ("class A:\n    def first(self):\n        a = 1\n        return a\n\n"
         "    def second(self):\n        b = 2\n        return b\n")


def test_context_one_line_past_the_block_applies():
    got = run(CLASS, H("         a = 1\n-        return a\n+        return a + 1\n \n"
                       "     def second(self):\n         b = 2", anchors=["def first(self):"]))
    assert got == CLASS.replace("return a\n", "return a + 1\n")


def test_added_lines_after_the_blocks_last_line_apply():
    got = run(CLASS, H("         return a\n+\n+    def middle(self):\n+        pass\n \n"
                       "     def second(self):", anchors=["def first(self):"]))
    assert "return a\n\n    def middle(self):\n        pass\n\n    def second" in got


def test_changed_lines_only_outside_the_block_are_refused_naming_the_anchor():
    text = refusal(CLASS, H("     def second(self):\n-        b = 2\n+        b = 3",
                            anchors=["def first(self):"]))
    assert "outside the block of the anchor 'def first(self):'" in text
    assert "first change is at line 7" in text


def test_the_first_fit_inside_wins_over_one_further_on():
    before = ("def f():\n    x = 1\n    return x\n\ndef g():\n    x = 1\n    return x\n")
    got = run(before, H("     x = 1\n-    return x\n+    return x + 1", anchors=["def g():"]))
    assert got == before[:before.index("def g")] + "def g():\n    x = 1\n    return x + 1\n"


def test_add_only_chunk_with_no_anchor_goes_at_the_end():
    assert run("a = 1\nb = 2\n", H("+c = 3")) == "a = 1\nb = 2\nc = 3\n"


# one changed line in method k of a class, its context running 0-3 lines into the next
@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5), st.data())
def test_context_into_the_next_definition_applies_at_the_anchored_one(n, data):
    k = data.draw(st.integers(0, n - 2))
    past = data.draw(st.integers(0, 3))
    methods = [[f"    def m{i}(self):", "        v = 1", "        return v", ""] for i in range(n)]
    lines = ["class C:"] + [l for m in methods for l in m]
    start = 1 + 4 * k  # the anchor line
    old = lines[start + 1:start + 4] + lines[start + 4:start + 4 + past]
    spec = "\n".join([" " + old[0], "-" + old[1], "+        return v + 1"]
                     + [" " + t for t in old[2:]])
    got = run("\n".join(lines) + "\n", H(spec, anchors=[f"def m{k}(self):"]))
    want = list(lines)
    want[start + 2] = "        return v + 1"
    assert got == "\n".join(want) + "\n"
