"""`git ai-apply undo`: takes back the tool's own last commit when that is safe, refuses
clearly (nothing changed) otherwise."""
from __future__ import annotations

import json
import os

import subprocess

import pytest

from conftest import GitRepo

RESPONSE = """Rework the files.

*** Begin Patch
*** Update File: src/b.txt
@@
 alpha
-beta
+BETA
*** Add File: src/new.txt
+brand new
*** Delete File: gone.txt
*** Update File: run.sh
*** Move to: bin/run.sh
@@
-echo hi
+echo hello
*** End Patch
"""


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.write("gone.txt", "to be deleted\n")
    repo.write("run.sh", "echo hi\n", mode=0o755)
    repo.write("other.txt", "other\n")
    repo.commit_all("base")
    return repo


@pytest.fixture
def applied(based: GitRepo) -> GitRepo:
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    based.settle()
    return based


def test_undo_restores_branch_files_and_index(applied: GitRepo):
    repo = applied
    undone = repo.head()
    base = repo.git("rev-parse", "HEAD~1").strip()
    base_tree = repo.tree(base)
    r = repo.run("undo")
    assert r.returncode == 0, r.err
    assert repo.head() == base
    assert repo.tree("HEAD") == base_tree
    assert repo.git("status", "--porcelain", "-uall") == ""
    assert repo.read("src/b.txt") == b"alpha\nbeta\n"
    assert repo.read("gone.txt") == b"to be deleted\n"
    assert os.stat(repo.root / "run.sh").st_mode & 0o111
    assert not (repo.root / "src" / "new.txt").exists()
    assert not (repo.root / "bin").exists()  # the folder the commit made is gone too
    assert repo.git("rev-parse", "ORIG_HEAD").strip() == undone
    assert repo.git("reflog", "-1", "--format=%gs", "main").strip() == "ai-apply undo: Rework the files"
    assert f"undid {undone[:7]} Rework the files; main is now at {base[:7]}" in r.out
    assert " restore gone.txt" in r.out and " remove src/new.txt" in r.out and " revert src/b.txt" in r.out
    # redo is git's own: reset to ORIG_HEAD
    repo.git("reset", "-q", "--hard", "ORIG_HEAD")
    assert repo.head() == undone


def test_undo_keeps_unrelated_staged_and_unstaged_changes(applied: GitRepo):
    repo = applied
    repo.write("other.txt", "staged\n")
    repo.git("add", "other.txt")
    repo.write("other.txt", "staged\nand unstaged\n")
    repo.write("untracked.txt", "mine\n")
    assert repo.run("undo").returncode == 0
    assert repo.git("show", ":other.txt") == "staged\n"
    assert repo.read("other.txt") == b"staged\nand unstaged\n"
    assert repo.read("untracked.txt") == b"mine\n"
    assert repo.git("status", "--porcelain") == "MM other.txt\n?? untracked.txt\n"


@pytest.mark.parametrize("change,why", [
    (lambda r: r.write("src/b.txt", "alpha\nBETA\nlocal edit\n"), "src/b.txt has unstaged changes"),
    (lambda r: (r.write("src/new.txt", "edited\n"), r.git("add", "src/new.txt")), "src/new.txt has staged changes"),
    (lambda r: r.write("gone.txt", "came back\n"), "gone.txt is in the worktree again (untracked)"),
    (lambda r: os.unlink(r.root / "bin" / "run.sh"), "bin/run.sh was deleted in the worktree"),
])
def test_undo_refuses_when_touched_files_changed(applied: GitRepo, change, why):
    repo = applied
    change(repo)
    before = repo.snapshot()
    r = repo.run("undo")
    assert r.returncode == 1
    assert "error: undo refused; nothing was changed." in r.err
    assert why in r.err
    assert "undo only restores files that are exactly as git ai-apply left them" in r.err
    assert repo.snapshot() == before


def test_undo_refuses_commits_it_did_not_make(based: GitRepo):
    based.settle()
    before = based.snapshot()
    r = based.run("undo")
    assert r.returncode == 1
    assert "HEAD" in r.err and "('base') was not made by git ai-apply" in r.err
    assert "git revert" in r.err
    assert based.snapshot() == before
    # and an undo does not make the commit before it "ours"
    assert based.run(response=RESPONSE).returncode == 0
    assert based.run("undo").returncode == 0
    assert based.run("undo").returncode == 1


