"""End-to-end behaviour of `git ai-apply` on real repositories, checked with the git CLI."""
from __future__ import annotations

import json
import subprocess

import pytest

from conftest import AI_APPLY, GitRepo

# The command line end to end.  The tests marked real_command start the installed script
# itself with exec (its entry path: standard input, the working folder, usage errors,
# outside a repository, the output formats); the others run the same command from the
# warm server (conftest.py), which only saves the interpreter's start.
REAL = pytest.mark.real_command

PATCH_A = """Uppercase the first letter of a.

<FILE_CHANGES>
<FILE_PATCH file_path="a.txt">
@@
-alpha
+Alpha
</FILE_PATCH>
</FILE_CHANGES>
"""


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\nbeta\n")
    repo.write("src/b.py", "B = 1\n")
    repo.commit_all("base")
    return repo


@REAL
def test_apply_commits_once_with_explanation_and_trailers(based: GitRepo):
    base = based.head()
    r = based.run(response=PATCH_A)
    assert r.returncode == 0, r.err
    assert based.git("rev-parse", "HEAD^").strip() == base
    assert based.read("a.txt") == b"Alpha\nbeta\n"
    assert based.git("status", "--porcelain") == ""
    msg = based.message()
    assert msg.splitlines()[0] == "Uppercase the first letter of a"
    trailers = based.git("log", "-1", "--format=%(trailers:only,unfold)")
    assert "AI-Format: file-changes" in trailers
    assert "AI-Response: " in trailers
    # the summary line names the branch and the commit, as git commit does
    assert r.out.startswith(f"[main {based.head()[:7]}]")


def test_same_response_again_does_nothing(based: GitRepo):
    assert based.run(response=PATCH_A).returncode == 0
    head = based.head()
    r = based.run(response=PATCH_A)
    assert r.returncode == 0
    assert "already applied" in r.out
    assert based.head() == head


@REAL
def test_stdin_and_dash(based: GitRepo):
    r = based.run("-", stdin=PATCH_A.encode())
    assert r.returncode == 0, r.err
    assert based.read("a.txt").startswith(b"Alpha")


@REAL
def test_no_argument_reads_stdin(based: GitRepo):
    r = based.run(stdin=PATCH_A.encode())
    assert r.returncode == 0, r.err
    assert based.count() == 2


@REAL
def test_runs_from_a_subfolder_with_root_relative_paths(based: GitRepo):
    r = based.run(response=PATCH_A, cwd=based.root / "src")
    assert r.returncode == 0, r.err
    assert based.read("a.txt").startswith(b"Alpha")


def test_unborn_branch_gets_a_root_commit(repo: GitRepo):
    resp = "Start the project.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"README.md\">\n# Hi\n</FILE_NEW>\n</FILE_CHANGES>\n"
    r = repo.run(response=resp)
    assert r.returncode == 0, r.err
    assert repo.count() == 1
    assert repo.git("rev-list", "--parents", "-1", "HEAD").split() == [repo.head()]
    assert repo.git("show", "HEAD:README.md") == "# Hi\n"
    assert repo.git("status", "--porcelain") == ""


def test_detached_head(based: GitRepo):
    based.git("checkout", "-q", "--detach")
    base = based.head()
    r = based.run(response=PATCH_A)
    assert r.returncode == 0, r.err
    assert based.git("rev-parse", "HEAD^").strip() == base
    assert based.git("rev-parse", "main").strip() == base  # the branch did not move
    assert based.git("symbolic-ref", "-q", "HEAD", check=False) == ""


def test_author_and_committer_like_git_commit(based: GitRepo):
    env = dict(based.env)
    env.pop("GIT_AUTHOR_NAME")
    env.pop("GIT_AUTHOR_EMAIL")
    env["GIT_COMMITTER_DATE"] = "@1700000000 +0200"
    env["GIT_AUTHOR_DATE"] = "2005-04-07T22:13:13+02:00"
    r = based.run(response=PATCH_A, env=env)
    assert r.returncode == 0, r.err
    fmt = based.git("log", "-1", "--format=%an|%ae|%cn|%ce|%at|%ai|%ct|%ci")
    an, ae, cn, ce, at, ai, ct, ci = fmt.strip().split("|")
    assert (an, ae) == ("Config User", "config@example.com")  # from git config
    assert (cn, ce) == ("Test Committer", "committer@example.com")  # from the environment
    assert ct == "1700000000" and ci.endswith("+0200")
    assert ai == "2005-04-07 22:13:13 +0200"


def test_reflog_entry(based: GitRepo):
    based.run(response=PATCH_A)
    assert "Uppercase the first letter of a" in based.git("reflog", "-1", "main")
    assert "Uppercase the first letter of a" in based.git("reflog", "-1", "HEAD")


