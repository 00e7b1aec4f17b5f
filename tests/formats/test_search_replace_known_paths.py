"""A SEARCH/REPLACE block's path read with what the repository tracks (BEHAVIOR.md §2,
findings F27 and F28): a path line with spaces that names a tracked file (or a new file
in a tracked folder, for a block that creates it) is that path; a sentence just before
the block that names exactly one tracked file, without backticks, names the block's
file; a sentence naming several is refused, never guessed among."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from conftest import GitRepo
from git_aiapply.errors import ParseError
from git_aiapply.formats import parse_response
from git_aiapply.paths import TrackedKinds, known_paths

BLOCK = "```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```\n"
CREATE = "```\n<<<<<<< SEARCH\n=======\nhello\n>>>>>>> REPLACE\n```\n"
TRACKED = ["src/inventory.py", "src/util.py", "docs/release notes.md", "README.md", "Makefile"]


def paths_of(text: str, tracked=TRACKED) -> list[str]:
    with known_paths(TrackedKinds(lambda: tracked)):
        return [op.path for op in parse_response(text).ops]


def refusal(text: str, tracked=TRACKED) -> str:
    with known_paths(TrackedKinds(lambda: tracked)), pytest.raises(ParseError) as e:
        parse_response(text)
    return str(e.value)


# ------------------------------------------------------------------ what is tracked

def test_tracked_kinds_knows_files_and_their_folders():
    kinds = TrackedKinds(lambda: ["a/b/c.txt", "d.txt"])
    assert [kinds(p) for p in ["a/b/c.txt", "a/b", "a", "d.txt", "a/b/c", "x", ""]] == [
        "file", "dir", "dir", "file", None, None, None]


def test_tracked_kinds_reads_the_list_once_and_only_when_asked():
    asked = []
    kinds = TrackedKinds(lambda: asked.append(1) or ["a.txt"])
    assert asked == []
    assert kinds("a.txt") == "file" and kinds("b.txt") is None
    assert asked == [1]


def test_without_known_paths_nothing_is_tracked():
    with pytest.raises(ParseError):
        parse_response("docs/release notes.md\n" + BLOCK)


# ------------------------------------------------------------- paths with spaces (F27)

@pytest.mark.parametrize("line", ["docs/release notes.md", "`docs/release notes.md`",
                                  "**docs/release notes.md**", "docs/release notes.md:",
                                  "### docs/release notes.md"])
def test_a_tracked_path_with_a_space_is_the_blocks_path(line):
    assert paths_of(f"{line}\n{BLOCK}") == ["docs/release notes.md"]


def test_a_new_file_with_a_space_in_a_tracked_folder_is_created():
    assert paths_of(f"docs/upgrade guide.md\n{CREATE}") == ["docs/upgrade guide.md"]


@pytest.mark.parametrize("line", [
    "docs/upgrade guide.md",  # an edit (not a creation) of a file nobody tracks
    "notes/upgrade guide.md",  # a folder nobody tracks
    "Create the settings in docs/app settings.md",  # a sentence, its folder not tracked
    "release notes.md",  # no folder: a sentence as likely as a name
])
def test_an_untracked_line_with_spaces_is_not_a_path(line):
    block = CREATE if "Create" in line or "notes/" in line or line.startswith("release") \
        else BLOCK
    assert "no file path" in refusal(f"{line}\n{block}")


# ------------------------------------------------- a file named in a sentence (F28)

@pytest.mark.parametrize("line", [
    "In src/inventory.py, replace the constant:",
    "In src/inventory.py replace the constant",
    "Now change src/inventory.py.",
    "Edit README.md as follows:",
    "In the Makefile (a tracked name without a dot or folder is not read), see src/inventory.py:",
])
def test_a_sentence_naming_one_tracked_file_names_the_block(line):
    want = "README.md" if "README" in line else "src/inventory.py"
    assert paths_of(f"Some intro.\n\n{line}\n{BLOCK}") == [want]


def test_a_sentence_naming_several_tracked_files_is_refused_naming_them():
    why = refusal(f"Move it from src/util.py into src/inventory.py:\n{BLOCK}")
    assert "src/util.py" in why and "src/inventory.py" in why and "several" in why


def test_a_sentence_naming_one_file_twice_names_it():
    assert paths_of(f"In src/util.py (yes, src/util.py), change:\n{BLOCK}") == ["src/util.py"]


@pytest.mark.parametrize("line", [
    "In src/other.py, replace the constant:",  # not tracked
    "Replace the constant:",  # no file at all
])
def test_a_sentence_without_a_tracked_file_names_nothing(line):
    assert "no file path" in refusal(f"{line}\n{BLOCK}")


def test_only_the_line_just_before_the_block_is_read():
    text = f"In src/inventory.py, there is a constant.\nReplace it:\n{BLOCK}"
    assert "no file path" in refusal(text)


def test_a_sentence_names_the_next_blocks_file_instead_of_the_previous_one():
    text = f"src/util.py\n{BLOCK}\nThen in src/inventory.py, the same:\n{BLOCK}"
    assert paths_of(text) == ["src/util.py", "src/inventory.py"]


_WORDS = st.sampled_from(["In", "change", "the", "constant", "and", "file", "x.py",
                          "src/inventory.py", "src/util.py", "README.md", "src/other.py",
                          "then:", ","])


@settings(max_examples=150, deadline=None)
@given(words=st.lists(_WORDS, min_size=1, max_size=8))
def test_a_sentence_names_the_one_tracked_file_it_names_or_nothing(words):
    """Whatever the sentence, the block's path is the one tracked file it names, when the
    sentence opens with 'In' and it (G1: a sentence that only mentions it may be refused,
    never read as another file); several are refused; none leaves the block without a
    path (refused too)."""
    line = " ".join(words)
    named = {w.rstrip(":,") for w in words} & set(TRACKED)
    text = f"{line}\n{BLOCK}"
    if len(named) == 1 and words[0] == "In" and words[1].rstrip(":,") in named:
        assert paths_of(text) == [named.pop()]
    elif len(named) == 1:
        with known_paths(TrackedKinds(lambda: TRACKED)):
            try:
                got = [op.path for op in parse_response(text).ops]
            except ParseError:
                got = None
        assert got in (None, [next(iter(named))])
    else:
        with known_paths(TrackedKinds(lambda: TRACKED)):
            try:
                got = [op.path for op in parse_response(text).ops]
            except ParseError:
                got = None
        # a sentence naming no tracked file may still name its file as before (one word)
        assert got is None or len(named) == 0 and got == [line.strip().rstrip(":")]


# ------------------------------------------------------------------- through git

def test_f27_and_f28_through_the_command(repo: GitRepo):
    repo.write("docs/release notes.md", "# Release notes\n\n- 1.0: first release\n")
    repo.write("src/inventory.py", 'DEFAULT_PATH = "inventory.json"\n')
    repo.commit_all("base")
    resp = ("docs/release notes.md\n```markdown\n<<<<<<< SEARCH\n- 1.0: first release\n"
            "=======\n- 1.0: first release\n- 1.1: port is configurable\n>>>>>>> REPLACE\n```\n\n"
            "In src/inventory.py, replace the constant:\n```python\n<<<<<<< SEARCH\n"
            'DEFAULT_PATH = "inventory.json"\n=======\nDEFAULT_PATH = "data/inventory.json"\n'
            ">>>>>>> REPLACE\n```\n")
    r = repo.run(response=resp)
    assert r.returncode == 0, r.err
    assert repo.read("docs/release notes.md").endswith(
        b"- 1.0: first release\n- 1.1: port is configurable\n")
    assert repo.read("src/inventory.py") == b'DEFAULT_PATH = "data/inventory.json"\n'


def test_several_files_in_the_sentence_refused_through_the_command(repo: GitRepo):
    repo.write("src/a.py", "x = 1\n")
    repo.write("src/b.py", "x = 1\n")
    repo.commit_all("base")
    before = repo.snapshot()
    r = repo.run(response=f"Copy src/a.py into src/b.py:\n{BLOCK}")
    assert r.returncode == 1, r.out
    assert "src/a.py" in r.err and "src/b.py" in r.err
    assert repo.snapshot() == before


@pytest.mark.parametrize("line", [
    "docs/ holds the notes; add new.md",  # a sentence after a tracked folder
    "docs/see below:  notes.md",  # two spaces: not one name
    "Like src/util.py, create this:",  # a block that creates: a sentence names its model
])
def test_a_creating_block_takes_no_sentence_for_its_path(line):
    assert "no file path" in refusal(f"{line}\n{CREATE}")


@pytest.mark.parametrize("line, name", [
    ("docs/old notes.md", "docs/old notes.md"),
    ("In src/other.py, replace the constant:", "src/other.py"),
])
def test_the_refusal_names_the_untracked_file_the_line_held(line, name):
    why = refusal(f"{line}\n{BLOCK}")
    assert f"names {name!r}, which is not tracked" in why


def test_the_refusal_of_a_line_without_a_file_name_says_no_more():
    assert "not tracked" not in refusal(f"Replace the constant:\n{BLOCK}")


def test_without_a_repository_the_refusal_claims_nothing_about_tracking():
    with pytest.raises(ParseError) as e:
        parse_response(f"docs/old notes.md\n{BLOCK}")
    assert "not tracked" not in str(e.value)
