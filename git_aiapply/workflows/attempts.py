"""Branch per attempt (BEHAVIOR.md §9, docs/ATTEMPTS.md): many candidate responses to one
task, each committed onto its own branch without touching HEAD, the index or the
worktree; then `attempts` to list and prune those branches and `pick` to bring one onto
the current branch.

- ``run_attempts``: every response is tried on its own (a refusal does not stop the
  others); ``{n}`` / ``{name}`` in the branch template; responses from files, folders
  and JSON Lines files; a summary table (or ``--json``) at the end.
- ``list_attempts``: the branches whose tip this tool made (an ``AI-Response`` trailer),
  with their base, format, model and size (`attempts`, commands/attempts.py; ``--prune``
  deletes them).
- ``pick``: fast-forward when the attempt sits right on HEAD, otherwise its change
  is merged onto HEAD and committed through the ordinary worktree transaction (clean
  files only, hooks, rollback); commands/pick.py reports it.

``--verify`` (the commit hooks of a branch-mode commit, run in a temporary linked
worktree) is git/githooks.py's ``verify_in_worktree``.
"""
from __future__ import annotations

import os
import re
import sys
from ..record import record, replace

from ..errors import AiApplyError, ApplyError, ErrorKind, FatalError, Problem, UsageError
from ..run.inputs import Input, expand_inputs
from ..run.pipeline import Status
from ..run.term import clear_progress, isatty, progress_bar, table_lines, write
from ..message.trailers import AI_FORMAT, AI_MODEL, AI_RESPONSE, parse_trailers

TYPE_CHECKING = False  # `typing` stays off the start-up path (record.py)
if TYPE_CHECKING:
    from ..git.commits import CommitFacts

# More responses than this get a progress bar (when stderr is a terminal).
PROGRESS_MIN = 4


# --------------------------------------------------------------------------- templates


def _check_template(template: str) -> None:
    import string

    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as e:
        raise UsageError(f"bad --branch template {template!r}: {e}") from None
    for _text, field, spec, conv in fields:
        if field is None:
            continue
        if field not in ("n", "name") or conv:
            raise UsageError(f"bad --branch template {template!r}: unknown placeholder "
                             f"{{{field}{'!' + conv if conv else ''}}}; use {{n}} or {{name}}")
        try:
            format(1 if field == "n" else "x", spec or "")
        except ValueError:
            raise UsageError(f"bad --branch template {template!r}: bad format "
                             f"{{{field}:{spec}}}") from None


def ref_safe(name: str) -> str:
    """A response's stem made usable inside a branch name: characters git refuses in
    ref names (spaces, ~^:?*[\\, controls, "..", "@{") become "-"."""
    out = []
    for ch in name:
        if ord(ch) < 0x20 or ord(ch) == 0x7F or ch in " ~^:?*[\\/":
            out.append("-")
        else:
            out.append(ch)
    s = "".join(out)
    while ".." in s:
        s = s.replace("..", ".")
    s = s.replace("@{", "@-")
    s = s.strip(".-")
    while s.endswith(".lock"):
        s = s[: -len(".lock")].rstrip(".-")
    return s or "response"


def expand_template(template: str, n: int, stem: str) -> str:
    return template.format(n=n, name=ref_safe(stem))


# --------------------------------------------------------------------------- the run


_STATUS_WORDS = {Status.APPLIED: "applied", Status.ALREADY_APPLIED: "already applied",
                 Status.NO_CHANGE: "no change", Status.WOULD_APPLY: "would apply",
                 Status.EMPTY: "empty", Status.REFUSED: "refused"}


