"""workflows/prompts.py: `git ai-apply prompt FORMAT`'s text is the part every format
shares, then the format's own instructions from the registry; there is one prompt per
``--format`` name, an unknown name says which exist, and each example's paths are, as the
shared part asks, relative to the repository root."""
from __future__ import annotations

import os

import pytest

from git_aiapply.formats import format_named, format_names, parse_response
from git_aiapply.ops import RenameFile
from git_aiapply.paths import normalize_path
from git_aiapply.workflows.prompts import PROMPTS, prompt_for

NAMES = format_names()


def test_there_is_one_prompt_per_format_name():
    assert list(PROMPTS) == NAMES  # every --format name, in the registry's order, no other
    for name in NAMES:
        assert PROMPTS[name] == format_named(name).prompts[name]


def test_every_prompt_is_the_shared_part_then_the_formats_own():
    texts = [prompt_for(name) for name in NAMES]
    shared = os.path.commonprefix(texts)
    shared = shared[:shared.rindex("\n\n") + 2]  # whole paragraphs only
    assert "first sentence becomes the commit subject" in shared
    assert "relative to the repository root" in shared
    for name, text in zip(NAMES, texts):
        assert text == shared + PROMPTS[name], name


def test_an_unknown_format_names_the_known_ones():
    with pytest.raises(KeyError) as caught:
        prompt_for("git-diff")
    message = caught.value.args[0]
    assert "unknown format 'git-diff'" in message
    assert all(name in message for name in NAMES)
    with pytest.raises(KeyError):
        prompt_for("Unified-Diff")  # names are exact


@pytest.mark.parametrize("name", NAMES)
def test_each_examples_paths_are_relative_to_the_repository_root(name):
    from git_aiapply.answer.toolcalls import text_call_ops  # agent-text reads its tools

    parsed = parse_response(prompt_for(name), only=name, read_call=text_call_ops)
    assert parsed.ops
    for op in parsed.ops:
        for path in ([op.old_path, op.new_path] if isinstance(op, RenameFile) else [op.path]):
            assert not path.startswith("/") and normalize_path(path, worktree="/w") == path


# Each prompt's examples, applied by the real parser and planner to a tree they were
# written for: what a prompt shows is what the command takes (issue 32 item 7).
UTIL = b'def slugify(text):\n    return text.strip().lower().replace(" ", "-")\n'
APP = b'def greet(name):\n    print("Hi " + name)\n\n\ndef main():\n    greet("world")\n'
HASHLINE_APP = (b'import sys\n\ndef greet(name):\n    print("Hi " + name)\n\ndef unused():\n'
                b'    pass\n')
README = b"# Demo app\n\nA tiny program that greets people.\n"
EXAMPLE_TREES = {
    "file-changes": ({"src/app.py": APP, "docs/NOTES.txt": b"n\n", "old_config.ini": b"x\n"},
                     {"src/config.py": b'GREETING = "Hello"\n',
                      "src/app.py": APP.replace(b'"Hi " + name', b'GREETING + ", " + name'),
                      "docs/notes.md": b"n\n", "docs/NOTES.txt": None, "old_config.ini": None}),
    "hashline": ({"src/app.py": HASHLINE_APP},
                 {"src/app.py": b'from config import GREETING\nimport sys\n\ndef greet(name):\n'
                                b'    print(GREETING + ", " + name)\n'}),
    "apply-patch": ({"src/app.py": APP, "old_config.ini": b"x\n"},
                    {"tests/test_app.py": b"from app import greet\n", "src/app.py": None,
                     "src/main.py": APP.replace(b'greet("world")', b"greet(sys.argv[1])"),
                     "old_config.ini": None}),
    "codechange": ({"src/util.py": UTIL},
                   {"src/util.py": UTIL.replace(b'text.strip().lower().replace(" ", "-")',
                                                b'"-".join(text.strip().lower().split())')}),
    "agent-text": ({"src/util.py": UTIL},
                   {"src/util.py": UTIL.replace(b'text.strip().lower().replace(" ", "-")',
                                                b'"-".join(text.strip().lower().split())'),
                    "src/names.py": b'SEPARATOR = "-"\n'}),
    "search-replace": ({"src/util.py": UTIL},
                       {"src/util.py": UTIL.replace(b'text.strip().lower().replace(" ", "-")',
                                                    b'"-".join(text.strip().lower().split())')}),
    "unified-diff": ({"README.md": README},
                     {"README.md": README + b"\nRun it with: python src/app.py NAME\n"}),
    "whole": ({}, {"src/config.py": b'import os\n\nGREETING = os.environ.get("GREETING", '
                                    b'"Hello")\n'}),
}


def applied_example(text: str, name: str, files: dict) -> dict:
    from plan_base import DictBase
    from git_aiapply.answer.toolcalls import text_call_ops
    from git_aiapply.plan.plan import make_plan

    parsed = parse_response(text, only=name, read_call=text_call_ops)
    result = make_plan(parsed.ops, DictBase({p: (0o100644, d) for p, d in files.items()}),
                       lambda p: normalize_path(p, worktree="/w"))
    tree = dict(files)
    for p, s in result.final.items():
        tree[p] = None if s is None else s.data
    return tree


def test_every_format_has_an_example_tree():
    assert sorted(EXAMPLE_TREES) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_prompts_examples_apply_as_it_says(name):
    before, changed = EXAMPLE_TREES[name]
    want = dict(before)
    want.update(changed)
    got = applied_example(prompt_for(name), name, before)
    assert {p: d for p, d in got.items() if d is not None} == \
        {p: d for p, d in want.items() if d is not None}


def test_search_replace_blocks_of_one_file_apply_in_turn_as_the_prompt_says():
    """'Give the path before every block ... each SEARCH must match the file as the blocks
    before it left it': a second block with its path, on what the first wrote."""
    text = PROMPTS["search-replace"]
    block = text[text.index("src/util.py\n"):text.index("```\n\n") + 4]
    second = ('src/util.py\n```python\n<<<<<<< SEARCH\n    return "-".join(text.strip().lower()'
              '.split())\n=======\n    return "_".join(text.strip().lower().split())\n'
              '>>>>>>> REPLACE\n```\n')
    got = applied_example("Two steps.\n\n" + block + "\nThen:\n\n" + second, "search-replace",
                          {"src/util.py": UTIL})
    assert got["src/util.py"] == UTIL.replace(b'text.strip().lower().replace(" ", "-")',
                                              b'"_".join(text.strip().lower().split())')