def test_message_options(based: GitRepo):
    r = based.run("-m", "My own subject", "-m", "Second paragraph.", response=PATCH_A)
    assert r.returncode == 0, r.err
    msg = based.message()
    assert msg.startswith("My own subject\n\nSecond paragraph.\n")
    assert "AI-Response:" in msg


def test_message_from_file(based: GitRepo, tmp_path):
    mf = tmp_path / "msg.txt"
    mf.write_text("From a file\n\nBody text.\n")
    r = based.run("-F", str(mf), response=PATCH_A)
    assert r.returncode == 0, r.err
    assert based.message().startswith("From a file\n\nBody text.\n")


def test_no_trailers(based: GitRepo):
    r = based.run("--no-trailers", response=PATCH_A)
    assert r.returncode == 0
    assert "AI-" not in based.message()


@REAL
@pytest.mark.parametrize("args,why", [
    (["--no-such-option"], "unknown option 'no-such-option'"),
    (["/nonexistent/response.md"], "cannot read"),
    (["--format", "klingon"], "unknown format"),
    (["--base", "HEAD"], "--base goes with --branch or -3"),
])
def test_usage_errors_exit_2(based: GitRepo, args, why):
    before = based.snapshot()
    r = based.run(*args)
    assert r.returncode == 2, r.out + r.err
    assert why.lower() in (r.out + r.err).lower()
    assert based.snapshot() == before


@REAL
def test_not_a_repository_is_fatal(tmp_path, git_env):
    d = tmp_path / "plain"
    d.mkdir()
    (tmp_path / "r.md").write_text(PATCH_A)
    env = dict(git_env, GIT_CEILING_DIRECTORIES=str(tmp_path))
    r = subprocess.run([*AI_APPLY, str(tmp_path / "r.md")], cwd=d, env=env, capture_output=True, text=True)
    # the environment, not the response: exit 128 and "fatal:", as git (BEHAVIOR.md §1)
    assert r.returncode == 128
    assert r.stderr.startswith("fatal: not a git repository")
    assert "Traceback" not in r.stderr


@REAL
def test_locked_index_refuses(based: GitRepo):
    lock = based.root / ".git" / "index.lock"
    lock.write_bytes(b"")
    before = based.snapshot()
    r = based.run(response=PATCH_A)
    assert r.returncode == 128 and r.err.startswith("fatal: ")
    assert "index.lock" in r.err
    assert based.snapshot() == before
    assert lock.exists()  # someone else's lock is never removed


def test_format_restriction(based: GitRepo):
    r = based.run("--format", "apply-patch", response=PATCH_A)
    assert r.returncode == 1
    assert "no file changes found" in r.err
    assert "apply-patch" in r.err
    assert based.count() == 1


def test_several_responses_in_sequence(based: GitRepo, tmp_path):
    second = PATCH_A.replace("-alpha\n+Alpha", "-Alpha\n+ALPHA").replace("first letter", "whole word")
    r1 = tmp_path / "one.md"
    r2 = tmp_path / "two.md"
    r1.write_text(PATCH_A)
    r2.write_text(second)
    r = based.run(str(r1), str(r2))
    assert r.returncode == 0, r.err
    assert based.count() == 3
    assert based.read("a.txt") == b"ALPHA\nbeta\n"


def test_refusal_leaves_everything_and_names_the_edit(based: GitRepo):
    based.write("untracked.txt", "mine\n")
    based.write("src/b.py", "B = 2  # unstaged\n")
    based.write("staged.txt", "staged\n")
    based.git("add", "staged.txt")
    before = based.snapshot()
    bad = PATCH_A.replace("-alpha", "-gamma")
    r = based.run(response=bad)
    assert r.returncode == 1
    assert "a.txt" in r.err and "edit 1" in r.err and "could not find" in r.err
    assert "nothing was changed" in r.err
    assert based.snapshot() == before


def test_other_index_entries_keep_stat_and_flags(based: GitRepo):
    based.git("update-index", "--skip-worktree", "src/b.py")
    before = based.git("ls-files", "--debug", "src/b.py")
    r = based.run(response=PATCH_A)
    assert r.returncode == 0, r.err
    assert based.git("ls-files", "--debug", "src/b.py") == before
    assert based.git("ls-files", "-v", "src/b.py").startswith("S ")
    assert based.git("diff-files", "--name-only") == ""


