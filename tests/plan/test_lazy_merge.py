"""Lazy edits merged (plan/lazy_merge.py, BEHAVIOR.md §5): a snippet with placeholders for
the code it leaves out, merged into the file exactly by its anchors, or refused."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.plan.lazy_merge import LazyRefusal, merge

CLIENT = """import os


class Client:
    def __init__(self):
        self.a = 1
        self.b = 2

    def get(self, k):
        return self.data[k]

    def put(self, k, v):
        self.data[k] = v


def main():
    c = Client()
    c.put(1, 2)""".split("\n")


def lines(text: str) -> list[str]:
    return text.split("\n")


def placeholders_of(snippet: list[str]) -> set[int]:
    return {i for i, line in enumerate(snippet) if "..." in line}


def run(file_lines: list[str], snippet_text: str) -> list[str]:
    snippet = lines(snippet_text)
    return merge(file_lines, snippet, placeholders_of(snippet)).lines


def test_each_placeholder_keeps_the_lines_between_its_anchors():
    out = run(CLIENT, """class Client:
    # ... existing code ...

    def get(self, k):
        log(k)
        return self.data[k]

    # ... rest of the class unchanged ...""")
    want = CLIENT[:9] + ["        log(k)"] + CLIENT[9:]
    assert out == want
    merged = merge(CLIENT, lines("""class Client:
    # ... existing code ...
    def get(self, k):
        log(k)"""), {1})
    assert [(k.note_line, k.first, k.last) for k in merged.kept] == [(2, 5, 7)]


def test_a_method_written_at_column_0_takes_the_files_depth():
    out = run(CLIENT, "def get(self, k):\n    log(k)\n    return self.data[k]")
    assert out == CLIENT[:9] + ["        log(k)"] + CLIENT[9:]


def test_code_left_out_between_two_shown_neighbours_is_deleted():
    out = run(CLIENT, """    def __init__(self):
        self.a = 1

    def get(self, k):""")
    assert "        self.b = 2" not in out and len(out) == len(CLIENT) - 1


def test_a_note_inside_an_insertion_keeps_the_body_before_the_new_line():
    f = lines("def run():\n    setup()\n    work()\n    more()\n\n\ndef other():\n    pass")
    out = run(f, "def run():\n    setup()\n    # ... existing code ...\n    cleanup()")
    assert out == f[:4] + ["    cleanup()"] + f[4:]


def test_the_tail_of_a_shown_block_is_replaced_and_the_rest_of_the_file_kept():
    out = run(CLIENT, "def main():\n    c = Client()\n    c.put(3, 4)")
    assert out == CLIENT[:-1] + ["    c.put(3, 4)"]


def test_blank_lines_at_an_anchor_come_from_the_file():
    out = run(CLIENT, "import os\n# ... existing code ...\ndef main():\n    c = Client()\n    c.put(1, 2)\n    print(c)")
    assert out == CLIENT + ["    print(c)"]


@pytest.mark.parametrize("snippet, why", [
    ("x = 1\n# ... existing code ...", "no line of the snippet is found exactly once"),
    ("def get(self, k):\n    # ... existing code ...\n    return self.data[k]",
     "stands for no line"),
    ("def put(self, k, v):\n    self.data[k] = v\n\ndef get(self, k):\n    return self.data[k]",
     "would move|appear twice"),
])
def test_refusals_never_guesses(snippet, why):
    with pytest.raises(LazyRefusal) as e:
        run(CLIENT, snippet)
    assert any(w in e.value.reason for w in why.split("|"))


def test_repeated_lines_between_anchors_give_one_text_or_a_refusal():
    # x() y() twice: which copy is kept does not change the text: merged
    f = lines("def a():\n    x()\n    y()\n    x()\n    y()\n\n\ndef b():\n    pass")
    assert run(f, "def a():\n    x()\n    z()\n    y()\n\n\ndef b():") == \
        lines("def a():\n    x()\n    z()\n    y()\n\n\ndef b():\n    pass")
    # two placeholders around a new line, and nothing to tell what each keeps: refused
    with pytest.raises(LazyRefusal):
        run(f, "def a():\n    # ... existing code ...\n    z()\n    # ... existing code ...\n"
               "\n\ndef b():")


