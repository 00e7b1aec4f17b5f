"""Every report of a run describes the commit's net change (pipeline.net_changes): for any
sequence of creations, deletions, renames and edits of a few paths, in any order (a -> b
-> a, a deletion then a rename onto the path, rename chains), --json's files (paths,
actions, line counts) are what git's own diff of the commit says (`git diff -M`), and
--check's line and the --diff agree (issue 33: a file deleted, then another renamed onto
its path, was left out of --json and --check)."""
from __future__ import annotations

import os
import subprocess

import pytest

import hypothesis.strategies as hs
from hypothesis import HealthCheck, example, given, settings

from conftest import GitRepo, init_repo
from git_aiapply.doors.api import Session

PATHS = ["a.txt", "b.txt", "c.txt"]
# contents alike enough that an edited rename is still found as one, and one that is not
TEXTS = ["1\n2\n3\n4\n5\n6\n", "1\n2\n3\n4\n5\nsix\n", "x\ny\n", "1\n2\n3\n"]
_OP = hs.tuples(hs.sampled_from(["create", "delete", "rename", "edit"]),
                hs.integers(0, 2), hs.integers(0, 2), hs.integers(0, len(TEXTS) - 1))


def _hunk(old: str, new: str) -> str:
    return "@@\n" + "".join(f"-{l}\n" for l in old.splitlines()) \
        + "".join(f"+{l}\n" for l in new.splitlines())


def _patch(start: dict, ops: list) -> tuple[str, dict]:
    """The ops that can apply, in order, as one apply_patch response, and the files after.
    A file the response wrote already is moved without a hunk and not edited again (two
    versions of the same lines in one answer are refused, rightly)."""
    files, parts, written = dict(start), [], set()
    for kind, i, j, t in ops:
        p, q, text = PATHS[i], PATHS[j], TEXTS[t]
        if kind == "create" and p not in files:
            parts.append(f"*** Add File: {p}\n" + "".join(f"+{l}\n" for l in text.splitlines()))
            files[p] = text
            written.add(p)
        elif kind == "delete" and p in files:
            parts.append(f"*** Delete File: {p}\n")
            del files[p]
        elif kind == "rename" and p in files and q not in files:
            new = files[p] if p in written or text == files[p] else text
            hunk = _hunk(files[p], new) if new != files[p] else ""
            parts.append(f"*** Update File: {p}\n*** Move to: {q}\n" + hunk)
            del files[p]
            files[q] = new
            written.add(q)
        elif kind == "edit" and p in files and p not in written and files[p] != text:
            parts.append(f"*** Update File: {p}\n" + _hunk(files[p], text))
            files[p] = text
            written.add(p)
    return "*** Begin Patch\n" + "".join(parts) + "*** End Patch\n", files


def _git_files(repo: GitRepo, base: str) -> list[dict]:
    """What git's diff of the two trees says, as --json's files."""
    actions = {"A": "add", "D": "delete", "M": "update", "R": "rename"}
    status = repo.git("diff", "--name-status", "-M", base, "HEAD").splitlines()
    numstat = repo.git("diff", "--numstat", "-M", base, "HEAD").splitlines()
    out = []
    for st, counts in zip(status, numstat):
        kind, *paths = st.split("\t")
        added, removed, _ = counts.split("\t", 2)
        out.append({"path": paths[-1], "action": actions[kind[0]],
                    "old_path": paths[0] if kind[0] == "R" else None,
                    "added": int(added), "removed": int(removed)})
    return sorted(out, key=lambda f: f["path"])


@pytest.mark.usefixtures("env")  # the library in-process sees the test's git settings
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@example({0, 1}, [("delete", 0, 0, 0), ("rename", 1, 0, 1)])  # deleted, then renamed onto
@example({0}, [("rename", 0, 1, 1), ("rename", 1, 0, 0)])  # away and back
@example({0}, [("rename", 0, 1, 1), ("rename", 1, 2, 0)])  # a chain
@example({0}, [("delete", 0, 0, 0), ("create", 0, 0, 1)])  # deleted and made again
@given(hs.sets(hs.integers(0, 2), min_size=1), hs.lists(_OP, min_size=1, max_size=5))
def test_every_report_is_git_s_diff_of_the_commit(tmp_path_factory, start, ops):
    repo = init_repo(tmp_path_factory.mktemp("net") / "repo", dict(os.environ))
    files = {PATHS[i]: TEXTS[i] for i in sorted(start)}
    for p, text in files.items():
        repo.write(p, text)
    base = repo.commit_all("base")
    response, after = _patch(files, ops)
    if response.count("***") == 2 or after == files:
        return  # nothing to apply, or nothing changed in the end
    session = Session(str(repo.root))
    checked = session.apply_json(response, diff=True)
    assert checked["status"] == "would-apply", (response, checked["problems"])
    done = session.apply_json(response)
    assert done["status"] == "applied", done
    base = repo.git("rev-parse", "HEAD~1").strip()
    want = _git_files(repo, base)
    for report in (checked, done):
        assert sorted(report["files"], key=lambda f: f["path"]) == want
        assert (report["added"], report["removed"]) == (sum(f["added"] for f in want),
                                                         sum(f["removed"] for f in want))
    # --diff applies to the base as the commit: git apply --numstat reads the same change
    stat = subprocess.run(["git", "apply", "--numstat", "-"], input=checked["diff"].encode(),
                          cwd=repo.root, capture_output=True, check=True).stdout.decode()
    git_stat = repo.git("diff", "--numstat", "-M", base, "HEAD")
    assert sorted(stat.splitlines()) == sorted(
        l.rsplit("\t", 1)[0] + "\t" + l.rsplit("\t", 1)[1].split(" => ")[-1]
        for l in git_stat.splitlines())
    assert {p: repo.read(p).decode() for p in after} == after