def run_attempts(repo, inputs, opts, branch_template: str, *, as_json: bool = False,
                 quiet: bool = False, max_bytes: int | None = None) -> int:
    """Try every response onto its own branch; print the summary; 0 if all applied."""
    from ..answer.response import DEFAULT_MAX_BYTES

    if max_bytes is None:
        max_bytes = DEFAULT_MAX_BYTES
    _check_template(branch_template)
    items = expand_inputs(inputs, max_bytes)
    if opts.edit and len(items) > 1:
        raise UsageError("--edit with several responses would open the editor for each; "
                         "use -m or -F for a common message")
    # one base for the whole run, named once (a bad --base is a usage error up front)
    if opts.base:
        from ..git.commits import resolve_commit_id

        opts = replace(opts, base=resolve_commit_id(repo, opts.base))
    branches = _branch_names(branch_template, items)

    show_progress = (len(items) >= PROGRESS_MIN and not quiet and isatty(sys.stderr))
    outcomes = _each_attempt(repo, items, branches, opts, max_bytes, as_json, show_progress)
    codes = {o.exit_code for _n, _i, o in outcomes}
    code = 128 if 128 in codes else (0 if codes <= {0} else 1)
    if as_json:
        return code
    _print_summary(outcomes, quiet, checking=opts.check or opts.diff, to_stderr=opts.diff)
    for _n, _i, o in outcomes:  # -v: each attempt's edits, by its branch
        for e in o.edits or ():
            write(f"{o.branch}: {e.render()}", err=True)
    return code


def _each_attempt(repo, items: list, branches: list, opts, max_bytes: int, as_json: bool,
                  show_progress: bool) -> list[tuple[int, Input, object]]:
    """Every attempt in order, each shown as it ends; (n, input, Outcome) of each."""
    outcomes: list[tuple[int, Input, object]] = []
    try:
        for n, (item, branch) in enumerate(zip(items, branches), 1):
            if show_progress:
                progress_bar(n - 1, len(items), item.label)
            o = _attempt_one(repo, item, branch, opts, max_bytes)
            outcomes.append((n, item, o))
            _show_attempt(n, item, branch, o, as_json=as_json, show_progress=show_progress)
    except KeyboardInterrupt:
        # the commits made stay and are named (run/term.interrupted); with --json the
        # attempt cut after its commit gets its line too
        if show_progress:
            clear_progress()
        if as_json and len(outcomes) < len(items):
            _interrupted_line(len(outcomes) + 1, items[len(outcomes)], branches[len(outcomes)])
        raise
    if show_progress:
        clear_progress()
    return outcomes


def _interrupted_line(n: int, item: Input, branch: str) -> None:
    """--json, Ctrl-C during attempt ``n``: its line when its commit was made (the branch
    moved, git/commits_made.py), so that no harness reads "not run" for a commit."""
    from ..git.commits_made import made
    from ..run.pipeline import Outcome
    from ..answer.response import blank_response

    for made_on, commit_id, subject in made()[1]:
        if made_on == branch:
            o = Outcome(blank_response(item.label, model=item.model, stem=item.stem),
                        Status.APPLIED, 130, commit=commit_id, branch=branch, message=subject,
                        note="interrupted after the commit was made; the commit stays")
            import json

            write(json.dumps(dict(o.to_json(), n=n, input=item.label)))
            sys.stdout.flush()


def _branch_names(branch_template: str, items: list) -> list[str]:
    """Each response's branch from the template; two responses on one branch is a usage
    error, up front."""
    branches = [expand_template(branch_template, n, it.stem) for n, it in enumerate(items, 1)]
    seen: dict[str, int] = {}
    for n, b in enumerate(branches, 1):
        if b in seen:
            raise UsageError(
                f"--branch {branch_template!r} gives responses {seen[b]} and {n} the same branch "
                f"{b!r}; put {{n}} in it (or {{name}} with distinct file names)")
        seen[b] = n
    return branches


