"""`-3` / `--3way`: answers written against an older commit are applied there and merged
into the current files (threeway/drift.py, threeway/repo.py, git/merge.py; BEHAVIOR.md §9).  Pure tests of the
core first, then the real command in real repositories, checked with the git CLI."""
from __future__ import annotations

import json

import pytest

from conftest import GitRepo
from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_FILE, FileState, Plan
from git_aiapply.threeway.drift import (Candidate, MergeResult, base_named_in, conflict_hunks,
    merge_into_current, plan_at_base)

# --------------------------------------------------------------------------- the core


class Files:
    def __init__(self, files: dict[str, bytes]):
        self.files = files

    def entry(self, path):
        return (MODE_FILE, self.files[path]) if path in self.files else None

    def kind(self, path):
        return "file" if path in self.files else None

    def disk_kind(self, path):
        return None


def _norm(raw):
    return normalize_path(raw, worktree="/w")


@pytest.mark.parametrize("text, anywhere, want", [
    ("Done.\n\nAI-Base: 0123abcd\n", False, "0123abcd"),
    ("Done.\n> AI-Base: `0123ABCDEF`\n", False, "0123abcdef"),
    ("Done, see AI-Base: 0123abcd inline\n", False, None),
    ('{"content": "files as of\\nAI-Base: 0123abcd\\n"}', True, "0123abcd"),
    ("AI-Base: not-hex\n", False, None),
    ("AI-Base: 0123\n", False, None),  # too short to name a commit
])
def test_base_named_in(text, anywhere, want):
    assert base_named_in(text, anywhere=anywhere) == want


def test_conflict_hunks_read_both_sides():
    merged = b"a\n<<<<<<< f\nmine\n=======\ntheirs\nmore\n>>>>>>> f\nb\n<<<<<<< f\n=======\nx\n>>>>>>> f\n"
    # lines as the current file numbers them: a, mine, b, then the second region
    assert conflict_hunks(merged) == [(2, ["mine"], ["theirs", "more"]), (4, [], ["x"])]


def _ops(text):
    return parse_response(text).ops


EDIT = "```diff\n--- a/f.txt\n+++ b/f.txt\n@@\n a\n-b\n+B\n c\n```\n"


def test_plan_at_base_takes_the_newest_candidate_that_fits():
    old = Candidate("1" * 40, Files({"f.txt": b"a\nb\nc\n"}))
    newer = Candidate("2" * 40, Files({"f.txt": b"a\nX\nc\n"}))
    cand, plan = plan_at_base(_ops(EDIT), [newer, old], _norm)
    assert cand is old and plan.final["f.txt"].data == b"a\nB\nc\n"
    assert plan_at_base(_ops(EDIT), [newer], _norm) is None


def test_a_searched_base_must_hold_the_edits_lines_exactly():
    # the newer commit fits only loosely (trailing blanks): the answer was written against
    # the older one, where its lines are byte for byte
    loose = Candidate("2" * 40, Files({"f.txt": b"a\nb  \nc\n"}))
    exact = Candidate("1" * 40, Files({"f.txt": b"a\nb\nc\n"}))
    cand, _plan = plan_at_base(_ops(EDIT), [loose, exact], _norm)
    assert cand is exact
    named = Candidate("3" * 40, Files({"f.txt": b"a\nb  \nc\n"}), named=True)
    assert plan_at_base(_ops(EDIT), [named], _norm)[0] is named  # named: placed as usual


def test_a_named_base_that_does_not_fit_is_the_answer():
    named = Candidate("1" * 40, Files({"f.txt": b"nothing\n"}), named=True)
    later = Candidate("2" * 40, Files({"f.txt": b"a\nb\nc\n"}))
    with pytest.raises(ApplyError):
        plan_at_base(_ops(EDIT), [named, later], _norm)


