"""SEARCH/REPLACE block bodies (formats/search_blocks.py) and the choice between divider
readings (divider_readings.choose_readings), as plain functions."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.formats.search_blocks import (BlockError, NumberedBlock, file_operations,
                                               is_divider, is_replace, is_search, read_block,
                                               search_line_hint)
from git_aiapply.locate.divider_readings import choose_readings
from git_aiapply.locate.locate import apply_hunks
from git_aiapply.ops import EditFile, NewFile, Source
from git_aiapply.text import FileText


def lines(text: str) -> list[str]:
    return text.split("\n")


@pytest.mark.parametrize("line,search,divider,replace", [
    ("<<<<<<< SEARCH", True, False, False),
    ("<<<<< SEARCH", True, False, False),
    ("<<<<<<<<< SEARCH", True, False, False),
    ("<<<< SEARCH", False, False, False),  # 4: too few
    ("<<<<<<<<<< SEARCH", False, False, False),  # 10: too many
    ("  <<<<<<< search  ", True, False, False),
    ("=======", False, True, False),
    ("=====", False, True, False),
    ("==========", False, False, False),
    ("===", False, False, False),
    ("======= x", False, False, False),
    (">>>>>>> REPLACE", False, False, True),
    (">>>>>>>>>REPLACE ", False, False, True),
    (">>>>>>> REPLACE now", False, False, False),
    ("<<<<<<< HEAD", False, False, False),
    ("<<<<<<< SEARCH line=42", True, False, False),  # Zed's diff-fenced format
    ('<<<<<<< SEARCH line="7"', True, False, False),
    ("<<<<<<< SEARCH line=x", False, False, False),
    ("<<<<<<< SEARCH near line 4", False, False, False),
])
def test_markers(line, search, divider, replace):
    assert (is_search(line), is_divider(line), is_replace(line)) == (search, divider, replace)


def test_one_divider_one_reading():
    raw = read_block(lines("<<<<<<< SEARCH\na\nb\n=======\nc\n>>>>>>> REPLACE\nafter"), 0)
    assert raw.end == 5
    (r,) = raw.readings
    assert (r.divider, r.search, r.replace) == (3, ["a", "b"], ["c"])


def test_setext_underline_in_search_gives_two_readings():
    text = "<<<<<<< SEARCH\nTitle\n=======\nbody\n=======\nTitle\n-----\n>>>>>>> REPLACE"
    raw = read_block(lines(text), 0)
    assert [(r.divider, r.search, r.replace) for r in raw.readings] == [
        (2, ["Title"], ["body", "=======", "Title", "-----"]),
        (4, ["Title", "=======", "body"], ["Title", "-----"]),
    ]


def test_divider_right_after_search_is_the_divider():
    raw = read_block(lines("<<<<<<< SEARCH\n=======\nTitle\n=======\n>>>>>>> REPLACE"), 0)
    (r,) = raw.readings
    assert (r.search, r.replace) == ([], ["Title", "======="])


def test_markers_in_replace_never_end_the_block_early():
    text = "<<<<<<< SEARCH\na\n=======\nDocs\n=======\nmore\n>>>>>>> REPLACE\n```"
    raw = read_block(lines(text), 0, aider_close=True)
    assert raw.end == 6
    assert [r.divider for r in raw.readings] == [2, 4]


def test_aider_close_by_a_second_divider_before_the_fence():
    text = "<<<<<<< SEARCH\na\n=======\nb\n=======\n\n```\nprose"
    raw = read_block(lines(text), 0, aider_close=True)
    assert raw.end == 4
    (r,) = raw.readings
    assert (r.search, r.replace) == (["a"], ["b"])


def test_aider_close_before_the_next_block():
    text = "<<<<<<< SEARCH\na\n=======\nb\n=======\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE"
    raw = read_block(lines(text), 0, aider_close=True)
    assert raw.end == 4
    assert read_block(lines(text), 5).readings[0].replace == ["d"]


def test_aider_close_never_at_the_end_of_a_cut_off_answer():
    text = "<<<<<<< SEARCH\na\n=======\nTitle\n======="
    with pytest.raises(BlockError) as e:
        read_block(lines(text), 0, aider_close=True)
    assert "never closed" in e.value.reason and e.value.stopped_by == "end"


def test_aider_close_not_followed_by_text():
    text = "<<<<<<< SEARCH\na\n=======\nTitle\n=======\nmore text\n```"
    with pytest.raises(BlockError) as e:
        read_block(lines(text), 0, aider_close=True)
    assert e.value.missing == "replace"


def test_no_aider_close_without_the_option():
    with pytest.raises(BlockError) as e:
        read_block(lines("<<<<<<< SEARCH\na\n=======\nb\n=======\n```"), 0)
    assert e.value.missing == "replace" and e.value.stopped_by == "end"


@pytest.mark.parametrize("text,missing,stopped_by", [
    ("<<<<<<< SEARCH\na\n>>>>>>> REPLACE", "divider", "replace"),
    ("<<<<<<< SEARCH\na", "divider", "end"),
    ("<<<<<<< SEARCH\na\n=======\nb", "replace", "end"),
    ("<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\nc\n=======\nd\n>>>>>>> REPLACE",
     "replace", "search"),
    ("<<<<<<< SEARCH\na\n=======\nb\n</CodeChange>", "replace", "stop"),
])
def test_errors(text, missing, stopped_by):
    with pytest.raises(BlockError) as e:
        read_block(lines(text), 0, stop=lambda l: l.startswith("</CodeChange>"))
    assert (e.value.missing, e.value.stopped_by, e.value.index) == (missing, stopped_by, 0)


SOURCE = Source("search-replace", "SEARCH/REPLACE f.md")


def ops_of(text: str, path: str = "f.md"):
    raw = read_block(lines(text), 0)
    block = NumberedBlock(1, 1, raw.readings, [r.divider + 1 for r in raw.readings])
    return file_operations(path, [block], SOURCE, lambda r, l, h=None: ValueError(r))


SETEXT = "<<<<<<< SEARCH\nTitle\n=======\nold\n=======\nTitle\n=======\nnew\n>>>>>>> REPLACE"


def test_ambiguous_divider_carries_every_reading_on_the_hunk():
    (op,) = ops_of(SETEXT)
    assert isinstance(op, EditFile)
    (hunk,) = op.hunks
    assert len(hunk.readings) == 3
    assert [label for label, _ in hunk.readings] == [
        f"the ======= at response line {n} as the divider" for n in (3, 5, 7)]


def apply(text: str, file: str, path: str = "f.md") -> str:
    (op,) = ops_of(text, path)
    ft = FileText.from_bytes(file.encode())
    hunks = choose_readings(ft.lines, op.hunks, path=path)
    new, _a, _r = apply_hunks(ft, hunks, path=path)
    return new.to_bytes().decode()


def test_the_file_chooses_the_reading_whose_search_fits():
    assert apply(SETEXT, "Title\n=======\nold\n\nrest\n") == "Title\n=======\nnew\n\nrest\n"


def test_setext_in_search_reproduction_of_issue_10():
    # the SEARCH holds a setext heading; splitting at its underline would commit garbage
    text = ("<<<<<<< SEARCH\nInstall\n=======\n\nRun make.\n=======\nInstall\n=======\n\n"
            "Run make install.\n>>>>>>> REPLACE")
    before = "Intro\n\nInstall\n=======\n\nRun make.\n"
    assert apply(text, before) == "Intro\n\nInstall\n=======\n\nRun make install.\n"


def test_no_reading_fits_is_refused():
    with pytest.raises(ApplyError) as e:
        apply(SETEXT, "Other\n=====\n")
    (p,) = e.value.problems
    assert "no reading's SEARCH fits" in p.reason and "response line 3" in p.reason


def test_a_shorter_reading_that_fits_only_inside_a_longer_one_does_not_count():
    text = "<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE"
    assert apply(text, "a\n=======\nb\n") == "c\n"


def test_several_readings_fit_is_refused():
    text = "<<<<<<< SEARCH\na\n=======\nb\n=======\nc\n>>>>>>> REPLACE"
    with pytest.raises(ApplyError) as e:
        apply(text, "a\n=======\nb\n\na\n")
    (p,) = e.value.problems
    assert "fits the SEARCH of 2 of the readings" in p.reason
    assert p.file == "f.md" and p.edit == 1


def test_plain_hunks_pass_through_untouched():
    (op,) = ops_of("<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE")
    assert choose_readings(["a"], op.hunks, path="f") is op.hunks


def test_empty_search_makes_a_new_file():
    (op,) = ops_of("<<<<<<< SEARCH\n=======\n\nx = 1\n\n>>>>>>> REPLACE", "n.py")
    assert isinstance(op, NewFile) and op.text == "x = 1\n" and op.replace is False


# --- aider's order: blocks that fit only one after another ------------------------------

from git_aiapply.locate.divider_readings import apply_edit  # noqa: E402
from git_aiapply.ops import Hunk  # noqa: E402


def hunk(n, search, replace):
    from git_aiapply.formats.search_blocks import diff_lines

    return Hunk(diff_lines(search, replace), number=n, kind="search")


FILE = "def f(a):\n    return a\n\n\ndef g():\n    return f(1)\n"


def test_in_turn_a_later_search_quoting_an_earlier_replace():
    hunks = [hunk(1, ["def f(a):"], ["def f(a, b=0):"]),
             hunk(2, ["def f(a, b=0):", "    return a"], ["def f(a, b=0):", "    return a + b"])]
    ft = FileText.from_bytes(FILE.encode())
    with pytest.raises(ApplyError):
        apply_edit(ft, hunks, path="m.py")  # together: the second does not fit
    new, added, removed = apply_edit(ft, hunks, path="m.py", in_turn=True)
    assert new.to_bytes().decode() == FILE.replace("def f(a):\n    return a\n",
                                                   "def f(a, b=0):\n    return a + b\n")
    assert (added, removed) == (2, 2)


def test_in_turn_failing_reports_the_refusal_of_locating_together():
    hunks = [hunk(1, ["def f(a):"], ["def f(a, b=0):"]), hunk(2, ["nowhere"], ["x"])]
    with pytest.raises(ApplyError) as e:
        apply_edit(FileText.from_bytes(FILE.encode()), hunks, path="m.py", in_turn=True)
    (p,) = e.value.problems
    assert p.edit == 2 and "could not find" in p.reason


def test_in_turn_never_guesses_an_ambiguous_step():
    text = "x = 1\nx = 1\n"
    hunks = [hunk(1, ["x = 1"], ["x = 2"]), hunk(2, ["y"], ["z"])]
    with pytest.raises(ApplyError):
        apply_edit(FileText.from_bytes(text.encode()), hunks, path="m.py", in_turn=True)


@pytest.mark.parametrize("line, hint", [
    ("<<<<<<< SEARCH line=42", 42), ('  <<<<<<< SEARCH line="7"  ', 7), ("<<<<<<< SEARCH", None),
    ("<<<<<<< SEARCH line=0", None), ("<<<<<<< SEARCH line=x", None),
])
def test_search_line_hint(line, hint):
    assert search_line_hint(line) == hint
