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
            with open(path, "rb") as f:
                data = f.read().strip()
        except OSError:
            return path
        # bytes, as git reads it: a file that is not text is no gitfile (never a decode
        # error); the path it names is decoded as the file system's names are
        if data.startswith(b"gitdir:"):
            target = os.fsdecode(data[len(b"gitdir:"):].strip())
            return os.path.normpath(os.path.join(os.path.dirname(path), target))
    return path