def _at_base(before: bytes, after: bytes) -> Plan:
    return Plan({"f.txt": FileState(MODE_FILE, after)}, {"f.txt": FileState(MODE_FILE, before)})


def test_unchanged_since_the_base_takes_the_planned_result_without_a_merge():
    def merge(*_a):
        raise AssertionError("no merge needed")

    three = merge_into_current(_at_base(b"a\n", b"A\n"), "1" * 40, Files({"f.txt": b"a\n"}),
                               lambda p: p, merge, _norm)
    assert three.plan.final["f.txt"].data == b"A\n" and three.merged == []


def test_changed_on_both_sides_is_merged_or_refused_on_conflict():
    seen = []

    def merge(path, a, o, t):
        seen.append((path, a[1], o[1], t[1]))
        return MergeResult(b"merged\n", True)

    three = merge_into_current(_at_base(b"a\n", b"A\n"), "1" * 40, Files({"g.txt": b"now\n"}),
                               lambda p: "g.txt", merge, _norm)
    assert seen == [("g.txt", b"a\n", b"now\n", b"A\n")]
    assert three.plan.final == {"g.txt": FileState(MODE_FILE, b"merged\n")}
    assert three.merged == ["g.txt"]
    with pytest.raises(ApplyError) as e:
        merge_into_current(_at_base(b"a\n", b"A\n"), "1" * 40, Files({"f.txt": b"now\n"}),
                           lambda p: p, lambda *a: MergeResult(
                               b"<<<<<<< f\nnow\n=======\nA\n>>>>>>> f\n", False), _norm)
    text = e.value.render()
    assert "the file now has:" in text and "    now" in text and "    A" in text
    assert "<<<<<<<" not in text


def test_deleted_since_the_base_and_changed_by_the_answer_is_refused():
    with pytest.raises(ApplyError, match="deleted"):
        merge_into_current(_at_base(b"a\n", b"A\n"), "1" * 40, Files({}), lambda p: p,
                           lambda *a: MergeResult(b"", True), _norm)


# --------------------------------------------------------------------------- the command

SOURCE = "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(1, 9))


def _diff(old: str, new: str, context_above: str) -> str:
    return ("Change it.\n\n```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,6 +1,6 @@\n"
            + "".join(f" {line}\n" for line in context_above.splitlines())
            + f"-{old}\n+{new}\n```\n")


@pytest.fixture
def drifted(repo: GitRepo) -> GitRepo:
    """m.py at the base; then a commit changes f1 (above the answer's edit of f2)."""
    repo.write("m.py", SOURCE)
    repo.write("other.txt", "other\n")
    repo.commit_all("base")
    repo.base_id = repo.head()
    repo.write("m.py", SOURCE.replace("return 1\n", "return 100\n"))
    repo.commit_all("f1 returns 100")
    return repo


ANSWER = _diff("    return 2", "    return 20", "def f1():\n    return 1\n\n\ndef f2():")


def test_without_3way_a_drifted_answer_is_refused(drifted: GitRepo):
    before = drifted.snapshot()
    r = drifted.run(response=ANSWER)
    assert r.returncode == 1 and "could not find" in r.err
    assert drifted.snapshot() == before


@pytest.mark.parametrize("how", ["search", "ai-base", "--base", "config"])
def test_drifted_answer_is_merged(drifted: GitRepo, how):
    answer, args = ANSWER, ["-3", "--json"]
    if how == "ai-base":
        answer += f"\nAI-Base: {drifted.base_id}\n"
    elif how == "--base":
        args += ["--base", drifted.base_id[:10]]
    elif how == "config":
        drifted.git("config", "aiapply.threeWay", "true")
        args = ["--json"]
    r = drifted.run(*args, response=answer)
    assert r.returncode == 0, r.err
    out = json.loads(r.out)
    assert out["status"] == "applied"
    assert out["files"] == [{"path": "m.py", "action": "update", "old_path": None, "added": 1,
                             "removed": 1, "merged_from": drifted.base_id}]
    want = SOURCE.replace("return 1\n", "return 100\n").replace("return 2\n", "return 20\n")
    assert drifted.read("m.py") == want.encode()
    assert drifted.git("show", "HEAD:m.py") == want
    body = drifted.git("log", "-1", "--format=%B")
    assert f"AI-Base: {drifted.base_id}" in body
    assert drifted.git("status", "--porcelain").strip() == ""
    assert drifted.git("diff", "HEAD~1", "--stat").count("|") == 1


