"""Property tests (hypothesis).

- every parser, on any text, either returns operations or raises the tool's own error
  (``ApplyError``), never anything else; the same for reading a response's bytes and
  normalising a path;
- the locator never changes a line outside an edit: applying an edit gives exactly the
  file with that region replaced, or a refusal (ambiguity), never another placement;
- applying an edit and then its reverse gives back the original bytes;
- a file's bytes survive the line model (FileText) unchanged.

tests/fuzz/run_fuzz.py runs the same generators much longer.
"""
from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.formats import FORMAT_NAMES, parse_response
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.paths import normalize_path
from git_aiapply.answer.response import normalize_newlines, read_response
from git_aiapply.text import FileText
from conftest import file_text, text_of

SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Pieces of every format, so that random text often opens, nests and truncates blocks.
FRAGMENTS = [
    "<FILE_CHANGES>", "</FILE_CHANGES>", '<FILE_NEW file_path="a.txt">', "</FILE_NEW>",
    '<FILE_PATCH file_path="a.txt">', "</FILE_PATCH>", '<FILE_DELETE file_path="a.txt" />',
    '<FILE_RENAME from_path="a.txt" to_path="b.txt" />', '<FILE_HASHLINE_PATCH file_path="a.txt">',
    "</FILE_HASHLINE_PATCH>", "1#00:x", "2#ZP-3#ab:y", ">+1#00 z", "<+2#QQ:w", "<!--", "-->",
    "*** Begin Patch", "*** End Patch", "*** Add File: a.txt", "*** Update File: a.txt",
    "*** Delete File: a.txt", "*** Move to: b.txt", "*** End of File", "apply_patch <<'EOF'",
    "EOF", '<CodeChange filePath="a.txt">', "<CodeChange file='a.txt'>", "</CodeChange>",
    "<Description>", "</Description>", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE",
    "--- a/a.txt", "+++ b/a.txt", "--- /dev/null", "+++ /dev/null", "diff --git a/a.txt b/a.txt",
    "rename from a.txt", "rename to b.txt", "new file mode 100644", "new mode 100755",
    "deleted file mode 100644", "similarity index 90%", "@@ -1,2 +1,2 @@", "@@", "@@ def f():",
    "\\ No newline at end of file", "```", "```diff", "~~~", "````python", "+x", "-x", " x", "",
    " ", "\t", "\r", "\ufeff", "\x00", "\udcff", "../x", ".git/config", "a\\b", "é", "“q”",
]

line = st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12))
response_text = st.lists(line, max_size=40).map("\n".join)


def _only_our_errors(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except ApplyError:
        return None


@SETTINGS
@given(response_text)
def test_parse_response_raises_only_apply_error(text):
    _only_our_errors(parse_response, normalize_newlines(text))


@SETTINGS
@given(response_text, st.sampled_from(FORMAT_NAMES))
def test_each_format_parser_raises_only_apply_error(text, fmt):
    _only_our_errors(parse_response, normalize_newlines(text), only=fmt)


@SETTINGS
@given(st.text(max_size=200))
def test_parse_response_on_arbitrary_text(text):
    _only_our_errors(parse_response, normalize_newlines(text))


@SETTINGS
@given(st.binary(max_size=300))
def test_read_response_on_arbitrary_bytes(raw):
    r = _only_our_errors(read_response, raw, max_bytes=10_000)
    if r is not None:
        _only_our_errors(parse_response, r.text)


json_ish = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.sampled_from(
                                   ["choices", "message", "content", "output", "type", "text",
                                    "role", "model", "error", "refusal", "output_text"]),
                                   children, max_size=4)),
    max_leaves=20)


@SETTINGS
@given(json_ish)
def test_read_response_on_arbitrary_json(value):
    import json

    raw = json.dumps(value).encode()
    _only_our_errors(read_response, raw)


@SETTINGS
@given(st.one_of(st.text(max_size=60), st.lists(st.sampled_from(
    ["a", ".", "..", "/", ".git", "GIT~1", " ", "\u200c", "\\", "~", "\x00", ":", "é", '"', "`"]),
    max_size=12).map("".join)))
