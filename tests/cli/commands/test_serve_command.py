"""cli/commands/serve.py, the click command of `git ai-apply serve` (the bare `serve` skips
click, main.py): `serve --` reaches it and hands over to the same JSON-lines server, its
help names the request shapes, and extra words are a usage error before any request is
read; outside a repository it is git's fatal."""
from __future__ import annotations

import json

import pytest

from conftest import LOUDER_BETA, GitRepo, run_command


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    return repo


def test_through_click_it_is_the_same_server(base: GitRepo, tmp_path):
    saved = tmp_path / "r.md"
    saved.write_text(LOUDER_BETA)
    requests = [{"path": str(saved), "options": {"check": True}, "id": "a"},
                {"response": LOUDER_BETA, "id": "b"}]
    stdin = b"".join(json.dumps(q).encode() + b"\n" for q in requests)
    before = base.head()
    r = base.run("serve", "--", stdin=stdin)
    assert r.returncode == 0, r.err
    first, second = [json.loads(line) for line in r.out.splitlines()]
    assert (first["id"], first["status"], first["commit"]) == ("a", "would-apply", None)
    assert (second["id"], second["status"]) == ("b", "applied")
    assert second["commit"] == base.head() and base.git("rev-parse", "HEAD~1").strip() == before
    assert base.git("show", "HEAD:src/b.txt") == "alpha\nBETA\n"


def test_help_and_usage_errors_read_no_request(base: GitRepo):
    request = json.dumps({"response": LOUDER_BETA}).encode() + b"\n"
    r = base.run("serve", "-h", stdin=request)
    assert r.returncode == 0
    assert '{"response": TEXT, "options": {...}}' in r.out and '{"path": FILE,' in r.out
    r = base.run("serve", "extra", stdin=request)
    assert r.returncode == 2 and r.out == ""
    assert "Got unexpected extra argument (extra)" in r.err
    assert base.git("log", "--format=%s") == "base\n"  # nothing was applied


def test_outside_a_repository_is_fatal_before_reading(tmp_path, git_env):
    outside = tmp_path / "outside"
    outside.mkdir()
    env = dict(git_env, GIT_CEILING_DIRECTORIES=str(tmp_path))
    r = run_command(["serve", "--"], cwd=outside, env=env,
                    input=json.dumps({"response": LOUDER_BETA}).encode() + b"\n")
    assert r.returncode == 128 and r.stdout == b""
    assert r.stderr.decode().startswith("fatal: not a git repository")
