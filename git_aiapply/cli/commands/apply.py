"""`git ai-apply [OPTIONS] [RESPONSE ...]`: read the responses, apply each in order (each
its own commit), and say what happened as git would.  No click here: main.py runs this
for the plain form without loading click (start-up time)."""
from __future__ import annotations

import os
import sys

from ...errors import ApplyError, ErrorKind, FatalError, UsageError
from ...run.term import echo, echo_err

DETACHED = "HEAD (detached)"  # Outcome.branch when HEAD is detached (docs/JSON.md)


def run(params: dict) -> None:
    """The apply command with ``params`` (options.APPLY_DEFAULTS' keys); exits."""
    try:
        _run(params)
    except FatalError as e:
        if params["as_json"]:  # an agent reads why, and whose fault it is, from the JSON
            from ...run.pipeline import fatal_outcome

            names = params["responses"] or ("-",)
            o = fatal_outcome(names[0], e, params["verbose"])
            _print_json([o], lines=len(names) > 1)  # several: JSON Lines, one line
        raise


def _run(p: dict) -> None:
    from ...git.repo import Repo
    from ...run.options import apply_request
    from ...run.prepare import check_request, prepare_checked, with_identity

    repo = Repo(".")
    request = apply_request(p)
    check_request(request)  # before -F's file is read: --no-commit -F FILE is refused unread
    request["message"] = _message(p["messages"], p["message_file"])
    prepared = prepare_checked(repo, request)
    with_identity(prepared, _run_prepared, repo, p, prepared)


def _run_prepared(repo, p: dict, prepared) -> None:
    """The run of a prepared request, the author and date given set around it."""
    from ...run.inputs import read_inputs, several_choices
    from ...run.prepare import lock_index_ahead, options_for

    as_json = p["as_json"]
    branch, max_bytes = prepared.request["branch"], prepared.max_bytes
    inputs = read_inputs(p["responses"], max_bytes)  # before the lock: stdin may wait
    if len(inputs) == 1:
        # One run, then the process ends (main.py: os._exit): the cyclic garbage collector
        # is off, reference counting still frees everything acyclic.  Its full passes over
        # a growing heap took a third of planning 100,000 new files (7.4 s -> 4.7 s, same
        # peak memory; bench/results.md).  A batch, serve and the library keep it on.
        import gc

        gc.disable()
    try:
        # the commit will need the index: take the lock and read the index while the
        # rest of the command is imported and the response parsed (bench/results.md)
        lock_index_ahead(repo, prepared)
        opts = options_for(repo, prepared)
        if len(inputs) > 1:  # a run of several: its id, in each commit's reflog entry
            opts.batch = os.urandom(4).hex()
        if branch is not None and (len(inputs) > 1 or "{" in branch
                                   or any(n.endswith(".jsonl") for n, _ in inputs)
                                   or several_choices(inputs)):
            from ...workflows.attempts import run_attempts

            sys.exit(run_attempts(repo, inputs, opts, branch, as_json=as_json,
                                  quiet=p["quiet"], max_bytes=max_bytes))
        color = False
        if opts.diff and not as_json:  # the pager module stays off the other runs' path
            from ..pager import diff_color

            color = diff_color(repo)
        show = _Show(quiet=p["quiet"], as_json=as_json, stat=p["stat"], numstat=p["numstat"],
                     summary=p["summary"], date_given=p["date"] is not None)
        outcomes, code = _apply_each(repo, inputs, opts, max_bytes, color, show)
        _ignore_interrupts()  # what was done is done: a Ctrl-C now must not hide it
    finally:
        repo.release_index_lock()
    if as_json and len(inputs) == 1:  # several: JSON Lines, printed as each finished
        _print_json(outcomes)
    sys.exit(code)


def _ignore_interrupts() -> None:
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # not the main thread (a library caller's)
        pass


class _Show:
    """What to print for each outcome."""

    def __init__(self, *, quiet, as_json, stat, numstat, summary, date_given=False):
        self.quiet, self.as_json, self.date_given = quiet, as_json, date_given
        self.stat, self.numstat, self.summary = stat, numstat, summary


