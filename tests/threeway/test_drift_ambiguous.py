"""Line numbers describe the file the answer was written against (BEHAVIOR.md §3, §9;
finding F5, F4).  When the answer names its base (an ``AI-Base:`` line or ``--base``),
the base is not HEAD, and the file changed since, an edit whose old side fits the current
file more than once is placed through the base with ``-3`` and refused as ambiguous
without it (naming ``-3`` and the base); with no named base, line numbers stay evidence.
Pure tests of the rule (threeway.edits_placed_by_base_lines) first, then the command."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import GitRepo
from git_aiapply.formats import parse_response
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_FILE
from git_aiapply.threeway.drift import edits_placed_by_base_lines


class Files:
    def __init__(self, files: dict[str, bytes]):
        self.files = files

    def entry(self, path):
        return (MODE_FILE, self.files[path]) if path in self.files else None


def _norm(raw):
    return normalize_path(raw, worktree="/w")


def _diff(path: str, line: int, body: str) -> str:
    return f"```diff\n--- a/{path}\n+++ b/{path}\n@@ -{line},3 +{line},3 @@\n{body}```\n"


BLOCK = "def value(self):\n    total = 0\n    return total\n"
EDIT = _diff("m.py", 2, " def value(self):\n     total = 0\n-    return total\n+    return round(total, 2)\n")

# --------------------------------------------------------------------------- the rule


def test_an_edit_that_fits_twice_in_a_drifted_file_is_flagged():
    base = Files({"m.py": b"# top\n" + BLOCK.encode()})
    now = Files({"m.py": b"# top\n# copy\n" + BLOCK.encode() + b"\n" + BLOCK.encode()})
    found = edits_placed_by_base_lines(parse_response(EDIT).ops, now, base, _norm)
    assert [(d.path, d.number, d.stated_line) for d in found] == [("m.py", 1, True)]


def test_a_file_unchanged_since_the_base_or_a_single_fit_is_not_flagged():
    twice = b"# top\n" + BLOCK.encode() + b"\n" + BLOCK.encode()
    ops = parse_response(EDIT).ops
    assert edits_placed_by_base_lines(ops, Files({"m.py": twice}), Files({"m.py": twice}), _norm) == []
    once = Files({"m.py": b"# moved\n# top\n" + BLOCK.encode()})
    assert edits_placed_by_base_lines(ops, once, Files({"m.py": b"# top\n" + BLOCK.encode()}),
                                      _norm) == []


def test_an_added_only_hunk_at_a_stated_line_needs_the_line_numbers():
    ops = parse_response("```diff\n--- a/m.py\n+++ b/m.py\n@@ -2,0 +3,1 @@\n+# new\n```\n").ops
    found = edits_placed_by_base_lines(ops, Files({"m.py": b"x\na\nb\n"}), Files({"m.py": b"a\nb\n"}),
                                       _norm)
    assert [d.stated_line for d in found] == [True]


def test_search_replace_fitting_twice_is_flagged_without_a_stated_line():
    # no line numbers: without -3 the order rules decide as before; -3 goes through the base
    sr = "m.py\n```python\n<<<<<<< SEARCH\n    return total\n=======\n    return 0\n>>>>>>> REPLACE\n```\n"
    found = edits_placed_by_base_lines(parse_response(sr).ops, Files({"m.py": (BLOCK * 2).encode()}),
                                       Files({"m.py": BLOCK.encode()}), _norm)
    assert [d.stated_line for d in found] == [False]


def test_hashline_references_to_a_drifted_file_are_flagged():
    ops = parse_response("<FILE_CHANGES>\n<FILE_HASHLINE_PATCH path=\"m.py\">\n"
                         "2#aa:    x\n</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n").ops
    assert [d.stated_line for d in edits_placed_by_base_lines(
        ops, Files({"m.py": b"0\na\nb\n"}), Files({"m.py": b"a\nb\n"}), _norm)] == [True]
    # changed below the referenced line: line 2 is still line 2
    assert edits_placed_by_base_lines(ops, Files({"m.py": b"a\nb\n"}), Files({"m.py": b"a\nb\n"}),
                                      _norm) == []


def test_line_numbers_in_the_lines_shared_from_the_top_stay_evidence():
    # the copy was added below the edit: its stated line names the same lines as at the base
    base = Files({"m.py": b"# top\n" + BLOCK.encode()})
    below = Files({"m.py": b"# top\n" + BLOCK.encode() + b"\n" + BLOCK.encode()})
    assert edits_placed_by_base_lines(parse_response(EDIT).ops, below, base, _norm) == []
    # a stated line that is off by one is no longer trusted once the file drifted
    off = parse_response(EDIT.replace("@@ -2,3 +2,3 @@", "@@ -3,3 +3,3 @@")).ops
    assert len(edits_placed_by_base_lines(off, below, base, _norm)) == 1
    hl = parse_response("<FILE_CHANGES>\n<FILE_HASHLINE_PATCH path=\"m.py\">\n"
                        "2#aa:    x\n</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n").ops
    assert edits_placed_by_base_lines(hl, Files({"m.py": b"a\nb\nc\n"}), Files({"m.py": b"a\nb\n"}),
                                      _norm) == []


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 6), st.data(), st.integers(0, 6), st.booleans())
def test_flagged_exactly_when_the_old_side_fits_the_current_file_more_than_once(
        above, data, between, copy):
    """A block written once at the base; since then filler lines and, maybe, a copy of the
    block (with a line of its own, as a copied class has its name) were added somewhere
    above it: the edit is flagged exactly when the copy makes it fit twice."""
    filler = [f"x{i}\n" for i in range(above)]
    at = data.draw(st.integers(0, above))
    mid = [f"y{i}\n" for i in range(between)]
    base = "".join(filler) + BLOCK
    copied = ["# copy\n", BLOCK] if copy else []
    now = "".join(filler[:at] + copied + filler[at:] + mid) + BLOCK + "# end\n"
    ops = parse_response(_diff("m.py", above + 1, " def value(self):\n     total = 0\n"
                                                  "-    return total\n+    return 1\n")).ops
    found = edits_placed_by_base_lines(ops, Files({"m.py": now.encode()}),
                                       Files({"m.py": base.encode()}), _norm)
    assert bool(found) == copy


# --------------------------------------------------------------------------- the command

CLASS = ("class {name}:\n"
         "    def add(self, item):\n"
         "        self.items.append(item)\n"
         "\n"
         "    def value(self):\n"
         "        total = 0\n"
         "        for item in self.items:\n"
         "            total += item\n"
         "        return total\n"
         "\n\n")
HEADER = '"""Inventory."""\n\n\n'
BASE_TEXT = HEADER + CLASS.format(name="Warehouse") + CLASS.format(name="Store")
# a teammate's Depot class (the same methods) above Warehouse, after the answer was written
NOW_TEXT = HEADER + CLASS.format(name="Depot") + CLASS.format(name="Warehouse") + CLASS.format(name="Store")
ROUND = ("Round the warehouse total to cents.\n\n```diff\n--- a/inv.py\n+++ b/inv.py\n"
         "@@ -8,5 +8,5 @@ class Warehouse:\n"
         "     def value(self):\n"
         "         total = 0\n"
         "         for item in self.items:\n"
         "             total += item\n"
         "-        return total\n"
         "+        return round(total, 2)\n"
         "```\n")


def _rounded(text: str, name: str) -> str:
    """``text`` with ``name``'s value() rounded (and no other class changed)."""
    head, cls, rest = text.partition(f"class {name}:\n")
    body, sep, tail = rest.partition("\n\n\n")
    return head + cls + body.replace("return total", "return round(total, 2)") + sep + tail


