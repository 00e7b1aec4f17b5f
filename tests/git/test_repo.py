"""git/repo.py's Repo on real repositories: found as git finds it, HEAD and revisions as
git resolves them, settings as git config reads them, the operation in progress, where
the command runs, and the history helpers, each checked against the git CLI."""
from __future__ import annotations

import os

import pygit2
import pytest

from conftest import GitRepo
from git_aiapply.errors import FatalError, UsageError
from git_aiapply.git.repo import Repo, find_response_commit, still_holds


@pytest.fixture
def base(repo: GitRepo, env, monkeypatch) -> GitRepo:
    """Two commits on main, the process in the repository with the command's environment."""
    monkeypatch.chdir(repo.root)
    repo.write("a.txt", "one\n")
    repo.write("sub/b.txt", "bee\n")
    repo.commit_all("first")
    repo.write("a.txt", "two\n")
    repo.commit_all("second")
    return repo


def test_found_from_a_subfolder_as_git_rev_parse_finds_it(base: GitRepo, monkeypatch):
    monkeypatch.chdir(base.root / "sub")
    r = Repo()
    top = base.git("rev-parse", "--show-toplevel", cwd=base.root / "sub").strip()
    gitdir = base.git("rev-parse", "--absolute-git-dir", cwd=base.root / "sub").strip()
    assert (r.workdir, r.gitdir, r.commondir) == (top, gitdir, gitdir)
    assert r.relpath_of_cwd() == "sub" == base.git("rev-parse", "--show-prefix",
                                                   cwd=base.root / "sub").strip().rstrip("/")
    monkeypatch.chdir(base.root)
    assert Repo().relpath_of_cwd() == ""


def test_a_linked_worktree_has_its_own_gitdir_and_the_common_one(base: GitRepo, tmp_path):
    linked = tmp_path / "linked"
    base.git("worktree", "add", "-q", "-b", "other", str(linked))
    r = Repo(str(linked))
    assert r.workdir == base.git("rev-parse", "--show-toplevel", cwd=linked).strip()
    assert r.gitdir == base.git("rev-parse", "--absolute-git-dir", cwd=linked).strip()
    common = base.git("rev-parse", "--git-common-dir", cwd=linked).strip()
    assert r.commondir == os.path.normpath(os.path.join(linked, common))
    assert r.head()[0] == "refs/heads/other"


def test_repo_from_a_subfolder_and_through_git_dir(base: GitRepo, monkeypatch, tmp_path):
    monkeypatch.chdir(base.root / "sub")
    repo = Repo(".")
    assert os.path.realpath(repo.workdir) == os.path.realpath(base.root)
    assert repo.relpath_of_cwd() == "sub"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_DIR", str(base.root / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(base.root))
    repo = Repo(".")
    assert os.path.realpath(repo.workdir) == os.path.realpath(base.root)


def test_not_a_repository_is_fatal(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FatalError, match="not a git repository"):
        Repo(".")


def test_head_is_what_git_symbolic_ref_and_rev_parse_say(base: GitRepo):
    branch, oid = Repo().head()
    assert branch == base.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert str(oid) == base.git("rev-parse", "HEAD").strip()
    base.git("checkout", "-q", "--detach", "HEAD~1")
    assert Repo().head() == (None, pygit2.Oid(hex=base.git("rev-parse", "HEAD").strip()))
    base.git("checkout", "-q", "--orphan", "unborn")
    assert Repo().head() == ("refs/heads/unborn", None)


def test_a_branch_that_is_a_symbolic_ref_is_followed_to_the_real_one(base: GitRepo):
    base.git("symbolic-ref", "refs/heads/alias", "refs/heads/main")
    base.git("symbolic-ref", "HEAD", "refs/heads/alias")
    assert Repo().head() == ("refs/heads/main", pygit2.Oid(hex=base.head()))


