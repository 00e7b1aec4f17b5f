"""The apply command's options, declared once.

``APPLY_OPTIONS`` is the one table: ``parse_apply_args`` (the click-free parser that
main.py runs for `git ai-apply [OPTIONS] RESPONSE...`, the form agents and hooks run
thousands of times) and the click command of cli/app.py (help, subcommands, error messages)
are both built from it, so the two cannot disagree.  No click here: this module is on
the start-up path.
"""
from __future__ import annotations

# What an option takes:
FLAG = "flag"  # stores True
CONST = "const"  # stores its ``const`` (two options sharing a parameter: -S / --no-gpg-sign)
VALUE = "value"  # the next argument (or --name=VALUE, -xVALUE)
VALUES = "values"  # like VALUE, may repeat: a tuple in order
INT = "int"  # a whole number


_UNSET = object()


class Opt:
    __slots__ = ("names", "dest", "kind", "default", "const", "metavar", "help", "ordered")

    def __init__(self, names, dest, kind, help, *, default=_UNSET, const=None, metavar=None,
                 ordered=None):
        self.names = names
        self.dest = dest
        self.kind = kind
        self.help = help
        if default is _UNSET:  # a flag is off, a repeated option empty, a value unset
            default = {FLAG: False, VALUES: ()}.get(kind)
        self.default = default
        self.const = const
        self.metavar = metavar
        # also recorded, as (dest, value) in command-line order, under this parameter
        self.ordered = ordered