def _attempt_one(repo, item: Input, branch: str, opts, max_bytes: int):
    """One response onto its branch, as an Outcome: every refusal, fatal error or bug of
    this attempt is its outcome, so that the others still run."""
    from ..run.pipeline import Outcome
    from ..answer.response import blank_response

    empty = blank_response(item.label, model=item.model, stem=item.stem)
    try:
        o = _apply_to_branch(repo, item, branch, opts, max_bytes)
    except ApplyError as e:
        o = Outcome(empty, Status.REFUSED, 1, problems=e.problems, error_kind=e.kind, branch=branch)
    except FatalError as e:  # the repository or the environment: not this response's fault
        o = Outcome(empty, Status.FATAL, 128, problems=[Problem(e.message)], error_kind=e.kind,
                    branch=branch)
    except UsageError as e:
        o = Outcome(empty, Status.REFUSED, 1, problems=[Problem(str(e))],
                    error_kind=ErrorKind.USAGE, branch=branch)
    except AiApplyError as e:
        o = Outcome(empty, Status.REFUSED, 1, problems=[Problem(str(e))], branch=branch)
    except Exception as e:  # a bug in one attempt must not cost the others
        o = Outcome(empty, Status.REFUSED, 1, branch=branch, error_kind=ErrorKind.INTERNAL,
                    problems=[Problem(f"internal error: {type(e).__name__}: {e}")])
    if o.branch is None:
        o.branch = branch
    if opts.verbose and o.edits is None:  # -v: refused before planning, nothing landed
        o.edits = []
    return o


def _apply_to_branch(repo, item: Input, branch: str, opts, max_bytes: int):
    """Read ``item``'s response and apply it onto ``branch`` (pipeline.apply_one)."""
    from ..git.refs import branch_refname
    from ..run.pipeline import apply_one
    from ..answer.response import read_response

    try:
        branch_refname(branch)
    except UsageError as e:
        raise ApplyError(Problem(f"{e}", hint="the branch name comes from the --branch "
                                              "template; change it")) from None
    if item.problem is not None:
        raise ApplyError(item.problem, kind=ErrorKind.PARSE)
    resp = read_response(item.raw, name=item.stem, max_bytes=max_bytes)
    resp.name = item.stem
    if item.model and not resp.model:
        resp.model = item.model
    return apply_one(repo, resp, replace(opts, branch=branch))


def _show_attempt(n: int, item: Input, branch: str, o, *, as_json: bool,
                  show_progress: bool) -> None:
    """As soon as an attempt is done: its JSON Lines object (docs/JSON.md), or with
    --diff its diff."""
    if as_json:
        if show_progress:
            clear_progress()
        import json

        write(json.dumps(dict(o.to_json(), n=n, input=item.label)))
        sys.stdout.flush()
    elif o.diff is not None:
        if show_progress:
            clear_progress()
        write(f"==> {item.label} -> {branch} <==")
        write(o.diff, nl=False)


def _first_error(o) -> str:
    if not o.problems:
        return ""
    p = o.problems[0]
    first = p.render().split("\n", 1)[0]
    more = len(o.problems) - 1
    return first + (f" (+{more} more)" if more > 0 else "")


def _print_summary(outcomes, quiet: bool, checking: bool = False, to_stderr: bool = False) -> None:
    """The table; on stderr with --diff, so that stdout holds only the diffs."""
    refused = [o for _n, _i, o in outcomes if o.exit_code != 0]
    if quiet:
        for _n, item, o in outcomes:
            if o.exit_code != 0:
                write(f"error: {item.label}: refused: {_first_error(o)}", err=True)
        return
    rows = [("#", "RESPONSE", "BRANCH", "STATUS", "FILES", "+/-", "FIRST ERROR")]
    for n, item, o in outcomes:
        files = str(len(o.changes)) if o.changes else ("-" if o.exit_code else "0")
        size = f"+{o.added} -{o.removed}" if o.changes else "-"
        status = _STATUS_WORDS.get(o.status, o.status)
        if o.status == Status.APPLIED and o.commit:
            status += f" {o.commit[:7]}"
        rows.append((str(n), item.label, o.branch or "", status, files, size, _first_error(o)))
    for line in table_lines(rows, wrap_last=True):
        write(line, err=to_stderr)
    total = len(outcomes)
    ok = total - len(refused)
    tail = f"{ok} of {total} {'would apply' if checking else 'applied'}"
    if refused:
        tail += (f", {len(refused)} refused ({'' if checking else 'no branch made for those; '}"
                 "--json gives every error)")
    write(tail, err=to_stderr)


