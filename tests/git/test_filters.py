"""Attributes git applies between blob and worktree (issue 24 item 8): ``ident`` and
``working-tree-encoding``, honoured as git honours them.  The conversions are compared
with what git itself writes and stores; a file written by an apply must be what
`git checkout` writes, and `git status --porcelain` must be empty afterwards."""
from __future__ import annotations

import codecs
import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import GitRepo
from git_aiapply.errors import ApplyError
from git_aiapply.git.filters import (decode_to_git, encode_to_worktree, ident_to_git,
                                     ident_to_worktree, ident_to_worktree_streamed)

IDENT_SAMPLES = [
    b"x $Id$ y\n",
    b"$Id: 0123 $\n$Id$\n",
    b"$Id: from another system $\n",        # spaces inside: kept on checkout
    b"$Id: broken\n$ after\n",             # a line break before the dollar
    b"$Id:$ $Id: $Id$ $$Id$$ $I $Id",
    b"no keyword at all\n",
    b"$Id: unterminated",
    b"$$Id$$ a $Id$Id$ b $I$Id$ $Id:x$Id$ $Id: a\tb $ $Id: a $",
]


def _git_view(repo: GitRepo, files: dict[str, bytes], attributes: str) -> dict[str, tuple]:
    """(what git stores, what git checks out) for each file, by git itself."""
    repo.write(".gitattributes", attributes)
    for name, data in files.items():
        repo.write(name, data)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "samples")
    for name in files:
        os.unlink(repo.root / name)
    repo.git("checkout", "--", ".")
    return {name: (repo.git_bytes("cat-file", "blob", f"HEAD:{name}"), repo.read(name))
            for name in files}


@pytest.fixture
def bytes_repo(repo):
    def git_bytes(*args):
        return subprocess.run(["git", *args], cwd=repo.root, env=repo.env,
                              capture_output=True, check=True).stdout
    repo.git_bytes = git_bytes
    return repo


def test_ident_converts_as_git_does(bytes_repo):
    """`git add` collapses, `git checkout` expands (streamed); `git cat-file --filters`
    expands the whole file at once, as git does where a filter needs all of it."""
    files = {f"s{i}.txt": data for i, data in enumerate(IDENT_SAMPLES)}
    seen = _git_view(bytes_repo, files, "*.txt ident\n")
    for name, data in files.items():
        stored, checked_out = seen[name]
        assert ident_to_git(data) == stored, name
        assert ident_to_worktree_streamed(stored) == checked_out, name
        whole = bytes_repo.git_bytes("cat-file", "--filters", f"HEAD:{name}")
        assert ident_to_worktree(stored) == whole, name


KEYWORD_PIECES = [b"$", b"Id", b":", b" ", b"\n", b"x", b"$Id$", b"$Id: a $", b"$Id: 12ab $"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(KEYWORD_PIECES), max_size=20).map(b"".join))
def test_ident_checkout_then_add_gives_back_what_git_stored(data):
    """A file checked out and added again is what git stored (git's own collapse is not
    idempotent on every input, so only what ``git add`` can store is checked): never a
    clean file that looks modified."""
    stored = ident_to_git(data)
    if ident_to_git(stored) != stored:
        return  # not something git itself keeps stable
    assert ident_to_git(ident_to_worktree_streamed(stored)) == stored


ENCODINGS = ["UTF-16", "UTF-16LE", "UTF-16BE", "UTF-32", "ISO-8859-1", "SHIFT-JIS",
             "UTF-16LE-BOM"]


def _sample_text(encoding: str) -> str:
    return "hello\nこんにちは\n" if encoding == "SHIFT-JIS" \
        else "hello\nwörld ä\n"


