"""Held-out comparisons with git itself (issue 12): the same change or option given to
`git ai-apply` and to `git apply` / `git commit` in twin repositories, and the outputs or
the resulting commits compared byte for byte; plus the settings and states git refuses."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import GitRepo, init_repo


def twins(tmp_path: Path, env: dict, files: dict[str, str]) -> tuple[GitRepo, GitRepo]:
    """Two identical repositories: one for git ai-apply, one for git."""
    out = []
    for name in ("ours", "git"):
        r = init_repo(tmp_path / name, dict(env))
        for path, text in files.items():
            r.write(path, text)
        r.commit_all()
        out.append(r)
    return out[0], out[1]


def git_out(repo: GitRepo, *args, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo.root, env=repo.env, input=input,
                          capture_output=True, text=True)


# --------------------------------------------------------------------------- git apply


ODD_NAMES = """Add and remove files with odd names.

<FILE_CHANGES>
<FILE_NEW file_path="dir with space/ünï cödé.txt">
x
</FILE_NEW>
<FILE_DELETE file_path='quo"te.txt' />
<FILE_RENAME from_path="plain.txt" to_path="ré named.txt" />
</FILE_CHANGES>
"""


def test_stat_numstat_summary_print_what_git_apply_prints(tmp_path, git_env):
    """Regression: --summary quoted the names of created and deleted files, which git
    apply prints as they are (only --stat and --numstat quote)."""
    files = {'quo"te.txt': "quote\n", "plain.txt": "plain\n", "a.txt": "a\n"}
    ours, theirs = twins(tmp_path, git_env, files)
    applied = ours.run(response=ODD_NAMES)
    assert applied.returncode == 0, applied.err
    patch = ours.git("diff", "-M", "HEAD~1", "HEAD")
    ours.git("reset", "-q", "--hard", "HEAD~1")
    for options in (["--stat"], ["--numstat"], ["--summary"], ["--stat", "--summary"],
                    ["--numstat", "--summary"]):
        mine = ours.run(*options, response=ODD_NAMES)
        git = git_out(theirs, "apply", *options, input=patch)
        assert mine.returncode == git.returncode == 0, (mine.err, git.stderr)
        assert mine.out == git.stdout, options


GIT_DIFF = """```diff
diff --git a/proj/src/a.txt b/proj/src/a.txt
--- a/proj/src/a.txt
+++ b/proj/src/a.txt
@@ -1,2 +1,2 @@
-alpha
+ALPHA
 beta
```
"""


@pytest.mark.parametrize("options", [["-p2", "--directory=proj"], ["-p2"], ["-p3", "--directory=proj/src"],
                                     ["-p1", "--include=proj/*"], ["-p2", "--exclude=*.md"], ["-p1"]])
def test_strip_counts_components_as_git_apply_does(tmp_path, git_env, options):
    """`-p N` on a git diff removes what `git apply -p N` removes (the a/ b/ prefix is its
    first component): a habitual `-p1` is git's default, not one folder more."""
    ours, theirs = twins(tmp_path, git_env, {"proj/src/a.txt": "alpha\nbeta\n",
                                             "src/a.txt": "alpha\nbeta\n",
                                             "a.txt": "alpha\nbeta\n"})
    patch = GIT_DIFF.split("```diff\n")[1].split("```")[0]
    git = git_out(theirs, "apply", "--index", *options, input=patch)
    assert git.returncode == 0, git.stderr
    mine = ours.run("-q", *options, response=GIT_DIFF)
    assert mine.returncode == 0, mine.err
    assert ours.git("diff", "--name-status", "HEAD~1", "HEAD") == \
        theirs.git("diff", "--cached", "--name-status")


def test_strip_without_the_prefix_is_refused_as_git_refuses(tmp_path, git_env):
    ours, theirs = twins(tmp_path, git_env, {"a.txt": "alpha\nbeta\n"})
    response = GIT_DIFF.replace("proj/src/", "")
    before = ours.snapshot()
    r = ours.run("-p2", response=response)
    assert r.returncode == 1 and "-p 2" in r.err
    assert ours.snapshot() == before


# --------------------------------------------------------------------------- git commit


@pytest.mark.parametrize("date", [
    "2 days ago", "3.weeks.ago", "yesterday", "now", "5 hours ago", "2 months ago", "1 year ago",
    "2001-02-03", "2001-02-03 04:05:06 +0100", "@1234567890 +0200", "1234567890",
    "Sat, 3 Feb 2001 04:05:06 +0100", "2001-02-03T04:05:06Z",
])
def test_date_as_git_commit_reads_it(tmp_path, git_env, date):
    """Regression: `--date "2 days ago"` made a commit dated 1970-01-01 00:00:02 (the
    leading number read as epoch seconds); git commit reads approximate dates."""
    env = dict(git_env, GIT_TEST_DATE_NOW="1700000000", TZ="Asia/Kolkata")
    ours, theirs = twins(tmp_path, env, {"a.txt": "alpha\n"})
    response = "Shout.\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+ALPHA\n```\n"
    r = ours.run("--date", date, response=response)
    assert r.returncode == 0, r.err
    theirs.write("a.txt", "ALPHA\n")
    g = git_out(theirs, "commit", "-q", "-am", "Shout", "--date", date)
    assert g.returncode == 0, g.stderr
    fmt = "--format=%ad"
    assert ours.git("log", "-1", fmt, "--date=raw") == theirs.git("log", "-1", fmt, "--date=raw")


