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
