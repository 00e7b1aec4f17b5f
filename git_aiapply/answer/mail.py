"""``git format-patch`` mails (one, or several as an mbox), read as ``git am`` reads them
(BEHAVIOR.md §1): each mail is one response and one commit; its author, date, subject and
body make the commit's (``Mail``), its patch is the response's text, and the ``-- ``
signature with git's version after it is left out.

    From 452a2dbe... Mon Sep 17 00:00:00 2001
    From: Ann Author <ann@x.org>
    Date: Sat, 28 Nov 2026 21:32:04 +0000
    Subject: [PATCH 1/2] Raise the limit

    Why it is raised.
    ---
     f1.py | 2 +-
    diff --git a/f1.py b/f1.py
    ...
    --
    2.39.5
"""
from __future__ import annotations

import re

from ..record import record

# the line format-patch opens every mail with (a fixed, magic date)
_MAIL_START = re.compile(rb"^From [0-9a-f]{40} Mon Sep 17 00:00:00 2001$", re.M)
_MAIL_START_TEXT = re.compile(r"From [0-9a-f]{40} Mon Sep 17 00:00:00 2001\n")
# `[PATCH]`, `[PATCH v2 3/7]`, `[RFC]`: what git am drops from the front of a subject
_SUBJECT_TAGS = re.compile(r"^(?:\s*\[[^\]]*\]\s*)+")


@record
class Mail:
    """What a mail says about its commit."""

    author_name: str
    author_email: str
    date: str | None
    subject: str
    body: str

    @property
    def message(self) -> str:
        return self.subject + ("\n\n" + self.body if self.body else "")

    def identity(self) -> dict[str, str]:
        """The mail's author as git's environment gives it to a commit."""
        env = {"GIT_AUTHOR_NAME": self.author_name, "GIT_AUTHOR_EMAIL": self.author_email}
        if self.date:
            env["GIT_AUTHOR_DATE"] = self.date
        return env


def split_mbox(raw: bytes) -> list[bytes] | None:
    """The mails of an mbox of format-patch mails, in order; None when ``raw`` is not one
    (it must open with a mail's first line), or holds a single mail."""
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    starts = [m.start() for m in _MAIL_START.finditer(body)]
    if len(starts) < 2 or starts[0] != 0:
        return None
    return [body[a:b] for a, b in zip(starts, starts[1:] + [len(body)])]


def read_mail(text: str) -> tuple[Mail, str] | None:
    """(the mail, its patch) when ``text`` is a format-patch mail, else None."""
    if not _MAIL_START_TEXT.match(text):
        return None
    head, sep, rest = text.partition("\n\n")
    if not sep:
        return None
    headers = _headers(head.split("\n", 1)[1] if "\n" in head else "")
    if "from" not in headers or "subject" not in headers:
        return None
    name, email = _address(headers["from"])
    message, patch = _split_body(rest)
    subject = _SUBJECT_TAGS.sub("", " ".join(headers["subject"].split()))
    mail = Mail(name, email, headers.get("date"), subject.strip(), message.strip("\n"))
    return mail, _without_signature(patch)


def _headers(block: str) -> dict[str, str]:
    """The mail's headers (lower-case names), folded lines joined, encoded words decoded."""
    from email.header import decode_header, make_header

    out: dict[str, str] = {}
    name = None
    for line in block.split("\n"):
        if line[:1] in (" ", "\t") and name:
            out[name] += " " + line.strip()
            continue
        key, colon, value = line.partition(":")
        if colon:
            name = key.strip().lower()
            out[name] = value.strip()
    for key, value in out.items():
        try:
            out[key] = str(make_header(decode_header(value)))
        except (ValueError, LookupError):
            pass  # not encoded words after all: kept as written
    return out


def _address(value: str) -> tuple[str, str]:
    from email.utils import parseaddr

    name, email = parseaddr(value)
    return (name or email.split("@")[0], email)


def _split_body(rest: str) -> tuple[str, str]:
    """(the commit message's body, the patch): the body ends at the ``---`` line before the
    diffstat, or at the first ``diff --git`` line when there is none."""
    lines = rest.split("\n")
    for i, line in enumerate(lines):
        if line == "---" or line.startswith("diff --git "):
            end = i
            break
    else:
        return rest, ""
    return "\n".join(lines[:end]), "\n".join(lines[end + (lines[end] == "---"):])


def _without_signature(patch: str) -> str:
    """The patch without format-patch's signature: the last ``-- `` line and the version
    after it."""
    lines = patch.split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i] == "-- ":
            if all(not line.startswith(("diff ", "@@", "+", " ")) for line in lines[i + 1:]):
                return "\n".join(lines[:i]) + "\n"
            break
    return patch
