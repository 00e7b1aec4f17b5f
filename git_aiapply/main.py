"""The console script's entry point, and the `apply` command's work.

`git ai-apply [OPTIONS] RESPONSE...` is what agents and hooks run thousands of times, so
that form is parsed here with a small table and never imports click (about a tenth of
the start-up time); anything else (a subcommand, --help, an option this table does not
know) goes to the click command line in cli.py, which declares the same options and
calls the same ``apply_main``.  tests/test_main.py checks that the two agree.
"""
from __future__ import annotations

import os
import sys

from .errors import AiApplyError, ApplyError, FatalError, UsageError, printable

# (option names, parameter, what it takes): 'flag' stores True, a constant stores it,
# 'value' takes the next argument, 'values' may repeat, 'int' takes a whole number.
APPLY_OPTIONS = [
    (("--format",), "fmt", "value"),
    (("--check",), "check", "flag"),
    (("--diff",), "show_diff", "flag"),
    (("--json",), "as_json", "flag"),
    (("--include-dirty",), "include_dirty", "flag"),
    (("--allow-empty",), "allow_empty", "flag"),
    (("-m", "--message"), "messages", "values"),
    (("-F", "--file"), "message_file", "value"),
    (("-e", "--edit"), "edit", "flag"),
    (("-n", "--no-verify"), "no_verify", "flag"),
    (("--verify",), "verify", "flag"),
    (("--branch",), "branch", "value"),
    (("--base",), "base", "value"),
    (("-s", "--signoff"), "signoff", "flag"),
    (("-S", "--gpg-sign"), "gpg_sign", True),
    (("--no-gpg-sign",), "gpg_sign", False),
    (("--no-trailers",), "no_trailers", "flag"),
    (("--max-bytes",), "max_bytes", "int"),
    (("-q", "--quiet"), "quiet", "flag"),
]
APPLY_DEFAULTS = {
    "responses": (), "fmt": None, "check": False, "show_diff": False, "as_json": False,
    "include_dirty": None, "allow_empty": False, "messages": (), "message_file": None,
    "edit": False, "no_verify": False, "verify": False, "branch": None, "base": None,
    "signoff": False, "gpg_sign": None, "no_trailers": False, "max_bytes": None, "quiet": False,
}
_BY_NAME = {name: (dest, kind) for names, dest, kind in APPLY_OPTIONS for name in names}
# First words that belong to click (cli.py); kept in step with it by tests/test_main.py.
CLICK_WORDS = {"apply", "show", "prompt", "demo", "install-hooks", "hook", "undo", "attempts",
               "pick", "recover", "-h", "--help", "--version"}


def parse_apply_args(argv: list[str]) -> dict | None:
    """The apply command's parameters from ``argv``, or None when click should parse it
    (a subcommand, help, anything this small parser does not know)."""
    if argv and argv[0] in CLICK_WORDS:
        return None
    kw = dict(APPLY_DEFAULTS)
    messages: list[str] = []
    responses: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        i += 1
        if arg == "--":
            responses.extend(argv[i:])
            break
        if arg == "-" or not arg.startswith("-"):
            responses.append(arg)
            continue
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        spec = _BY_NAME.get(name)
        if spec is None:
            return None  # unknown, combined short flags, -mVALUE...: click says what is wrong
        dest, kind = spec
        if kind in ("value", "values", "int"):
            if eq:
                value = inline
            elif i < len(argv):
                value = argv[i]
                i += 1
            else:
                return None
            if kind == "int":
                try:
                    value = int(value)
                except ValueError:
                    return None
            if kind == "values":
                messages.append(value)
            else:
                kw[dest] = value
        elif eq:
            return None
        else:
            kw[dest] = True if kind == "flag" else kind
    kw["messages"] = tuple(messages)
    kw["responses"] = tuple(responses)
    return kw


def _write(stream, text: str) -> None:
    try:
        stream.write(text + "\n")
    except UnicodeEncodeError:  # a terminal that cannot show every character
        stream.flush()
        stream.buffer.write((text + "\n").encode(stream.encoding or "utf-8", "replace"))
    stream.flush()


def echo(text: str) -> None:
    """Print a line with its control characters escaped: subjects and paths come from
    the response and must not drive the terminal."""
    _write(sys.stdout, printable(text))


