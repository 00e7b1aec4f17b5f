"""`-3` against a repository, for pipeline.py: the commits an answer may have been written
against (the one it names, else those that changed its files), the answer applied at one
and merged into the current files (threeway/drift.py), and the drift rule of BEHAVIOR.md §3: when
the answer names a base that is not HEAD, the line numbers of a file changed since that
base are not evidence in the current file."""
from __future__ import annotations

from ..errors import ApplyError, Problem
from ..record import record


def drift_refusal_or_none(repo, response, ops, opts, current, base_commit, normalize
                          ) -> ApplyError | None:
    """Why the current files cannot place ``ops`` when the answer names its base: the
    edits of files changed since the base whose old side fits more than once, or fits the
    base at a place that changed since or now lies elsewhere than its fits (any of them
    with -3: they go through the base; without -3, those a line number or the base's
    place would decide, refused naming -3).  None when no base is named, it is HEAD, or nothing drifted."""
    named = _named_commit(repo, response, opts)
    if named is None or (base_commit is not None and named.id == base_commit.id):
        return None  # the common case: nothing more is loaded
    from ..git.base_commit import tree_snapshot
    from ..git.merge import unchanged_runs
    from .drift import drift_refusal, edits_off_their_base_place, edits_placed_by_base_lines

    at_base = tree_snapshot(repo, named, None)
    drifted = edits_placed_by_base_lines(ops, current, at_base, normalize)
    # an edit that fits the base, but now fits elsewhere than where that place went (or
    # the place changed since): the current file only fits it by accident (H3, H4)
    by_edit = {(d.path, d.number): d for d in drifted}
    for d in edits_off_their_base_place(ops, current, at_base, normalize, unchanged_runs):
        if (d.path, d.number) not in by_edit or not by_edit[d.path, d.number].stated_line:
            by_edit[d.path, d.number] = d
    drifted = list(by_edit.values())
    if not opts.three_way:
        drifted = [d for d in drifted if d.stated_line]
    return drift_refusal(drifted, named.id) if drifted else None


def _named_commit(repo, response, opts):
    """The commit --base (without --branch), the answer's AI-Base line or its JSON names,
    when this repository has it (a wrong echoed line falls back to the search)."""
    from ..git.base_commit import resolve_base
    from .drift import base_named_in

    named = (opts.base if opts.branch is None else None) or base_named_in(response.text) \
        or response.json_base
    if not named:
        return None
    return resolve_base(repo, named) if named == opts.base else _commit_or_none(repo, named)


def through_base(repo, response, ops, opts, current, base_commit, normalize,
                 refusal: ApplyError):
    """``ops`` applied at the commit the answer was written against and merged into the
    current files (threeway/drift.py); ``refusal`` (why they do not fit now) when no base fits."""
    from .drift import plan_at_base

    found = plan_at_base(ops, _candidates(repo, response, ops, opts, base_commit, normalize),
                         normalize)
    if found is None:
        hint = (f"-3: no commit among the last {opts.three_way_depth} that changed these files "
                "holds the lines the edits expect either")
        raise ApplyError([*refusal.problems, Problem(hint)], kind=refusal.kind) from None
    return _merged(repo, found, opts, current, base_commit, normalize)


def _merged(repo, found, opts, current, base_commit, normalize):
    """The answer planned at a candidate (``found``: the candidate and the plan there)
    merged into ``current``, the files at ``base_commit``: a ThreeWayPlan; a conflict is
    raised.  The merge runs in memory (git/merge.py): nothing is written."""
    from ..git.merge import merge_file, removed_in, renamed_since
    from .drift import merge_into_current

    cand, at_base = found
    missing = [p for p in at_base.final
               if at_base.base.get(p) is not None and current.entry(p) is None]
    moved = renamed_since(repo, cand.commit, base_commit.tree if base_commit else None,
                          missing) if missing else {}
    head = base_commit.id if base_commit is not None else None
    # --branch plans on a commit: its attributes, not the worktree's, choose the driver
    attrs_at = head if opts.branch is not None else None
    return merge_into_current(
        at_base, cand.commit, current, lambda p: moved.get(p, p),
        lambda path, a, o, t: merge_file(repo, path, a, o, t, commit=attrs_at), normalize,
        removed_by=lambda p: removed_in(repo, head, cand.commit, p),
        ignore_case=repo.config_bool("core.ignorecase"))


@record
class Trial:
    """What ``-3`` would do with an answer that does not fit the current files, found in
    memory (no object written): the commit it would apply the answer at, the answer
    planned there, and the merge into the current files (None: it conflicts)."""

    base: str
    at_base: object  # the Plan at ``base``
    merged: object | None  # the Plan against the current files, None on a conflict


def three_way_trial(repo, response, ops, opts, current, base_commit, normalize) -> Trial | None:
    """``-3`` tried for a refusal to name (without -3): the base it names or the newest
    of the commits -3 searches (as bounded) where every edit fits, when some edit's old
    lines are not in the current files as written, and the merge -3 would make there, run
    in memory; None when no older commit fits."""
    from .drift import fits_exactly, plan_at_base

    if fits_exactly(ops, current, normalize):
        return None  # the lines are there: not a matter of an older base
    try:
        found = plan_at_base(ops, _candidates(repo, response, ops, opts, base_commit,
                                              normalize), normalize)
    except ApplyError:
        return None  # the base it names does not fit either
    if found is None or (base_commit is not None and found[0].commit == base_commit.id):
        return None
    try:
        merged = _merged(repo, found, opts, current, base_commit, normalize).plan
    except ApplyError:
        merged = None
    return Trial(found[0].commit, found[1], merged)


def _candidates(repo, response, ops, opts, base_commit, normalize):
    """The commits the answer may have been written against: the one it (or --base) names,
    else those that changed its files, newest first."""
    from ..git.base_commit import base_at, tree_snapshot
    from ..git.merge import commits_touching
    from .drift import Candidate

    commit = _named_commit(repo, response, opts)
    if commit is not None:
        yield Candidate(commit.id, tree_snapshot(repo, commit, None), named=True)
        return
    paths = sorted({p for p in (op_path(op, normalize) for op in ops) if p})
    start = base_commit.id if base_commit is not None else None
    for cid in commits_touching(repo, start, paths, opts.three_way_depth):
        yield Candidate(cid, tree_snapshot(repo, base_at(repo, cid), None))


def _commit_or_none(repo, rev: str):
    """The commit an AI-Base line names, or None when this repository has no such commit
    (the line is the model's echo: a wrong one falls back to the search)."""
    from ..errors import UsageError
    from ..git.base_commit import resolve_base

    try:
        return resolve_base(repo, rev)
    except UsageError:
        return None


def op_path(op, normalize) -> str | None:
    """The repository path an operation names (its source for a move), or None."""
    raw = getattr(op, "path", None) or getattr(op, "old_path", None)
    if not raw:
        return None
    try:
        return normalize(raw)
    except ApplyError:
        return None
