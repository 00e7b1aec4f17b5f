"""git/ident.py against `git var GIT_AUTHOR_IDENT` / `GIT_COMMITTER_IDENT` (git's own
ident.c, strict as `git commit`): who a commit is by from the variables, the settings and
git's guesses, the characters git strips, the date, and every case where git dies; plus
the pieces (``Ident.line``, ``split_ident``, ``without_crud``) and the per-call overrides."""
from __future__ import annotations

import os
import subprocess

import pytest

from conftest import GitRepo
from git_aiapply.errors import ErrorKind, FatalError
from git_aiapply.git.ident import (
    IDENTITY_OVERRIDES,
    Ident,
    identity,
    split_ident,
    run_environ,
    without_crud,
)
from git_aiapply.git.repo import Repo

DATE = "1700000000 +0530"


@pytest.fixture
def base(repo: GitRepo, env, monkeypatch) -> GitRepo:
    """A repository with user.name/user.email set, GIT_{AUTHOR,COMMITTER}_{NAME,EMAIL}
    unset and the dates fixed, the process in it."""
    monkeypatch.chdir(repo.root)
    for k in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME",
              "GIT_COMMITTER_EMAIL", "EMAIL"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("GIT_AUTHOR_DATE", DATE)
    monkeypatch.setenv("GIT_COMMITTER_DATE", DATE)
    return repo


def by_git(who: str) -> tuple[bool, str]:
    """(True, ident line) or (False, git's fatal message) of `git var GIT_<WHO>_IDENT`."""
    r = subprocess.run(["git", "var", f"GIT_{who.upper()}_IDENT"], capture_output=True,
                       text=True, env=dict(os.environ))
    if r.returncode == 0:
        return True, r.stdout.rstrip("\n")
    fatal = [line for line in r.stderr.splitlines() if line.startswith("fatal: ")]
    return False, fatal[0].removeprefix("fatal: ")


def by_us(who: str) -> tuple[bool, str]:
    try:
        return True, identity(Repo("."), who).line()
    except FatalError as e:
        assert e.kind == ErrorKind.ENVIRONMENT or e.kind == ErrorKind.USAGE
        return False, e.message.splitlines()[0]


@pytest.mark.parametrize("who", ["author", "committer"])
@pytest.mark.parametrize("setting", [
    {},  # user.name / user.email of the repository
    {"env": {"GIT_{W}_NAME": "From Env", "GIT_{W}_EMAIL": "env@example.com"}},
    {"config": {"{w}.name": "Own Name", "{w}.email": "own@example.com"}},
    {"env": {"GIT_{W}_NAME": "Env Wins"}, "config": {"{w}.name": "Config Loses"}},
    {"env": {"GIT_{W}_EMAIL": ""}},  # set but empty: "Name <>", as git writes it
    {"config": {"user.email": ""}},
    {"env": {"GIT_{W}_NAME": " ;Jo<hn> Doe, ", "GIT_{W}_EMAIL": " <jd@x.org>; "}},
    {"env": {"GIT_{W}_DATE": "2023-11-14T22:13:20-03:30"}},
    {"env": {"GIT_{W}_DATE": "@1234567890 -0000"}},
])
def test_the_identity_is_the_one_git_var_gives(base: GitRepo, monkeypatch, who, setting):
    w = who.upper()
    for k, v in setting.get("env", {}).items():
        monkeypatch.setenv(k.format(W=w), v)
    for k, v in setting.get("config", {}).items():
        base.git("config", k.format(w=who), v)
    ok, line = by_git(who)
    assert ok, line
    assert by_us(who) == (True, line)