def test_rename_followed_by_git_log(based: GitRepo):
    body = "".join(f"line {i}\n" for i in range(30))
    based.write("docs/old.md", body)
    based.commit_all("docs")
    resp = ("Move the doc.\n\n<FILE_CHANGES>\n"
            "<FILE_RENAME from_path=\"docs/old.md\" to_path=\"guide/new.md\" />\n"
            "<FILE_PATCH file_path=\"guide/new.md\">\n@@\n line 3\n-line 4\n+line four\n</FILE_PATCH>\n"
            "</FILE_CHANGES>\n")
    r = based.run(response=resp)
    assert r.returncode == 0, r.err
    assert based.git("diff", "-M", "--name-status", "HEAD^", "HEAD").startswith("R")
    log = based.git("log", "--follow", "--format=%s", "--", "guide/new.md")
    assert log.splitlines() == ["Move the doc", "docs"]
    assert not (based.root / "docs").exists()  # git removes emptied folders


@REAL
def test_json_outcome(based: GitRepo):
    r = based.run("--json", response=PATCH_A)
    assert r.returncode == 0
    out = json.loads(r.out)
    assert out["status"] == "applied"
    assert out["commit"] == based.head()
    assert out["files"] == [{"path": "a.txt", "action": "update", "old_path": None, "added": 1, "removed": 1}]
    assert out["formats"] == ["file-changes"]


def test_json_refusal_has_locations(based: GitRepo):
    r = based.run("--json", response=PATCH_A.replace("-alpha", "-alpah"))
    assert r.returncode == 1
    out = json.loads(r.out)
    assert out["status"] == "refused"
    err = out["errors"][0]
    assert err["file"] == "a.txt" and err["edit"] == 1
    assert {"line": 1, "text": "alpha"} in err["nearby"]


@REAL
def test_check_and_diff_write_nothing(based: GitRepo):
    before = based.snapshot()
    r = based.run("--check", response=PATCH_A)
    assert r.returncode == 0 and "applies" in r.out
    r = based.run("--diff", response=PATCH_A)
    assert r.returncode == 0
    assert "-alpha\n+Alpha\n" in r.out and "diff --git a/a.txt b/a.txt" in r.out
    assert based.snapshot() == before
    r = based.run("--check", response=PATCH_A.replace("-alpha", "-nope"))
    assert r.returncode == 1
    assert based.snapshot() == before


def test_edits_already_in_place_make_no_commit(based: GitRepo):
    resp = "Same content.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"a.txt\">\nalpha\nbeta\n</FILE_NEW>\n</FILE_CHANGES>\n"
    before = based.snapshot()
    r = based.run(response=resp)
    assert r.returncode == 0
    assert "already in place" in r.out
    assert based.snapshot() == before


def test_show_prints_hashline_view(based: GitRepo):
    from git_aiapply.locate.hashline import line_id

    r = based.run("show", "a.txt")
    assert r.returncode == 0
    assert r.out.splitlines() == ['<FILE_CONTENT path="a.txt">', f"1#{line_id('alpha')}:alpha",
                                  f"2#{line_id('beta')}:beta", "</FILE_CONTENT>"]


@pytest.mark.parametrize("fmt", ["file-changes", "hashline", "apply-patch", "codechange", "unified-diff",
                                 "search-replace", "whole"])
def test_prompt_per_format(based: GitRepo, fmt):
    r = based.run("prompt", fmt)
    assert r.returncode == 0 and len(r.out) > 200


@REAL
def test_demo_runs(based: GitRepo):
    r = based.run("demo", "--no-keep")
    assert r.returncode == 0, r.err
    for fmt in ("file-changes", "apply-patch", "codechange", "unified-diff", "hashline",
                "search-replace", "whole", "tool-call"):
        assert fmt in r.out
    assert "FILE_APPEND" not in r.err and "07-file-append.md" in r.out
    assert r.out.count(" applied ") == 10 and "refused" not in r.out
    assert "AI-Format: tool-call" in r.out and "AI-Model: claude-sonnet-4-5" in r.out


def test_crlf_response_with_crlf_file(based: GitRepo):
    based.write("w.txt", b"one\r\ntwo\r\n")
    based.commit_all("crlf")
    resp = "Fix.\r\n\r\n*** Begin Patch\r\n*** Update File: w.txt\r\n@@\r\n-two\r\n+TWO\r\n*** End Patch\r\n"
    r = based.run(response=resp)
    assert r.returncode == 0, r.err
    assert based.read("w.txt") == b"one\r\nTWO\r\n"


