"""git's pager and colours for what the command prints: ``color.diff`` / ``color.ui`` and
``GIT_PAGER`` / ``core.pager`` / ``PAGER``, read from the repository's config (so this lives
in the command line, above git/; run/term.py only writes lines)."""
from __future__ import annotations

import os
import sys


def _color_setting(repo, key: str) -> str | None:
    """A bool-or-auto colour setting as git reads it (git_config_colorbool): never, always
    or auto by name, in any case; anything else a boolean, an empty value false, true
    meaning auto (git since 1.8.4)."""
    value = repo.config_get(key)
    if value is None:
        return None
    v = str(value).strip().lower()
    if v in ("always", "never", "auto"):
        return v
    return "auto" if repo.config_bool(key) else "never"


def diff_color(repo, stream=None) -> bool:
    """Whether a diff printed to ``stream`` (stdout) gets git's colours: color.diff, then
    color.ui (default auto: only on a terminal, and never when TERM is dumb)."""
    stream = stream or sys.stdout
    setting = _color_setting(repo, "color.diff") or _color_setting(repo, "color.ui") or "auto"
    if setting == "always":
        return True
    if setting == "never":
        return False
    return stream.isatty() and os.environ.get("TERM", "dumb") != "dumb"


def pager_command(repo) -> str | None:
    """git's pager: GIT_PAGER, core.pager, PAGER, then less; None for no pager."""
    env = os.environ
    pager = env.get("GIT_PAGER")
    if pager is None:
        pager = repo.config_get("core.pager")
    if pager is None:
        pager = env.get("PAGER")
    if pager is None:
        pager = "less"
    pager = pager.strip()
    if not pager or pager == "cat":
        return None
    return pager


def print_paged(text: str) -> None:
    """Print ``text`` to stdout, through git's pager when stdout is a terminal (with
    git's defaults LESS=FRX and LV=-c, so a short diff does not wait for a key)."""
    if not text:
        return
    pager = None
    if sys.stdout.isatty():
        try:
            from ..git.repo import Repo

            pager = pager_command(Repo("."))
        except Exception:
            pager = None
    if pager is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    import subprocess  # only with a pager: start-up time

    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    env.setdefault("LV", "-c")
    sys.stdout.flush()
    try:
        p = subprocess.Popen(["sh", "-c", pager], stdin=subprocess.PIPE, env=env)
    except OSError:
        sys.stdout.write(text)
        return
    try:
        p.communicate(text.encode("utf-8", "surrogateescape"))
    except BrokenPipeError:
        pass
    p.wait()
