"""What each format knows beyond parsing lives on its object in formats/ (the prompt,
how it creates a file, its leftover markup); central modules ask the registry."""
from __future__ import annotations

import re

import pytest

from git_aiapply.answer.toolcalls import text_call_ops
from git_aiapply.formats import FORMATS, format_named, format_names, parse_response
from git_aiapply.workflows.hook_kit import scan_line
from git_aiapply.workflows.prompts import prompt_for


@pytest.mark.parametrize("name", format_names())
def test_every_format_name_has_a_prompt_whose_example_parses(name):
    text = prompt_for(name)
    assert format_named(name).prompts[name] in text
    # agents' text tools are read by the answer stage's reading of tool calls, as the
    # command reads them
    parsed = parse_response(text, only=name, read_call=text_call_ops)
    assert parsed.ops, f"the {name} prompt's example holds no edit"


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
def test_every_format_says_how_it_creates_a_file(fmt):
    assert fmt.new_file_hint and fmt.new_file_hint != "a new-file directive"


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f.leftover_markup], ids=lambda f: f.name)
def test_the_guard_catches_each_formats_own_example(fmt):
    """A format's markup left in a file is what the kit's guard refuses: every pattern a
    format declares is one the guard runs, and its prompt's example trips it."""
    example = "\n".join(fmt.prompts.values())
    caught = [line for line in example.splitlines() if scan_line(line)]
    assert caught, f"nothing of the {fmt.name} example is caught"
    for pattern, what in fmt.leftover_markup:
        re.compile(pattern)
        assert what


@pytest.mark.parametrize("line", ["<FILE_APPEND file_path=\"a\">", "</FILE_HASHLINE_PATCH>",
                                  "  <FILE_CHANGES>", "12#ab:x", "<<<<<<< SEARCH",
                                  "*** Begin Patch", "<CodeChange filePath=\"x\">"])
def test_the_guard_knows_every_directive(line):
    assert scan_line(line)


@pytest.mark.parametrize("name", ["apply-patch", "search-replace", "unified-diff", "hashline"])
def test_an_edit_of_a_missing_file_says_how_this_format_creates_one(name):
    from git_aiapply.errors import ApplyError
    from git_aiapply.ops import EditFile, HashlineEdit
    from git_aiapply.paths import normalize_path
    from git_aiapply.plan.plan import make_plan

    class NothingTracked:
        def entry(self, path):
            return None

        def kind(self, path):
            return None

        def disk_kind(self, path):
            return None

    edits = [op for op in parse_response(prompt_for(name), only=name).ops
             if isinstance(op, (EditFile, HashlineEdit))]
    assert edits, f"the {name} example edits no file"
    with pytest.raises(ApplyError) as caught:
        make_plan(edits[:1], NothingTracked(), lambda p: normalize_path(p, worktree="/w"))
    how = format_named(name).new_file_hint.replace("PATH", edits[0].path)
    assert how in str(caught.value)


# ----------------------------------------------- tool calls ask the registry what an edit looks like


def test_tool_input_tells_come_from_the_registry(monkeypatch):
    """An unknown tool's input "looks like an edit" when it holds a tell some registered
    format declares: the formats are the one source (a format added to the registry is
    recognised in tool calls without touching toolcalls.py)."""
    import git_aiapply.formats as formats
    from git_aiapply.formats.scan import Format
    from git_aiapply.answer.toolcalls import looks_like_edit

    told = [(f.name, tell) for f in FORMATS for tell in f.tells]
    assert {name for name, _ in told} >= {"file-changes", "apply-patch", "search-replace",
                                          "unified-diff"}
    for name, tell in told:
        why = looks_like_edit(f"run this:{tell} and more")
        assert why is not None and tell.strip() in why, (name, tell)
        assert looks_like_edit({"command": f"x{tell}y"}) is not None

    class Invented(Format):
        name = "invented"
        tells = ("<<EDIT-THIS>>",)

    assert looks_like_edit("<<EDIT-THIS>> a.txt") is None
    monkeypatch.setattr(formats, "FORMATS", [*FORMATS, Invented()])
    assert looks_like_edit("<<EDIT-THIS>> a.txt") == "its input holds '<<EDIT-THIS>>'"
    monkeypatch.setattr(formats, "FORMATS", [f for f in FORMATS if f.name != "apply-patch"])
    assert looks_like_edit("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch") is None


def test_toolcalls_lists_no_markers_of_its_own():
    import git_aiapply.answer.toolcalls as toolcalls

    assert not [n for n in vars(toolcalls) if "MARKER" in n.upper()]


def test_the_no_changes_hint_names_each_format_once():
    """Two modules answer to agent-text (agent_text.py, agent_blocks.py): the hint
    lists the names the formats select, each once (issue 35)."""
    from git_aiapply.formats import format_names, no_changes_problem

    hint = no_changes_problem(None).hint
    looked = hint.removeprefix("looked for ").split(" blocks;")[0].split(", ")
    assert len(looked) == len(set(looked)) and "agent-text" in looked
    assert len(format_names()) == len(set(format_names()))
