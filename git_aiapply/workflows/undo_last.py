"""`git ai-apply undo`: take back the commit git ai-apply just made.

Allowed only when it is safe without asking: HEAD is the commit this tool put there,
exactly as it made it (the branch's newest reflog entry moves it to a commit id that one
of the tool's own entries made: its own move, or a reset or checkout back onto it; an
amend or a rebase makes another id, so an amended commit is refused even though it kept
the trailer), it is not a merge, it is not
in any remote-tracking branch (pushed history; ``--force`` overrides this one check), and
every file it touched is exactly as it left it (worktree = index = HEAD).  Then the branch
moves back to where the tool found it (the parent; before a fast-forward `pick`, the old
HEAD) with a reflog entry, ORIG_HEAD names the undone commit (``git reset --hard
ORIG_HEAD`` redoes it), and those files and their index entries are restored.  Everything
else in the index and the worktree stays as it is.

The same transaction as an apply: index.lock held throughout, a journal while the
worktree changes (``git ai-apply recover``), files written through a rename, and any
failure puts everything back.
"""
from __future__ import annotations

import re

from ..errors import ApplyError, FatalError, Problem
from ..record import record
from ..git.refs import short_branch
from ..message.trailers import AI_RESPONSE, trailer_values

# the reflog entries the apply and pick transactions write when they move a branch (never
# "ai-apply undo: ...", whose new value is an older commit, nor a roll-back)
# (a run of several responses marks its commits' entries with one batch id)
_OUR_REFLOG = re.compile(r"^ai-apply(?: pick [^:]*?)?(?: \(batch (?P<batch>[0-9a-f]+)\))?"
                         r"(?: \(initial\))?: ")
_ROLLED_BACK = ("ai-apply: rolled back", "ai-apply undo: rolled back")
_UNDO = "ai-apply undo: "


@record
class OwnCommit:
    """How the tool put HEAD's commit there: the reflog entry it wrote."""

    new: str  # the commit the tool moved the branch to (HEAD now)
    old: str | None  # where the branch was before (None: unborn)
    message: str
    batch: str | None = None  # the batch id of a run of several responses


def _reverses(later, earlier) -> bool:
    """``later`` moved the branch straight back from where ``earlier`` moved it."""
    return later.new == earlier.old and later.old == earlier.new


def _settled_entries(entries: list) -> int:
    """Index of the newest entry still in force: a roll-back or an undo and the moves it
    reversed (newest first: the reversal, then the moves) are skipped, so that the tool's
    earlier commits can be undone one after another."""
    i = 0
    while i < len(entries):
        msg = entries[i].message.strip()
        if msg in _ROLLED_BACK:
            if i + 1 < len(entries) and _reverses(entries[i], entries[i + 1]):
                i += 2
                continue
            break
        after = _after_undone(entries, i) if msg.startswith(_UNDO) else None
        if after is None:
            break
        i = after
    return i


def _after_undone(entries: list, i: int) -> int | None:
    """The index just below the tool's moves that the undo at ``i`` took back (one commit,
    or a batch: a chain of the tool's entries from where the undo started back to where it
    moved the branch), or None when the entries below are not that chain."""
    back_to, at = entries[i].new, entries[i].old
    k = i + 1
    while at != back_to:
        if k >= len(entries) or entries[k].new != at or _own_entry(entries[k]) is None:
            return None
        at = entries[k].old
        k += 1
    return k if k > i + 1 else None


def _own_entry(e) -> "OwnCommit | None":
    """The tool's own move in reflog entry ``e`` (a RefMove), or None."""
    msg = e.message.strip()
    m = _OUR_REFLOG.match(msg)
    if m is None or msg in _ROLLED_BACK:
        return None
    return OwnCommit(e.new, e.old, msg, m.group("batch"))


def _in_the_way(repo, entries: list, i: int, short: str, head_id: str) -> str:
    """Which commit stands between HEAD and the tool's newest commit still in HEAD's
    history (one an undo or a rewrite took away is no longer behind it), for the refusal."""
    from ..git.commits import commit_facts, descends_from

    for e in entries[i + 1:]:
        own = _own_entry(e)
        if own is not None and (own.new == head_id or descends_from(repo, head_id, own.new)):
            facts = commit_facts(repo, own.new)
            subject = facts.message.split("\n", 1)[0] if facts is not None else "?"
            return (f"; git ai-apply's newest commit on {short}, {own.new[:7]} "
                    f"({subject!r}), is behind it, and only the commit at HEAD can be undone")
    return ""


