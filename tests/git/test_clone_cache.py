"""git/clone_cache.py: which ``repo`` is a URL (git's rule), one clone per URL however many
ask at once, a base the clone lacks fetched, and a rejected push's reason."""
from __future__ import annotations

import threading

import pytest

from conftest import GitRepo
from git_aiapply.errors import FatalError
from git_aiapply.git import clone_cache


@pytest.mark.parametrize("repo, url", [
    ("file:///srv/r.git", True), ("https://example.com/r.git", True),
    ("ssh://git@host/r.git", True), ("git@host:team/r.git", True), ("host:r.git", True),
    ("repos/django", False), ("/srv/r", False), ("./a:b", False), ("dir/a:b", False),
    ("", False)])
def test_is_url_decides_as_git_clone_does(repo, url, tmp_path):
    assert clone_cache.is_url(repo, str(tmp_path)) is url


def test_a_folder_that_exists_is_a_folder_even_with_a_colon(tmp_path):
    (tmp_path / "host:r").mkdir()
    assert not clone_cache.is_url("host:r", str(tmp_path))


def test_the_cache_is_one_folder_per_url(monkeypatch, tmp_path):
    monkeypatch.setenv(clone_cache.CACHE_ENV, str(tmp_path))
    a, b = clone_cache.cache_path("file:///a"), clone_cache.cache_path("file:///b")
    assert a != b and a.startswith(str(tmp_path)) and a == clone_cache.cache_path("file:///a")
    monkeypatch.delenv(clone_cache.CACHE_ENV)
    monkeypatch.setenv("HOME", str(tmp_path / "driver"))  # the node's account decides
    assert not clone_cache.cache_root().startswith(str(tmp_path))


def test_one_clone_for_tasks_asking_at_once_then_a_missing_base_fetched(repo: GitRepo,
                                                                        tmp_path):
    repo.write("f.txt", "one\n")
    first = repo.commit_all("one")
    origin = tmp_path / "origin.git"
    repo.git("clone", "-q", "--bare", str(repo.root), str(origin))
    url, root = origin.as_uri(), str(tmp_path / "cache")
    got: list[str] = []
    threads = [threading.Thread(target=lambda: got.append(clone_cache.local_clone(url, root)))
               for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == 1 and [p.name for p in (tmp_path / "cache").iterdir()
                                   if not p.name.endswith(".lock")] == [got[0].rsplit("/", 1)[1]]
    repo.write("f.txt", "two\n")
    second = repo.commit_all("two")
    repo.git("push", "-q", str(origin), "HEAD:refs/heads/main")
    assert clone_cache.has_commit(got[0], first) and not clone_cache.has_commit(got[0], second)
    clone_cache.fetch_missing(got[0], second)
    assert clone_cache.has_commit(got[0], second)
    clone_cache.fetch_missing(got[0], "no-such-rev")  # nothing to fetch: the job says so


def test_an_unreachable_url_and_a_rejected_push_say_why(repo: GitRepo, tmp_path):
    with pytest.raises(FatalError, match="cannot clone file://"):
        clone_cache.local_clone((tmp_path / "none.git").as_uri(), str(tmp_path / "c"))
    assert all(p.name.endswith(".lock") for p in (tmp_path / "c").iterdir())  # no half clone
    repo.write("f.txt", "one\n")
    repo.commit_all("one")
    target = tmp_path / "t.git"
    repo.git("init", "-q", "--bare", str(target))
    other = repo.git("commit-tree", "-m", "other", "HEAD^{tree}").strip()
    repo.git("push", "-q", str(target), f"{other}:refs/heads/main")
    with pytest.raises(FatalError, match=r"cannot push main to .*(fetch first|non-fast-forward)"):
        clone_cache.push_branch(str(repo.root), "main", str(target))