@pytest.fixture
def f5(repo: GitRepo) -> GitRepo:
    repo.write("inv.py", BASE_TEXT)
    repo.write("other.txt", "other\n")
    repo.commit_all("base")
    repo.base_id = repo.head()
    repo.write("inv.py", NOW_TEXT)
    repo.commit_all("add Depot")
    return repo


@pytest.mark.parametrize("how", ["ai-base", "--base"])
def test_with_3way_an_edit_fitting_twice_goes_through_the_named_base(f5: GitRepo, how):
    answer, args = ROUND, ["-3"]
    if how == "ai-base":
        answer += f"\nAI-Base: {f5.base_id}\n"
    else:
        args += ["--base", f5.base_id[:10]]
    r = f5.run(*args, response=answer)
    assert r.returncode == 0, r.err
    assert f5.git("show", "HEAD:inv.py") == _rounded(NOW_TEXT, "Warehouse")
    assert f"AI-Base: {f5.base_id}" in f5.git("log", "-1", "--format=%B")
    assert f5.git("status", "--porcelain").strip() == ""


def test_without_3way_an_edit_that_needs_the_base_lines_is_refused(f5: GitRepo):
    before = f5.snapshot()
    r = f5.run(response=ROUND + f"\nAI-Base: {f5.base_id}\n")
    assert r.returncode == 1
    assert "ambiguous" in r.err and "-3" in r.err and f5.base_id[:12] in r.err, r.err
    assert "inv.py" in r.err
    assert f5.snapshot() == before


