"""The click-free fast path for `git ai-apply [OPTIONS] RESPONSE...` must agree with the
click command line it stands in for."""
from __future__ import annotations

import subprocess
import sys

import pytest

from git_aiapply import cli
from git_aiapply.main import APPLY_DEFAULTS, APPLY_OPTIONS, CLICK_WORDS, parse_apply_args


def test_table_matches_click_options():
    params = {p.name: p for p in cli.apply_cmd.params}
    assert set(params) == set(APPLY_DEFAULTS)
    click_names = {}
    for p in cli.apply_cmd.params:
        if p.name == "responses":
            continue
        for opt in p.opts + p.secondary_opts:
            click_names[opt] = p.name
    table_names = {name: dest for names, dest, _kind in APPLY_OPTIONS for name in names}
    assert table_names == click_names


def test_click_words_cover_every_subcommand():
    ctx = cli.main.make_context("git ai-apply", ["x"], resilient_parsing=True)
    assert set(cli.main.list_commands(ctx)) <= CLICK_WORDS


@pytest.mark.parametrize("argv,expected", [
    ([], {}),
    (["r.md"], {"responses": ("r.md",)}),
    (["-"], {"responses": ("-",)}),
    (["--check", "--json", "a.md", "b.md"], {"check": True, "as_json": True, "responses": ("a.md", "b.md")}),
    (["-m", "one", "--message=two", "r.md"], {"messages": ("one", "two"), "responses": ("r.md",)}),
    (["--format", "hashline", "r.md"], {"fmt": "hashline", "responses": ("r.md",)}),
    (["--branch=try/{n}", "--base", "HEAD~1"], {"branch": "try/{n}", "base": "HEAD~1"}),
    (["-S"], {"gpg_sign": True}),
    (["--no-gpg-sign"], {"gpg_sign": False}),
    (["--max-bytes", "100"], {"max_bytes": 100}),
    (["-q", "-s", "-n", "-e"], {"quiet": True, "signoff": True, "no_verify": True, "edit": True}),
    (["--", "--check"], {"responses": ("--check",)}),
])
def test_fast_parse(argv, expected):
    want = dict(APPLY_DEFAULTS)
    want.update(expected)
    assert parse_apply_args(argv) == want
    # click, given the same words, hands apply_cmd the same parameters
    ctx = cli.apply_cmd.make_context("apply", list(argv))
    assert ctx.params == want


@pytest.mark.parametrize("argv", [
    ["--help"], ["-h"], ["--version"], ["show", "x"], ["apply", "r.md"], ["demo"],
    ["--bogus"], ["-qs", "r.md"], ["--max-bytes", "ten"], ["--check=yes"], ["-m"],
])
def test_fast_parse_defers_to_click(argv):
    assert parse_apply_args(argv) is None


def test_apply_path_does_not_import_click(tmp_path):
    code = ("import sys; sys.argv = ['git-ai-apply', '--check', 'missing.md'];"
            "from git_aiapply import main;"
            "import atexit; atexit.register(lambda: print('CLICK' if 'click' in sys.modules else 'NOCLICK'));"
            "main.run()")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert "NOCLICK" in r.stdout
