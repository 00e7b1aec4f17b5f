"""cli/commands/demo.py: `git ai-apply demo` keeps its scratch repository by default and
names it (each commit it printed is in that repository's history), --no-keep leaves
nothing behind; its usage errors."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import GitRepo


@pytest.fixture
def scratch(repo: GitRepo, tmp_path: Path) -> Path:
    """The folder the demo makes its repository in (TMPDIR), empty."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    repo.env["TMPDIR"] = str(folder)
    return folder


def test_demo_keeps_and_names_its_repository(repo: GitRepo, scratch: Path):
    r = repo.run("demo")
    assert r.returncode == 0, r.err
    last = r.out.rstrip("\n").splitlines()[-1]
    m = re.fullmatch(r"The demo repository is in (.+)", last)
    assert m, last
    kept = Path(m.group(1))
    assert kept.parent == scratch and list(scratch.iterdir()) == [kept]
    # every commit the demo printed is in the kept repository, on top of its first one
    printed = re.findall(r" applied ([0-9a-f]{7})$", r.out, re.M)
    log = subprocess.run(["git", "log", "--format=%h %s", "--abbrev=7"], cwd=kept, env=repo.env,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(printed) == 10 and len(log) == 11
    assert [line.split()[0] for line in log[:-1]] == printed[::-1]
    assert log[-1].endswith(" Demo app: first version")
    # the repository it was run from is untouched
    assert repo.git("rev-parse", "-q", "--verify", "HEAD", check=False) == ""
    assert repo.git("status", "--porcelain") == ""


def test_no_keep_leaves_nothing_and_usage_errors(repo: GitRepo, scratch: Path):
    r = repo.run("demo", "--no-keep")
    assert r.returncode == 0, r.err
    assert "The demo repository is in" not in r.out
    assert list(scratch.iterdir()) == []
    r = repo.run("demo", "extra")
    assert r.returncode == 2 and "Got unexpected extra argument (extra)" in r.err
    r = repo.run("demo", "--keep-it")
    assert r.returncode == 2 and r.err.startswith("error: unknown option 'keep-it'\n")
    assert list(scratch.iterdir()) == []
