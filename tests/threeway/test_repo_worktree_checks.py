"""`-3`'s merged result goes through the planner's checks, as any answer (issue 33 item 2,
BEHAVIOR.md §5-§7, §9): a file of the answer's base deleted, moved or replaced since is a
conflict naming the commit that took it, never an unlink of what stands at its path now
(an untracked file, a submodule's files and its link); an untracked file, a submodule, a
folder, a link in the way refuses the response, with nothing changed; a mode changed since
is kept.  `--check -3` writes no object.  The real command in real repositories, checked
with the git CLI; the library's check(three_way=True) too."""
from __future__ import annotations

import os
import subprocess

import pytest

from conftest import GitRepo

APP = "".join(f"{n}\n" for n in range(1, 11))
# the answer's edit of app.txt: its context (line 6) changed since the base, so it only
# fits there, and merges cleanly into the current file
APP_HUNK = ("diff --git a/app.txt b/app.txt\n--- a/app.txt\n+++ b/app.txt\n@@ -5,6 +5,6 @@\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n")


def _answer(base: str, *sections: str) -> str:
    return (f"AI-Base: {base}\n\nChange eight.\n\n```diff\n" + "".join(sections) + APP_HUNK
            + "```\n")


DELETE_NOTES = ("diff --git a/notes.txt b/notes.txt\ndeleted file mode 100644\n--- a/notes.txt\n"
                "+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n")
RENAME_NOTES = "diff --git a/notes.txt b/other.txt\nrename from notes.txt\nrename to other.txt\n"
EDIT_NOTES = "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    """The answer's base: app.txt, notes.txt, lib/a.txt, d.txt; then app.txt's line 6
    changes (every answer below needs -3)."""
    repo.write("app.txt", APP)
    repo.write("notes.txt", "one\ntwo\n")
    repo.write("lib/a.txt", "x\ny\n")
    repo.write("d.txt", "d\n")
    repo.base_id = repo.commit_all("base")
    repo.write("app.txt", APP.replace("6\n", "six\n"))
    return repo


def _refused(repo: GitRepo, answer: str, *args: str) -> str:
    repo.settle()
    before = repo.snapshot()
    r = repo.run("-3", *args, response=answer)
    assert r.returncode == 1, r.out + r.err
    assert "nothing was changed" in r.err
    assert repo.snapshot() == before
    return r.err


@pytest.mark.parametrize("section, does", [(RENAME_NOTES, "moves it away"),
                                           (DELETE_NOTES, "deletes it"),
                                           (EDIT_NOTES, "changes it")])
def test_a_file_deleted_since_is_a_conflict_and_the_untracked_file_there_stays(based, section,
                                                                               does):
    based.git("rm", "-q", "notes.txt")
    gone = based.commit_all("drop notes")
    based.write("notes.txt", "my own notes\n")  # untracked, where the base had notes.txt
    err = _refused(based, _answer(based.base_id, section))
    assert f"commit {gone[:12]} (drop notes) deleted it, and the answer {does}" in err
    assert based.read("notes.txt") == b"my own notes\n"
    assert based.git("status", "--porcelain", "--", "notes.txt") == "?? notes.txt\n"
    assert based.head() == gone


def test_a_file_renamed_since_and_deleted_by_the_answer_is_a_conflict(based):
    based.git("mv", "notes.txt", "kept.txt")
    moved = based.commit_all("keep notes")
    err = _refused(based, _answer(based.base_id, DELETE_NOTES))
    assert f"commit {moved[:12]} (keep notes) renamed it to kept.txt" in err
    assert based.git("show", "HEAD:kept.txt") == "one\ntwo\n"


RENAME_APP = ("diff --git a/app.txt b/lib/app2.txt\nrename from app.txt\nrename to lib/app2.txt\n"
              "--- a/app.txt\n+++ b/lib/app2.txt\n@@ -5,6 +5,6 @@\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n")


def test_a_rename_of_a_file_changed_since_moves_it_and_merges_its_content(based):
    based.commit_all("six")
    r = based.run("-3", response=f"AI-Base: {based.base_id}\n\nMove app.\n\n```diff\n"
                                 f"{RENAME_APP}```\n")
    assert r.returncode == 0, r.err
    assert "R" in based.git("diff", "-M", "--name-status", "HEAD~1", "HEAD").split()[0]
    assert based.git("show", "HEAD:lib/app2.txt") == APP.replace("6\n", "six\n").replace("8\n", "eight\n")
    assert based.git("status", "--porcelain") == ""


def test_a_rename_onto_an_untracked_file_is_refused(based):
    based.commit_all("six")
    based.write("lib/app2.txt", "mine\n")
    err = _refused(based, f"AI-Base: {based.base_id}\n\nMove app.\n\n```diff\n{RENAME_APP}```\n")
    assert "lib/app2.txt exists but is not tracked by git" in err
    assert based.read("lib/app2.txt") == b"mine\n"


def test_a_file_marked_not_to_merge_is_a_conflict_as_git_apply_3_makes_it(based):
    based.write(".gitattributes", "app.txt -merge\n")
    based.commit_all("six, app.txt is never merged")
    err = _refused(based, _answer(based.base_id))
    assert "app.txt: " in err and "`-merge` in .gitattributes" in err


@pytest.fixture
def submodule(based: GitRepo, tmp_path) -> GitRepo:
    """lib/ became a submodule since the base (its a.txt is the submodule's own file)."""
    sub = tmp_path / "sub"
    subprocess.run(["git", "init", "-q", str(sub)], env=based.env, check=True)
    (sub / "a.txt").write_text("x\ny\n")
    for args in (["add", "a.txt"], ["commit", "-qm", "sub"]):
        subprocess.run(["git", *args], cwd=sub, env=based.env, check=True)
    based.git("rm", "-rq", "lib")
    based.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "lib")
    based.submodule_commit = based.commit_all("lib is a submodule")
    return based


