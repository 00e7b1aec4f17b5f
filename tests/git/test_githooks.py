"""The repository's hooks, run as `git commit` runs them (githooks(5)): order, arguments,
environment, the message hooks may rewrite, failure rollback, --no-verify,
core.hooksPath, linked worktrees, and a pre-commit hook that re-stages files."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import GitRepo, LOUDER_BETA

RESPONSE = LOUDER_BETA

# Each hook appends its name, arguments, folder and the variables git sets to a log.
LOGGER = r"""#!/bin/sh
log="$HOOK_LOG"
{
  echo "== $(basename "$0")"
  echo "args=$*"
  echo "cwd=$(pwd)"
  for v in GIT_INDEX_FILE GIT_EDITOR GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
           GIT_PREFIX GIT_DIR GIT_AI_APPLY GIT_AI_APPLY_FORMAT; do
    eval "set_=\${$v+x}"
    if [ -n "$set_" ]; then eval "echo $v=\$$v"; fi
  done
  echo "staged=$(git ls-files -s src/b.txt | cut -d' ' -f2)"
} >> "$log"
"""


def hook(repo: GitRepo, name: str, body: str, folder: Path | None = None, mode: int = 0o755) -> Path:
    folder = folder or repo.root / ".git" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(body)
    os.chmod(p, mode)
    return p


def read_log(path: Path) -> list[dict]:
    runs = []
    for line in path.read_text().splitlines():
        if line.startswith("== "):
            runs.append({"name": line[3:]})
        else:
            k, _, v = line.partition("=")
            runs[-1][k] = v
    return runs


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.write("other.txt", "other\n")
    repo.commit_all("base")
    return repo


@pytest.fixture
def logged(based: GitRepo, tmp_path: Path):
    log = tmp_path / "hooks.log"
    based.env = dict(based.env, HOOK_LOG=str(log))
    for name in ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"):
        hook(based, name, LOGGER)
    return based, log


def test_order_arguments_and_environment(logged):
    repo, log = logged
    (repo.root / "src").mkdir(exist_ok=True)
    r = repo.run(response=RESPONSE, cwd=repo.root / "src")
    assert r.returncode == 0, r.err
    runs = read_log(log)
    assert [x["name"] for x in runs] == ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"]
    gitdir = repo.root / ".git"
    msg_file = str(gitdir / "COMMIT_EDITMSG")
    assert runs[0]["args"] == ""
    assert runs[1]["args"] == f"{msg_file} message"
    assert runs[2]["args"] == msg_file
    assert runs[3]["args"] == ""
    new_blob = repo.git("rev-parse", "HEAD:src/b.txt").strip()
    author_date = repo.git("log", "-1", "--format=@%at %ad", "--date=format:%z").strip()
    for run in runs:
        assert run["cwd"] == str(repo.root)  # from the worktree root, not src/
        assert run["GIT_EDITOR"] == ":"
        assert run["GIT_AI_APPLY"] == "1"
        assert run["GIT_AI_APPLY_FORMAT"] == "unified-diff"
        assert run["GIT_AUTHOR_NAME"] == "Test Author"
        assert run["GIT_AUTHOR_EMAIL"] == "author@example.com"
        assert run["GIT_AUTHOR_DATE"] == author_date  # the commit's own author date
        assert run["GIT_PREFIX"] == "src/"
        assert "GIT_DIR" not in run  # git exports it only in linked worktrees
        assert run["staged"] == new_blob  # the hooks' index holds the change
    for run in runs[:3]:
        assert os.path.dirname(run["GIT_INDEX_FILE"]) == str(gitdir)
        assert run["GIT_INDEX_FILE"] != str(gitdir / "index")
    # post-commit sees the real index, which is installed by then
    assert runs[3]["GIT_INDEX_FILE"] == str(gitdir / "index")
    assert repo.git("status", "--porcelain") == ""


def test_same_variables_as_git_commit(logged):
    """What git commit gives the hooks, we give too (git's own run is the reference)."""
    repo, log = logged
    repo.write("other.txt", "changed by hand\n")
    repo.git("add", "other.txt")
    repo.git("commit", "-q", "-m", "by git")
    by_git = read_log(log)
    log.unlink()
    assert repo.run(response=RESPONSE).returncode == 0
    by_us = read_log(log)
    assert [x["name"] for x in by_us] == [x["name"] for x in by_git]
    for ours, theirs in zip(by_us, by_git):
        wanted = set(theirs) - {"staged"}
        assert wanted <= set(ours), (ours["name"], wanted - set(ours))
        assert ours["args"].split(" ")[1:] == theirs["args"].split(" ")[1:]


def test_commit_msg_hook_rewrites_the_message(based: GitRepo):
    hook(based, "commit-msg", '#!/bin/sh\nsed -i "1s/^/[JIRA-1] /" "$1"\necho "Reviewed-by: Hook <h@x>" >> "$1"\n')
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    msg = based.message()
    assert msg.splitlines()[0] == "[JIRA-1] Make beta louder"
    assert "Reviewed-by: Hook <h@x>" in msg
    assert r.out.splitlines()[0].endswith("[JIRA-1] Make beta louder")


def test_prepare_commit_msg_hook_rewrites_the_message(based: GitRepo):
    hook(based, "prepare-commit-msg", '#!/bin/sh\nprintf "Prepared\\n\\n" | cat - "$1" > "$1.new" && mv "$1.new" "$1"\n')
    assert based.run(response=RESPONSE).returncode == 0
    assert based.message().splitlines()[0] == "Prepared"


@pytest.mark.parametrize("name", ["pre-commit", "prepare-commit-msg", "commit-msg"])
def test_failing_hook_refuses_and_rolls_back(based: GitRepo, name: str):
    hook(based, name, "#!/bin/sh\necho 'lint: src/b.txt:2 shouting is not allowed'\nexit 3\n")
    based.write("other.txt", "unstaged work\n")
    based.write("new.txt", "untracked\n")
    before = based.snapshot()
    r = based.run(response=RESPONSE)
    assert r.returncode == 1
    assert f"the {name} hook failed (exit 3)" in r.err
    assert "lint: src/b.txt:2 shouting is not allowed" in r.err
    assert "nothing was changed" in r.err
    assert based.snapshot() == before


def test_failing_hook_in_json(based: GitRepo):
    hook(based, "pre-commit", "#!/bin/sh\necho 'tests failed: test_b'\nexit 1\n")
    r = based.run("--json", response=RESPONSE)
    assert r.returncode == 1
    out = json.loads(r.out)
    assert out["status"] == "refused"
    assert out["error_kind"] == "hook"
    assert "tests failed: test_b" in out["errors"][0]["reason"]
    assert "pre-commit hook failed" in out["error_text"]


def test_failing_post_commit_keeps_the_commit(based: GitRepo):
    base = based.head()
    hook(based, "post-commit", "#!/bin/sh\necho 'post-commit says hi'\nexit 1\n")
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert based.git("rev-parse", "HEAD^").strip() == base
    assert "post-commit says hi" in r.err


def test_no_verify_skips_pre_commit_and_commit_msg_only(logged):
    repo, log = logged
    r = repo.run("--no-verify", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert [x["name"] for x in read_log(log)] == ["prepare-commit-msg", "post-commit"]


def test_no_verify_skips_a_failing_pre_commit(based: GitRepo):
    hook(based, "pre-commit", "#!/bin/sh\nexit 1\n")
    hook(based, "commit-msg", "#!/bin/sh\nexit 1\n")
    assert based.run(response=RESPONSE).returncode == 1
    r = based.run("-n", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert based.read("src/b.txt") == b"alpha\nBETA\n"


def test_non_executable_hook_is_ignored_with_gits_hint(based: GitRepo):
    hook(based, "pre-commit", "#!/bin/sh\nexit 1\n", mode=0o644)
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert "hook was ignored because it's not set as executable" in r.err
    based.git("config", "advice.ignoredHook", "false")
    based.git("reset", "-q", "--hard", "HEAD~1")
    r = based.run(response=RESPONSE)
    assert r.returncode == 0 and "ignored" not in r.err


def test_hook_without_shebang_runs_with_the_shell(based: GitRepo):
    hook(based, "commit-msg", 'echo "Shell-Ran: yes" >> "$1"\n')
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert "Shell-Ran: yes" in based.message()


def test_core_hooks_path_is_relative_to_the_worktree_root(based: GitRepo, tmp_path: Path):
    based.git("config", "core.hooksPath", "ci/hooks")
    hook(based, "pre-commit", "#!/bin/sh\necho ran > \"$MARK\"\nexit 1\n", folder=based.root / "ci" / "hooks")
    hook(based, "pre-commit", "#!/bin/sh\nexit 0\n")  # .git/hooks is not used any more
    based.commit_all("hooks in ci/hooks")
    mark = tmp_path / "mark"
    env = dict(based.env, MARK=str(mark))
    r = based.run(response=RESPONSE, cwd=based.root / "src", env=env)
    assert r.returncode == 1
    assert mark.read_text() == "ran\n"
    assert "pre-commit hook failed" in r.err


def test_linked_worktree_uses_the_common_hooks(logged, tmp_path: Path):
    repo, log = logged
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "side", str(wt))
    r = repo.run(response=RESPONSE, cwd=wt)
    assert r.returncode == 0, r.err
    runs = read_log(log)
    assert [x["name"] for x in runs] == ["pre-commit", "prepare-commit-msg", "commit-msg", "post-commit"]
    wt_gitdir = repo.root / ".git" / "worktrees" / "wt"
    for run in runs:
        assert run["cwd"] == str(wt)
        assert run["GIT_DIR"] == str(wt_gitdir)
    assert runs[1]["args"] == f"{wt_gitdir / 'COMMIT_EDITMSG'} message"
    assert runs[3]["GIT_INDEX_FILE"] == str(wt_gitdir / "index")
    assert (wt / "src" / "b.txt").read_bytes() == b"alpha\nBETA\n"
    assert repo.git("log", "-1", "--format=%s", "side").strip() == "Make beta louder"
    assert repo.read("src/b.txt") == b"alpha\nbeta\n"  # the main worktree is untouched
    assert repo.git("status", "--porcelain", cwd=wt) == ""


FORMATTER = r"""#!/bin/sh
# a formatter that rewrites the staged files and stages them again
for f in $(git diff --cached --name-only --diff-filter=AM); do
  tr 'a-z' 'A-Z' < "$f" > "$f.tmp" && mv "$f.tmp" "$f" && git add "$f"
done
"""


def test_pre_commit_that_restages_files_is_honoured(based: GitRepo):
    r = based.run(response=RESPONSE)
    assert r.returncode == 0
    based.git("reset", "-q", "--hard", "HEAD~1")
    hook(based, "pre-commit", FORMATTER)
    based.write("other.txt", "unstaged work\n")  # not touched: stays unstaged, uncommitted
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert based.git("show", "HEAD:src/b.txt") == "ALPHA\nBETA\n"
    assert based.read("src/b.txt") == b"ALPHA\nBETA\n"
    assert based.git("show", "HEAD:other.txt") == "other\n"
    assert based.git("status", "--porcelain") == " M other.txt\n"
    assert based.git("diff", "--cached", "--name-only") == ""


def test_pre_commit_restaging_with_other_staged_changes(based: GitRepo):
    """Other staged changes stay staged and out of the commit even when the hook re-stages
    (the hooks then work on a temporary index of the commit)."""
    hook(based, "pre-commit", FORMATTER)
    based.write("other.txt", "staged work\n")
    based.git("add", "other.txt")
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert based.git("show", "HEAD:src/b.txt") == "ALPHA\nBETA\n"
    assert based.git("show", "HEAD:other.txt") == "other\n"
    assert based.git("show", ":other.txt") == "staged work\n"
    assert based.git("show", ":src/b.txt") == "ALPHA\nBETA\n"
    assert based.git("status", "--porcelain") == "M  other.txt\n"


def test_pre_commit_failure_after_restaging_restores_everything(based: GitRepo):
    hook(based, "pre-commit", FORMATTER + "exit 1\n")
    before = based.snapshot()
    r = based.run(response=RESPONSE)
    assert r.returncode == 1
    assert based.snapshot() == before


def test_user_git_editor_is_replaced_by_colon(based: GitRepo, tmp_path: Path):
    hook(based, "commit-msg", '#!/bin/sh\necho "editor=$GIT_EDITOR" > "$MARK"\n')
    mark = tmp_path / "mark"
    env = dict(based.env, GIT_EDITOR="vim", MARK=str(mark))
    assert based.run(response=RESPONSE, env=env).returncode == 0
    assert mark.read_text() == "editor=:\n"


def test_hook_emptying_the_message_aborts(based: GitRepo):
    hook(based, "commit-msg", '#!/bin/sh\n: > "$1"\n')
    before = based.snapshot()
    r = based.run(response=RESPONSE)
    assert r.returncode == 1
    assert "empty commit message" in r.err
    assert based.snapshot() == before


def test_hooks_get_no_standard_input(based: GitRepo, tmp_path: Path):
    hook(based, "pre-commit", '#!/bin/sh\ncat > "$MARK"\n')
    mark = tmp_path / "mark"
    env = dict(based.env, MARK=str(mark))
    r = based.run("-", stdin=RESPONSE.encode(), env=env)
    assert r.returncode == 0, r.err
    assert mark.read_bytes() == b""
