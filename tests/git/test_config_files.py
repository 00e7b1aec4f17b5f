"""The config files git reads, chosen and ordered as git does (issue 33): GIT_CONFIG_GLOBAL,
GIT_CONFIG_SYSTEM, GIT_CONFIG_NOSYSTEM and includeIf "hasconfig:remote.*.url:...", which
libgit2 does not honour.  The commits the real command makes carry the identity
`git var GIT_AUTHOR_IDENT` gives."""
from __future__ import annotations

import subprocess

import pytest

from conftest import GitRepo
from git_aiapply.errors import FatalError
from git_aiapply.git.config_files import (GLOBAL, LOCAL, SYSTEM, WORKTREE, XDG, config_files,
                                          read_settings, url_matches)

RESPONSE = ("Change a.txt.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-{old}\n"
            "+{new}\n</FILE_PATCH>\n</FILE_CHANGES>\n")


@pytest.mark.parametrize("pattern,url,matches", [
    ("https://example.com/**", "https://example.com/team/repo.git", True),
    ("https://example.com/*", "https://example.com/team/repo.git", False),
    ("https://example.com/*/repo.git", "https://example.com/team/repo.git", True),
    ("**/repo.git", "git@host:team/repo.git", True),
    ("**/repo.git", "repo.git", True),
    ("https://example.com/**/x.git", "https://example.com/x.git", True),
    ("https://example.com/**/x.git", "https://example.com/a/b/x.git", True),
    ("git@host:team/?.git", "git@host:team/a.git", True),
    ("git@host:team/?.git", "git@host:team//.git", False),
    ("https://ex[a-c]mple.com/**", "https://example.com/r", True),
    ("https://ex[!a]mple.com/**", "https://example.com/r", False),
    ("https://ex[a-c.com/**", "https://exa-c.com/r", False),  # unclosed: no match, as git
    ("https://example.com/a*b", "https://example.com/a/b", False),
    ("https://example.com/a**b", "https://example.com/a/b", False),
])
def test_remote_url_patterns_match_as_git_wildmatch_pathname(pattern, url, matches):
    assert url_matches(pattern, url) is matches


def test_the_files_git_reads_as_the_environment_chooses_them(tmp_path):
    home, gd = str(tmp_path / "home"), str(tmp_path / "repo" / ".git")
    plain = config_files(gd, gd, {"HOME": home})
    assert plain == [(SYSTEM, "/etc/gitconfig"), (XDG, f"{home}/.config/git/config"),
                     (GLOBAL, f"{home}/.gitconfig"), (LOCAL, f"{gd}/config")]
    chosen = config_files(gd, gd, {"HOME": home, "GIT_CONFIG_GLOBAL": "/g",
                                   "GIT_CONFIG_SYSTEM": "/s", "XDG_CONFIG_HOME": "/x"})
    assert chosen == [(SYSTEM, "/s"), (GLOBAL, "/g"), (LOCAL, f"{gd}/config")]
    for off in ("1", "true", "yes"):
        assert config_files(gd, gd, {"GIT_CONFIG_NOSYSTEM": off, "GIT_CONFIG_SYSTEM": "/s"}) \
            == [(LOCAL, f"{gd}/config")]
    assert config_files(gd, gd, {"GIT_CONFIG_NOSYSTEM": "0", "XDG_CONFIG_HOME": "/x"})[:2] \
        == [(SYSTEM, "/etc/gitconfig"), (XDG, "/x/git/config")]
    with pytest.raises(FatalError, match="bad boolean config value 'maybe' for 'GIT_CONFIG_NOSYSTEM'"):
        config_files(gd, gd, {"GIT_CONFIG_NOSYSTEM": "maybe"})


