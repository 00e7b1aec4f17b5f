"""git's own conventions, end to end through the real command, each compared with what
git itself prints or does for the same change: the lines after a commit, git apply's
--stat/--numstat/--summary and -p/--directory/--include/--exclude, --author/--date,
an empty message, exit 128 with fatal:, --json's fault, --check over a series, Ctrl-C
after the commit, and subjects that name the net change."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import GitRepo

ID = re.compile(r"\b[0-9a-f]{7}\]")


def files_response(body: str, prose: str = "") -> str:
    return f"{prose}\n\n<FILE_CHANGES>\n{body}\n</FILE_CHANGES>\n"


def git_commit_lines(repo: GitRepo, *, root: bool = False, branch_cmd=None) -> list[str]:
    """Make the commit HEAD holds again with git itself (same change, same message) and
    return what `git commit` printed; HEAD's commit is replaced by git's."""
    message = repo.message()
    msg_file = repo.root.parent / "git-message.txt"
    msg_file.write_text(message)
    if root:
        diff = repo.git("show", "--format=", "-M", "--binary", "HEAD")
        repo.git("update-ref", "-d", "HEAD")
        repo.git("rm", "-rqf", "--cached", ".")
        repo.git("clean", "-fdxq")
    else:
        diff = repo.git("diff", "-M", "--binary", "HEAD~", "HEAD")
        repo.git("reset", "-q", "--hard", "HEAD~")
    patch = repo.root.parent / "git-change.diff"
    patch.write_text(diff)
    repo.git("apply", "--index", str(patch))
    return repo.git("commit", "--no-verify", "--cleanup=verbatim", "-F", str(msg_file)).splitlines()


def same_but_ids(ours: list[str], theirs: list[str]) -> None:
    assert [ID.sub("ID]", line) for line in ours] == [ID.sub("ID]", line) for line in theirs]


@pytest.fixture
def project(repo: GitRepo) -> GitRepo:
    repo.write("src/old_name.py", "".join(f"line {i}\n" for i in range(1, 21)))
    repo.write("x.txt", "x\n")
    repo.write("keep.txt", "keep\n")
    repo.write("run.sh", "echo hi\n", mode=0o644)
    repo.commit_all()
    return repo


MIXED = files_response("""\
<FILE_RENAME from="src/old_name.py" to="lib/new_name.py" />
<FILE_PATCH file_path="lib/new_name.py">
@@
 line 1
-line 2
+line two
 line 3