# --------------------------------------------------------------------------- --verify


# --------------------------------------------------------------------------- describing


@record
class Attempt:
    """An attempt branch as `attempts` shows it."""

    branch: str
    refname: str
    tip: CommitFacts
    commits: list  # the attempt's own commits (CommitFacts), newest first
    base: CommitFacts | None  # None: a root attempt
    head_id: str | None  # HEAD's commit id when described
    format: str | None
    model: str | None
    response: str | None
    files: int
    added: int
    removed: int
    checked_out: str | None  # the worktree folder where it is checked out
    kept_because: str | None = None  # why `--prune` keeps it (None: the tool's own)
    in_use: str | None = None  # how a worktree uses it (checked out, rebased, bisected there)

    @property
    def state(self) -> str:
        """'on HEAD' (pick fast-forwards), 'HEAD moved' (pick re-applies), 'in HEAD'."""
        if not self.commits:
            return "in HEAD"
        if self.head_id is not None and self.base is not None and self.base.id == self.head_id:
            return "on HEAD"
        if self.head_id is None and self.base is None:
            return "on HEAD"
        return "HEAD moved"

    def to_json(self) -> dict:
        return {"branch": self.branch, "tip": self.tip.id,
                "base": self.base.id if self.base is not None else None,
                "base_is_head": self.state == "on HEAD", "state": self.state,
                "commits": len(self.commits), "format": self.format, "model": self.model,
                "response_id": self.response, "files": self.files, "added": self.added,
                "removed": self.removed, "subject": subject_of(self.tip),
                "checked_out": self.checked_out, "in_use": self.in_use,
                "prunable": self.kept_because is None and self.in_use is None,
                "kept_because": self.kept_because}


def subject_of(commit) -> str:
    return commit.message.split("\n", 1)[0]


def _is_ai_commit(commit) -> bool:
    return AI_RESPONSE in parse_trailers(commit.message)


def describe(repo, refname: str, head_id, used: dict | None = None) -> Attempt | None:
    """The attempt on ``refname``, or None when its tip was not made by this tool.

    The attempt's commits are the run of ai-apply commits (AI-Response trailer) down the
    first-parent line from the tip, stopping at HEAD's history; the commit below them
    is the attempt's base.  ``used``: git.refs.branch_uses, the branches worktrees use."""
    from ..git.commits import branch_tip_facts, diff_stats, first_parent_run

    tip = branch_tip_facts(repo, refname)
    if tip is None or not _is_ai_commit(tip):
        return None
    head = str(head_id) if head_id is not None else None
    run = first_parent_run(repo, tip.id, head, _is_ai_commit)
    files, added, removed = diff_stats(repo, run.base.id if run.base is not None else None,
                                       tip.id)
    t = parse_trailers(tip.message)
    short = refname[len("refs/heads/"):]
    how, where = (used or {}).get(refname, (None, None))
    return Attempt(short, refname, tip, run.commits, run.base, head, t.get(AI_FORMAT),
                   t.get(AI_MODEL), t.get(AI_RESPONSE), files, added, removed,
                   where if how == "checked out" else None, prune_verdict(repo, refname, tip.id),
                   f"{how} in {where}" if how is not None else None)


# --------------------------------------------------------------------------- what prune may delete

# the reflog entry `--branch` writes when it creates a branch (git.commit_to_branch), and
# the entries it writes for later commits onto it
_CREATED = re.compile(r"^ai-apply(?: \(initial\))?: created branch from ([0-9a-f]{40,64}|nothing)"
                      r"(?::|$)")
_BRANCH_COMMIT = re.compile(r"^ai-apply(?: \(initial\))?: ")