def test_revisions_resolve_as_git_rev_parse(base: GitRepo):
    r = Repo()
    for rev in ("HEAD", "HEAD~1", "main^", "main"):
        assert str(r.resolve_commit(rev).id) == base.git("rev-parse", f"{rev}^{{commit}}").strip()
    with pytest.raises(UsageError, match="unknown revision"):
        r.resolve_commit("no-such-thing")
    base.git("tag", "-a", "-m", "tagged", "v1", "HEAD~1")
    assert str(r.resolve_commit("v1").id) == base.git("rev-parse", "v1^{commit}").strip()
    assert str(r.branch_commit("refs/tags/v1").id) == base.git("rev-parse", "HEAD~1").strip()
    assert r.branch_commit("refs/heads/missing") is None
    assert str(r.ref_target("refs/heads/main")) == base.head()
    assert r.ref_target("refs/heads/missing") is None


def test_settings_read_as_git_config_reads_them(base: GitRepo):
    base.git("config", "ai.flag", "yes")
    base.git("config", "ai.size", "2k")
    base.git("config", "ai.mode", "fast")
    r = Repo()
    assert r.config_bool("ai.flag") is True
    assert base.git("config", "--type=bool", "ai.flag").strip() == "true"
    assert r.config_int("ai.size", 0) == 2048 == int(base.git("config", "--type=int", "ai.size"))
    assert r.config_get("ai.mode") == "fast" and r.config_get("ai.unset", "d") == "d"
    assert r.config_choice("ai.mode", ("fast", "slow")) == "fast"
    assert r.config_choice("ai.unset", ("fast", "slow")) is None
    with pytest.raises(FatalError, match="bad config value 'fast' for 'ai.mode'") as e:
        r.config_choice("ai.mode", ("slow",))
    assert e.value.kind == "config"
    with pytest.raises(FatalError, match="out of range"):
        r.config_int("ai.size", 0, minimum=4096)


def test_a_setting_changed_meanwhile_is_seen_after_forget_config(base: GitRepo):
    r = Repo()
    assert r.config_get("ai.later") is None
    base.git("config", "ai.later", "now")
    r.forget_config()
    assert r.config_get("ai.later") == "now"


def test_the_operation_in_progress_is_the_one_git_status_names(base: GitRepo):
    r = Repo()
    assert r.in_progress() is None
    base.git("checkout", "-q", "-b", "other", "HEAD~1")
    base.write("a.txt", "theirs\n")
    base.commit_all("theirs")
    base.git("checkout", "-q", "main")
    base.git("merge", "-q", "other", check=False)
    assert r.in_progress() == "a merge"
    assert "You have unmerged paths" in base.git("status")
    base.git("merge", "--abort")
    base.git("cherry-pick", "other", check=False)
    assert r.in_progress() == "a cherry-pick"
    base.git("cherry-pick", "--abort")
    assert r.in_progress() is None


def test_a_bare_repository_has_no_worktree(base: GitRepo, tmp_path, monkeypatch):
    bare = tmp_path / "bare.git"
    base.git("clone", "-q", "--bare", str(base.root), str(bare))
    r = Repo(str(bare))
    assert r.workdir is None and base.git("rev-parse", "--is-bare-repository", cwd=bare).strip() == "true"
    with pytest.raises(UsageError, match="needs a worktree"):
        r.require_worktree("needs a worktree")
    monkeypatch.chdir(base.root / ".git")  # inside the git dir: git's own fatal error
    inside = Repo()
    assert inside.workdir is None
    with pytest.raises(FatalError, match="must be run in a work tree"):
        inside.require_worktree("needs a worktree")
    Repo(str(base.root)).require_worktree("needs a worktree")


def test_the_index_is_git_index_file_when_set(base: GitRepo, monkeypatch):
    assert Repo().index_path() == os.path.join(base.git("rev-parse", "--absolute-git-dir").strip(),
                                               "index")
    monkeypatch.setenv("GIT_INDEX_FILE", "alt-index")
    monkeypatch.chdir(base.root / "sub")  # relative to the top of the worktree, as git takes it
    assert Repo().index_path() == str(base.root / "alt-index")


