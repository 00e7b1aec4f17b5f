"""An answer that names its base (``AI-Base:`` / ``--base``) places its edits where they fit
at that base, carried over the base-to-current change (BEHAVIOR.md §3, §9; findings H3,
H4).  An edit whose fit in the current file is not where its base place is now (a new copy
of the text, or the place changed since) fits only by accident: with ``-3`` it goes through
the base and is merged (a conflict refuses), without ``-3`` it is refused naming ``-3`` and
the base.  Without a named base nothing changes.  The pure rule first, then the command."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import GitRepo
from git_aiapply.formats import parse_response
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_FILE
from git_aiapply.threeway.drift import edits_off_their_base_place


class Files:
    def __init__(self, files: dict[str, bytes]):
        self.files = files

    def entry(self, path):
        return (MODE_FILE, self.files[path]) if path in self.files else None


def _norm(raw):
    return normalize_path(raw, worktree="/w")


def _sr(path: str, old: str, new: str) -> str:
    return (f"{path}\n```python\n<<<<<<< SEARCH\n{old}=======\n{new}>>>>>>> REPLACE\n```\n")


F = "def f():\n    x = 1\n    return x\n"
G = "def g():\n    x = 1\n    return x\n"
SET_X = _sr("b.py", "    x = 1\n    return x\n", "    x = 2\n    return x\n")
BASE_H3_H4 = F


def _found(response: str, now: str, base: str):
    return edits_off_their_base_place(parse_response(response).ops, Files({"b.py": now.encode()}),
                                      Files({"b.py": base.encode()}), _norm)


# --------------------------------------------------------------------------- the rule


def test_a_new_copy_of_the_text_makes_the_edit_off_its_base_place():
    found = _found(SET_X, G + "\n\n" + F, F)
    assert [(d.path, d.number, d.moved) for d in found] == [("b.py", 1, True)]
    assert [n for n, _t in found[0].fits] == [2, 7]


def test_a_base_place_changed_since_with_the_text_elsewhere_is_off_its_place():
    # H4: f's x became 5, a new g holds the old text: fits g once, not f's place
    found = _found(SET_X, G + "\n\n" + F.replace("x = 1", "x = 5"), F)
    assert [n for n, _t in found[0].fits] == [2]


def test_an_edit_whose_place_only_moved_is_not_flagged():
    now = "import os\n\n\n" + F + "\n\ndef h():\n    return 0\n"
    assert _found(SET_X, now, F) == []


def test_an_edit_that_fits_nowhere_now_is_the_planners_to_refuse():
    assert _found(SET_X, F.replace("x = 1", "x = 5"), F) == []


def test_an_unchanged_file_or_an_edit_not_fitting_the_base_is_not_flagged():
    twice = G + "\n\n" + F
    assert _found(SET_X, twice, twice) == []
    # not the base's text (the model saw a newer file): the base says nothing
    other = _sr("b.py", "def g():\n", "def g2():\n")
    assert _found(other, twice, F) == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([0, 1, 2, 3, 4, 99]), max_size=6),
       st.one_of(st.none(), st.integers(0, 12)), st.booleans())
def test_flagged_exactly_when_a_copy_of_the_text_was_added(inserts, copy_at, changed):
    """The base: filler lines and f.  Since then: unrelated lines inserted anywhere, maybe a
    copy of f's body (as g) anywhere, maybe f's body changed.  (Lines inserted beside f's
    body would change its place: they go above f or at the end.)  The edit is off its base place
    exactly when a copy exists (it fits the copy, and the original's place is elsewhere or
    changed); with no copy it fits f's place or nowhere."""
    base = [f"a{i}\n" for i in range(4)] + F.splitlines(keepends=True) + ["z\n"]
    now = list(base)
    if changed:
        now[5] = "    x = 5\n"
    for n, at in enumerate(inserts):
        now.insert(min(at, len(now)), f"new{n}\n")
    if copy_at is not None:
        pos = min(copy_at, len(now))
        now[pos:pos] = G.splitlines(keepends=True)
    found = _found(SET_X, "".join(now), "".join(base))
    assert bool(found) == (copy_at is not None)


# --------------------------------------------------------------------------- the command


def _h4(repo: GitRepo, f_now: str) -> GitRepo:
    repo.write("b.py", F)
    repo.commit_all("c0")
    repo.base_id = repo.head()
    repo.write("b.py", G + "\n\n" + f_now)
    repo.commit_all("c1")
    return repo


def _answer(repo: GitRepo, body: str = SET_X) -> str:
    return f"Set x to 2 in f.\n\nAI-Base: {repo.base_id}\n\n{body}"


@pytest.mark.parametrize("three_way", [True, False])
def test_h4_a_stale_edit_is_not_placed_in_the_new_function(repo: GitRepo, three_way):
    _h4(repo, F.replace("x = 1", "x = 5"))
    before = repo.snapshot()
    r = repo.run(*(["-3"] if three_way else []), response=_answer(repo))
    assert r.returncode == 1, r.out
    assert "b.py" in r.err and repo.base_id[:12] in r.err, r.err
    if three_way:  # at the base it edits f, whose x changed since: a conflict
        assert "conflict" in r.err, r.err
    else:
        assert "-3" in r.err, r.err
    assert repo.snapshot() == before


