"""cli/pager.py: git's pager (GIT_PAGER, core.pager, PAGER) and diff colours (color.diff,
color.ui, a terminal, TERM) read from real repositories and compared with what git itself
decides for the same settings (`git var GIT_PAGER`, `git config --get-colorbool`), and
print_paged's handing of the text to that pager."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import LOUDER_BETA, GitRepo, run_on_terminal
from git_aiapply.cli.pager import diff_color, pager_command, print_paged
from git_aiapply.git.repo import Repo


@pytest.fixture
def plain(repo: GitRepo, env, monkeypatch) -> GitRepo:
    """A repository whose environment (os.environ too: the functions read it) sets no
    pager and no TERM."""
    for name in ("PAGER", "GIT_PAGER", "TERM", "LESS", "LV"):
        monkeypatch.delenv(name, raising=False)
        repo.env.pop(name, None)
    return repo


def _set(monkeypatch, repo: GitRepo, name: str, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(name, raising=False)
        repo.env.pop(name, None)
    else:
        monkeypatch.setenv(name, value)
        repo.env[name] = value


def _config(repo: GitRepo, text: str) -> None:
    """The repository's config file with ``text`` appended, written as a user may write
    it (valueless keys included)."""
    with open(repo.root / ".git" / "config", "a") as f:
        f.write(text)


def _gits_pager(repo: GitRepo) -> str | None:
    shown = repo.git("var", "GIT_PAGER").rstrip("\n")
    return None if shown == "cat" else shown.strip()


@pytest.mark.parametrize("git_pager, core_pager, pager", [
    (None, None, "more"),
    (None, "most -s", "more"),
    ("sed s/^/P:/", "most -s", "more"),
    ("", "most -s", "more"),           # GIT_PAGER empty: no pager, core.pager is not asked
    (None, "", "more"),                # core.pager empty: no pager, PAGER is not asked
    (None, "cat", "more"),
    (None, None, "cat"),
    ("  less -R  ", None, None),
])
def test_pager_precedence_is_gits(plain: GitRepo, monkeypatch, git_pager, core_pager, pager):
    if core_pager is not None:
        plain.git("config", "core.pager", core_pager)
    _set(monkeypatch, plain, "GIT_PAGER", git_pager)
    _set(monkeypatch, plain, "PAGER", pager)
    assert pager_command(Repo(str(plain.root))) == _gits_pager(plain)


def test_pager_of_git_dash_c_and_the_default(plain: GitRepo, monkeypatch):
    plain.git("config", "core.pager", "most")
    for k, v in {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.pager",
                 "GIT_CONFIG_VALUE_0": "less -S"}.items():
        _set(monkeypatch, plain, k, v)
    assert pager_command(Repo(str(plain.root))) == _gits_pager(plain) == "less -S"
    # nothing set anywhere: less, git's own default (a distribution's git may be built
    # with another, as Debian's `pager`: that one is not compared)
    _set(monkeypatch, plain, "GIT_CONFIG_COUNT", None)
    plain.git("config", "--unset", "core.pager")
    assert pager_command(Repo(str(plain.root))) == "less"


@pytest.fixture
def streams(tmp_path: Path):
    """(a terminal, a file) to print to: a pseudo-terminal's end and a regular file."""
    master, slave = os.openpty()
    tty, file = os.fdopen(slave, "w"), open(tmp_path / "out.txt", "w")
    assert tty.isatty() and not file.isatty()
    yield tty, file
    tty.close()
    file.close()
    os.close(master)


DIFF_VALUES = [None, "always", "never", "auto", "true", "off", "0", "1", "Always"]
UI_VALUES = [None, "always", "never"]
# (TERM, stdout is a terminal): the auto setting's two questions, each asked
SITUATIONS = [("xterm", True), ("xterm", False), ("dumb", True), (None, True)]


def test_diff_color_decides_as_git_does(plain: GitRepo, monkeypatch, streams):
    tty, file = streams
    config = plain.root / ".git" / "config"
    original = config.read_text()
    for ui in UI_VALUES:
        for value in DIFF_VALUES:
            settings = "".join(f"\t{k} = {v}\n" for k, v in (("ui", ui), ("diff", value))
                               if v is not None)
            config.write_text(original + "[color]\n" + settings)
            repo = Repo(str(plain.root))
            for term, on_tty in SITUATIONS:
                _set(monkeypatch, plain, "TERM", term)
                git = plain.git("config", "--get-colorbool", "color.diff",
                                "true" if on_tty else "false").strip()
                got = diff_color(repo, tty if on_tty else file)
                assert got == (git == "true"), (ui, value, term, on_tty)


def test_a_valueless_color_key_is_true_that_is_auto(plain: GitRepo, monkeypatch, streams):
    tty, file = streams
    _config(plain, "[color]\n\tui = never\n\tdiff\n")
    _set(monkeypatch, plain, "TERM", "xterm")
    repo = Repo(str(plain.root))
    assert plain.git("config", "--get-colorbool", "color.diff", "true").strip() == "true"
    assert diff_color(repo, tty) is True
    assert plain.git("config", "--get-colorbool", "color.diff", "false").strip() == "false"
    assert diff_color(repo, file) is False


def test_an_empty_color_value_is_false_as_in_git(plain: GitRepo, monkeypatch, streams):
    tty, _file = streams
    _config(plain, "[color]\n\tui = always\n\tdiff =\n")
    _set(monkeypatch, plain, "TERM", "xterm")
    assert plain.git("config", "--get-colorbool", "color.diff", "true").strip() == "false"
    assert diff_color(Repo(str(plain.root)), tty) is False


def test_print_paged_off_a_terminal_writes_the_text_itself(plain: GitRepo, monkeypatch, capsys):
    _set(monkeypatch, plain, "GIT_PAGER", "sed s/^/PAGED:/")
    monkeypatch.chdir(plain.root)
    print_paged("diff --git a/x b/x\n+x\n")
    print_paged("")
    assert capsys.readouterr().out == "diff --git a/x b/x\n+x\n"


def test_print_paged_on_a_terminal_runs_core_pager_with_gits_less_defaults(plain: GitRepo):
    """--diff on a terminal: core.pager wins over PAGER and runs with LESS=FRX and
    LV=-c unless the user set them (a user's LESS is kept)."""
    plain.write("src/b.txt", "alpha\nbeta\n")
    plain.commit_all()
    plain.git("config", "core.pager",
              """printf 'LESS=%s LV=%s\\n' "$LESS" "$LV"; sed 's/^/PAGED:/'""")
    response = plain.root.parent / "r.md"
    response.write_text(LOUDER_BETA)
    env = dict(plain.env, PAGER="sed s/^/WRONG:/", TERM="dumb", LESS="-R")
    code, out, err = run_on_terminal(["--diff", str(response)], cwd=plain.root, env=env)
    out = out.replace("\r\n", "\n")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "LESS=-R LV=-c"
    assert "PAGED:+BETA" in lines and "PAGED:-beta" in lines
    assert "WRONG:" not in out and "\x1b[" not in out  # TERM=dumb: no colour
