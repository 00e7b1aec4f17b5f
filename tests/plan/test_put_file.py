"""The planner's put of a computed file state (ops.PutFile, plan/put_file.py: `-3`'s merged
result) as a plain function over a dict-backed base: it asks what every write asks of
the path and what stands there (an untracked file, a folder, a submodule, a symbolic link,
a file or a submodule on the way, a path outside the tree), and records what changed."""
from __future__ import annotations

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.ops import PutFile, Source
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_EXEC, MODE_FILE, MODE_LINK, FileState, make_plan
from plan_base import DictBase

SRC = Source("three-way", "")
FILES = {"a.txt": (MODE_FILE, b"a\n"), "d/x.txt": (MODE_FILE, b"x\n"),
         "sub": (0o160000, b""), "link": (MODE_LINK, b"a.txt")}


def put(path: str, data: bytes = b"new\n", mode: int = MODE_FILE, untracked=()):
    return make_plan([PutFile(path, mode, data, SRC)], DictBase(dict(FILES), set(untracked)),
                     lambda p: normalize_path(p, worktree="/w"))


def reason(path: str, **kw) -> str:
    with pytest.raises(ApplyError) as e:
        put(path, **kw)
    (p,) = e.value.problems
    assert p.file in (path, None) or path.startswith(p.file)
    return p.reason


def test_a_tracked_file_takes_the_state_and_a_new_path_is_added():
    p = put("a.txt", b"merged\n", MODE_EXEC)
    assert p.final == {"a.txt": FileState(MODE_EXEC, b"merged\n")}
    assert p.base == {"a.txt": FileState(MODE_FILE, b"a\n")}
    assert [(c.path, c.action) for c in p.changes] == [("a.txt", "update")]
    p = put("d/new.txt", b"1\n2\n")
    assert [(c.path, c.action, c.added) for c in p.changes] == [("d/new.txt", "add", 2)]
    assert [(c.action) for c in put("a.txt", b"a\n", MODE_EXEC).changes] == ["mode"]
    assert put("a.txt", b"a\n").is_noop()


@pytest.mark.parametrize("path, kw, why", [
    ("n.txt", {"untracked": ["n.txt"]}, "not tracked by git"),
    ("d", {}, "it is a folder"),
    ("sub", {}, "it is a submodule"),
    ("sub/f.txt", {}, "submodule"),  # never into another repository's files
    ("a.txt/f.txt", {}, "a.txt"),  # a file on the way
    ("link", {}, "symbolic link"),
    ("a.txt", {"mode": MODE_LINK}, "unsupported mode"),
    ("../out.txt", {}, "climb out"),
    (".git/config", {}, ".git"),
])
def test_what_stands_in_the_way_refuses_the_put(path, kw, why):
    assert why in reason(path, **kw)
