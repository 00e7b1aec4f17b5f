"""One response, start to finish: parse, plan, decide, and hand the plan to the git
transaction.  Pure steps are in their own modules; this one only sequences them."""
from __future__ import annotations

from contextlib import nullcontext
from enum import StrEnum

from ..locate import edit_report
from ..record import field, record, replace

from ..errors import (ApplyError, ErrorKind, FatalError, Problem, fault_of, known_kind,
                      store_errors_fatal)
from ..plan.plan import FileChange, Plan
from ..git.refs import short_branch
from ..answer.response import Response
from .diffstat import change_words, colorize_diff, net_stats, percent, similarity
from ..message.trailers import AI_PATHS, add_trailers, trailer_lines


@record
class Options:
    """What the command line asked for."""

    check: bool = False
    diff: bool = False
    include_dirty: bool = False
    allow_empty: bool = False
    format: str | None = None
    message: str | None = None  # -m / -F text
    edit: bool = False
    no_verify: bool = False
    verify: bool = False  # branch mode: run the commit hooks in a temporary worktree
    branch: str | None = None  # a concrete branch name (templates are expanded by the caller)
    base: str | None = None
    signoff: bool = False
    sign: bool | None = None  # -S / --no-gpg-sign; None = commit.gpgSign
    trailers: bool = True
    subject_max: int = 72
    # git apply's -p, --directory and --include/--exclude ((kind, pattern) in order)
    strip: int | None = None
    directory: str | None = None
    limits: tuple = ()
    batch: str | None = None  # a run of several responses: its id, in each commit's reflog entry
    force: bool = False  # apply even when the history says the response was applied
    three_way: bool = False  # -3: edits that do not fit are applied at the answer's base, merged
    three_way_depth: int = 50  # commits searched for that base (aiapply.threeWayDepth)
    verbose: bool = False  # -v: report where and how each edit landed (Outcome.edits)
    no_commit: bool = False  # --no-commit: index and worktree, no commit (git apply --index)
    cached: bool = False  # --cached: the index only (git apply --cached)
    syntax_check: str = "refuse"  # aiapply.syntaxCheck / --syntax-check: refuse, warn, off

    def path_options(self) -> str | None:
        """The path options as one line (the AI-Paths trailer), None when none was given."""
        words = [] if self.strip is None else [f"-p {self.strip}"]
        if self.directory is not None:
            words.append(f"--directory={self.directory}")
        words += [f"--{kind}={pattern}" for kind, pattern in self.limits]
        return " ".join(words) or None


class Status(StrEnum):
    """What happened to one response: ``Outcome.status``, the ``status`` of --json and of
    the library's ``Result`` (docs/JSON.md).  A str, so it prints and compares as its value."""

    APPLIED = "applied"  # committed
    STAGED = "staged"  # --no-commit / --cached: written to the index (and worktree), no commit
    ALREADY_APPLIED = "already-applied"  # a commit in the history carries its AI-Response
    NO_CHANGE = "no-change"  # every edit is already in place
    WOULD_APPLY = "would-apply"  # --check / --diff: it applies
    EMPTY = "empty"  # no change blocks
    REFUSED = "refused"  # the response is wrong (exit 1)
    FATAL = "fatal"  # the repository or the environment stopped the run (exit 128)