def test_the_commit_of_a_response_is_found_by_its_trailers(base: GitRepo):
    base.write("c.txt", "c\n")
    base.git("add", "c.txt")
    base.git("commit", "-q", "-m", "Add c\n\nAI-Response: 0123456789abcdef")
    wanted = base.head()
    base.write("d.txt", "d\n")
    base.commit_all("later")
    r = Repo()
    tip = pygit2.Oid(hex=base.head())
    assert str(find_response_commit(r, tip, "0123456789abcdef").id) == wanted
    assert base.git("log", "--format=%H", "--grep=AI-Response: 0123456789abcdef").split() == [wanted]
    assert find_response_commit(r, tip, "fedcba9876543210") is None
    assert find_response_commit(r, tip, "0123456789abcdef", paths="c.txt") is None
    assert find_response_commit(r, tip, "0123456789abcdef", limit=1) is None  # too far back
    assert find_response_commit(r, None, "0123456789abcdef") is None


def test_a_commit_still_holds_until_its_change_is_undone(base: GitRepo):
    r = Repo()
    second = pygit2.Oid(hex=base.head())
    assert still_holds(r, second, r.repo[second].tree.id)
    base.write("sub/b.txt", "other file\n")
    base.commit_all("unrelated")
    assert still_holds(r, second, r.repo.revparse_single("HEAD").tree.id)
    base.git("revert", "--no-edit", str(second))
    assert not still_holds(r, second, r.repo.revparse_single("HEAD").tree.id)
    assert not still_holds(r, second, None)


@pytest.fixture
def settled(monkeypatch):
    """Every config file counts as settled at once (not a second after its last change),
    and the reads of the files are counted."""
    import time

    from git_aiapply.git import config_files

    monkeypatch.setattr(config_files, "_SETTLED_NS", 0)
    reads: list = []
    real = config_files.read_settings
    monkeypatch.setattr(config_files, "read_settings",
                        lambda *a: reads.append(1) or real(*a))
    return lambda: time.sleep(0.02) or len(reads)  # a clock tick later: the reads so far


def _in_place(path, old: str, new: str) -> None:
    """Rewrite a file in place (same inode), as an editor may."""
    with open(path, "r+") as f:
        text = f.read().replace(old, new)
        f.seek(0)
        f.write(text)
        f.truncate()


def test_unchanged_config_files_are_not_read_again_and_any_change_is_seen(
        base: GitRepo, settled, tmp_path, monkeypatch):
    r = Repo()
    assert r.config_get("ai.later") is None and settled() == 1
    r.forget_config()
    assert r.config_get("ai.later") is None and settled() == 1  # unchanged: kept
    base.git("config", "ai.later", "now")  # git config: a new file renamed over
    r.forget_config()
    assert r.config_get("ai.later") == "now" and settled() == 2
    _in_place(base.root / ".git" / "config", "now", "new")  # same size, same inode
    r.forget_config()
    assert r.config_get("ai.later") == "new" and settled() == 3
    user = tmp_path / "user.cfg"
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user))  # a file that is not there yet
    r.forget_config()
    assert r.config_get("ai.user") is None and settled() == 4
    r.forget_config()
    assert r.config_get("ai.user") is None and settled() == 4
    user.write_text("[ai]\n\tuser = here\n")  # it appears
    r.forget_config()
    assert r.config_get("ai.user") == "here" and settled() == 5


def test_config_with_an_include_is_read_at_each_request(base: GitRepo, settled, tmp_path):
    extra = tmp_path / "extra.cfg"
    extra.write_text("[ai]\n\textra = one\n")
    base.git("config", "include.path", str(extra))
    r = Repo()
    assert r.config_get("ai.extra") == "one"
    _in_place(extra, "one", "two")
    r.forget_config()
    assert r.config_get("ai.extra") == "two"
    reads = settled()
    r.forget_config()
    assert r.config_get("ai.extra") == "two" and settled() == reads + 1


def test_a_config_file_just_written_is_read_again(base: GitRepo):
    # changed less than a second before the read: a write in the same clock tick after
    # the read could leave the same stat, so it is never trusted
    from git_aiapply.git.config_files import config_files, config_stamp
    import time

    r = Repo()
    files = config_files(r.gitdir, r.commondir)
    assert config_stamp(files, r.gitdir, r.commondir, time.time_ns()) is None
    assert config_stamp(files, r.gitdir, r.commondir, time.time_ns() + 2 * 10**9) is not None
