"""Added lines are rewritten only where a tolerance was used (BEHAVIOR.md §3), and folding
goes both ways: an exact match leaves its added lines byte for byte; where a match needed
typographic punctuation folded, an added line that copies a matched line takes the file's
own character at every place it copies (the plain one where the edit curled it, the
file's curly quote, dash, ellipsis or odd space where the edit wrote it plain), so a
character the file writes is never straightened.  The tiers as plain functions
(apply_hunks), properties over generated lines, and the real command in two formats."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.locate.matching import LineIndex, fold_punctuation
from git_aiapply.ops import Hunk
from conftest import GitRepo, file_text, text_of

RSQ, LDQ, RDQ, NDASH, MDASH, ELLIPSIS, NBSP = ("\u2019", "\u201c", "\u201d", "\u2013", "\u2014",
                                               "\u2026", "\u00a0")


def run(before: str, lines: list[tuple[str, str]], path: str = "notes.txt",
        kind: str = "search") -> str:
    new, _a, _r = apply_hunks(file_text(before), [Hunk(lines, kind=kind)], path=path)
    return text_of(new)


def tier(before: str, old: list[str]) -> int:
    return LineIndex(file_text(before).lines).first_fits(old)[0]


# ---- both ways ---------------------------------------------------------------------------

def test_a_copy_written_plain_keeps_the_file_s_dash_and_apostrophe():
    before = f"# It{RSQ}s a test {MDASH} really\nx = 1\n"
    old = ["# It's a test - really", "x = 1"]
    assert tier(before, old) == 3
    out = run(before, [("-", old[0]), ("-", old[1]),
                       ("+", "# It's a check - really"), ("+", "x = 2")], path="app.py")
    assert out == f"# It{RSQ}s a check {MDASH} really\nx = 2\n"


def test_a_copy_written_curly_gets_the_file_s_plain_characters():
    before = "# It's a test - really\nx = 1\n"
    out = run(before, [("-", f"# It{RSQ}s a test {MDASH} really"), ("-", "x = 1"),
                       ("+", f"# It{RSQ}s a check {MDASH} really"), ("+", "x = 2")], path="app.py")
    assert out == "# It's a check - really\nx = 2\n"


def test_an_ellipsis_the_file_writes_as_one_character_stays_one():
    before = f"wait{ELLIPSIS} then go\n"
    assert run(before, [("-", "wait... then go"), ("+", "wait... then stop")]) == \
        f"wait{ELLIPSIS} then stop\n"
    before = "wait... then go\n"
    assert run(before, [("-", f"wait{ELLIPSIS} then go"), ("+", f"wait{ELLIPSIS} then stop")]) == \
        "wait... then stop\n"


def test_text_written_anew_keeps_the_plain_characters_it_was_written_with():
    # only the places that copy a matched line take the file's characters back
    before = f"title = {LDQ}Hello{RDQ} {MDASH} x\n"
    out = run(before, [("-", 'title = "Hello" - x'), ("+", 'title = "Hello" - x'),
                       ("+", "note = 'a - b'")])
    assert out == f"title = {LDQ}Hello{RDQ} {MDASH} x\nnote = 'a - b'\n"


def test_odd_spaces_the_file_writes_between_words_survive_a_copy():
    before = f"price:{NBSP}10{NBSP}EUR\n"
    assert run(before, [("-", "price: 10 EUR"), ("+", "price: 12 EUR")]) == f"price:{NBSP}12{NBSP}EUR\n"


def test_the_edit_s_own_change_of_a_character_is_not_undone():
    # the hyphen the edit makes an en dash (where the file too has a hyphen) is its
    # change, not a copy: kept, while the dash it copies is the file's own
    before = f"a {MDASH} b - c\n"
    out = run(before, [("-", "a - b - c"), ("+", f"a - b {NDASH} c")])
    assert out == f"a {MDASH} b {NDASH} c\n"


def test_exact_match_keeps_added_typography_and_trailing_blanks_byte_for_byte():
    before = "x = 1\ny = 2\n"
    added = [f"# it{RSQ}s {MDASH} fine  ", "   ", f"s = {LDQ}q{RDQ}"]
    out = run(before, [(" ", "x = 1"), *(("+", t) for t in added), (" ", "y = 2")], path="notes.txt")
    assert out == "x = 1\n" + "".join(t + "\n" for t in added) + "y = 2\n"


# ---- properties --------------------------------------------------------------------------

# the characters that fold alike, the plain one first
CLASSES = {"'": "'\u2018\u2019", '"': '"\u201c\u201d', "-": "-\u2013\u2014",
           " ": " \u00a0\u2009\u202f", "...": "...\u2026"}
WORDS = st.text("abcdefgh", min_size=2, max_size=5)


def _variant(draw, token: tuple[str, str]) -> str:
    kind, text = token
    if kind == "word":
        return text
    choices = CLASSES[text]
    return draw(st.sampled_from(["..."] + list(choices[3:]) if text == "..." else list(choices)))


@st.composite
def lines_with_punctuation(draw):
    """Tokens of a line (words and punctuation classes), starting and ending with a word,
    the file's spelling and the edit's spelling of it (each punctuation written as any
    character of its class), and the index of a word the edit changes."""
    n = draw(st.integers(4, 9))
    tokens = [("word", draw(WORDS))]
    for _k in range(n):
        tokens.append(("punct", draw(st.sampled_from(sorted(CLASSES)))))
        tokens.append(("word", draw(WORDS)))
    file_side = [_variant(draw, t) for t in tokens]
    edit_side = [_variant(draw, t) for t in tokens]
    words = [k for k, t in enumerate(tokens) if t[0] == "word"]
    return file_side, edit_side, draw(st.sampled_from(words))


@settings(max_examples=150, deadline=None)
@given(lines_with_punctuation(), st.sampled_from(["notes.txt", "app.py", "README"]))
def test_property_a_copy_keeps_every_typographic_character_the_file_writes(case, path):
    """An added line that copies a matched line with one word changed is the file's own
    line with that word changed, whatever the edit did to its punctuation (curled what
    the file writes plain, straightened what it writes curly, or both)."""
    file_side, edit_side, changed = case
    prefix = "# " if path == "app.py" else ""
    file_line = prefix + "".join(file_side)
    old_line = prefix + "".join(edit_side)
    new_line = prefix + "".join("ZQX" if k == changed else t for k, t in enumerate(edit_side))
    want = prefix + "".join("ZQX" if k == changed else t for k, t in enumerate(file_side))
    before = f"top()\n{file_line}\nend()\n"
    out = run(before, [(" ", "top()"), ("-", old_line), ("+", new_line), (" ", "end()")], path=path)
    assert out == f"top()\n{want}\nend()\n"


@st.composite
def exact_edits(draw):
    """A file whose lines hold typographic characters, odd spaces and trailing blanks,
    an edit whose old side is some of its lines exactly, and added lines of any of these."""
    chars = st.sampled_from(list("ab'\"-. \t") + ["\u2018", RSQ, LDQ, RDQ, NDASH, MDASH, ELLIPSIS,
                                                  NBSP, "\u200b"])
    text = st.text(chars, max_size=14).map(lambda t: t.replace("\t", " "))
    body = draw(st.lists(st.tuples(st.sampled_from(["", "  ", "\t"]), text), min_size=2, max_size=8))
    lines = [f"{ws}k{k} {t}" for k, (ws, t) in enumerate(body)] + ["  spaced()"]
    a = draw(st.integers(0, len(lines) - 2))
    b = draw(st.integers(a + 1, len(lines)))
    added = draw(st.lists(st.tuples(st.sampled_from(["", " ", "    ", "\t"]), text), min_size=1,
                          max_size=4))
    # (a code file's added line indented with odd spaces gets plain ones at every tier,
    # a convention of code_style: these start with a word)
    return lines, a, b, [ws + "v" + t for ws, t in added] + draw(st.sampled_from([[], ["   "]]))


@settings(max_examples=150, deadline=None)
@given(exact_edits(), st.sampled_from(["notes.txt", "README.md", "README", "config.yaml",
                                       "run.sh"]), st.booleans())
def test_property_an_exact_match_never_changes_added_lines(case, path, replace):
    """No tolerance used, nothing rewritten: the added lines land byte for byte, with
    their typographic characters, odd spaces, trailing blanks and whitespace-only lines
    (the code conventions of code_style, tabs and string delimiters, do not apply to
    these files: test_locate_code_style.py)."""
    lines, a, b, added = case
    before = "".join(t + "\n" for t in lines)
    old = lines[a:b]
    assert tier(before, old) == 0
    body = [("-" if replace else " ", t) for t in old] + [("+", t) for t in added]
    out = run(before, body, path=path)
    kept = lines[:a] + ([] if replace else old) + added + lines[b:]  # its lines are unique
    assert out == "".join(t + "\n" for t in kept)


def test_fold_punctuation_maps_each_class_to_its_plain_character():
    for plain, chars in CLASSES.items():
        for c in chars[1:] if plain != "..." else chars[3:]:
            assert fold_punctuation(c) == plain


# ---- the mixed evidence that still refuses ---------------------------------------------------

def test_a_curly_quote_written_anew_with_mixed_evidence_is_refused():
    before = "a = 'x'\nb = \u2018y\u2019\n"
    with pytest.raises(ApplyError) as e:
        run(before, [("-", "a = \u2018x\u2019"), ("-", "b = \u2018y\u2019"),
                     ("+", "print(\u2018done\u2019)")], path="notes.txt")
    assert "copies none of the matched lines" in str(e.value)


# ---- the real command ----------------------------------------------------------------------

FILE = f"def greet(name):\n    # Say hello {MDASH} it{RSQ}s polite\n    return f\"Hello, {{name}}\"\n"
WANT = f"def greet(name):\n    # Say goodbye {MDASH} it{RSQ}s polite\n    return f\"Bye, {{name}}\"\n"


def _response(fmt: str) -> str:
    old = ["    # Say hello - it's polite", '    return f"Hello, {name}"']
    new = ["    # Say goodbye - it's polite", '    return f"Bye, {name}"']
    if fmt == "search":
        return ("greet.py\n```python\n<<<<<<< SEARCH\n" + "".join(t + "\n" for t in old)
                + "=======\n" + "".join(t + "\n" for t in new) + ">>>>>>> REPLACE\n```\n")
    return ("```diff\n--- a/greet.py\n+++ b/greet.py\n@@ -1,3 +1,3 @@\n def greet(name):\n"
            + "".join(f"-{t}\n" for t in old) + "".join(f"+{t}\n" for t in new) + "```\n")


@pytest.mark.parametrize("fmt", ["search", "diff"])
def test_e2e_a_fold_match_keeps_the_file_s_own_typography(repo: GitRepo, fmt):
    repo.write("greet.py", FILE)
    repo.commit_all("base")
    r = repo.run(response=_response(fmt))
    assert r.returncode == 0, r.out + r.err
    assert repo.read("greet.py").decode() == WANT
    assert repo.git("show", "HEAD:greet.py") == WANT
    assert repo.git("status", "--porcelain") == ""
