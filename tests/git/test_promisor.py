"""git/promisor.py on real partial clones (``--filter=blob:none`` over file://): which
configurations git fetches lazily in, a blob the clone lacks read through git (which fetches
it into the repository), existence checks that fetch nothing, and an object nobody has:
fatal and named in a partial clone, a plain KeyError anywhere else."""
from __future__ import annotations

import subprocess

import pygit2
import pytest

from conftest import GitRepo
from git_aiapply.errors import ErrorKind, FatalError
from git_aiapply.git.promisor import LazyFetch, has_promisor
from git_aiapply.git.repo import Repo

NOBODY_HAS = "1234567890abcdef1234567890abcdef12345678"


def _source(repo: GitRepo) -> None:
    repo.write("a.txt", "hello\n")
    repo.write("src/b.txt", "beta\n")
    repo.commit_all("one")
    repo.git("config", "uploadpack.allowfilter", "true")


@pytest.fixture
def clone(built_once, env, tmp_path) -> GitRepo:
    """A blobless clone, nothing checked out: every blob is missing."""
    source = built_once("promisor-source", _source)
    where = tmp_path / "partial"
    source.git("clone", "-q", "--filter=blob:none", "--no-checkout", f"file://{source.root}",
               str(where))
    return GitRepo(where, source.env)


def _missing(repo: GitRepo) -> set[str]:
    listed = repo.git("rev-list", "--objects", "--all", "--missing=print")
    return {line[1:] for line in listed.splitlines() if line.startswith("?")}


def _config(tmp_path, *settings: tuple[str, str]) -> pygit2.Config:
    path = tmp_path / "config"
    path.write_text("")
    for key, value in settings:
        subprocess.run(["git", "config", "--file", str(path), key, value], check=True)
    return pygit2.Config(str(path))


def test_a_promisor_remote_or_partial_clone_extension_is_seen(clone: GitRepo, repo: GitRepo,
                                                              tmp_path):
    # what git writes in a partial clone
    assert clone.git("config", "remote.origin.promisor").strip() == "true"
    assert has_promisor(Repo(str(clone.root)).repo.config)
    assert not has_promisor(Repo(str(repo.root)).repo.config)
    for value, lazily in (("yes", True), ("1", True), ("On", True), ("false", False),
                          ("0", False)):
        assert has_promisor(_config(tmp_path, ("remote.other.promisor", value))) is lazily
    assert has_promisor(_config(tmp_path, ("extensions.partialClone", "origin")))
    assert not has_promisor(_config(tmp_path, ("remote.origin.url", "file:///x")))


def test_a_missing_blob_is_read_through_git_which_fetches_it(clone: GitRepo):
    blob = clone.git("rev-parse", "HEAD:a.txt").strip()
    assert blob in _missing(clone)
    r = Repo(str(clone.root)).repo
    assert not r.odb.exists(blob)  # asking whether it exists fetches nothing
    assert blob in _missing(clone)
    assert r[blob].data == b"hello\n"
    assert blob not in _missing(clone)  # git fetched it into the repository
    assert clone.git("cat-file", "blob", blob) == "hello\n"
    other = clone.git("rev-parse", "HEAD:src/b.txt").strip()
    assert other in _missing(clone)  # one object at a time, as git fetches them


def test_an_object_nobody_has_is_fatal_in_a_partial_clone_only(clone: GitRepo, repo: GitRepo):
    with pytest.raises(FatalError) as e:
        Repo(str(clone.root)).repo[NOBODY_HAS]
    assert e.value.kind == ErrorKind.REPOSITORY
    assert f"missing object {NOBODY_HAS} in a partial clone" in e.value.message
    plain = subprocess.run(["git", "cat-file", "-e", NOBODY_HAS], cwd=clone.root,
                           env=clone.env, capture_output=True)
    assert plain.returncode != 0  # git cannot fetch it either
    with pytest.raises(KeyError):  # no lazy backend outside a partial clone
        Repo(str(repo.root)).repo[NOBODY_HAS]


def test_the_backend_reads_as_git_cat_file(clone: GitRepo):
    head = clone.head()
    backend = LazyFetch(str(clone.root / ".git"))
    oid = pygit2.Oid(hex=head)
    kind, data = backend.read_cb(oid)
    assert kind == pygit2.enums.ObjectType.COMMIT
    assert data == subprocess.run(["git", "cat-file", "commit", head], cwd=clone.root,
                                  env=clone.env, capture_output=True).stdout
    assert backend.read_header_cb(oid) == (kind, int(clone.git("cat-file", "-s", head)))
    assert backend.read_prefix_cb(oid) == (kind, data, oid)
    assert backend.exists_cb(oid) is False
