"""Running the repository's hooks as ``git commit`` does (githooks(5)).

Hooks come from ``core.hooksPath`` (relative to the worktree root) or the ``hooks``
folder of the common git dir; a hook that is not executable is ignored, as git does.
They run from the worktree root with ``GIT_INDEX_FILE`` pointing at the index being
committed, ``GIT_EDITOR=:``, the author variables, ``GIT_AI_APPLY=1`` and
``GIT_AI_APPLY_FORMAT``.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass


@dataclass
class HookResult:
    name: str
    returncode: int
    output: str


def hooks_dir(repo) -> str:
    """The folder hooks are read from (``repo`` is a ``git.Repo``)."""
    configured = repo.config_get("core.hooksPath")
    if configured:
        configured = os.path.expanduser(configured)
        base = repo.workdir or repo.gitdir
        return os.path.normpath(os.path.join(base, configured))
    return os.path.join(repo.commondir, "hooks")


def find_hook(repo, name: str) -> str | None:
    path = os.path.join(hooks_dir(repo), name)
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return path
    return None


def run_hook(repo, name: str, args: list[str], env: dict[str, str], stdin: bytes | None = None) -> HookResult | None:
    """Run hook ``name`` if present; None when there is no such hook."""
    path = find_hook(repo, name)
    if path is None:
        return None
    full_env = dict(os.environ)
    full_env.update(env)
    cwd = repo.workdir or repo.gitdir
    try:
        r = subprocess.run([path, *args], cwd=cwd, env=full_env, input=stdin or b"",
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as e:
        return HookResult(name, 126, f"cannot run the {name} hook: {e.strerror}\n")
    return HookResult(name, r.returncode, r.stdout.decode("utf-8", "replace"))