@pytest.mark.parametrize("setting, message", [
    ({"env": {"GIT_AUTHOR_NAME": ""}}, "empty ident name (for <config@example.com>) not allowed"),
    ({"env": {"GIT_AUTHOR_NAME": " <>,"}}, "name consists only of disallowed characters:  <>,"),
    ({"env": {"GIT_AUTHOR_DATE": "not a date"}}, "invalid date format: not a date"),
    ({"config": {"user.useConfigOnly": "true"}, "unset": ["user.email"]},
     "no email was given and auto-detection is disabled"),
    ({"config": {"user.useConfigOnly": "true"}, "unset": ["user.name"]},
     "no name was given and auto-detection is disabled"),
])
def test_where_git_dies_identity_dies(base: GitRepo, monkeypatch, setting, message):
    for k, v in setting.get("env", {}).items():
        monkeypatch.setenv(k, v)
    for k, v in setting.get("config", {}).items():
        base.git("config", k, v)
    for k in setting.get("unset", []):
        base.git("config", "--unset", k)
    assert by_git("author") == (False, message)
    assert by_us("author") == (False, message)


def test_without_any_email_the_guess_is_gits(base: GitRepo, monkeypatch):
    base.git("config", "--unset", "user.email")
    monkeypatch.setenv("EMAIL", " mail@from.env ")
    assert by_us("author") == by_git("author") == (True, f"Config User <mail@from.env> {DATE}")
    monkeypatch.delenv("EMAIL")
    base.git("config", "--unset", "user.name")
    # the account's name and login@host: what git guesses here, or git's refusal
    assert by_us("committer") == by_git("committer")


@pytest.mark.parametrize("offset, zone", [(330, "+0530"), (-210, "-0330"), (0, "+0000"),
                                          (-30, "-0030")])
def test_an_ident_line_is_a_commit_headers(repo: GitRepo, offset, zone):
    line = Ident("A U Thor", "", 1700000000, offset).line()
    assert line == f"A U Thor <> 1700000000 {zone}"
    env = dict(repo.env, GIT_AUTHOR_NAME="A U Thor", GIT_AUTHOR_EMAIL="",
               GIT_AUTHOR_DATE=f"1700000000 {zone}")
    r = subprocess.run(["git", "var", "GIT_AUTHOR_IDENT"], cwd=repo.root, env=env,
                       capture_output=True, text=True)
    assert r.stdout == line + "\n"


def test_split_ident_and_the_crud_git_strips():
    assert split_ident("A U Thor  <a@b.c> trailing") == ("A U Thor", "a@b.c")
    assert split_ident("<only@mail>") == ("", "only@mail")
    assert split_ident("Name <>") == ("Name", "")
    assert split_ident("no brackets") is None and split_ident("Name <open") is None
    assert without_crud(" ;,\"Name<x>\n'\\ ") == "Namex"
    assert without_crud("a, b: c") == "a, b: c"  # inside, only <, > and newlines go
    assert without_crud(" \t<>,;: ") == ""


def test_a_runs_overrides_win_for_that_call_only(base: GitRepo, monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "From Env")
    token = IDENTITY_OVERRIDES.set({"GIT_AUTHOR_NAME": "Given", "GIT_AUTHOR_EMAIL": "g@x",
                                    "GIT_AUTHOR_DATE": "@1 +0100"})
    try:
        assert identity(Repo("."), "author").line() == "Given <g@x> 1 +0100"
        assert identity(Repo("."), "committer").line() == f"Config User <config@example.com> {DATE}"
    finally:
        IDENTITY_OVERRIDES.reset(token)
    assert identity(Repo("."), "author").line() == f"From Env <config@example.com> {DATE}"
    assert os.environ["GIT_AUTHOR_NAME"] == "From Env"


def test_run_environ_is_the_process_environment_with_the_runs_identity_over_it(monkeypatch):
    monkeypatch.setenv("GIT_AUTHOR_NAME", "From Env")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "env@example.com")
    assert run_environ() is os.environ  # nothing given: the environment as it is
    token = IDENTITY_OVERRIDES.set({"GIT_AUTHOR_NAME": "Given"})
    try:
        env = run_environ()
        assert env["GIT_AUTHOR_NAME"] == "Given"
        assert env["GIT_AUTHOR_EMAIL"] == "env@example.com"  # what is not given stays
        assert os.environ["GIT_AUTHOR_NAME"] == "From Env"  # the process's is untouched
    finally:
        IDENTITY_OVERRIDES.reset(token)
    assert run_environ() is os.environ