def test_a_line_would_appear_twice():
    f = lines("def a():\n    one()\n    two()\n    three()\n\n\ndef b():\n    pass")
    # the placeholder keeps one() and two(); the snippet writes two() again
    with pytest.raises(LazyRefusal) as e:
        run(f, "def a():\n    # ... existing code ...\n    three()\n    two()")
    assert any(w in e.value.reason for w in ("appear twice", "would move", "more than one way"))
    # a line the snippet itself shows twice is written twice: once the file's, once new
    assert run(f, "def a():\n    # ... existing code ...\n    two()\n    two()\n    three()") \
        == f[:3] + ["    two()"] + f[3:]


_BODY = st.lists(st.sampled_from(["a()", "b = 1", "c(2)", "return d", "e.f()"]), min_size=1,
                 max_size=4, unique=True)


@settings(max_examples=40, deadline=None)
@given(bodies=st.lists(_BODY, min_size=2, max_size=5), at=st.data())
def test_a_line_added_in_one_function_with_placeholders_around_is_exactly_that(bodies, at):
    # a file of functions; the snippet shows one function with a new first line, and
    # placeholders for everything before and after: the merge is exactly that insertion
    f = []
    for n, body in enumerate(bodies):
        f += [f"def f{n}():"] + [f"    {line}" for line in body] + ["", ""]
    k = at.draw(st.integers(0, len(bodies) - 1))
    snippet = (["# ... existing code ..."] if k else []) + [f"def f{k}():", "    log()"] + \
        [f"    {line}" for line in bodies[k]] + \
        (["", "", "# ... existing code ..."] if k < len(bodies) - 1 else [])
    out = merge(f, snippet, placeholders_of(snippet)).lines
    where = f.index(f"def f{k}():") + 1
    assert out == f[:where] + ["    log()"] + f[where:]


@settings(max_examples=25, deadline=None)
@given(bodies=st.lists(_BODY, min_size=2, max_size=5), at=st.data())
def test_a_changed_signature_among_placeholders_replaces_its_declaration(bodies, at):
    # the snippet shows one function with a new parameter and a new last line, with
    # placeholders around it: the file's declaration is replaced, nothing else changes
    from conftest import merge_snippet

    f = []
    for n, body in enumerate(bodies):
        f += [f"def f{n}(a):"] + [f"    {line}" for line in body] + ["", ""]
    f = f[:-2]
    k = at.draw(st.integers(0, len(bodies) - 1))
    snippet = (["# ... existing code ...", ""] if k else []) + [f"def f{k}(a, b=None):"] + \
        [f"    {line}" for line in bodies[k]] + ["    log(b)"] + \
        (["", "", "# ... existing code ..."] if k < len(bodies) - 1 else [])
    out = merge_snippet("m.py", f, snippet).lines
    where = f.index(f"def f{k}(a):")
    end = where + 1 + len(bodies[k])
    assert out == f[:where] + [f"def f{k}(a, b=None):"] + f[where + 1:end] + ["    log(b)"] + \
        f[end:]


@pytest.mark.parametrize("note", ["# 其余代码保持不变", "# resto del código sin cambios",
                                  "# ... rest of the file unchanged ...", "# остальной код"])
def test_a_note_after_a_shown_block_never_keeps_the_rest_of_that_block(note):
    # `return 1` belongs to the helper the snippet shows: replaced by `return 2`, not kept
    # under it (a wrong tree before: the top-level note's run began inside the block)
    f = lines("def helper():\n    return 1\n\n\ndef main():\n    args = load()\n    return run(args)")
    snippet = lines(f"def helper():\n    return 2\n\n\n{note}")
    out = merge(f, snippet, {4}).lines
    assert out == ["def helper():", "    return 2"] + f[2:]


def test_a_note_written_at_column_0_after_a_method_keeps_the_rest_of_the_class():
    out = run(CLIENT, """    def get(self, k):
        log(k)
        return self.data[k]
# ... existing code ...""")
    assert out == CLIENT[:9] + ["        log(k)"] + CLIENT[9:]
