"""The config files git reads, in the order git reads them (git's config sequence), and
their settings as git sees them.  libgit2 chooses the files below the repository's own
by its own rules and knows neither ``GIT_CONFIG_GLOBAL``, ``GIT_CONFIG_SYSTEM`` nor
``GIT_CONFIG_NOSYSTEM``, and it skips ``includeIf "hasconfig:remote.*.url:PATTERN"``:
here each file is read by libgit2 (its syntax, ``include.path``, ``includeIf "gitdir:"``
and ``"onbranch:"``), in git's order, and a hasconfig include is followed as git follows
it.  The last value read wins, as in git.  (``git -c`` settings are git/config.py's.)"""
from __future__ import annotations

import os
import re
import stat

from ..errors import ErrorKind, FatalError
from .config import canonical_key, parse_bool

SYSTEM, XDG, GLOBAL, LOCAL, WORKTREE = 2, 3, 4, 5, 6  # libgit2's config levels
ETC_GITCONFIG = "/etc/gitconfig"  # git's ETC_GITCONFIG (and libgit2's system file)
_ENV = ("GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL")
_HASCONFIG = "includeif.hasconfig:remote.*.url:"
_MAX_INCLUDE_DEPTH = 10  # git's


def chosen_by_environment(env=None) -> bool:
    """Whether the environment chooses the files below the repository's own."""
    env = os.environ if env is None else env
    return any(k in env for k in _ENV)


def config_files(gitdir: str, commondir: str, env=None) -> list[tuple[int, str]]:
    """(level, path) of each file git reads, the one read first (the weakest) first:
    the system file (``GIT_CONFIG_SYSTEM``, none with ``GIT_CONFIG_NOSYSTEM``), the
    user's (``GIT_CONFIG_GLOBAL`` alone, else the XDG file and ``~/.gitconfig``), the
    repository's, and the worktree's (``config.worktree``, with
    ``extensions.worktreeConfig``)."""
    env = os.environ if env is None else env
    out: list[tuple[int, str]] = []
    if not parse_bool(env.get("GIT_CONFIG_NOSYSTEM", ""), "GIT_CONFIG_NOSYSTEM"):
        out.append((SYSTEM, env.get("GIT_CONFIG_SYSTEM", ETC_GITCONFIG)))
    home = env.get("HOME")
    if "GIT_CONFIG_GLOBAL" in env:
        out.append((GLOBAL, env["GIT_CONFIG_GLOBAL"]))
    else:
        xdg = env.get("XDG_CONFIG_HOME")
        if xdg or home:
            out.append((XDG, os.path.join(xdg or os.path.join(home, ".config"), "git", "config")))
        if home:
            out.append((GLOBAL, os.path.join(home, ".gitconfig")))
    local = os.path.join(commondir, "config")
    out.append((LOCAL, local))
    if _worktree_config(local):
        out.append((WORKTREE, os.path.join(gitdir, "config.worktree")))
    return out


def _worktree_config(local: str) -> bool:
    import pygit2

    try:
        return parse_bool(pygit2.Config(local)["extensions.worktreeconfig"],
                          "extensions.worktreeconfig")
    except (KeyError, ValueError, OSError, pygit2.GitError, FatalError):
        return False


# --------------------------------------------------------------------------- unchanged files

# the environment that chooses the files (config_files)
_STAMP_ENV = _ENV + ("HOME", "XDG_CONFIG_HOME")
_SETTLED_NS = 1_000_000_000  # a file changed less than this before a read: not trusted


def config_stamp(files: list[tuple[int, str]], gitdir: str, commondir: str,
                 since_ns: int) -> tuple | None:
    """What identifies the settings of ``files`` (config_files) without reading them: the
    environment that chooses the files, and the stat of each file and of the two that
    decide whether a worktree file is read (device, inode, size, mtime and ctime in
    nanoseconds; git config replaces a file by renaming a new one over it, an editor
    changes at least its ctime).  Take it before reading the files, with ``since_ns`` the
    time then: None when a file changed less than a second before (a write in the same
    clock tick as the read could leave the same stat: such a file is read again)."""
    paths = sorted({p for _level, p in files} | {os.path.join(commondir, "config"),
                                                 os.path.join(gitdir, "config.worktree")})
    sigs = _sigs(paths, since_ns)
    if sigs is None:
        return None
    return (tuple(os.environ.get(k) for k in _STAMP_ENV), tuple(paths), sigs)


