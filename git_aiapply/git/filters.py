"""Between blob content and worktree bytes, as ``git checkout`` and ``git add`` convert
them (gitattributes(5)): end-of-line conversion (``core.autocrlf``, ``core.eol``, the
``text``, ``eol`` and legacy ``crlf`` attributes) and clean/smudge filter drivers
(``filter.<driver>.clean`` / ``.smudge`` commands, run through the shell with ``%f``
replaced by the path, from the worktree root).

The ``ident`` attribute (``$Id$`` expanded to the blob's id on checkout, collapsed back
on add) and ``working-tree-encoding`` (files kept in another encoding on disk, UTF-8 in
git) are honoured as git honours them (convert.c).

Order as in git: to the worktree, ident, eol conversion, the encoding, then the smudge
command; to git, the clean command, the encoding, eol conversion, then ident.
Long-running ``filter.<driver>.process`` filters are not supported: a path with a
``process``-only driver is a fatal error, so nothing is ever written unconverted."""
from __future__ import annotations

import codecs
import os
import sys

import pygit2

from ..errors import ApplyError, ErrorKind, FatalError, Problem

# crlf actions (git's convert.c names)
BINARY, TEXT, TEXT_INPUT, TEXT_CRLF, AUTO, AUTO_INPUT, AUTO_CRLF = range(7)


def _stats(data: bytes) -> tuple[int, int, int, bool]:
    """(lone LFs, CRLFs, lone CRs, binary) as git's gather_stats counts them."""
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    cr = data.count(b"\r") - crlf
    return lf, crlf, cr, b"\0" in data or cr > 0


# -- ident (git's convert.c: ident_to_worktree / ident_to_git) ----------------------


def ident_to_git(data: bytes) -> bytes:
    """Every ``$Id: ... $`` (no line break inside) collapsed to ``$Id$``."""
    if b"$Id" not in data:
        return data
    out, at = [], 0
    while True:
        dollar = data.find(b"$", at)
        if dollar < 0:
            break
        out.append(data[at:dollar + 1])
        at = dollar + 1
        if data.startswith(b"Id:", at):
            end = data.find(b"$", at + 3)
            if end < 0:
                break
            if b"\n" not in data[at + 3:end]:
                out.append(b"Id$")
                at = end + 1
    out.append(data[at:])
    return b"".join(out)


def ident_to_worktree(data: bytes) -> bytes:
    """Every ``$Id$`` (and git-style ``$Id: xxx $``) as ``$Id: <blob id> $``; an id of
    another versioning system (spaces inside) is kept."""
    if b"$Id" not in data:
        return data
    blob_id = str(pygit2.hash(data)).encode()
    out, at = [], 0
    while True:
        dollar = data.find(b"$", at)
        if dollar < 0:
            break
        out.append(data[at:dollar + 1])
        at = dollar + 1
        if not data.startswith(b"Id", at) or len(data) - at < 3:
            continue
        if data[at + 2:at + 3] == b"$":
            at += 3
        elif data[at + 2:at + 3] == b":":
            end = data.find(b"$", at + 3)
            if end < 0:
                break
            if b"\n" in data[at + 3:end] or b" " in data[at + 4:end - 1]:
                continue  # a line break, or a foreign id: left as it is
            at = end + 1
        else:
            continue
        out.append(b"Id: " + blob_id + b" $")
    out.append(data[at:])
    return b"".join(out)


def ident_to_worktree_streamed(data: bytes) -> bytes:
    """The same expansion as `git checkout` streams it (convert.c's ident_filter_fn, used
    when no filter driver, encoding or auto eol needs the whole file): a ``$`` that
    breaks a ``$Id`` prefix is not looked at again, so ``$$Id$`` stays as it is."""
    if b"$Id" not in data:
        return data
    expansion = b": " + str(pygit2.hash(data)).encode() + b" $"
    out, i, n = bytearray(), 0, len(data)
    while i < n:
        if not data.startswith(b"$Id", i):
            prefix = 2 if data.startswith(b"$I", i) else 1 if data[i:i + 1] == b"$" else 0
            out += data[i:i + prefix + 1]  # the breaking character is not looked at again
            i += prefix + 1
            continue
        after = data[i + 3:i + 4]
        if after == b"$":
            out += b"$Id" + expansion
            i += 4
        elif after == b":":
            end = i + 4
            while end < n and data[end] not in b"$\n":
                end += 1
            kept = data[i:end + 1]
            out += b"$Id" + expansion if kept.endswith(b"$") and not _foreign(kept) else kept
            i = end + 1
        else:
            out += data[i:i + 4]
            i += 4
    return bytes(out)


