"""A file's edits are gathered by the file they name, not by how a section spells its path
(BEHAVIOR.md §3 and §6): under core.ignorecase `app.py` is the tracked `App.py`, and an
NFD spelling of a tracked NFC name is that file, so two sections editing it under two
spellings are located together, as under one spelling: a restated edit is made once,
different edits of the same lines are refused as overlapping."""
from __future__ import annotations

import unicodedata

import pytest

from conftest import GitRepo

FENCE = "```"


def search_replace(path: str, old: str, new: str) -> str:
    return f"{path}\n{FENCE}\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n{FENCE}\n"


def two_sections(first: str, second: str, new_second: str = "B") -> str:
    return ("Make b louder.\n\n" + search_replace(first, "b", "B") + "\nAgain:\n\n"
            + search_replace(second, "b", new_second))


NFC = unicodedata.normalize("NFC", "café.py")
NFD = unicodedata.normalize("NFD", "café.py")
SPELLINGS = {"case": ("App.py", "app.py", True), "nfd": (NFC, NFD, False)}


def tracked(repo: GitRepo, name: str, ignore_case: bool) -> str:
    if ignore_case:
        repo.git("config", "core.ignorecase", "true")
    repo.write(name, "a\nb\nc\n")
    return repo.commit_all("base")


@pytest.mark.parametrize("kind", sorted(SPELLINGS))
def test_a_restated_edit_under_another_spelling_is_made_once(repo: GitRepo, kind):
    name, other, ignore_case = SPELLINGS[kind]
    base = tracked(repo, name, ignore_case)
    r = repo.run(response=two_sections(name, other))
    assert r.returncode == 0, r.err
    assert repo.git("rev-parse", "HEAD~1").strip() == base
    assert repo.read(name) == b"a\nB\nc\n"
    assert list(repo.tree()) == [name]


@pytest.mark.parametrize("kind", sorted(SPELLINGS))
def test_different_edits_of_one_line_under_two_spellings_overlap(repo: GitRepo, kind):
    name, other, ignore_case = SPELLINGS[kind]
    base = tracked(repo, name, ignore_case)
    r = repo.run(response=two_sections(name, other, new_second="X"))
    assert r.returncode == 1
    assert "overlap" in r.err, r.err
    assert repo.head() == base
    assert repo.read(name) == b"a\nb\nc\n"
