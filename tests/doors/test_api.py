"""The library (docs/API.md): git_aiapply.apply / check / parse / show / undo, run
in-process against real repositories, checked with the git CLI and against the command."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import git_aiapply
from git_aiapply.doors.api import Result, Session
from conftest import LOUDER_BETA, GitRepo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def base(repo: GitRepo, env) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.write("README.md", "hello\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def diff(path: str, old: str, new: str, why: str = "Change it.") -> str:
    return f"{why}\n\n```diff\n--- a/{path}\n+++ b/{path}\n@@\n-{old}\n+{new}\n```\n"


def test_apply_commits_and_result_is_the_json_object(base: GitRepo, tmp_path):
    before = base.head()
    r = git_aiapply.apply(LOUDER_BETA, repo=base.root)
    assert isinstance(r, Result) and r.status == "applied" and r.ok and r.exit_code == 0
    assert r.commit == base.head() and r.base == before and r.branch == "main"
    assert base.read("src/b.txt") == b"alpha\nBETA\n"
    assert base.git("status", "--porcelain").strip() == ""
    assert base.git("log", "-1", "--format=%s").strip() == "Make beta louder"
    assert [(f.path, f.action, f.added, f.removed) for f in r.files] == [("src/b.txt", "update", 1, 1)]
    assert r.formats == ("unified-diff",) and "AI-Response: " + r.response_id in r.message
    # the fields are exactly those of the command's --json object
    resp = tmp_path / "again.md"
    resp.write_text(diff("README.md", "hello", "HELLO"))
    out = json.loads(base.run("--json", "--check", str(resp)).out)
    # (all but ``edits``, which only -v / verbose=True adds: run/test_pipeline_verbose.py,
    # and ``suggestion``, only on a refusal whose fix is known: run/test_suggest.py)
    assert [f for f in Result.__dataclass_fields__ if f not in ("edits", "suggestion")] \
        == list(out)
    assert Result.from_json(out).to_json() == out
    # the result is frozen
    with pytest.raises(AttributeError):
        r.status = "refused"  # type: ignore[misc]


def test_refusal_is_a_result_equal_to_the_commands(base: GitRepo, tmp_path):
    text = diff("src/b.txt", "gamma", "GAMMA")
    snap = base.snapshot()
    r = git_aiapply.apply(text, repo=base.root, name="bad")
    assert r.status == "refused" and r.exit_code == 1 and not r.ok and r.commit is None
    assert r.errors[0].file == "src/b.txt" and "gamma" in r.error_text
    assert base.snapshot() == snap
    f = tmp_path / "bad.md"
    f.write_text(text)
    cli = base.run("--json", str(f))
    assert cli.returncode == 1
    assert r.to_json() == json.loads(cli.out)


def test_check_diff_and_options(base: GitRepo):
    snap = base.snapshot()
    r = git_aiapply.check(LOUDER_BETA, repo=base.root, diff=True)
    assert r.status == "would-apply" and "+BETA" in r.diff and base.snapshot() == snap
    r = git_aiapply.apply(LOUDER_BETA, repo=base.root, branch="try/one", message="Mine",
                          trailers=False, signoff=True)
    assert r.status == "applied" and r.branch == "try/one"
    after = base.snapshot()
    assert {k: after[k] for k in ("files", "index", "head", "status")} == \
        {k: snap[k] for k in ("files", "index", "head", "status")}
    msg = base.message("try/one")
    assert msg.startswith("Mine\n") and "AI-Response" not in msg and "Signed-off-by: " in msg
    # without trailers nothing marks it: on that branch it no longer fits
    assert git_aiapply.apply(LOUDER_BETA, repo=base.root, branch="try/one").status == "refused"
    # with them, the same response again on its branch is already applied
    first = git_aiapply.apply(LOUDER_BETA, repo=base.root, branch="try/two")
    again = git_aiapply.apply(LOUDER_BETA, repo=base.root, branch="try/two")
    assert (first.status, again.status) == ("applied", "already-applied")
    assert again.commit == first.commit == base.git("rev-parse", "try/two").strip()


@pytest.mark.parametrize("options, words", [
    ({"chek": True}, "unknown option 'chek'"),
    ({"check": "yes"}, "takes a bool"),
    ({"max_bytes": True}, "takes a int"),
    ({"format": "nope"}, "unknown format 'nope'"),
    ({"base": "HEAD"}, "goes with branch"),
    ({"branch": "try/{n}"}, "is a template"),
    ({"branch": "bad..name"}, "invalid branch name"),
    ({"verify": True}, "goes with branch"),
])
def test_bad_options_raise_clear_errors(base: GitRepo, options, words):
    snap = base.snapshot()
    with pytest.raises(git_aiapply.InvalidOptions) as e:
        git_aiapply.apply(LOUDER_BETA, repo=base.root, **options)
    assert words in str(e.value)
    assert isinstance(e.value, ValueError) and isinstance(e.value, git_aiapply.UsageError)
    assert base.snapshot() == snap


def test_environment_failure_raises_fatal_error(tmp_path, env):
    plain = tmp_path / "not-a-repo"
    plain.mkdir()
    (tmp_path / "ceiling").mkdir()
    os.environ["GIT_CEILING_DIRECTORIES"] = str(tmp_path)
    try:
        with pytest.raises(git_aiapply.FatalError) as e:
            git_aiapply.apply(LOUDER_BETA, repo=plain)
    finally:
        del os.environ["GIT_CEILING_DIRECTORIES"]
    assert e.value.exit_code == 128 and "not a git repository" in str(e.value)


def test_response_as_bytes_path_and_chat_json(base: GitRepo, tmp_path):
    r = git_aiapply.apply(diff("README.md", "hello", "bytes").encode(), repo=base.root)
    assert r.status == "applied" and base.read("README.md") == b"bytes\n"
    p = tmp_path / "from-file.md"
    p.write_text(diff("README.md", "bytes", "file"))
    r = git_aiapply.apply(p, repo=base.root)
    assert r.status == "applied" and r.response == "from-file" and base.read("README.md") == b"file\n"
    chat = {"model": "gpt-test", "choices": [{"message": {
        "role": "assistant", "content": diff("README.md", "file", "chat")}}]}
    r = git_aiapply.apply(chat, repo=base.root)
    assert r.status == "applied" and r.model == "gpt-test"
    assert "AI-Model: gpt-test" in base.message()
    with pytest.raises(git_aiapply.InvalidOptions):
        git_aiapply.apply(42, repo=base.root)
    with pytest.raises(git_aiapply.UsageError, match="cannot read"):
        git_aiapply.apply(tmp_path / "missing.md", repo=base.root)


def test_repo_may_be_a_pygit2_repository_or_a_subfolder(base: GitRepo):
    import pygit2

    r = git_aiapply.apply(LOUDER_BETA, repo=pygit2.Repository(str(base.root)))
    assert r.status == "applied" and base.read("src/b.txt") == b"alpha\nBETA\n"
    r = git_aiapply.apply(diff("src/b.txt", "alpha", "ALPHA"), repo=base.root / "src")
    assert r.status == "applied" and base.read("src/b.txt") == b"ALPHA\nBETA\n"


def test_parse_needs_no_repository(tmp_path, monkeypatch):
    from git_aiapply.ops import EditFile, NewFile

    monkeypatch.chdir(tmp_path)
    text = ("Two things.\n\n" + diff("a.py", "x = 1", "x = 2", "")
            + "\n*** Begin Patch\n*** Add File: new.txt\n+hi\n*** End Patch\n")
    p = git_aiapply.parse(text)
    assert [type(op) for op in p.operations] == [EditFile, NewFile]
    assert p.operations[0].path == "a.py" and p.operations[1].text == "hi\n"
    assert p.formats == ("unified-diff", "apply-patch") and "Two things." in p.explanation
    with pytest.raises(git_aiapply.ApplyError) as e:
        git_aiapply.parse("*** Begin Patch\n*** Add File: x\n+cut off")
    assert e.value.problems
    assert git_aiapply.parse(text, format="apply-patch").formats == ("apply-patch",)


def test_show_is_the_commands_view(base: GitRepo):
    base.write("src/b.txt", "alpha\n  beta gamma\n")
    assert git_aiapply.show("src/b.txt", repo=base.root) == base.run("show", "src/b.txt").out.rstrip("\n")
    assert git_aiapply.show("src/b.txt", repo=base.root, rev="HEAD") == \
        base.run("show", "--rev", "HEAD", "src/b.txt").out.rstrip("\n")
    with pytest.raises(git_aiapply.UsageError):
        git_aiapply.show("../outside", repo=base.root)


def test_undo_takes_back_the_commit(base: GitRepo):
    before = base.head()
    assert git_aiapply.apply(LOUDER_BETA, repo=base.root).status == "applied"
    applied = base.head()
    done = git_aiapply.undo(repo=base.root)
    assert isinstance(done, git_aiapply.UndoResult) and done.ok
    assert (done.status, done.undone, done.commits, done.head) == (
        "undone", applied, (applied,), before)
    assert done.files == (git_aiapply.UndoFile("src/b.txt", "revert"),)
    assert done.to_json()["status"] == "undone" and done.to_json()["undone"] == applied
    assert base.head() == before
    assert base.read("src/b.txt") == b"alpha\nbeta\n"
    refused = git_aiapply.undo(repo=base.root)  # HEAD is not the tool's commit
    assert (refused.status, refused.exit_code, refused.ok) == ("refused", 1, False)
    assert refused.error_text and refused.errors and base.head() == before
    assert refused.to_json()["error_text"] == refused.error_text


def test_diff_is_the_commands_diff_writes_nothing_and_returns_the_diff(base: GitRepo):
    """docs/API.md: ``diff=True`` is ``--diff``: status would-apply, the diff in
    result.diff, byte for byte what the command prints; nothing written."""
    before = base.snapshot()
    result = git_aiapply.apply(LOUDER_BETA, repo=base.root, diff=True)
    assert (result.status, result.commit) == ("would-apply", None)
    assert result.diff == base.run("--diff", response=LOUDER_BETA).out
    assert "+BETA" in result.diff
    assert base.snapshot() == before


def test_warm_index_sees_what_other_git_processes_did(base: GitRepo):
    s = Session(base.root)
    assert s.apply(LOUDER_BETA).status == "applied"
    cache = s.repo.index_cache
    assert cache.peek(os.path.join(s.repo.gitdir, "index")) is not None  # kept warm
    # another process stages a new file and changes an unrelated one, without committing
    base.write("staged.txt", "staged\n")
    base.git("add", "staged.txt")
    base.write("README.md", "unstaged\n")
    assert cache.peek(os.path.join(s.repo.gitdir, "index")) is None  # the file changed
    r = s.apply(diff("src/b.txt", "BETA", "BETA2"))
    assert r.status == "applied"
    assert base.git("status", "--porcelain").splitlines() == [" M README.md", "A  staged.txt"]
    assert "staged.txt" not in base.git("ls-tree", "-r", "--name-only", "HEAD")
    # another process commits: HEAD moves; the next response builds on its commit
    base.git("commit", "-q", "-m", "theirs")
    theirs = base.head()
    r = s.apply(diff("src/b.txt", "BETA2", "BETA3"))
    assert r.status == "applied" and r.base == theirs
    assert "staged.txt" in base.git("ls-tree", "-r", "--name-only", "HEAD")
    assert base.git("status", "--porcelain").splitlines() == [" M README.md"]
    # an index-only change of the same size (a staged mode change) is seen too: the file
    # is no longer clean (a stale warm index would have applied and dropped the change)
    base.git("update-index", "--chmod=+x", "src/b.txt")
    r = s.apply(diff("src/b.txt", "BETA3", "BETA4"))
    assert r.status == "refused" and r.error_kind == "dirty" and "staged" in r.error_text
    assert base.git("ls-files", "-s", "src/b.txt").startswith("100755 ")
    base.git("fsck", "--no-progress")


def test_git_index_file_is_read_at_each_call(base: GitRepo, tmp_path, monkeypatch):
    s = Session(base.root)
    assert s.apply(LOUDER_BETA).status == "applied"  # the index warm, from .git/index
    other = tmp_path / "other-index"
    base.git("read-tree", "HEAD", "--index-output", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    r = s.apply(diff("README.md", "hello", "HELLO"), cached=True)
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert r.status == "staged"
    by_git = subprocess.run(["git", "diff", "--cached", "--name-only"], cwd=base.root,
                            env=dict(base.env, GIT_INDEX_FILE=str(other)), capture_output=True)
    assert by_git.stdout == b"README.md\n"  # staged in the index GIT_INDEX_FILE names
    assert base.git("diff", "--cached", "--name-only") == ""  # .git/index untouched
    assert base.git("status", "--porcelain") == "" and base.read("README.md") == b"hello\n"


def test_the_config_files_are_chosen_at_each_call(base: GitRepo, tmp_path, monkeypatch):
    base.git("config", "--remove-section", "user")
    for k in ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"):
        monkeypatch.delenv(k, raising=False)
    s = Session(base.root)
    for n, who in enumerate(("first", "second")):
        (tmp_path / f"{who}.cfg").write_text(f"[user]\n\tname = {who}\n\temail = {who}@x\n")
        monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / f"{who}.cfg"))
        old, new = ("beta", "BETA") if n == 0 else ("BETA", "BETA2")
        assert s.apply(diff("src/b.txt", old, new)).status == "applied"
        assert base.git("log", "-1", "--format=%an %ae %cn").strip() == f"{who} {who}@x {who}"


def test_warm_index_dropped_when_a_hook_restages(base: GitRepo):
    hook = base.root / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho generated > gen.txt\ngit add gen.txt\n")
    hook.chmod(0o755)
    s = Session(base.root)
    assert s.apply(LOUDER_BETA).status == "applied"
    hook.unlink()
    assert s.apply(diff("README.md", "hello", "HELLO")).status == "applied"
    # the second commit's index came from disk, holding what the hook staged
    assert "gen.txt" in base.git("ls-files")
    assert base.git("status", "--porcelain").strip() == ""


def test_session_reads_config_changed_between_requests(base: GitRepo):
    """A run reads the config files once (as git); a session reads them again for each
    request, so `git config` run between two requests is obeyed by the second."""
    s = Session(base.root)
    assert s.apply(LOUDER_BETA).status == "applied"
    assert "AI-Response:" in base.git("log", "-1", "--format=%B")
    base.git("config", "aiapply.trailers", "false")
    assert s.apply(diff("README.md", "hello", "HELLO")).status == "applied"
    assert "AI-Response:" not in base.git("log", "-1", "--format=%B")
    base.git("config", "aiapply.format", "no-such-format")
    # a bad setting is the repository's, fatal as from the command (issue 23)
    with pytest.raises(git_aiapply.FatalError, match="no-such-format"):
        s.apply(diff("README.md", "HELLO", "hello"))


def test_import_is_cheap_and_names_stay_functions():
    code = ("import sys, git_aiapply; heavy = [m for m in ('pygit2', 'click', 'xxhash') "
            "if m in sys.modules]; print(heavy)\n"
            "import git_aiapply.run.pipeline, git_aiapply.workflows.undo_last\n"
            "print(callable(git_aiapply.apply), git_aiapply.apply.__module__, "
            "git_aiapply.undo.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "True git_aiapply.doors.api git_aiapply.doors.api"]


def _doc_example(name: str) -> str:
    """The python block of docs/API.md that follows the marker ``<!-- example: NAME -->``."""
    text = (ROOT / "docs" / "API.md").read_text()
    m = re.search(rf"<!-- example: {name} -->\s*```python\n(.*?)```", text, re.S)
    assert m, f"docs/API.md has no example {name}"
    return m.group(1)


def test_harness_example_from_the_docs(base: GitRepo, tmp_path):
    answers = tmp_path / "answers.jsonl"
    rows = [{"id": "a1", "response": diff("src/b.txt", "beta", "ONE")},
            {"id": "a2", "response": diff("src/b.txt", "nope", "TWO")},
            {"id": "a3", "response": diff("README.md", "hello", "THREE")}]
    answers.write_text("".join(json.dumps(r) + "\n" for r in rows))
    snap = base.snapshot()
    code = _doc_example("harness")
    out = subprocess.run([sys.executable, "-c", code, str(base.root), str(answers)],
                         capture_output=True, text=True, env=base.env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(l) for l in out.stdout.splitlines()]
    assert [(l["id"], l["status"]) for l in lines] == [("a1", "applied"), ("a2", "refused"), ("a3", "applied")]
    assert base.git("show", "eval/a1:src/b.txt") == "alpha\nONE\n"
    assert base.git("show", "eval/a3:README.md") == "THREE\n"
    assert base.git("rev-parse", "--verify", "-q", "eval/a2", check=False).strip() == ""
    assert "could not find" in lines[1]["error_text"]
    snap2 = base.snapshot()
    assert snap2["files"] == snap["files"] and snap2["head"] == snap["head"]


def _two_choices() -> dict:
    def choice(k: int, word: str) -> dict:
        return {"index": k, "finish_reason": "stop",
                "message": {"role": "assistant", "content": diff("src/b.txt", "beta", word)}}
    return {"object": "chat.completion", "model": "gpt-4o", "choices": [choice(0, "ONE"), choice(1, "TWO")]}


def test_several_choices_are_refused_and_the_docs_show_one_branch_each(base: GitRepo, tmp_path):
    # BEHAVIOR §1: several choices (n > 1) are several responses; the library applies one
    # response per call (a template is the command's), so it refuses and says what to do
    snap = base.snapshot()
    for options in ({}, {"branch": "try"}):
        r = git_aiapply.apply(_two_choices(), repo=base.root, **options)
        assert r.status == "refused" and r.fault == "response"
        assert "2 choices" in r.error_text and "one call per choice" in r.error_text
    with pytest.raises(git_aiapply.ApplyError, match="2 choices"):
        git_aiapply.parse(_two_choices())
    assert base.snapshot() == snap
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps(_two_choices()))
    out = subprocess.run([sys.executable, "-c", _doc_example("choices"), str(base.root), str(answer)],
                         capture_output=True, text=True, env=base.env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert [json.loads(l)["status"] for l in out.stdout.splitlines()] == ["applied", "applied"]
    assert base.git("show", "try/1:src/b.txt") == "alpha\nONE\n"
    assert base.git("show", "try/2:src/b.txt") == "alpha\nTWO\n"
    assert base.snapshot()["files"] == snap["files"] and base.head() == snap["head"]


# --------------------------------------------------------------------------- the command's parsing and options

RESPONSES_TOOL_ANSWER = {
    "object": "response", "status": "completed", "model": "gpt-5.1",
    "output": [
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "Greet in two places.\n\n"
                      + diff("README.md", "hello", "HELLO", "")}]},
        {"type": "apply_patch_call", "call_id": "c1", "status": "completed",
         "operation": {"type": "create_file", "path": "greet.txt", "diff": "+hi\n"}},
        {"type": "apply_patch_call", "call_id": "c2", "status": "completed",
         "operation": {"type": "update_file", "path": "src/b.txt",
                       "diff": "@@\n alpha\n-beta\n+BETA\n"}},
    ],
}


def test_parse_reads_tool_calls_as_the_command_does(base: GitRepo, tmp_path):
    from git_aiapply.ops import EditFile, NewFile

    text = json.dumps(RESPONSES_TOOL_ANSWER)
    p = git_aiapply.parse(text)
    assert [(type(op), op.path) for op in p.operations] == [
        (EditFile, "README.md"), (NewFile, "greet.txt"), (EditFile, "src/b.txt")]
    assert p.model == "gpt-5.1" and "Greet in two places." in p.explanation
    resp = tmp_path / "tools.json"
    resp.write_text(text)
    out = json.loads(base.run("--json", "--check", str(resp)).out)
    assert list(p.formats) == out["formats"] == ["unified-diff", "tool-call"]
    assert p.response_id == out["response_id"]
    assert git_aiapply.parse(RESPONSES_TOOL_ANSWER) == p  # the JSON object itself
    # an edit of a tool nobody knows is refused by parse too, naming the tool
    unknown = dict(RESPONSES_TOOL_ANSWER, output=[
        {"type": "function_call", "call_id": "c9", "name": "save_file",
         "arguments": json.dumps({"path": "x.txt", "content": "x"})}])
    with pytest.raises(git_aiapply.ApplyError) as e:
        git_aiapply.parse(unknown)
    assert "'save_file'" in str(e.value)


def test_parse_takes_the_path_options(tmp_path, monkeypatch):
    # -p counts a git diff's a/ prefix, as git apply: -p2 takes off a/proj/
    monkeypatch.chdir(tmp_path)
    text = diff("proj/src/a.py", "x = 1", "x = 2") + diff("proj/README.md", "a", "b", "")
    p = git_aiapply.parse(text, strip=2, directory="lib", exclude="*.md")
    assert [op.path for op in p.operations] == ["lib/src/a.py"]
    p = git_aiapply.parse(text, strip=2, include=["*.md"])
    assert [op.path for op in p.operations] == ["README.md"]
    with pytest.raises(git_aiapply.InvalidOptions):
        git_aiapply.parse(text, strip=-1)


def test_path_options_as_the_command(base: GitRepo, tmp_path):
    text = (diff("proj/b.txt", "beta", "BETA", "Two files.")
            + diff("proj/README.md", "hello", "HELLO", ""))
    resp = tmp_path / "paths.md"
    resp.write_text(text)
    cmd = json.loads(base.run("--json", "--check", "-p", "2", "--directory", "src",
                              "--exclude", "*.md", str(resp)).out)
    r = git_aiapply.check(text, repo=base.root, strip=2, directory="src", exclude="*.md")
    assert [f.path for f in r.files] == [f["path"] for f in cmd["files"]] == ["src/b.txt"]
    r = git_aiapply.apply(text, repo=base.root, strip=2, include=("README.md",))
    assert r.status == "applied" and [f.path for f in r.files] == ["README.md"]
    assert base.read("README.md") == b"HELLO\n" and base.read("src/b.txt") == b"alpha\nbeta\n"
    # every change left out: nothing to do, as the command says
    r = git_aiapply.apply(text, repo=base.root, strip=2, include="nothing/*")
    assert (r.status, r.exit_code) == ("empty", 0) and "left out" in r.note
    for bad in ({"strip": -1}, {"strip": "1"}, {"include": 3}, {"exclude": ["ok", 4]},
                {"directory": 1}):
        with pytest.raises(git_aiapply.InvalidOptions):
            git_aiapply.apply(text, repo=base.root, **bad)


def test_author_and_date_as_the_command(base: GitRepo, tmp_path):
    committer = base.git("log", "-1", "--format=%cn <%ce>").strip()
    r = git_aiapply.apply(LOUDER_BETA, repo=base.root, author="Ann Lee <ann@example.com>",
                          date="2020-01-02T03:04:05+01:00")
    assert r.status == "applied"
    assert base.git("log", "-1", "--format=%an <%ae>|%aI|%cn <%ce>").strip() == \
        f"Ann Lee <ann@example.com>|2020-01-02T03:04:05+01:00|{committer}"
    assert "GIT_AUTHOR_NAME" not in os.environ or os.environ["GIT_AUTHOR_NAME"] != "Ann Lee"
    # the next call without them is the repository's own author again, dated now
    r = git_aiapply.apply(diff("README.md", "hello", "HELLO"), repo=base.root)
    assert base.git("log", "-1", "--format=%an <%ae>").strip() != "Ann Lee <ann@example.com>"
    assert not base.git("log", "-1", "--format=%aI").startswith("2020")
    # a pattern names an earlier author, as git commit --author
    base.write("README.md", "x\n")
    r = git_aiapply.apply(diff("README.md", "x", "y"), repo=base.root, include_dirty=True,
                          author="ann lee")
    assert base.git("log", "-1", "--format=%an <%ae>").strip() == "Ann Lee <ann@example.com>"
    snap = base.snapshot()
    with pytest.raises(git_aiapply.InvalidOptions):  # not text: a bad call
        git_aiapply.apply(diff("src/b.txt", "alpha", "ALPHA"), repo=base.root, author=3)
    for bad in ({"author": "nobody-at-all"}, {"date": "not a date"}):
        # what git would not read: fatal with kind usage, as the command says it
        with pytest.raises(git_aiapply.FatalError) as e:
            git_aiapply.apply(diff("src/b.txt", "alpha", "ALPHA"), repo=base.root, **bad)
        assert e.value.kind == "usage"
    assert base.snapshot() == snap


def test_hooks_see_the_calls_author_as_with_the_command(base: GitRepo, tmp_path):
    seen = tmp_path / "seen.txt"
    hook = base.root / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\necho \"$GIT_AUTHOR_NAME|$GIT_AUTHOR_EMAIL|$GIT_AUTHOR_DATE\" >> '{seen}'\n")
    hook.chmod(0o755)
    date = "@1577934245 +0100"
    r = git_aiapply.apply(LOUDER_BETA, repo=base.root, author="Ann Lee <ann@example.com>",
                          date=date)
    assert r.status == "applied"
    # branch mode runs the hooks in a temporary worktree with --verify: the same author
    r = git_aiapply.apply(diff("README.md", "hello", "HELLO"), repo=base.root, branch="try/v",
                          verify=True, author="Bo Chen <bo@example.com>", date=date)
    assert r.status == "applied", r.error_text
    lines = seen.read_text().splitlines()
    assert lines[0] == f"Ann Lee|ann@example.com|{date}"
    assert lines[1].startswith("Bo Chen|bo@example.com|")
    assert base.git("log", "-1", "--format=%an|%aI", "try/v").strip() == \
        "Bo Chen|2020-01-02T04:04:05+01:00"


def _series(base: GitRepo, *changes: tuple[str, str, str]) -> str:
    """A `git format-patch --stdout` series of ``changes`` (path, text, author name) made
    on top of HEAD, which is then reset back: the mbox, and the tree it should give."""
    start = base.head()
    for path, text, who in changes:
        base.write(path, text)
        env = dict(base.env, GIT_AUTHOR_NAME=who, GIT_AUTHOR_EMAIL=f"{who.lower()}@x.org",
                   GIT_AUTHOR_DATE="1700000000 +0200")
        subprocess.run(["git", "commit", "-qam", f"Set {path} ({who})"], cwd=base.root,
                       env=env, check=True)
    mbox = base.git("format-patch", f"-{len(changes)}", "--stdout")
    tree = base.git("rev-parse", "HEAD^{tree}")
    base.git("reset", "-q", "--hard", start)
    return mbox, tree


def test_an_mbox_of_several_mails_is_one_commit_each_as_git_am(base: GitRepo):
    mbox, tree = _series(base, ("README.md", "one\n", "Ann"), ("src/b.txt", "two\n", "Bob"))
    start = base.head()
    r = git_aiapply.apply(mbox, repo=base.root, name="series.mbox")
    assert r.status == "applied" and r.commit == base.head()
    assert base.git("rev-parse", "HEAD^{tree}") == tree
    assert base.git("log", "--format=%an|%s", f"{start}..").splitlines() == [
        "Bob|Set src/b.txt (Bob)", "Ann|Set README.md (Ann)"]
    assert r.response == "series-2" and r.note.startswith("mail 2 of 2; the mails before it: ")
    # a check judges each mail on top of the ones before it, and writes nothing
    base.git("reset", "-q", "--hard", start)
    mbox, _ = _series(base, ("README.md", "one\n", "Ann"), ("README.md", "two\n", "Bob"))
    c = git_aiapply.check(mbox, repo=base.root)
    assert c.status == "would-apply" and base.head() == start


def test_an_mbox_stops_at_the_first_refused_mail_keeping_the_ones_before(base: GitRepo):
    mbox, _ = _series(base, ("README.md", "one\n", "Ann"), ("src/b.txt", "two\n", "Bob"))
    start = base.head()
    base.write("src/b.txt", "changed elsewhere\n")
    base.git("commit", "-qam", "elsewhere")
    mid = base.head()
    r = git_aiapply.apply(mbox, repo=base.root)
    assert r.status == "refused" and r.response.endswith("-2")
    assert base.git("log", "--format=%s", f"{mid}..").splitlines() == ["Set README.md (Ann)"]
    assert start != mid
