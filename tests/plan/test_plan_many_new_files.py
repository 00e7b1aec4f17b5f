"""What is remembered while planning many new files, and why it can never answer wrong.

Planning a response of many new files looks at each leading folder once: the tree
snapshot remembers what the commit's tree and the disk hold at each path it was asked
about (git/state.py TreeSnapshot), and the path checks remember which folder names and
components are fine (paths.py).  Each test here would fail if one of those memories gave
a stale or wrong answer: a second file under the same folder must meet the same refusal
as the first, a remembered answer must not outlive the run (the library's warm session
and `serve` plan every request against the disk as it then is), and a bad component
remembered once must still be refused, naming the path it is in.
"""
from __future__ import annotations

import os
import stat

import pygit2
import pytest
from hypothesis import example, given, settings, strategies as st

from git_aiapply.run.diffstat import net_stats
from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.git.state import TreeSnapshot
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan


def _new_files(*paths: str) -> str:
    body = "".join(f'<FILE_NEW file_path="{p}">\ncontent of {p}\n</FILE_NEW>\n' for p in paths)
    return f"Add files.\n\n<FILE_CHANGES>\n{body}</FILE_CHANGES>\n"


def _plan(repo, response: str):
    """Plan ``response`` against HEAD and the disk of ``repo``, as the command does."""
    r = pygit2.Repository(str(repo.root))
    base = TreeSnapshot(r, r.head.peel().tree, r.workdir)
    root = r.workdir
    return make_plan(parse_response(response).ops, base,
                     lambda raw: normalize_path(raw, worktree=root))


def _refused_files(repo, response: str) -> list[str]:
    with pytest.raises(ApplyError) as e:
        _plan(repo, response)
    return sorted(p.file for p in e.value.problems)


@pytest.fixture
def base_repo(repo, tmp_path):
    repo.write("tracked/keep.txt", "kept\n")
    repo.write("a.txt", "a\n")
    repo.commit_all()
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.outside = outside
    return repo


# --------------------------------------------------------------------------- disk answers


def test_two_new_files_under_an_untracked_link_are_both_refused(base_repo):
    os.symlink(base_repo.outside, base_repo.root / "linked")
    assert _refused_files(base_repo, _new_files("linked/one.txt", "linked/two.txt")) == [
        "linked/one.txt", "linked/two.txt"]


def test_two_new_files_under_a_tracked_folder_replaced_by_a_link_are_both_refused(base_repo):
    os.rename(base_repo.root / "tracked", base_repo.root / "moved")
    os.symlink(base_repo.outside, base_repo.root / "tracked")
    assert _refused_files(base_repo, _new_files("tracked/one.txt", "tracked/sub/two.txt")) == [
        "tracked/one.txt", "tracked/sub/two.txt"]


def test_files_below_a_link_deep_down_are_refused_after_a_sibling_was_accepted(base_repo):
    """The first file's folders are remembered as real folders; the link one level
    further down is still found for the second and third file."""
    (base_repo.root / "deep" / "real").mkdir(parents=True)
    os.symlink(base_repo.outside, base_repo.root / "deep" / "real" / "link")
    assert _refused_files(base_repo, _new_files("deep/real/ok.txt", "deep/real/link/x.txt",
                                                "deep/real/link/y/z.txt")) == [
        "deep/real/link/x.txt", "deep/real/link/y/z.txt"]


def test_an_untracked_file_is_in_the_way_of_each_file_below_it(base_repo):
    base_repo.write("notes", "mine\n")
    assert _refused_files(base_repo, _new_files("notes/a.txt", "notes/b/c.txt")) == [
        "notes/a.txt", "notes/b/c.txt"]


def test_untracked_file_among_new_siblings_is_found_in_a_folder_seen_before(base_repo):
    base_repo.write("drafts/mine.txt", "mine\n")
    assert _refused_files(base_repo, _new_files("drafts/new.txt", "drafts/mine.txt",
                                                "drafts/other.txt")) == ["drafts/mine.txt"]