def prune_verdict(repo, refname: str, tip_id) -> str | None:
    """None when ``refname`` (now at ``tip_id``) may be deleted: `--branch` created it
    (its reflog begins with the tool's creation entry) and every commit beyond its base is
    the tool's own (each a later reflog entry of the tool's, a commit with the AI-Response
    trailer on top of the previous one, the last one the tip).  Otherwise why it is kept.

    The reflog is git's own per-branch record: it goes with the branch (deleted with it,
    carried by a rename) and every git command that moves the branch adds to it, so a
    commit, amend, reset or rebase by anyone shows there."""
    from ..git.commits import reflog_moves

    entries = reflog_moves(repo, refname)[::-1]  # oldest first
    if not entries:
        return "it has no reflog, so nothing shows it was created by `git ai-apply --branch`"
    first = entries[0]
    created = _CREATED.match(first.message)
    if created is None or first.old is not None:
        return (f"it was not created by `git ai-apply --branch` (its reflog begins with "
                f"{first.message.strip()!r})")
    base = None if created.group(1) == "nothing" else created.group(1)
    made = [first.new]
    for e in entries[1:]:
        msg = e.message.strip()
        if not _BRANCH_COMMIT.match(msg) or e.old != made[-1]:
            return (f"it was changed by something other than git ai-apply --branch (its reflog "
                    f"says {msg!r}): someone committed on it, reset or rebased it")
        made.append(e.new)
    if str(tip_id) != made[-1]:
        return (f"it moved without a reflog entry (it is at {str(tip_id)[:7]}, the tool left it "
                f"at {made[-1][:7]})")
    return _chain_verdict(repo, base, made)


def _chain_verdict(repo, base: str | None, made: list[str]) -> str | None:
    """The chain of commits from the base to the tip: each the tool's, each on the previous
    (None), or why not."""
    from ..git.commits import commit_facts

    below = base
    for oid in made:
        c = commit_facts(repo, oid)
        if c is None:
            return f"its commit {oid[:7]} is missing"
        if list(c.parents) != ([below] if below else []):
            return f"its commit {oid[:7]} is not on top of the one before it"
        if not _is_ai_commit(c):
            return f"its commit {oid[:7]} has no AI-Response trailer"
        below = oid
    return None


def prune_choice(found: list[Attempt]) -> tuple[list[Attempt], list[tuple[str, str]]]:
    """`attempts --prune`: the attempts to delete, and (branch, why) of those kept: used by
    a worktree (checked out, rebased or bisected there), or not the tool's own
    (``prune_verdict``)."""
    doomed = [a for a in found if a.in_use is None and a.kept_because is None]
    kept = []
    for a in found:
        if a.in_use is not None:
            kept.append((a.branch, f"it is {a.in_use}"))
        elif a.kept_because is not None:
            kept.append((a.branch, a.kept_because))
    return doomed, kept


def delete_attempts(repo, doomed: list[Attempt]):
    """Delete each attempt's branch while it is still at the tip described; yields
    (attempt, None) or (attempt, the error that kept it: moved, or a worktree took it up
    since the listing), one by one."""
    from ..git.refs import BranchInUse, delete_branch_at

    for a in doomed:
        try:
            delete_branch_at(repo, a.refname, a.tip.id)
        except (ApplyError, BranchInUse) as e:
            yield a, e
            continue
        yield a, None


def listing_json(repo, found: list[Attempt]) -> dict:
    """`attempts --json`'s object: HEAD's commit id and the attempts."""
    head_id = repo.head()[1]
    return {"head": str(head_id) if head_id else None, "attempts": [a.to_json() for a in found]}


def _matches(short: str, pattern: str | None) -> bool:
    import fnmatch

    if not pattern:
        return True
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(short, pattern)
    # a plain name lists that branch or the branches under it (`attempts try` = try/*)
    p = pattern.rstrip("/")
    return short == p or short.startswith(p + "/")


