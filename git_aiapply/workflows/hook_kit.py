"""The hook kit: `git ai-apply install-hooks` and the checks its hooks run.

The kit's scripts are the files of the project's top-level ``hooks/`` folder, shipped
inside the package as ``git_aiapply/kit/`` (pyproject maps that package onto ``hooks/``).
``install-hooks`` copies them into the hooks folder git uses (``core.hooksPath`` or the
common git dir's ``hooks``), records the running Python so that the hooks find this
installation, and keeps an existing hook as ``NAME.before-ai-apply``, which the kit's
hook runs first; ``--uninstall`` puts it back.  Where the pre-commit framework owns the
hooks (a ``.pre-commit-config.yaml``, or its own script installed as the hook), the kit
installs no hook the framework would move aside (its installer keeps a hook it replaces
as ``NAME.legacy``, still run): it prints the ``ai-apply-guard`` entry to add to that
file instead; ``--uninstall`` also removes a kit hook the framework kept as ``NAME.legacy``.

``git ai-apply hook guard`` (pre-commit, and the pre-commit framework through
``.pre-commit-hooks.yaml``) refuses leftover edit markup in what is being committed;
``git ai-apply hook commit-msg FILE`` checks the AI-* trailers.  Both talk to git through
the ``git`` command, so they see exactly what git sees (``GIT_INDEX_FILE``, worktrees).
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess

from ..errors import UsageError
from ..git.journal import temp_name
from ..paths import read_quoted_path
from ..text import read_hunk_header

KIT_HOOKS = ("pre-commit", "commit-msg")
MARKER = "git-ai-apply hook kit"
CHAINED_SUFFIX = ".before-ai-apply"
PYTHON_LINE = "AI_APPLY_PYTHON=''"
GUARD_ID = "ai-apply-guard"  # .pre-commit-hooks.yaml's id; SKIP=ai-apply-guard skips it

# The pre-commit framework (pre-commit.com): the file that says a repository uses it, the
# name its installer gives the hook it replaces (and still runs), and the ids its hook
# scripts carry (its install_uninstall.py: CURRENT_HASH, then PRIOR_HASHES), by which
# it knows its own scripts, as the kit knows its own by MARKER.
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
LEGACY_SUFFIX = ".legacy"
_PRE_COMMIT_IDS = (b"138fd403232d2ddd5efb44317e38bf03", b"4d9958c90bc262f47553e2c073f14cfe",
                   b"d8ee923c46731b42cd95cc869add4062", b"49fd668cb42069aa1b6048464be5d395",
                   b"79f09a650522a87b0da915d0d983b2de", b"e358c9dae00eac5d06b38dfdb1e33a8c")
GUARD_SNIPPET = f"""\
  - repo: local
    hooks:
      - id: {GUARD_ID}
        name: no leftover AI edit markup
        entry: git-ai-apply hook guard
        language: system
        types: [text]"""


# --------------------------------------------------------------------------- the kit files


def kit_dir() -> str:
    """Where the kit's scripts are: inside the installed package, or the source tree's
    ``hooks/`` (an editable install or a checkout)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # git_aiapply/
    for cand in (os.path.join(package, "kit"), os.path.join(os.path.dirname(package), "hooks")):
        if os.path.isfile(os.path.join(cand, "pre-commit")):
            return cand
    raise UsageError("the hook kit's files are missing from this installation of git-ai-apply "
                     f"(looked in {os.path.join(package, 'kit')})")


def kit_script(name: str, python: str | None) -> str:
    with open(os.path.join(kit_dir(), name), encoding="utf-8") as f:
        text = f.read()
    if python:
        if PYTHON_LINE not in text:
            raise UsageError(f"the kit's {name} hook has no {PYTHON_LINE} line to fill in")
        text = text.replace(PYTHON_LINE, f"AI_APPLY_PYTHON={shlex.quote(python)}", 1)
    return text


def is_kit_hook(path: str) -> bool:
    return MARKER.encode() in _head(path, 400)


def is_pre_commit_hook(path: str) -> bool:
    """Whether ``path`` is a hook script the pre-commit framework installed."""
    head = _head(path, 8192)
    return any(i in head for i in _PRE_COMMIT_IDS)