</FILE_PATCH>
<FILE_DELETE file_path="x.txt" />
<FILE_NEW file_path="NOTES.md">
notes
more notes
</FILE_NEW>
<FILE_PATCH file_path="keep.txt">
@@
-keep
+kept
</FILE_PATCH>""", "Rework the project layout.")


def test_commit_summary_is_git_commits(project: GitRepo):
    r = project.run(response=MIXED)
    assert r.returncode == 0, r.err
    ours = r.out.splitlines()
    assert ours[0].startswith("[main ") and ours[0].endswith("] Rework the project layout")
    same_but_ids(ours, git_commit_lines(project))
    assert any(" => " in line and "%)" in line for line in ours)  # the rename is shown


def test_summary_of_root_commit_and_of_detached_head(repo: GitRepo):
    r = repo.run(response=files_response('<FILE_NEW file_path="a b/é.txt">\nhi\n</FILE_NEW>\n'
                                         '<FILE_NEW file_path="z.txt">\nz\n</FILE_NEW>',
                                         "Start the project."))
    assert r.returncode == 0, r.err
    ours = r.out.splitlines()
    assert "(root-commit)" in ours[0]
    same_but_ids(ours, git_commit_lines(repo, root=True))
    repo.git("checkout", "-q", "--detach")
    r = repo.run(response=files_response('<FILE_PATCH file_path="z.txt">\n@@\n-z\n+zz\n'
                                         '</FILE_PATCH>', "Double z."))
    assert r.returncode == 0, r.err
    assert r.out.startswith("[detached HEAD ")
    same_but_ids(r.out.splitlines(), git_commit_lines(repo))


def test_summary_of_mode_change(project: GitRepo):
    diff = ("```diff\ndiff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n```\n")
    r = project.run(response="Make run.sh executable.\n\n" + diff)
    assert r.returncode == 0, r.err
    assert " mode change 100644 => 100755 run.sh" in r.out.splitlines()
    same_but_ids(r.out.splitlines(), git_commit_lines(project))


@pytest.mark.parametrize("check", [False, True])
def test_stat_numstat_summary_are_git_applys_and_write_nothing(project: GitRepo, check):
    before = project.snapshot()
    args = ["--stat", "--numstat", "--summary"] + (["--check"] if check else [])
    r = project.run(*args, response=MIXED)
    assert r.returncode == 0, r.err
    assert project.snapshot() == before  # reports only, as git apply --stat
    # git apply, given the diff of the same change as git makes it, prints the same
    assert project.run(response=MIXED).returncode == 0
    diff = project.root.parent / "change.diff"
    diff.write_text(project.git("diff", "-M", "HEAD~", "HEAD"))
    project.git("reset", "-q", "--hard", "HEAD~")
    theirs = project.git("apply", "--stat", "--numstat", "--summary", str(diff))
    assert r.out == theirs
    assert "rename " in theirs and "create mode 100644 NOTES.md" in theirs


def test_author_and_date_as_git_commit(project: GitRepo):
    project.git("commit", "-q", "--allow-empty", "-m", "by alice",
                "--author", "Alice Example <alice@example.com>")
    fmt = "--format=%an|%ae|%ad"
    for author, date in [("Jane Doe <jane@example.com>", "2005-04-07T22:13:13+0200"),
                         ("alice", "Thu, 07 Apr 2005 22:13:13 +0200"),
                         ("Jane Doe <jane@example.com>", "1112911993 -0700")]:
        r = project.run("--author", author, "--date", date,
                        response=files_response('<FILE_NEW file_path="n.txt">\n'
                                                f'{date}\n</FILE_NEW>', "Add n."))
        assert r.returncode == 0, r.err
        ours = project.git("log", "-1", fmt, "--date=raw")
        project.git("reset", "-q", "--hard", "HEAD~")
        project.write("n.txt", date + "\n")
        project.git("add", "n.txt")
        printed = project.git("commit", "-m", "Add n", "--author", author, "--date", date)
        assert ours == project.git("log", "-1", fmt, "--date=raw")
        # and the lines after the commit, " Author:" and " Date:" included, are git's
        assert " Date: " in r.out and " Author: " in r.out
        same_but_ids(r.out.splitlines(), printed.splitlines())
        project.git("reset", "-q", "--hard", "HEAD~")


def test_bad_author_and_date_are_fatal_as_in_git(project: GitRepo):
    before = project.snapshot()
    resp = files_response('<FILE_NEW file_path="n.txt">\nn\n</FILE_NEW>', "Add n.")
    project.write("n.txt", "n\n")
    project.git("add", "n.txt")
    for args in (["--author", "nobody-matches-this"], ["--date", "not a date"]):
        git = project.git("commit", "-q", "-m", "x", *args, check=False)
        g = __import__("subprocess").run(["git", "commit", "-q", "-m", "x", *args],
                                         cwd=project.root, env=project.env,
                                         capture_output=True, text=True)
        assert g.returncode == 128
        project.git("reset", "-q", "--hard")
        project.git("clean", "-fdq")
        r = project.run(*args, response=resp)
        assert r.returncode == 128, r.err
        assert r.err == g.stderr, (r.err, g.stderr, git)
        assert project.snapshot() == before
        project.write("n.txt", "n\n")
        project.git("add", "n.txt")
    project.git("reset", "-q", "--hard")
    project.git("clean", "-fdq")
    r = project.run("--json", "--date", "not a date", response=resp)
    out = json.loads(r.out)
    assert r.returncode == 128 and out["status"] == "fatal" and out["exit_code"] == 128
    assert out["fault"] == "usage" and out["errors"][0]["reason"].startswith("invalid date")


def test_empty_message_aborts_as_git_commit(project: GitRepo):
    project.write("keep.txt", "changed\n")
    git = __import__("subprocess").run(["git", "commit", "-a", "-m", ""], cwd=project.root,
                                       env=project.env, capture_output=True, text=True)
    project.git("checkout", "--", "keep.txt")
    before = project.snapshot()
    resp = files_response('<FILE_PATCH file_path="keep.txt">\n@@\n-keep\n+kept\n</FILE_PATCH>')
    for extra in (["--no-trailers"], []):
        r = project.run("-m", "", *extra, response=resp)
        assert (r.returncode, r.err) == (git.returncode, git.stderr)
        assert project.snapshot() == before
    r = project.run("--json", "-m", "  \n", response=resp)
    out = json.loads(r.out)
    assert out["status"] == "refused" and out["error_kind"] == "message"
    assert out["fault"] == "usage"


def test_p_directory_include_exclude_as_git_apply(project: GitRepo, tmp_path: Path):
    project.write("src/a.txt", "a\n")
    project.write("src/b.txt", "b\n")
    project.write("src/c.txt", "c\n")
    project.commit_all("abc")
    diff = "".join(f"--- pkg/{n}.txt\n+++ pkg/{n}.txt\n@@ -1 +1 @@\n-{n}\n+{n}{n}\n" for n in "abc")
    cases = [
        ["-p1", "--directory=src"],
        ["-p1", "--directory=src", "--exclude=src/b*"],
        ["-p1", "--directory=src", "--include=*a.txt", "--include=*c*"],
        ["-p1", "--directory=src", "--exclude=*c*", "--include=src/*"],
        ["-p1", "--directory=src", "--include=src/*", "--exclude=*c*"],
        ["-p1", "--directory=src", "--exclude=*c.txt", "--include=src/*"],
        ["-p1", "--directory=src/", "--include=src/b*"],
    ]
    for args in cases:
        patch = tmp_path / "p.diff"
        patch.write_text(diff)
        project.git("apply", "--index", *args, str(patch))
        want = project.git("diff", "--cached", "--stat")
        project.git("reset", "-q", "--hard")
        base = project.head()
        r = project.run(*args, response="Double letters.\n\n```diff\n" + diff + "```\n")
        assert r.returncode == 0, (args, r.err)
        assert project.git("diff", "--stat", base, "HEAD") == want, args
        project.git("reset", "-q", "--hard", base)


def test_everything_excluded_does_nothing(project: GitRepo):
    before = project.snapshot()
    r = project.run("--exclude=*", response=MIXED)
    assert r.returncode == 0, r.err
    assert "left out" in r.out
    assert project.snapshot() == before


def test_p_beyond_the_path_is_refused(project: GitRepo):
    before = project.snapshot()
    r = project.run("-p3", response=MIXED)
    assert r.returncode == 1
    assert "-p 3" in r.err
    assert project.snapshot() == before


def test_check_and_diff_judge_a_series_in_order(project: GitRepo):
    create = files_response('<FILE_NEW file_path="new.txt">\none\n</FILE_NEW>', "Add new.")
    patch = files_response('<FILE_PATCH file_path="new.txt">\n@@\n-one\n+two\n</FILE_PATCH>',
                           "Change new.")
    again = files_response('<FILE_PATCH file_path="keep.txt">\n@@\n-keep\n+again\n'
                           '</FILE_PATCH>', "Keep again.")
    first = files_response('<FILE_PATCH file_path="keep.txt">\n@@\n-keep\n+first\n'
                           '</FILE_PATCH>', "Keep first.")
    paths = []
    for i, text in enumerate([create, patch, first, again]):
        p = project.root.parent / f"r{i}.md"
        p.write_text(text)
        paths.append(str(p))
    before = project.snapshot()
    # the second builds on the first: judged alone it does not apply, in order it does
    assert project.run("--check", paths[1]).returncode == 1
    r = project.run("--check", paths[0], paths[1])
    assert r.returncode == 0, r.err
    r = project.run("--diff", paths[0], paths[1])
    assert r.returncode == 0, r.err
    assert "+one" in r.out and "-one\n+two" in r.out
    # each alone applies, but not one after the other: the real run would stop there
    assert project.run("--check", paths[3]).returncode == 0
    r = project.run("--check", paths[2], paths[3])
    assert r.returncode == 1 and "keep.txt" in r.err
    assert project.snapshot() == before
    # and the real run agrees with --check
    assert project.run(paths[0], paths[1]).returncode == 0
    assert project.read("new.txt") == b"two\n"


def test_interrupt_during_post_commit_says_what_was_committed(project: GitRepo):
    hook = project.root / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\nkill -INT $PPID\nsleep 5\n")
    hook.chmod(0o755)
    old = project.head()
    r = project.run(response=MIXED)
    assert r.returncode == 130
    new = project.head()
    assert new != old  # the commit exists, and the message says so
    assert f"[main {new[:7]}] Rework the project layout" in r.err
    assert "nothing was changed" not in r.err


def test_subject_names_the_net_change(project: GitRepo):
    recreate = files_response('<FILE_DELETE file_path="keep.txt" />\n'
                              '<FILE_NEW file_path="keep.txt">\nnew keep\n</FILE_NEW>')
    r = project.run(response=recreate)
    assert r.returncode == 0, r.err
    assert project.message().splitlines()[0] == "Update keep.txt"
    there_and_back = files_response('<FILE_RENAME from="x.txt" to="y.txt" />\n'
                                    '<FILE_RENAME from="y.txt" to="x.txt" />\n'
                                    '<FILE_PATCH file_path="x.txt">\n@@\n-x\n+xx\n</FILE_PATCH>')
    r = project.run(response=there_and_back)
    assert r.returncode == 0, r.err
    assert project.message().splitlines()[0] == "Update x.txt"
    assert r.out.splitlines()[-1] == " 1 file changed, 1 insertion(+), 1 deletion(-)"


def test_help_lists_the_apply_options(project: GitRepo):
    from git_aiapply.run.options import APPLY_OPTIONS

    r = project.run("-h")
    assert r.returncode == 0
    for o in APPLY_OPTIONS:
        for name in o.names:
            assert name in r.out, name
    for word in ("show", "undo", "attempts", "recover"):
        assert word in r.out


def test_fatal_outside_a_repository_is_not_the_responses_fault(tmp_path: Path, git_env):
    from conftest import AI_APPLY
    import subprocess

    resp = tmp_path / "r.md"
    resp.write_text(MIXED)
    empty = tmp_path / "empty"
    empty.mkdir()
    r = subprocess.run([*AI_APPLY, "--json", str(resp)], cwd=empty, env=git_env,
                       capture_output=True, text=True)
    assert r.returncode in (2, 128)  # 128 once discovery reports it as git does
    if r.returncode == 128:
        assert r.err.startswith("fatal: ") if hasattr(r, "err") else r.stderr.startswith("fatal: ")
        assert json.loads(r.stdout)["fault"] == "repository"