def list_attempts(repo, pattern: str | None) -> list[Attempt]:
    from ..git.commits import branch_refnames
    from ..git.refs import branch_uses

    head_branch, head_id = repo.head()
    checked = branch_uses(repo)
    out = []
    for refname in branch_refnames(repo):
        if refname == head_branch:
            continue
        if not _matches(refname[len("refs/heads/"):], pattern):
            continue
        a = describe(repo, refname, head_id, checked)
        if a is not None:
            out.append(a)
    # numbered attempts in number order: try/2 before try/10
    import re

    def key(a):
        return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", a.branch)]

    return sorted(out, key=key)


# --------------------------------------------------------------------------- pick


def untracked_in_the_way(repo, plan, head_id) -> list[Problem]:
    """New paths of the plan where the worktree has something git does not track (or a
    file where a folder must go): git refuses to overwrite those, and so do we."""
    from ..git.commits import paths_in_commit

    new_paths = [p for p, st in plan.final.items() if st is not None and plan.base.get(p) is None]
    tracked = paths_in_commit(repo, head_id, new_paths)
    problems = []
    for p in new_paths:
        if p not in tracked and os.path.lexists(os.path.join(repo.workdir, p)):
            problems.append(Problem(f"{p} exists but is not tracked by git; pick never "
                                    "overwrites an untracked file", file=p,
                                    hint="move it away first"))
            continue
        problems.extend(_file_in_the_way(repo, plan, p))
    return problems


def _file_in_the_way(repo, plan, p: str) -> list[Problem]:
    """The first leading folder of new path ``p`` that is something else on disk (and the
    plan does not remove), as a problem."""
    import stat

    parts = p.split("/")
    for i in range(1, len(parts)):
        d = os.path.join(repo.workdir, *parts[:i])
        try:
            m = os.lstat(d).st_mode
        except OSError:
            break
        if not stat.S_ISDIR(m):
            rel = "/".join(parts[:i])
            in_plan = plan.final.get(rel, 0) is None
            if not in_plan:
                return [Problem(f"{rel} is in the way of {p}", file=p)]
            break
    return []


@record
class Picked:
    """What `pick` did, for the command to report: ``nothing`` says why nothing was
    picked; otherwise the commit (``result``, of ``plan``), whether it fast-forwarded,
    the warnings met on the way and whether the branch was deleted."""

    branch: str
    label: str  # the branch picked onto, as git names it
    nothing: str | None = None
    fast: bool = False
    result: object = None  # git.transaction.CommitResult
    plan: object = None
    warnings: tuple = ()
    deleted: bool = False
    tip: str = ""  # the attempt's tip commit id


def pick(repo, branch: str, no_verify: bool = False, no_ff: bool = False,
         delete_branch: bool = False) -> Picked:
    """Bring attempt ``branch`` onto the current branch (`git ai-apply pick`); raises
    ApplyError when refused (nothing changed)."""
    from ..git.checks import refuse_interrupted, require_worktree
    from ..git.pick_change import commit_pick, fast_forward_plan
    from ..git.refs import branch_refname

    require_worktree(repo, "pick needs a worktree; this is a bare repository")
    refuse_interrupted(repo.gitdir)  # the repository's state: fatal, as apply says it
    refname = branch_refname(branch)
    planned_head = repo.head()
    head_branch, head_id = planned_head
    if refname == head_branch:
        raise UsageError(f"{branch} is the current branch; check out the branch to pick onto")
    attempt = _attempt_or_refuse(repo, branch, refname, head_id)
    label = short_head(head_branch)
    if attempt.state == "in HEAD":
        return Picked(branch, label, nothing=f"{branch} is already in {label}; nothing to pick")
    tip = attempt.tip
    if attempt.state == "on HEAD" and not no_ff:
        plan = fast_forward_plan(repo, head_id, tip.id)
        fast = True
        commit = dict(message=tip.message, fast_forward_to=tip.id,
                      reflog_prefix=f"ai-apply pick {branch} (fast-forward)")
    else:
        from ..git.signing import signer

        fast = False
        plan, message = merged_plan(repo, attempt, head_id)
        if plan is None:
            return Picked(branch, label, nothing=f"the change of {branch} is already in "
                                                 f"{label}; nothing to pick")
        commit = dict(message=message, no_verify=no_verify,
                      hook_env={"GIT_AI_APPLY_FORMAT": attempt.format or ""},
                      reflog_prefix=f"ai-apply pick {branch}", sign=signer(repo, None),
                      hook_hints=_PICK_HOOK_HINTS)
    problems = untracked_in_the_way(repo, plan, head_id)
    if problems:
        raise ApplyError(problems, kind=ErrorKind.DIRTY)
    res = commit_pick(repo, plan, planned_head=planned_head, **commit)
    warnings, deleted = _delete_picked(repo, branch, attempt, delete_branch)
    return Picked(branch, label, fast=fast, result=res, plan=plan,
                  warnings=tuple(warnings), deleted=deleted, tip=tip.id)