def test_without_a_named_base_the_stated_line_still_chooses(f5: GitRepo):
    # no AI-Base line: today's rule, the fit nearest to the stated line (git apply's)
    r = f5.run(response=ROUND)
    assert r.returncode == 0, r.err
    assert f5.git("show", "HEAD:inv.py") == _rounded(NOW_TEXT, "Depot")


def test_a_base_that_is_head_keeps_the_line_numbers_as_evidence(repo: GitRepo):
    repo.write("inv.py", NOW_TEXT)
    repo.commit_all("base")
    stated = ROUND.replace("@@ -8,5 +8,5 @@", "@@ -19,5 +19,5 @@")  # Warehouse.value now
    r = repo.run(response=stated + f"\nAI-Base: {repo.head()}\n")
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:inv.py") == _rounded(NOW_TEXT, "Warehouse")


def test_a_file_unchanged_since_the_named_base_keeps_its_line_numbers(repo: GitRepo):
    repo.write("inv.py", NOW_TEXT)
    repo.write("other.txt", "other\n")
    repo.commit_all("base")
    base = repo.head()
    repo.write("other.txt", "changed\n")
    repo.commit_all("other changed")
    stated = ROUND.replace("@@ -8,5 +8,5 @@", "@@ -19,5 +19,5 @@")
    r = repo.run(response=stated + f"\nAI-Base: {base}\n")
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:inv.py") == _rounded(NOW_TEXT, "Warehouse")


HELPERS = "".join(f"def helper_{i}(x):\n    if x is None:\n        return None\n    return x + {i}\n\n\n"
                  for i in range(4))


def test_f4_hashline_ids_of_a_drifted_file_go_through_the_named_base(repo: GitRepo):
    repo.write("h.py", HELPERS)
    repo.commit_all("base")
    base = repo.head()
    view = repo.run("show", "h.py").out
    # helper_2's `return None` (line 15 at the base)
    ref = next(l for l in view.splitlines() if l.startswith("15#")).split(":", 1)[0]
    repo.write("h.py", "def helper_neg(x):\n    if x is None:\n        return None\n    return x - 1\n\n\n"
               + HELPERS)
    repo.commit_all("add helper_neg above")  # line 15 is now helper_1's identical line
    answer = (f"Make helper_2 return 2 for a missing value.\n\n<FILE_CHANGES>\n"
              f"<FILE_HASHLINE_PATCH path=\"h.py\">\n{ref}:        return 2\n"
              f"</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n\nAI-Base: {base}\n")
    before = repo.snapshot()
    r = repo.run(response=answer)
    assert r.returncode == 1 and "-3" in r.err and base[:12] in r.err, r.err
    assert repo.snapshot() == before
    r = repo.run("-3", response=answer)
    assert r.returncode == 0, r.err
    text = repo.git("show", "HEAD:h.py")
    assert "        return 2\n    return x + 2\n" in text
    assert text.count("return None") == 4  # helper_neg, 0, 1, 3 untouched


def test_a_copy_added_below_the_edit_keeps_its_line_numbers(repo: GitRepo):
    repo.write("inv.py", BASE_TEXT)
    repo.commit_all("base")
    base = repo.head()
    below = BASE_TEXT + CLASS.format(name="Depot")
    repo.write("inv.py", below)
    repo.commit_all("add Depot below")
    r = repo.run(response=ROUND + f"\nAI-Base: {base}\n")
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:inv.py") == _rounded(below, "Warehouse")


def test_with_3way_a_search_block_fitting_twice_goes_through_the_named_base(repo: GitRepo):
    # the SEARCH text is Store's alone at the base; a copy of Store (Depot) now comes first
    store = CLASS.format(name="Store").replace("total = 0\n", "total = 0.0\n")
    repo.write("inv.py", HEADER + CLASS.format(name="Warehouse") + store)
    repo.commit_all("base")
    base = repo.head()
    now = HEADER + store.replace("Store", "Depot") + CLASS.format(name="Warehouse") + store
    repo.write("inv.py", now)
    repo.commit_all("add Depot")
    answer = ("Round the store total.\n\ninv.py\n```python\n<<<<<<< SEARCH\n"
              "        total = 0.0\n        for item in self.items:\n            total += item\n"
              "        return total\n=======\n        total = 0.0\n        for item in self.items:\n"
              "            total += item\n        return round(total, 2)\n>>>>>>> REPLACE\n```\n"
              f"\nAI-Base: {base}\n")
    before = repo.snapshot()
    r = repo.run(response=answer)
    assert r.returncode == 1 and "ambiguous" in r.err, r.err  # as without a base: two fits
    assert repo.snapshot() == before
    r = repo.run("-3", response=answer)
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:inv.py") == _rounded(now, "Store")
