"""git/commits_made.py: the commits this process made that no report named yet, noted by
the transaction as the ref moves and forgotten when it rolls the move back."""
from __future__ import annotations

import pytest

from conftest import LOUDER_BETA, GitRepo
from git_aiapply.doors.api import Session
from git_aiapply.errors import FatalError
from git_aiapply.git import commits_made


@pytest.fixture
def base(repo: GitRepo, monkeypatch) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all()
    monkeypatch.chdir(repo.root)
    commits_made.forget()
    yield repo
    commits_made.forget()


def test_note_unnote_and_forget():
    commits_made.forget()
    commits_made.note("main", "1" * 40, "one")
    commits_made.note("try", "2" * 40, "two")
    commits_made.unnote("1" * 40)
    commits_made.unnote("9" * 40)  # not one of them: nothing
    assert commits_made.made() == (1, [("try", "2" * 40, "two")])
    commits_made.forget()
    assert commits_made.made() == (0, [])


def test_each_commit_is_noted_on_its_branch(base: GitRepo):
    session = Session(".")
    first = session.apply(LOUDER_BETA)
    second = session.apply('<FILE_CHANGES>\n<FILE_NEW file_path="n.txt">\nn\n</FILE_NEW>\n'
                           '</FILE_CHANGES>\n', branch="side")
    assert first.status == second.status == "applied", (first, second)
    assert commits_made.made() == (2, [("main", first.commit, "Make beta louder"),
                                       ("side", second.commit, second.message.split("\n")[0])])


def test_a_commit_rolled_back_after_its_ref_moved_is_not_noted(base: GitRepo, monkeypatch):
    from git_aiapply.git import transaction

    def failing(step):
        if step == "ref-update":
            raise OSError(5, "injected fault at ref-update")

    monkeypatch.setattr(transaction, "fault", failing)
    head = base.head()
    with pytest.raises(FatalError, match="injected fault"):
        Session(".").apply(LOUDER_BETA)
    assert base.head() == head
    assert commits_made.made() == (0, [])