def test_new_files_under_a_missing_folder_are_planned(base_repo):
    plan = _plan(base_repo, _new_files("fresh/a.txt", "fresh/b.txt", "fresh/deeper/c.txt"))
    assert sorted(plan.final) == ["fresh/a.txt", "fresh/b.txt", "fresh/deeper/c.txt"]


# --------------------------------------------------------------------------- tree answers


def _ops(*directives: str) -> str:
    return "Change files.\n\n<FILE_CHANGES>\n" + "".join(directives) + "</FILE_CHANGES>\n"


def _new(p: str) -> str:
    return f'<FILE_NEW file_path="{p}">\ncontent of {p}\n</FILE_NEW>\n'


def _delete(p: str) -> str:
    return f'<FILE_DELETE file_path="{p}" />\n'


@pytest.mark.parametrize("depth", ["x", "x/y"])
def test_a_folder_made_a_file_by_a_later_operation_holds_no_more_files(base_repo, depth):
    """The planner remembers leading folders found to be folders (or absent); a file put
    later at such a path must make the files after it under that path refused again."""
    deep = f"{depth}/in.txt"
    response = _ops(_new(deep), _delete(deep), _new(depth), _new(f"{depth}/after.txt"))
    assert _refused_files(base_repo, response) == [f"{depth}/after.txt"]
    if depth == "x/y":  # a file put at an ancestor of a remembered folder
        response = _ops(_new("x/y/in.txt"), _delete("x/y/in.txt"), _new("x"),
                        _new("x/y/after.txt"))
        assert _refused_files(base_repo, response) == ["x/y/after.txt"]


def test_a_folder_emptied_by_deletes_and_filled_again_is_still_a_folder(base_repo):
    plan = _plan(base_repo, _ops(_new("d/a.txt"), _delete("d/a.txt"), _new("d/b.txt"),
                                 _new("d/e/c.txt")))
    assert sorted(p for p, s in plan.final.items() if s is not None) == ["d/b.txt", "d/e/c.txt"]


def test_a_tracked_file_cannot_be_a_folder_for_any_new_file(base_repo):
    assert _refused_files(base_repo, _new_files("a.txt/x", "a.txt/y/z")) == ["a.txt/x", "a.txt/y/z"]


def test_files_under_a_tracked_folder_are_found_after_a_missing_sibling(base_repo):
    """A missing folder remembered as absent says nothing about its tracked siblings."""
    plan = _plan(base_repo, _new_files("trackedx/new.txt", "tracked/new.txt"))
    assert plan.base["tracked/new.txt"] is None
    with pytest.raises(ApplyError, match="already exists"):
        _plan(base_repo, "x\n\n```\ntracked/keep.txt\n<<<<<<< SEARCH\n=======\nnew\n"
                         ">>>>>>> REPLACE\n```\n")


def _disk_kind_walked(workdir: str, path: str) -> str | None:
    """What is on disk at ``path``, by an lstat of each leading folder in turn."""
    cur = workdir
    parts = path.split("/")
    for i, part in enumerate(parts):
        cur = os.path.join(cur, part)
        try:
            st = os.lstat(cur)
        except OSError:
            return None
        if stat.S_ISLNK(st.st_mode):
            return "symlink"
        if i < len(parts) - 1 and not stat.S_ISDIR(st.st_mode):
            return "file"
    return "dir" if stat.S_ISDIR(st.st_mode) else "file"


def _tree_entry_looked_up(tree, path: str):
    try:
        e = tree[path]
    except (KeyError, ValueError):
        return None
    return int(e.filemode), e.id


def test_snapshot_answers_are_those_of_a_lookup_of_each_path(base_repo):
    """Whatever was asked before, in whatever order, the snapshot answers what an lstat
    walk and a tree lookup of that one path answer."""
    os.symlink(base_repo.outside, base_repo.root / "linked")
    os.symlink("a.txt", base_repo.root / "filelink")
    base_repo.write("loose/file.txt", "x\n")
    r = pygit2.Repository(str(base_repo.root))
    tree = r.head.peel().tree
    paths = ["tracked", "tracked/keep.txt", "tracked/keep.txt/x", "tracked/none", "a.txt",
             "a.txt/b", "a.txt/b/c", "linked", "linked/x", "linked/x/y", "filelink/x",
             "loose", "loose/file.txt", "loose/file.txt/z", "loose/file.txt/z/w", "missing",
             "missing/deeper/x", "tracked/none/deeper"]
    for order in (paths, paths[::-1], sorted(paths, key=len, reverse=True)):
        snap = TreeSnapshot(r, tree, r.workdir)
        for p in order:
            assert snap.disk_kind(p) == _disk_kind_walked(r.workdir, p), p
            assert snap.entry_id(p) == _tree_entry_looked_up(tree, p), p