def test_undo_refuses_pushed_commits_without_force(applied: GitRepo):
    repo = applied
    repo.git("update-ref", "refs/remotes/origin/main", "HEAD")
    before = repo.snapshot()
    r = repo.run("undo")
    assert r.returncode == 1
    assert "is already in origin/main" in r.err and "--force" in r.err
    assert repo.snapshot() == before
    r = repo.run("undo", "--force")
    assert r.returncode == 0, r.err
    assert repo.read("src/b.txt") == b"alpha\nbeta\n"


def test_undo_recognises_commits_without_trailers_by_the_reflog(based: GitRepo):
    assert based.run("--no-trailers", response=RESPONSE).returncode == 0
    assert "AI-Response" not in based.message()
    r = based.run("undo")
    assert r.returncode == 0, r.err
    assert based.git("log", "-1", "--format=%s").strip() == "base"


def test_undo_of_a_root_commit_leaves_the_branch_unborn(repo: GitRepo):
    r = repo.run(response="""Start.

<FILE_CHANGES>
<FILE_NEW file_path="hello.txt">
hello
</FILE_NEW>
</FILE_CHANGES>
""")
    assert r.returncode == 0, r.err
    r = repo.run("undo")
    assert r.returncode == 0, r.err
    assert "main is now at no commit (unborn)" in r.out
    assert repo.git("rev-parse", "-q", "--verify", "HEAD", check=False).strip() == ""
    assert repo.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert not (repo.root / "hello.txt").exists()
    assert repo.git("ls-files") == ""


def test_undo_json(applied: GitRepo):
    repo = applied
    undone = repo.head()
    out = json.loads(repo.run("undo", "--json").out)
    assert out["status"] == "undone" and out["exit_code"] == 0
    assert out["undone"] == undone and out["head"] == repo.head() and out["branch"] == "main"
    assert {f["path"]: f["action"] for f in out["files"]} == {
        "src/b.txt": "revert", "src/new.txt": "remove", "gone.txt": "restore",
        "run.sh": "restore", "bin/run.sh": "remove"}
    r = repo.run("undo", "--json")
    assert r.returncode == 1
    out = json.loads(r.out)
    assert out["status"] == "refused" and "was not made by git ai-apply" in out["errors"][0]["reason"]


def test_undo_while_index_is_locked(applied: GitRepo):
    repo = applied
    (repo.root / ".git" / "index.lock").write_text("")
    r = repo.run("undo")
    assert r.returncode == 128
    assert "fatal:" in r.err and "index.lock exists" in r.err
    os.unlink(repo.root / ".git" / "index.lock")
    assert repo.git("log", "-1", "--format=%s").strip() == "Rework the files"


# --------------------------------------------------------------------------- only the tool's own commit, as made


def test_undo_refuses_an_amended_commit_and_keeps_the_users_file(applied: GitRepo):
    """Regression: undo took back a commit the user had amended (adding a file of
    theirs) and deleted that file."""
    repo = applied
    repo.write("mine.txt", "my own work\n")
    repo.git("add", "mine.txt")
    repo.git("commit", "-q", "--amend", "--no-edit")
    assert "AI-Response" in repo.message()  # the trailer survived the amend
    repo.settle()
    before = repo.snapshot()
    r = repo.run("undo")
    assert r.returncode == 1
    assert "amended" in r.err and "commit (amend)" in r.err
    assert repo.snapshot() == before
    assert repo.read("mine.txt") == b"my own work\n"


def test_undo_refuses_once_the_commit_was_rewritten(applied: GitRepo):
    repo = applied
    repo.git("commit", "-q", "--amend", "-m", "reworded\n\nAI-Response: 0123456789abcdef")
    repo.settle()
    before = repo.snapshot()
    r = repo.run("undo")
    assert r.returncode == 1, r.out
    assert "undo only takes back" in r.err
    assert repo.snapshot() == before


def _recommit_the_same(r: GitRepo) -> None:
    date = r.git("log", "-1", "--format=%cI").strip()
    r.git("reset", "-q", "--soft", "HEAD~1")
    subprocess.run(["git", "commit", "-q", "-C", "ORIG_HEAD"], cwd=r.root, check=True,
                   env={**r.env, "GIT_COMMITTER_DATE": date})


