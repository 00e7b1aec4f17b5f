"""One request, one preparation: what every front door (the command, the library, and
through it `serve` and `mcp`; --branch attempts through the command) does before a
response is read: the journal check, defaults from the config, the options checked, the
author and date, and whether the run commits to the worktree (then the index lock is
taken ahead).  Written once here so the front doors cannot disagree (issue 23).

A request is a dict of the library's option names (docs/API.md), plus ``limits`` (the
ordered --include/--exclude list) and ``edit`` (-e); absent or None: not given."""
from __future__ import annotations

from ..errors import ErrorKind, FatalError, UsageError
from .options import commits_to_worktree
from ..record import field, record

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


def prepare(repo, request: dict, *, words=None) -> Prepared:
    """``request`` made ready for ``repo``: UsageError for options the command refuses
    (``check_request``, its options named by ``words``: default the command line's
    flags), FatalError when the repository stops it (a leftover journal, a bad setting).
    Imports nothing heavy: the command takes the index lock ahead right after it, and
    reads the index while the pipeline is imported (bench/results.md)."""
    check_request(request, words)
    return prepare_checked(repo, request, words=words)


def prepare_checked(repo, request: dict, *, words=None) -> Prepared:
    """``prepare`` of a request ``check_request`` passed already (the command reads -F's
    file in between: an option it refuses leaves the file unread)."""
    from ..git.checks import refuse_interrupted, require_worktree

    branch = request.get("branch")
    if branch is None:
        refuse_interrupted(repo.gitdir)
    max_bytes = _max_bytes(repo, request.get("max_bytes"))
    three_way = _setting(request, repo, "three_way", "aiapply.threeWay")
    if _base_alone(request, three_way):
        # only the config can tell here (aiapply.threeWay): check_request did the rest
        raise UsageError(_base_why(request, words or flag_word))
    # --cached applies to the index as HEAD holds it: aiapply.includeDirty does not apply
    include_dirty = _setting(request, repo, "include_dirty", "aiapply.includeDirty") \
        and not request.get("cached")
    identity = author_env(repo, request.get("author"), request.get("date"))
    commits = commits_to_worktree(request)
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
        cached=bool(request.get("cached")), syntax_check=_syntax_check(repo, request))
    message_settings(repo, options)  # a bad aiapply.trailers or .subjectLength is fatal now
    return options


def lock_index_ahead(repo, prepared: Prepared) -> None:
    """A run that commits to the worktree will need the index: take the lock and read
    the index while the response is parsed (bench/results.md).  The caller releases it
    (``repo.release_index_lock()``) whatever happens."""
    if prepared.commits:
        repo.lock_index_ahead()


def max_response_bytes(repo) -> int:
    """aiapply.maxResponseBytes, the largest response read (0: no limit): its one reader,
    for the run, the library's file read and serve's request lines."""
    from ..answer.response import DEFAULT_MAX_BYTES

    return repo.config_int("aiapply.maxResponseBytes", DEFAULT_MAX_BYTES, 0)


def _max_bytes(repo, given: int | None) -> int:
    return max_response_bytes(repo) if given is None else given


def _setting(request: dict, repo, name: str, key: str) -> bool:
    """A yes/no option, from the config when not given."""
    value = request.get(name)
    return repo.config_bool(key, False) if value is None else bool(value)


# how the command line names the options its errors mention
FLAGS = {"base": "--base", "branch": "--branch", "three_way": "-3", "verify": "--verify",
         "no_verify": "--no-verify", "max_bytes": "--max-bytes", "strip": "-p",
         "no_commit": "--no-commit", "cached": "--cached", "message": "-m/-F",
         "edit": "--edit", "signoff": "--signoff", "sign": "-S", "author": "--author",
         "date": "--date", "include_dirty": "--include-dirty",
         "syntax_check": "--syntax-check"}


def flag_word(name: str) -> str:
    """An option as the command's errors name it: its flag."""
    return FLAGS[name]


def check_request(request: dict, words=None) -> None:
    """The usage errors of the options themselves, the one check every front door runs
    (the library's InvalidOptions comes from it): no repository needed, so it runs before
    anything is read.  ``words(name)`` says how an option is named (default: the command
    line's flags)."""
    say = words or flag_word
    for refused, why in _RULES:
        if refused(request):
            raise UsageError(why(request, say))
    check_staging(request, say)


def _format_unknown(request: dict) -> bool:
    if not request.get("format"):
        return False
    from ..formats import FORMAT_NAMES

    return request["format"] not in FORMAT_NAMES


def _known_formats(request: dict, say) -> str:
    from ..formats import FORMAT_NAMES

    return f"unknown format {request['format']!r}; known formats: {', '.join(FORMAT_NAMES)}"


def _syntax_mode_unknown(request: dict) -> bool:
    from ..verify.syntax import SYNTAX_MODES

    return request.get("syntax_check") not in (None,) + SYNTAX_MODES