def _print_json(outcomes, lines: bool = False) -> None:
    import json

    echo(json.dumps(outcomes[0].to_json(), indent=None if lines else 2))


def _message(messages, message_file) -> str | None:
    """The -m / -F text, as git commit takes it."""
    if messages and message_file:
        raise UsageError("-m and -F cannot be used together")
    if messages:
        return "\n\n".join(messages)
    if not message_file:
        return None
    try:
        if message_file == "-":
            return sys.stdin.read()
        with open(message_file, encoding="utf-8", errors="surrogateescape") as f:
            return f.read()
    except OSError as e:
        raise UsageError(f"cannot read {message_file}: {e.strerror}") from None


def _apply_each(repo, inputs, opts, max_bytes, color, show):
    """Apply the responses in order, each its own commit; stop at the first refusal.  With
    --check or --diff each response is judged on top of the ones before it, as the real
    run would apply it."""
    from ...run.pipeline import Outcome, Status, apply_one, fatal_outcome
    from ...answer.response import blank_response, read_response

    outcomes = []
    code = 0
    earlier: dict = {}  # --check / --diff: path -> state after the responses so far
    for name, raw in inputs:
        before = _ref_state(repo, opts)
        resp = None
        try:
            try:
                try:
                    resp = read_response(raw, name=name, max_bytes=max_bytes)
                except ApplyError as e:
                    resp = blank_response(name)
                    o = Outcome(resp, Status.REFUSED, 1, problems=e.problems, error_kind=e.kind)
                else:
                    o = apply_one(repo, resp, opts, editor=edit_message, color=color,
                                  after=earlier if (opts.check or opts.diff) else None)
            except FatalError as e:
                o = fatal_outcome(name, e, opts.verbose)
            # a Ctrl-C while the outcome is printed comes after the commit: said as such
            _report_each(repo, o, outcomes, earlier, opts, show, len(inputs))
        except KeyboardInterrupt:
            _interrupted(repo, opts, before, outcomes, show, resp or name, len(inputs))
            raise
        if o.exit_code:
            code = o.exit_code
            break  # later responses usually build on earlier ones
    return outcomes, code


def _report_each(repo, o, outcomes, earlier, opts, show, count) -> None:
    """One response's outcome kept and printed, as the run goes."""
    from ...run.pipeline import Status

    if opts.verbose and o.edits is None:  # refused before planning: nothing landed
        o.edits = []
    if o.status == Status.WOULD_APPLY and o.plan is not None:
        earlier.update(o.plan.final)
    outcomes.append(o)
    if show.as_json and count > 1:
        import json

        echo(json.dumps(o.to_json()))  # JSON Lines, each as it finishes (docs/JSON.md)
    elif not show.as_json:
        print_outcome(repo, o, show)


def _ref_state(repo, opts):
    """The ref this response would move, and where it is now (for an interrupt)."""
    try:
        if opts.branch is not None:
            from ...git.refs import branch_refname

            from ...git.history import ref_tip

            refname = branch_refname(opts.branch)
            try:
                return refname, ref_tip(repo, refname)
            except Exception:
                return refname, None
        if opts.no_commit or opts.cached:  # no ref moves: the index tells
            return (*repo.head(), _index_signature(repo))
        return repo.head()
    except Exception:
        return None