WHOLE_ANSWERS = {
    "whole format": (["--format", "whole"],
                     "Rewrite.\n\nsrc/app.py\n```python\na\nB\nc\nd\n```\n\nx.txt\n```\none\ntwo\n```\n"),
    "FILE_NEW over a tracked file": ([], "Rewrite.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"src/app.py\">\n"
                                         "a\nB\nc\nd\n</FILE_NEW>\n<FILE_NEW file_path=\"x.txt\">\none\ntwo\n"
                                         "</FILE_NEW>\n</FILE_CHANGES>\n"),
    "text editor create over a tracked file": ([], json.dumps({
        "type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "tool_use", "id": "t1", "name": "str_replace_based_edit_tool",
             "input": {"command": "create", "path": "src/app.py", "file_text": "a\nB\nc\nd\n"}},
            {"type": "tool_use", "id": "t2", "name": "str_replace_based_edit_tool",
             "input": {"command": "create", "path": "x.txt", "file_text": "one\ntwo\n"}}]})),
}


@pytest.mark.parametrize("args,response", WHOLE_ANSWERS.values(), ids=WHOLE_ANSWERS.keys())
def test_json_counts_of_a_whole_file_replacement_are_gits(repo: GitRepo, args, response):
    # a file written whole counts the lines that differ, as `git diff --numstat`; a file
    # written back unchanged is not among the files
    repo.write("src/app.py", "a\nb\nc\n")
    repo.write("x.txt", "one\ntwo\n")
    repo.commit_all("base")
    for check in (["--check"], []):
        r = repo.run(*args, *check, "--json", response=response)
        assert r.returncode == 0, r.out + r.err
        out = json.loads(r.out)
        assert [(f["path"], f["action"], f["added"], f["removed"]) for f in out["files"]] == [
            ("src/app.py", "update", 2, 1)]
        assert (out["added"], out["removed"]) == (2, 1)
    numstat = repo.git("diff", "--numstat", "HEAD^", "HEAD")
    assert [l.split("\t") for l in numstat.splitlines()] == [["2", "1", "src/app.py"]]


# --------------------------------------------------------------------------- re-applying


def _reapply_patch(old: str, new: str) -> str:
    return (f"Make it {new}.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-{old}\n"
            f"+{new}\n</FILE_PATCH>\n</FILE_CHANGES>\n")


def test_same_response_after_a_revert_applies_again(repo: GitRepo):
    repo.write("a.txt", "one\ntwo\n")
    repo.commit_all("base")
    response = _reapply_patch("one", "ONE")
    assert repo.run(response=response).returncode == 0
    first = repo.head()
    again = repo.run("--json", response=response)
    assert json.loads(again.out)["status"] == "already-applied" and repo.head() == first
    repo.git("revert", "--no-edit", "HEAD")
    assert repo.read("a.txt") == b"one\ntwo\n"
    r = repo.run("--json", response=response)
    assert r.returncode == 0 and json.loads(r.out)["status"] == "applied", r.out + r.err
    assert repo.read("a.txt") == b"ONE\ntwo\n"
    assert repo.git("log", "-1", "--format=%s").strip() == "Make it ONE"


def test_force_applies_even_when_the_history_says_it_was_applied(repo: GitRepo):
    repo.write("a.txt", "one\n")
    repo.commit_all("base")
    add = ("Add b.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"b.txt\">\nb\n</FILE_NEW>\n"
           "</FILE_CHANGES>\n")
    assert repo.run(response=add).returncode == 0
    repo.git("rm", "-q", "b.txt")
    repo.git("commit", "-qm", "drop b by hand")  # not a revert: the trailer's commit stays
    assert repo.run(response=add).returncode == 0  # the files no longer hold its result
    assert repo.read("b.txt") == b"b\n"
    before = repo.head()
    r = repo.run("--json", "--force", response=add)  # holds it now: --force still plans it
    assert json.loads(r.out)["status"] == "no-change" and repo.head() == before


def test_path_options_are_part_of_the_same_application(repo: GitRepo):
    repo.write("a.txt", "one\n")
    repo.write("b.txt", "one\n")
    repo.commit_all("base")
    response = ("Both.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-one\n+A\n"
                "</FILE_PATCH>\n<FILE_PATCH file_path=\"b.txt\">\n@@\n-one\n+B\n</FILE_PATCH>\n"
                "</FILE_CHANGES>\n")
    assert repo.run("--include", "a.txt", response=response).returncode == 0
    assert repo.read("a.txt") == b"A\n" and repo.read("b.txt") == b"one\n"
    assert "AI-Paths: --include=a.txt" in repo.git("log", "-1", "--format=%B")
    r = repo.run("--json", "--include", "b.txt", response=response)
    assert json.loads(r.out)["status"] == "applied", r.out + r.err
    assert repo.read("b.txt") == b"B\n"
    r = repo.run("--json", "--include", "b.txt", response=response)
    assert json.loads(r.out)["status"] == "already-applied"
