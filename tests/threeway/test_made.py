"""threeway/made.py: a change is still held when the lines it wrote (or the place it
removed lines from) are untouched since, whatever happened around them."""
from __future__ import annotations

from git_aiapply.threeway.made import runs, still_there

OLD = b"".join(b"l%d\n" % n for n in range(1, 9))
MADE = OLD.replace(b"l4\n", b"FOUR\n")


def test_runs_are_the_changed_lines_without_context():
    assert runs(OLD, MADE) == [((b"l4\n",), (b"FOUR\n",))]
    assert runs(OLD, None) is None and runs(b"\0bin", OLD) is None


def test_a_neighbouring_line_changed_keeps_the_change():
    now = MADE.replace(b"l3\n", b"three\n").replace(b"l5\n", b"five\n")
    assert still_there(OLD, MADE, now)


def test_the_written_line_changed_or_reverted_is_not_held():
    assert not still_there(OLD, MADE, MADE.replace(b"FOUR\n", b"four\n"))
    assert not still_there(OLD, MADE, OLD)


def test_a_removal_is_held_while_its_neighbours_stay_neighbours():
    removed = OLD.replace(b"l4\n", b"")
    assert still_there(OLD, removed, removed.replace(b"l1\n", b"one\n"))
    assert not still_there(OLD, removed, OLD)  # the line came back
