"""A ``.git`` file (``gitdir: PATH``), which linked worktrees, submodules and
``--separate-git-dir`` leave in place of the ``.git`` folder.  No pygit2 here: the
command's early index read (early_index.py) follows one before pygit2 is imported."""
from __future__ import annotations

import os


def gitfile_target(path: str) -> str:
    """``path`` itself, or the folder a gitfile (``gitdir: ...``) at ``path`` names
    (relative to the gitfile's folder, as git reads it)."""
    if os.path.isfile(path):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            return path
        if text.startswith("gitdir:"):
            target = text[len("gitdir:"):].strip()
            return os.path.normpath(os.path.join(os.path.dirname(path), target))
    return path