def _head(path: str, n: int) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(n)
    except OSError:
        return b""


def pre_commit_framework(repo, folder: str) -> str | None:
    """What says the pre-commit framework owns this repository's hooks (its config file,
    or its script installed as the pre-commit hook), in words; None when nothing does."""
    if repo.workdir and os.path.isfile(os.path.join(repo.workdir, PRE_COMMIT_CONFIG)):
        return f"this repository has a {PRE_COMMIT_CONFIG}"
    if is_pre_commit_hook(os.path.join(folder, "pre-commit")):
        return "the pre-commit framework's hook is installed"
    return None


def _framework_lines(repo, name: str, why: str) -> list[str]:
    """What install says instead of installing ``name`` where the framework owns it."""
    lines = [f"{name}: not installed: {why}, and `pre-commit install` would move the kit's "
             f"hook aside as {name}{LEGACY_SUFFIX}."]
    if name != "pre-commit":
        return lines
    config = os.path.join(repo.workdir or "", PRE_COMMIT_CONFIG)
    if re.search(rf"^[\s-]*id:\s*['\"]?{GUARD_ID}['\"]?\s*$", _head(config, 1 << 20)
                 .decode("utf-8", "replace"), re.M):
        return lines + [f"Its {PRE_COMMIT_CONFIG} runs the guard already (hook id {GUARD_ID})."]
    return lines + [f"Run the guard as the framework's hook {GUARD_ID}: add this under "
                    f"`repos:` in {PRE_COMMIT_CONFIG}, then run `pre-commit install`:",
                    GUARD_SNIPPET,
                    "(The test gate, aiapply.testCommand, is the kit's pre-commit hook: "
                    "docs/HOOKS.md says how to keep it under the framework.)"]


# --------------------------------------------------------------------------- install


def _write_hook(path: str, text: str) -> None:
    # a short hash, never the hook's name: the name limit holds whatever the name (issue 24)
    tmp = os.path.join(os.path.dirname(path), temp_name(os.path.basename(path), os.getpid(), "tmp"))
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o755)
    os.replace(tmp, path)


def install(repo, names: tuple[str, ...], python: str) -> list[str]:
    """Install the kit's hooks ``names``; returns one line per hook saying what was done.
    Nothing is written unless every hook can be installed."""
    from ..git.githooks import hooks_dir

    folder = hooks_dir(repo)
    framework = pre_commit_framework(repo, folder)
    plans = []
    skipped: list[str] = []
    for name in names:
        path = os.path.join(folder, name)
        chained = path + CHAINED_SUFFIX
        if framework and (name == "pre-commit" or is_pre_commit_hook(path)):
            skipped += _framework_lines(repo, name, framework)
        elif os.path.lexists(path) and not is_kit_hook(path):
            if os.path.isdir(path):
                raise UsageError(f"{path} is a folder; cannot install the {name} hook there")
            if os.path.lexists(chained):
                raise UsageError(
                    f"{path} is not the kit's hook, and {os.path.basename(chained)} is taken "
                    "already; move one of them away first so that neither is lost")
            plans.append((name, path, chained, "chain"))
        elif os.path.lexists(path):
            plans.append((name, path, chained, "update"))
        else:
            plans.append((name, path, chained, "new"))
    os.makedirs(folder, exist_ok=True)
    done = []
    for name, path, chained, how in plans:
        text = kit_script(name, python)
        if how == "chain":
            os.rename(path, chained)
        _write_hook(path, text)
        shown = _shown(repo, path)
        if how == "chain":
            extra = "" if os.access(chained, os.X_OK) else " (it is not executable, so git ignored it and so does the kit)"
            done.append(f"installed {shown}; the hook that was there is kept as "
                        f"{os.path.basename(chained)} and runs first{extra}")
        elif how == "update":
            note = f"; {os.path.basename(chained)} still runs first" if os.path.lexists(chained) else ""
            done.append(f"updated {shown}{note}")
        else:
            done.append(f"installed {shown}")
    return done + skipped


