"""Running the repository's hooks as ``git commit`` does (githooks(5)).

Hooks come from ``core.hooksPath`` (``~`` expanded, relative to the worktree root) or the
``hooks`` folder of the common git dir (so a linked worktree uses the main repository's
hooks); a hook that is not executable is ignored with git's hint.  A hook without a
``#!`` line (ENOEXEC) is run with ``/bin/sh``, as git does.  Hooks run from the worktree
root with standard input from /dev/null, and, as ``git commit`` sets them:
``GIT_INDEX_FILE`` (the index being committed), ``GIT_EDITOR=:`` (unless the message is
being edited), ``GIT_AUTHOR_NAME``/``EMAIL``/``DATE`` (the author of the commit, date as
``@SECONDS +ZZZZ``), ``GIT_PREFIX`` (where the command was started), ``GIT_DIR`` in a
linked worktree; plus ``GIT_AI_APPLY=1`` and ``GIT_AI_APPLY_FORMAT``.

The order is git's: pre-commit, then the message is written to ``COMMIT_EDITMSG``,
prepare-commit-msg (arguments: the file and ``message``), the editor (``--edit``),
commit-msg (the file; it may rewrite it), the message is read back and cleaned up; after
the commit, post-commit (with ``GIT_INDEX_FILE`` naming the real index).
"""
from __future__ import annotations

import errno
import os

from ..errors import ApplyError, ErrorKind, Problem
from ..record import field, record

COMMIT_HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg")


@record
class HookResult:
    """A hook's exit status and output."""

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


def ignored_hook_hint(repo, name: str) -> str:
    """git's hint for a hook file that exists but is not executable ("" otherwise)."""
    path = os.path.join(hooks_dir(repo), name)
    if not os.path.isfile(path) or os.access(path, os.X_OK):
        return ""
    if not repo.config_bool("advice.ignoredHook", True):
        return ""
    shown = os.path.relpath(path, repo.workdir) if repo.workdir else path
    return (f"hint: The '{shown}' hook was ignored because it's not set as executable.\n"
            "hint: You can disable this warning with `git config advice.ignoredHook false`.\n")


def run_hook(repo, name: str, args: list[str], env: dict[str, str], stdin: bytes | None = None) -> HookResult | None:
    """Run hook ``name`` if present; None when there is no such hook (a non-executable
    file gives a result with git's hint and exit 0)."""
    path = find_hook(repo, name)
    if path is None:
        hint = ignored_hook_hint(repo, name)
        return HookResult(name, 0, hint) if hint else None
    import subprocess  # only when a hook exists: start-up time

    from .ident import run_environ

    # with the run's --author/--date (prepare.with_identity), as git commit gives its hooks
    full_env = dict(run_environ())
    full_env.update(env)
    cwd = repo.workdir or repo.gitdir
    # git gives commit hooks /dev/null as standard input
    feed = {"stdin": subprocess.DEVNULL} if stdin is None else {"input": stdin}

    def run(argv):
        return subprocess.run(argv, cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, **feed)

    try:
        try:
            r = run([path, *args])
        except OSError as e:
            if e.errno != errno.ENOEXEC:
                raise
            r = run(["/bin/sh", path, *args])  # no #! line: git runs it with the shell
    except OSError as e:
        return HookResult(name, 126, f"cannot run the {name} hook ({path}): {e.strerror}\n")
    return HookResult(name, r.returncode, r.stdout.decode("utf-8", "replace"))


# --------------------------------------------------------------------------- git commit's sequence


def commit_hook_env(repo, extra: dict[str, str], author, *, editing: bool) -> dict[str, str]:
    """The environment ``git commit`` gives its hooks (GIT_INDEX_FILE is added per hook)."""
    env = dict(extra)
    if not editing:
        env["GIT_EDITOR"] = ":"
    env["GIT_AUTHOR_NAME"] = author.name
    env["GIT_AUTHOR_EMAIL"] = author.email
    from ..dates import env_date  # here, not at import: off the start-up path

    env["GIT_AUTHOR_DATE"] = env_date(author.time, author.offset)
    prefix = repo.relpath_of_cwd()
    env["GIT_PREFIX"] = (prefix.replace(os.sep, "/") + "/") if prefix else ""
    if repo.workdir and os.path.isfile(os.path.join(repo.workdir, ".git")):
        env["GIT_DIR"] = repo.gitdir  # a linked worktree: git exports its git dir
    env["GIT_AI_APPLY"] = "1"
    return env


