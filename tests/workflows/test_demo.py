"""workflows/demo.py: `git ai-apply demo`, run for real once from a folder that is no
repository, keeps a scratch repository in the temporary folder holding one commit per
built-in example, every format of the registry and a tool-call answer among them, each
example's edits in the files; checked with the git CLI."""
from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from conftest import GitRepo, make_env
from git_aiapply.formats import format_names
from git_aiapply.workflows.demo import PROJECT

EXAMPLES = sorted(p.name for p in resources.files("git_aiapply.examples").iterdir()
                  if p.name.endswith((".md", ".json")))
SHOWN = sorted([*EXAMPLES, "05-hashline.md"])  # the hashline example is made for the file


def example(name: str) -> str:
    return resources.files("git_aiapply.examples").joinpath(name).read_text(encoding="utf-8")


def scratch(tmp_path_factory) -> tuple[GitRepo, Path]:
    """A folder to run the command in (no repository) and the temporary folder it uses."""
    top = tmp_path_factory.mktemp("demo")
    (top / "home").mkdir()
    (top / "tmp").mkdir()
    (top / "cwd").mkdir()
    env = dict(make_env(top / "home"), TMPDIR=str(top / "tmp"))
    return GitRepo(top / "cwd", env), top / "tmp"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The kept demo: (the run, its repository)."""
    where, tmp = scratch(tmp_path_factory)
    r = where.run("demo")
    assert r.returncode == 0, r.out + r.err
    said = re.search(r"^The demo repository is in (.+)$", r.out, re.M)
    assert said, r.out
    made = GitRepo(Path(said[1]), where.env)
    assert made.root.parent == tmp and made.root.name.startswith("git-ai-apply-demo-")
    assert list(where.root.iterdir()) == []  # nothing written where it was run
    return r, made


def test_one_commit_per_example_on_the_first_version(demo):
    r, made = demo
    subjects = made.git("log", "--reverse", "--format=%s").splitlines()
    assert len(subjects) == 1 + len(SHOWN) and subjects[0] == "Demo app: first version"
    first = made.git("rev-list", "--max-parents=0", "HEAD").strip()
    assert sorted(made.git("ls-tree", "-r", "--name-only", first).split()) == sorted(PROJECT)
    # each example's line says which commit it made, in the order of the history
    commits = made.git("log", "--reverse", "--format=%H").split()[1:]
    for name, commit in zip(SHOWN, commits):
        line = next(x for x in r.out.splitlines() if x.startswith(name))
        assert line.split()[-2:] == ["applied", commit[:7]], line
    assert made.git("status", "--porcelain") == ""
    made.git("fsck", "--no-progress")


def test_every_format_of_the_registry_and_a_tool_call_are_shown(demo):
    _r, made = demo
    shown = set(made.git("log", "--format=%(trailers:key=AI-Format,valueonly)").split())
    assert shown >= {*format_names(), "tool-call"}
    assert "AI-Model: claude-sonnet-4-5" in made.git("log", "-1", "--format=%B")


def test_the_files_hold_what_the_examples_say(demo):
    _r, made = demo
    tree = made.tree()
    assert "old_config.ini" not in tree and "docs/NOTES.txt" not in tree
    assert tree["docs/notes.md"][1] == (PROJECT["docs/NOTES.txt"] + "Done: the greeting comes "
                                        "from the GREETING environment variable.\n").encode()
    assert b'os.environ.get("GREETING", "Hello")' in tree["src/config.py"][1]
    util = tree["src/util.py"][1].decode().splitlines()
    at = util.index("def shout(text):")
    assert util[at - 1] == "# Loud on purpose." and util[at + 1] == '    return text.upper() + "!"'
    # the whole file the whole-format example gives is committed as given, then the
    # tool-call answer edits it
    whole = re.search(r"```python\n(.*?)```", example("08-whole.md"), re.S)[1]
    commits = made.git("log", "--reverse", "--format=%H").split()[1:]
    by_name = dict(zip(SHOWN, commits))
    assert made.git("show", f"{by_name['08-whole.md']}:tests/test_app.py") == whole
    assert tree["tests/test_app.py"][1].decode().endswith(
        'def test_shout():\n    assert shout("hi") == "HI!"\n')

