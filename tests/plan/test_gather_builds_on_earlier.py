"""A later edit of a file that searches for text an earlier edit of the same file wrote
(red-team H10-H12): its old side fits the original only loosely (an indented method of the
same name), but exactly where the earlier edit left its new lines.  It builds on that edit
and is applied in turn, as aider and Codex apply, never on the loose fit of the original.
An edit that fits the original exactly is located there as before."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from conftest import GitRepo
from git_aiapply.errors import ApplyError
from git_aiapply.locate.builds_on import builds_on_earlier
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import Hunk
from git_aiapply.text import FileText

FENCE = "```"
BASE = "def add(a, b):\n    return a + b\n\n\nclass V:\n    def add(x, y):\n        return x + y\n"
EXPECTED = ('def add(x, y):\n    """Add."""\n    return x + y\n\n\n'
            "class V:\n    def add(x, y):\n        return x + y\n")


def search_replace(old: str, new: str) -> str:
    return f"m.py\n{FENCE}python\n<<<<<<< SEARCH\n{old}\n=======\n{new}\n>>>>>>> REPLACE\n{FENCE}\n"


def udiff(body: str) -> str:
    return f"{FENCE}diff\n--- m.py\n+++ m.py\n@@ ... @@\n{body}{FENCE}\n"


RENAME_DIFF = "-def add(a, b):\n-    return a + b\n+def add(x, y):\n+    return x + y\n"
DOC_DIFF = ' def add(x, y):\n+    """Add."""\n     return x + y\n'


def apply_patch_calls(*diffs: str) -> str:
    calls = [{"type": "apply_patch_call", "call_id": str(i), "status": "completed",
              "operation": {"type": "update_file", "path": "m.py", "diff": "@@\n" + d}}
             for i, d in enumerate(diffs)]
    return json.dumps({"id": "r", "object": "response", "status": "completed", "output": calls})


def codex_sections(*diffs: str) -> str:
    body = "".join(f"*** Update File: m.py\n@@\n{d}" for d in diffs)
    return f"*** Begin Patch\n{body}*** End Patch\n"


def file_patches(*diffs: str) -> str:
    body = "".join(f'<FILE_PATCH file_path="m.py">\n@@\n{d}</FILE_PATCH>\n' for d in diffs)
    return f"<FILE_CHANGES>\n{body}</FILE_CHANGES>\n"


RESPONSES = {
    "search-replace": (search_replace("def add(a, b):\n    return a + b",
                                      "def add(x, y):\n    return x + y") + "\n"
                       + search_replace("def add(x, y):\n    return x + y",
                                        'def add(x, y):\n    """Add."""\n    return x + y')),
    "udiff-fences": "Rename:\n\n" + udiff(RENAME_DIFF) + "\nDocument:\n\n" + udiff(DOC_DIFF),
    "apply-patch-calls": apply_patch_calls(RENAME_DIFF, DOC_DIFF),
    "codex-sections": codex_sections(RENAME_DIFF, DOC_DIFF),
    "file-patches": file_patches(RENAME_DIFF, DOC_DIFF),
}


def _apply(repo: GitRepo, response: str):
    repo.write("m.py", BASE)
    base = repo.commit_all("base")
    return base, repo.run(response=response)


def test_a_later_edit_quoting_an_earlier_ones_new_lines_builds_on_it(repo: GitRepo):
    for kind, response in RESPONSES.items():
        base, r = _apply(repo, response)
        assert r.returncode == 0, (kind, r.err)
        assert repo.read("m.py").decode() == EXPECTED, kind
        repo.git("reset", "-q", "--hard", base)


def test_an_edit_that_fits_the_original_exactly_is_located_there(repo: GitRepo):
    # the second block quotes the method exactly as the original holds it: no in-turn reading
    response = (search_replace("def add(a, b):\n    return a + b", "def add(x, y):\n    return x + y")
                + "\n" + search_replace("    def add(x, y):\n        return x + y",
                                        '    def add(x, y):\n        """Add."""\n        return x + y'))
    _base, r = _apply(repo, response)
    assert r.returncode == 0, r.err
    assert repo.read("m.py").decode() == ('def add(x, y):\n    return x + y\n\n\nclass V:\n'
                                          '    def add(x, y):\n        """Add."""\n'
                                          "        return x + y\n")


def test_a_loose_edit_restated_in_a_second_section_is_made_once(repo: GitRepo):
    # the method quoted without its indentation, twice: it writes no line the other quotes
    block = search_replace("def add(x, y):\n    return x + y",
                           'def add(x, y):\n    """Add."""\n    return x + y')
    _base, r = _apply(repo, "Document:\n\n" + block + "\nAgain:\n\n" + block)
    assert r.returncode == 0, r.err
    assert repo.read("m.py").decode() == ('def add(a, b):\n    return a + b\n\n\nclass V:\n'
                                          '    def add(x, y):\n        """Add."""\n'
                                          "        return x + y\n")


def test_building_on_an_earlier_edit_that_then_fits_twice_is_refused(repo: GitRepo):
    # the first edit writes `def add(x, y)` twice: the second's exact in-turn fit is not
    # one place, and the loose fit of the original (the method) is not taken instead
    twice = "def add(x, y):\n    return x + y\n\n\ndef add(x, y):\n    return x + y"
    response = (search_replace("def add(a, b):\n    return a + b", twice) + "\n"
                + search_replace("def add(x, y):\n    return x + y",
                                 'def add(x, y):\n    """Add."""\n    return x + y'))
    base, r = _apply(repo, response)
    assert r.returncode == 1, r.err
    assert "Traceback" not in r.err
    assert "m.py" in r.err
    assert repo.head() == base
    assert repo.read("m.py").decode() == BASE


# -- the rule as a pure function -------------------------------------------------------

def hunk(lines: list[tuple[str, str]], number: int = 1) -> Hunk:
    return Hunk(lines=lines, number=number)


def apply_group(ft: FileText, hunks: list):
    return apply_hunks(ft, hunks, path="f")


LINES = st.sampled_from(["a", "b", "c", "x", "  a", "  b", "  x"])


@settings(max_examples=150, deadline=None)
@given(original=st.lists(LINES, min_size=1, max_size=8), data=st.data())
def test_in_turn_only_when_the_exact_in_turn_fit_overlaps_the_earlier_new_lines(original, data):
    start = data.draw(st.integers(0, len(original) - 1))
    length = data.draw(st.integers(1, len(original) - start))
    old = original[start:start + length]
    if sum(original[i:i + length] == old for i in range(len(original))) != 1:
        return  # the earlier edit itself must fit once
    new = data.draw(st.lists(LINES, min_size=1, max_size=3))
    after = original[:start] + new + original[start + length:]
    written = set(range(start, start + len(new)))
    lo = data.draw(st.integers(0, len(after) - 1))
    later_old = after[lo:lo + data.draw(st.integers(1, len(after) - lo))]
    if data.draw(st.booleans()):  # a tired model's indentation
        later_old = [l.strip() for l in later_old]
    ft = FileText.from_bytes(("\n".join(original) + "\n").encode())
    groups = [[hunk([("-", l) for l in old] + [("+", l) for l in new])],
              [hunk([(" ", l) for l in later_old] + [("+", "y")], 2)]]

    def fits(lines, exact):
        n = len(later_old)
        norm = (lambda l: l) if exact else (lambda l: l.strip())
        return [i for i in range(len(lines) - n + 1)
                if [norm(l) for l in lines[i:i + n]] == [norm(l) for l in later_old]]

    exact_in_original = bool(fits(original, True))
    on_written = any(written & set(range(i, i + len(later_old))) for i in fits(after, True))
    # the original's copies the earlier edit leaves as they were
    unchanged = [i for i in fits(original, True)
                 if not (start < i + len(later_old) and i < start + length)]
    if exact_in_original and on_written and unchanged:  # two readings, nothing says which
        with pytest.raises(ApplyError) as e:
            builds_on_earlier(ft, groups, apply_group)
        assert f"lines {unchanged[0] + 1}" in str(e.value) or f"line {unchanged[0] + 1}" in str(e.value)
        return
    assert builds_on_earlier(ft, groups, apply_group) == (not exact_in_original and on_written)