# --------------------------------------------------------------------------- one run only


def test_a_warm_session_looks_at_the_disk_again_for_each_response(base_repo):
    """The library's session (and `serve`, which runs on it) keeps the repository open:
    a file that was missing for one request and is there (untracked) at the next is
    refused, and a folder that became a link is refused."""
    import git_aiapply

    session = git_aiapply.Session(str(base_repo.root))
    first = session.check(_new_files("later/a.txt", "linked/a.txt"))
    assert first.status == "would-apply", first.errors
    base_repo.write("later/a.txt", "mine\n")
    second = session.apply(_new_files("later/a.txt"))
    assert second.status == "refused"
    assert "not tracked" in second.errors[0].reason
    assert base_repo.read("later/a.txt") == b"mine\n"
    os.symlink(base_repo.outside, base_repo.root / "linked")
    third = session.apply(_new_files("linked/a.txt"))
    assert third.status == "refused"
    assert "symbolic link" in third.errors[0].reason
    assert os.listdir(base_repo.outside) == []


def test_serve_looks_at_the_disk_again_for_each_request(base_repo):
    """One `serve` process: the file missing for the first request is there (untracked)
    by the second; the first request's answer must not be reused."""
    import json
    import subprocess

    from conftest import AI_APPLY

    p = subprocess.Popen([*AI_APPLY, "serve"], cwd=base_repo.root, env=base_repo.env,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        def ask(request: dict) -> dict:
            p.stdin.write((json.dumps(request) + "\n").encode())
            p.stdin.flush()
            return json.loads(p.stdout.readline())

        first = ask({"response": _new_files("later/a.txt"), "options": {"check": True}})
        assert first["status"] == "would-apply", first
        base_repo.write("later/a.txt", "mine\n")
        second = ask({"response": _new_files("later/a.txt")})
        assert second["status"] == "refused", second
        assert "not tracked" in second["error_text"]
    finally:
        p.stdin.close()
        p.wait(60)
    assert base_repo.read("later/a.txt") == b"mine\n"


# --------------------------------------------------------------------------- path checks


@pytest.mark.parametrize("bad", [".GIT/config", "sub/.git/hooks/x", "sub/.Git./x", "sub/git~1/x",
                                 "sub/../x", "sub//x", "sub/./x", "sub/.git"])
def test_a_bad_component_after_good_ones_is_refused_each_time(bad):
    """Good folders are remembered as good; a bad component after them, in one path or in
    several, is refused every time, each refusal naming its own path."""
    root = "/nowhere"
    assert normalize_path("sub/ok.txt", worktree=root) == "sub/ok.txt"
    for path in (bad, "other/" + bad, bad):
        with pytest.raises(ApplyError) as e:
            normalize_path(path, worktree=root)
        assert e.value.problems[0].file == path
    assert normalize_path("sub/also-ok.txt", worktree=root) == "sub/also-ok.txt"


def test_folder_names_differing_in_case_are_each_checked(base_repo):
    assert _refused_files(base_repo, _new_files("docs/a.md", ".GIT/x", "Docs/b.md", ".git/y")) == [
        ".GIT/x", ".git/y"]


# --------------------------------------------------------------------------- renames


def test_identical_added_and_deleted_files_pair_in_order_preferring_the_same_name():
    data = b"same\n"
    before = {"old/a.txt": (0o100644, data), "old/b.txt": (0o100644, data),
              "old/c.txt": (0o100644, data)}
    after = {"new/x.txt": (0o100644, data), "new/b.txt": (0o100644, data),
             "new/y.txt": (0o100644, data)}
    renames = {(s.old_path, s.path) for s in net_stats(before, after, None) if s.status == "R"}
    assert renames == {("old/b.txt", "new/b.txt"), ("old/a.txt", "new/x.txt"),
                       ("old/c.txt", "new/y.txt")}


def test_similar_files_beyond_the_rename_limit_are_not_compared():
    """As git (diff.renameLimit 1000): over 1,000 x 1,000 candidate pairs, only identical
    files are paired; under it, similar ones are."""
    from git_aiapply.run import diffstat

    lines = b"".join(b"line %d\n" % i for i in range(40))
    before = {f"old/{i}.txt": (0o100644, lines + b"old %d\n" % i) for i in range(3)}
    after = {f"new/{i}.txt": (0o100644, lines + b"new %d\n" % i) for i in range(3)}
    assert sum(s.status == "R" for s in net_stats(before, after, None)) == 3
    limit = diffstat.RENAME_LIMIT
    try:
        diffstat.RENAME_LIMIT = 2
        assert sum(s.status == "R" for s in net_stats(before, after, None)) == 0
    finally:
        diffstat.RENAME_LIMIT = limit


# --------------------------------------------------------------------------- writing


def test_a_file_that_appears_after_planning_is_never_overwritten(base_repo, monkeypatch):
    """A new file is created in place with O_EXCL: one that someone made between planning
    and writing stops the run, which puts back what it wrote; theirs stays."""
    import git_aiapply
    import git_aiapply.plan.plan as plan_module

    planned = plan_module.make_plan

    def plan_then_someone_writes(*args, **kwargs):
        plan = planned(*args, **kwargs)
        base_repo.write("later/b.txt", "mine\n")
        return plan

    head = base_repo.head()
    monkeypatch.setattr(plan_module, "make_plan", plan_then_someone_writes)
    result = git_aiapply.apply(_new_files("later/a.txt", "later/b.txt", "later/c.txt"),
                               repo=str(base_repo.root))
    assert result.status == "refused"
    assert "appeared on disk" in result.errors[0].reason
    assert base_repo.read("later/b.txt") == b"mine\n"
    assert sorted(os.listdir(base_repo.root / "later")) == ["b.txt"]
    assert base_repo.head() == head
    assert base_repo.git("status", "--porcelain").splitlines() == ["?? later/"]


def test_new_files_are_written_with_the_modes_and_stats_git_expects(base_repo):
    response = _new_files("made/one.txt", "made/deeper/two.txt")
    r = base_repo.run(response=response)
    assert r.returncode == 0, r.err
    assert base_repo.read("made/deeper/two.txt") == b"content of made/deeper/two.txt\n"
    assert base_repo.git("status", "--porcelain") == ""  # index stat data match the files
    assert base_repo.git("diff", "HEAD~1", "--name-status").split() == [
        "A", "made/deeper/two.txt", "A", "made/one.txt"]


@pytest.mark.parametrize("data", [b"a", b"a\n", b"a\nb", b"\n\n\n", b"a\n\nb\n\n", b"a\rb\r",
                                  b"a\r\nb\r\n", b"x\x00y\n", b""])
def test_added_and_deleted_files_count_their_lines_as_git(data):
    """A whole file added or deleted is counted without a diff; the count is the diff's."""
    from git_aiapply.git.state import line_counts

    added = net_stats({}, {"f": (0o100644, data)}, line_counts)
    deleted = net_stats({"f": (0o100644, data)}, {}, line_counts)
    if b"\0" in data:
        assert added[0].binary and deleted[0].binary
        return
    assert (added[0].added, added[0].deleted) == line_counts(b"", data)
    assert (deleted[0].added, deleted[0].deleted) == line_counts(data, b"")


# --------------------------------------------------------------------------- tags


def _tag_or_error(read, text: str):
    try:
        tag = read(text, 0, 1)
    except ApplyError as e:
        return ("refused", str(e))
    return None if tag is None else (tag.name, tag.closing, tag.attrs, tag.self_closing, tag.end)


@settings(max_examples=3000, deadline=None)
@example('a x="1" x="2">')
@example('a x="" x=\'\'>')
@example('a x=\'1\' X="1" />')
@example('FILE_NEW file_path="a"file_path="b">')
@example('a\n x="1\n">')
@example('a x="1" y=2>')
@given(st.text(alphabet="<>/ \t\n\r=\"'-_:.aAbB1é", min_size=0, max_size=40))
def test_a_tag_read_in_one_match_is_the_tag_read_character_by_character(rest):
    """parse_tag reads a plain tag with one regular expression and leaves everything else
    to the character reader: both readings agree on every text, errors included."""
    from git_aiapply.formats import scan as scan_module

    text = "<" + rest
    assert _tag_or_error(scan_module.parse_tag, text) == \
        _tag_or_error(scan_module._read_tag, text)


def test_include_dirty_edits_a_file_staged_for_deletion_that_is_still_on_disk(base_repo):
    """Not a new path (HEAD has it): the untracked-file guard of new paths stays out of
    the way of --include-dirty."""
    base_repo.git("rm", "-q", "--cached", "a.txt")
    r = base_repo.run("--include-dirty", response=(
        "Edit a.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"a.txt\">\n@@\n-a\n+b\n"
        "</FILE_PATCH>\n</FILE_CHANGES>\n"))
    assert r.returncode == 0, r.err
    assert base_repo.read("a.txt") == b"b\n"
    assert base_repo.git("show", "HEAD:a.txt") == "b\n"


def test_edits_of_two_files_behind_a_folder_replaced_by_a_link_are_both_refused(base_repo):
    """The cleanliness check looks at each leading folder once for all the touched paths:
    both files behind the link are named, with and without --check."""
    import shutil

    base_repo.write("tracked/other.txt", "other\n")
    base_repo.commit_all("two files")
    copy = base_repo.outside / "copy"
    shutil.copytree(base_repo.root / "tracked", copy)
    shutil.rmtree(base_repo.root / "tracked")
    os.symlink(copy, base_repo.root / "tracked")
    response = ("Edit both.\n\n<FILE_CHANGES>\n"
                "<FILE_PATCH file_path=\"tracked/keep.txt\">\n@@\n-kept\n+changed\n</FILE_PATCH>\n"
                "<FILE_PATCH file_path=\"tracked/other.txt\">\n@@\n-other\n+changed\n</FILE_PATCH>\n"
                "</FILE_CHANGES>\n")
    for args in (("--check",), ()):
        r = base_repo.run(*args, response=response)
        assert r.returncode == 1, r.out + r.err
        for path in ("tracked/keep.txt", "tracked/other.txt"):
            assert f"{path} is behind tracked, which is a symbolic link" in r.err, r.err
    assert (copy / "keep.txt").read_text() == "kept\n"
    assert (copy / "other.txt").read_text() == "other\n"


# --------------------------------------------------------------------------- the message


def test_the_change_words_are_worked_out_only_for_a_response_without_a_subject():
    """Naming what changed means a net diffstat of every file (100,000 new files take a
    while): it is asked for only when the explanation gives no subject."""
    from git_aiapply.message.message import build_message

    asked = []

    def changed():
        asked.append(True)
        return [("add", "new/a.py"), ("add", "new/b.py")]

    args = dict(formats=["file-changes"], response_id="0" * 16, model=None, descriptions=[],
                changed=changed)
    assert build_message("Add two modules.", **args).startswith("Add two modules\n")
    assert asked == []
    assert build_message("", **args).startswith("Add new/a.py and new/b.py\n")
    assert asked == [True]


def test_a_response_of_new_files_without_prose_is_named_by_its_files(base_repo):
    body = "".join(f'<FILE_NEW file_path="{p}">\nx\n</FILE_NEW>\n' for p in ("n/a.py", "n/b.py"))
    r = base_repo.run(response=f"<FILE_CHANGES>\n{body}</FILE_CHANGES>\n")
    assert r.returncode == 0, r.err
    assert base_repo.message().splitlines()[0] == "Add n/a.py and n/b.py"
