"""cli/app.py, click's command line, through the real command: its help and version, the
first word that picks `apply` or a subcommand, the `apply` subcommand keeping the order of
--include/--exclude, and click's errors and aborts turned into git's exit codes."""
from __future__ import annotations

import os
import select
import subprocess
import time
from importlib.metadata import version

import pytest

from conftest import AI_APPLY, GitRepo
from git_aiapply.cli.commands import SUBCOMMANDS

TWO_FILES = """\
diff --git a/a.txt b/a.txt
--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-a
+A
diff --git a/b.txt b/b.txt
--- a/b.txt
+++ b/b.txt
@@ -1 +1 @@
-b
+B
"""


@pytest.fixture
def two(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "a\n")
    repo.write("b.txt", "b\n")
    repo.commit_all("base")
    return repo


def test_help_shows_both_forms_the_apply_options_and_every_command(two: GitRepo):
    r = two.run("-h")
    assert r.returncode == 0 and r.err == ""
    assert two.run("--help").out == r.out
    lines = r.out.splitlines()
    assert lines[:2] == ["Usage: git ai-apply [OPTIONS] [RESPONSE ...]",
                         "   or: git ai-apply COMMAND [ARGS] ..."]
    sections = [line for line in lines if line and not line.startswith(" ")][1:]
    assert sections == ["Apply options:", "Options:", "Commands:"]
    # the command's own options stay under Options, the apply ones come first
    own = lines[lines.index("Options:") + 1:lines.index("Commands:")]
    assert [line.split()[0] for line in own if line.strip()] == ["--version", "-h,"]
    commands = [line.split()[0] for line in lines[lines.index("Commands:") + 1:] if line.strip()]
    assert commands == sorted(set(SUBCOMMANDS) | {"apply"})


def test_version_is_the_installed_distributions(two: GitRepo):
    r = two.run("--version")
    assert r.returncode == 0
    assert r.out == f"git ai-apply, version {version('git-ai-apply')}\n"


def test_first_word_chooses_a_subcommand_anything_else_applies(two: GitRepo):
    """`show` is the subcommand; a response file of that name is given as ./show, also
    when an option only click parses (-qs) sends the line through click."""
    two.write("show", "Shout a.\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-a\n+A\n```\n")
    r = two.run("show")
    assert r.returncode == 2 and "Missing argument 'PATHS...'" in r.err
    base = two.head()
    r = two.run("-qs", "./show")
    assert r.returncode == 0, r.err
    assert r.out == ""  # -q
    assert two.git("rev-parse", "HEAD~1").strip() == base
    assert two.git("show", "HEAD:a.txt") == "A\n"
    committer = two.git("var", "GIT_COMMITTER_IDENT").rsplit(" ", 2)[0]
    assert f"Signed-off-by: {committer}" in two.message().splitlines()  # -s, as git commit -s


@pytest.mark.parametrize("limits", [
    ["--include", "a*", "--exclude", "*"],
    ["--exclude", "a*", "--include", "*"],
    ["--include", "*", "--exclude", "a*"],
])
def test_apply_subcommand_keeps_the_order_of_include_and_exclude(two: GitRepo, limits):
    diff = two.root.parent / "two.diff"
    diff.write_text(TWO_FILES)
    r = two.run("apply", "--stat", *limits, str(diff))
    assert r.returncode == 0, r.err
    assert r.out == two.git("apply", "--stat", *limits, str(diff))


def test_a_click_usage_error_is_exit_2_with_the_usage_in_gits_words(two: GitRepo):
    """git's parse-options words (tests/cli/test_usage.py), never click's "Usage: git
    ai-apply apply" or "Did you mean"; the quick parser of main.py and click's print the
    same."""
    before = two.snapshot()
    diff = two.root.parent / "two.diff"
    diff.write_text(TWO_FILES)
    r = two.run("apply", "--reject", str(diff))
    assert r.returncode == 2 and r.out == ""
    assert r.err.splitlines()[:3] == ["error: unknown option 'reject'",
                                      "usage: git ai-apply [OPTIONS] [RESPONSE ...]", ""]
    assert "Did you mean" not in r.err and "Usage:" not in r.err
    quick = two.run("--reject", str(diff))  # main.py's form
    assert (quick.returncode, quick.out, quick.err) == (2, "", r.err)
    r = two.run("pikc", "x")
    assert (r.returncode, r.out) == (2, "")
    assert r.err.startswith("git ai-apply: 'pikc' is not a git ai-apply command.")
    assert r.err.endswith("The most similar command is\n\tpick\n")
    r = two.run("undo", "extra")
    assert r.returncode == 2 and "Got unexpected extra argument (extra)" in r.err
    assert two.snapshot() == before