def test_edits_below_and_around_the_change_since_merge(repo: GitRepo):
    repo.write("m.py", SOURCE)
    repo.commit_all("base")
    # since the base: a line above the edit's context, and one below it
    moved = SOURCE.replace("return 3\n", "return 300\n").replace("return 8\n", "return 800\n")
    repo.write("m.py", "# header\n" + moved)
    repo.commit_all("moved")
    answer = ("Change f5 and f6.\n\n```diff\n--- a/m.py\n+++ b/m.py\n@@ -9,12 +9,12 @@\n"
              " def f3():\n     return 3\n \n \n def f4():\n     return 4\n \n \n def f5():\n"
              "-    return 5\n+    return 50\n \n \n def f6():\n-    return 6\n+    return 60\n"
              " \n \n def f7():\n     return 7\n```\n")
    r = repo.run("-3", response=answer)
    assert r.returncode == 0, r.err
    want = "# header\n" + moved.replace("return 5\n", "return 50\n").replace("return 6\n", "return 60\n")
    assert repo.git("show", "HEAD:m.py") == want


def test_a_true_conflict_refuses_the_whole_response_and_shows_both_sides(drifted: GitRepo):
    answer = _diff("    return 1", "    return 11", "def f1():")
    answer = answer.replace("@@ -1,6 +1,6 @@", "@@ -1,2 +1,2 @@")
    other = ("\n```diff\n--- a/other.txt\n+++ b/other.txt\n@@ -1 +1 @@\n-other\n+OTHER\n```\n")
    before = drifted.snapshot()
    r = drifted.run("-3", "--json", response=answer + other)
    assert r.returncode == 1
    out = json.loads(r.out)
    assert out["status"] == "refused" and out["fault"] == "response"
    text = out["error_text"]
    assert "conflict" in text and "return 100" in text and "return 11" in text
    assert "<<<<<<<" not in text
    assert drifted.snapshot() == before  # other.txt, which merged cleanly, is not written either


def test_a_file_renamed_since_the_base_takes_the_edit_at_its_new_path(drifted: GitRepo):
    drifted.git("mv", "m.py", "lib.py")
    drifted.git("commit", "-qm", "rename")
    r = drifted.run("-3", "--json", response=ANSWER)
    assert r.returncode == 0, r.err
    out = json.loads(r.out)
    assert [f["path"] for f in out["files"]] == ["lib.py"]
    assert "return 20\n" in drifted.git("show", "HEAD:lib.py")
    assert drifted.git("ls-tree", "--name-only", "HEAD").split() == ["lib.py", "other.txt"]


def test_stale_hashline_ids_are_located_through_the_base(drifted: GitRepo):
    view = drifted.run("show", "m.py", "--rev", drifted.base_id).out
    line5 = next(l for l in view.splitlines() if l.startswith("6#"))  # "    return 2"
    ref = line5.split(":", 1)[0]
    answer = (f"Return 20.\n\n<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path=\"m.py\">\n"
              f"{ref}:    return 20\n</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n")
    # the ids still match: the line is unchanged; make it stale by moving everything down
    drifted.write("m.py", "# moved\n" + drifted.read("m.py").decode())
    drifted.commit_all("moved down")
    assert drifted.run(response=answer).returncode == 1
    r = drifted.run("-3", response=answer)
    assert r.returncode == 0, r.err
    text = drifted.git("show", "HEAD:m.py")
    assert text.startswith("# moved\n") and "return 20\n" in text and "return 100\n" in text


