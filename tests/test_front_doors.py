"""The four front doors agree (issue 23): one table of situations run through the command
with --json, the library, `serve` and `mcp` (through the SDK's own client, one session for
the whole table), each giving the same status, exit code, error_kind and fault.  The
expected values are written in the table, not read from any door."""
from __future__ import annotations

import json
from importlib.util import find_spec

import pytest

import git_aiapply
from conftest import AI_APPLY, LOUDER_BETA, GitRepo
from serve_client import Server

HAS_MCP = find_spec("mcp") is not None and find_spec("anyio") is not None

REFUSED_EDIT = ("Fix.\n\n```diff\n--- a/src/b.txt\n+++ b/src/b.txt\n@@\n-no such line\n"
                "+x\n```\n")
CUT_OFF = json.dumps({"model": "m", "choices": [{"finish_reason": "length", "message": {
    "role": "assistant", "content": LOUDER_BETA[:40]}}]})
DEAD_PID = 2 ** 22 + 12345  # above Linux's pid_max: never a live process


def _set_config(repo):
    repo.git("config", "aiapply.format", "no-such-format")


def _unset_config(repo):
    repo.git("config", "--unset", "aiapply.format")


def _journal(repo):
    (repo.root / ".git" / "AI_APPLY_JOURNAL").write_text(json.dumps({"pid": DEAD_PID}))


def _lock(repo):
    (repo.root / ".git" / "index.lock").write_bytes(b"")


def _merge(repo):
    (repo.root / ".git" / "MERGE_HEAD").write_text(repo.head() + "\n")


def _dirty(repo):
    repo.write("src/b.txt", "alpha\nbeta\nmine\n")


def _remover(name):
    return lambda repo: (repo.root / ".git" / name).unlink()


def _nothing(repo):
    pass


# name: (set up, response, take down, (status, exit code, error_kind, fault))
SITUATIONS = {
    "bad config": (_set_config, LOUDER_BETA, _unset_config,
                   ("fatal", 128, "config", "repository")),
    "leftover journal": (_journal, LOUDER_BETA, _remover("AI_APPLY_JOURNAL"),
                         ("fatal", 128, "state", "repository")),
    "held lock": (_lock, LOUDER_BETA, _remover("index.lock"),
                  ("fatal", 128, "lock", "repository")),
    "merge in progress": (_merge, LOUDER_BETA, _remover("MERGE_HEAD"),
                          ("fatal", 128, "state", "repository")),
    "dirty file": (_dirty, LOUDER_BETA, _nothing, ("refused", 1, "dirty", "repository")),
    "cut-off answer": (_nothing, CUT_OFF, _nothing, ("refused", 1, "truncated", "response")),
    "applied": (_nothing, LOUDER_BETA, _nothing, ("applied", 0, None, None)),
    "refused edit": (_nothing, REFUSED_EDIT, _nothing, ("refused", 1, "refused", "response")),
}


def _key(d: dict) -> tuple:
    return (d["status"], d["exit_code"], d["error_kind"], d["fault"])


def by_command(repo: GitRepo, response: str) -> tuple:
    r = repo.run("--json", response=response)
    d = json.loads(r.out)  # exactly one object, whatever happened (docs/JSON.md)
    assert d["exit_code"] == r.returncode, (r.out, r.err)
    return _key(d)


def by_library(repo: GitRepo, response: str) -> tuple:
    try:
        result = git_aiapply.apply(response, repo=repo.root)
    except git_aiapply.FatalError as e:  # docs/API.md: the command's exit 128 is raised
        from git_aiapply.errors import fault_of

        return ("fatal", 128, e.kind, fault_of(e.kind))
    return (result.status, result.exit_code, result.error_kind, result.fault)