def test_working_tree_encoding_converts_as_git_does(bytes_repo):
    files, attributes = {}, ""
    for i, enc in enumerate(ENCODINGS):
        name = f"e{i}.txt"
        files[name] = encode_to_worktree(name, _sample_text(enc).encode(), enc)
        attributes += f"{name} working-tree-encoding={enc}\n"
    seen = _git_view(bytes_repo, files, attributes)
    for name, data in files.items():
        stored, checked_out = seen[name]
        assert stored == _sample_text(ENCODINGS[int(name[1:-4])]).encode(), name
        assert checked_out == data, name  # what we write is what git writes
        assert decode_to_git(name, checked_out, ENCODINGS[int(name[1:-4])]) == stored


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(codec="latin-1"), max_size=40),
       st.sampled_from(["UTF-16", "UTF-16BE", "UTF-32", "ISO-8859-1", "UTF-16LE-BOM"]))
def test_encoding_round_trips(text, encoding):
    data = text.encode()
    assert decode_to_git("f", encode_to_worktree("f", data, encoding), encoding) == data


def test_a_missing_or_prohibited_bom_is_not_taken_as_the_file():
    body = "hi\n".encode("utf-16-le")
    assert decode_to_git("f", body, "UTF-16") is None  # BOM required
    assert decode_to_git("f", codecs.BOM_UTF16_LE + body, "UTF-16LE") is None  # prohibited


def test_content_the_encoding_cannot_hold_is_refused_naming_the_file():
    with pytest.raises(ApplyError) as e:
        encode_to_worktree("docs/latin.txt", "snow \u2603\n".encode(), "ISO-8859-1")
    assert "docs/latin.txt" in e.value.render() and "ISO-8859-1" in e.value.render()


# --------------------------------------------------------------------------- end to end


def _patch(path: str, old: str, new: str) -> str:
    return (f"Change {path}.\n\n```diff\n--- a/{path}\n+++ b/{path}\n@@\n hello\n-{old}\n"
            f"+{new}\n```\n")


def _checkout_again(repo: GitRepo, path: str) -> bytes:
    os.unlink(repo.root / path)
    repo.git("checkout", "--", path)
    return repo.read(path)


@pytest.mark.parametrize("encoding", ["UTF-16", "ISO-8859-1"])
def test_an_encoded_file_is_patched_in_its_encoding_and_stays_clean(repo, encoding):
    repo.write(".gitattributes", f"*.txt working-tree-encoding={encoding}\n")
    repo.write("a.txt", encode_to_worktree("a.txt", b"hello\nworld\n", encoding))
    repo.commit_all()
    assert repo.git("status", "--porcelain") == ""
    r = repo.run(response=_patch("a.txt", "world", "wörld"))
    assert r.returncode == 0, r.err
    assert repo.git("status", "--porcelain") == ""
    assert repo.git("show", "HEAD:a.txt") == "hello\nwörld\n"
    written = repo.read("a.txt")
    assert _checkout_again(repo, "a.txt") == written


def test_content_an_encoded_file_cannot_hold_changes_nothing(repo):
    repo.write(".gitattributes", "*.txt working-tree-encoding=ISO-8859-1\n")
    repo.write("a.txt", b"hello\nworld\n")
    repo.commit_all()
    before = repo.snapshot()
    r = repo.run(response=_patch("a.txt", "world", "snow \u2603"))
    assert r.returncode == 1, r.out + r.err
    assert "a.txt" in r.err and "ISO-8859-1" in r.err
    assert repo.snapshot() == before


def test_an_ident_file_is_patched_and_stays_clean(repo):
    repo.write(".gitattributes", "*.c ident\n")
    repo.write("a.c", "hello\n/* $Id$ */\n")
    repo.commit_all()
    assert b"$Id: " in _checkout_again(repo, "a.c")  # the worktree holds the expansion
    assert repo.git("status", "--porcelain") == ""
    r = repo.run(response=_patch("a.c", "/* $Id$ */", "/* $Id$ changed */"))
    assert r.returncode == 0, r.err
    assert repo.git("status", "--porcelain") == ""
    assert repo.git("show", "HEAD:a.c") == "hello\n/* $Id$ changed */\n"
    written = repo.read("a.c")
    assert _checkout_again(repo, "a.c") == written