def own_head_commit(repo, refname: str, head_id: str) -> "OwnCommit | str":
    """The tool's own move of ``refname`` to ``head_id`` when it is the newest thing that
    happened to the branch (a failed run's move and its roll-back are skipped), else why
    undo must refuse.

    The branch's reflog is the record: the tool wrote an entry (``ai-apply: ...``) with
    the commit id it made; any later amend, reset, rebase, commit or update-ref adds an
    entry of its own, and a ref written without one no longer matches the newest entry."""
    from ..git.commits import reflog_moves

    entries = reflog_moves(repo, refname)
    i = _settled_entries(entries)
    short = short_branch(refname)
    if i >= len(entries):
        return (f"{short} has no reflog (core.logAllRefUpdates is off?), so nothing shows that "
                "it is still the commit git ai-apply made")
    e = entries[i]
    msg = e.message.strip()
    if e.new != head_id:
        return (f"{short} moved without a reflog entry since its last recorded change "
                f"({msg!r} to {e.new[:7]})")
    own = _own_entry(e)
    if own is None:
        # HEAD is back on a commit the tool made (a reset, a checkout): the commit is the
        # one it made, unchanged (its id says so), however HEAD got there
        own = next((o for o in map(_own_entry, entries[i + 1:])
                    if o is not None and o.new == head_id), None)
    if own is None:
        how = "amended" if msg.startswith("commit (amend)") else "changed"
        return (f"the last entry of {short}'s reflog is {msg!r}, not a commit of git ai-apply's "
                f"(the commit was {how} since git ai-apply made it, or was never its own)"
                + _in_the_way(repo, entries, i, short, head_id))
    return own


def own_batch(repo, refname: str, newest: OwnCommit) -> list[OwnCommit]:
    """The commits of the run that made ``newest``, newest first: the entries below it with
    the same batch id, each moving the branch from where the next older one left it."""
    from ..git.commits import reflog_moves

    chain = [newest]
    if newest.batch is None:
        return chain
    entries = reflog_moves(repo, refname)
    i = next((k for k, e in enumerate(entries) if e.new == newest.new), len(entries))
    for e in entries[i + 1:]:
        own = _own_entry(e)
        if own is None or own.batch != newest.batch or own.new != chain[-1].old:
            break
        chain.append(own)
    return chain


def undo(repo, force: bool = False, batch: bool = False) -> dict:
    """Undo HEAD (with ``batch``: every commit of the run that made it); returns what was
    done (for the summary and --json); raises ApplyError when it is refused (nothing
    changed)."""
    from ..git.checks import require_worktree
    from ..git.commits import changed_entries, commit_facts
    from ..git.take_back import take_back_commit

    require_worktree(repo, "undo needs a worktree (this is a bare repository)")
    branch, head_id = repo.head()
    if head_id is None:
        raise ApplyError(Problem("there is no commit to undo (the branch has no commits yet)"))
    commit = commit_facts(repo, head_id)
    subject = commit.message.split("\n", 1)[0]
    label = f"{head_id[:7]} ({subject!r})"
    refname = branch or "HEAD"
    own = _own_head_or_refuse(repo, refname, commit, label)
    chain = own_batch(repo, refname, own) if batch else [own]
    _refuse_merges(repo, chain)
    # back to where the tool found the branch: the parent of an applied commit, the old
    # HEAD of a fast-forward pick (which may have brought several commits)
    parent = chain[-1].old
    _refuse_base_not_behind(repo, parent, head_id, label)
    if parent is None and branch is None:
        raise ApplyError(Problem(f"HEAD {label} is a root commit on a detached HEAD; there is "
                                 "nothing to move back to"))
    remotes = _refuse_published(repo, chain, label, force)
    changes = changed_entries(repo, parent, head_id)
    _refuse_submodules(changes)
    take_back_commit(repo, (branch, head_id), parent, changes, f"ai-apply undo: {subject}")
    return {"status": "undone", "undone": head_id, "subject": subject,
            "commits": [one.new for one in chain],
            "branch": short_branch(branch), "head": parent, "files": _file_actions(changes),
            "pushed_to": remotes}


