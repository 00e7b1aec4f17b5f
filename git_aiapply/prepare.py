"""One request, one preparation: what every front door (the command, the library, and
through it `serve` and `mcp`; --branch attempts through the command) does before a
response is read: the journal check, defaults from the config, the options checked, the
author and date, and whether the run commits to the worktree (then the index lock is
taken ahead).  Written once here so the front doors cannot disagree (issue 23).

A request is a dict of the library's option names (docs/API.md), plus ``limits`` (the
ordered --include/--exclude list) and ``edit`` (-e); absent or None: not given."""
from __future__ import annotations

from .errors import ErrorKind, FatalError, UsageError
from .record import field, record

TYPE_CHECKING = False  # `typing` stays off the start-up path (record.py)
if TYPE_CHECKING:
    from .pipeline import Options


@record
class Prepared:
    """A request made ready, before anything heavy is imported: the request, the response
    size limit, the yes/no settings read from the config, the GIT_AUTHOR_* the author and
    date options stand for, and whether the run commits to the worktree (the index lock
    is taken ahead then).  ``options_for`` makes the pipeline's Options of it."""

    request: dict
    max_bytes: int
    include_dirty: bool = False
    three_way: bool = False
    identity: dict = field(default_factory=dict)
    commits: bool = False


def prepare(repo, request: dict, *, words: dict | None = None) -> Prepared:
    """``request`` made ready for ``repo``: FatalError when the repository stops it (a
    leftover journal, a bad setting), UsageError for options the command refuses, its
    options named as in ``words`` (the library's names; default: the command line's).
    Imports nothing heavy: the command takes the index lock ahead right after it, and
    reads the index while the pipeline is imported (bench/results.md)."""
    from .git.checks import refuse_interrupted, require_worktree

    branch = request.get("branch")
    if branch is None:
        refuse_interrupted(repo.gitdir)
    max_bytes = _max_bytes(repo, request.get("max_bytes"))
    three_way = _setting(request, repo, "three_way", "aiapply.threeWay")
    _check_combinations(request, three_way, words or FLAGS)
    check_staging(request)
    # --cached applies to the index as HEAD holds it: aiapply.includeDirty does not apply
    include_dirty = _setting(request, repo, "include_dirty", "aiapply.includeDirty") \
        and not request.get("cached")
    identity = author_env(repo, request.get("author"), request.get("date"))
    commits = branch is None and not (request.get("check") or request.get("diff"))
    if commits:
        # nowhere to commit: said before the response is read and planned
        require_worktree(repo, "this is a bare repository: --no-commit and --cached stage "
                               "into a worktree's index"
                         if request.get("no_commit") or request.get("cached") else None)
    return Prepared(request, max_bytes, include_dirty, three_way, identity, commits)


def options_for(repo, prepared: Prepared) -> Options:
    """The pipeline's Options for a prepared request; FatalError for a bad aiapply.format,
    .trailers, .subjectLength or .threeWayDepth (the repository's settings, as git treats
    a bad value of its own), before any response is planned."""
    from .pipeline import Options, message_settings

    request = prepared.request
    options = Options(
        check=bool(request.get("check")), diff=bool(request.get("diff")),
        include_dirty=prepared.include_dirty, allow_empty=bool(request.get("allow_empty")),
        format=_format(repo, request), message=request.get("message"),
        edit=bool(request.get("edit")), no_verify=bool(request.get("no_verify")),
        verify=bool(request.get("verify")), branch=request.get("branch"),
        base=request.get("base"), signoff=bool(request.get("signoff")),
        sign=request.get("sign"), trailers=request.get("trailers", True) is not False,
        strip=request.get("strip"), directory=request.get("directory"),
        limits=tuple(request.get("limits") or ()), force=bool(request.get("force")),
        three_way=prepared.three_way,
        three_way_depth=repo.config_int("aiapply.threeWayDepth", 50, 1),
        verbose=bool(request.get("verbose")), no_commit=bool(request.get("no_commit")),
        cached=bool(request.get("cached")))
    message_settings(repo, options)  # a bad aiapply.trailers or .subjectLength is fatal now
    return options


def lock_index_ahead(repo, prepared: Prepared) -> None:
    """A run that commits to the worktree will need the index: take the lock and read
    the index while the response is parsed (bench/results.md).  The caller releases it
    (``repo.release_index_lock()``) whatever happens."""
    if prepared.commits:
        repo.lock_index_ahead()


def _max_bytes(repo, given: int | None) -> int:
    from .response import DEFAULT_MAX_BYTES

    if given is None:
        return repo.config_int("aiapply.maxResponseBytes", DEFAULT_MAX_BYTES, 0)
    if given < 0:
        raise UsageError("--max-bytes takes a number of bytes, 0 (no limit) or more")
    return given