def uninstall(repo, names: tuple[str, ...]) -> list[str]:
    from ..git.githooks import hooks_dir

    folder = hooks_dir(repo)
    done = []
    for name in names:
        path = os.path.join(folder, name)
        chained = path + CHAINED_SUFFIX
        shown = _shown(repo, path)
        if os.path.lexists(path) and not is_kit_hook(path):
            if is_kit_hook(path + LEGACY_SUFFIX):
                done.append(_remove_legacy(path, chained, shown))
                continue
            note = f" ({os.path.basename(chained)} left as it is)" if os.path.lexists(chained) else ""
            done.append(f"{shown} is not the kit's hook; left as it is{note}")
            continue
        if os.path.lexists(path):
            os.unlink(path)
            if os.path.lexists(chained):
                os.rename(chained, path)
                done.append(f"removed the kit's {name} hook; restored the previous {shown}")
            else:
                done.append(f"removed {shown}")
        elif os.path.lexists(chained):
            os.rename(chained, path)
            done.append(f"restored the previous {shown}")
        else:
            done.append(f"{shown}: not installed")
    return done


def _remove_legacy(path: str, chained: str, shown: str) -> str:
    """The kit's hook that the pre-commit framework's installer kept as NAME.legacy (and
    runs) removed; the hook the kit had kept before it becomes that legacy hook, unless it
    is the framework's own script (which is the hook now)."""
    legacy = path + LEGACY_SUFFIX
    os.unlink(legacy)
    said = f"removed the kit's hook {os.path.basename(legacy)} (pre-commit ran it before {shown})"
    if not os.path.lexists(chained):
        return said
    if is_pre_commit_hook(chained):
        os.unlink(chained)
        return said + f"; removed {os.path.basename(chained)}, an old copy of pre-commit's hook"
    os.rename(chained, legacy)
    return said + f"; the hook it had kept runs as {os.path.basename(legacy)} again"


def _shown(repo, path: str) -> str:
    root = repo.workdir or repo.gitdir
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


# --------------------------------------------------------------------------- the guard

# Each: (compiled pattern, what it is), from every format's ``leftover_markup``; matched
# against added lines only (or whole files given on the command line), so text already
# in the repository never blocks a commit.
_guard: list | None = None


def _guard_patterns() -> list:
    global _guard
    if _guard is None:
        from ..formats import FORMATS

        _guard = [(re.compile(pattern), what) for f in FORMATS
                  for pattern, what in f.leftover_markup]
    return _guard


_MAX_SHOWN = 30
ATTRIBUTE = "ai-apply-guard"


def scan_line(text: str) -> str | None:
    for pattern, what in _guard_patterns():
        if pattern.search(text):
            return what
    return None


def _git(args: list[str], input: bytes | None = None) -> bytes:
    r = subprocess.run(["git", *args], input=input, capture_output=True)
    if r.returncode != 0:
        raise UsageError(f"git {' '.join(args[:3])} failed: {r.stderr.decode('utf-8', 'replace').strip()}")
    return r.stdout


def staged_findings() -> list[tuple[str, int, str, str]]:
    """(path, line, text, what) for every added line of the staged changes (the index
    git is committing: GIT_INDEX_FILE is honoured by git itself) that holds markup."""
    head = subprocess.run(["git", "rev-parse", "-q", "--verify", "HEAD^{commit}"],
                          capture_output=True).returncode == 0
    against = "HEAD" if head else _git(["hash-object", "-t", "tree", "/dev/null"]).decode().strip()
    raw = _git(["-c", "core.quotePath=true", "diff", "--cached", "--no-color", "--no-ext-diff",
                "--no-textconv", "--no-renames", "-U0", "--diff-filter=AM", "--src-prefix=a/",
                "--dst-prefix=b/", against, "--"])
    findings = []
    path = None
    line_no = 0
    in_body = False
    for bline in raw.split(b"\n"):
        line = bline.decode("utf-8", "surrogateescape")
        if line.startswith("diff --git "):
            path, in_body = None, False
            continue
        if not in_body:
            if line.startswith("+++ "):
                # git ends the name with a tab when it holds a space (for GNU patch)
                target = line[4:].rstrip("\t")
                path = None if target == "/dev/null" else (
                    read_quoted_path(target)[0] if target.startswith('"') else target)
                if path and path.startswith("b/"):
                    path = path[2:]
            elif line.startswith("@@ "):
                in_body = True
            else:
                continue
        if line.startswith("@@ "):
            m = read_hunk_header(line)
            line_no = m.new_start if m else 0
            continue
        if path is None:
            continue
        if line.startswith("+"):
            what = scan_line(line[1:])
            if what:
                findings.append((path, line_no, line[1:], what))
            line_no += 1
        elif line.startswith(" "):
            line_no += 1
    return findings


