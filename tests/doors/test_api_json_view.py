"""api.Result is a typed view of the one --json object pipeline.Outcome.to_json writes
(issue 23): to_json gives that object back; a Result made by hand is written by its fields,
leaving out what docs/JSON.md leaves out."""
from __future__ import annotations

import pytest

import git_aiapply
from git_aiapply.doors.api import EditResult, ErrorDetail, FileResult, NearbyLine, Result

from conftest import LOUDER_BETA, GitRepo


@pytest.fixture
def base(repo: GitRepo, env) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def made_by_hand(**changes) -> Result:
    values = dict(response="r", response_id="id", model=None, status="refused", exit_code=1,
                  commit=None, branch=None, base=None, formats=("unified-diff",),
                  files=(FileResult("a", "update", None, 1, 1),), added=1, removed=1,
                  message=None, note=None, error_kind="context", fault="response",
                  errors=(ErrorDetail("no fit", "a", nearby=(NearbyLine(3, "x"),
                                                             NearbyLine(4, "y", "4#ab"))),),
                  error_text="no fit", warnings=(), hook_output=None,
                  diff=None)
    return Result(**(values | changes))


def test_a_result_made_by_hand_is_written_as_the_json_object_holds_it():
    d = made_by_hand().to_json()
    assert "edits" not in d and "merged_from" not in d["files"][0]
    assert d["formats"] == ["unified-diff"]
    error = d["errors"][0]
    assert "candidates" not in error and error["reason"] == "no fit"
    assert error["nearby"] == [{"line": 3, "text": "x"}, {"line": 4, "text": "y", "ref": "4#ab"}]
    assert Result.from_json(d) == made_by_hand() and Result.from_json(d).to_json() == d
    merged = made_by_hand(files=(FileResult("a", "update", None, 1, 1, "abc"),),
                          edits=(EditResult("a", None, 1, 1, 1, 1, 1, ("exact",), None),))
    d = merged.to_json()
    assert d["files"][0]["merged_from"] == "abc" and d["edits"][0]["how"] == ["exact"]


def test_a_result_gives_back_the_object_it_was_read_from(base: GitRepo):
    out = git_aiapply.Session(base.root).apply_json(LOUDER_BETA, check=True, verbose=True)
    result = Result.from_json(out)
    assert result.to_json() == out
    result.to_json()["files"].clear()  # a copy: nothing shared
    assert result.to_json() == out
