"""Who a commit is by: author and committer exactly as ``git commit`` picks them and
writes them (git's ident.c): the variables, the settings, git's fallbacks (``EMAIL``,
``/etc/mailname``, the user's account and the host name), the characters git strips,
and where git dies.  ``Ident`` stands in for ``pygit2.Signature``, which refuses an empty
email that git writes (``Name <>``)."""
from __future__ import annotations

import contextvars
import os
import time

from ..errors import ErrorKind, FatalError
from ..record import record

# GIT_AUTHOR_* values a run gives (--author/--date, the library's author=/date=), set around
# the run by prepare.with_identity at every front door: per thread and per call, so that a
# call never changes the environment another thread's call reads
IDENTITY_OVERRIDES: contextvars.ContextVar = contextvars.ContextVar("identity_overrides",
                                                                    default=None)


def run_environ():
    """The environment as this run's commit and its hooks see it: the process's, with the
    author and date the run gives (IDENTITY_OVERRIDES) over it."""
    overrides = IDENTITY_OVERRIDES.get()
    return {**os.environ, **overrides} if overrides else os.environ


# git's env_hint, printed when it falls back to guessing and the guess is unusable
_ENV_HINT = """Author identity unknown

*** Please tell me who you are.

Run

  git config --global user.email "you@example.com"
  git config --global user.name "Your Name"

to set your account's default identity.
Omit --global to set the identity only in this repository."""


@record(frozen=True)
class Ident:
    """A name, an email (maybe empty, as git allows), seconds and a zone offset in
    minutes: the fields of ``pygit2.Signature`` that the tool reads."""

    name: str
    email: str
    time: int
    offset: int

    def line(self) -> str:
        """``Name <email> SECONDS +ZONE`` as in a commit header or a reflog entry."""
        from ..dates import zone  # here, not at import: dates stays off the start-up path

        return f"{self.name} <{self.email}> {self.time} {zone(self.offset)}"


def _crud(c: str) -> bool:
    return c <= " " or c in ",:;<>\"\\'"


def without_crud(text: str) -> str:
    """git's strbuf_addstr_without_crud: leading and trailing crud (spaces, control
    characters, ``,:;<>"\\'``) dropped, and the delimiters ``<``, ``>`` and newlines
    dropped inside."""
    i, j = 0, len(text)
    while i < j and _crud(text[i]):
        i += 1
    while j > i and _crud(text[j - 1]):
        j -= 1
    kept = text[i:j]
    if "\n" in kept or "<" in kept or ">" in kept:
        kept = "".join(c for c in kept if c not in "\n<>")
    return kept


def split_ident(value: str) -> tuple[str, str] | None:
    """git's split_ident_line for ``--author "Name <email>"``: the name is what comes
    before the first ``<`` (trailing spaces dropped), the email what lies between it and
    the next ``>``; None without both brackets."""
    lb = value.find("<")
    if lb < 0:
        return None
    rb = value.find(">", lb + 1)
    if rb < 0:
        return None
    return value[:lb].rstrip(), value[lb + 1:rb]


def check_name(name: str, email: str, *, hint: bool = False) -> None:
    """Die as git's fmt_ident does on a name it will not commit: empty (with git's
    identity hint when the name was its default), or nothing but crud."""
    if not name:
        raise FatalError(f"empty ident name (for <{email}>) not allowed"
                         + ("\n\n" + _ENV_HINT if hint else ""), kind=ErrorKind.ENVIRONMENT)
    if not any(not _crud(c) for c in name):
        raise FatalError(f"name consists only of disallowed characters: {name}",
                         kind=ErrorKind.ENVIRONMENT)


def _account():
    import pwd

    try:
        return pwd.getpwuid(os.getuid())
    except (KeyError, OSError):
        return None


def _default_name() -> str:
    """git's copy_gecos: the account's full name (up to the first comma, ``&`` standing
    for the capitalised login name)."""
    pw = _account()
    if pw is None:
        return "unknown"
    gecos = (pw.pw_gecos or "").split(",", 1)[0]
    return gecos.replace("&", pw.pw_name[:1].upper() + pw.pw_name[1:]).strip()


def _default_email() -> tuple[str, bool]:
    """git's guess when no email is set: EMAIL, else ``login@`` the first line of
    /etc/mailname, else ``login@`` the host's name with a domain; (email, bogus): a host
    name without a domain gives ``login@host.(none)``, which git refuses to commit with."""
    email = os.environ.get("EMAIL")
    if email:
        return email.strip(), False
    pw = _account()
    login = pw.pw_name if pw is not None else "unknown"
    try:
        with open("/etc/mailname") as f:
            host = f.readline().strip()
        if host:
            return f"{login}@{host}", pw is None
    except OSError:
        pass
    import socket

    try:
        host = socket.gethostname()
    except OSError:
        return f"{login}@(none)", True
    if "." in host:
        return f"{login}@{host}", pw is None
    try:
        infos = socket.getaddrinfo(host, None, flags=socket.AI_CANONNAME)
        canon = infos[0][3] if infos else ""
    except (OSError, UnicodeError):
        canon = ""
    if "." in canon:
        return f"{login}@{canon}", pw is None
    return f"{login}@{host}.(none)", True


def identity(repo, who: str) -> Ident:
    """Author (``who="author"``) or committer exactly as ``git commit`` picks them:
    GIT_<WHO>_NAME/EMAIL (set but empty counts), <who>.name/email, user.name/email, then
    git's guesses; GIT_<WHO>_DATE or now.  Dies (FatalError) where git commit dies: an
    empty name, no usable email, user.useConfigOnly without the settings."""
    from ..dates import parse_git_date

    env = run_environ()
    w = who.upper()
    config_only = repo.config_bool("user.useConfigOnly", False)

    email = env.get(f"GIT_{w}_EMAIL")  # set but empty is an empty email, as git allows
    if email is None:
        email = repo.config_get(f"{who}.email") or None
    if email is None:
        email = repo.config_get("user.email")  # set but empty: an empty email, as git
        if email is None:
            if config_only:
                raise FatalError("no email was given and auto-detection is disabled",
                                 kind=ErrorKind.ENVIRONMENT)
            email, bogus = _default_email()
            if bogus:
                raise FatalError(f"unable to auto-detect email address (got '{email}')\n\n"
                                 + _ENV_HINT, kind=ErrorKind.ENVIRONMENT)
    name = env.get(f"GIT_{w}_NAME")
    if name is None:
        name = repo.config_get(f"{who}.name") or None
    using_default = name is None  # git's default name: user.name, else the account's
    if name is None:
        name = repo.config_get("user.name")
        if name is None:
            if config_only:
                raise FatalError("no name was given and auto-detection is disabled",
                                 kind=ErrorKind.ENVIRONMENT)
            name = _default_name()
    check_name(name, email, hint=using_default)
    date = env.get(f"GIT_{w}_DATE")
    if date:
        parsed = parse_git_date(date)
        if parsed is None:
            raise FatalError(f"invalid date format: {date}", kind=ErrorKind.USAGE)
        seconds, offset = parsed
    else:
        seconds = int(time.time())
        offset = time.localtime(seconds).tm_gmtoff // 60
    return Ident(without_crud(name), without_crud(email), seconds, offset)