def test_normalize_path_raises_only_apply_error(raw):
    out = _only_our_errors(normalize_path, raw, worktree="/repo")
    if out is not None:
        # an accepted path is plain: relative, no empty/dot/dotdot/.git component
        parts = out.split("/")
        assert not out.startswith("/")
        assert all(p not in ("", ".", "..") for p in parts)
        assert all(p.lower() != ".git" for p in parts)
        assert normalize_path(out, worktree="/repo") == out  # a fixed point


# --------------------------------------------------------------------------- the locator

# a small alphabet makes repeated lines (and so ambiguity) common
file_line = st.sampled_from(["a", "b", "c", "  a", "a ", "", "x = 1", "}", "“q”"])


@st.composite
def file_and_edit(draw):
    lines = draw(st.lists(file_line, min_size=1, max_size=30))
    start = draw(st.integers(0, len(lines) - 1))
    end = draw(st.integers(start, min(len(lines), start + 6)))  # removed: lines[start:end]
    ctx_before = draw(st.integers(0, min(3, start)))
    ctx_after = draw(st.integers(0, min(3, len(lines) - end)))
    new = draw(st.lists(file_line, max_size=5))
    return lines, start, end, ctx_before, ctx_after, new


def _hunk(lines, start, end, cb, ca, new) -> Hunk:
    body = [(" ", t) for t in lines[start - cb:start]]
    body += [("-", t) for t in lines[start:end]]
    body += [("+", t) for t in new]
    body += [(" ", t) for t in lines[end:end + ca]]
    return Hunk(body)


@SETTINGS
@given(file_and_edit())
def test_lines_outside_an_edit_never_change(case):
    lines, start, end, cb, ca, new = case
    hunk = _hunk(lines, start, end, cb, ca, new)
    assume(hunk.old)  # a pure insertion without context has no place of its own
    ft = file_text("".join(l + "\n" for l in lines))
    try:
        result, _added, _removed = apply_hunks(ft, [hunk], path="f")
    except ApplyError:
        return  # ambiguous (the old side fits several places): refused, never guessed
    expected = lines[:start] + new + lines[end:]
    assert result.lines == expected


@SETTINGS
@given(file_and_edit())
def test_apply_then_reverse_gives_the_original(case):
    lines, start, end, cb, ca, new = case
    hunk = _hunk(lines, start, end, cb, ca, new)
    assume(hunk.old and hunk.new)
    data = "".join(l + "\n" for l in lines)
    ft = file_text(data)
    try:
        once, _a, _r = apply_hunks(ft, [hunk], path="f")
    except ApplyError:
        return
    reverse = Hunk([({"+": "-", "-": "+"}.get(tag, tag), text) for tag, text in hunk.lines])
    try:
        back, _a, _r = apply_hunks(once, [reverse], path="f")
    except ApplyError:
        return  # the reverse may be ambiguous in the new file
    assert text_of(back) == data


@SETTINGS
@given(st.binary(max_size=200))
def test_file_bytes_survive_the_line_model(data):
    assert FileText.from_bytes(data).to_bytes() == data


@SETTINGS
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "é", "\udcff", ""]),
                          st.sampled_from(["\n", "\r\n", "\r"])), min_size=2, max_size=20),
       st.data())
def test_an_edit_keeps_other_lines_endings(rows, data):
    """Lines keep their own endings (CRLF, lone CR) when a neighbour is edited."""
    text = "".join(l + e for l, e in rows)
    ft = file_text(text)
    assume(len(ft) == len(rows))  # '\r' + '\n' of two rows would merge into one CRLF
    i = data.draw(st.integers(0, len(rows) - 1))
    unique = "UNIQUE-LINE"
    rows2 = list(rows)
    rows2[i] = (unique, rows[i][1])
    ft2 = file_text("".join(l + e for l, e in rows2))
    assume(len(ft2) == len(rows2))
    result, _a, _r = apply_hunks(ft2, [Hunk([("-", unique), ("+", "NEW")])], path="f")
    # Checked on the bytes written: the new line's ending (the file's dominant one) may
    # join a following LF into a CRLF when the file is read again, as git would read it.
    rows2[i] = ("NEW", ft2.dominant_ending())
    assert text_of(result) == "".join(l + e for l, e in rows2)