def _setting(request: dict, repo, name: str, key: str) -> bool:
    """A yes/no option, from the config when not given."""
    value = request.get(name)
    return repo.config_bool(key, False) if value is None else bool(value)


# how the command line names the options its errors mention
FLAGS = {"base": "--base", "branch": "--branch", "three_way": "-3"}


def _check_combinations(request: dict, three_way: bool, words: dict) -> None:
    from .limits import directory_problem

    branch = request.get("branch")
    if request.get("base") and not branch and not three_way:
        # only the config can tell here (aiapply.threeWay): the library checked the rest
        raise UsageError(f"{words['base']} goes with {words['branch']} or {words['three_way']}")
    if request.get("verify") and (not branch or request.get("no_verify")):
        raise UsageError("--verify goes with --branch, and not with --no-verify")
    strip = request.get("strip")
    if strip is not None and strip < 0:
        raise UsageError("-p takes a number of leading path components, 0 or more")
    problem = directory_problem(request.get("directory"))
    if problem:
        raise UsageError(problem)


# what --no-commit and --cached cannot go with: there is no commit (for --branch: no
# commit is where that mode writes)
_COMMIT_ONLY = (("branch", "--branch"), ("message", "-m/-F"), ("edit", "--edit"),
                ("signoff", "--signoff"), ("sign", "-S"), ("author", "--author"),
                ("date", "--date"))


def check_staging(request: dict) -> None:
    """Usage errors of --no-commit and --cached (docs/DECISIONS.md)."""
    if request.get("no_commit") and request.get("cached"):
        raise UsageError("--no-commit and --cached cannot be used together (--cached "
                         "writes the index only)")
    staging = ("--no-commit" if request.get("no_commit")
               else "--cached" if request.get("cached") else None)
    if staging is None:
        return
    given = [flag for key, flag in _COMMIT_ONLY if request.get(key)]
    if request.get("cached") and request.get("include_dirty"):
        given.append("--include-dirty")  # the index is applied to as HEAD holds it
    if given:
        raise UsageError(f"{staging} makes no commit: it cannot be used with "
                         + ", ".join(given))


def _format(repo, request: dict) -> str | None:
    """The format asked for: an unknown --format is a usage error, an unknown
    aiapply.format a fatal one (``config``), as git treats a bad value of its settings."""
    from .formats import FORMAT_NAMES

    given = request.get("format")
    if given:
        if given not in FORMAT_NAMES:
            raise UsageError(f"unknown format {given!r}; known formats: "
                             f"{', '.join(FORMAT_NAMES)}")
        return given
    return repo.config_choice("aiapply.format", FORMAT_NAMES)


def author_env(repo, author: str | None, date: str | None) -> dict[str, str]:
    """The GIT_AUTHOR_NAME, _EMAIL and _DATE that --author and --date stand for, as git
    commit reads them (the library gives the same options); FatalError (usage) when the
    author is neither "Name <email>" nor a pattern matching an earlier author, or the date
    is not one git reads."""
    env: dict[str, str] = {}
    if author is not None:
        env.update(_author_names(repo, author))
    if date is not None:
        from .dates import parse_commit_date

        parsed = parse_commit_date(date)
        if parsed is None:
            # git's words exactly (a program may match them); what is read: docs/DECISIONS.md
            raise FatalError(f"invalid date format: {date}", kind=ErrorKind.USAGE)
        # as git commit exports it to the commit and its hooks: "@SECONDS +ZONE"
        secs, off = parsed
        sign = "-" if off < 0 else "+"
        env["GIT_AUTHOR_DATE"] = f"@{secs} {sign}{abs(off) // 60:02d}{abs(off) % 60:02d}"
    return env


def _author_names(repo, author: str) -> dict[str, str]:
    from .git.ident import check_name, split_ident

    # as git: a value without '>' is a pattern matched against earlier authors
    if ">" not in author:
        found = _find_author(repo, author)
        if found is None:
            raise FatalError(f"--author '{author}' is not 'Name <email>' and matches no "
                             "existing author", kind=ErrorKind.USAGE)
        author = found
    split = split_ident(author)
    if split is None:
        raise FatalError("malformed --author parameter", kind=ErrorKind.USAGE)
    try:
        check_name(*split)  # git dies on these before it does anything
    except FatalError as e:
        raise FatalError(e.message, kind=ErrorKind.USAGE) from None
    return {"GIT_AUTHOR_NAME": split[0], "GIT_AUTHOR_EMAIL": split[1]}


def _find_author(repo, pattern: str) -> str | None:
    """git commit --author PATTERN: the most recent author matching it, "Name <email>"."""
    import subprocess

    try:
        p = subprocess.run(["git", f"--git-dir={repo.gitdir}", "log", "--all", "-i", "-1",
                            "--format=%an <%ae>", f"--author={pattern}"],
                           capture_output=True, text=True)
    except OSError:
        return None
    return p.stdout.strip() or None if p.returncode == 0 else None