def _foreign(keyword: bytes) -> bool:
    """convert.c's is_foreign_ident: ``$Id: `` then whitespace not just before the end."""
    if not keyword.startswith(b"$Id: "):
        return False
    rest = keyword[5:]
    return any(c in b" \t\n\v\f\r" and rest[k + 1:k + 2] != b"$" for k, c in enumerate(rest))


# -- working-tree-encoding (git's convert.c: encode_to_git / encode_to_worktree) -------

_BOMS = {"utf-16": (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE),
         "utf-32": (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)}


def _codec_name(encoding: str) -> str:
    """Python's name for an iconv encoding name (git's names: UTF-16LE-BOM too)."""
    name = encoding.strip().lower().replace("_", "-")
    if name == "utf-16le-bom":
        return name
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise FatalError(f"failed to encode to or from '{encoding}': an encoding git ai-apply "
                         "does not know (working-tree-encoding)", kind=ErrorKind.FILTER) from None


def is_utf8(encoding: str) -> bool:
    return encoding.strip().lower().replace("_", "-") in ("utf-8", "utf8")


def decode_to_git(path: str, data: bytes, encoding: str) -> bytes | None:
    """The UTF-8 git stores for ``data`` read from disk in ``encoding``; None where git
    would refuse it (a BOM missing or prohibited, bytes not in that encoding)."""
    name = _codec_name(encoding)
    family = name.replace("-le", "").replace("-be", "")
    if family in _BOMS:
        has_bom = data.startswith(_BOMS[family])
        if has_bom != (name == family):  # BOM required in UTF-16/32, prohibited in LE/BE
            return None
    if name == "utf-16le-bom":
        if not data.startswith(codecs.BOM_UTF16_LE):
            return None
        data, name = data[2:], "utf-16-le"
    try:
        return data.decode(name).encode("utf-8")
    except (UnicodeDecodeError, ValueError):
        return None


def encode_to_worktree(path: str, data: bytes, encoding: str) -> bytes:
    """``data`` (UTF-8, from git) as written to disk in ``encoding``; content that
    encoding cannot hold refuses the response, as git fails to check it out."""
    name = _codec_name(encoding)
    bom = b""
    if name == "utf-16le-bom":
        bom, name = codecs.BOM_UTF16_LE, "utf-16-le"
    try:
        return bom + data.decode("utf-8").encode(name)
    except (UnicodeDecodeError, UnicodeEncodeError) as e:
        raise ApplyError(Problem(
            f"the new content cannot be written in the file's encoding {encoding} "
            f"(working-tree-encoding in .gitattributes): {e.object[e.start:e.end]!r} "
            f"({e.reason})", file=path,
            hint=f"use only characters {encoding} can hold")) from None


