"""Repository layouts and states as git knows them (BEHAVIOR.md §1, §5-§9; issue 12):
the repository git would use, `git -c` settings, paths through symlinked folders,
refusals where `git commit` refuses, and files written as `git checkout` writes them.
Every test runs the real command (through `git` itself where git passes something to
its subcommands) and checks the result with the git CLI."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import AI_APPLY, GitRepo


def patch(path: str, old: str, new: str) -> str:
    return (f"Change {path}.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{path}\">\n@@\n-{old}\n"
            f"+{new}\n</FILE_PATCH>\n</FILE_CHANGES>\n")


def new_file(path: str, text: str) -> str:
    return (f"Add {path}.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"{path}\">\n{text}"
            "</FILE_NEW>\n</FILE_CHANGES>\n")


def git(env, *args, cwd, check=True) -> str:
    r = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r.stdout


def make_repo(path: Path, env, files: dict[str, str]) -> GitRepo:
    path.mkdir(parents=True)
    git(env, "init", "-q", "-b", "main", cwd=path)
    r = GitRepo(path, env)
    for p, text in files.items():
        r.write(p, text)
    r.commit_all()
    return r


def response_file(tmp_path: Path, text: str) -> str:
    p = tmp_path / f"response-{abs(hash(text)) % 10**8}.md"
    p.write_text(text)
    return str(p)


def run_git_ai_apply(env, cwd, *args) -> subprocess.CompletedProcess:
    """`git [ARGS] ai-apply ...` as a user types it: git finds git-ai-apply on PATH and
    passes --git-dir, --work-tree and -c to it through the environment."""
    r = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert "Traceback" not in r.stderr, r.stderr
    return r


# --------------------------------------------------------------------------- which repository


def test_git_dir_and_work_tree_name_the_repository_not_the_current_folder(tmp_path, git_env):
    a = make_repo(tmp_path / "A", git_env, {"a.txt": "alpha\n"})
    b = make_repo(tmp_path / "B", git_env, {"a.txt": "alpha\n"})
    b_head = b.head()
    resp = response_file(tmp_path, patch("a.txt", "alpha", "ALPHA"))
    r = run_git_ai_apply(git_env, b.root, f"--git-dir={a.root}/.git", f"--work-tree={a.root}",
                         "ai-apply", resp)
    assert r.returncode == 0, r.stderr
    assert a.read("a.txt") == b"ALPHA\n"
    assert a.git("show", "HEAD:a.txt") == "ALPHA\n"
    assert a.git("status", "--porcelain") == ""
    assert b.head() == b_head and b.read("a.txt") == b"alpha\n"


def test_git_dir_from_outside_any_repository(tmp_path, git_env):
    a = make_repo(tmp_path / "A", git_env, {"a.txt": "alpha\n"})
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = dict(git_env, GIT_CEILING_DIRECTORIES=str(tmp_path))
    resp = response_file(tmp_path, patch("a.txt", "alpha", "ALPHA"))
    r = run_git_ai_apply(env, outside, f"--git-dir={a.root}/.git", f"--work-tree={a.root}",
                         "ai-apply", resp)
    assert r.returncode == 0, r.stderr
    assert a.git("show", "HEAD:a.txt") == "ALPHA\n"
    assert a.git("status", "--porcelain") == ""


def test_separate_git_dir_writes_new_files_into_the_worktree(tmp_path, git_env):
    wt = tmp_path / "wt"
    gd = tmp_path / "store.git"
    git(git_env, "init", "-q", "-b", "main", f"--separate-git-dir={gd}", str(wt), cwd=tmp_path)
    r = GitRepo(wt, git_env)
    r.write("a.txt", "alpha\n")
    r.commit_all()
    res = r.run(response=new_file("sub/new.txt", "hello\n"), cwd=wt)
    assert res.returncode == 0, res.err
    assert (wt / "sub" / "new.txt").read_bytes() == b"hello\n"
    assert not (gd / "sub").exists() and not (tmp_path / "sub").exists()
    assert r.git("status", "--porcelain") == ""
    assert r.git("show", "HEAD:sub/new.txt") == "hello\n"


def test_core_worktree_is_the_worktree(tmp_path, git_env):
    gd = tmp_path / "meta"
    wt = tmp_path / "files"
    wt.mkdir()
    git(git_env, "init", "-q", "-b", "main", "--bare", str(gd), cwd=tmp_path)
    git(git_env, "config", "core.bare", "false", cwd=gd)
    git(git_env, "config", "core.worktree", str(wt), cwd=gd)
    env = dict(git_env, GIT_DIR=str(gd))
    (wt / "a.txt").write_text("alpha\n")
    git(env, "add", "a.txt", cwd=wt)
    git(env, "commit", "-q", "-m", "base", cwd=wt)
    resp = response_file(tmp_path, patch("a.txt", "alpha", "ALPHA") )
    r = run_git_ai_apply(env, tmp_path, "ai-apply", resp)
    assert r.returncode == 0, r.stderr
    assert (wt / "a.txt").read_text() == "ALPHA\n"
    assert git(env, "show", "HEAD:a.txt", cwd=wt) == "ALPHA\n"
    assert git(env, "status", "--porcelain", cwd=wt) == ""


def test_linked_worktree_from_a_subfolder_commits_on_its_own_branch(tmp_path, git_env):
    main = make_repo(tmp_path / "main", git_env, {"src/a.txt": "alpha\n"})
    # the main worktree named in the common config: git ignores core.worktree in a
    # linked worktree, and so must the command (it wrote the main worktree's file)
    main.git("config", "core.worktree", str(main.root))
    linked = tmp_path / "linked"
    main.git("worktree", "add", "-q", "-b", "feature", str(linked))
    assert git(git_env, "rev-parse", "--show-toplevel", cwd=linked / "src").strip() == str(linked)
    main_head = main.head()
    resp = response_file(tmp_path, patch("src/a.txt", "alpha", "ALPHA"))
    r = subprocess.run([*AI_APPLY, resp], cwd=linked / "src", env=git_env, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert (linked / "src" / "a.txt").read_text() == "ALPHA\n"
    assert main.git("show", "feature:src/a.txt") == "ALPHA\n"
    assert main.head() == main_head and main.read("src/a.txt") == b"alpha\n"
    assert git(git_env, "status", "--porcelain", cwd=linked) == ""
    assert main.git("status", "--porcelain") == ""


def test_inside_the_git_dir_there_is_no_worktree_as_in_git(tmp_path, git_env):
    """From inside `.git` git finds the repository but no worktree: `git commit` says
    "this operation must be run in a work tree".  So does the command; it writes nothing
    into the folder above.  --branch needs no worktree and works there, as in git."""
    main = make_repo(tmp_path / "main", git_env, {"src/a.txt": "alpha\n"})
    head = main.head()
    resp = response_file(tmp_path, patch("src/a.txt", "alpha", "ALPHA"))
    by_git = subprocess.run(["git", "commit", "--allow-empty", "-m", "x"], cwd=main.root / ".git",
                            env=git_env, capture_output=True, text=True)
    assert by_git.returncode == 128 and "must be run in a work tree" in by_git.stderr
    for cwd in (main.root / ".git", main.root / ".git" / "refs"):
        for argv in ([resp], ["undo"], ["pick", "feature"], ["recover"]):
            r = subprocess.run([*AI_APPLY, *argv], cwd=cwd, env=git_env, capture_output=True,
                               text=True)
            assert r.returncode == 128, (argv, r.stderr)
            assert r.stderr.startswith("fatal: this operation must be run in a work tree"), \
                r.stderr
            assert "Traceback" not in r.stderr
        assert main.head() == head and main.read("src/a.txt") == b"alpha\n"
        assert git(git_env, "status", "--porcelain", cwd=main.root) == ""
    r = subprocess.run([*AI_APPLY, "--branch", "feature", resp], cwd=main.root / ".git",
                       env=git_env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert main.git("show", "feature:src/a.txt") == "ALPHA\n"
    assert main.head() == head and main.read("src/a.txt") == b"alpha\n"
    leftovers = [p.name for p in (main.root / ".git").iterdir() if ".ai-apply-" in p.name]
    assert leftovers == []


# --------------------------------------------------------------------------- git -c


def test_git_c_settings_are_honoured(tmp_path, git_env):
    a = make_repo(tmp_path / "A", git_env, {"a.txt": "alpha\n"})
    env = {k: v for k, v in git_env.items() if not k.startswith(("GIT_AUTHOR", "GIT_COMMITTER"))}
    resp = response_file(tmp_path, patch("a.txt", "alpha", "ALPHA"))
    r = run_git_ai_apply(env, a.root, "-c", "user.name=Cee Name", "-c", "user.email=cee@example.com",
                         "-c", "aiapply.trailers=false", "ai-apply", resp)
    assert r.returncode == 0, r.stderr
    assert a.git("log", "-1", "--format=%an <%ae>").strip() == "Cee Name <cee@example.com>"
    assert "AI-Response" not in a.git("log", "-1", "--format=%B")


def test_invalid_aiapply_setting_is_fatal(tmp_path, git_env):
    a = make_repo(tmp_path / "A", git_env, {"a.txt": "alpha\n"})
    before = a.snapshot()
    resp = response_file(tmp_path, patch("a.txt", "alpha", "ALPHA"))
    r = run_git_ai_apply(git_env, a.root, "-c", "aiapply.trailers=perhaps", "ai-apply", resp)
    assert r.returncode == 128, r.stderr
    assert r.stderr.startswith("fatal: ") and "aiapply.trailers" in r.stderr
    assert a.snapshot() == before
    a.git("config", "aiapply.subjectLength", "lots")
    r = subprocess.run([*AI_APPLY, resp], cwd=a.root, env=git_env, capture_output=True, text=True)
    assert r.returncode == 128 and "aiapply.subjectlength" in r.stderr.lower(), r.stderr
    assert a.snapshot() == before


# --------------------------------------------------------------------------- symlinked folders


def test_tracked_folder_replaced_by_a_link_is_never_written_through(repo: GitRepo, tmp_path):
    repo.write("lib/a.txt", "alpha\n")
    repo.write("lib/b.txt", "beta\n")
    repo.commit_all()
    outside = tmp_path / "copy"
    outside.mkdir()
    (outside / "a.txt").write_text("alpha\n")
    (outside / "b.txt").write_text("beta\n")
    import shutil

    shutil.rmtree(repo.root / "lib")
    os.symlink(outside, repo.root / "lib")
    head = repo.head()
    for resp in (patch("lib/a.txt", "alpha", "ALPHA"),
                 "Drop b.\n\n<FILE_CHANGES>\n<FILE_DELETE file_path=\"lib/b.txt\" />\n</FILE_CHANGES>\n"):
        r = repo.run(response=resp)
        assert r.returncode != 0, r.out
        assert "lib" in r.err
    assert (outside / "a.txt").read_text() == "alpha\n"
    assert (outside / "b.txt").read_text() == "beta\n"
    assert repo.head() == head


# --------------------------------------------------------------------------- where git commit stops


def _conflicted_merge(repo: GitRepo) -> None:
    repo.write("a.txt", "alpha\n")
    repo.write("b.txt", "beta\n")
    repo.commit_all()
    repo.git("checkout", "-q", "-b", "other")
    repo.write("a.txt", "other\n")
    repo.commit_all("other")
    repo.git("checkout", "-q", "main")
    repo.write("a.txt", "mine\n")
    repo.commit_all("mine")
    repo.git("merge", "other", check=False)
    assert "UU a.txt" in repo.git("status", "--porcelain")


def test_merge_with_unmerged_entries_is_fatal(repo: GitRepo):
    _conflicted_merge(repo)
    before = repo.snapshot()
    head = repo.head()
    r = repo.run(response=patch("b.txt", "beta", "BETA"))
    assert r.returncode == 128, r.err
    assert r.err.startswith("fatal: ") and "merge" in r.err
    assert repo.head() == head and repo.snapshot() == before
    assert "UU a.txt" in repo.git("status", "--porcelain")


def test_rebase_in_progress_is_fatal_and_its_branch_is_no_target(repo: GitRepo):
    repo.write("a.txt", "alpha\n")
    repo.write("b.txt", "beta\n")
    repo.commit_all()
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("a.txt", "topic\n")
    repo.commit_all("topic")
    repo.git("checkout", "-q", "main")
    repo.write("a.txt", "main\n")
    repo.commit_all("main")
    repo.git("checkout", "-q", "topic")
    repo.git("rebase", "main", check=False)  # stops on the conflict, HEAD detached
    topic = repo.git("rev-parse", "topic").strip()
    r = repo.run(response=patch("b.txt", "beta", "BETA"))
    assert r.returncode == 128 and "rebase" in r.err, r.err
    r = repo.run("--branch", "topic", response=patch("b.txt", "beta", "BETA"))
    assert r.returncode == 128 and "rebased" in r.err, r.err
    assert repo.git("rev-parse", "topic").strip() == topic
    repo.git("rebase", "--abort")
    assert repo.git("rev-parse", "HEAD").strip() == topic


def test_symbolic_ref_branch_moves_the_branch_it_names(repo: GitRepo):
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    repo.git("symbolic-ref", "refs/heads/alias", "refs/heads/main")
    repo.git("symbolic-ref", "HEAD", "refs/heads/alias")
    r = repo.run(response=patch("a.txt", "alpha", "ALPHA"))
    assert r.returncode == 0, r.err
    assert repo.git("show", "main:a.txt") == "ALPHA\n"
    assert repo.git("symbolic-ref", "refs/heads/alias").strip() == "refs/heads/main"
    assert repo.git("status", "--porcelain") == ""


def test_split_index_is_a_clear_fatal_error(repo: GitRepo):
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    repo.git("update-index", "--split-index")
    before = repo.snapshot()
    r = repo.run(response=patch("a.txt", "alpha", "ALPHA"))
    assert r.returncode == 128, r.err
    assert r.err.startswith("fatal: ") and "split index" in r.err
    assert repo.snapshot() == before


# --------------------------------------------------------------------------- as git checkout writes


def test_autocrlf_checkout_stays_crlf(repo: GitRepo):
    repo.git("config", "core.autocrlf", "true")
    repo.write("a.txt", "one\r\ntwo\r\n")
    repo.commit_all()
    assert repo.git("show", "HEAD:a.txt") == "one\ntwo\n"  # stored LF, as git does
    r = repo.run(response=patch("a.txt", "two", "TWO") + new_file("n.txt", "x\ny\n"))
    assert r.returncode == 0, r.err
    assert repo.read("a.txt") == b"one\r\nTWO\r\n"
    assert repo.read("n.txt") == b"x\r\ny\r\n"
    assert repo.git("show", "HEAD:a.txt") == "one\nTWO\n"
    assert repo.git("status", "--porcelain") == ""


def test_text_eol_crlf_attribute(repo: GitRepo):
    repo.write(".gitattributes", "* text eol=crlf\n")
    repo.write("a.txt", "one\r\ntwo\r\n")
    repo.commit_all()
    r = repo.run(response=patch("a.txt", "one", "ONE"))
    assert r.returncode == 0, r.err
    assert repo.read("a.txt") == b"ONE\r\ntwo\r\n"
    assert repo.git("show", "HEAD:a.txt") == "ONE\ntwo\n"
    assert repo.git("status", "--porcelain") == ""


def test_clean_and_smudge_filter(repo: GitRepo):
    # the worktree holds upper case, the repository lower case
    repo.git("config", "filter.upper.smudge", "tr a-z A-Z")
    repo.git("config", "filter.upper.clean", "tr A-Z a-z")
    repo.write(".gitattributes", "*.up filter=upper\n")
    repo.write("f.up", "ALPHA\nBETA\n")
    repo.commit_all()
    assert repo.git("show", "HEAD:f.up") == "alpha\nbeta\n"
    r = repo.run(response=patch("f.up", "beta", "gamma"))
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:f.up") == "alpha\ngamma\n"
    assert repo.read("f.up") == b"ALPHA\nGAMMA\n"
    assert repo.git("status", "--porcelain") == ""


def test_undo_never_writes_through_a_folder_replaced_by_a_link(repo: GitRepo, tmp_path):
    repo.write("lib/a.txt", "alpha\n")
    repo.commit_all()
    assert repo.run(response=patch("lib/a.txt", "alpha", "ALPHA")).returncode == 0
    made = repo.head()
    outside = tmp_path / "copy"
    outside.mkdir()
    (outside / "a.txt").write_text("ALPHA\n")
    import shutil

    shutil.rmtree(repo.root / "lib")
    os.symlink(outside, repo.root / "lib")
    r = repo.run("undo")
    assert r.returncode != 0 and "lib" in r.err, r.out + r.err
    assert (outside / "a.txt").read_text() == "ALPHA\n"
    assert repo.head() == made


def test_unknown_aiapply_format_setting_is_fatal(tmp_path, git_env):
    a = make_repo(tmp_path / "A", git_env, {"a.txt": "alpha\n"})
    before = a.snapshot()
    resp = response_file(tmp_path, patch("a.txt", "alpha", "ALPHA"))
    r = run_git_ai_apply(git_env, a.root, "-c", "aiapply.format=nonsense", "ai-apply", resp)
    assert r.returncode == 128 and "aiapply.format" in r.stderr, r.stderr
    assert a.snapshot() == before
    # a known value is used
    r = run_git_ai_apply(git_env, a.root, "-c", "aiapply.format=file-changes", "ai-apply", resp)
    assert r.returncode == 0, r.stderr
    assert a.git("show", "HEAD:a.txt") == "ALPHA\n"


# Attribute files anywhere git reads them: the lookup is skipped only when none can speak
# of the path (libgit2's first lookup reads the whole index), so each place must count.
NEW_TXT = "<FILE_CHANGES>\n<FILE_NEW file_path=\"{path}\">\none\ntwo\n</FILE_NEW>\n</FILE_CHANGES>\n"


def _new_file_is_written_crlf(repo: GitRepo, path: str) -> bool:
    r = repo.run(response=NEW_TXT.format(path=path))
    assert r.returncode == 0, r.err
    assert repo.git("show", f"HEAD:{path}") == "one\ntwo\n"
    assert repo.git("status", "--porcelain") == ""
    return repo.read(path) == b"one\r\ntwo\r\n"


def test_attributes_of_a_subfolder_apply_below_it_only(repo: GitRepo):
    repo.write("sub/.gitattributes", "*.txt text eol=crlf\n")
    repo.write("sub/keep.txt", "x\n")
    repo.commit_all()
    assert _new_file_is_written_crlf(repo, "sub/deeper/n.txt")
    assert not _new_file_is_written_crlf(repo, "top.txt")


def test_attributes_in_info_attributes(repo: GitRepo):
    repo.write("a.txt", "x\n")
    repo.commit_all()
    info = repo.root / ".git" / "info"
    info.mkdir(exist_ok=True)
    (info / "attributes").write_text("*.txt text eol=crlf\n")
    assert _new_file_is_written_crlf(repo, "n.txt")


def test_attributes_in_core_attributes_file(repo: GitRepo, tmp_path):
    repo.write("a.txt", "x\n")
    repo.commit_all()
    attributes = tmp_path / "global-attributes"
    attributes.write_text("*.txt text eol=crlf\n")
    repo.git("config", "core.attributesFile", str(attributes))
    assert _new_file_is_written_crlf(repo, "n.txt")


def test_attributes_committed_but_deleted_from_the_worktree(repo: GitRepo):
    # the index still holds .gitattributes: git (and libgit2) read it from there
    repo.write(".gitattributes", "*.txt text eol=crlf\n")
    repo.write("a.txt", "x\r\n")
    repo.commit_all()
    (repo.root / ".gitattributes").unlink()
    r = repo.run(response=NEW_TXT.format(path="n.txt"))
    assert r.returncode == 0, r.err
    assert repo.read("n.txt") == b"one\r\ntwo\r\n"
    assert repo.git("show", "HEAD:n.txt") == "one\ntwo\n"
