"""doors/warm_index.py: the index kept warm between requests is handed out only while the
index file on disk is exactly the one it was read from or written to (device, inode, size,
mtime and trailing checksum) and HEAD is where the last request left it, on real
repositories whose index other git processes rewrite."""
from __future__ import annotations

import hashlib
import os
import threading

import pygit2
import pytest

from conftest import GitRepo
from git_aiapply.doors.warm_index import IndexCache


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\n")
    repo.write("b.txt", "beta\n")
    repo.commit_all("base")
    return repo


def index_path(repo: GitRepo) -> str:
    return str(repo.root / ".git" / "index")


def warm(repo: GitRepo) -> tuple[IndexCache, pygit2.Index]:
    cache, index = IndexCache(), pygit2.Index(index_path(repo))
    cache.give_back(index_path(repo), index)
    return cache, index


def test_the_index_given_back_is_lent_to_one_transaction_at_a_time(based: GitRepo):
    cache, index = warm(based)
    path = index_path(based)
    assert cache.peek(path) is index and cache.peek(path) is index  # looking keeps it
    assert cache.take(path) is index
    assert cache.take(path) is None and cache.peek(path) is None  # taken: read the file
    cache.give_back(path, index)
    cache.clear()
    assert cache.peek(path) is None


def test_an_index_kept_from_one_path_is_never_lent_for_another(based: GitRepo):
    cache, index = warm(based)
    other = str(based.root / ".git" / "other-index")
    os.link(index_path(based), other)  # the same file, named by another GIT_INDEX_FILE
    assert cache.peek(other) is None and cache.take(other) is None
    cache.give_back(other, index)
    assert cache.peek(index_path(based)) is None and cache.peek(other) is index


def test_an_index_another_git_process_wrote_is_read_again(based: GitRepo):
    cache, _index = warm(based)
    based.write("c.txt", "gamma\n")
    based.git("add", "c.txt")
    assert cache.peek(index_path(based)) is None and cache.take(index_path(based)) is None
    os.remove(index_path(based))  # no index file at all: nothing to match
    cache.give_back(index_path(based), pygit2.Index())
    assert cache.peek(index_path(based)) is None


def test_a_rewrite_in_place_with_the_same_stat_is_caught_by_the_checksum(based: GitRepo):
    path = index_path(based)
    data = open(path, "rb").read()
    # the same index but the first entry's mtime, with its own checksum (git's: the SHA-1
    # of all that precedes it): a valid index of the same size, another trailing checksum
    body = bytearray(data[:-20])
    body[20:24] = (int.from_bytes(body[20:24], "big") - 1000).to_bytes(4, "big")
    new = bytes(body) + hashlib.sha1(body).digest()
    before = os.stat(path)

    def write_in_place(content: bytes) -> None:
        with open(path, "r+b") as f:
            f.write(content)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = os.stat(path)
        assert (after.st_dev, after.st_ino, after.st_size, after.st_mtime_ns) == \
            (before.st_dev, before.st_ino, before.st_size, before.st_mtime_ns)

    cache, index = warm(based)
    write_in_place(data)  # the same bytes again: still the same file
    assert cache.peek(path) is index
    write_in_place(new)
    assert cache.peek(path) is None and cache.take(path) is None
    based.git("ls-files", "--debug", "a.txt")  # git reads the new file: a valid index


def test_a_head_moved_by_someone_else_forgets_the_index(based: GitRepo):
    path = index_path(based)
    cache, index = warm(based)
    head = based.head()
    cache.note_head(head)  # the first request: HEAD was never seen, nothing to keep
    assert cache.peek(path) is None
    cache.give_back(path, index)
    cache.note_head(head)  # HEAD where it was: kept
    assert cache.peek(path) is index
    based.write("a.txt", "changed\n")
    mine = based.commit_all("a request's own commit")
    index = pygit2.Index(path)
    cache.give_back(path, index)  # handed back after the request
    cache.left_head(mine)  # which moved HEAD itself
    cache.note_head(mine)  # the next request
    assert cache.peek(path) is index
    # another process moves HEAD without touching the index file (git update-ref)
    theirs = based.git("commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "theirs").strip()
    based.git("update-ref", "HEAD", theirs)
    assert cache.peek(path) is index  # the file alone cannot tell...
    cache.note_head(theirs)
    assert cache.peek(path) is None  # ... HEAD does


def test_after_a_commit_the_index_is_kept_only_if_the_installed_file_is_the_one_written(
        based: GitRepo):
    path = index_path(based)
    cache, index = IndexCache(), pygit2.Index(path)
    cache.keep(path, index, os.stat(path))  # installed as written
    assert cache.peek(path) is index
    # a pre-commit hook re-staged files: the installed index is another file
    staged = os.stat(path)
    based.write("gen.txt", "generated\n")
    based.git("add", "gen.txt")
    cache.keep(path, index, staged)
    assert cache.peek(path) is None


def test_only_one_of_many_threads_takes_the_index(based: GitRepo):
    path = index_path(based)
    cache, index = warm(based)
    got: list = []
    start = threading.Barrier(8)

    def take() -> None:
        start.wait()
        got.append(cache.take(path))

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [g for g in got if g is not None] == [index] and len(got) == 8