def _index_signature(repo):
    try:
        st = os.stat(repo.index_path())
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _interrupted(repo, opts, before, outcomes, show, name, count) -> None:
    """Ctrl-C: when a commit was already made (this response's, during the post-commit
    hook, or an earlier response's), say so, and with --json name it, instead of the usual
    "nothing was changed": a harness must never be told nothing changed after a change.
    ``name``: the Response when it was read, else the name it was given."""
    if opts.check or opts.diff:
        return
    made = [o.commit for o in outcomes if o.status == "applied" and o.commit]
    after = _ref_state(repo, opts) if before is not None else None
    if opts.no_commit or opts.cached:
        return _interrupted_staging(outcomes, staged_now=after != before)
    if after is None or after == before or after[1] is None:
        if not made:
            return  # nothing was changed: the usual message
        commits = ", ".join(c[:7] for c in made)
        echo_err(f"interrupted; the responses before it were committed ({commits}), nothing "
                 "else was changed")
        sys.exit(130)
    from ...git.history import commit_id_and_message

    commit_id, message = commit_id_and_message(repo, after[1])
    label = _branch_label(after[0])
    subject = message.split("\n", 1)[0]
    echo_err(f"interrupted after the commit was made: [{label} {commit_id[:7]}] {subject}")
    if made:
        echo_err(f"the responses before it were committed too ({', '.join(c[:7] for c in made)})")
    echo_err("the commit stays; `git ai-apply undo` takes it back")
    if show.as_json:
        _print_interrupted_json(name, commit_id, label, message, count)
    sys.exit(130)


def _interrupted_staging(outcomes, staged_now: bool) -> None:
    """Ctrl-C during --no-commit / --cached: never "nothing was changed" once an index was
    installed (this response's, ``staged_now``, or an earlier one's)."""
    earlier = [o.response.name for o in outcomes if o.status == "staged"]
    if not staged_now and not earlier:
        return  # nothing was changed: the usual message
    what = ["this response's changes were staged"] if staged_now else []
    if earlier:
        what.insert(0, "the responses before it were staged (" + ", ".join(earlier) + ")")
    echo_err(f"interrupted; {' and '.join(what)}; nothing was committed"
             + ("" if staged_now else ", nothing else was changed"))
    sys.exit(130)


def _print_interrupted_json(name, commit_id, label, message, count) -> None:
    import json

    from ...run.pipeline import Outcome, Status
    from ...answer.response import Response, response_name

    resp = name if isinstance(name, Response) else Response(
        text="", given_text="", response_id="", model=None, name=response_name(name),
        is_json=False)
    o = Outcome(resp, Status.APPLIED, 130, commit=commit_id, branch=label, message=message,
                note="interrupted after the commit was made (during the post-commit hook); "
                     "the commit stays")
    echo(json.dumps(o.to_json(), indent=2 if count == 1 else None))


def _branch_label(ref: str | None) -> str:
    from ...git.refs import short_branch

    return "detached HEAD" if ref is None else short_branch(ref)


_KIND_WORDS = {ErrorKind.HOOK: "a hook refused the commit",
               ErrorKind.DIRTY: "files the response touches are not clean",
               ErrorKind.PARSE: "the response is malformed"}


def print_outcome(repo, o, show) -> None:
    """One response's outcome, as git would print it (stderr for refusals)."""
    from ...run.pipeline import Status

    if o.status == Status.FATAL:
        for p in o.problems:
            echo_err(f"fatal: {p.reason}")
        return
    if o.status == Status.REFUSED:
        return _print_refusal(o)
    _print_what_came_with(o, show)
    if show.quiet:
        return print_edits(o)  # -v asked for them: -q quiets the rest
    _print_summary(repo, o, show)
    print_edits(o)


def _print_refusal(o) -> None:
    """A refused response: why, on standard error, after git's one-line verdict."""
    if o.error_kind == ErrorKind.MESSAGE:  # git's own words
        for p in o.problems:
            echo_err(p.reason)
        return
    kind = _KIND_WORDS.get(o.error_kind or "", "the response was refused")
    label = f"{o.response.name}: " if o.response.name not in ("-", None) else ""
    if o.kept:  # a rollback left them: someone changed them during the run
        echo_err(f"error: {label}{kind}; nothing was committed, and files changed during "
                 "the run were left as they are: " + ", ".join(o.kept) + ".")
    else:
        echo_err(f"error: {label}{kind}; nothing was changed.")
    for p in o.problems:
        echo_err(p.render())
    if o.suggestion is not None:  # the fix the tool knows (run/suggest.py)
        echo_err(f"hint: {o.suggestion['text']}")