def test_with_3way_a_search_block_fitting_a_new_copy_goes_through_the_base(repo: GitRepo):
    _h4(repo, F)
    r = repo.run("-3", response=_answer(repo))
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:b.py") == G + "\n\n" + F.replace("x = 1", "x = 2")
    assert f"AI-Base: {repo.base_id}" in repo.message()


def test_without_3way_a_search_block_fitting_a_new_copy_is_refused(repo: GitRepo):
    _h4(repo, F)
    before = repo.snapshot()
    r = repo.run(response=_answer(repo))
    assert r.returncode == 1
    assert "-3" in r.err and repo.base_id[:12] in r.err and "b.py" in r.err, r.err
    assert repo.snapshot() == before


@pytest.mark.parametrize("three_way", [True, False])
def test_h3_base_line_numbers_edit_f_or_refuse(repo: GitRepo, three_way):
    _h4(repo, F)
    hunk = ("```diff\n--- a/b.py\n+++ b/b.py\n@@ -2,2 +2,2 @@\n-    x = 1\n+    x = 2\n"
            "     return x\n```\n")
    before = repo.snapshot()
    r = repo.run(*(["-3"] if three_way else []), response=_answer(repo, hunk))
    if three_way:
        assert r.returncode == 0, r.err
        assert repo.git("show", "HEAD:b.py") == G + "\n\n" + F.replace("x = 1", "x = 2")
    else:
        assert r.returncode == 1 and "-3" in r.err, r.err
        assert repo.snapshot() == before


def test_a_named_base_whose_edit_place_only_moved_applies_as_before(repo: GitRepo):
    repo.write("b.py", F)
    repo.commit_all("c0")
    repo.base_id = repo.head()
    repo.write("b.py", "import os\n\n\n" + F + "\n\ndef h():\n    return 0\n")
    repo.commit_all("c1")
    r = repo.run(response=_answer(repo))
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:b.py") == ("import os\n\n\n" + F.replace("x = 1", "x = 2")
                                             + "\n\ndef h():\n    return 0\n")


def test_without_a_named_base_nothing_changes(repo: GitRepo):
    # no AI-Base line: the current file is all the evidence, and the text fits g once
    _h4(repo, F.replace("x = 1", "x = 5"))
    r = repo.run("-3", response=SET_X)
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:b.py") == (G.replace("x = 1", "x = 2") + "\n\n"
                                             + F.replace("x = 1", "x = 5"))


def test_a_stated_line_that_still_picks_the_base_place_is_not_flagged():
    hunk = ("```diff\n--- a/b.py\n+++ b/b.py\n@@ -2,2 +2,2 @@\n-    x = 1\n+    x = 2\n"
            "     return x\n```\n")
    assert _found(hunk, F + "\n\n" + G, F) == []  # the copy below: line 2 is still f's
    assert len(_found(hunk, G + "\n\n" + F, F)) == 1  # above: line 2 is g's now


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["a\n", "b\n", "\n", "c\n"]), max_size=12),
       st.lists(st.tuples(st.integers(0, 12), st.sampled_from(["a\n", "x\n", "\n"])), max_size=4),
       st.lists(st.integers(0, 12), max_size=3))
def test_gits_unchanged_runs_hold_the_same_lines_in_both(base, inserts, deletes):
    """git's diff (the repository's runs) pairs only equal lines, covers each line once,
    and in order: what the carried places rest on."""
    from git_aiapply.git.merge import unchanged_runs

    now = list(base)
    for at in deletes:
        if at < len(now):
            del now[at]
    for at, line in inserts:
        now.insert(min(at, len(now)), line)
    runs = unchanged_runs("".join(base).encode(), "".join(now).encode())
    assert all(base[a:a + n] == now[b:b + n] and n > 0 for a, b, n in runs)
    assert all(a1 + n1 <= a2 and b1 + n1 <= b2
               for (a1, b1, n1), (a2, b2, _n2) in zip(runs, runs[1:]))
    # every line git's diff did not touch is in a run: as many as the diff says are equal
    assert sum(n for _a, _b, n in runs) == len(base) - _removed(base, now)


def _removed(base, now) -> int:
    import subprocess
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        Path(d, "a").write_text("".join(base))
        Path(d, "b").write_text("".join(now))
        out = subprocess.run(["git", "diff", "--no-index", "--numstat", "a", "b"], cwd=d,
                             capture_output=True, text=True).stdout
    return int(out.split()[1]) if out.strip() else 0


def test_an_anchored_edit_is_the_planners_to_hold_in_its_block(repo: GitRepo):
    # apply_patch's '@@ def f():' names f: the planner refuses the fit in g itself
    _h4(repo, F.replace("x = 1", "x = 5"))
    before = repo.snapshot()
    patch = ("*** Begin Patch\n*** Update File: b.py\n@@ def f():\n-    x = 1\n+    x = 2\n"
             "     return x\n*** End Patch\n")
    r = repo.run(response=_answer(repo, patch))
    assert r.returncode == 1 and "def f():" in r.err, r.err
    assert repo.snapshot() == before