def _own_head_or_refuse(repo, refname: str, commit, label: str) -> OwnCommit:
    """The tool's own move to HEAD (``commit``), or the refusal saying why it is not."""
    own = own_head_commit(repo, refname, commit.id)
    if isinstance(own, str) and not repo.config_bool("core.logAllRefUpdates", True):
        own = ("no reflog is kept (core.logAllRefUpdates=false), so nothing shows that it is "
               "still the commit git ai-apply made")
    if isinstance(own, str):
        made = "is not the commit git ai-apply made, as it made it" if trailer_values(
            commit.raw_message, AI_RESPONSE) else "was not made by git ai-apply"
        raise ApplyError(Problem(
            f"HEAD {label} {made}: {own}",
            hint="undo only takes back this tool's own last commit, unchanged and still at "
                 "HEAD; use `git revert` or `git reset` for other commits"))
    return own


def _refuse_merges(repo, chain: list[OwnCommit]) -> None:
    """Undo takes back no merge commit."""
    from ..git.commits import commit_facts

    for one in chain:
        if len(commit_facts(repo, one.new).parents) > 1:
            raise ApplyError(Problem(
                f"{one.new[:7]} is a merge commit; undo does not take back merges",
                hint="use `git reset` yourself"))


def _refuse_base_not_behind(repo, parent: str | None, head_id: str, label: str) -> None:
    """Where the tool found the branch must be in HEAD's history to move back there."""
    from ..git.commits import descends_from

    if parent is not None and parent != head_id and not descends_from(repo, head_id, parent):
        raise ApplyError(Problem(
            f"HEAD {label}: the branch was at {parent[:7]} before git ai-apply moved it, "
            "which is not in HEAD's history", hint="use `git reset` yourself"))


def _refuse_published(repo, chain: list[OwnCommit], label: str, force: bool) -> list[str]:
    """The remote-tracking branches holding the oldest undone commit; refused when there
    are any, unless ``force``."""
    from ..git.commits import remote_branches_containing

    remotes = remote_branches_containing(repo, chain[-1].new)
    if remotes and not force:
        what = f"HEAD {label}" if len(chain) == 1 else chain[-1].new[:7]
        raise ApplyError(Problem(
            f"{what} is already in {', '.join(remotes[:5])}: undoing it would rewrite "
            "published history",
            hint="use `git revert HEAD` to take it back with a new commit, or pass --force "
                 "if you will force-push"))
    return remotes


def _refuse_submodules(changes: dict) -> None:
    """Undo changes no submodule."""
    from ..plan.plan import MODE_EXEC, MODE_FILE, MODE_LINK

    for path, (old, new) in changes.items():
        for ent in (old, new):
            if ent is not None and ent[0] not in (MODE_FILE, MODE_EXEC, MODE_LINK):
                raise ApplyError(Problem(f"{path} is a submodule; undo does not change submodules",
                                         file=path, hint="use `git reset` yourself"))


def _file_actions(changes: dict) -> list[dict]:
    """--json's ``files``: what undo did to each path."""
    files = []
    for path in sorted(changes):
        old, new = changes[path]
        action = "restore" if new is None else ("remove" if old is None else "revert")
        files.append({"path": path, "action": action})
    return files


def refusal_object(e: ApplyError) -> dict:
    """``undo --json``'s object for a refused undo (docs/JSON.md)."""
    return {"status": "refused", "exit_code": 1, "error_kind": e.kind,
            "errors": [p.to_json() for p in e.problems], "error_text": e.render()}


def fatal_object(e: FatalError) -> dict:
    """``undo --json``'s object when the repository or the environment stopped it: the
    fields and the status ``fatal`` of a fatal apply (docs/JSON.md)."""
    from ..errors import fault_of

    return {"status": "fatal", "exit_code": 128, "error_kind": e.kind,
            "fault": fault_of(e.kind), "errors": [Problem(e.message).to_json()],
            "error_text": e.message}
