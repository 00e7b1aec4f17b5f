"""git/config.py as plain functions checked against the git CLI: the ``git -c`` settings
in the variables git itself writes (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT/KEY/VALUE)
read with git's keys and precedence, the malformed ones fatal as git, and integers and
booleans read as `git config --int` / `--bool` read them."""
from __future__ import annotations

import subprocess

import pytest

from conftest import GitRepo
from git_aiapply.errors import ErrorKind, FatalError
from git_aiapply.git.config import (
    canonical_key,
    command_line_settings,
    parse_bool,
    parse_int,
    parse_parameters,
)


def _git(repo: GitRepo, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo.root, env={**repo.env, **(env or {})},
                          capture_output=True, text=True)


def _command_scope(repo: GitRepo, env: dict) -> dict[str, str | None]:
    """key -> value (None: given without '=') of the settings `git config --list` shows
    from the command line under ``env``."""
    out: dict[str, str | None] = {}
    listed = _git(repo, "config", "--list", "--show-scope", env=env)
    assert listed.returncode == 0, listed.stderr
    for line in listed.stdout.splitlines():
        scope, _, entry = line.partition("\t")
        if scope == "command":
            key, eq, value = entry.partition("=")
            out[key] = value if eq else None
    return out


def test_the_parameters_git_writes_for_its_commands_read_as_git_lists_them(repo: GitRepo):
    args = ["-c", "alias.penv=!printenv GIT_CONFIG_PARAMETERS",
            "-c", "Sect.Sub.Name=it's a value!", "-c", "Core.Flag", "-c", "x.Empty=",
            "-c", "a.b=1", "-c", "A.B=2", "-c", "Sect.SUB.Name=other subsection"]
    written = _git(repo, *args, "penv")
    assert written.returncode == 0, written.stderr
    params = written.stdout.rstrip("\n")
    assert "\\!" in params and "\\'" in params  # git's quoting of a bang and a quote
    got = command_line_settings({"GIT_CONFIG_PARAMETERS": params})
    assert got == _command_scope(repo, {"GIT_CONFIG_PARAMETERS": params})
    assert got["sect.Sub.name"] == "it's a value!" and got["sect.SUB.name"] == "other subsection"
    assert got["core.flag"] is None and got["x.empty"] == "" and got["a.b"] == "2"


@pytest.mark.parametrize("key, canonical", [
    ("User.Name", "user.name"), ("Remote.Origin.URL", "remote.Origin.url"),
    ("url.Git@Host:A.B.insteadOf", "url.Git@Host:A.B.insteadof"), ("Core", "core")])
def test_the_section_and_the_name_are_case_blind_the_subsection_is_not(repo: GitRepo, key,
                                                                        canonical):
    assert canonical_key(key) == canonical
    if "." in key:
        assert list(_command_scope(repo, {"GIT_CONFIG_PARAMETERS": f"'{key}'='v'"})) == [canonical]


def test_counted_settings_and_parameters_together_win_as_in_git(repo: GitRepo):
    env = {"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "User.Name", "GIT_CONFIG_VALUE_0": "first",
           "GIT_CONFIG_KEY_1": "user.email", "GIT_CONFIG_VALUE_1": "count@example.com",
           "GIT_CONFIG_PARAMETERS": "'user.name'='from parameters'"}
    got = command_line_settings(env)
    assert got == {"user.name": "from parameters", "user.email": "count@example.com"}
    for key, value in got.items():
        assert _git(repo, "config", "--get", key, env=env).stdout == f"{value}\n"
    assert command_line_settings({}) == {}


@pytest.mark.parametrize("env, message", [
    ({"GIT_CONFIG_COUNT": "two"}, "bogus count in GIT_CONFIG_COUNT"),
    ({"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "a.b", "GIT_CONFIG_VALUE_0": "1",
      "GIT_CONFIG_VALUE_1": "2"}, "missing config key GIT_CONFIG_KEY_1"),
    ({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b"},
     "missing config value GIT_CONFIG_VALUE_0"),
    ({"GIT_CONFIG_PARAMETERS": "'a.b"}, "bogus format in GIT_CONFIG_PARAMETERS"),
    ({"GIT_CONFIG_PARAMETERS": "'a.b'x"}, "bogus format in GIT_CONFIG_PARAMETERS"),
])
def test_malformed_command_line_settings_are_fatal_with_gits_message(repo: GitRepo, env, message):
    with pytest.raises(FatalError) as e:
        command_line_settings(env)
    assert e.value.kind == ErrorKind.CONFIG and e.value.message.startswith(message)
    by_git = _git(repo, "config", "--list", env=env)
    assert by_git.returncode == 128 and message in by_git.stderr


def test_a_key_given_with_an_empty_value_or_none():
    # `-c key` is written 'key'= by git 2.31+, 'key' by older git: both a boolean true
    assert parse_parameters("'core.flag'= 'old.flag' 'x.e'=''") == [
        ("core.flag", None), ("old.flag", None), ("x.e", "")]
    assert parse_bool(None, "core.flag") is True and parse_bool("", "x.e") is False


INTS = ["1k", "2M", "3G", "-4k", "0", "12", "7m"]
BOOLS = ["true", "Yes", "ON", "false", "no", "OFF", "1", "0", "2", "1k", "0k", "-1"]


def test_integers_and_booleans_read_as_git_config_reads_them(repo: GitRepo, tmp_path):
    cfg = tmp_path / "values"
    cfg.write_text("[i]\n" + "".join(f"\tv{n} = {v}\n" for n, v in enumerate(INTS))
                   + "[b]\n" + "".join(f"\tv{n} = {v}\n" for n, v in enumerate(BOOLS)))

    def by_git(kind: str, section: str) -> list[str]:
        r = _git(repo, "config", "--file", str(cfg), kind, "--get-regexp", f"^{section}\\.")
        assert r.returncode == 0, r.stderr
        return [line.split(" ", 1)[1] for line in r.stdout.splitlines()]

    assert [str(parse_int(v, "i.v")) for v in INTS] == by_git("--int", "i")
    assert [str(parse_bool(v, "b.v")).lower() for v in BOOLS] == by_git("--bool", "b")


@pytest.mark.parametrize("value", ["1.5", "", "12q", "k"])
def test_a_bad_number_is_fatal_as_git_says_it(repo: GitRepo, value):
    with pytest.raises(FatalError) as e:
        parse_int(value, "n.v")
    assert e.value.kind == ErrorKind.CONFIG
    by_git = _git(repo, "-c", f"n.v={value}", "config", "--int", "n.v")
    assert by_git.returncode != 0
    assert by_git.stderr.strip() == f"fatal: {e.value.message}"
    if value:  # an empty value is a boolean false
        with pytest.raises(FatalError, match=f"bad boolean config value '{value}' for 'n.v'"):
            parse_bool(value, "n.v")


def test_hex_and_octal_integers_read_as_git_reads_them(repo: GitRepo):
    for value in ("0x10", "010", "0X1fk", "-010", "+5", "8g", "9223372036854775807"):
        by_git = _git(repo, "-c", f"n.v={value}", "config", "--int", "n.v")
        assert by_git.returncode == 0
        assert parse_int(value, "n.v") == int(by_git.stdout)
    for value in ("08", "0x", "1e3", "99999999999999999999", "8589934592g", "1kk"):
        by_git = _git(repo, "-c", f"n.v={value}", "config", "--int", "n.v")
        with pytest.raises(FatalError) as e:
            parse_int(value, "n.v")
        assert by_git.stderr.strip() == f"fatal: {e.value.message}", value
