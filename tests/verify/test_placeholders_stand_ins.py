"""What a placeholder note does: it STANDS FOR lines the answer left out. These tests
pin the structural rule of git_aiapply/verify/placeholders.py (docs/DECISIONS.md, Placeholders):

- a note that refers to code elsewhere ("as before", "the previous version", "existing
  ...", "here", "unchanged", "as is", a bracketed note) counts when it sits where the edit
  dropped more lines of code than it wrote (it replaced them at its place);
- the same words in a comment written beside kept code (an insertion) are a real comment;
- an edit that drops nothing but ends with a placeholder after a line that opens a block
  (a SEARCH of `def main():` only) leaves a note standing for the block's body: refused
  (``trailing_placeholder_lines``).
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.verify.placeholders import (is_placeholder, placeholder_lines,
    trailing_placeholder_lines)

MAIN = ["def main():", '    w = Warehouse("main")', "    w.load()", "    print(w.value())"]


def _numbers(found):
    return [n for n, _line in found]


# -- the findings, as plain functions ---------------------------------------------------
def test_a_note_standing_for_a_python_body_is_found():
    # F13: the body of main() replaced by a note that refers to the old version
    for note in ("    # (body identical to the previous version)",
                 "    # same logic as the original",
                 "    # print the value like before",
                 "    # load + print (as before)"):
        new = ["def main():", "    logging.basicConfig(level=logging.INFO)", note]
        assert _numbers(placeholder_lines(MAIN, new)) == [3], note


def test_a_note_standing_for_a_js_body_is_found():
    # F14: getItem's body replaced by a note
    old = ["function getItem(req, res) {", "  const item = req.store.get(req.params.id);",
           "  if (!item) {", "    res.status(404).json({ error: 'not found' });",
           "    return;", "  }", "  res.json(item);", "}"]
    new = ["function getItem(req, res) {", "  console.log('getItem', req.params.id);",
           "  // (lookup code here)", "}"]
    assert _numbers(placeholder_lines(old, new)) == [3]
    new = ["function getItem(req, res) {", "  const item = req.store.get(req.params.id);",
           "  // existing 404 handling", "  res.json(item);", "}"]
    assert _numbers(placeholder_lines(old, new)) == [3]


def test_a_go_note_standing_for_argument_handling_is_found():
    old = ["func main() {", "\tif len(os.Args) < 2 {", '\t\tfmt.Println("usage: greet NAME")',
           "\t\tos.Exit(1)", "\t}", "\tfmt.Println(greet(os.Args[1]))", "}"]
    new = ["func main() {", "\t// existing argument handling",
           '\tfmt.Println(greet(os.Args[1]) + "!")', "}"]
    assert _numbers(placeholder_lines(old, new)) == [2]


def test_a_yaml_note_standing_for_a_key_is_found():
    old = ["server:", "  host: 0.0.0.0", "  port: 8080", "database:"]
    new = ["server:", "  # keep host as is", "  port: 9090", "database:"]
    assert _numbers(placeholder_lines(old, new)) == [2]


def test_a_markdown_note_standing_for_a_section_is_found():
    # F15: a parenthesised line in place of a section
    old = ["# Inventory", "", "A small inventory service.", "", "## Usage", "",
           "Run `make run`."]
    new = ["# Inventory", "", "A small inventory service with a REST API.", "",
           "(usage section unchanged)"]
    assert _numbers(placeholder_lines(old, new)) == [5]


def test_a_real_comment_beside_kept_code_is_not_a_placeholder():
    # F25: every line but one is written out; the comment explains the new `return`
    old = ["    def remove(self, name, qty=1):", "        item = self.items.get(name)",
           "        if item is None:", "            raise KeyError(name)"]
    new = ["    def remove(self, name, qty=1):",
           "        # Keep the existing stock untouched for unknown names.",
           "        item = self.items.get(name)", "        if item is None:",
           "            return"]
    assert placeholder_lines(old, new) == []


def test_a_comment_rewritten_with_the_same_words_is_not_a_placeholder():
    old = ["# TODO: keep the order", "x = sorted(items)"]
    new = ["# Keep the same order as before (sorted by name).", "x = sorted(items, key=name)"]
    assert placeholder_lines(old, new) == []


def test_a_note_over_a_one_for_one_rewrite_is_a_comment():
    # as many lines of code written as dropped: the note sits beside real code
    old = ["    conn = connect()", "    conn.open()"]
    new = ["    # reuse the existing connection", "    conn = self.conn", "    conn.ping()"]
    assert placeholder_lines(old, new) == []


def test_a_note_after_code_standing_for_dropped_lines_is_found():
    new = ["def main():", "    logging.basicConfig()  # the rest as before"]
    assert _numbers(placeholder_lines(MAIN, new)) == [2]
    # the same note on a line rewritten one for one is a comment on that line
    old = ["timeout = 10", "retries = 3"]
    assert placeholder_lines(old, ["timeout = 30  # as before", "retries = 5"]) == []


def test_notes_of_several_lines_are_found():
    new = ["def main():", "    # set up as before", "    # then print the value like before"]
    assert _numbers(placeholder_lines(MAIN, new)) == [2, 3]


def test_more_wordings_standing_for_dropped_lines_are_found():
    for note in ("# load, then print (no change)", "# ditto", "# as in the current version",
                 "# remains as it is", "// existing validation logic", "/* previous code */",
                 "<!-- usage section as before -->", "# implementation goes here"):
        assert _numbers(placeholder_lines(MAIN, ["def main():", "    " + note])) == [2], note


def test_a_comment_that_is_a_whole_body_over_dropped_code_is_found():
    # no referring word: the comment alone in main's body says what the body was
    old = MAIN + ["", "", 'if __name__ == "__main__":', "    main()"]
    new = ["def main():", "    # load the warehouse and print its value", "", "",
           'if __name__ == "__main__":', "    main()"]
    assert _numbers(placeholder_lines(old, new)) == [2]
    js_old = ["function getItem(req, res) {", "  const item = req.store.get(req.params.id);",
              "  res.json(item);", "}"]
    js_new = ["function getItem(req, res) {", "  // lookup and 404 handling", "}"]
    assert _numbers(placeholder_lines(js_old, js_new)) == [2]
    # a body emptied on purpose says so
    assert placeholder_lines(js_old, [js_new[0], "  // intentionally empty", "}"]) == []


def test_a_comment_opening_a_longer_body_is_a_comment():
    old = MAIN + ["", "main()"]
    new = ["def main():", "    # load the warehouse and print its value", "    run()", "",
           "main()"]
    assert placeholder_lines(old, new) == []


def test_bracketed_prose_in_markdown_is_content():
    old = ["## Notes", "", "Long text.", "More text.", "", "## Next"]
    new = ["## Notes", "", "(See the changelog for details.)", "", "## Next"]
    assert placeholder_lines(old, new) == []


def test_a_header_only_search_with_a_trailing_placeholder_is_found():
    # F19: nothing dropped, but the note stands for main's body that follows
    old = ["def main():"]
    new = ["def main():", "    logging.basicConfig(level=logging.INFO)",
           "    # ... rest of main unchanged ..."]
    assert placeholder_lines(old, new) == []
    assert _numbers(trailing_placeholder_lines(old, new)) == [3]


def test_a_placeholder_opening_an_edit_before_a_closing_line_is_found():
    old = ["}"]
    new = ["  // ... existing code ...", "  cleanup();", "}"]
    assert _numbers(trailing_placeholder_lines(old, new)) == [1]


def test_an_added_stub_after_a_finished_block_is_content():
    # the note is in a new block the edit wrote itself, after a line that opens nothing
    old = ["def main():", '    print(load("x"))']
    new = old + ["", "", "def later():", "    ...  # TODO", "    # ... more to come ..."]
    assert trailing_placeholder_lines(old, new) == []


def test_a_stub_in_a_block_the_edit_opened_is_content():
    old = ["class P(Protocol):"]
    assert trailing_placeholder_lines(old, old + ["    def f(self) -> int:", "        ..."]) == []
    assert trailing_placeholder_lines(old, old + ["    def f(self) -> int: ..."]) == []


def test_a_real_comment_after_a_header_is_content():
    old = ["def main():"]
    new = ["def main():", "    # Configure logging before anything else."]
    assert trailing_placeholder_lines(old, new) == []


# -- the class, generated -----------------------------------------------------------------
_SUBJECT = st.sampled_from(["body", "lookup code", "the value", "argument handling",
                            "usage section", "load + print", "404 handling", "logic", "host",
                            "setup", "the loop"])
_REFERS = st.sampled_from(["identical to the previous version", "as before", "like before",
                           "same as the original", "unchanged", "as is", "goes here",
                           "kept as it was", "untouched", "(as before)", "intact"])
_SYNTAX = st.sampled_from(["# {}", "// {}", "-- {}", "<!-- {} -->", "/* {} */", "({})",
                           "# ({})", "// [{}]"])
_INDENT = st.sampled_from(["", "    ", "\t", "  "])
_CODE = st.lists(st.from_regex(r"[a-z]{1,6} = [a-z]{1,6}\([0-9]{0,2}\)", fullmatch=True),
                 min_size=2, max_size=8, unique=True)


def _note(syntax: str, subject: str, refers: str, indent: str) -> str:
    return indent + syntax.format(f"{subject} {refers}")


@settings(max_examples=150, deadline=None)
@given(_SYNTAX, _SUBJECT, _REFERS, _INDENT, _CODE, _CODE, st.data())
def test_a_referring_note_over_dropped_code_is_always_found(syntax, subject, refers, indent,
                                                            head, body, data):
    # head kept, the body replaced by fewer lines of code and the note (anywhere among them)
    body = [b for b in body if b not in head]
    if not body:
        return
    written = data.draw(st.integers(0, len(body) - 1))
    new_body = [f"{line}  # changed" for line in body[:written]]
    at = data.draw(st.integers(0, len(new_body)))
    note = _note(syntax, subject, refers, indent)
    new_body.insert(at, note)
    found = placeholder_lines(head + body, head + new_body)
    assert (len(head) + at + 1, note) in found


@settings(max_examples=150, deadline=None)
@given(_SYNTAX, _SUBJECT, _REFERS, _INDENT, _CODE, st.data())
def test_a_referring_comment_beside_kept_code_is_never_found(syntax, subject, refers, indent,
                                                             code, data):
    # the note inserted between kept lines; one other line rewritten one for one
    note = _note(syntax, subject, refers, indent)
    if is_placeholder(note):
        return  # a placeholder phrase as such (the line rule) counts anywhere
    at = data.draw(st.integers(0, len(code)))
    changed = data.draw(st.integers(0, len(code) - 1))
    new = [f"{line}  # changed" if i == changed else line for i, line in enumerate(code)]
    new.insert(at, note)
    assert placeholder_lines(code, new) == []


_OPENERS = st.sampled_from(["def main():", "class Store:", "function f(a, b) {",
                            "server:", "  if (ready) {", "for x in xs:", "items = ["])
_STRONG = st.sampled_from(["# ... rest of main unchanged ...", "// ... existing code ...",
                           "# rest of the function unchanged", "...", "# ...",
                           "// (rest unchanged)"])


@settings(max_examples=150, deadline=None)
@given(_CODE, _OPENERS, _CODE, _STRONG, _INDENT)
def test_a_placeholder_ending_an_edit_after_an_opener_is_always_found(before, opener, added,
                                                                      note, indent):
    old = before + [opener]
    new = old + [f"    {a}" for a in added] + [indent + note]
    assert _numbers(trailing_placeholder_lines(old, new)) == [len(new)]
    # the same lines after a line that opens nothing are content
    assert trailing_placeholder_lines(before, before + [indent + note]) == []


# -- every kind of operation goes through the same detector -------------------------------
def _ops_writing(old: list[str], new: list[str], file_lines: list[str]):
    """The same edit (``old`` → ``new``, ``old`` at the top of the file) as each kind of
    operation that replaces lines."""
    from git_aiapply.ops import (EditFile, HashlineEdit, HashlineOp, Hunk, NewFile,
                                 ReplaceText, Source)

    src = Source("test", "the directive")
    yield NewFile("f", "\n".join(new + file_lines[len(old):]), src)
    yield EditFile("f", [Hunk([("-", t) for t in old] + [("+", t) for t in new])], src)
    yield HashlineEdit("f", [HashlineOp("set", 1, "aa", len(old), "bb", new, 1, "1#aa")], src)
    yield ReplaceText("f", "\n".join(old), "\n".join(new), src)


def test_every_operation_refuses_a_note_standing_for_dropped_lines():
    from git_aiapply.verify.placeholder_edits import op_placeholder_problems

    new = ["def main():", "    logging.basicConfig()", "    # (body as before)"]
    file_lines = MAIN + ["", "main()"]
    for op in _ops_writing(MAIN, new, file_lines):
        problems = op_placeholder_problems(op, "f", file_lines)
        assert len(problems) == 1 and "(body as before)" in problems[0].reason, op


def test_every_operation_refuses_a_trailing_note_after_a_header():
    from git_aiapply.ops import HashlineEdit, HashlineOp, InsertText, Source
    from git_aiapply.verify.placeholder_edits import op_placeholder_problems

    note = "    # ... rest of main unchanged ..."
    file_lines = MAIN + ["", "main()"]
    # (a whole-file write holds main's body after the note: not at its edge)
    ops = list(_ops_writing(MAIN[:1], MAIN[:1] + ["    setup()", note], file_lines))[1:]
    src = Source("test", "the directive")
    ops += [InsertText("f", 1, "    setup()\n" + note + "\n", src),
            HashlineEdit("f", [HashlineOp("insert_after", 1, "aa", 1, "aa",
                                          ["    setup()", note], 1, "1#aa")], src)]
    for op in ops:
        problems = op_placeholder_problems(op, "f", file_lines)
        assert len(problems) == 1, op
        assert "removes nothing" in problems[0].reason and "leave the note out" in problems[0].hint
    # an insertion's lines are numbered in its own text (the note is its second line)
    assert "line 2 of" in op_placeholder_problems(ops[-2], "f", file_lines)[0].reason
    # the same insertion after a line that opens nothing is content
    assert op_placeholder_problems(InsertText("f", 2, note + "\n", src), "f", file_lines) == []


_PROSE = st.lists(st.sampled_from(["load", "the", "warehouse", "print", "its", "value", "and",
                                   "validate", "input", "then", "save"]),
                  min_size=1, max_size=8).map(" ".join)


@settings(max_examples=150, deadline=None)
@given(_PROSE, st.sampled_from([("def f(x):", "    # {}", ""), ("function f(x) {", "  // {}", "}"),
                                ("if ready:", "    # {}", ""), ("server:", "  # {}", "")]),
       _CODE)
def test_a_comment_alone_in_a_block_whose_code_was_dropped_is_found(words, shape, body):
    opener, note, closer = shape
    indent = note[:len(note) - len(note.lstrip())]
    old = [opener] + [indent + line for line in body] + [closer, "done = 1"]
    new = [opener, note.format(words), closer, "done = 1"]
    assert _numbers(placeholder_lines(old, new)) == [2]