def test_settings_are_read_in_git_order_and_hasconfig_includes_in_place(repo: GitRepo, tmp_path):
    (tmp_path / "work.cfg").write_text("[user]\n\tname = Work\n\temail = work@x\n")
    (tmp_path / "other.cfg").write_text("[user]\n\temail = other@x\n")
    (tmp_path / "global.cfg").write_text(
        "[user]\n\tname = Home\n\temail = home@x\n\tuseConfigOnly\n"
        "[includeIf \"hasconfig:remote.*.url:https://work.example/**\"]\n\tpath = work.cfg\n"
        "[includeIf \"hasconfig:remote.*.url:https://other.example/**\"]\n\tpath = other.cfg\n"
        "[core]\n\tabbrev = 9\n")
    repo.git("config", "--remove-section", "user")  # the fixture's identity
    repo.git("config", "core.abbrev", "12")
    repo.git("remote", "add", "origin", "https://work.example/team/r.git")
    gd = str(repo.root / ".git")
    files = [(GLOBAL, str(tmp_path / "global.cfg")), (LOCAL, f"{gd}/config"),
             (WORKTREE, str(tmp_path / "missing"))]
    import pygit2

    s = read_settings(pygit2.Repository(gd), files, {})
    assert (s["user.name"], s["user.email"], s["core.abbrev"]) == ("Work", "work@x", "12")
    assert s["user.useConfigOnly"] is None  # given without a value
    with pytest.raises(KeyError):
        s["user.signingkey"]
    # a URL given with `git -c` counts too
    s = read_settings(pygit2.Repository(gd), files,
                      {"remote.x.url": "https://other.example/a"})
    assert s["user.email"] == "other@x"


def _identity_env(repo: GitRepo, **extra) -> dict[str, str]:
    env = {k: v for k, v in repo.env.items() if not k.startswith(("GIT_AUTHOR_", "GIT_COMMITTER_"))}
    env.pop("GIT_CONFIG_NOSYSTEM", None)
    return {**env, "EMAIL": "fallback@example.com", **extra}


def test_commits_go_out_under_the_identity_git_would_use(repo: GitRepo, tmp_path):
    repo.write("a.txt", "v0\n")
    repo.commit_all()
    repo.git("config", "--remove-section", "user")  # the fixture's identity
    files = {}
    for name in ("global", "system", "work"):
        files[name] = tmp_path / f"{name}.cfg"
        files[name].write_text(f"[user]\n\tname = {name.title()} User\n\temail = {name}@x\n")
    (tmp_path / "home.cfg").write_text(
        "[includeIf \"hasconfig:remote.*.url:https://work.example/**\"]\n"
        f"\tpath = {files['work']}\n")
    repo.git("remote", "add", "origin", "https://work.example/team/r.git")
    cases = [
        # an identity set only in the file GIT_CONFIG_GLOBAL names
        dict(GIT_CONFIG_GLOBAL=str(files["global"]), GIT_CONFIG_SYSTEM=str(files["system"]),
             GIT_CONFIG_NOSYSTEM="1"),
        # only in the system file GIT_CONFIG_SYSTEM names
        dict(GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_SYSTEM=str(files["system"])),
        # only under an includeIf hasconfig of the user's file
        dict(GIT_CONFIG_GLOBAL=str(tmp_path / "home.cfg"), GIT_CONFIG_NOSYSTEM="1"),
    ]
    expected = ["Global User global@x", "System User system@x", "Work User work@x"]
    for n, (extra, want) in enumerate(zip(cases, expected)):
        env = _identity_env(repo, **extra)
        by_git = subprocess.run(["git", "var", "GIT_AUTHOR_IDENT"], cwd=repo.root, env=env,
                                capture_output=True, text=True).stdout
        name, email = want.rsplit(" ", 1)
        assert by_git.startswith(f"{name} <{email}> "), by_git
        r = repo.run(response=RESPONSE.format(old=f"v{n}", new=f"v{n + 1}"), env=env)
        assert r.returncode == 0, r.err
        assert repo.git("log", "-1", "--format=%an %ae|%cn %ce").strip() == f"{want}|{want}"