@pytest.mark.parametrize("back", [
    # the same commit made again, byte for byte (its committer date given again)
    lambda r: _recommit_the_same(r),
    lambda r: (r.git("tag", "ai"), r.git("update-ref", "-m", "away", "HEAD", "HEAD~1"),
               r.git("update-ref", "-m", "and back", "HEAD", "ai")),
    # issue 35: a commit of one's own, then `git reset --hard` back onto the tool's
    lambda r: (r.git("commit", "-q", "--allow-empty", "-m", "mine"), r.git("reset", "-q", "--hard", "HEAD~1")),
])
def test_undo_takes_back_the_tools_commit_however_head_came_back_to_it(applied: GitRepo, back):
    # the commit at HEAD is the one the tool made (its id says it is unchanged): undo
    # works whatever moved the branch in between (BEHAVIOR.md, issue 35 item 3)
    repo = applied
    made = repo.head()
    parent = repo.git("rev-parse", "HEAD~1").strip()
    back(repo)
    repo.settle()
    assert repo.head() == made
    r = repo.run("undo")
    assert r.returncode == 0, r.err
    assert repo.head() == parent and repo.git("status", "--porcelain") == ""


def test_undo_refuses_a_commit_written_into_the_ref_without_a_reflog_entry(applied: GitRepo):
    repo = applied
    tree = repo.git("rev-parse", "HEAD^{tree}").strip()
    other = repo.git("commit-tree", "-p", "HEAD", "-m", "x\n\nAI-Response: 0123456789abcdef", tree).strip()
    (repo.root / ".git" / "refs" / "heads" / "main").write_text(other + "\n")
    before = repo.snapshot()
    r = repo.run("undo")
    assert r.returncode == 1
    assert "moved without a reflog entry" in r.err
    assert repo.snapshot() == before


def test_undo_without_reflogs_refuses_clearly(based: GitRepo):
    based.git("config", "core.logAllRefUpdates", "false")
    assert based.run(response=RESPONSE).returncode == 0
    based.settle()
    before = based.snapshot()
    r = based.run("undo")
    assert r.returncode == 1
    assert "no reflog" in r.err
    assert based.snapshot() == before


def test_undo_of_a_fast_forward_pick_goes_back_to_where_head_was(based: GitRepo, tmp_path):
    head = based.head()
    r1 = tmp_path / "r1.md"
    r1.write_text("One.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"src/b.txt\">\n@@\n-alpha\n+ALPHA\n"
                  "</FILE_PATCH>\n</FILE_CHANGES>\n")
    r2 = tmp_path / "r2.md"
    r2.write_text("Two.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"two.txt\">\n2\n</FILE_NEW>\n"
                  "</FILE_CHANGES>\n")
    assert based.run("--branch", "try/1", str(r1)).returncode == 0
    assert based.run("--branch", "try/1", str(r2)).returncode == 0
    r = based.run("pick", "try/1")
    assert r.returncode == 0, r.err
    assert based.git("rev-parse", "HEAD~2").strip() == head
    based.settle()
    r = based.run("undo")
    assert r.returncode == 0, r.err
    assert based.head() == head  # both of the attempt's commits, as pick brought them
    assert based.git("status", "--porcelain", "-uall") == ""
    assert based.read("src/b.txt") == b"alpha\nbeta\n"
    assert not (based.root / "two.txt").exists()


# --------------------------------------------------------------------------- undo's own words


def test_undo_refusals_speak_of_undo_in_text_and_json(based: GitRepo):
    """An undo refusal says undo was refused (there is no response to refuse), in the text
    and in --json, whose object has docs/JSON.md's refusal fields."""
    based.settle()
    before = based.snapshot()
    r = based.run("undo")
    assert r.returncode == 1
    assert r.err.splitlines()[0] == "error: undo refused; nothing was changed."
    assert "response" not in r.err
    r = based.run("undo", "--json")
    assert r.returncode == 1 and r.err == ""
    out = json.loads(r.out)
    assert out["status"] == "refused" and out["exit_code"] == 1
    assert out["error_kind"] == "refused"
    assert [e["reason"] for e in out["errors"]] == [out["error_text"].split("\n")[0]]
    assert out["errors"][0]["hint"] and out["errors"][0]["hint"] in out["error_text"]
    assert based.snapshot() == before


def test_undo_json_when_the_repository_stops_it(applied: GitRepo):
    """A held index.lock: exit 128, `fatal:` on standard error, and the object has the
    status `fatal` that docs/JSON.md gives a fatal run, with its reason in errors[0]."""
    repo = applied
    (repo.root / ".git" / "index.lock").write_text("")
    before = repo.snapshot()
    r = repo.run("undo", "--json")
    assert r.returncode == 128
    assert r.err.startswith("fatal: ") and "index.lock" in r.err
    out = json.loads(r.out)
    assert out["status"] == "fatal" and out["exit_code"] == 128
    assert out["error_kind"] == "lock" and out["fault"] == "repository"
    assert "index.lock" in out["errors"][0]["reason"]
    assert out["error_text"] == r.err[len("fatal: "):].rstrip("\n")
    assert repo.snapshot() == before


