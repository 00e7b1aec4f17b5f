"""core.sharedRepository (issue 33): the modes of the objects, refs, reflogs and index the
tool writes are the ones git gives what it writes (git's git_config_perm and
adjust_shared_perm); checked against `stat` of what git itself wrote."""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from conftest import GitRepo, init_repo

LOUDER_A = ("Change a.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-a\n+b\n"
            "</FILE_PATCH>\n</FILE_CHANGES>\n")
from git_aiapply.errors import FatalError
from git_aiapply.git.shared_repo import (EVERYBODY, GROUP, UMASK, adjust, missing_folders,
                                         shared_mode, shared_setting)


@pytest.mark.parametrize("value,setting", [
    (None, GROUP), ("group", GROUP), ("true", GROUP), ("1", GROUP), ("yes", GROUP),
    ("all", EVERYBODY), ("world", EVERYBODY), ("everybody", EVERYBODY), ("2", EVERYBODY),
    ("umask", UMASK), ("false", UMASK), ("0", UMASK), ("", UMASK),
    ("0660", -0o660), ("0640", -0o640), ("600", -0o600), ("0777", -0o666),
])
def test_the_setting_is_read_as_git_reads_it(value, setting):
    assert shared_setting(value) == setting


def test_a_mode_the_owner_cannot_write_is_fatal_as_in_git():
    with pytest.raises(FatalError, match=r"filemode value \(0440\)"):
        shared_setting("0440")
    with pytest.raises(FatalError, match="bad boolean config value 'maybe'"):
        shared_setting("maybe")


@pytest.mark.parametrize("mode,shared,want", [
    (0o100444, GROUP, 0o100444), (0o100400, GROUP, 0o100440), (0o100644, GROUP, 0o100664),
    (0o100600, EVERYBODY, 0o100664), (0o100444, -0o640, 0o100440), (0o100644, -0o660, 0o100660),
    (0o100755, GROUP, 0o100775), (0o040755, GROUP, 0o042775), (0o040700, -0o640, 0o042750),
    (0o040700, EVERYBODY, 0o042775),
])
def test_modes_are_adjust_shared_perms(mode, shared, want):
    assert shared_mode(mode, shared) == want


def test_adjust_and_the_folders_a_write_creates(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    os.chmod(f, 0o600)
    adjust(str(f), UMASK)
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    adjust(str(f), GROUP)
    assert stat.S_IMODE(f.stat().st_mode) == 0o660
    adjust(str(tmp_path / "gone"), GROUP)  # nothing there: nothing done
    (tmp_path / "a").mkdir()
    assert missing_folders(str(tmp_path / "a" / "b" / "c" / "file"), str(tmp_path)) == \
        [str(tmp_path / "a" / "b"), str(tmp_path / "a" / "b" / "c")]
    assert missing_folders(str(tmp_path / "a" / "file"), str(tmp_path)) == []


def _modes(repo: GitRepo, branch: str) -> dict[str, int]:
    """The modes of what the last commit of ``branch`` wrote: its objects and their
    folders, the branch's ref and reflog and their folders, HEAD's reflog, the index."""
    gd = repo.root / ".git"
    tip = repo.git("rev-parse", branch).strip()
    blob = repo.git("rev-parse", f"{branch}:new.txt").strip()
    out = {}
    for name, oid in (("commit", tip), ("blob", blob)):
        out[name] = (gd / "objects" / oid[:2] / oid[2:]).stat().st_mode
        out[name + " folder"] = (gd / "objects" / oid[:2]).stat().st_mode
    for name, path in (("ref", f"refs/heads/{branch}"), ("reflog", f"logs/refs/heads/{branch}"),
                       ("ref folder", "refs/heads/team"), ("log folder", "logs/refs/heads/team"),
                       ("HEAD log", "logs/HEAD"), ("index", "index")):
        out[name] = (gd / path).stat().st_mode
    return {k: stat.S_IMODE(v) | (v & stat.S_IFDIR) for k, v in out.items()}


def test_what_the_command_writes_has_the_modes_git_gives(tmp_path: Path, git_env):
    repos = {}
    for who in ("git", "tool"):
        r = init_repo(tmp_path / who, git_env)
        r.git("config", "core.sharedRepository", "0660")  # after init: only new files
        r.write("a.txt", "a\n")
        r.commit_all()
        repos[who] = r
    g = repos["git"]
    g.write("new.txt", "a new file\n")
    g.git("add", "new.txt")
    g.git("commit", "-q", "-m", "new")
    g.git("branch", "team/x")
    g.git("checkout", "-q", "team/x")
    g.write("new.txt", "on the branch\n")
    g.git("commit", "-q", "-am", "branch")
    t = repos["tool"]
    r = t.run("-q", response="Add it.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"new.txt\">\n"
              "a new file\n</FILE_NEW>\n</FILE_CHANGES>\n")
    assert r.returncode == 0, r.err
    t.git("branch", "team/x")  # created by git; moved by the tool
    t.git("checkout", "-q", "team/x")
    r = t.run("-q", response="Change it.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"new.txt\">\n"
              "@@\n-a new file\n+on the branch\n</FILE_PATCH>\n</FILE_CHANGES>\n")
    assert r.returncode == 0, r.err
    assert _modes(t, "main") == _modes(g, "main")
    assert _modes(t, "team/x") == _modes(g, "team/x")
    assert _modes(t, "main")["commit"] == 0o440
    # a branch the tool creates: its new folders and reflog too
    g.git("branch", "made/here", "main")
    r = t.run("-q", "--branch", "made/here",
              response="Add b.\n\n<FILE_CHANGES>\n<FILE_NEW file_path=\"b.txt\">\nb\n"
                       "</FILE_NEW>\n</FILE_CHANGES>\n")
    assert r.returncode == 0, r.err
    for path in ("refs/heads/made", "refs/heads/made/here", "logs/refs/heads/made",
                 "logs/refs/heads/made/here"):
        assert (t.root / ".git" / path).stat().st_mode == (g.root / ".git" / path).stat().st_mode, path


def test_a_reflog_made_before_the_setting_gets_its_mode_at_the_next_move(tmp_path: Path,
                                                                         git_env):
    # git adjusts a reflog's mode at every append, not only when it creates it
    modes = {}
    for who in ("git", "tool"):
        r = init_repo(tmp_path / who, git_env)
        r.write("a.txt", "a\n")
        r.commit_all()  # the reflogs made under the umask
        r.git("config", "core.sharedRepository", "group")
        if who == "git":
            r.write("a.txt", "b\n")
            r.git("commit", "-q", "-am", "b")
        else:
            done = r.run("-q", response=LOUDER_A)
            assert done.returncode == 0, done.err
        modes[who] = {p: stat.S_IMODE((r.root / ".git" / p).stat().st_mode)
                      for p in ("logs/HEAD", "logs/refs/heads/main")}
    assert modes["tool"] == modes["git"] and modes["git"]["logs/HEAD"] & 0o020