def _attempt_or_refuse(repo, branch: str, refname: str, head_id) -> Attempt:
    """The attempt on ``refname``; a usage error when there is no such branch, a refusal
    when its tip is not the tool's."""
    from ..git.commits import ref_exists
    from ..git.refs import branch_uses

    attempt = describe(repo, refname, head_id, branch_uses(repo))
    if attempt is None:
        if not ref_exists(repo, refname):
            raise UsageError(f"no branch {branch!r}")
        raise ApplyError(Problem(f"{branch} is not an attempt branch: its last commit was "
                                 "not made by git ai-apply (no AI-Response trailer)",
                                 hint="use git merge or git cherry-pick for other branches"))
    return attempt


def _delete_picked(repo, branch: str, attempt: Attempt,
                   delete_branch: bool) -> tuple[list[str], bool]:
    """`pick -d`: delete the attempt's branch when it is the tool's own and no worktree
    uses it (asked again at the delete itself); (warnings, deleted)."""
    from ..git.refs import BranchInUse, delete_branch_at

    if not delete_branch:
        return [], False
    # the same rules as `attempts --prune`: never delete someone's commits, nor a branch
    # a worktree is using
    why = attempt.kept_because or (f"it is {attempt.in_use}" if attempt.in_use else None)
    if why is not None:
        return [f"warning: kept {branch}: {why}"], False
    try:
        delete_branch_at(repo, attempt.refname, attempt.tip.id)
    except (ApplyError, BranchInUse) as e:
        return [f"warning: {e.render()}"], False
    return [], True


_PICK_HOOK_HINTS = {
    "pre-commit": "the hook checks the files being committed, here the attempt's change "
                  "merged onto HEAD: fix what it complains about on the attempt branch and "
                  "pick again (or pass --no-verify to skip pre-commit and commit-msg)",
    "commit-msg": "the hook checks the commit message, here the attempt's: pass --no-verify "
                  "to skip it, then change the message with `git commit --amend`",
    "prepare-commit-msg": "fix the hook; --no-verify does not skip prepare-commit-msg",
}


def short_head(head_branch: str | None) -> str:
    from ..git.refs import short_branch

    return "HEAD (detached)" if head_branch is None else short_branch(head_branch)


def merged_plan(repo, attempt: Attempt, head_id):
    """The attempt's change (base -> tip) merged onto HEAD's tree, as git cherry-pick
    would (three-way, renames followed); a conflict refuses.  (None, None) when HEAD
    already holds the result."""
    from ..git.pick_change import merged_change

    merged = merged_change(repo, attempt.base.id if attempt.base is not None else None,
                           head_id, attempt.tip.id)
    if merged.conflicts is not None:
        raise ApplyError([Problem(f"the attempt's change conflicts with what "
                                  f"{short_head(repo.head()[0])} changed since the attempt's "
                                  "base", file=p,
                                  hint="pick onto the attempt's base, or re-run the attempt on "
                                       "the current HEAD") for p in merged.conflicts],
                         kind=ErrorKind.CONFLICT)
    if merged.plan is None:
        return None, None
    messages = [c.message.rstrip("\n") for c in reversed(attempt.commits)]
    message = "\n\n".join(messages) + "\n"
    return merged.plan, message