def _known_syntax_modes(request: dict, say) -> str:
    from ..verify.syntax import SYNTAX_MODES

    return (f"unknown {say('syntax_check')} mode {request['syntax_check']!r}; one of: "
            f"{', '.join(SYNTAX_MODES)}")


def _syntax_check(repo, request: dict) -> str:
    """--syntax-check, else aiapply.syntaxCheck (a bad value is fatal), else refuse."""
    from ..verify.syntax import SYNTAX_MODES

    return (request.get("syntax_check") or repo.config_choice("aiapply.syntaxCheck", SYNTAX_MODES)
            or "refuse")


def _directory_problem(request: dict) -> str | None:
    from .limits import directory_problem

    return directory_problem(request.get("directory"))


def _base_alone(request: dict, three_way) -> bool:
    """--base without --branch or -3 (``three_way``: -3 given, or aiapply.threeWay)."""
    return bool(request.get("base")) and not request.get("branch") and not three_way


def _base_why(request: dict, say) -> str:
    return f"{say('base')} goes with {say('branch')} or {say('three_way')}"


def _below_zero(name: str):
    return lambda request: (request.get(name) or 0) < 0


# (refused?, why): each option's own usage error, in the order they are told
_RULES = (
    (_format_unknown, _known_formats),
    (_syntax_mode_unknown, _known_syntax_modes),
    # -3 turned off; not given (None), prepare_checked asks aiapply.threeWay
    (lambda r: r.get("three_way") is False and _base_alone(r, False), _base_why),
    (lambda r: r.get("verify") and (not r.get("branch") or r.get("no_verify")),
     lambda r, say: f"{say('verify')} goes with {say('branch')}, and not with "
                    f"{say('no_verify')}"),
    (_below_zero("max_bytes"),
     lambda r, say: f"{say('max_bytes')} takes a number of bytes, 0 (no limit) or more"),
    (_below_zero("strip"),
     lambda r, say: f"{say('strip')} takes a number of leading path components, 0 or more"),
    (_directory_problem, lambda r, say: _directory_problem(r)),
)

# what --no-commit and --cached cannot go with: there is no commit (for --branch: no
# commit is where that mode writes)
_COMMIT_ONLY = ("branch", "message", "edit", "signoff", "sign", "author", "date")


def check_staging(request: dict, say=flag_word) -> None:
    """Usage errors of --no-commit and --cached (docs/DECISIONS.md)."""
    if request.get("no_commit") and request.get("cached"):
        raise UsageError(f"{say('no_commit')} and {say('cached')} cannot be used together "
                         f"({say('cached')} writes the index only)")
    staging = ("no_commit" if request.get("no_commit")
               else "cached" if request.get("cached") else None)
    if staging is None:
        return
    given = [say(key) for key in _COMMIT_ONLY if request.get(key)]
    if staging == "cached" and request.get("include_dirty"):
        given.append(say("include_dirty"))  # the index is applied to as HEAD holds it
    if given:
        raise UsageError(f"{say(staging)} makes no commit: it cannot be used with "
                         + ", ".join(given))


def _format(repo, request: dict) -> str | None:
    """The format asked for (an unknown --format is check_request's usage error), else
    aiapply.format: an unknown value is a fatal error (``config``), as git treats a bad
    value of its settings."""
    from ..formats import FORMAT_NAMES

    return request.get("format") or repo.config_choice("aiapply.format", FORMAT_NAMES)


def author_env(repo, author: str | None, date: str | None) -> dict[str, str]:
    """The GIT_AUTHOR_NAME, _EMAIL and _DATE that --author and --date stand for, as git
    commit reads them (the library gives the same options); FatalError (usage) when the
    author is neither "Name <email>" nor a pattern matching an earlier author, or the date
    is not one git reads."""
    env: dict[str, str] = {}
    if author is not None:
        env.update(_author_names(repo, author))
    if date is not None:
        from ..dates import env_date, parse_commit_date

        parsed = parse_commit_date(date)
        if parsed is None:
            # git's words exactly (a program may match them); what is read: docs/DECISIONS.md
            raise FatalError(f"invalid date format: {date}", kind=ErrorKind.USAGE)
        env["GIT_AUTHOR_DATE"] = env_date(*parsed)  # as git commit exports it
    return env


def _author_names(repo, author: str) -> dict[str, str]:
    from ..git.ident import check_name, split_ident

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


def with_identity(prepared: Prepared, run, *args):
    """``run(*args)`` with the author and date the request gives (--author, --date) seen
    by the commit and its hooks: the one way every front door passes them, per thread and
    per call (git/ident.IDENTITY_OVERRIDES), never through the process's environment."""
    from ..git.ident import IDENTITY_OVERRIDES

    token = IDENTITY_OVERRIDES.set(prepared.identity or None)
    try:
        return run(*args)
    finally:
        IDENTITY_OVERRIDES.reset(token)