def echo_err(text: str) -> None:
    _write(sys.stderr, text)


def read_inputs(paths: tuple[str, ...], max_bytes: int):
    from .response import read_response

    if not paths:
        paths = ("-",)
    out = []
    for p in paths:
        if p == "-":
            # bounded: a response above the limit is refused without holding all of it
            raw = sys.stdin.buffer.read(max_bytes + 1) if max_bytes > 0 else sys.stdin.buffer.read()
            name = "-"
        elif os.path.isdir(p):
            from .attempts import folder_inputs  # a folder of responses (docs/ATTEMPTS.md)

            out.extend(folder_inputs(p, max_bytes))
            continue
        else:
            try:
                with open(p, "rb") as f:
                    raw = f.read(max_bytes + 1) if max_bytes > 0 else f.read()  # 0: no limit
            except OSError as e:
                raise UsageError(f"cannot read {p}: {e.strerror}") from None
            name = p
        out.append((name, raw))
    return out


def print_outcome(o, quiet: bool) -> None:
    if o.status == "refused":
        kind = {"hook": "a hook refused the commit", "dirty": "files the response touches are not clean",
                "parse": "the response is malformed"}.get(o.error_kind or "", "the response was refused")
        label = f"{o.response.name}: " if o.response.name not in ("-", None) else ""
        echo_err(f"error: {label}{kind}; nothing was changed.")
        for p in o.problems:
            echo_err(p.render())
        return
    if o.diff is not None:
        from .term import print_paged

        print_paged(o.diff)
    if o.hook_output.strip():  # what the hooks printed, shown even with -q, as git does
        echo_err(o.hook_output.rstrip("\n"))
    if quiet:
        return
    if o.status == "applied":
        subject = (o.message or "").split("\n", 1)[0]
        echo(f"[{o.branch} {o.commit[:7]}] {subject}")
        n = len(o.changes)
        echo(f" {n} file{'s' if n != 1 else ''} changed, {o.added} insertion"
                   f"{'s' if o.added != 1 else ''}(+), {o.removed} deletion{'s' if o.removed != 1 else ''}(-)")
        for c in o.changes:
            if c.action == "add":
                echo(f" create {c.path}")
            elif c.action == "delete":
                echo(f" delete {c.path}")
            elif c.action == "rename":
                echo(f" rename {c.old_path} => {c.path}")
    elif o.status == "would-apply" and o.diff is None:
        n = len(o.changes)
        echo(f"{o.response.name if o.response.name != '-' else 'response'}: applies cleanly "
                   f"({n} file{'s' if n != 1 else ''}, +{o.added} -{o.removed})")
    elif o.note:
        echo(o.note)