def stamp_holds(stamp: tuple | None) -> bool:
    """Whether the files of ``stamp`` (config_stamp) are still exactly as stamped."""
    if stamp is None:
        return False
    env, paths, sigs = stamp
    import time

    return env == tuple(os.environ.get(k) for k in _STAMP_ENV) \
        and _sigs(paths, time.time_ns()) == sigs


def _sigs(paths, since_ns: int) -> tuple | None:
    out = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            out.append(None)  # not there (or not readable): git skips it
            continue
        if not stat.S_ISREG(st.st_mode):
            out.append(stat.S_IFMT(st.st_mode))  # /dev/null, a folder: no settings
            continue
        if max(st.st_mtime_ns, st.st_ctime_ns) >= since_ns - _SETTLED_NS:
            return None
        out.append((st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


def self_contained(settings: Settings) -> bool:
    """No include of any kind: the files read are the ones config_files names (an
    included file, or a missing one that may appear, is not in a stamp)."""
    return not any(e.name.startswith(("include.", "includeif.")) for e in settings)


class Entry:
    """One setting: its canonical name, and its value (None: given without one)."""

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: str | None):
        self.name, self.value = name, value


class Settings:
    """Every setting of the config files, in the order git reads them: ``settings[key]``
    is the last value (KeyError when unset), iterating gives every entry."""

    def __init__(self, entries: list[tuple[str, str | None]]):
        self._entries = entries
        self._last = dict(entries)

    def __getitem__(self, key: str) -> str | None:
        return self._last[canonical_key(key)]

    def __iter__(self):
        return (Entry(name, value) for name, value in self._entries)


def read_settings(repo, files: list[tuple[int, str]], cmdline: dict) -> Settings:
    """The settings of ``files`` (config_files) for pygit2 repository ``repo`` (which
    ``includeIf "gitdir:"`` and ``"onbranch:"`` ask), hasconfig includes followed with
    the remote URLs of every file and of ``cmdline`` (the ``git -c`` settings)."""
    read = [(level, _file_entries(repo, path, level)) for level, path in files]
    if not any(name.startswith(_HASCONFIG) for _l, entries in read for name, _v, _o in entries):
        return Settings([(name, value) for _l, entries in read for name, value, _o in entries])
    urls = [value for _l, entries in read for name, value, _o in entries if _is_url(name, value)]
    urls += [value for name, value in cmdline.items() if _is_url(name, value)]
    out: list[tuple[str, str | None]] = []
    for level, entries in read:
        _follow(repo, level, entries, urls, out, 0)
    return Settings(out)


def _is_url(name: str, value) -> bool:
    return bool(value) and name.startswith("remote.") and name.endswith(".url")


def _follow(repo, level: int, entries, urls: list[str], out: list, depth: int) -> None:
    """``entries`` into ``out``, each hasconfig include whose pattern a URL matches
    followed where it stands (git's include_by_remote_url)."""
    for name, value, origin in entries:
        out.append((name, value))
        if not (name.startswith(_HASCONFIG) and name.endswith(".path") and value):
            continue
        pattern = name[len(_HASCONFIG):-len(".path")]
        if not any(url_matches(pattern, url) for url in urls):
            continue
        if depth >= _MAX_INCLUDE_DEPTH:
            raise FatalError(f"exceeded maximum include depth ({_MAX_INCLUDE_DEPTH}) while "
                             f"including\n\t{value}\nfrom\n\t{origin}",
                             kind=ErrorKind.CONFIG)
        path = os.path.expanduser(value)
        if not os.path.isabs(path) and origin:
            path = os.path.join(os.path.dirname(origin), path)
        _follow(repo, level, _file_entries(repo, path, level), urls, out, depth + 1)


def _file_entries(repo, path: str, level: int) -> list[tuple[str, str | None, str | None]]:
    """(name, value, the file it stands in) of each setting of one file, in the file's
    order, its includes read in place by libgit2; a file that is not there has none."""
    import pygit2
    from pygit2._libgit2 import ffi, lib

    if not path or not os.path.isfile(path):
        return []  # missing, or not a file: git skips it
    cfg = pygit2.Config()
    err = lib.git_config_add_file_ondisk(cfg._c_config, os.fsencode(path), level,
                                         repo._repo if repo is not None else ffi.NULL, 0)
    if err < 0:
        raise _bad_file(path)
    out = []
    it = ffi.new("git_config_iterator **")
    if lib.git_config_iterator_new(it, cfg._c_config) < 0:
        raise _bad_file(path)
    entry = ffi.new("git_config_entry **")
    try:
        while lib.git_config_next(entry, it[0]) == 0:
            e = entry[0]
            value = ffi.string(e.value).decode("utf-8", "replace") if e.value != ffi.NULL else None
            origin = os.fsdecode(ffi.string(e.origin_path)) if e.origin_path != ffi.NULL else path
            out.append((ffi.string(e.name).decode("utf-8", "replace"), value, origin))
    finally:
        lib.git_config_iterator_free(it[0])
    return out


def _bad_file(path: str) -> FatalError:
    """git's words for a config file it cannot read (libgit2's reason after them)."""
    from pygit2._libgit2 import ffi, lib

    err = lib.git_error_last()
    reason = ffi.string(err.message).decode("utf-8", "replace") if err != ffi.NULL else ""
    line = re.search(r":(\d+), column", reason)
    if line:
        return FatalError(f"bad config line {line.group(1)} in file {path}", kind=ErrorKind.CONFIG)
    return FatalError(f"unable to read config file '{path}': {reason}", kind=ErrorKind.CONFIG)


def align_repository(repo, files: list[tuple[int, str]]) -> None:
    """Give libgit2's own reads (attributes, ignore files) the system and user files git
    reads: those levels of the repository's config replaced (a level git does not read,
    by an empty file)."""
    from pygit2._libgit2 import lib

    chosen = dict(files)
    cfg = repo.config
    for level in (SYSTEM, XDG, GLOBAL):
        path = chosen.get(level)
        if not path or not os.path.isfile(path):
            path = os.devnull
        lib.git_config_add_file_ondisk(cfg._c_config, os.fsencode(path), level, repo._repo, 1)


def url_matches(pattern: str, url: str) -> bool:
    """Whether ``url`` matches ``pattern`` as git's wildmatch with WM_PATHNAME matches it:
    ``*`` and ``?`` never match ``/``, ``**/`` and ``/**`` match across folders."""
    return _wildmatch_re(pattern).fullmatch(url) is not None


def _wildmatch_re(pattern: str) -> re.Pattern:
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            bounded = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if j - i >= 2 and bounded:
                # "**/": no folder or any; "/**" at the end: anything
                out.append("(?:.*/)?" if j < n else ".*")
                i = j + 1 if j < n else j
                continue
            out.append("[^/]*")
            i = j
            continue
        if c == "?":
            out.append("[^/]")
        elif c == "[":
            cls, i = _bracket(pattern, i)
            out.append(cls)
            continue
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("".join(out), re.S)


def _bracket(pattern: str, i: int) -> tuple[str, int]:
    """A ``[...]`` class at ``i`` as a regular expression class that never matches
    ``/``, and where the pattern goes on; an unclosed one matches nothing (git aborts)."""
    j = i + 1
    negate = j < len(pattern) and pattern[j] in "!^"
    if negate:
        j += 1
    start = j
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    if j >= len(pattern):
        return "(?!)", len(pattern)
    body = "".join("\\" + ch if ch in "\\^[]" else ch for ch in pattern[start:j])
    return (f"[^/{body}]" if negate else f"(?!/)[{body}]"), j + 1