@record
class HookedCommit:
    """The tree and message after the commit hooks ran."""

    tree_id: object
    message: str
    hook_index: object  # the index.HookIndex the hooks were given, or None (no hook ran)
    output: list[str] = field(default_factory=list)


# What to do when a hook fails, said to whoever sent the change: the apply command's
# words speak of the response (they go back to the model); `pick` passes its own.
APPLY_HOOK_HINTS = {
    "pre-commit": "the hook checks the files being committed: change the response so that "
                  "the hook's complaints above are fixed (or pass --no-verify to skip "
                  "pre-commit and commit-msg)",
    "commit-msg": "the hook checks the commit message: give one it accepts with -m/-F, or "
                  "pass --no-verify to skip it",
    "prepare-commit-msg": "fix the hook; --no-verify does not skip prepare-commit-msg",
}


def _failed(res: HookResult, hints: dict[str, str]):
    out = res.output.strip("\n")
    lines = out.splitlines()
    cut = len(lines) > 60
    shown = lines[-60:]
    reason = f"the {res.name} hook failed (exit {res.returncode})"
    if res.returncode == 126 and res.output.startswith("cannot run"):
        reason = res.output.strip()
        shown = []
    body = (f"; its output{' (last 60 lines)' if cut else ''}:\n"
            + "\n".join("  " + l for l in shown)) if shown else "; it printed nothing"
    return ApplyError(Problem(reason + body, hint=hints.get(res.name)), kind=ErrorKind.HOOK)


def cleanup_whitespace(message: str) -> str:
    """git's 'whitespace' cleanup: trailing spaces, leading/trailing and repeated blank
    lines removed, one final newline."""
    out: list[str] = []
    for line in message.replace("\r\n", "\n").split("\n"):
        line = line.rstrip()
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""


def comment_char(repo) -> str:
    c = repo.config_get("core.commentChar") or "#"
    return "#" if c == "auto" else c[:1]


def strip_comments(message: str, char: str) -> str:
    return "\n".join(l for l in message.replace("\r\n", "\n").split("\n") if not l.startswith(char))


def run_commit_hooks(repo, lock, tree_id, message: str, env: dict[str, str], *,
                     no_verify: bool, editor=None,
                     hints: dict[str, str] | None = None) -> HookedCommit:
    """pre-commit, prepare-commit-msg, the editor, commit-msg, as ``git commit`` runs them.

    ``lock`` is the held ``index.IndexLock`` whose lock file holds the new index; the
    hooks are given an index of their own (index.HookIndex, a temporary file the caller
    removes, whatever happens); ``editor``
    is a callable(path) that lets the user edit the message file, or None.  Returns the
    tree to commit (a pre-commit hook may re-stage files) and the final message; raises
    ApplyError (kind "hook") when a hook fails, with
    ``hints[hook]`` (default ``APPLY_HOOK_HINTS``) saying what to do."""
    from .index import HookIndex

    hints = APPLY_HOOK_HINTS if hints is None else hints
    names = [h for h in COMMIT_HOOKS if not (no_verify and h != "prepare-commit-msg")]
    present = [h for h in names if find_hook(repo, h)]
    output = [hint for hint in (ignored_hook_hint(repo, h) for h in names) if hint]
    if not present and editor is None:
        return HookedCommit(tree_id, message, None, output)
    hook_index = HookIndex(repo, lock, tree_id) if present else None
    if hook_index:
        env = dict(env, GIT_INDEX_FILE=hook_index.path)
    if "pre-commit" in present:
        _run_or_refuse(repo, "pre-commit", [], env, output, hints)
        tree_id = hook_index.tree(repo)
    message = _commit_message(repo, message, env, present, editor, output, hints)
    return HookedCommit(tree_id, message, hook_index, output)