@record
class Outcome:
    """What happened to one response."""

    response: Response
    status: Status
    exit_code: int = 0
    commit: str | None = None
    branch: str | None = None
    base: str | None = None
    formats: list[str] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)
    renames: list[tuple[str, str]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # what was applied anyway and should be looked at (--syntax-check=warn's findings)
    warnings: list[Problem] = field(default_factory=list)
    message: str | None = None
    diff: str | None = None
    note: str | None = None
    hook_output: str = ""
    error_kind: str | None = None
    plan: Plan | None = None  # what was (or would be) written; not in the JSON
    merged: dict[str, str] = field(default_factory=dict)  # path -> base it was merged from (-3)
    three_way_base: str | None = None  # -3: the commit the edits were applied at
    # -v: where and how each edit landed (edit_report.EditReport); None when not asked
    edits: list | None = None
    suggestion: dict | None = None  # a refusal's fix the tool knows (run/suggest.py)
    # files a refused run left as someone changed them while it ran (never overwritten)
    kept: list[str] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(c.added for c in self.changes)

    @property
    def removed(self) -> int:
        return sum(c.removed for c in self.changes)

    def _file_json(self, c: FileChange) -> dict:
        d = {"path": c.path, "action": c.action, "old_path": c.old_path, "added": c.added,
             "removed": c.removed}
        if c.path in self.merged:  # -3: merged into the current file from this base
            d["merged_from"] = self.merged[c.path]
        return d

    def to_json(self) -> dict:
        return {
            "response": self.response.name,
            "response_id": self.response.response_id,
            "model": self.response.model,
            "status": self.status,
            "exit_code": self.exit_code,
            "commit": self.commit,
            "branch": self.branch,
            "base": self.base,
            "formats": self.formats,
            "files": [self._file_json(c) for c in self.changes],
            "added": self.added,
            "removed": self.removed,
            "message": self.message,
            "note": self.note,
            # only a kind docs/JSON.md lists is ever written (errors.known_kind)
            "error_kind": None if self.error_kind is None else str(known_kind(self.error_kind)),
            "fault": fault_of(self.error_kind),
            "errors": [p.to_json() for p in self.problems],
            "error_text": "\n".join(p.render() for p in self.problems) or None,
            "warnings": [p.to_json() for p in self.warnings],
            "hook_output": self.hook_output or None,
            "diff": self.diff,
        } | ({} if self.edits is None else {"edits": [e.to_json() for e in self.edits]}) \
          | ({} if self.suggestion is None else {"suggestion": dict(self.suggestion)})


def fatal_outcome(name: str, e: FatalError, verbose: bool = False) -> Outcome:
    """The outcome of a run the repository or the environment stopped: the one --json
    object every front door gives for it (the command, serve, mcp; docs/JSON.md); with
    ``verbose`` (-v) its ``edits`` are there, empty: nothing landed."""
    from ..answer.response import blank_response

    out = Outcome(blank_response(name), Status.FATAL, 128,
                  problems=[Problem(e.message, hint=e.hint)], error_kind=e.kind)
    out.edits = [] if verbose else None
    return out


def net_changes(plan: Plan) -> tuple[list[FileChange], list[tuple[str, str]]]:
    """The plan's change as git's diff of the two trees sees it, whatever steps the response
    took: the files (in the response's order) and the renames.  Every report of a run (the
    summary, --check, --json's files, --diff, --stat, the subject) is made from this one
    net change (plan_stats: renames found as git finds them), so none can tell of a file
    another leaves out (a file deleted, then another renamed onto its path: git's diff
    updates the one and deletes the other)."""
    from ..git.state import line_counts

    told = {}  # a huge file's counts from its edits, when git's diff is out of bounds
    for c in plan.changes:
        st = plan.final.get(c.path)
        if st is not None:
            told[st.data] = (c.added, c.removed)

    def counts(old: bytes, new: bytes) -> tuple[int, int]:
        return line_counts(old, new, fallback=told.get(new))

    stats = plan_stats(plan, counts)
    order = _response_order(plan)
    stats.sort(key=lambda st: order.get(st.path, order.get(st.old_path, len(order))))
    changes = [FileChange(st.path, "mode" if st.status == "M" and st.same_content else _ACTIONS[
        st.status], st.old_path if st.status == "R" else None, st.added, st.deleted) for st in stats]
    return changes, [(st.old_path, st.path) for st in stats if st.status == "R"]


_ACTIONS = {"A": "add", "D": "delete", "M": "update", "R": "rename"}


def _response_order(plan: Plan) -> dict[str, int]:
    """Each path's place in the response (its first change, or its rename's)."""
    order = {c.path: i for i, c in enumerate(plan.changes)}
    order.update({c.old_path: i for i, c in enumerate(plan.changes) if c.old_path})
    return order


def plan_stats(plan: Plan, line_counts) -> list:
    """The net change of a plan as git's diff sees it (diffstat.net_stats; ``line_counts``
    None: what changed, not by how much)."""
    def states(d):
        return {p: (s.mode, s.data) if s is not None else None for p, s in d.items()}

    return net_stats(states(plan.base), states(plan.final), line_counts)


def _changed_words(plan: Plan) -> list[tuple[str, str]]:
    """What the plan changes in the end (a file deleted and created again is updated, a
    rename and back is no rename), in the response's order."""
    stats = plan_stats(plan, None)
    order = _response_order(plan)
    stats.sort(key=lambda st: order.get(st.path, order.get(st.old_path, len(order))))
    return change_words(stats)


def _definitions(plan: Plan, path: str) -> list[str]:
    """The definitions the plan's change of ``path`` touches, as its grammar names them
    (asked only when the subject is made from the change)."""
    from ..grammar.code_tree import changed_definitions

    old, new = plan.base.get(path), plan.final.get(path)
    return [] if old is None or new is None else changed_definitions(path, old.data, new.data)


# aiapply.subjectLength must be a length: 0 or below is out of range
SUBJECT_MIN = 1


def message_settings(repo, opts: Options) -> tuple[bool, int]:
    """(trailers, subject length) from the options and aiapply.trailers and
    aiapply.subjectLength; a bad value of either is fatal.  The command reads them before
    any response, so a bad value stops it whatever the response holds."""
    trailers = repo.config_bool("aiapply.trailers", True) and opts.trailers
    return trailers, repo.config_int("aiapply.subjectLength", opts.subject_max, SUBJECT_MIN)


def build_commit_message(repo, parsed, response: Response, plan: Plan, opts: Options,
                         three_way_base: str | None = None) -> str:
    from ..message.message import build_message

    trailers, subject_max = message_settings(repo, opts)
    if opts.message is None and response.mail is not None:  # a format-patch mail's own
        opts = replace(opts, message=response.mail.message)
    if opts.message is not None:
        from ..git.githooks import cleanup_whitespace

        if not cleanup_whitespace(opts.message).strip():
            # as git commit -m "": nothing is committed (trailers are no message)
            raise ApplyError("Aborting commit due to empty commit message.", kind=ErrorKind.MESSAGE)
        msg = opts.message.strip("\n")
        if trailers:
            msg = add_trailers(msg, trailer_lines(parsed.formats, response.response_id,
                                                  response.model))
    else:
        from ..threeway.drift import without_base_lines

        msg = build_message(without_base_lines(parsed.explanation), formats=parsed.formats,
                            response_id=response.response_id, model=response.model,
                            descriptions=parsed.descriptions,
                            changed=lambda: _changed_words(plan),
                            names_of=lambda path: _definitions(plan, path),
                            subject_max=subject_max, trailers=trailers)
    paths = opts.path_options()
    if trailers and paths:
        msg = add_trailers(msg.rstrip("\n"), [f"{AI_PATHS}: {paths}"])
    if trailers and three_way_base:
        from ..threeway.drift import AI_BASE

        msg = add_trailers(msg.rstrip("\n"), [f"{AI_BASE}: {three_way_base}"])
    if opts.signoff:
        from ..git.ident import identity

        c = identity(repo, "committer")
        line = f"Signed-off-by: {c.name} <{c.email}>"
        if line not in msg:
            msg = add_trailers(msg, [line])
    return msg.rstrip("\n") + "\n"


def render_diff(plan: Plan, color: bool = False, renames: list | None = None) -> str:
    """The change as a git-style diff of the net change (renames shown as renames where
    git's diff finds them: ``renames`` from net_changes, else found here)."""
    from ..git.state import patch_text

    if renames is None:
        renames = [(st.old_path, st.path) for st in plan_stats(plan, None) if st.status == "R"]
    parts = []
    renamed_to = {new: old for old, new in renames}
    renamed_from = set(renamed_to.values())
    for path in plan.touched:
        old = plan.base.get(path)
        new = plan.final.get(path)
        if old == new:
            continue
        if path in renamed_from and new is None:
            continue  # shown with its destination
        old_path = renamed_to.get(path, path)
        if path in renamed_to:
            old = plan.base.get(old_path)
        old_data = old.data if old else None
        new_data = new.data if new else None
        text = patch_text(old_data, new_data, old_path, path)
        header = f"diff --git a/{old_path} b/{path}\n"
        body = text.split("\n", 1)[1] if text.startswith("diff --git") else text
        extra = ""
        if old is None:
            extra = f"new file mode {new.mode:o}\n"
            body = body.replace(f"--- a/{old_path}", "--- /dev/null", 1)
        elif new is None:
            extra = f"deleted file mode {old.mode:o}\n"
            body = body.replace(f"+++ b/{path}", "+++ /dev/null", 1)
        else:
            if old.mode != new.mode:
                extra += f"old mode {old.mode:o}\nnew mode {new.mode:o}\n"
            if old_path != path:
                # as git diff -M, so that git apply --stat/--summary read the same change
                score = similarity(old.data, new.data)
                extra += (f"similarity index {percent(score)}%\n"
                          f"rename from {old_path}\nrename to {path}\n")
        lines = body.splitlines(True)
        lines = [l for l in lines if not l.startswith(("new file mode", "deleted file mode"))]
        parts.append(header + extra + "".join(lines))
    out = "".join(parts)
    if color:
        out = colorize_diff(out)
    return out


def apply_one(repo, response: Response, opts: Options, *, editor=None, color: bool = False,
              after: dict | None = None) -> Outcome:
    """Apply (or check) one response; refusals come back as an Outcome, never raised.

    ``after`` (--check / --diff of a series): path -> state the earlier responses of the
    series leave, so that this one is judged on top of them."""
    out = Outcome(response, Status.REFUSED, 1, branch=opts.branch)
    if response.mail is not None:  # a format-patch mail: its author, under --author
        from ..git.ident import IDENTITY_OVERRIDES

        token = IDENTITY_OVERRIDES.set({**response.mail.identity(),
                                        **(IDENTITY_OVERRIDES.get() or {})})
        try:
            return _apply_one_outcome(repo, response, opts, out, editor, color, after)
        finally:
            IDENTITY_OVERRIDES.reset(token)
    return _apply_one_outcome(repo, response, opts, out, editor, color, after)


def _apply_one_outcome(repo, response: Response, opts: Options, out: Outcome, editor, color,
                       after) -> Outcome:
    try:
        # -v: the plan's reports fill out.edits (make_plan keeps those of a plan it makes)
        with edit_report.scope() if opts.verbose else nullcontext() as out.edits, \
                store_errors_fatal():  # a missing object: fatal, the --json object for it
            return _apply_one(repo, response, opts, out, editor=editor, color=color, after=after)
    except ApplyError as e:
        # keep what was learnt before the refusal (formats, branch, base, files)
        out.status, out.exit_code, out.commit = Status.REFUSED, 1, None
        out.problems, out.error_kind = e.problems, e.kind
        out.kept = list(getattr(e, "kept", None) or [])
        if out.kept:  # never "nothing was changed" (transaction.raise_with_kept)
            out.note = ("files changed during the run were left as they are: "
                        + ", ".join(out.kept))
        if opts.verbose:  # nothing landed (also a refusal after planning: dirty files, a hook)
            out.edits = []
        return out


@record
class _Start:
    """Where a run plans and commits: the base commit, and the branch or HEAD it moves."""

    base: object  # BaseCommit | None (an unborn branch)
    search_tip: str | None  # whose recent history may hold the response already
    refname: str | None = None  # --branch: the branch written
    tip: str | None = None  # --branch: its commit when planning (None: it is made)
    planned_head: tuple | None = None  # not --branch: HEAD (branch, id) as planned
    workdir: str | None = None  # not --branch: the worktree

    @property
    def branch_mode(self) -> bool:
        return self.refname is not None


def _apply_one(repo, response: Response, opts: Options, out: Outcome, *, editor, color,
               after=None) -> Outcome:
    """The run, step by step; a step that settles it returns ``out``, a refusal raises."""
    from functools import partial

    from ..verify.already import missing_edit
    from ..git.base_commit import applied_as
    from ..paths import normalize_path

    from ..paths import TrackedKinds, known_paths

    import os

    folder = os.path.basename(os.path.normpath(repo.workdir)) if repo.workdir else None
    # to tell a path from prose; the folder's name for Zed's project-prefixed paths
    with known_paths(TrackedKinds(repo.tracked_paths), folder):
        parsed = _read_changes(response, opts, out)
    if parsed is None:  # nothing to apply; out.note says why
        return out
    start = _branch_start(repo, opts, out) if opts.branch is not None else _head_start(repo, out)
    out.base = start.base.id if start.base is not None else None
    # the same response again, with the same path options, and the files still hold what
    # its commit made: nothing to do (after a revert it applies again; --force applies
    # regardless) ...
    done = None if opts.force else applied_as(repo, start.search_tip, response.response_id,
                                              opts.path_options(), start.base)
    base = _planning_snapshot(repo, opts, start, after)
    normalize = partial(normalize_path, worktree=repo.workdir or "")
    # ... while the files still hold every edit's result (after a revert, or a commit of
    # only some of its edits, it applies again)
    if done is not None and missing_edit(parsed.ops, base.entry, normalize) is None:
        return _already_applied(out, done, start)
    plan = _make_plan(repo, response, parsed.ops, opts, base, start, normalize, out)
    (out.changes, out.renames), out.plan = net_changes(plan), plan
    if plan.is_noop():
        out.status, out.exit_code = Status.NO_CHANGE, 0
        out.note = "the response's changes are already in place; nothing to commit"
        return out
    return _check_and_finish(repo, parsed, response, plan, opts, out, base, start, after,
                             editor=editor, color=color)


def _read_changes(response: Response, opts: Options, out: Outcome):
    """The text's change blocks and the answer's edit tool calls, in answer order, left to
    the path options; None when nothing is left and that is no error (``out`` says why)."""
    from ..formats import no_changes_problem
    from ..answer.toolcalls import parse_with_tools

    parsed = parse_with_tools(response, only=opts.format)
    out.formats = list(parsed.formats)
    out.note = "; ".join(parsed.notes) or None  # what was left out on purpose (an empty hunk)
    if parsed.ops and (opts.strip is not None or opts.directory is not None or opts.limits):
        from .limits import limit_ops

        parsed.ops = limit_ops(parsed.ops, opts.strip, opts.directory, opts.limits)
        if not parsed.ops:
            out.status, out.exit_code = Status.EMPTY, 0
            out.note = "every change of the response was left out by --include/--exclude"
            return None
    if not parsed.ops:
        if opts.allow_empty:
            out.status, out.exit_code, out.note = Status.EMPTY, 0, "no file changes found; nothing done"
            return None
        if opts.format is None:  # --format whole reads a fence after a tracked path?
            from .suggest import format_suggestion

            out.suggestion = format_suggestion(response.text)
        raise ApplyError(no_changes_problem(opts.format), kind=ErrorKind.EMPTY)
    return parsed


def _branch_start(repo, opts: Options, out: Outcome) -> _Start:
    """--branch: the branch to write (a symbolic ref: the branch it names, as git) and the
    commit to plan on: its tip, or for a new branch --base or HEAD."""
    from ..git.base_commit import base_at, branch_tip, current_head, resolve_base
    from ..git.refs import branch_in_use, branch_refname

    refname, tip = branch_tip(repo, branch_refname(opts.branch))
    # committing under a worktree's feet would make its index and files disagree
    # with its branch (git refuses `git branch -f` there for the same reason), and a
    # rebase in progress would drop the commit when it finishes or aborts; asked here to
    # refuse before any work, and again at the ref update (git/refs.py)
    why = branch_in_use(repo, refname)
    if why is not None:
        raise FatalError(f"branch {short_branch(refname)} is {why}; --branch only writes "
                         "branches that no worktree is using (leave out --branch to commit "
                         "onto the current branch, or name another branch)", kind=ErrorKind.STATE)
    if tip is not None:
        base = base_at(repo, tip)
        if opts.base:
            _refuse_base_outside(repo, refname, tip, opts.base)
    elif opts.base:
        base = resolve_base(repo, opts.base)
    else:
        base = base_at(repo, current_head(repo)[1])
    out.branch = short_branch(refname)
    # a new branch starts at its base: a response that base's history holds is
    # already applied there, as on a HEAD that holds it (docs/DECISIONS.md)
    search_tip = tip if tip is not None else (base.id if base is not None else None)
    return _Start(base, search_tip, refname=refname, tip=tip)


def _refuse_base_outside(repo, refname: str, tip: str, rev: str) -> None:
    """An existing branch is used at its tip; --base must then be in its history,
    otherwise the commit would not be "based on REV" as asked."""
    from ..git.base_commit import contains, resolve_base

    want = resolve_base(repo, rev)
    if not contains(repo, tip, want.id):
        raise ApplyError(Problem(
            f"branch {short_branch(refname)} already exists and does not contain "
            f"--base {rev} ({want.id[:12]})",
            hint="name a new branch, delete this one, or leave out --base to "
                 "commit on its tip"))


def _head_start(repo, out: Outcome) -> _Start:
    """Without --branch: HEAD as it is now, once no merge or rebase is in progress."""
    from ..git.base_commit import base_at, current_head

    if repo.workdir is not None:
        from ..git.checks import refuse_in_progress

        refuse_in_progress(repo)  # read-only now; again under the lock (transaction)
    planned_head = current_head(repo)
    base = base_at(repo, planned_head[1])
    out.branch = short_branch(planned_head[0]) if planned_head[0] else "HEAD (detached)"
    return _Start(base, planned_head[1], planned_head=planned_head, workdir=repo.workdir)


def _planning_snapshot(repo, opts: Options, start: _Start, after):
    """What the response is planned against: the base's tree, the worktree's untracked
    paths, the dirty files with --include-dirty, and ``after`` (a series' earlier
    responses) on top."""
    from ..git.base_commit import tree_snapshot, worktree_snapshot

    if opts.include_dirty and not start.branch_mode:
        base = worktree_snapshot(repo, start.base, start.workdir)
    else:
        # --cached never looks at the worktree: an untracked file in the way is no matter
        base = tree_snapshot(repo, start.base, None if opts.cached else start.workdir)
    if after:
        from ..plan.overlay import Overlay

        base = Overlay(base, after)
    return base


def _already_applied(out: Outcome, done: str, start: _Start) -> Outcome:
    out.status, out.exit_code, out.commit = Status.ALREADY_APPLIED, 0, done
    out.note = f"already applied as {done[:12]}; nothing to do"
    if start.branch_mode and start.tip is None:
        out.note = (f"already applied as {done[:12]}, in the base's history; "
                    f"nothing to do, no branch {out.branch} made")
    return out


def _make_plan(repo, response: Response, ops, opts: Options, base, start: _Start, normalize,
               out: Outcome) -> Plan:
    """The plan against ``base``; with -3, edits that do not fit there are planned at the
    answer's base and merged (``out`` records from which)."""
    from ..plan.plan import make_plan
    from ..threeway.repo import drift_refusal_or_none, through_base

    drift = None
    try:  # a named base's drifted line numbers place nothing here (BEHAVIOR.md §3)
        drift = drift_refusal_or_none(repo, response, ops, opts, base, start.base, normalize)
        if drift is not None:
            raise drift
        plan = make_plan(ops, base, normalize, ignore_case=repo.config_bool("core.ignorecase"))
    except ApplyError as e:
        if not opts.three_way or e.kind != ErrorKind.REFUSED:
            if e.kind == ErrorKind.REFUSED and drift is None:  # a fix the tool knows?
                from .suggest import refusal_suggestion

                out.suggestion = refusal_suggestion(repo, response, ops, opts, base,
                                                    start.base, normalize)
            raise
        three = through_base(repo, response, ops, opts, base, start.base, normalize, e)
        out.merged = {p: three.base for p in three.merged}
        out.three_way_base = three.base
        edit_report.mark_three_way(out.edits or [], three.base, three.merged)
        plan = three.plan
    _check_syntax(plan, opts, out)
    return plan


def _check_syntax(plan: Plan, opts: Options, out: Outcome) -> None:
    """The planned files' syntax (verify/syntax.py): refused, or reported with
    --syntax-check=warn; nothing is read with --syntax-check=off."""
    if opts.syntax_check == "off":
        return
    from ..verify.syntax import plan_problems

    problems = plan_problems(plan.final, plan.base, plan.renames)
    if not problems:
        return
    if opts.syntax_check == "warn":
        out.warnings.extend(problems)
        return
    raise ApplyError(problems)


def _check_and_finish(repo, parsed, response: Response, plan: Plan, opts: Options,
                      out: Outcome, base, start: _Start, after, *, editor, color) -> Outcome:
    """Touched files must be clean, then _finish.  When committing, the transaction makes
    this very check under index.lock, so the index (a large one costs as much to read as
    the rest of the run) is read only there; a refusal raised before the transaction
    still reports dirty files first, as a check made here would have."""
    check_dirty = bool(not start.branch_mode and not opts.include_dirty and start.workdir)
    defer_dirty = check_dirty and not (opts.check or opts.diff)
    if check_dirty and not defer_dirty:
        # paths an earlier response of the series changes are judged by that response
        _refuse_dirty(repo, base, plan, opts, start, skip=set(after or ()))
    try:
        return _finish(repo, parsed, response, plan, opts, out, start, editor=editor,
                       color=color)
    except _BeforeTransaction as e:
        if defer_dirty:
            _refuse_dirty(repo, base, plan, opts, start)
        raise e.error from None


class _BeforeTransaction(Exception):
    """A refusal raised before the worktree transaction started (see _refuse_dirty)."""

    def __init__(self, error: ApplyError):
        self.error = error


def _refuse_dirty(repo, base, plan: Plan, opts: Options, start: _Start,
                  skip: set = frozenset()) -> None:
    """The transaction's checks on the index and the touched files, read-only
    (git/base_commit.refuse_dirty_touched)."""
    from ..git.base_commit import refuse_dirty_touched

    touched = [p for p in plan.touched if p not in skip]
    refuse_dirty_touched(repo, base, touched, start.base, cached=opts.cached)


def _finish(repo, parsed, response: Response, plan: Plan, opts: Options, out: Outcome,
            start: _Start, *, editor, color) -> Outcome:
    """Message, diff/check, and the commit itself."""
    from ..git.signing import signer

    staging = opts.no_commit or opts.cached  # no commit: no message
    try:
        message = None if staging else build_commit_message(
            repo, parsed, response, plan, opts, three_way_base=out.three_way_base)
    except ApplyError as e:
        raise _BeforeTransaction(e) from None
    out.message = message
    if opts.diff:
        out.diff = render_diff(plan, color=color, renames=out.renames)
    if opts.check or opts.diff:
        out.status, out.exit_code = Status.WOULD_APPLY, 0
        return out

    if staging:
        return _stage(repo, plan, opts, out, start.planned_head)
    sign = signer(repo, opts.sign)
    if start.branch_mode:
        from ..git.base_commit import commit_onto_branch

        # hooks are skipped in branch mode unless --verify (docs/ATTEMPTS.md)
        res = commit_onto_branch(repo, plan, message, start.refname, start.base, start.tip,
                                 sign=sign, edit_message=editor if opts.edit else None,
                                 verify=opts.verify, formats=parsed.formats,
                                 no_verify=opts.no_verify)
    else:
        res = _commit_here(repo, parsed, plan, message, opts, sign, start.planned_head)
    out.hook_output = res.hook_output
    out.status, out.exit_code = Status.APPLIED, 0
    out.commit = res.commit
    out.message = res.message
    return out


def _commit_here(repo, parsed, plan: Plan, message: str, opts: Options, sign, planned_head):
    """The commit onto HEAD, worktree and index (transaction.commit_to_worktree), the
    hooks run as `git commit` runs them."""
    from ..git.githooks import run_editor
    from ..git.ident import identity
    from ..git.base_commit import commit_onto_head
    from ..git.transaction import CommitRequest

    env = {"GIT_AI_APPLY_FORMAT": ",".join(parsed.formats)}
    try:
        # git dies on a bad author before it does anything; the hooks are given the author
        # by the transaction (githooks.commit_hook_env)
        identity(repo, "author")
    except ApplyError as e:
        raise _BeforeTransaction(e) from None
    # --edit: the user edits .git/COMMIT_EDITMSG in place, between the hooks (as git)
    req = CommitRequest(plan, message, include_dirty=opts.include_dirty,
                        no_verify=opts.no_verify, hook_env=env,
                        edit_message=(lambda path: run_editor(repo, path)) if opts.edit else None,
                        sign=sign,
                        reflog_prefix=f"ai-apply (batch {opts.batch})" if opts.batch
                        else "ai-apply")
    return commit_onto_head(repo, req, planned_head)


def _stage(repo, plan: Plan, opts: Options, out: Outcome, planned_head) -> Outcome:
    """--no-commit / --cached: the plan staged (and written to the worktree), no commit,
    so no message, no hooks, no trailer."""
    from ..git.base_commit import stage

    stage(repo, plan, planned_head, cached=opts.cached, include_dirty=opts.include_dirty)
    out.status, out.exit_code = Status.STAGED, 0
    out.commit, out.message = None, None
    out.note = ("index only, worktree unchanged; nothing committed" if opts.cached
                else "nothing committed")
    return out