@pytest.mark.parametrize("date", ["garbage here", "sometime", "tomorrow"])
def test_date_git_cannot_read_is_fatal(repo: GitRepo, date):
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    before = repo.snapshot()
    git = git_out(repo, "commit", "--allow-empty", "-m", "x", "--date", date)
    assert git.returncode == 128, git.stderr
    r = repo.run("--date", date, response="```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+A\n```\n")
    assert r.returncode == 128 and r.err.startswith("fatal: invalid date format"), r.err
    assert repo.snapshot() == before


IDENTITY_CASES = {
    # name: (command-line args, environment changes (None: unset), config changes (None: unset))
    "author with an empty email": (["--author", "Name <>"], {}, {}),
    "author with spaces inside the brackets": (["--author", "Name < >"], {}, {}),
    "author padded": (["--author", "  Na me   <  e@x  > "], {}, {}),
    "author with crud around the name": (["--author", '"Name," <e@x>'], {}, {}),
    "author with text after the email": (["--author", "Name <a@b> trailing"], {}, {}),
    "author with a bracket in the name": (["--author", "Na<me <a@b>"], {}, {}),
    "author without a name": (["--author", "<e@x>"], {}, {}),
    "author with nothing": (["--author", " <>"], {}, {}),
    "GIT_AUTHOR_EMAIL empty": ([], {"GIT_AUTHOR_EMAIL": ""}, {}),
    "GIT_COMMITTER_EMAIL empty": ([], {"GIT_COMMITTER_EMAIL": ""}, {}),
    "user.email empty": ([], {"GIT_AUTHOR_EMAIL": None, "GIT_COMMITTER_EMAIL": None},
                         {"user.email": ""}),
    "author.email empty": ([], {"GIT_AUTHOR_EMAIL": None, "GIT_COMMITTER_EMAIL": None},
                           {"author.email": ""}),
    "GIT_AUTHOR_NAME empty": ([], {"GIT_AUTHOR_NAME": ""}, {}),
    "user.name empty": ([], {"GIT_AUTHOR_NAME": None, "GIT_COMMITTER_NAME": None},
                        {"user.name": ""}),
    "brackets and newlines in the variables": (
        [], {"GIT_AUTHOR_NAME": "A<b>c\nd", "GIT_AUTHOR_EMAIL": "x<y>z"}, {}),
    "EMAIL when nothing else names one": (
        [], {"GIT_AUTHOR_EMAIL": None, "GIT_COMMITTER_EMAIL": None, "EMAIL": "e@mail.example"},
        {"user.email": None}),
    "no email anywhere": (
        [], {"GIT_AUTHOR_EMAIL": None, "GIT_COMMITTER_EMAIL": None, "EMAIL": None},
        {"user.email": None}),
}


@pytest.mark.parametrize("case", list(IDENTITY_CASES))
def test_identity_as_git_commit_writes_it(tmp_path, git_env, case):
    """The author and committer lines of the commit object are git's, byte for byte, for
    the identities git accepts ("Name <>" included: libgit2 refuses an empty email, git
    does not); where git dies (an empty name, no email to be found) we die too, exit
    128 with `fatal:`, nothing changed."""
    args, env_changes, config = IDENTITY_CASES[case]
    env = dict(git_env, GIT_AUTHOR_DATE="@1700000000 +0100", GIT_COMMITTER_DATE="@1700000100 -0230")
    ours, theirs = twins(tmp_path, env, {"a.txt": "alpha\n"})
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    for repo in (ours, theirs):
        for key, value in config.items():
            if value is None:
                repo.git("config", "--unset", key, check=False)
            else:
                repo.git("config", key, value)
    ours.env = theirs.env = env
    before = ours.snapshot()
    r = ours.run(*args, response="Shout.\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+ALPHA\n```\n")
    theirs.write("a.txt", "ALPHA\n")
    theirs.git("add", "a.txt")
    g = git_out(theirs, "commit", "-q", "-m", "Shout", *args)
    assert r.returncode == g.returncode, (r.err, g.stderr)
    if g.returncode:
        fatal = [line for line in g.stderr.splitlines() if line.startswith("fatal: ")]
        assert r.returncode == 128 and r.err.startswith(fatal[0]), (r.err, g.stderr)
        assert ours.snapshot() == before
        return

    def idents(repo):
        return [line for line in repo.git("cat-file", "-p", "HEAD").splitlines()
                if line.startswith(("author ", "committer "))]

    assert idents(ours) == idents(theirs)
    # and the reflog entries of the branch and of HEAD name the committer as git does
    for ref in ("main", "HEAD"):
        fmt = ("reflog", "-1", "--format=%gn <%ge>", ref)
        assert ours.git(*fmt) == theirs.git(*fmt), ref