APPLY_OPTIONS: list[Opt] = [
    Opt(("--format",), "fmt", VALUE, "Only look for this format (file-changes, hashline, "
        "apply-patch, codechange, unified-diff, ...: see the manual).", metavar="NAME"),
    Opt(("--check",), "check", FLAG, "Do everything but write; exit 0 if it would apply."),
    Opt(("--diff",), "show_diff", FLAG, "Print the resulting diff; write nothing."),
    Opt(("--stat",), "stat", FLAG, "Print a diffstat of the change instead of applying it, "
        "as git apply --stat."),
    Opt(("--numstat",), "numstat", FLAG, "Print added and deleted lines per file instead of "
        "applying, as git apply --numstat."),
    Opt(("--summary",), "summary", FLAG, "Print created, deleted and renamed files and mode "
        "changes instead of applying, as git apply --summary."),
    Opt(("--json",), "as_json", FLAG, "Print the outcome as one JSON object (docs/JSON.md)."),
    Opt(("--include-dirty",), "include_dirty", FLAG, "Apply on top of uncommitted changes of "
        "the touched files (they go into the commit).", default=None),
    Opt(("--allow-empty",), "allow_empty", FLAG, "A response with no change block is not an "
        "error."),
    Opt(("-3", "--3way"), "three_way", FLAG, "When an edit does not fit, apply the response "
        "at the commit it was written against (--base REV, an AI-Base line, or the newest of "
        "the recent commits where it fits) and merge the result in, as git apply -3 "
        "(aiapply.threeWay).", default=None),
    Opt(("--force",), "force", FLAG, "Apply even when the history holds a commit of this "
        "response (by its AI-Response trailer) whose result the files still hold."),
    Opt(("-p",), "strip", INT, "Remove N leading path components from the response's paths, "
        "as git apply -p (a git diff's a/ b/ prefix counts as the first).", metavar="N"),
    Opt(("--directory",), "directory", VALUE, "Prepend DIR to the response's paths, as "
        "git apply --directory.", metavar="DIR"),
    Opt(("--include",), "include", VALUES, "Only apply the changes to paths matching PATTERN "
        "(may repeat; the first matching --include/--exclude decides), as git apply.",
        metavar="PATTERN", ordered="limits"),
    Opt(("--exclude",), "exclude", VALUES, "Leave out the changes to paths matching PATTERN "
        "(may repeat), as git apply.", metavar="PATTERN", ordered="limits"),
    Opt(("-m", "--message"), "messages", VALUES, "Use this commit message (several -m: "
        "paragraphs).", metavar="MSG"),
    Opt(("-F", "--file"), "message_file", VALUE, "Take the commit message from this file "
        "(- for standard input).", metavar="FILE"),
    Opt(("-e", "--edit"), "edit", FLAG, "Edit the message in your editor, as git commit -e."),
    Opt(("--author",), "author", VALUE, "Override the commit author, as git commit --author "
        "(\"Name <email>\", or a pattern matched against earlier authors).",
        metavar="AUTHOR"),
    Opt(("--date",), "date", VALUE, "Override the author date, as git commit --date.",
        metavar="DATE"),
    Opt(("-n", "--no-verify"), "no_verify", FLAG, "Skip the pre-commit and commit-msg hooks."),
    Opt(("--verify",), "verify", FLAG, "With --branch: run the commit hooks in a temporary "
        "worktree (branch mode skips them by default)."),
    Opt(("--no-commit",), "no_commit", FLAG, "Apply to the index and the worktree without "
        "committing (no commit hooks), as git apply --index."),
    Opt(("--cached",), "cached", FLAG, "Apply to the index only, as git apply --cached: the "
        "worktree is not touched, nothing is committed."),
    Opt(("--branch",), "branch", VALUE, "Commit onto branch NAME without touching HEAD, the "
        "index or the worktree ({n} and {name} give each response its own branch).",
        metavar="NAME"),
    Opt(("--base",), "base", VALUE, "With --branch: where a new branch starts (default "
        "HEAD); with -3 alone: the commit the response was written against.", metavar="REV"),
    Opt(("-s", "--signoff"), "signoff", FLAG, "Add a Signed-off-by trailer."),
    Opt(("-S", "--gpg-sign"), "gpg_sign", CONST, "Sign the commit.", const=True),
    Opt(("--no-gpg-sign",), "gpg_sign", CONST, "Do not sign the commit (overrides "
        "commit.gpgSign).", const=False),
    Opt(("--no-trailers",), "no_trailers", FLAG, "Leave out the AI-* trailers."),
    Opt(("--syntax-check",), "syntax_check", VALUE, "What a file that no longer parses "
        "after the response gets (Python, JavaScript, TypeScript, Go, Rust, Java, C, C++, "
        "C#, Ruby, PHP, shell, JSON, YAML, TOML, HTML, CSS): refuse (default), warn (apply "
        "and report) or off (aiapply.syntaxCheck).", metavar="MODE"),
    Opt(("--max-bytes",), "max_bytes", INT, "Largest response accepted, in bytes (0: no "
        "limit; default aiapply.maxResponseBytes).", metavar="N"),
    Opt(("-q", "--quiet"), "quiet", FLAG, "Print nothing on success."),
    Opt(("-v", "--verbose"), "verbose", FLAG, "Say where each edit landed (file, lines) and "
        "how it was found (exact, whitespace, punctuation folded, line numbers, anchor, "
        "three-way...), one line per edit on standard error; with --json, the list edits."),
]

# every parameter of the apply command, with its default ("responses": the arguments)
APPLY_DEFAULTS: dict = {"responses": ()}
for _o in APPLY_OPTIONS:
    APPLY_DEFAULTS.setdefault(_o.dest, _o.default)
    if _o.ordered:
        APPLY_DEFAULTS[_o.ordered] = ()
del _o

_BY_NAME = {name: o for o in APPLY_OPTIONS for name in o.names}
_TAKES_VALUE = (VALUE, VALUES, INT)


