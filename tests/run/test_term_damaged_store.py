"""term.guarded and the pipeline: a damaged repository (an object missing from the store,
a packed-refs line git cannot read) is `fatal:`, exit 128, nothing changed, through every
front door; never an internal error.  An old commit missing is a boundary, as git treats
it: the run applies."""
from __future__ import annotations

import json

import pytest

from conftest import GitRepo

NEW = "```diff\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n```\n"
EDIT = "```diff\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n```\n"


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("f.txt", "a\nb\nc\n")
    repo.commit_all("init")
    return repo


def _remove_object(repo: GitRepo, rev: str) -> str:
    oid = repo.git("rev-parse", rev).strip()
    (repo.root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    return oid


def test_a_blob_of_head_missing_is_fatal_for_apply_branch_json_and_show(base: GitRepo):
    blob = _remove_object(base, "HEAD:f.txt")
    before, head = base.snapshot(), base.head()
    said = f"fatal: unable to read {blob}"
    r = base.run(response=EDIT)
    assert (r.returncode, r.err.splitlines()[0]) == (128, said), r.err
    r = base.run("--branch", "x", response=EDIT)
    assert (r.returncode, r.err.splitlines()[0]) == (128, said), r.err
    r = base.run("--json", response=EDIT)
    got = json.loads(r.out)
    assert (r.returncode, got["status"], got["error_kind"]) == (128, "fatal", "repository")
    r = base.run("show", "--rev", "HEAD", "f.txt")
    assert (r.returncode, r.err.splitlines()[0]) == (128, said), r.err
    assert "internal error" not in r.err and "git fsck" in r.err
    assert base.snapshot() == before and base.head() == head
    assert base.git("branch", "--list", "x") == ""


def test_an_old_commit_missing_is_a_boundary_and_the_run_applies(base: GitRepo):
    base.git("commit", "-q", "--allow-empty", "-m", "two")
    _remove_object(base, "HEAD~1")
    r = base.run(response=EDIT)
    assert r.returncode == 0, r.err
    assert base.read("f.txt") == b"a\nB\nc\n"


def test_a_bad_packed_refs_line_is_fatal_as_git_and_nothing_is_committed(base: GitRepo):
    base.git("branch", "other")
    base.git("pack-refs", "--all")
    refs = base.root / ".git" / "packed-refs"
    sorted_file = refs.read_bytes()
    # without the sorted trait a ref update reads it whole too (git sorts it first);
    # libgit2 then finds no branch at all, and the update is what stops (a new file:
    # nothing else refuses it first)
    refs.write_bytes(sorted_file.replace(b" sorted", b"", 1) + b"garbage\n")
    before = (refs.read_bytes(), base.git("ls-files", "-s"))  # git reads no ref now
    r = base.run(response=NEW)
    assert r.returncode == 128, r.err
    assert r.err.splitlines()[0] == "fatal: unexpected line in .git/packed-refs: garbage"
    assert (refs.read_bytes(), base.git("ls-files", "-s")) == before
    assert not (base.root / "n.txt").exists() and not (refs.parent / "refs/heads/main").exists()
    refs.write_bytes(sorted_file + b"garbage\n")
    r = base.run(response=EDIT)  # sorted: searched, not read whole; as `git commit` goes on
    assert r.returncode == 0, r.err