# --------------------------------------------------------------------------- settings


@pytest.mark.parametrize("key, value", [
    ("aiapply.subjectLength", "0"), ("aiapply.subjectLength", "-5"),
    ("aiapply.maxResponseBytes", "-1"), ("aiapply.trailers", "maybe"),
])
def test_out_of_range_settings_are_fatal_before_anything_else(repo: GitRepo, key, value):
    """An invalid value of our own settings is fatal, as git, even when the response
    would be refused or found already applied anyway."""
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    repo.git("config", key, value)
    before = repo.snapshot()
    for response in ("Shout.\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+ALPHA\n```\n",
                     "```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-nothing\n+x\n```\n"):
        r = repo.run(response=response)
        assert r.returncode == 128, r.err
        assert r.err.startswith("fatal: bad ") and key.lower() in r.err, r.err
    assert repo.snapshot() == before


def test_negative_max_bytes_is_a_usage_error(repo: GitRepo):
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    r = repo.run("--max-bytes", "-1", response="```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+A\n```\n")
    assert r.returncode == 2 and "--max-bytes" in r.err, r.err


# --------------------------------------------------------------------------- states


def test_sparse_index_is_a_clear_fatal_error(repo: GitRepo):
    repo.write("a.txt", "alpha\n")
    repo.write("d/e/q.txt", "q\n")
    repo.commit_all()
    for args in (["sparse-checkout", "init", "--cone", "--sparse-index"],
                 ["sparse-checkout", "set", "d"]):
        repo.git(*args)
    before = repo.snapshot()
    r = repo.run("--json", response="```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+A\n```\n")
    assert r.returncode == 128
    out = json.loads(r.out)
    reason = out["errors"][0]["reason"]
    assert "sparse index" in reason and "index.sparse" in reason, reason
    assert "ai-apply-" not in reason, reason  # names the repository's index, not our copy
    assert out["fault"] == "repository"
    assert repo.snapshot() == before


def test_split_index_error_names_the_repositorys_index(repo: GitRepo):
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    repo.git("update-index", "--split-index")
    r = repo.run(response="```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+A\n```\n")
    assert r.returncode == 128 and "split index" in r.err
    assert "ai-apply-" not in r.err and ".git/index" in r.err, r.err


def test_a_cut_off_answer_is_the_responses_fault(repo: GitRepo, tmp_path):
    """Regression: a chat answer cut off at max tokens was reported with fault
    "repository", so an agent loop would not have asked the model again."""
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    answer = {"model": "m", "choices": [{"finish_reason": "length", "message": {
        "role": "assistant", "content": "```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+A\n```\n"}}]}
    f = tmp_path / "cut.json"
    f.write_text(json.dumps(answer))
    r = repo.run("--json", str(f))
    out = json.loads(r.out)
    assert (r.returncode, out["error_kind"], out["fault"]) == (1, "truncated", "response")


def test_include_dirty_through_a_folder_replaced_by_a_link_names_the_link(repo: GitRepo, tmp_path):
    """Regression: with --include-dirty, a patch of lib/a.txt where the tracked folder lib
    was replaced by a link to a copy outside said "it is not tracked by git"."""
    import shutil

    repo.write("lib/a.txt", "one\ntwo\n")
    repo.commit_all()
    outside = tmp_path / "outside"
    shutil.copytree(repo.root / "lib", outside)
    shutil.rmtree(repo.root / "lib")
    (repo.root / "lib").symlink_to(outside)
    before = repo.snapshot()
    response = ("<FILE_CHANGES>\n<FILE_PATCH file_path=\"lib/a.txt\">\n@@\n-one\n+ONE\n two\n"
                "</FILE_PATCH>\n</FILE_CHANGES>\n")
    r = repo.run("--include-dirty", response=response)
    assert r.returncode == 1
    assert "lib is a symbolic link" in r.err and "not tracked" not in r.err, r.err
    assert (outside / "a.txt").read_text() == "one\ntwo\n"
    assert repo.snapshot() == before


def test_library_repo_that_is_no_folder_is_fatal_in_git_c_words(tmp_path):
    """`git -C /no/such ai-apply` says "cannot change to"; the library said "not a git
    repository" for a folder that does not exist."""
    import git_aiapply

    missing = tmp_path / "no" / "such"
    with pytest.raises(git_aiapply.FatalError) as e:
        git_aiapply.apply("x", repo=missing)
    git = subprocess.run(["git", "-C", str(missing), "status"], capture_output=True, text=True)
    assert git.returncode == 128 and f"cannot change to '{missing}'" in git.stderr
    assert f"cannot change to '{missing}': No such file or directory" in str(e.value)
    assert e.value.exit_code == 128
