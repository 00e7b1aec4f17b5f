"""A program using the library as docs/API.md shows it, for `mypy --strict` only
(tests/test_typing.py): never collected by pytest, never run.  Every ``assert_type`` is a
claim about the types a user's checker sees; a wrong one is a mypy error."""
from __future__ import annotations

import json
import pathlib
from typing import Any, Literal, assert_type

import git_aiapply
from git_aiapply.api_types import ApplyOptions, Fault, Status


def send_back_to_the_model(text: str) -> None:
    print(text)


def harness(repo: str, answers: str) -> None:
    session = git_aiapply.Session(repo)  # warm across the whole file
    with open(answers, encoding="utf-8") as f:
        for line in f:
            answer = json.loads(line)
            result = session.apply(answer["response"], name=answer["id"],
                                   branch=f"eval/{answer['id']}", base="HEAD")
            assert_type(result, git_aiapply.Result)
            print(result.status, result.commit, result.error_text)


def one_response(text: str, repo: str) -> None:
    result = git_aiapply.apply(text, repo=repo)
    assert_type(result, git_aiapply.Result)
    if result.status == "refused":
        assert_type(result.error_text, str | None)
        if result.error_text is not None:
            send_back_to_the_model(result.error_text)
        for error in result.errors:
            assert_type(error, git_aiapply.ErrorDetail)
            assert_type(error.reason, str)
            assert_type(error.edit, int | None)
            for near in error.nearby:
                assert_type(near, git_aiapply.NearbyLine)
                assert_type(near.line, int)
    else:
        assert_type(result.commit, str | None)
        for f in result.files:
            assert_type(f, git_aiapply.FileResult)
            assert_type(f.path, str)
            assert_type(f.added, int)
    assert_type(result.ok, bool)
    assert_type(result.status, Status)
    assert_type(result.fault, Fault | None)
    assert_type(result.formats, tuple[str, ...])
    assert_type(result.to_json(), dict[str, Any])
    assert_type(git_aiapply.Result.from_json(result.to_json()), git_aiapply.Result)


def every_call(repo: pathlib.Path) -> None:
    answer = pathlib.Path("answer.md")
    assert_type(git_aiapply.check(answer, repo=repo, format="search-replace",
                                  include=["src/*"], exclude="*.lock", strip=1),
                git_aiapply.Result)
    assert_type(git_aiapply.apply(b"raw bytes", repo, message="m", max_bytes=0,
                                  sign=None, author="A <a@example.com>", date="now"),
                git_aiapply.Result)
    chat: dict[str, Any] = {"choices": [{"message": {"content": "..."}}]}
    assert_type(git_aiapply.apply(chat, repo=git_aiapply.session(repo)), git_aiapply.Result)
    parsed = git_aiapply.parse("text", format="whole", strip=1, directory="sub")
    assert_type(parsed, git_aiapply.Parsed)
    assert_type(parsed.formats, tuple[str, ...])
    assert_type(parsed.model, str | None)
    assert_type(git_aiapply.show("src/a.py", "README.md", repo=repo, rev="HEAD"), str)
    undone = git_aiapply.undo(repo, batch=True)
    assert_type(undone, git_aiapply.UndoResult)
    assert_type(undone.status, Literal["undone", "refused"])
    assert_type(undone.files, tuple[git_aiapply.UndoFile, ...])
    assert_type(git_aiapply.apply("text", repo, diff=True).diff, str | None)
    options: ApplyOptions = {"check": True, "three_way": False}
    assert_type(git_aiapply.apply("text", repo, **options), git_aiapply.Result)


def a_session(repo: str) -> None:
    with git_aiapply.Session(repo, warm=False) as session:
        assert_type(session, git_aiapply.Session)
        assert_type(session.check("text", diff=True), git_aiapply.Result)
        assert_type(session.show("a.txt"), str)
        assert_type(session.undo(), git_aiapply.UndoResult)
        assert_type(session.undo_json(), dict[str, Any])
        assert_type(session.workdir, str | None)


def errors(repo: str) -> None:
    try:
        git_aiapply.parse("```python\nnever closed")
    except git_aiapply.ApplyError as e:
        for problem in e.problems:
            assert_type(problem, git_aiapply.Problem)
            assert_type(problem.render(), str)
    try:
        git_aiapply.apply("text", repo, check=True)
    except git_aiapply.InvalidOptions as e:
        assert_type(str(e), str)
    except git_aiapply.UsageError:
        pass
    except git_aiapply.FatalError as e:
        assert_type(e.kind, str)
        assert_type(e.exit_code, int)
