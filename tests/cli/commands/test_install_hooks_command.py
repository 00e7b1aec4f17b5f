"""cli/commands/install_hooks.py: `git ai-apply install-hooks` installs the whole kit or the
--hook names given (each once), -q prints nothing, a hook name outside the kit and a hooks
folder that cannot be written are usage errors that install nothing."""
from __future__ import annotations

import os

import pytest

from conftest import GitRepo


@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "a\n")
    repo.commit_all("base")
    return repo


def kit_hooks(repo: GitRepo, folder: str = ".git/hooks") -> list[str]:
    where = repo.root / folder
    if not where.is_dir():
        return []
    return sorted(n for n in os.listdir(where)
                  if "git-ai-apply hook kit" in (where / n).read_text(errors="replace"))


def test_a_hook_named_twice_is_installed_once(based: GitRepo):
    r = based.run("install-hooks", "--hook", "pre-commit", "--hook", "pre-commit")
    assert r.returncode == 0, r.err
    assert r.out == "installed .git/hooks/pre-commit\n"
    assert kit_hooks(based) == ["pre-commit"]
    r = based.run("install-hooks", "--uninstall", "--hook", "pre-commit", "--hook", "pre-commit")
    assert r.returncode == 0, r.err
    assert len(r.out.splitlines()) == 1 and kit_hooks(based) == []


def test_quiet_installs_and_uninstalls_saying_nothing(based: GitRepo):
    r = based.run("install-hooks", "-q")
    assert (r.returncode, r.out, r.err) == (0, "", "")
    assert kit_hooks(based) == ["commit-msg", "pre-commit"]
    r = based.run("install-hooks", "--uninstall", "--quiet")
    assert (r.returncode, r.out, r.err) == (0, "", "")
    assert kit_hooks(based) == []


def test_a_hook_outside_the_kit_is_a_usage_error(based: GitRepo):
    r = based.run("install-hooks", "--hook", "pre-push")
    assert r.returncode == 2 and r.out == ""
    assert ("Invalid value for '--hook': 'pre-push' is not one of 'pre-commit', 'commit-msg'"
            in r.err)
    assert kit_hooks(based) == []


def test_a_hooks_folder_that_cannot_be_made_is_a_usage_error(based: GitRepo):
    based.write("hooks-here", "a file, not a folder\n")
    based.git("config", "core.hooksPath", "hooks-here")
    r = based.run("install-hooks")
    assert r.returncode == 2 and r.out == ""
    assert r.err.startswith(f"usage error: cannot change {based.root / 'hooks-here'}: ")
    assert "Traceback" not in r.err
    assert based.read("hooks-here") == b"a file, not a folder\n"
    assert kit_hooks(based) == []