def _run_or_refuse(repo, name: str, args: list[str], env: dict[str, str], output: list[str],
                   hints: dict[str, str]) -> None:
    """Run a hook that is present, keep its output; ApplyError (kind "hook") if it fails."""
    res = run_hook(repo, name, args, env)
    output.append(res.output)
    if res.returncode != 0:
        raise _failed(res, hints)


def _commit_message(repo, message: str, env: dict[str, str], present: list[str], editor,
                    output: list[str], hints: dict[str, str]) -> str:
    """The message after prepare-commit-msg, the editor and commit-msg had it in
    COMMIT_EDITMSG, read back and cleaned up as git does."""
    msg_file = os.path.join(repo.gitdir, "COMMIT_EDITMSG")
    char = comment_char(repo)
    text = message if editor is None else _with_instructions(message, char)
    with open(msg_file, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text)
    if "prepare-commit-msg" in present:
        _run_or_refuse(repo, "prepare-commit-msg", [msg_file, "message"], env, output, hints)
    if editor is not None:
        editor(msg_file)
    if "commit-msg" in present:
        _run_or_refuse(repo, "commit-msg", [msg_file], env, output, hints)
    with open(msg_file, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    if editor is not None:  # git's default cleanup: "strip" when edited, else "whitespace"
        text = strip_comments(text, char)
    message = cleanup_whitespace(text)
    if not message.strip():
        why = "" if editor is not None else " (a hook emptied it)"
        raise ApplyError(f"aborting commit due to empty commit message{why}", kind=ErrorKind.HOOK)
    return message


def _with_instructions(message: str, char: str) -> str:
    """The message as git gives it to the editor: with its comment lines saying how."""
    return (message.rstrip("\n") + "\n\n"
            f"{char} Please enter the commit message for your changes. Lines starting\n"
            f"{char} with '{char}' will be ignored, and an empty message aborts the commit.\n")


# --------------------------------------------------------------------------- the editor


def git_editor(repo) -> str:
    """The editor ``git var GIT_EDITOR`` names: GIT_EDITOR, core.editor, VISUAL (on a
    capable terminal), EDITOR, then vi."""
    env = os.environ
    term = env.get("TERM", "dumb")
    editor = env.get("GIT_EDITOR") or repo.config_get("core.editor")
    if not editor and term != "dumb":
        editor = env.get("VISUAL")
    if not editor:
        editor = env.get("EDITOR")
    if not editor:
        if term == "dumb":
            raise ApplyError(Problem("the terminal is dumb, but EDITOR is unset",
                                     hint="set GIT_EDITOR or core.editor, or give the message "
                                          "with -m instead of --edit"))
        editor = "vi"
    return editor


def run_editor(repo, path: str) -> None:
    """Let the user edit ``path``, as git launches its editor (through the shell when the
    command has arguments or shell syntax)."""
    editor = git_editor(repo)
    if editor == ":":
        return
    stdin = None
    try:
        import sys

        if not sys.stdin.isatty():  # the response came on stdin: give the editor the terminal
            stdin = open("/dev/tty", "rb")
    except OSError:
        stdin = None
    import subprocess

    try:
        r = subprocess.run(["sh", "-c", f'{editor} "$@"', editor, path], stdin=stdin)
    except OSError as e:
        raise ApplyError(Problem(f"cannot run the editor {editor!r}: {e.strerror}")) from None
    finally:
        if stdin is not None:
            stdin.close()
    if r.returncode != 0:
        raise ApplyError(Problem(f"there was a problem with the editor {editor!r} (exit {r.returncode})",
                                 hint="the commit was not made; nothing was changed"))


def edit_text(repo, message: str) -> str:
    """Edit ``message`` in the user's editor outside the commit sequence (branch mode):
    a COMMIT_EDITMSG file in a private temporary folder, comment lines and surrounding
    blank lines removed afterwards; an empty result aborts, as in git."""
    import shutil
    import tempfile

    char = comment_char(repo)
    folder = tempfile.mkdtemp(prefix="ai-apply-msg-")
    path = os.path.join(folder, "COMMIT_EDITMSG")
    try:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(_with_instructions(message, char))
        run_editor(repo, path)
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            text = f.read()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out = cleanup_whitespace(strip_comments(text, char))
    if not out.strip():
        raise ApplyError("aborting commit due to empty commit message")
    return out


def verify_in_worktree(repo, base_commit, tree_id, message: str, *, refname: str,
                       formats: list[str], no_verify: bool = False):
    """Run pre-commit, prepare-commit-msg and commit-msg for a branch-mode commit in a
    temporary linked worktree (detached at the base, index and files = the new tree), as
    `git commit` would in a checkout of the branch.  Returns (tree, message, output):
    a pre-commit hook may re-stage files and the message hooks may edit the message.
    post-commit is not run (there is no worktree commit to announce)."""
    import subprocess

    from . import verify_worktree
    from .faults import fault
    from .index import tree_of_index
    from .repo import Repo

    names = ("pre-commit", "prepare-commit-msg", "commit-msg")
    if not any(find_hook(repo, h) for h in names):
        return tree_id, message, ""
    if base_commit is None:
        raise ApplyError(Problem("--verify needs a base commit to check out; this branch "
                                 "would start from an empty history",
                                 hint="make a first commit, or leave out --verify"))
    env = dict(os.environ)
    for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(k, None)
    for left in verify_worktree.stale(repo.commondir):  # of a killed run
        verify_worktree.remove(repo.commondir, left)
    wt = verify_worktree.path_for(repo.commondir, os.getpid())
    verify_worktree.remove(repo.commondir, wt)
    git_dir = repo.gitdir

    def git(*args, cwd=None):
        return subprocess.run(["git", *args], cwd=cwd or git_dir, env=env, capture_output=True)

    output: list[str] = []
    try:
        # --no-checkout: no post-checkout hook; the files are written from the new tree
        r = git("worktree", "add", "--detach", "--no-checkout", wt, str(base_commit.id))
        if r.returncode != 0:
            raise ApplyError(Problem("--verify could not make a temporary worktree: "
                                     + r.stderr.decode("utf-8", "replace").strip()))
        r = git("read-tree", "--reset", "-u", str(tree_id), cwd=wt)
        if r.returncode != 0:
            raise ApplyError(Problem("--verify could not fill the temporary worktree: "
                                     + r.stderr.decode("utf-8", "replace").strip()))
        fault("verify-worktree")
        wrepo = Repo(wt)
        index_file = os.path.join(wrepo.gitdir, "index")
        hook_env = {"GIT_INDEX_FILE": index_file, "GIT_EDITOR": ":", "GIT_AI_APPLY": "1",
                    "GIT_AI_APPLY_FORMAT": ",".join(formats),
                    "GIT_AI_APPLY_BRANCH": refname[len("refs/heads/"):]}

        def run(name, args):
            res = run_hook(wrepo, name, args, hook_env)
            if res is None:
                return
            output.append(res.output)
            if res.returncode != 0:
                out = res.output.strip()
                shown = ("\n" + "\n".join("  " + l for l in out.splitlines()[-40:])) if out else ""
                raise ApplyError(Problem(
                    f"the {name} hook failed (exit {res.returncode}) in the --verify "
                    f"worktree; no branch was changed{':' if shown else ''}{shown}"), kind=ErrorKind.HOOK)

        if not no_verify:
            run("pre-commit", [])
            new_tree = tree_of_index(repo.repo, index_file)
            tree_id = new_tree  # a formatter may have re-staged files
        msg_file = os.path.join(wrepo.gitdir, "COMMIT_EDITMSG")
        with open(msg_file, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(message)
        run("prepare-commit-msg", [msg_file, "message"])
        if not no_verify:
            run("commit-msg", [msg_file])
        with open(msg_file, encoding="utf-8", errors="surrogateescape") as f:
            message = cleanup_whitespace(f.read())
        if not message.strip():
            raise ApplyError("aborting commit due to empty commit message (a hook emptied it)",
                             kind=ErrorKind.HOOK)
        return tree_id, message, "".join(output)
    finally:
        verify_worktree.remove(repo.commondir, wt)
