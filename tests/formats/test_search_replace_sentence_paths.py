"""A file named in a sentence names the block's file only when the sentence is about it
(findings G1, G2, G13): the path directly follows a locative or edit word at the start
of the sentence or of a clause (``In x.py,``, ``Now edit the file x.py``), or ends the
sentence before its ``:``; a contrasting or negating word around it (``Unlike x.py``,
``Keep x.py as it is``, ``copied from `x.py```) refuses.  One function
(``search_replace.sentence_is_about``) decides for a SEARCH/REPLACE block and for a
headerless diff alike."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from conftest import GitRepo
from git_aiapply.errors import ParseError
from git_aiapply.formats import parse_response
from git_aiapply.formats.search_replace import sentence_is_about
from git_aiapply.paths import TrackedKinds, known_paths

BLOCK = "```python\n<<<<<<< SEARCH\nDEBUG = True\n=======\nDEBUG = False\n>>>>>>> REPLACE\n```\n"
DIFF = "```diff\n@@ -1,2 +1,2 @@\n-DEBUG = True\n+DEBUG = False\n TIMEOUT = 30\n```\n"
TRACKED = ["config/dev.py", "config/prod.py", "docs/release notes.md", "src/a.py"]


def paths_of(text: str) -> list[str]:
    with known_paths(TrackedKinds(lambda: TRACKED)):
        return [op.path for op in parse_response(text).ops]


def refusal(text: str) -> str:
    with known_paths(TrackedKinds(lambda: TRACKED)), pytest.raises(ParseError) as e:
        parse_response(text)
    return str(e.value)


ABOUT = [
    "In config/dev.py, turn debug off:",
    "Inside config/dev.py turn debug off",
    "For config/dev.py:",
    "Now in config/dev.py, the same:",
    "Then in `config/dev.py`:",
    "And in config/dev.py:",
    "Also in the file config/dev.py, change:",
    "Same in config/dev.py:",
    "Update config/dev.py:",
    "Edit the file `config/dev.py` as follows:",
    "Modify config/dev.py.",
    "Open config/dev.py and change the flag:",
    "Debug must be off. In config/dev.py, change it:",
    "Production should not run with debug. So, in config/dev.py, turn it off:",
    "Now the same in `config/dev.py`:",
    "Here is the change to config/dev.py:",
]
NOT_ABOUT = [
    "Unlike config/dev.py, production needs it off:",
    "Production should not run with debug on. Unlike config/dev.py, production needs it off:",
    "Keep config/dev.py as it is; in the production settings, turn debug off:",
    "The value copied from `config/dev.py` is wrong for production:",
    "The value copied from `config/dev.py`:",
    "Instead of config/dev.py, change the production settings:",
    "Except config/dev.py, every settings file needs it off:",
    "Rather than config/dev.py, fix production:",
    "Leave config/dev.py alone and turn debug off:",
    "config/dev.py is fine, but production needs it off:",
    "Production, not config/dev.py, needs it off:",
    "Do not change config/dev.py:",
    "Don't touch config/dev.py:",
    "As in config/dev.py, production needs it off:",
    "For comparison, here is config/dev.py:",  # ends the line, its sentence contrasts
    "Production should match config/dev.py:",
    "Make production a copy of config/dev.py:",
    "In the production file (unlike config/dev.py), turn it off:",
    "Don\u2019t touch config/dev.py:",
]


@pytest.mark.parametrize("line", ABOUT)
def test_a_sentence_about_the_file_names_it(line):
    assert sentence_is_about(line, "config/dev.py")
    assert paths_of(f"{line}\n{BLOCK}") == ["config/dev.py"]


@pytest.mark.parametrize("line", NOT_ABOUT)
def test_a_sentence_that_rules_the_file_out_names_nothing(line):
    assert not sentence_is_about(line, "config/dev.py")
    why = refusal(f"{line}\n{BLOCK}")
    assert "no file path" in why and "not tracked" not in why


@pytest.mark.parametrize("line", NOT_ABOUT)
def test_a_headerless_diff_under_a_sentence_that_rules_the_file_out_is_refused(line):
    with pytest.raises(ParseError):
        parse_response(f"{line}\n\n{DIFF}")


@pytest.mark.parametrize("line", [l for l in ABOUT if "`" in l or l.endswith(":")])
def test_a_headerless_diff_under_a_sentence_about_the_file_takes_it(line):
    if "`" not in line:
        line = line.replace("config/dev.py", "`config/dev.py`")
    [op] = parse_response(f"{line}\n\n{DIFF}").ops
    assert op.path == "config/dev.py"


def test_the_refusal_says_the_sentence_did_not_name_the_file_as_its_subject():
    why = refusal(f"Unlike config/dev.py, production needs it off:\n{BLOCK}")
    assert "config/dev.py" in why and "about" in why


def test_a_tracked_path_with_spaces_after_in_is_read_whole():
    assert paths_of(f"In docs/release notes.md, add the new version:\n{BLOCK}") == [
        "docs/release notes.md"]
    assert paths_of(f"Now edit docs/release notes.md:\n{BLOCK}") == ["docs/release notes.md"]


_FILLER = st.sampled_from(["In", "Update", "production", "needs", "it", "off", "the", "value", "is",
                           "wrong", "settings", "debug", "config/prod", "and", ","])
_CONTRAST = st.sampled_from(["Unlike", "not", "Keep", "as it is", "copied from",
                             "instead of", "except", "rather than", "leave", "don't"])


@settings(max_examples=150, deadline=None)
@given(before=st.lists(_FILLER, max_size=4), after=st.lists(_FILLER, max_size=4),
       contrast=_CONTRAST, ahead=st.booleans(), colon=st.booleans())
def test_a_contrasting_word_beside_the_file_always_refuses(before, after, contrast,
                                                           ahead, colon):
    """Wherever a contrasting word stands in the file's clause, the file is not taken."""
    words = before + ([contrast, "config/dev.py"] if ahead else ["config/dev.py", contrast])
    line = " ".join(words + after) + (":" if colon else "")
    assert not sentence_is_about(line, "config/dev.py")
    try:
        got = paths_of(f"{line}\n{BLOCK}")
    except ParseError:
        got = None
    assert got is None


def test_g1_and_g2_through_the_command(repo: GitRepo):
    repo.write("config/dev.py", "DEBUG = True\nTIMEOUT = 30\n")
    repo.write("config/prod.py", "DEBUG = True\nTIMEOUT = 30\n")
    repo.commit_all("base")
    before = repo.snapshot()
    for response in (f"Unlike config/dev.py, production needs it off:\n\n{BLOCK}",
                     f"The value copied from `config/dev.py` is wrong for production:\n\n{DIFF}"):
        r = repo.run(response=response)
        assert r.returncode == 1, r.out
        assert "Traceback" not in r.err
        assert repo.snapshot() == before


def test_the_headerless_diff_refusal_says_which_name_was_not_taken_and_why():
    with pytest.raises(ParseError) as e:
        parse_response(f"The value copied from `config/dev.py` is wrong:\n\n{DIFF}")
    assert "'config/dev.py', but not as the file the diff changes" in str(e.value)