def _print_what_came_with(o, show) -> None:
    """What a run prints besides its summary, even with -q: the diff (--diff), the
    reports (--stat...), what the hooks printed, and a note of what was left out."""
    from ...run.pipeline import Status

    if o.diff is not None:
        from ..pager import print_paged

        print_paged(o.diff)
    if _reports(show) and o.plan is not None:
        _print_reports(o, show)
    if o.hook_output.strip():  # what the hooks printed, shown even with -q, as git does
        echo_err(o.hook_output.rstrip("\n"))
    if o.note and o.status in (Status.APPLIED, Status.WOULD_APPLY):
        echo_err(f"note: {o.note}")  # what was left out on purpose (an empty hunk)
    for warning in o.warnings:  # applied, and worth a look (--syntax-check=warn)
        echo_err("warning: " + warning.render())


def _reports(show) -> bool:
    return bool(show.stat or show.numstat or show.summary)


def _print_summary(repo, o, show) -> None:
    """The lines git prints after the work: the commit, what was staged, what would
    apply, or the note of a run that changed nothing."""
    from ...run.pipeline import Status

    if o.status == Status.APPLIED:
        for line in _commit_summary(repo, o, show):
            echo(line)
    elif o.status == Status.STAGED:
        echo(staged_summary(o))
    elif o.status == Status.WOULD_APPLY and o.diff is None and not _reports(show):
        n = len(o.changes)
        echo(f"{o.response.name if o.response.name != '-' else 'response'}: applies cleanly "
             f"({n} file{'s' if n != 1 else ''}, +{o.added} -{o.removed})")
    elif o.note:
        echo(o.note)


def staged_summary(o) -> str:
    """The one line after --no-commit / --cached (git apply --index prints nothing, but
    a run that commits nothing should say so)."""
    n = len(o.changes)
    return f"staged {n} file{'s' if n != 1 else ''} (+{o.added} -{o.removed}); {o.note}"


def print_edits(o) -> None:
    """-v: one line per edit on standard error, after the usual output (standard output
    stays as without -v); also after a refusal, for the files that were located."""
    for e in o.edits or ():
        echo_err(e.render())


def _print_reports(o, show) -> None:
    """--stat, --numstat, --summary, in git apply's order."""
    from ...run.diffstat import apply_numstat_lines, apply_stat_lines, apply_summary_lines

    from ...run.pipeline import plan_stats

    stats = plan_stats(o.plan, line_counts)
    lines = []
    if show.stat:
        lines += apply_stat_lines(stats)
    if show.numstat:
        lines += apply_numstat_lines(stats)
    if show.summary:
        lines += apply_summary_lines(stats)
    for line in lines:
        echo(line)


def line_counts(old: bytes, new: bytes) -> tuple[int, int]:
    """(added, deleted) lines of the diff git would show between two contents."""
    from ...git.state import line_counts as counts

    return counts(old, new)


def _commit_summary(repo, o, show) -> list[str]:
    """The lines `git commit` prints for the commit just made, from the commit itself
    (a pre-commit hook may have changed what was committed)."""
    from ...run.diffstat import commit_summary, git_date, net_stats
    from ...git.history import commit_change

    c = commit_change(repo, o.commit)
    stats = net_stats(c["before"], c["after"], line_counts)
    label = "detached HEAD" if o.branch == DETACHED else o.branch
    subject = c["message"].split("\n", 1)[0]
    return commit_summary(label, c["id"], subject, c["root"], stats,
                          author=c["author"] if c["author"] != c["committer"] else None,
                          date=git_date(c["author_time"], c["author_offset"])
                          if show.date_given else None)


def edit_message(message: str) -> str:
    """Open the message in the user's editor and return the result (branch mode; a
    worktree commit edits .git/COMMIT_EDITMSG between the hooks, see hooks.py)."""
    from ...git.repo import Repo
    from ...git.githooks import edit_text

    return edit_text(Repo("."), message)