# --------------------------------------------------------------------------- the history


def _patch(path: str, old: str, new: str, why: str) -> str:
    return (f"{why}\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{path}\">\n@@\n-{old}\n+{new}\n"
            "</FILE_PATCH>\n</FILE_CHANGES>\n")


def _log(repo: GitRepo) -> list[str]:
    return repo.git("log", "--format=%s").splitlines()


def test_undo_again_walks_back_the_tools_commits_one_by_one(based: GitRepo):
    base = based.head()
    for old, new in (("alpha", "one"), ("beta", "two")):
        assert based.run(response=_patch("src/b.txt", old, new, f"Make {new}.")).returncode == 0
    first = based.git("rev-parse", "HEAD~1").strip()
    r = based.run("undo")
    assert r.returncode == 0, r.err
    assert based.head() == first and based.read("src/b.txt") == b"one\nbeta\n"
    r = based.run("undo")
    assert r.returncode == 0, r.err
    assert based.head() == base and based.read("src/b.txt") == b"alpha\nbeta\n"
    assert based.git("status", "--porcelain").strip() == ""
    before = based.snapshot()
    r = based.run("undo")  # the base commit is the user's: nothing more to take back
    assert r.returncode == 1 and "was not made by git ai-apply" in r.err
    assert based.snapshot() == before


def test_undo_names_the_commit_in_the_way(based: GitRepo):
    assert based.run(response=_patch("src/b.txt", "alpha", "one", "Make one.")).returncode == 0
    tool = based.head()
    based.write("other.txt", "mine\n")
    based.git("commit", "-qam", "my own work")
    before = based.snapshot()
    r = based.run("undo")
    assert r.returncode == 1
    assert "'commit: my own work'" in r.err and tool[:7] in r.err and "Make one" in r.err
    assert based.snapshot() == before and based.read("other.txt") == b"mine\n"


def test_undo_batch_takes_back_every_commit_of_the_last_run(based: GitRepo, tmp_path):
    assert based.run(response=_patch("other.txt", "other", "OTHER", "Earlier run.")).returncode == 0
    earlier = based.head()
    files = []
    for k, (old, new) in enumerate((("alpha", "one"), ("beta", "two"))):
        p = tmp_path / f"r{k}.md"
        p.write_text(_patch("src/b.txt", old, new, f"Make {new}."))
        files.append(str(p))
    assert based.run(*files).returncode == 0
    assert _log(based)[:3] == ["Make two", "Make one", "Earlier run"]
    r = based.run("undo", "--batch", "--json")
    assert r.returncode == 0, r.err
    done = json.loads(r.out)
    assert len(done["commits"]) == 2 and done["head"] == earlier
    assert based.head() == earlier and based.read("src/b.txt") == b"alpha\nbeta\n"
    assert based.read("other.txt") == b"OTHER\n"
    assert based.git("status", "--porcelain").strip() == ""
    # the earlier run was one response: --batch takes back just that commit
    r = based.run("undo", "--batch")
    assert r.returncode == 0, r.err
    assert based.read("other.txt") == b"other\n" and _log(based)[0] == "base"


def test_undo_batch_refuses_when_a_file_of_the_run_changed(based: GitRepo, tmp_path):
    files = []
    for k, (path, old, new) in enumerate((("src/b.txt", "alpha", "one"), ("other.txt", "other", "x"))):
        p = tmp_path / f"r{k}.md"
        p.write_text(_patch(path, old, new, f"Step {k}."))
        files.append(str(p))
    assert based.run(*files).returncode == 0
    based.write("src/b.txt", "edited by hand\n")
    before = based.snapshot()
    r = based.run("undo", "--batch")
    assert r.returncode == 1 and "src/b.txt" in r.err
    assert based.snapshot() == before


def test_when_every_tool_commit_was_undone_the_refusal_names_none_of_them(based: GitRepo):
    for old, new in (("alpha", "one"), ("beta", "two")):
        assert based.run(response=_patch("src/b.txt", old, new, f"Make {new}.")).returncode == 0
    taken = [based.head()]
    assert based.run("undo").returncode == 0
    taken.append(based.head())
    assert based.run("undo").returncode == 0
    r = based.run("undo")
    assert r.returncode == 1 and "was not made by git ai-apply" in r.err
    assert not any(c[:7] in r.err for c in taken), r.err  # both were taken back already
