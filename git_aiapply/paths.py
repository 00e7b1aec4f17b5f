"""Path safety: turn a path as a model wrote it into a safe repository-relative path.

``normalize_path`` is pure string logic (no filesystem access).  It returns the path
relative to the worktree root, with ``/`` separators and no leading ``./``, or raises
``ApplyError`` whose ``Problem`` says exactly why the path is refused.
``check_leading_folders`` then checks a normalized path's folders against what the tree
holds (a folder that is really a file, a link or a submodule), through a function the
caller passes, so it stays pure too.

Leniencies (what a model adds around a path):
- surrounding whitespace, and surrounding quotes or backticks (``"a.py"``, ``'a.py'``,
  `` `a.py` ``), also nested; a double-quoted path in git's C-style quoting
  (``"caf\\303\\251.txt"``, as ``git diff`` prints non-ASCII names) is unquoted (once,
  the outermost double quotes; an unknown escape leaves the text literal);
- a leading ``./`` (repeated);
- an absolute path inside the worktree is made relative to it.
The ``a/`` ``b/`` prefixes of diff headers are NOT stripped here (the diff parsers know
when they are prefixes; ``a/x`` is also an ordinary path).

Decisions (refusals a careful git user would expect, written down once):
- A backslash is refused, never taken as a separator: it is a legal filename
  character on Linux, but a model writing ``src\\a.py`` almost always means ``src/a.py``
  and guessing either way could write the wrong file.  The hint says to use ``/``.
- ``.`` and ``..`` components are refused anywhere, even where the path would stay
  inside the worktree (``a/../b``): a response should name each file plainly.
- A first component ``~`` is refused: it is not expanded, and a folder literally named
  ``~`` is never what was meant.
- Beyond the C0 controls and DEL, C1 controls (U+0080-U+009F) and the invisible
  bidirectional controls (U+202A-U+202E, U+2066-U+2069) are refused: they make a path
  display differently from what it is.  Other Unicode (letters, spaces inside names,
  emoji) is accepted as is; it is not normalised (NFC/NFD), since git stores bytes.
  Which tracked file a name means (another normalisation, or another case with
  core.ignorecase) needs the tree: the planner decides that (tracked_names.py).
- ``.git`` in any case or disguise is refused as any component, mirroring git's
  ``verify_path``: ``is_ntfs_dotgit`` (``.git`` or ``git~1`` followed only by dots and
  spaces, or by ``:`` and an alternate data stream) and ``is_hfs_dotgit`` (``.git`` with
  Unicode ignorable code points anywhere).  Slightly stricter than git, the two are
  combined (ignorables stripped, then the NTFS rule) and a name whose NFKC case-fold is
  ``.git`` (``．ｇｉｔ``) is refused too.  ``.gitignore``, ``.gitmodules``,
  ``.github``, ``.git-foo``, ``git~1x`` are ordinary names and accepted.
- ``cwd`` (optional) is for paths a person typed on the command line, relative to the
  current folder; paths in a response are always relative to the worktree root, so the
  parsers' paths are normalized without it.
- Git on Linux compares paths byte for byte, so the worktree prefix of an absolute path
  is compared exactly; the caller passes the worktree as git reports it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache

from .errors import ApplyError, Problem

MAX_COMPONENT_BYTES = 255  # NAME_MAX on common filesystems
MAX_PATH_BYTES = 4096  # PATH_MAX on Linux
# Longest text that can still quote a path of MAX_PATH_BYTES (git writes a byte as 4 chars
# \ooo), plus room for wrapping quotes; anything longer is refused before any work.
_MAX_RAW_CHARS = 4 * MAX_PATH_BYTES + 64

# Code points HFS+ ignores when comparing names (git utf8.c next_hfs_char).
HFS_IGNORABLES = frozenset(
    [0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
     0x206A, 0x206B, 0x206C, 0x206D, 0x206E, 0x206F, 0xFEFF]
)
# Invisible direction controls that reorder how a path is displayed.
BIDI_CONTROLS = frozenset([0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069])

_QUOTES = ('"', "'", "`")
_GIT_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_ESCAPE_OF = {byte: "\\" + letter for letter, byte in _GIT_ESCAPES.items()}

KindOf = Callable[[str], "str | None"]  # prefix -> 'file' | 'dir' | 'symlink' | 'submodule' | None


def display(raw: str) -> str:
    """``raw`` safe to print: control, bidi and unencodable characters escaped, so a hostile
    path cannot rewrite the terminal or hide what it is."""
    out = []
    for ch in raw:
        code = ord(ch)
        if _is_control(code) or code in BIDI_CONTROLS or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _refuse(raw: str, reason: str, hint: str | None = None) -> ApplyError:
    return ApplyError(Problem(reason, file=display(raw), hint=hint))


def _is_control(code: int) -> bool:
    return code < 0x20 or 0x7F <= code <= 0x9F


def quote_git_path(path: str) -> str:
    """A path as git prints it (quote_c_style, core.quotePath on): in double quotes with
    C escapes, and bytes above 0x7f as octal, when it holds any of them; the inverse of
    ``unquote_git_path``."""
    raw = path.encode("utf-8", "surrogateescape")
    if not any(b < 0x20 or b in (0x22, 0x5C, 0x7F) or b >= 0x80 for b in raw):
        return path
    out = []
    for b in raw:
        if b in _ESCAPE_OF:
            out.append(_ESCAPE_OF[b])
        elif b < 0x20 or b >= 0x7F:
            out.append(f"\\{b:03o}")
        else:
            out.append(chr(b))
    return '"' + "".join(out) + '"'


def read_quoted_path(s: str, i: int = 0, *, strict: bool = False) -> tuple[str | None, int]:
    """Decode git's C-style quoting of a path (``"tab\\there"``, ``"caf\\303\\251"``) that
    starts at ``s[i] == '"'``: (the path, the offset after its closing quote).

    The path is None when the quotes do not close.  ``strict`` (git's own unquote_c_style):
    None also for an unknown escape or bytes that are not UTF-8.  Otherwise, as a model's
    diff header is read: an unknown escape stands for its character, and bytes that are
    not UTF-8 are kept as surrogate escapes (the name round-trips to the same bytes)."""
    out = bytearray()
    j = i + 1
    n = len(s)
    errors = "strict" if strict else "surrogateescape"
    while j < n:
        ch = s[j]
        if ch == '"':
            try:
                return out.decode("utf-8", errors), j + 1
            except UnicodeDecodeError:
                return None, j + 1
        if ch == "\\" and j + 1 < n:
            esc = s[j + 1]
            if esc in _GIT_ESCAPES:
                out.append(_GIT_ESCAPES[esc])
                j += 2
                continue
            if _is_octal_escape(s[j + 1:j + 4]):
                out.append(int(s[j + 1:j + 4], 8))  # one byte of a UTF-8 sequence
                j += 4
                continue
            if strict:
                return None, j
            ch, j = esc, j + 1
        try:
            out += ch.encode("utf-8", errors)
        except UnicodeEncodeError:
            return None, j
        j += 1
    return None, n


def unquote_git_path(text: str) -> str | None:
    """The path that ``text``, a whole C-quoted path as git prints it, stands for; None
    when ``text`` is not one (not in double quotes, an unknown escape, bytes that are not
    UTF-8), so the caller can fall back to taking it literally."""
    if not text.startswith('"'):
        return None
    path, end = read_quoted_path(text, 0, strict=True)
    return path if end == len(text) else None


def _is_octal_escape(digits: str) -> bool:
    return len(digits) == 3 and "0" <= digits[0] <= "3" and all("0" <= c <= "7" for c in digits)


def _strip_wrapping(text: str) -> tuple[str, bool]:
    """Strip whitespace, matching surrounding quotes/backticks and leading ``./``, as often
    and in whatever order they nest; also say whether a ``./`` was dropped.  Git's C-style
    unquoting is tried once, on the outermost double quotes, which keeps this linear in
    the length of the (bounded) text."""
    text = text.strip()
    tried_git_quoting = False
    dropped_dot_slash = False
    while True:
        if len(text) >= 2 and text[0] in _QUOTES and text[-1] == text[0]:
            unquoted = None
            if text[0] == '"' and not tried_git_quoting:
                tried_git_quoting = True
                unquoted = unquote_git_path(text)
            text = (unquoted if unquoted is not None else text[1:-1]).strip()
        elif text.startswith("./"):
            dropped_dot_slash = True
            text = text[2:].strip()
        else:
            return text, dropped_dot_slash


def dotgit_disguise(name: str) -> str | None:
    """If the path component ``name`` is ``.git`` or one of its disguises, say which."""
    if name.isascii() and name[:1] not in (".", "g", "G"):
        return None  # fast path: an ASCII disguise starts with '.' or 'g'
    if name == ".git":
        return "'.git' is git's own folder"
    if name.lower() == ".git":
        return f"'{name}' is '.git' in another case"
    ntfs = _ntfs_dotgit(name)
    if ntfs:
        return f"'{name}' is {ntfs} (an NTFS disguise)"
    if name.isascii():
        return None
    stripped = "".join(ch for ch in name if ord(ch) not in HFS_IGNORABLES)
    if stripped != name and (stripped.lower() == ".git" or _ntfs_dotgit(stripped)):
        return f"'{display(name)}' is '.git' with invisible characters (an HFS+ disguise)"
    import unicodedata  # only reached for non-ASCII names

    folded = unicodedata.normalize("NFKC", stripped).casefold()
    if folded == ".git" or _ntfs_dotgit(folded):
        return f"'{display(name)}' looks like '.git' (a Unicode compatibility form)"
    return None


def _ntfs_dotgit(name: str) -> str | None:
    """git path.c ``is_ntfs_dotgit``: ``.git`` or ``git~1`` (any case) followed only by dots
    and spaces up to the end or a ``:`` (an alternate data stream)."""
    if name[:4].isascii() and name[:4].lower() == ".git":
        rest, what = name[4:], "'.git'"
    elif name[:5].isascii() and name[:5].lower() == "git~1":
        rest, what = name[5:], "'git~1', the 8.3 short name of '.git',"
    else:
        return None
    for ch in rest:
        if ch == ":":
            return what + " with an alternate data stream"
        if ch not in ". ":
            return None
    if rest:
        return what + " with trailing dots or spaces"
    return what


def _check_characters(raw: str, text: str) -> None:
    if text.isascii() and text.isprintable():
        return  # the common case, checked in C: no control character, nothing to decode
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _refuse(raw, "the path is not valid UTF-8 (it holds bytes that do not decode)",
                      "write the file name in UTF-8") from None
    for ch in text:
        code = ord(ch)
        if code == 0:
            raise _refuse(raw, "the path contains a NUL character")
        if _is_control(code):
            raise _refuse(raw, f"the path contains a control character (U+{code:04X})",
                          "file names may not hold control characters")
        if code in BIDI_CONTROLS:
            raise _refuse(raw, f"the path contains an invisible direction-control character (U+{code:04X})",
                          "it makes the path display differently from what it is")


def _is_drive_path(text: str) -> bool:
    return len(text) >= 2 and text[1] == ":" and text[0].isascii() and text[0].isalpha() \
        and (len(text) == 2 or text[2] in "/\\")


def _relative_to(raw: str, absolute: str, worktree: str) -> str:
    """``absolute`` made relative to ``worktree``; refused when it is outside."""
    root = worktree.rstrip("/") or "/"
    if not root.startswith("/"):
        raise _refuse(raw, f"the worktree '{display(worktree)}' is not an absolute path, "
                           "so an absolute path cannot be placed in it")
    prefix = root if root == "/" else root + "/"
    if absolute == root or absolute == prefix:
        raise _refuse(raw, "the path names the worktree root itself, not a file")
    if not absolute.startswith(prefix):
        raise _refuse(raw, f"the path is absolute and outside the worktree ({display(root)})",
                      "write paths relative to the worktree root")
    return absolute[len(prefix):]


def normalize_path(raw: str, *, worktree: str, cwd: str | None = None) -> str:
    """The repository-relative form of ``raw`` (see the module docstring), or ApplyError."""
    if not isinstance(raw, str):
        raise _refuse(repr(raw), "the path is not text")
    if len(raw) > _MAX_RAW_CHARS and len(raw.strip()) > _MAX_RAW_CHARS:
        raise _refuse(raw[:80] + "...", f"the path is longer than {MAX_PATH_BYTES} bytes")
    text, dropped_dot_slash = _strip_wrapping(raw)
    shown = raw.strip()
    if not text:
        raise _refuse(shown, "the path is empty", "name the file, relative to the worktree root")
    _check_characters(shown, text)
    absolute = text.startswith("/")
    if absolute:
        if dropped_dot_slash:  # './/a'
            raise _refuse(shown, "the path has an empty component ('//')", "use a single '/' between folders")
        # The rest is read as if written relative, so the result is a fixed point
        # ('/repo/./a' and './a' both give 'a').
        text, dropped_dot_slash = _strip_wrapping(_relative_to(shown, text, worktree))
        if text.startswith("/"):  # '/repo//a'
            raise _refuse(shown, "the path has an empty component ('//')", "use a single '/' between folders")
        if not text:
            raise _refuse(shown, "the path names the worktree root itself, not a file")
        _check_characters(shown, text)
    # From here on ``text`` is relative (to the worktree root, or to ``cwd``).
    if _is_drive_path(text):
        raise _refuse(shown, "the path is a Windows drive path",
                      "write paths relative to the worktree root, with '/' between folders")
    if "\\" in text:
        raise _refuse(shown, "the path contains a backslash",
                      "separate folders with '/' (a backslash is never taken as a separator)")
    if text.split("/", 1)[0] == "~":
        raise _refuse(shown, "the path starts with '~', which is not expanded",
                      "write paths relative to the worktree root")
    if cwd is not None and not absolute:
        text = _join_cwd(shown, text, worktree, cwd)
    if text.endswith("/"):
        raise _refuse(shown, "the path ends with '/', so it names a folder, not a file",
                      "name the file itself")
    folder, sep, name = text.rpartition("/")
    problem = (_folder_problem(folder) if sep else None) or _component_problem(name)
    if problem is not None:
        raise _refuse(shown, *problem)
    if len(text.encode("utf-8")) > MAX_PATH_BYTES:
        raise _refuse(shown, f"the path is longer than {MAX_PATH_BYTES} bytes")
    return text


def _join_cwd(shown: str, text: str, worktree: str, cwd: str) -> str:
    """``text`` (relative to ``cwd``) made relative to the worktree root."""
    stripped = cwd.strip()
    folder = stripped.rstrip("/") or stripped[:1]  # '/' stays '/'
    if folder in ("", ".") or folder == (worktree.rstrip("/") or "/"):
        return text  # at the worktree root
    return normalize_path(folder, worktree=worktree) + "/" + text


# The component checks are pure functions of the name, remembered (bounded): the files of
# a response share their folders, so a folder is checked once for all the files in it.
@lru_cache(maxsize=4096)
def _folder_problem(folder: str) -> tuple[str, str | None] | None:
    """Why a path's leading folders ``folder`` ('a/b') are refused, or None."""
    for name in folder.split("/"):
        problem = _component_problem(name)
        if problem is not None:
            return problem
    return None


@lru_cache(maxsize=4096)
def _component_problem(name: str) -> tuple[str, str | None] | None:
    """Why the path component ``name`` is refused (reason, hint), or None."""
    if name == "":
        return "the path has an empty component ('//')", "use a single '/' between folders"
    if name == "..":
        return ("the path has a '..' component; paths may not climb out of a folder",
                "name the file by its path from the worktree root")
    if name == ".":
        return "the path has a '.' component", "name the file by its path from the worktree root"
    if len(name.encode("utf-8")) > MAX_COMPONENT_BYTES:
        return f"the path has a component longer than {MAX_COMPONENT_BYTES} bytes", None
    disguise = dotgit_disguise(name)
    if disguise:
        return (f"the path has a '.git' component: {disguise}; "
                "ai-apply never writes inside a repository's git folder", None)
    return None


def check_leading_folders(path: str, kind_of: KindOf) -> None:
    """Refuse ``path`` (already normalized) when a leading folder of it is not a real
    folder: a file, a symbolic link or a submodule.  ``kind_of(prefix)`` tells what a
    path is ('file', 'dir', 'symlink', 'submodule' or None: absent); the planner passes
    one that sees the response's earlier operations, the base tree and the disk.  What
    the path itself may be (a folder cannot be written, a link may be deleted) is the
    caller's decision, since the refusal depends on what is done to it."""
    cut = path.find("/")
    while cut >= 0:
        prefix = path[:cut]
        cut = path.find("/", cut + 1)
        kind = kind_of(prefix)
        if kind == "symlink":
            raise _refuse(path, f"{prefix} is a symbolic link; ai-apply never writes through a link")
        if kind == "submodule":
            raise _refuse(path, f"{prefix} is a submodule; ai-apply never writes inside a submodule")
        if kind == "file":
            raise _refuse(path, f"{prefix} is a file, so it cannot hold {path}",
                          f"a folder is needed at {prefix}")
        if kind is None:
            return  # nothing below an absent folder exists yet


# Files git reads itself from the worktree, with their 8.3 short-name prefixes (git's
# is_ntfs_dotgitmodules and friends).
_GIT_DOTFILES = {".gitmodules": "gitmod", ".gitattributes": "gitatt", ".gitignore": "gitign",
                 ".mailmap": "mailma"}


def git_dotfile(name: str) -> str | None:
    """Which of _GIT_DOTFILES ``name`` is, in any case or NTFS/HFS+ disguise, or None."""
    n = "".join(ch for ch in name if ord(ch) not in HFS_IGNORABLES).lower()
    n = n.split(":", 1)[0].rstrip(". ")
    for full, short in _GIT_DOTFILES.items():
        if n == full or (len(n) == len(short) + 2 and n.startswith(short + "~") and n[-1] in "1234"):
            return full
    return None


# ------------------------------------------------------------ what the repository tracks

class TrackedKinds:
    """What the repository tracks at a path, as ``check_leading_folders``'s ``kind_of``
    answers: ``'file'``, ``'dir'`` (a folder holding tracked files) or None.
    ``list_paths`` gives the tracked files' paths; it is called once, and only when a
    path is first asked about (most responses never need it)."""

    def __init__(self, list_paths: Callable[[], "Iterable[str]"]):
        self._list_paths = list_paths
        self._kinds: dict[str, str] | None = None

    def __call__(self, path: str) -> str | None:
        if self._kinds is None:
            kinds: dict[str, str] = {}
            for p in self._list_paths():
                kinds[p] = "file"
                parts = p.split("/")
                for i in range(1, len(parts)):
                    kinds.setdefault("/".join(parts[:i]), "dir")
            self._kinds = kinds
        return self._kinds.get(path) if path else None


# The readers of a response's text ask what the repository tracks only to tell a path
# from prose (a path line with spaces, a file named in a sentence): the command sets
# this around parsing; without it (the library's parse, a test) nothing is tracked.
_KNOWN_PATHS: ContextVar[KindOf | None] = ContextVar("known_paths", default=None)
# the worktree root folder's name (Zed writes paths beginning with it)
_FOLDER: ContextVar[str | None] = ContextVar("worktree_folder", default=None)


@contextmanager
def known_paths(kind_of: KindOf, folder: str | None = None) -> Iterator[None]:
    """While parsing: ``kind_of`` says what the repository tracks at a path; ``folder`` is
    the worktree root folder's name."""
    token = _KNOWN_PATHS.set(kind_of)
    folder_token = _FOLDER.set(folder or None)
    try:
        yield
    finally:
        _FOLDER.reset(folder_token)
        _KNOWN_PATHS.reset(token)


def worktree_folder() -> str | None:
    """The worktree root folder's name while parsing (``known_paths``), else None."""
    return _FOLDER.get()


def tracked_kind(path: str) -> str | None:
    """What the repository tracks at ``path`` (``'file'``, ``'dir'``), None when nothing
    or when parsing without a repository."""
    kind_of = _KNOWN_PATHS.get()
    return kind_of(path) if kind_of is not None else None


def knows_tracked() -> bool:
    """Whether the parse runs with a repository's tracked paths (``known_paths``)."""
    return _KNOWN_PATHS.get() is not None
