"""Between blob content and worktree bytes, as ``git checkout`` and ``git add`` convert
them (gitattributes(5)): end-of-line conversion (``core.autocrlf``, ``core.eol``, the
``text``, ``eol`` and legacy ``crlf`` attributes) and clean/smudge filter drivers
(``filter.<driver>.clean`` / ``.smudge`` commands, run through the shell with ``%f``
replaced by the path, from the worktree root).

Order as in git: to the worktree, eol conversion then the smudge command; to git, the
clean command then eol conversion.  ``ident`` and long-running ``filter.<driver>.process``
filters are not supported: a path with a ``process``-only driver is a fatal error, so
nothing is ever written unconverted."""
from __future__ import annotations

import os

from ..errors import FatalError

# crlf actions (git's convert.c names)
BINARY, TEXT, TEXT_INPUT, TEXT_CRLF, AUTO, AUTO_INPUT, AUTO_CRLF = range(7)


def _stats(data: bytes) -> tuple[int, int, int, bool]:
    """(lone LFs, CRLFs, lone CRs, binary) as git's gather_stats counts them."""
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    cr = data.count(b"\r") - crlf
    return lf, crlf, cr, b"\0" in data or cr > 0


class Filters:
    """The conversions of one repository; cheap when nothing applies."""

    def __init__(self, repo):
        self.repo = repo
        self.autocrlf = (repo.config_get("core.autocrlf") or "false").lower()
        if self.autocrlf not in ("input",):
            self.autocrlf = "true" if repo.config_bool("core.autocrlf", False) else "false"
        self.core_eol = (repo.config_get("core.eol") or "native").lower()
        self._attrs: dict[str, tuple] = {}
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
        return self._head_tree is not None and rel in self._head_tree

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

    # -- blob -> worktree ------------------------------------------------------------
    def to_worktree(self, path: str, data: bytes) -> bytes:
        action, driver = self.attrs(path)
        if action != BINARY and self._worktree_eol_is_crlf(action):
            lf, crlf, cr, binary = _stats(data)
            auto = action in (AUTO, AUTO_CRLF, AUTO_INPUT)
            if lf and not (auto and (cr or crlf or binary)):
                data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n") if crlf \
                    else data.replace(b"\n", b"\r\n")
        if driver:
            data = self._run_driver(driver, "smudge", path, data)
        return data

    # -- worktree -> blob ------------------------------------------------------------
    def to_git(self, path: str, data: bytes, index_has_crlf=None) -> bytes:
        """``data`` as ``git add`` would store it; ``index_has_crlf()`` tells whether the
        version in the index holds CRs (text=auto then leaves CRLF alone, as git)."""
        action, driver = self.attrs(path)
        if driver:
            data = self._run_driver(driver, "clean", path, data)
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
        return action != BINARY or driver is not None

    def _run_driver(self, driver: str, which: str, path: str, data: bytes) -> bytes:
        cmd = self.repo.config_get(f"filter.{driver}.{which}")
        required = self.repo.config_bool(f"filter.{driver}.required", False)
        if not cmd:
            if self.repo.config_get(f"filter.{driver}.process"):
                raise FatalError(f"{path}: the filter '{driver}' is a long-running process "
                                 "filter (filter.{driver}.process), which git ai-apply cannot "
                                 "run; give it smudge and clean commands", kind="filter")
            if required:
                raise FatalError(f"{path}: {which} filter '{driver}' failed: no "
                                 f"filter.{driver}.{which} command is set", kind="filter")
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
                                 + (f": {err}" if err else ""), kind="filter")
            return data  # git passes the content through when an optional filter fails
        return p.stdout


def filters_of(repo) -> Filters:
    """The repository's Filters, made once per Repo."""
    f = getattr(repo, "_filters", None)
    if f is None:
        f = Filters(repo)
        repo._filters = f
    return f
