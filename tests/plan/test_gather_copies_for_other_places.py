"""The same edit given more than once (BEHAVIOR.md §3, issue 30: "make the same change in
`read_groups`" was swallowed as a restatement): copies take as many places as the old side
has fits, one each in order, whatever the format and whether or not a copied hunk header
names the first place; copies beyond the fits are restatements, applied once."""
from __future__ import annotations

import pytest

from conftest import GitRepo
from test_gather_self_revision import (FENCE, apply_patch, file_patch, plan, search_replace,
    tool_calls, udiff)

TWO = ("def read_users(path):\n    rows = load(path)\n    return rows\n\n\n"
       "def read_groups(path):\n    rows = load(path)\n    return rows\n")
ONE = TWO.split("\n\n\n")[0] + "\n"
SAME = "\nNow make the same change in `read_groups`:\n\n"


def copies(block) -> str:
    return block() + SAME + block()


def _ud(header: str) -> str:
    return (f"{FENCE}diff\n--- a/m.py\n+++ b/m.py\n{header}\n-    rows = load(path)\n"
            f"+    rows = load(path, cache=True)\n     return rows\n{FENCE}\n")


def _sr() -> str:
    return search_replace("", "    rows = load(path)").replace(
        "=======\n    rows = load(path)", "=======\n    rows = load(path, cache=True)")


def _ap() -> str:
    return apply_patch("").replace("-    a = 1\n+    a = \n     b = 2\n",
                                   "-    rows = load(path)\n+    rows = load(path, cache=True)\n")


def _fp() -> str:
    return file_patch("").replace("-    a = 1\n+    a = \n",
                                  "-    rows = load(path)\n+    rows = load(path, cache=True)\n")


def _calls() -> str:
    return tool_calls("", "").replace("-    a = 1\\n+    a = \\n     b = 2\\n",
                                      "-    rows = load(path)\\n+    rows = load(path, cache=True)\\n")


RESPONSES = {
    "unified diff, the first place's header copied": copies(lambda: _ud("@@ -2,2 +2,2 @@")),
    "unified diff, no numbers": copies(lambda: _ud("@@ ... @@")),
    "one diff, the hunk twice": f"{FENCE}diff\n--- a/m.py\n+++ b/m.py\n"
    + 2 * "@@ -2,2 +2,2 @@\n-    rows = load(path)\n+    rows = load(path, cache=True)\n     return rows\n"
    + f"{FENCE}\n",
    "SEARCH/REPLACE": copies(_sr),
    "apply-patch": copies(_ap),
    "file-changes": copies(_fp),
    "tool calls": _calls(),
}


def _final(response: str, base: str) -> str:
    return plan(response, {"m.py": (0o100644, base.encode())}).final["m.py"].data.decode()


@pytest.mark.parametrize("kind", list(RESPONSES))
def test_a_copy_goes_to_the_next_fit_of_its_lines(kind):
    assert "load(path, cache=True)" in RESPONSES[kind], kind  # the helpers built the edit
    assert _final(RESPONSES[kind], TWO) == TWO.replace("load(path)", "load(path, cache=True)")


@pytest.mark.parametrize("kind", list(RESPONSES))
def test_a_copy_beyond_the_fits_is_a_restatement_made_once(kind):
    assert _final(RESPONSES[kind], ONE) == ONE.replace("load(path)", "load(path, cache=True)")


def test_e2e_the_same_change_in_another_function_is_made_there(repo: GitRepo):
    repo.write("m.py", TWO)
    head = repo.commit_all("base")
    r = repo.run(response="Cache the loads.\n\n" + RESPONSES["unified diff, the first place's header copied"])
    assert r.returncode == 0, r.out + r.err
    assert repo.git("rev-parse", "HEAD~1").strip() == head
    shown = repo.git("show", "--format=", "HEAD", "--", "m.py")
    assert shown.count("+    rows = load(path, cache=True)") == 2, shown
    assert repo.read("m.py").decode() == TWO.replace("load(path)", "load(path, cache=True)")
