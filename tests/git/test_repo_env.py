"""The git edge, second pass (issue 24): every variable git honours, repositories git
refuses or cannot share with us, partial clones, attributes git applies, options as git
reads them.  Each test runs the real command against a real repository and checks the
result with the git CLI."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import GitRepo, LOUDER_BETA


def beta_repo(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all()
    return repo


def status(repo: GitRepo, **env) -> str:
    return subprocess.run(["git", "status", "--porcelain"], cwd=repo.root,
                          env={**repo.env, **env}, capture_output=True, text=True).stdout


# --------------------------------------------------------------------------- GIT_INDEX_FILE


def test_git_index_file_is_the_index_used_and_written(repo):
    """git commit with GIT_INDEX_FILE commits that index and updates it; the default
    index is left as it was (so `git status` without the variable shows the change)."""
    beta_repo(repo)
    alt = repo.root.parent / "alt-index"
    shutil.copy(repo.root / ".git" / "index", alt)
    default_before = (repo.root / ".git" / "index").read_bytes()
    r = repo.run(response=LOUDER_BETA, env={**repo.env, "GIT_INDEX_FILE": str(alt)})
    assert r.returncode == 0, r.err
    assert repo.read("src/b.txt") == b"alpha\nBETA\n"
    assert (repo.root / ".git" / "index").read_bytes() == default_before
    assert status(repo, GIT_INDEX_FILE=str(alt)) == ""
    assert status(repo) == "MM src/b.txt\n"
    assert not list(repo.root.parent.glob("alt-index.*")), "a lock or link left behind"


def test_relative_git_index_file_is_read_from_the_worktree_top_as_git_reads_it(repo):
    """git runs its commands from the top of the worktree, so a relative GIT_INDEX_FILE
    names a file there even when the command starts in a subfolder."""
    beta_repo(repo)
    shutil.copy(repo.root / ".git" / "index", repo.root / ".git" / "other-index")
    r = repo.run(response=LOUDER_BETA, cwd=repo.root / "src",
                 env={**repo.env, "GIT_INDEX_FILE": ".git/other-index"})
    assert r.returncode == 0, r.err
    assert status(repo, GIT_INDEX_FILE=".git/other-index") == ""
    probe = subprocess.run(["git", "ls-files", "-s", "b.txt"], cwd=repo.root / "src",
                           env={**repo.env, "GIT_INDEX_FILE": ".git/other-index"},
                           capture_output=True, text=True).stdout
    assert probe.split()[1] == repo.git("rev-parse", "HEAD:src/b.txt").strip()


def test_git_index_file_without_its_index_changes_nothing_on_refusal(repo):
    beta_repo(repo)
    alt = repo.root.parent / "alt-index"
    shutil.copy(repo.root / ".git" / "index", alt)
    before = repo.snapshot()
    alt_before = alt.read_bytes()
    r = repo.run(response=LOUDER_BETA.replace("-beta", "-gamma"),
                 env={**repo.env, "GIT_INDEX_FILE": str(alt)})
    assert r.returncode == 1
    assert repo.snapshot() == before and alt.read_bytes() == alt_before


# --------------------------------------------------------------------------- object directories


def _objects_moved_out(repo: GitRepo, to: Path) -> None:
    repo.git("gc", "-q", "--prune=now")
    shutil.move(repo.root / ".git" / "objects", to)
    (repo.root / ".git" / "objects" / "info").mkdir(parents=True)
    (repo.root / ".git" / "objects" / "pack").mkdir()


def test_git_object_directory_is_read_and_written(repo):
    beta_repo(repo)
    elsewhere = repo.root.parent / "objects-elsewhere"
    _objects_moved_out(repo, elsewhere)
    env = {**repo.env, "GIT_OBJECT_DIRECTORY": str(elsewhere)}
    r = repo.run(response=LOUDER_BETA, env=env)
    assert r.returncode == 0, r.err
    check = subprocess.run(["git", "show", "HEAD:src/b.txt"], cwd=repo.root, env=env,
                           capture_output=True, text=True)
    assert check.stdout == "alpha\nBETA\n"
    # the new objects went where git would put them, not into .git/objects
    assert not [p for p in (repo.root / ".git" / "objects").rglob("*") if p.is_file()]


def test_git_alternate_object_directories_are_read(repo):
    beta_repo(repo)
    elsewhere = repo.root.parent / "objects-alternate"
    _objects_moved_out(repo, elsewhere)
    env = {**repo.env, "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(elsewhere)}
    r = repo.run(response=LOUDER_BETA, env=env)
    assert r.returncode == 0, r.err
    fsck = subprocess.run(["git", "fsck", "--strict"], cwd=repo.root, env=env,
                          capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    # the base commit lives only in the alternate: git itself cannot read it without
    assert repo.git("cat-file", "-e", "HEAD~1", check=False) == ""
    assert subprocess.run(["git", "cat-file", "-e", "HEAD~1"], cwd=repo.root, env=repo.env,
                          capture_output=True).returncode != 0


# --------------------------------------------------------------------------- repositories git refuses


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="making a repository another user owns needs root (chown)")
def test_a_repository_another_user_owns_is_refused_in_gits_words(repo):
    beta_repo(repo)
    for dirpath, dirnames, filenames in os.walk(repo.root):
        for name in [*dirnames, *filenames]:
            os.lchown(os.path.join(dirpath, name), 54321, 54321)
    os.lchown(repo.root, 54321, 54321)
    git_says = subprocess.run(["git", "status"], cwd=repo.root, env=repo.env,
                              capture_output=True, text=True)
    assert "detected dubious ownership" in git_says.stderr  # the check is on, safe.directory unset
    before = repo.read("src/b.txt")
    for argv in ([], ["--json"]):
        r = repo.run(*argv, response=LOUDER_BETA)
        assert r.returncode == 128, r.out + r.err
        assert f"detected dubious ownership in repository at '{repo.root}'" in r.out + r.err
        assert f"safe.directory {repo.root}" in r.out + r.err
        assert "not a git repository" not in r.out + r.err
    assert repo.read("src/b.txt") == before
    assert not [n for n in os.listdir(repo.root / ".git") if "ai-apply" in n or "lock" in n]
    # git honours safe.directory given with -c (libgit2 reads only the config files)
    ok = subprocess.run(["git", "-c", f"safe.directory={repo.root}", "ai-apply", "--check", "-"],
                        cwd=repo.root, env=repo.env, input=LOUDER_BETA, capture_output=True,
                        text=True)
    assert ok.returncode == 0, ok.stderr


def test_a_sha256_repository_is_refused_as_such(tmp_path, git_env):
    root = tmp_path / "sha"
    made = subprocess.run(["git", "init", "-q", "--object-format=sha256", str(root)],
                          env=git_env, capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"this git cannot make SHA-256 repositories: {made.stderr.strip()}")
    repo = GitRepo(root, git_env)
    beta_repo(repo)
    before = repo.snapshot()
    r = repo.run(response=LOUDER_BETA)
    assert r.returncode == 128
    assert "SHA-256 repositories are not supported" in r.err
    assert "not a git repository" not in r.err
    assert repo.snapshot() == before


# --------------------------------------------------------------------------- partial clones


def _partial_clone(repo: GitRepo, tmp_path: Path, *flags: str) -> GitRepo:
    """A ``--filter=blob:none`` clone of ``repo`` (with src/b.txt) over file://."""
    beta_repo(repo)
    repo.git("config", "uploadpack.allowfilter", "true")
    clone = tmp_path / "partial"
    repo.git("clone", "-q", "--filter=blob:none", *flags, f"file://{repo.root}", str(clone))
    return GitRepo(clone, repo.env)