def apply_main(responses, fmt, check, show_diff, as_json, include_dirty, allow_empty, messages,
               message_file, edit, no_verify, verify, branch, base, signoff, gpg_sign, no_trailers,
               max_bytes, quiet):
    """Apply RESPONSE files (or standard input) and commit; exits with the status."""
    from .apply import Options, apply_one
    from .git.repo import Repo
    from .response import DEFAULT_MAX_BYTES, read_response

    repo = Repo(".")
    if branch is None and os.path.exists(os.path.join(repo.gitdir, "AI_APPLY_JOURNAL")):
        # an interrupted (or still running) run: the worktree may be half written
        from .recover import interrupted_problem

        problem = interrupted_problem(repo.gitdir)
        if problem is not None:
            raise ApplyError(problem)
    if max_bytes is None:
        max_bytes = repo.config_int("aiapply.maxResponseBytes", DEFAULT_MAX_BYTES)
    if include_dirty is None:
        include_dirty = repo.config_bool("aiapply.includeDirty", False)
    fmt = fmt or repo.config_get("aiapply.format")
    from .formats import FORMAT_NAMES

    if fmt and fmt not in FORMAT_NAMES:
        raise UsageError(f"unknown format {fmt!r}; known formats: {', '.join(FORMAT_NAMES)}")
    if base and not branch:
        raise UsageError("--base goes with --branch")
    if verify and (not branch or no_verify):
        raise UsageError("--verify goes with --branch, and not with --no-verify")
    message = None
    if messages and message_file:
        raise UsageError("-m and -F cannot be used together")
    if messages:
        message = "\n\n".join(messages)
    elif message_file:
        try:
            if message_file == "-":
                message = sys.stdin.read()
            else:
                with open(message_file, encoding="utf-8", errors="surrogateescape") as f:
                    message = f.read()
        except OSError as e:
            raise UsageError(f"cannot read {message_file}: {e.strerror}") from None
    opts = Options(check=check, diff=show_diff, include_dirty=include_dirty,
                   allow_empty=allow_empty, format=fmt, message=message, edit=edit,
                   no_verify=no_verify, verify=verify, branch=branch, base=base,
                   signoff=signoff, sign=gpg_sign, trailers=not no_trailers)
    inputs = read_inputs(responses, max_bytes)
    if branch is not None and (len(inputs) > 1 or "{" in branch
                               or any(n.endswith(".jsonl") for n, _ in inputs)):
        from .attempts import run_attempts

        code = run_attempts(repo, inputs, opts, branch, as_json=as_json, quiet=quiet,
                            max_bytes=max_bytes)
        sys.exit(code)
    from .term import diff_color

    color = show_diff and not as_json and diff_color(repo)
    if branch is None and not (check or show_diff) and repo.workdir:
        # the commit will need the index: read it while the response is parsed
        repo.lock_index_ahead()
    try:
        outcomes, code = _apply_each(repo, inputs, opts, max_bytes, color, as_json, quiet)
    finally:
        repo.release_index_lock()
    if as_json:
        import json

        if len(outcomes) == 1:
            echo(json.dumps(outcomes[0].to_json(), indent=2))
        else:
            echo(json.dumps({"results": [o.to_json() for o in outcomes]}, indent=2))
    sys.exit(code)


def _apply_each(repo, inputs, opts, max_bytes, color, as_json, quiet):
    """Apply the responses in order, each its own commit; stop at the first refusal."""
    from .apply import apply_one
    from .response import read_response

    outcomes = []
    code = 0
    for name, raw in inputs:
        try:
            resp = read_response(raw, name=name, max_bytes=max_bytes)
        except ApplyError as e:
            from .apply import Outcome
            from .response import Response

            resp = Response(text="", given_text="", response_id="", model=None,
                            name=name, is_json=False)
            o = Outcome(resp, "refused", 1, problems=e.problems, error_kind=e.kind)
        else:
            o = apply_one(repo, resp, opts, editor=edit_message, color=color)
        outcomes.append(o)
        if not as_json:
            print_outcome(o, quiet)
        if o.exit_code:
            code = o.exit_code
            break  # later responses usually build on earlier ones
    return outcomes, code



def edit_message(message: str) -> str:
    """Open the message in the user's editor and return the result (branch mode; a
    worktree commit edits .git/COMMIT_EDITMSG between the hooks, see hooks.py)."""
    from .git.repo import Repo
    from .git.githooks import edit_text

    return edit_text(Repo("."), message)


def guarded(fn, *args, **kwargs):
    """Run ``fn``: every error becomes a message and an exit code, never a traceback."""
    try:
        fn(*args, **kwargs)
    except UsageError as e:
        echo_err(f"usage error: {e}")
        sys.exit(2)
    except ApplyError as e:
        echo_err("error: the response was refused; nothing was changed.")
        echo_err(e.render())
        sys.exit(1)
    except FatalError as e:
        echo_err(f"fatal: {e}")
        sys.exit(128)
    except AiApplyError as e:
        echo_err(f"error: {e}")
        sys.exit(1)
    except KeyboardInterrupt:
        echo_err("interrupted; nothing was changed")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except SystemExit:
        raise
    except Exception as e:  # a bug: say it plainly, without a traceback
        echo_err(f"internal error: {type(e).__name__}: {e}")
        echo_err("please report this; set GIT_AI_APPLY_DEBUG=1 for details")
        if os.environ.get("GIT_AI_APPLY_DEBUG"):
            import traceback

            traceback.print_exc()
        sys.exit(1)


def run() -> None:
    """Console-script entry point."""
    kwargs = parse_apply_args(sys.argv[1:])
    if kwargs is None:
        from .cli import run as click_run

        click_run()
    else:
        guarded(apply_main, **kwargs)
    sys.exit(0)