class Filters:
    """The conversions of one repository; cheap when nothing applies."""

    def __init__(self, repo):
        self.repo = repo
        self.autocrlf = (repo.config_get("core.autocrlf") or "false").lower()
        if self.autocrlf not in ("input",):
            self.autocrlf = "true" if repo.config_bool("core.autocrlf", False) else "false"
        self.core_eol = (repo.config_get("core.eol") or "native").lower()
        self._attrs: dict[str, tuple] = {}
        self._extras: dict[str, tuple] = {}
        self._shared_sources: bool | None = None  # info/attributes, global, system
        self._folder_has: dict[str, bool] = {}  # folder -> it has a .gitattributes
        self._head_tree = False  # HEAD's tree, read once (None: unborn)

    # libgit2's first attribute lookup reads the whole index (about 80 ms at 100,000
    # files, as long again as the rest of a one-edit run), so a path no attributes file
    # can speak of is answered without asking it.
    def _may_have_attributes(self, path: str) -> bool:
        if self._shared_sources is None:
            self._shared_sources = self._any_shared_source()
        if self._shared_sources:
            return True
        folder = path.rpartition("/")[0]
        while True:
            has = self._folder_has.get(folder)
            if has is None:
                has = self._folder_has[folder] = self._has_attributes_file(folder)
            if has:
                return True
            if not folder:
                return False
            folder = folder.rpartition("/")[0]

    def _has_attributes_file(self, folder: str) -> bool:
        """A .gitattributes in ``folder`` on disk or in HEAD's tree (either may be what the
        index holds; a file staged and then removed from both is the one case missed)."""
        rel = f"{folder}/.gitattributes" if folder else ".gitattributes"
        workdir = self.repo.workdir
        if workdir and os.path.lexists(os.path.join(workdir, rel)):
            return True
        if self._head_tree is False:
            try:
                self._head_tree = self.repo.repo.head.peel().tree
            except Exception:  # unborn HEAD: nothing committed to look in
                self._head_tree = None
        # interned: pygit2 keeps the path a Tree lookup is given (state.tree_entry)
        return self._head_tree is not None and sys.intern(rel) in self._head_tree

    def _any_shared_source(self) -> bool:
        """Whether an attributes file outside the worktree exists: $GIT_DIR/info/attributes,
        core.attributesFile (or its XDG default), the system gitattributes."""
        candidates = [os.path.join(self.repo.gitdir, "info", "attributes"),
                      os.path.join(self.repo.commondir, "info", "attributes")]
        if self.repo.config_get("core.attributesFile") is not None:
            return True
        try:
            import pygit2
            from pygit2.enums import ConfigLevel

            for level in (ConfigLevel.XDG, ConfigLevel.SYSTEM):
                name = "attributes" if level == ConfigLevel.XDG else "gitattributes"
                for folder in (pygit2.settings.search_path[level] or "").split(os.pathsep):
                    if folder:
                        candidates.append(os.path.join(folder, name))
        except Exception:  # cannot tell where libgit2 looks: ask it for every path
            return True
        return any(os.path.exists(c) for c in candidates)

    def _attr(self, path: str, name: str):
        try:
            return self.repo.repo.get_attr(path, name)
        except Exception:  # an unreadable attributes file: git ignores it too
            return None

    def attrs(self, path: str) -> tuple[int, str | None]:
        """(crlf action, filter driver name or None) for ``path``."""
        got = self._attrs.get(path)
        if got is not None:
            return got
        if not self._may_have_attributes(path):
            action = {"true": AUTO_CRLF, "input": AUTO_INPUT}.get(self.autocrlf, BINARY)
            got = self._attrs[path] = (action, None)
            return got
        text = self._attr(path, "text")
        if text is None:
            text = self._attr(path, "crlf")  # legacy: crlf = text, -crlf = -text
            if text == "input":
                text = True
                eol = "lf"
            else:
                eol = None
        else:
            eol = None
        eol = eol or self._attr(path, "eol")
        if text is True:
            action = TEXT
        elif text is False:
            action = BINARY
        elif text == "auto":
            action = AUTO
        else:
            action = None
        if eol in ("lf", "crlf") and action != BINARY:
            if action in (None, TEXT):
                action = TEXT_CRLF if eol == "crlf" else TEXT_INPUT
            else:
                action = AUTO_CRLF if eol == "crlf" else AUTO_INPUT
        if action is None:
            if self.autocrlf == "true":
                action = AUTO_CRLF
            elif self.autocrlf == "input":
                action = AUTO_INPUT
            else:
                action = BINARY
        driver = self._attr(path, "filter")
        got = (action, driver if isinstance(driver, str) else None)
        self._attrs[path] = got
        return got

    def _worktree_eol_is_crlf(self, action: int) -> bool:
        if action in (TEXT_CRLF, AUTO_CRLF):
            return True
        if action in (TEXT_INPUT, AUTO_INPUT, BINARY):
            return False
        # TEXT / AUTO without an eol attribute: core.autocrlf, then core.eol
        if self.autocrlf == "true":
            return True
        if self.autocrlf == "input":
            return False
        return self.core_eol == "crlf"

    def extras(self, path: str) -> tuple[str | None, bool]:
        """(working-tree-encoding other than UTF-8 or None, ident set) for ``path``."""
        got = self._extras.get(path)
        if got is None:
            encoding, ident = None, False
            if self._may_have_attributes(path):
                value = self._attr(path, "working-tree-encoding")
                if isinstance(value, str) and value and not is_utf8(value):
                    encoding = value
                ident = self._attr(path, "ident") is True
            got = self._extras[path] = (encoding, ident)
        return got

    # -- blob -> worktree ------------------------------------------------------------
    def to_worktree(self, path: str, data: bytes) -> bytes:
        action, driver = self.attrs(path)
        encoding, ident = self.extras(path)
        if ident:
            streamed = not (encoding or driver or action in (AUTO, AUTO_CRLF))
            data = ident_to_worktree_streamed(data) if streamed else ident_to_worktree(data)
        if action != BINARY and self._worktree_eol_is_crlf(action):
            lf, crlf, cr, binary = _stats(data)
            auto = action in (AUTO, AUTO_CRLF, AUTO_INPUT)
            if lf and not (auto and (cr or crlf or binary)):
                data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n") if crlf \
                    else data.replace(b"\n", b"\r\n")
        if encoding and data:
            data = encode_to_worktree(path, data, encoding)
        if driver:
            data = self._run_driver(driver, "smudge", path, data)
        return data

    # -- worktree -> blob ------------------------------------------------------------
    def to_git(self, path: str, data: bytes, index_has_crlf=None) -> bytes:
        """``data`` as ``git add`` would store it; ``index_has_crlf()`` tells whether the
        version in the index holds CRs (text=auto then leaves CRLF alone, as git)."""
        action, driver = self.attrs(path)
        encoding, ident = self.extras(path)
        if driver:
            data = self._run_driver(driver, "clean", path, data)
        if encoding and data:
            # git refuses to add such a file; for a comparison it is taken as it is
            # (so it differs from what git holds, as `git status` says too)
            decoded = decode_to_git(path, data, encoding)
            data = data if decoded is None else decoded
        data = self._eol_to_git(action, data, index_has_crlf)
        return ident_to_git(data) if ident else data

    @staticmethod
    def _eol_to_git(action: int, data: bytes, index_has_crlf) -> bytes:
        if action == BINARY or b"\r\n" not in data:
            return data
        if action in (AUTO, AUTO_CRLF, AUTO_INPUT):
            _lf, _crlf, _cr, binary = _stats(data)
            if binary or (index_has_crlf is not None and index_has_crlf()):
                return data
        return data.replace(b"\r\n", b"\n")

    def converts(self, path: str) -> bool:
        """Whether ``path`` has any conversion at all (the fast path skips hashing twice)."""
        action, driver = self.attrs(path)
        return action != BINARY or driver is not None or self.extras(path) != (None, False)

    def _run_driver(self, driver: str, which: str, path: str, data: bytes) -> bytes:
        cmd = self.repo.config_get(f"filter.{driver}.{which}")
        required = self.repo.config_bool(f"filter.{driver}.required", False)
        if not cmd:
            if self.repo.config_get(f"filter.{driver}.process"):
                raise FatalError(f"{path}: the filter '{driver}' is a long-running process "
                                 "filter (filter.{driver}.process), which git ai-apply cannot "
                                 "run; give it smudge and clean commands", kind=ErrorKind.FILTER)
            if required:
                raise FatalError(f"{path}: {which} filter '{driver}' failed: no "
                                 f"filter.{driver}.{which} command is set", kind=ErrorKind.FILTER)
            return data  # git: a driver without that command leaves the content as it is
        import subprocess

        quoted = "'" + path.replace("'", "'\\''") + "'"
        argv = ["sh", "-c", cmd.replace("%f", quoted)]
        try:
            p = subprocess.run(argv, input=data, capture_output=True,
                               cwd=self.repo.workdir or self.repo.gitdir)
        except OSError as e:
            p = None
            err = e.strerror
        else:
            err = p.stderr.decode("utf-8", "replace").strip()
        if p is None or p.returncode != 0:
            if required or p is None:
                raise FatalError(f"{path}: {which} filter '{driver}' failed"
                                 + (f" (exit {p.returncode})" if p is not None else "")
                                 + (f": {err}" if err else ""), kind=ErrorKind.FILTER)
            return data  # git passes the content through when an optional filter fails
        return p.stdout


def filters_of(repo) -> Filters:
    """The repository's Filters, made once per Repo."""
    f = getattr(repo, "_filters", None)
    if f is None:
        f = Filters(repo)
        repo._filters = f
    return f
