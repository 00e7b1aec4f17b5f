"""errors.py: the errors' exit codes and kinds, whose fault each kind is (as docs/JSON.md's
table says), a Problem rendered for the model and as JSON, and text from a response or a
file never reaching the terminal with its control characters."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import (ApplyError, ErrorKind, FatalError, ParseError, Problem,
                                UsageError, fault_of, printable)

DOCS = Path(__file__).resolve().parent.parent / "docs"


def test_each_error_has_its_exit_code_and_a_known_kind():
    refused = ApplyError("the edit does not fit")
    assert (refused.exit_code, refused.kind) == (1, ErrorKind.REFUSED)
    assert refused.problems == [Problem("the edit does not fit")]
    assert str(refused) == refused.render()
    parse = ParseError("never closed", line=3, directive="FILE_PATCH a.txt")
    assert parse.kind == "parse" and parse.problems[0].response_line == 3
    fatal = FatalError("Unable to create 'index.lock'", kind="lock", hint="wait")
    assert (fatal.exit_code, fatal.kind, fatal.hint, str(fatal)) == (
        128, ErrorKind.LOCK, "wait", "Unable to create 'index.lock'")
    assert UsageError("bad").exit_code == 2
    # a kind docs/JSON.md does not list is never made
    with pytest.raises(ValueError):
        ApplyError("x", kind="oops")
    with pytest.raises(ValueError):
        FatalError("x", kind="disk-full")


def test_several_problems_render_one_after_another():
    err = ApplyError([Problem("first", file="a.txt"), Problem("second", file="b.txt")],
                     kind="dirty")
    assert err.render() == "a.txt: first\nb.txt: second" and err.kind == "dirty"


def test_whose_fault_each_kind_is_as_docs_json_says():
    doc = (DOCS / "JSON.md").read_text(encoding="utf-8")
    table = doc.split("## For an agent loop: whose fault is it?", 1)[1].split("\n## ", 1)[0]
    documented = {}
    for fault, kinds in re.findall(r"^\| `(\w+)` \| [^|]+ \| ([^|]+) \|", table, re.M):
        for kind in re.findall(r"`([a-z]+)`", kinds):
            documented[kind] = fault
    assert documented == {kind.value: fault_of(kind) for kind in ErrorKind}
    assert fault_of(None) is None


def test_a_problem_renders_where_what_and_what_to_do():
    p = Problem("could not find these lines", file="src/app.py",
                directive="FILE_PATCH src/app.py", edit=2,
                edit_first_line="    " + "x" * 70, hint="copy the lines exactly",
                nearby=[(9, "def greet(name):"), (10, '    print("Hi")')])
    assert p.render().splitlines() == [
        "FILE_PATCH src/app.py, edit 2 ('" + "x" * 57 + "...'): could not find these lines",
        "  closest lines in the file:",
        "   9 | def greet(name):",
        '  10 |     print("Hi")',
        "  hint: copy the lines exactly"]
    assert Problem("cut off", response_line=12).render() == "response line 12: cut off"


def test_a_problem_as_json_splits_hashline_references():
    p = Problem("stale id", file="a.py", nearby=[(3, "3#ab:x = {'a': 1}")], nearby_refs=True,
                candidates=[3, 7])
    d = p.to_json()
    assert d["nearby"] == [{"line": 3, "ref": "3#ab", "text": "x = {'a': 1}"}]
    assert d["candidates"] == [3, 7] and d["file"] == "a.py" and d["edit"] is None
    plain = Problem("no fit", nearby=[(4, "a: b")]).to_json()
    assert plain["nearby"] == [{"line": 4, "text": "a: b"}] and "candidates" not in plain


CONTROLS = [chr(c) for c in [*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f, *range(0x80, 0xa0)]]


@settings(max_examples=100, deadline=None)
@given(st.text(st.one_of(st.sampled_from(CONTROLS), st.characters()), max_size=30))
def test_printable_text_has_no_control_character_but_tab_and_newline(text):
    shown = printable(text)
    assert not any(c in CONTROLS for c in shown)
    assert printable(shown) == shown
    if not any(c in CONTROLS for c in text):
        assert shown == text  # other text, tabs, newlines and all of Unicode, as it is
    # and a rendered problem holds nothing else either, whatever its parts held
    rendered = Problem(text, file=text, hint=text, nearby=[(1, text)]).render()
    assert not any(c in CONTROLS for c in rendered)


# ---------------------------------------------------------------- a damaged object store

def _raised(fn) -> BaseException:
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the error under test, whatever it is)
        return e
    raise AssertionError("no error")


def test_store_errors_are_fatal_in_gits_words_and_our_own_lookups_stay_bugs(tmp_path):
    """A missing object or a damaged store (what pygit2 raises for it) is the repository's
    trouble: `fatal: unable to read <id>`, exit 128, kind ``repository``; a KeyError of
    our own dicts, a ref or config name not found, pygit2's ValueErrors (an invalid spec)
    are not, so a bug stays an internal error."""
    import pygit2

    from git_aiapply.errors import store_errors_fatal, store_fatal

    r = pygit2.init_repository(str(tmp_path / "r"))
    missing = "1b6d147e984399163f54dc1af4ccaed9ad24ebfc"
    for e in [_raised(lambda: r[missing]),  # pygit2's own KeyError, raised in Python
              pygit2.NotFoundError(f"object not found - no match for id ({missing})"),
              _raised(lambda: r.walk(pygit2.Oid(hex=missing)))]:
        fatal = store_fatal(e)
        assert fatal is not None, repr(e)
        assert (fatal.message, fatal.kind, fatal.exit_code) == (
            f"unable to read {missing}", ErrorKind.REPOSITORY, 128)
        assert "git fsck" in fatal.hint
    damaged = store_fatal(pygit2.GitError("corrupted packed references file"))
    assert damaged is not None and damaged.message == "corrupted packed references file"
    assert store_fatal(_raised(lambda: {}[missing])) is None  # our own dict: a bug
    assert store_fatal(_raised(lambda: r.config["no.such"])) is None
    assert store_fatal(_raised(lambda: r.lookup_reference("refs/heads/none"))) is None
    assert store_fatal(_raised(lambda: r.revparse_single("HEAD:@{"))) is None
    assert store_fatal(ValueError(missing)) is None
    with pytest.raises(FatalError) as caught, store_errors_fatal():
        r[missing]
    assert isinstance(caught.value.__cause__, KeyError)
    with pytest.raises(KeyError), store_errors_fatal():
        {}[missing]
