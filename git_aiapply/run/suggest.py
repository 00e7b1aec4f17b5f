"""The fix a refusal can name because the tool already knows it (issue 35): the
``suggestion`` of a refused outcome (``--json``, the library's Result, serve, MCP; docs/
JSON.md), and the line the command prints after the reasons.

- ``already-applied``: the answer's edits do not fit because their result is already in
  the files: one of the tool's own commits on the branch made that change and the files
  still hold it (threeway/made.py), or -3's merge of it into the files changes nothing;
- ``three-way``: the edits do not fit the files as they are, fit a commit that `-3`
  would apply them at (it searches as -3 does, bounded alike), and -3's merge, tried in
  memory (no object written, git/merge.py), is clean; a merge that conflicts names no fix;
- ``format``: no change block was found, and ``--format whole`` reads a fenced block
  after a line naming a tracked file.

Each is asked only after the refusal it explains, so a plain run pays nothing for it.
"""
from __future__ import annotations

def refusal_suggestion(repo, response, ops, opts, current, base_commit,
                       normalize) -> dict | None:
    """What fixes a refusal of ``ops`` planned against ``current`` (the files at
    ``base_commit``, the branch's tip), or None.  Computed, never guessed from the
    answer's context lines: the change is already in the files (a commit of the tool's
    holds it, or -3's merge of it into the files would change nothing), else the base -3
    would apply it at, when -3's merge (tried in memory) goes through cleanly."""
    from ..errors import ApplyError
    from ..threeway.made import made_by
    from ..threeway.repo import three_way_trial

    tip = base_commit.id if base_commit is not None else None
    try:  # a path the planner refuses is its refusal's matter, not a suggestion's
        done = applied_in(repo, ops, current, base_commit, normalize, opts.three_way_depth)
        if done is not None:
            return already_applied(done)
        trial = three_way_trial(repo, response, ops, opts, current, base_commit, normalize)
        if trial is None:
            return None
        done = made_by(repo, trial.at_base, current, tip, opts.three_way_depth)
    except ApplyError:
        return None
    if done is not None or (trial.merged is not None and trial.merged.is_noop()):
        return already_applied(done)
    # a merge that conflicts is -3's refusal too: nothing to promise
    return None if trial.merged is None else three_way(trial.base)


def applied_in(repo, ops, current, base_commit, normalize, depth: int) -> str | None:
    """The tool's commit on the branch's recent history (``depth`` commits back) that
    made the change ``ops`` describe, when the files still hold every edit's result and
    the commit's parent did not (so the change is that commit's, and not a subset of
    edits that cannot be read back); None otherwise."""
    from ..git.base_commit import base_at, tree_snapshot
    from ..git.repo import tool_commits_touching
    from ..verify.already import missing_edit

    if base_commit is None or missing_edit(ops, current.entry, normalize) is not None:
        return None
    from ..threeway.repo import op_path

    paths = sorted({p for p in (op_path(op, normalize) for op in ops) if p})
    for commit, parent in tool_commits_touching(repo, base_commit.id, paths, depth):
        at = tree_snapshot(repo, base_at(repo, commit), None)
        before = tree_snapshot(repo, base_at(repo, parent), None)
        if missing_edit(ops, at.entry, normalize) is None \
                and missing_edit(ops, before.entry, normalize) is not None:
            return commit
    return None


def format_suggestion(text: str) -> dict | None:
    """``--format whole`` when it reads a change of a tracked file in ``text`` (a fenced
    block after a line naming the file), for a response where no format found one; None
    otherwise.  Asked while the repository's tracked paths are known (paths.known_paths)."""
    from ..errors import ApplyError
    from ..formats import parse_response
    from ..paths import tracked_kind

    try:
        ops = parse_response(text, "whole").ops
    except ApplyError:
        return None
    if not any(tracked_kind(getattr(op, "path", "") or "") == "file" for op in ops):
        return None
    return {"kind": "format", "format": "whole", "argv": ["--format", "whole"],
            "text": "retry with --format whole: a fenced block follows a line naming a "
                    "tracked file, and --format whole reads it as that file's new content"}


def already_applied(commit: str | None) -> dict:
    """The change is in the files: made by ``commit`` (one of the tool's), or by hand
    (None: -3's merge of it into the files changes nothing)."""
    if commit is None:
        return {"kind": "already-applied", "argv": [],
                "text": "already in place: the files hold the change this answer makes "
                        "(-3 would merge nothing new into them); nothing to do"}
    return {"kind": "already-applied", "commit": commit, "argv": [],
            "text": f"already applied in {commit[:12]}: that commit of the tool's made the "
                    "change this answer makes, and the files still hold it; nothing to do"}


def three_way(base: str) -> dict:
    return {"kind": "three-way", "base": base, "argv": ["-3"],
            "text": f"retry with -3 (base {base[:12]}): every edit fits that commit, the "
                    "one the answer was written against; -3 applies it there and merges "
                    "the result into the files as they are now (tried: it merges cleanly)"}
