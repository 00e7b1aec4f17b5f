"""run/limits.py: git apply's path options over a response's operations, as pure functions:
``-p N`` and ``--directory`` re-root each path (a git diff's a/ b/ prefix counting as the
first component), ``--include``/``--exclude`` keep or leave out an operation (the first
matching pattern decides), and an absolute or climbing ``--directory`` is refused."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.ops import DeleteFile, NewFile, RenameFile, SetMode, Source
from git_aiapply.run.limits import directory_problem, included, limit_ops, reroot

PLAIN = Source("file-changes", "FILE_PATCH x")
GIT = Source("unified-diff", "diff --git", git_prefix=True)  # a/ b/ already taken off

component = st.text("abcxyz._-", min_size=1, max_size=4).filter(lambda c: c not in (".", ".."))
paths = st.lists(component, min_size=1, max_size=5).map("/".join)
folders = st.one_of(st.none(), st.just(""), st.lists(component, min_size=1, max_size=3)
                    .map("/".join).flatmap(lambda d: st.sampled_from([d, d + "/", "/" + d])))


def under(directory: str | None, rest: str) -> str:
    """``rest`` put under ``directory`` as --directory does (its slashes at the ends dropped)."""
    inner = (directory or "").strip("/")
    return f"{inner}/{rest}" if inner else rest


@settings(max_examples=50, deadline=None)
@given(paths, st.integers(0, 6), folders)
def test_strip_removes_exactly_n_components_then_the_directory_is_prepended(path, n, directory):
    parts = path.split("/")
    if n >= len(parts) and n > 0:
        with pytest.raises(ApplyError, match=rf"-p {n}\): it has only {len(parts)}"):
            reroot(path, n, directory, PLAIN)
        return
    assert reroot(path, n, directory, PLAIN) == under(directory, "/".join(parts[n:]))


@settings(max_examples=50, deadline=None)
@given(paths, st.integers(1, 6), folders, st.sampled_from([0, 1]))
def test_a_git_prefix_counts_as_the_first_component(path, n, directory, side):
    """-p N on a git diff's path (prefix taken off) is -p N-1 on the path; -p 0 puts the
    side's prefix back; no -p is git's default -p1."""
    try:
        expected = reroot(path, n - 1, directory, PLAIN, side)
    except ApplyError:
        with pytest.raises(ApplyError, match=f"from 'a/{path}'"):
            reroot(path, n, directory, GIT, side)
    else:
        assert reroot(path, n, directory, GIT, side) == expected
    assert reroot(path, 0, directory, GIT, side) == under(directory, "ab"[side] + "/" + path)
    assert reroot(path, None, directory, GIT, side) == under(directory, path)


patterns = st.sampled_from(["*", "*.txt", "src/*", "*/b*", "docs/*.md", "a?c.txt", "[ab]*",
                            "src/a.txt", "nothing"])
limit_lists = st.lists(st.tuples(st.sampled_from(["include", "exclude"]), patterns), max_size=4)
files = st.sampled_from(["a.txt", "abc.txt", "src/a.txt", "src/b/c.txt", "docs/x.md", "b.py"])


@settings(max_examples=100, deadline=None)
@given(files, limit_lists, limit_lists)
def test_the_first_matching_pattern_decides(path, limits, later):
    decided = included(path, limits)
    if any(included(path, [("include", p)]) for _k, p in limits):  # some pattern matches
        assert included(path, limits + later) == decided  # what follows it is not consulted
    else:  # none matches: kept unless some --include was given
        assert decided == (not any(kind == "include" for kind, _ in limits))


def test_patterns_are_wildmatch_without_flags():
    assert included("src/deep/x.txt", [("include", "*.txt")])  # `*` crosses `/`
    assert included("src/deep/x.txt", [("include", "src/*")])
    assert not included("src/deep/x.txt", [("include", "deep/*")])  # anchored at the top
    assert not included("A.TXT", [("include", "*.txt")])  # case matters
    assert included("b.py", [])


def test_limit_ops_re_roots_every_path_and_judges_a_rename_by_its_new_path():
    ops = [NewFile("pkg/new.txt", "n\n", GIT),
           RenameFile("pkg/old.py", "pkg/kept.txt", GIT),
           RenameFile("pkg/x.txt", "pkg/x.py", GIT),
           DeleteFile("pkg/gone.txt", GIT),
           SetMode("pkg/run.sh", 0o100755, GIT)]
    got = limit_ops(ops, 0, "src", [("include", "*.txt")])
    assert got == [NewFile("src/b/pkg/new.txt", "n\n", GIT),
                   RenameFile("src/a/pkg/old.py", "src/b/pkg/kept.txt", GIT),
                   DeleteFile("src/a/pkg/gone.txt", GIT)]  # a deletion has its old name only
    assert limit_ops(ops, 2, None, ()) == [
        NewFile("new.txt", "n\n", GIT), RenameFile("old.py", "kept.txt", GIT),
        RenameFile("x.txt", "x.py", GIT), DeleteFile("gone.txt", GIT),
        SetMode("run.sh", 0o100755, GIT)]
    assert limit_ops(ops, None, None, [("exclude", "*")]) == []


def test_a_strip_beyond_the_path_names_the_file_and_the_directive():
    source = Source("unified-diff", "diff a.txt", line=7, git_prefix=True)
    with pytest.raises(ApplyError) as caught:
        limit_ops([NewFile("a.txt", "x\n", source)], 3, None, ())
    problem, = caught.value.problems
    assert problem.reason == ("cannot remove 3 leading path components from 'a/a.txt' "
                              "(-p 3): it has only 2")
    assert (problem.file, problem.directive, problem.response_line) == ("a.txt", "diff a.txt", 7)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["sub", "..", ".", "x..y", "a b"]), min_size=1, max_size=4),
       st.sampled_from(["/", "\\"]), st.sampled_from(["", "/", "\\", "C:/", "d:\\"]))
def test_only_a_folder_inside_the_worktree_is_a_directory(parts, sep, lead):
    directory = lead + sep.join(parts)
    why = directory_problem(directory)
    if lead:
        assert why is not None and "an absolute folder" in why
    elif ".." in parts:
        assert why is not None and "climbs out of the worktree" in why
    else:
        assert why is None
    if why is not None:
        assert why.startswith(f"--directory {directory!r}: invalid path") and "relative" in why
