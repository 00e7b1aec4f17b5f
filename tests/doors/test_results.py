"""doors/results.py: the typed views of the command's JSON objects; here ``UndoResult``,
read from ``undo --json``'s object (docs/JSON.md) as the library returns it (``Result``:
test_api_json_view.py)."""
from __future__ import annotations

from hypothesis import given, strategies as st

from git_aiapply.doors.results import ErrorDetail, UndoFile, UndoResult

UNDONE = {"status": "undone", "undone": "c" * 40, "subject": "Shout",
          "commits": ["c" * 40, "d" * 40], "branch": "main", "head": "b" * 40,
          "files": [{"path": "a.txt", "action": "revert"}, {"path": "n.txt", "action": "remove"}],
          "pushed_to": [], "exit_code": 0}
REFUSED = {"status": "refused", "exit_code": 1, "error_kind": "refused",
           "errors": [{"reason": "HEAD is not a commit git ai-apply made"}],
           "error_text": "error: undo refused; nothing was changed."}


def test_an_undone_object_reads_as_fields():
    r = UndoResult.from_json(UNDONE)
    assert r.ok and (r.status, r.undone, r.head, r.branch) == (
        "undone", "c" * 40, "b" * 40, "main")
    assert r.commits == ("c" * 40, "d" * 40)
    assert r.files == (UndoFile("a.txt", "revert"), UndoFile("n.txt", "remove"))
    assert (r.errors, r.error_text, r.error_kind) == ((), None, None)


def test_a_refusal_reads_as_fields():
    r = UndoResult.from_json(REFUSED)
    assert not r.ok and r.status == "refused" and r.exit_code == 1
    assert r.errors == (ErrorDetail.from_json(REFUSED["errors"][0]),)
    assert (r.undone, r.commits, r.files, r.head) == (None, (), (), None)


def test_to_json_gives_back_the_object_read_and_a_copy():
    for d in (UNDONE, REFUSED):
        r = UndoResult.from_json(d)
        out = r.to_json()
        assert out == d
        out["files" if "files" in out else "errors"].clear()
        assert r.to_json() == d  # nothing shared


@given(st.lists(st.tuples(st.text(min_size=1, max_size=10),
                          st.sampled_from(["revert", "remove", "restore"])), max_size=5),
       st.lists(st.text(min_size=1, max_size=8), max_size=3))
def test_any_undone_object_round_trips(files, remotes):
    d = {**UNDONE, "files": [{"path": p, "action": a} for p, a in files], "pushed_to": remotes}
    r = UndoResult.from_json(d)
    assert [f.path for f in r.files] == [p for p, _ in files] and r.pushed_to == tuple(remotes)
    assert r.to_json() == d