def by_mcp_answer(result) -> tuple:
    text = result.content[0].text
    if result.is_error:  # a fatal run: "fatal: ...", then the --json object on the last line
        assert "fatal: " in text.split("\n", 1)[0], text  # the SDK may put words before it
        return _key(json.loads(text.rsplit("\n", 1)[1]))
    return _key(json.loads(text))


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.write("README.md", "hello\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def _restore(repo: GitRepo, start: str) -> None:
    repo.git("reset", "-q", "--hard", start)


def test_every_front_door_gives_the_same_answer(base: GitRepo):
    start = base.head()
    server = Server(base)
    seen: dict[str, dict[str, tuple]] = {name: {} for name in SITUATIONS}

    def each_door(name, mcp_call=None):
        """Run the situation through the doors, restoring the repository after each."""
        set_up, response, take_down, _ = SITUATIONS[name]
        doors = [("command", lambda: by_command(base, response)),
                 ("library", lambda: by_library(base, response)),
                 ("serve", lambda: _key(server.ask({"response": response})))]
        for door, run in doors:
            set_up(base)
            try:
                seen[name][door] = run()
            finally:
                take_down(base)
                _restore(base, start)
        return set_up, take_down, response

    try:
        if HAS_MCP:
            _with_mcp(base, start, each_door, seen)
        else:
            for name in SITUATIONS:
                each_door(name)
    finally:
        server.close()
    for name, (_, _, _, expected) in SITUATIONS.items():
        assert len(seen[name]) == (4 if HAS_MCP else 3), (name, seen[name])
        for door, got in seen[name].items():
            assert got == expected, (name, door, got)
    assert base.head() == start


def _with_mcp(repo: GitRepo, start: str, each_door, seen) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def main():
        params = StdioServerParameters(command=AI_APPLY[0], args=[*AI_APPLY[1:], "mcp"],
                                       env=repo.env, cwd=str(repo.root))
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for name in SITUATIONS:
                    set_up, take_down, response = each_door(name)
                    set_up(repo)
                    try:
                        answer = await session.call_tool("apply_response",
                                                         {"response": response})
                        seen[name]["mcp"] = by_mcp_answer(answer)
                    finally:
                        take_down(repo)
                        _restore(repo, start)

    anyio.run(main)


def test_a_fatal_run_of_several_responses_prints_one_json_line(base: GitRepo, tmp_path):
    """Stopped before any response (a leftover journal): JSON Lines still, one object on
    one line, as for each response of a run of several (docs/JSON.md)."""
    _journal(base)
    answers = []
    for n in (1, 2):
        path = tmp_path / f"answer-{n}.md"
        path.write_text(LOUDER_BETA)
        answers.append(str(path))
    r = base.run("--json", *answers)
    lines = r.out.splitlines()
    assert r.returncode == 128 and len(lines) == 1, r.out
    assert _key(json.loads(lines[0])) == ("fatal", 128, "state", "repository")


def test_unknown_error_kinds_cannot_be_written():
    from git_aiapply.errors import ApplyError, ErrorKind, FatalError

    for make in (lambda k: ApplyError("x", kind=k), lambda k: FatalError("x", kind=k)):
        with pytest.raises(ValueError):
            make("drity")
        assert make("dirty").kind is ErrorKind.DIRTY  # a known kind's value is its member


def test_the_library_does_not_import_the_command_line():
    """Nothing the library imports, however indirectly (imports inside functions too),
    is in commands/: the preparation both share lives in prepare.py."""
    from test_architecture import package_imports

    imports = package_imports()
    seen, todo = set(), ["git_aiapply.doors.api"]
    while todo:
        name = todo.pop()
        if name in seen or name not in imports:
            continue
        seen.add(name)
        todo.extend(imports[name].modules)
    assert not [m for m in seen if m.startswith("git_aiapply.cli.commands")]
    assert "git_aiapply.run.prepare" in seen


@pytest.mark.parametrize("option, value", [("date", "not a date"), ("author", "nobody-at-all")])
def test_an_option_git_would_not_read_is_the_same_fatal_at_every_door(base: GitRepo, option, value):
    # options, not only repository states: --date / --author that git cannot read
    expected = ("fatal", 128, "usage", "usage")
    r = base.run("--json", f"--{option}", value, response=LOUDER_BETA)
    assert _key(json.loads(r.out)) == expected and r.returncode == 128
    with pytest.raises(git_aiapply.FatalError) as e:
        git_aiapply.apply(LOUDER_BETA, repo=base.root, **{option: value})
    assert e.value.kind == "usage"
    server = Server(base)
    try:
        assert _key(server.ask({"response": LOUDER_BETA, "options": {option: value}})) == expected
    finally:
        server.close()


def test_an_unknown_error_kind_cannot_reach_the_json_through_an_outcome():
    from git_aiapply.run.pipeline import Outcome, Status
    from git_aiapply.answer.response import blank_response

    assert Outcome(blank_response("r"), Status.REFUSED, 1, error_kind="dirty").to_json()[
        "error_kind"] == "dirty"
    with pytest.raises(ValueError):
        Outcome(blank_response("r"), Status.REFUSED, 1, error_kind="drity").to_json()


def test_a_fatal_run_with_verbose_has_empty_edits_at_every_door(base: GitRepo):
    base.git("config", "aiapply.format", "nope")
    r = base.run("--json", "-v", response=LOUDER_BETA)
    assert r.returncode == 128 and json.loads(r.out)["edits"] == []
    server = Server(base)
    try:
        answer = server.ask({"response": LOUDER_BETA, "options": {"verbose": True}})
    finally:
        server.close()
    assert answer["status"] == "fatal" and answer["edits"] == []
