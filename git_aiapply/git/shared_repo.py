"""``core.sharedRepository``: the modes git gives what it writes in a repository shared
by a group or by everybody (git's git_config_perm and adjust_shared_perm).  libgit2
writes objects, refs, reflogs and the index with the umask's modes only; what the tool
writes is given git's modes here, right after it is written."""
from __future__ import annotations

import os
import re
import stat

from ..errors import ErrorKind, FatalError
from .config import parse_bool

UMASK, GROUP, EVERYBODY = 0, 0o660, 0o664  # git's PERM_UMASK, PERM_GROUP, PERM_EVERYBODY


def shared_setting(value: str | None) -> int:
    """``core.sharedRepository`` as git reads it: 0 (the umask decides), 0660 (group),
    0664 (everybody), or minus an exact mode (``0640``: files get exactly that)."""
    if value is None:
        return GROUP
    if value == "umask":
        return UMASK
    if value == "group":
        return GROUP
    if value in ("all", "world", "everybody"):
        return EVERYBODY
    if not re.fullmatch(r"\s*[+-]?[0-7]*", value):  # strtol in base 8 stopped early
        return GROUP if parse_bool(value, "core.sharedrepository") else UMASK
    number = int(value, 8) if value.strip(" \t+-") else 0
    if number in (0, 1, 2):  # git's compatibility values
        return (UMASK, GROUP, EVERYBODY)[number]
    if number & 0o600 != 0o600:
        raise FatalError(f"problem with core.sharedRepository filemode value (0{number:03o}).\n"
                         "The owner of files must always have read and write permissions.",
                         kind=ErrorKind.CONFIG)
    return -(number & 0o666)


def shared_mode(mode: int, shared: int) -> int:
    """The mode git's adjust_shared_perm gives a file or folder of mode ``mode``."""
    tweak = -shared if shared < 0 else shared
    if not mode & stat.S_IWUSR:
        tweak &= ~0o222
    if mode & stat.S_IXUSR:
        tweak |= (tweak & 0o444) >> 2  # read bits copied to execute bits
    new = (mode & ~0o777) | tweak if shared < 0 else mode | tweak
    if stat.S_ISDIR(mode):
        new |= (new & 0o444) >> 2
        new |= stat.S_ISGID
    return new


def adjust(path: str, shared: int) -> None:
    """Give ``path`` the shared mode (nothing when the umask decides, or the path is
    gone).  Best effort, as the write it follows is done: a failure leaves the mode."""
    if not shared:
        return
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            return
        new = shared_mode(mode, shared)
        if (mode ^ new) & ~stat.S_IFMT(mode):
            os.chmod(path, stat.S_IMODE(new))
    except OSError:
        pass


def missing_folders(path: str, top: str) -> list[str]:
    """The folders between ``top`` (excluded) and ``path``'s own folder that do not
    exist yet, the outermost first: the ones a write of ``path`` will create."""
    out = []
    d = os.path.dirname(path)
    top = os.path.normpath(top)
    while d.startswith(top + os.sep) and not os.path.isdir(d):
        out.append(d)
        d = os.path.dirname(d)
    return out[::-1]