def file_findings(paths: list[str]) -> list[tuple[str, int, str, str]]:
    findings = []
    for p in paths:
        try:
            with open(p, "rb") as f:
                data = f.read()
        except OSError:
            continue  # deleted or unreadable: nothing to commit there
        if b"\0" in data[:8000]:
            continue  # binary, as git decides
        for n, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), 1):
            what = scan_line(line)
            if what:
                findings.append((p, n, line, what))
    return findings


def exempt_paths(paths: list[str], cached: bool) -> set[str]:
    """Paths whose ``ai-apply-guard`` attribute is unset (``-ai-apply-guard``) or false."""
    if not paths:
        return set()
    args = ["check-attr", "-z", "--stdin", ATTRIBUTE]
    if cached:
        args.insert(1, "--cached")
    out = _git(args, input=b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths))
    parts = out.split(b"\0")
    exempt = set()
    for i in range(0, len(parts) - 2, 3):
        if parts[i + 2] in (b"unset", b"false"):
            exempt.add(parts[i].decode("utf-8", "surrogateescape"))
    return exempt


def render_findings(findings, staged: bool) -> str:
    where = "the staged changes add" if staged else "these files hold"
    out = [f"ai-apply guard: {where} leftover edit markup (an edit was pasted as text "
           "instead of applied):"]
    for path, n, text, what in findings[:_MAX_SHOWN]:
        shown = text.strip()
        if len(shown) > 70:
            shown = shown[:67] + "..."
        out.append(f"  {path}:{n}: {shown}    <- {what}")
    if len(findings) > _MAX_SHOWN:
        out.append(f"  ... and {len(findings) - _MAX_SHOWN} more")
    out.append("Remove these lines and stage the files again.  A file that rightly holds "
               f"such text can be exempted in .gitattributes (`PATH -{ATTRIBUTE}`); "
               f"`SKIP={GUARD_ID} git commit ...` skips this check once.")
    return "\n".join(out)


# --------------------------------------------------------------------------- commit-msg

_RESPONSE_ID = re.compile(r"^[0-9a-f]{16}$")


def trailer_problems(message: str, made_by_ai_apply: bool, comment_char: str | None = None) -> list[str]:
    """What is wrong with the AI-* trailers of ``message`` (empty: nothing);
    ``comment_char``: the message still holds git's comment lines."""
    from ..formats import FORMAT_NAMES
    from ..message.trailers import read_trailers

    trailers: dict[str, list[str]] = {}
    for key, value in read_trailers(message, comment_char):
        trailers.setdefault(key.lower(), []).append(value)
    problems = []
    responses = trailers.get("ai-response", [])
    formats = trailers.get("ai-format", [])
    if made_by_ai_apply:
        if not responses:
            problems.append("the AI-Response trailer is missing")
        if not formats:
            problems.append("the AI-Format trailer is missing")
    for v in responses:
        if not _RESPONSE_ID.match(v):
            problems.append(f"AI-Response: {v!r} is not 16 lowercase hex digits")
    for v in formats:
        bad = [f for f in (x.strip() for x in v.split(",")) if f not in FORMAT_NAMES]
        if bad or not v.strip():
            problems.append(f"AI-Format: {v!r} names no known format "
                            f"({', '.join(FORMAT_NAMES)})")
    for v in trailers.get("ai-model", []):
        if not v:
            problems.append("AI-Model is empty")
    return problems