def test_end_of_input_at_a_question_is_aborted_exit_1(two: GitRepo, tmp_path):
    """attempts --prune asks at a terminal; Ctrl-D there ends the command as click's
    Abort: `aborted`, exit 1, nothing deleted."""
    diff = tmp_path / "r.diff"
    diff.write_text(TWO_FILES)
    assert two.run("--branch", "try/1", str(diff)).returncode == 0
    master, slave = os.openpty()
    p = subprocess.Popen([*AI_APPLY, "attempts", "--prune"], cwd=two.root, env=two.env,
                         stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(slave)
    try:
        deadline = time.monotonic() + 10
        out = b""
        while b"Delete 1 branch?" not in out and time.monotonic() < deadline:
            # never block past the deadline: a command that neither asks nor ends fails here
            ready, _, _ = select.select([p.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            chunk = os.read(p.stdout.fileno(), 4096)
            if not chunk:
                break
            out += chunk
        os.write(master, b"\x04")  # end of input, as Ctrl-D at the terminal
        rest, err = p.communicate(timeout=10)
    finally:
        os.close(master)
    assert b"Delete 1 branch? [y/N]" in out
    assert p.returncode == 1 and err.decode().splitlines()[-1] == "aborted"
    assert "Traceback" not in err.decode()
    assert two.git("branch", "--list", "try/1").strip() == "try/1"


def _interrupted_in_hook(repo: GitRepo, hook: str, *argv: str) -> tuple[int, str]:
    """Run the command, Ctrl-C it (SIGINT to its process group, as a terminal sends it)
    once ``hook`` has started and sleeps, and wait for its end."""
    import signal

    flag = repo.root.parent / f"{hook}.started"
    repo.write(f".git/hooks/{hook}", f"#!/bin/sh\ntouch '{flag}'\nexec sleep 30\n", mode=0o755)
    p = subprocess.Popen([*AI_APPLY, *argv], cwd=repo.root, env=repo.env, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while not flag.exists() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    os.killpg(p.pid, signal.SIGINT)
    _out, err = p.communicate(timeout=20)
    (repo.root / ".git" / "hooks" / hook).unlink()
    return p.returncode, err.decode()


def test_ctrl_c_in_a_subcommand_is_interrupted_130_naming_the_commit_made(two: GitRepo, tmp_path):
    """click's main turns Ctrl-C into Abort ("aborted", exit 1); a subcommand interrupted
    ends as a plain run does: exit 130, "nothing was changed" before its commit, the
    commit named after it."""
    diff = tmp_path / "r.diff"
    diff.write_text(TWO_FILES)
    assert two.run("--branch", "try/1", str(diff)).returncode == 0
    two.write("o.txt", "o\n")
    two.commit_all("other")
    head = two.head()
    assert _interrupted_in_hook(two, "pre-commit", "pick", "try/1") == (
        130, "interrupted; nothing was changed\n")
    assert two.head() == head and two.git("status", "--porcelain") == ""
    code, err = _interrupted_in_hook(two, "post-commit", "pick", "try/1")
    assert code == 130 and "Traceback" not in err, err
    new = two.git("log", "-1", "--format=%h %s").strip()
    assert two.git("rev-parse", "HEAD~1").strip() == head
    assert err.splitlines() == [
        "interrupted after a commit was made; it stays, nothing else was changed:",
        f"  [{two.git('branch', '--show-current').strip()} {new.split()[0][:7]}] "
        f"{new.split(' ', 1)[1]}"]
