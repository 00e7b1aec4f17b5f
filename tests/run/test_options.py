"""run/options.py: the apply command's one option table, the click-free parser built from
it (any command line of table options reads back as written, and as click reads it), and
the request it makes (reports only check; which runs commit to the worktree)."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.cli import app as cli
from git_aiapply.cli.commands import SUBCOMMANDS
from git_aiapply.doors.api import OPTION_NAMES
from git_aiapply.run.options import (
    APPLY_DEFAULTS, APPLY_OPTIONS, CONST, FLAG, INT, VALUE, VALUES, apply_request,
    commits_to_worktree, ordered_values, parse_apply_args, reports_only)

WORDS = set(SUBCOMMANDS) | {"apply"}


def parse(argv: list[str]) -> dict | None:
    return parse_apply_args(argv, WORDS)


def test_the_table_names_each_option_once_and_says_what_a_value_is():
    names = [name for o in APPLY_OPTIONS for name in o.names]
    assert len(names) == len(set(names))
    for o in APPLY_OPTIONS:
        assert o.help and o.kind in (FLAG, CONST, VALUE, VALUES, INT)
        assert all((n.startswith("--") and len(n) > 3) or (len(n) == 2 and n[0] == "-")
                   for n in o.names), o.names
        assert (o.metavar is not None) == (o.kind in (VALUE, VALUES, INT)), o.names
    # a parameter is shared only by options that each store a constant (-S / --no-gpg-sign)
    by_dest: dict[str, list] = {}
    for o in APPLY_OPTIONS:
        by_dest.setdefault(o.dest, []).append(o)
    shared = [opts for opts in by_dest.values() if len(opts) > 1]
    assert shared and all(o.kind == CONST for opts in shared for o in opts)
    assert len({o.const for o in by_dest["gpg_sign"]}) == 2
    assert set(APPLY_DEFAULTS) == set(by_dest) | {"responses", "limits"}


value_text = st.text("abcXYZ019_./{}* ", min_size=1, max_size=6)


@st.composite
def command_lines(draw):
    """(argv, what the apply command must receive) for options drawn from the table, each
    written in one of the ways a user may (--name VALUE, --name=VALUE, -xVALUE), with
    response words between them."""
    argv: list[str] = []
    want = dict(APPLY_DEFAULTS)
    repeated: dict[str, list] = {}
    ordered: list[tuple[str, str]] = []
    responses: list[str] = []
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()) and argv:  # the first word must not look like a subcommand
            word = draw(st.sampled_from(["r.md", "answers", "-", "x y.md"]))
            argv.append(word)
            responses.append(word)
            continue
        o = draw(st.sampled_from(APPLY_OPTIONS))
        name = draw(st.sampled_from(o.names))
        if o.kind in (FLAG, CONST):
            argv.append(name)
            want[o.dest] = True if o.kind == FLAG else o.const
            continue
        value = draw(st.integers(0, 999)) if o.kind == INT else draw(value_text)
        style = draw(st.sampled_from(["apart", "inline"]))
        if style == "apart":
            argv += [name, str(value)]
        else:
            argv.append(f"{name}={value}" if name.startswith("--") else f"{name}{value}")
        if o.kind == VALUES:
            repeated.setdefault(o.dest, []).append(value)
            if o.ordered:
                ordered.append((o.dest, value))
        else:
            want[o.dest] = value
    for dest, values in repeated.items():
        want[dest] = tuple(values)
    want["limits"] = tuple(ordered)
    if draw(st.booleans()):
        argv += ["--", "--check"]  # after `--`, words are responses
        responses.append("--check")
    want["responses"] = tuple(responses)
    return argv, want


@settings(max_examples=60, deadline=None)
@given(command_lines())
def test_a_command_line_reads_back_as_written_by_both_parsers(case):
    """The rule of the table: the fast parser and click, both built from it, hand the
    command the same parameters, the last of a single option winning and a repeated
    one kept in order (--include/--exclude also as one ordered list)."""
    argv, want = case
    assert parse(argv) == want
    ctx = cli.apply_cmd.make_context("apply", list(argv))
    got = dict(ctx.params)
    got.update(ordered_values(got, ctx.meta.get("aiapply.order", [])))
    assert got == want


def test_ordered_values_follow_the_order_of_occurrence():
    params = {"include": ("a*", "c*"), "exclude": ("b*",), "messages": ("m",)}
    got = ordered_values(params, ["include", "messages", "exclude", "include", "include"])
    assert got == {"limits": (("include", "a*"), ("exclude", "b*"), ("include", "c*"))}
    assert ordered_values({}, []) == {"limits": ()}


@pytest.mark.parametrize("report", ["--stat", "--numstat", "--summary"])
def test_a_report_only_checks(report):
    params = parse([report, "r.md"])
    assert reports_only(params) and not reports_only(parse(["r.md"]))
    request = apply_request(params)
    assert request["check"] is True and not commits_to_worktree(request)


@pytest.mark.parametrize("argv, commits", [
    ([], True), (["--no-commit"], True), (["--cached"], True), (["-3", "--include-dirty"], True),
    (["--branch", "try"], False), (["--check"], False), (["--diff"], False),
    (["--branch=try", "--check"], False),
])
def test_which_runs_commit_to_the_worktree(argv, commits):
    assert commits_to_worktree(apply_request(parse([*argv, "r.md"]))) is commits


def test_the_request_speaks_the_librarys_option_names():
    """A request is a dict of the library's option names, plus ``limits`` (for include
    and exclude) and ``edit`` (run/prepare.py), whatever the command line called them."""
    request = apply_request(dict(APPLY_DEFAULTS))
    assert set(request) == (set(OPTION_NAMES) - {"include", "exclude"}) | {"limits", "edit"}
    request = apply_request(parse(["--no-trailers", "-S", "--format=whole", "--exclude",
                                   "*.md", "-m", "Subject", "-m", "Body."]))
    assert request["trailers"] is False and request["sign"] is True
    assert request["format"] == "whole" and request["limits"] == (("exclude", "*.md"),)
    assert request["message"] == ("Subject", "Body.")  # read once the options are checked
    assert apply_request(parse(["-F", "msg.txt"]))["message"] == "msg.txt"