@pytest.mark.parametrize("section", [
    "diff --git a/lib/a.txt b/lib/a.txt\ndeleted file mode 100644\n--- a/lib/a.txt\n"
    "+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n",
    "diff --git a/lib/new.txt b/lib/new.txt\nnew file mode 100644\n--- /dev/null\n"
    "+++ b/lib/new.txt\n@@ -0,0 +1 @@\n+new\n",
], ids=["delete", "add"])
def test_a_folder_that_became_a_submodule_keeps_its_link_and_its_files(submodule, section):
    link = submodule.git("ls-files", "-s", "lib")
    err = _refused(submodule, _answer(submodule.base_id, section))
    assert "submodule" in err
    assert submodule.git("ls-files", "-s", "lib") == link and link.startswith("160000 ")
    assert submodule.read("lib/a.txt") == b"x\ny\n"
    assert submodule.git("status", "--porcelain") == ""
    assert submodule.head() == submodule.submodule_commit


def test_what_stands_in_the_way_refuses_the_merged_result(based):
    """An untracked file where the answer adds one; a link where the base had d.txt; a
    file where the answer (fitting its base) needs a folder."""
    based.commit_all("six")
    based.write("new.txt", "mine\n")
    add_new = ("diff --git a/new.txt b/new.txt\nnew file mode 100644\n--- /dev/null\n"
               "+++ b/new.txt\n@@ -0,0 +1 @@\n+theirs\n")
    assert "never overwrites an untracked file" in _refused(based, _answer(based.base_id, add_new))
    assert based.read("new.txt") == b"mine\n"
    os.remove(based.root / "new.txt")
    os.remove(based.root / "d.txt")
    os.symlink("app.txt", based.root / "d.txt")
    based.write("docs", "a file now\n")
    based.commit_all("d.txt is a link, docs a file")
    edit_d = "diff --git a/d.txt b/d.txt\n--- a/d.txt\n+++ b/d.txt\n@@ -1 +1 @@\n-d\n+D\n"
    under_docs = ("diff --git a/docs/x b/docs/x\nnew file mode 100644\n--- /dev/null\n"
                  "+++ b/docs/x\n@@ -0,0 +1 @@\n+x\n")
    err = _refused(based, _answer(based.base_id, edit_d))
    assert "d.txt: " in err and "is a symbolic link now" in err
    assert "docs is a file" in _refused(based, _answer(based.base_id, under_docs))
    assert os.readlink(based.root / "d.txt") == "app.txt"


def test_a_mode_changed_since_is_kept_and_check_writes_no_object(based):
    os.chmod(based.root / "app.txt", 0o755)
    based.commit_all("app is executable")
    objects = based.git("count-objects", "-v")
    before = sorted(str(p) for p in (based.root / ".git" / "objects").rglob("*") if p.is_file())
    answer = _answer(based.base_id)
    r = based.run("-3", "--check", response=answer)
    assert r.returncode == 0, r.err
    assert based.git("count-objects", "-v") == objects
    assert sorted(str(p) for p in (based.root / ".git" / "objects").rglob("*")
                  if p.is_file()) == before
    r = based.run("-3", response=answer)
    assert r.returncode == 0, r.err
    assert based.git("ls-files", "-s", "app.txt").startswith("100755 ")
    assert based.git("show", "HEAD:app.txt") == APP.replace("6\n", "six\n").replace("8\n", "eight\n")


def test_the_library_check_with_three_way_refuses_alike(based):
    import git_aiapply

    based.git("rm", "-q", "notes.txt")
    based.commit_all("drop notes")
    based.write("notes.txt", "my own notes\n")
    based.settle()
    before = based.snapshot()
    result = git_aiapply.check(_answer(based.base_id, RENAME_NOTES), repo=str(based.root),
                               three_way=True)
    assert result.status == "refused" and "drop notes" in result.error_text
    assert based.snapshot() == before


def test_check_works_with_a_read_only_object_store(based):
    """As `git apply --check` does: nothing to write, so nothing fails (root and a working
    `mount` needed for a store root cannot write either; skipped with the reason otherwise)."""
    if os.geteuid() != 0:
        pytest.skip("a read-only bind mount needs root")
    based.commit_all("six")
    objects = str(based.root / ".git" / "objects")

    def mount(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["mount", *args], capture_output=True, text=True)

    if mount("--bind", objects, objects).returncode != 0:
        pytest.skip("cannot bind-mount the object store")
    try:
        if mount("-o", "remount,bind,ro", objects).returncode != 0:
            pytest.skip("cannot make a bind mount read-only")
        r = based.run("-3", "--check", "--json", response=_answer(based.base_id))
    finally:
        subprocess.run(["umount", objects], capture_output=True)
    assert r.returncode == 0, r.out + r.err
    assert '"merged_from": "' + based.base_id in r.out