def test_ai_base_in_the_user_turn_of_a_conversation(drifted: GitRepo):
    conversation = {"model": "m", "messages": [
        {"role": "user", "content": f"Files as of\nAI-Base: {drifted.base_id}\nChange f2."},
        {"role": "assistant", "content": ANSWER}]}
    # the search would find the base too; a wrong depth proves the line was used
    drifted.git("config", "aiapply.threeWayDepth", "1")
    drifted.write("z.txt", "z\n")
    drifted.commit_all("unrelated")
    r = drifted.run("-3", "--json", response=json.dumps(conversation))
    assert r.returncode == 0, r.err
    assert json.loads(r.out)["files"][0]["merged_from"] == drifted.base_id


def test_check_with_3way_writes_nothing(drifted: GitRepo):
    before = drifted.snapshot()
    r = drifted.run("-3", "--check", response=ANSWER)
    assert r.returncode == 0, r.err
    assert drifted.snapshot() == before


def test_prompt_and_show_print_the_base_line(drifted: GitRepo):
    head = drifted.head()
    assert drifted.run("prompt", "unified-diff", "--base").out.rstrip().endswith(f"AI-Base: {head}")
    assert drifted.run("show", "m.py", "--base").out.rstrip().endswith(f"AI-Base: {head}")


def test_the_library_merges_a_drifted_answer_too(drifted: GitRepo):
    import git_aiapply

    refused = git_aiapply.apply(ANSWER, repo=str(drifted.root), check=True)
    assert refused.status == "refused"
    result = git_aiapply.apply(ANSWER, repo=str(drifted.root), check=True, three_way=True,
                               base=drifted.base_id)
    assert result.status == "would-apply", result.error_text
    assert result.files[0].merged_from == drifted.base_id
    with pytest.raises(git_aiapply.InvalidOptions):
        git_aiapply.apply(ANSWER, repo=str(drifted.root), base="HEAD", three_way=False)


def _renamed_at_base() -> Plan:
    """f.txt moved to g.txt and edited, at the base."""
    return Plan({"f.txt": None, "g.txt": FileState(MODE_FILE, b"A\n")},
                {"f.txt": FileState(MODE_FILE, b"a\n"), "g.txt": None}, [("f.txt", "g.txt")])


@pytest.mark.parametrize("now, want", [
    ({}, "since then commit 1234 (drop f) deleted it, and the answer moves it away"),
    ({"f.txt": b"a\n", "g.txt": b"mine\n"},
     "since then the file was added, and the answer moves f.txt onto it"),
])
def test_a_rename_whose_source_or_destination_changed_since_is_a_conflict(now, want):
    with pytest.raises(ApplyError) as e:
        merge_into_current(_renamed_at_base(), "1" * 40, Files({k: v for k, v in now.items()}),
                           lambda p: p, lambda *a: MergeResult(b"", True), _norm,
                           removed_by=lambda p: "commit 1234 (drop f)")
    assert want in e.value.render()
    assert len(e.value.problems) == 1  # the rename's source and destination: one conflict


class _Submodule(Files):
    """The current files: a submodule where the base's f.txt was."""

    def entry(self, path):
        return None

    def kind(self, path):
        return "submodule" if path == "f.txt" else None


def test_what_stands_where_a_file_was_is_said_apart_from_the_commit_that_took_it():
    # the commit named took the file; a submodule there may have come later (review)
    with pytest.raises(ApplyError) as e:
        merge_into_current(_renamed_at_base(), "1" * 40, _Submodule({}), lambda p: p,
                           lambda *a: MergeResult(b"", True), _norm,
                           removed_by=lambda p: "commit 1234 (rm)")
    text = e.value.render()
    assert "commit 1234 (rm) took the file away and a submodule stands there now" in text
    assert "replaced" not in text
