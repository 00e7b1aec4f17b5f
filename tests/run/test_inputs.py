"""run/inputs.py: reading the responses a command line names (files, standard input,
folders, JSON Lines files), each read bounded by the size limit, and the expansion into one
input per response (per JSON Lines line, per chat choice)."""
from __future__ import annotations

import io
import json
import sys

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import UsageError
from git_aiapply.run.inputs import expand_inputs, read_inputs, several_choices


def chat(*contents: str) -> bytes:
    """A Chat Completions answer with one choice per content."""
    return json.dumps({"object": "chat.completion", "model": "gpt-test", "choices": [
        {"index": i, "finish_reason": "stop", "message": {"role": "assistant", "content": c}}
        for i, c in enumerate(contents)]}).encode()


def test_no_path_reads_standard_input_up_to_one_byte_over_the_limit(monkeypatch):
    data = b"x" * 100
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert read_inputs((), 10) == [("-", data[:11])]  # one byte more: "too large" is seen
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert read_inputs(("-",), 0) == [("-", data)]  # 0: no limit
    assert expand_inputs([("-", b"text")], 0)[0].label == "stdin"


def test_files_and_folders_are_read_in_command_line_order(tmp_path):
    folder = tmp_path / "answers"
    (folder / "sub").mkdir(parents=True)
    for name in ("b.md", "a.md", ".hidden.md", "sub/c.md"):
        (folder / name).write_bytes(f"response {name}\n".encode())
    first, last = tmp_path / "z.md", tmp_path / "y.md"
    first.write_bytes(b"first\n" * 50)
    last.write_bytes(b"last\n")
    got = read_inputs((str(first), str(folder), str(last)), 20)
    # a folder gives its regular, not hidden files, sorted by name, where it was named
    assert [name for name, _ in got] == [str(first), str(folder / "a.md"),
                                         str(folder / "b.md"), str(last)]
    assert [raw for _, raw in got] == [(b"first\n" * 50)[:21], b"response a.md\n",
                                       b"response b.md\n", b"last\n"]


def test_what_cannot_be_read_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="cannot read .*missing.md"):
        read_inputs((str(tmp_path / "missing.md"),), 0)
    only_hidden = tmp_path / "hidden"
    only_hidden.mkdir()
    (only_hidden / ".r.md").write_text("x\n")
    with pytest.raises(UsageError, match="no response files in folder"):
        read_inputs((str(only_hidden),), 0)


def test_the_size_limit_of_a_json_lines_file_is_per_response(tmp_path):
    texts = [f"Response number {k}, long enough to pass the limit together." for k in (1, 2, 3)]
    f = tmp_path / "runs.jsonl"
    f.write_bytes("".join(json.dumps(t) + "\n" for t in texts).encode())
    (name, raw), = read_inputs((str(f),), 100)
    assert len(raw) == 101  # the file as read: cut at the limit
    items = expand_inputs([(name, raw)], 100)
    # ... but each response is whole: the file is read again
    assert [i.raw for i in items] == [t.encode() for t in texts]
    assert [i.label for i in items] == [f"{f}:1", f"{f}:2", f"{f}:3"]
    assert [i.stem for i in items] == ["runs-1", "runs-2", "runs-3"]
    assert all(i.problem is None for i in items)


def test_a_json_lines_file_without_a_response_is_refused_not_skipped():
    for raw in (b"", b"\n  \n\n"):
        item, = expand_inputs([("empty.jsonl", raw)], 0)
        assert item.raw is None and "holds no responses" in item.problem.reason
    bad = expand_inputs([("mixed.jsonl", b'[1, 2]\n{"response": "ok", "name": " kept "}\n')], 0)
    assert "JSON list" in bad[0].problem.reason and bad[0].problem.hint
    assert (bad[1].raw, bad[1].stem, bad[1].label) == (b"ok", "kept", "mixed.jsonl:2")


def test_a_chat_answer_with_several_choices_is_one_input_per_choice():
    two = chat("Make it one.", "Make it two.")
    inputs = [("answers/a.json", two), ("b.md", b"plain text\n")]
    assert several_choices(inputs) and not several_choices(inputs[1:])
    assert not several_choices([("c.json", chat("only one"))])
    items = expand_inputs(inputs, 0)
    assert [(i.label, i.stem) for i in items] == [
        ("answers/a.json#choice-1", "a-1"), ("answers/a.json#choice-2", "a-2"), ("b.md", "b")]
    first, second = (json.loads(i.raw) for i in items[:2])
    assert [c["message"]["content"] for c in first["choices"] + second["choices"]] == [
        "Make it one.", "Make it two."]
    assert first["model"] == second["model"] == "gpt-test"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",))), min_size=1, max_size=5),
       st.booleans())
def test_every_json_string_line_is_its_response_text_in_order(texts, wrapped):
    lines = [json.dumps({"response": t} if wrapped else t) for t in texts]
    raw = "\n\n".join(lines).encode()  # blank lines between: not responses
    items = expand_inputs([("t.jsonl", raw)], 0)
    assert [i.raw for i in items] == [t.encode() for t in texts]
    assert [i.stem for i in items] == [f"t-{k}" for k in range(1, len(texts) + 1)]
    assert [i.label for i in items] == [f"t.jsonl:{2 * k - 1}" for k in range(1, len(texts) + 1)]


def test_a_line_holding_a_lone_surrogate_is_refused_on_its_own():
    items = expand_inputs([("s.jsonl", b'"\\ud800"\n"fine"\n')], 0)
    assert items[0].problem is not None
    assert items[1].raw == b"fine" and items[1].problem is None