def apply_request(p: dict) -> dict:
    """The apply command's parameters as a request of prepare.py (the library's option
    names); ``message`` stands for -m/-F until the options are checked, then is read."""
    return {"check": p["check"] or reports_only(p), "diff": p["show_diff"],
            "include_dirty": p["include_dirty"], "allow_empty": p["allow_empty"],
            "format": p["fmt"], "message": p["messages"] or p["message_file"],
            "edit": p["edit"], "no_verify": p["no_verify"], "verify": p["verify"],
            "branch": p["branch"], "base": p["base"], "signoff": p["signoff"],
            "sign": p["gpg_sign"], "trailers": not p["no_trailers"], "strip": p["strip"],
            "directory": p["directory"], "limits": p["limits"], "force": p["force"],
            "three_way": p["three_way"], "max_bytes": p["max_bytes"], "author": p["author"],
            "date": p["date"], "verbose": p["verbose"], "no_commit": p["no_commit"],
            "cached": p["cached"], "syntax_check": p["syntax_check"]}


def reports_only(p: dict) -> bool:
    """--stat, --numstat and --summary only report, as in git apply (docs/DECISIONS.md)."""
    return bool(p["stat"] or p["numstat"] or p["summary"])


def commits_to_worktree(request: dict) -> bool:
    """The run will commit to the worktree (take ``index.lock``, read the index ahead):
    not --branch, and not only checking or reporting (--check, --diff; --stat and the
    other reports check).  The one rule: prepare.py asks it for every front door, and
    main.py before pygit2 is imported, of ``apply_request(params)``."""
    return request.get("branch") is None and not (request.get("check") or request.get("diff"))


def parse_apply_args(argv: list[str], subcommands) -> dict | None:
    """The apply command's parameters from ``argv``, or None when click should parse it:
    a first word in ``subcommands`` (or help, or --version), or anything this parser does
    not know (click then says what is wrong)."""
    if argv and (argv[0] in subcommands or argv[0] in ("-h", "--help", "--version")):
        return None
    kw = dict(APPLY_DEFAULTS)
    repeated: dict[str, list[str]] = {}
    ordered: dict[str, list[tuple[str, str]]] = {}
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
        read = _read_option(arg, argv, i)
        if read is None:
            return None
        opt, value, i = read
        if opt.kind == VALUES:
            repeated.setdefault(opt.dest, []).append(value)
        else:
            kw[opt.dest] = value
        if opt.ordered:
            ordered.setdefault(opt.ordered, []).append((opt.dest, value))
    for dest, values in {**repeated, **ordered}.items():
        kw[dest] = tuple(values)
    kw["responses"] = tuple(responses)
    return kw


def _read_option(arg: str, argv: list[str], i: int):
    """(the option, its value, the index of the next argument) for option ``arg`` (its
    value inline, or ``argv[i]``), or None when click should say what is wrong."""
    inline = None
    if arg.startswith("--"):
        name, eq, value = arg.partition("=")
        if eq:
            inline = value
    else:
        name = arg[:2]
        if len(arg) > 2:
            inline = arg[2:]  # -p1, -mMSG; combined flags (-qs) go to click
    opt = _BY_NAME.get(name)
    if opt is None:
        return None
    if opt.kind not in _TAKES_VALUE:
        if inline is not None:
            return None
        return opt, True if opt.kind == FLAG else opt.const, i
    if inline is None:
        if i >= len(argv):
            return None
        inline, i = argv[i], i + 1
    if opt.kind == INT:
        try:
            return opt, int(inline), i
        except ValueError:
            return None
    return opt, inline, i


def ordered_values(params: dict, occurrences: list[str]) -> dict:
    """The ``ordered`` parameters (e.g. ``limits``) from click's parsed values and the
    order in which the options occurred (their ``dest`` names, as click saw them)."""
    out: dict[str, list] = {o.ordered: [] for o in APPLY_OPTIONS if o.ordered}
    taken: dict[str, int] = {}
    by_dest = {o.dest: o for o in APPLY_OPTIONS if o.ordered}
    for dest in occurrences:
        o = by_dest.get(dest)
        if o is None:
            continue
        i = taken.get(dest, 0)
        values = params.get(dest) or ()
        if i < len(values):
            out[o.ordered].append((dest, values[i]))
            taken[dest] = i + 1
    return {k: tuple(v) for k, v in out.items()}
