"""The git layer answers in plain values where the core used to reach into pygit2
(issue 23 item 3): the overlay of a --check series asks the snapshot how many files a
tree folder holds instead of walking pygit2 trees itself."""
from __future__ import annotations

import pygit2

from git_aiapply.git.state import TreeSnapshot
from git_aiapply.plan.overlay import Overlay, _emptied
from git_aiapply.plan.plan import FileState


def _tree(r: pygit2.Repository, files: dict[str, bytes]) -> pygit2.Tree:
    """A tree holding ``files`` (path -> content), folders made as needed."""
    folders: dict[str, dict] = {}
    for path, data in files.items():
        node = folders
        *dirs, name = path.split("/")
        for d in dirs:
            node = node.setdefault(d, {})
        node[name] = data

    def build(node: dict) -> pygit2.Oid:
        tb = r.TreeBuilder()
        for name, value in sorted(node.items()):
            if isinstance(value, dict):
                tb.insert(name, build(value), pygit2.enums.FileMode.TREE)
            else:
                tb.insert(name, r.create_blob(value), pygit2.enums.FileMode.BLOB)
        return tb.write()

    return r[build(folders)]


def _snapshot(tmp_path, files):
    r = pygit2.init_repository(str(tmp_path / "r.git"), bare=True)
    return TreeSnapshot(r, _tree(r, files), None)


FILES = {"a/b/c.txt": b"c\n", "a/d.txt": b"d\n", "a/b/e/f.txt": b"f\n", "top.txt": b"t\n"}


def test_files_under_counts_every_file_below_a_folder(tmp_path):
    snap = _snapshot(tmp_path, FILES)
    for folder in ("a", "a/b", "a/b/e"):
        expected = sum(1 for p in FILES if p.startswith(folder + "/"))
        assert snap.files_under(folder) == expected
    assert snap.files_under("nowhere") is None
    assert TreeSnapshot(snap.repo, None, None).files_under("a") is None


def test_a_folder_is_emptied_only_when_every_file_under_it_is_removed(tmp_path):
    snap = _snapshot(tmp_path, FILES)
    under_a = [p for p in FILES if p.startswith("a/")]
    assert _emptied(snap, "a", under_a)
    assert not _emptied(snap, "a", under_a[:-1])
    assert not _emptied(snap, "nowhere", ["nowhere/x"])
    # through an overlay too (a series of responses): the base's answer
    over = Overlay(snap, {p: None for p in under_a})
    assert over.kind("a") is None and over.kind("a/b") is None
    kept = Overlay(snap, {"a/d.txt": None})
    assert kept.kind("a") == "dir"
    added = Overlay(snap, {**{p: None for p in under_a}, "a/new.txt": FileState(0o100644, b"n")})
    assert added.kind("a") == "dir"