def _missing(clone: GitRepo) -> set[str]:
    listed = clone.git("rev-list", "--objects", "--all", "--missing=print")
    return {line[1:] for line in listed.splitlines() if line.startswith("?")}


def test_a_blob_missing_from_a_partial_clone_is_fetched_as_git_fetches_it(repo, tmp_path):
    clone = _partial_clone(repo, tmp_path, "--no-checkout")
    blob = clone.git("rev-parse", "HEAD:src/b.txt").strip()
    assert blob in _missing(clone)  # the case under test: libgit2 alone cannot read it
    r = clone.run("--branch", "louder", response=LOUDER_BETA)
    assert r.returncode == 0, r.err
    assert clone.git("show", "louder:src/b.txt") == "alpha\nBETA\n"
    assert blob not in _missing(clone)
    fsck = subprocess.run(["git", "fsck"], cwd=clone.root, env=clone.env, capture_output=True)
    assert fsck.returncode == 0


def test_a_blob_git_cannot_fetch_is_fatal_and_named(repo, tmp_path):
    clone = _partial_clone(repo, tmp_path, "--no-checkout")
    blob = clone.git("rev-parse", "HEAD:src/b.txt").strip()
    clone.git("remote", "set-url", "origin", f"file://{tmp_path}/gone")
    refs = clone.git("for-each-ref")
    r = clone.run("--branch", "louder", response=LOUDER_BETA)
    assert r.returncode == 128, r.out + r.err
    assert r.err.startswith("fatal: ") and blob in r.err and "internal error" not in r.err
    assert clone.git("for-each-ref") == refs


def test_a_checked_out_partial_clone_applies_and_stays_clean(repo, tmp_path):
    clone = _partial_clone(repo, tmp_path)
    r = clone.run(response=LOUDER_BETA)
    assert r.returncode == 0, r.err
    assert clone.read("src/b.txt") == b"alpha\nBETA\n"
    assert status(clone) == ""
