"""Inputs built to make a backtracking regex or a rescanning loop blow up, each a function
of n that grows linearly in n, with what to run them through (a parser, the response
reader, the locator, the commit message builder).

Two users: tests/test_hostile_content.py checks what each gives at one size;
bench/linear.py measures that their CPU time grows linearly (size 4n against n).
"""
from __future__ import annotations

from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.answer.response import normalize_newlines, read_response


def parse_or_refuse(text: str) -> None:
    try:
        parse_response(normalize_newlines(text))
    except ApplyError:
        pass


def read_or_refuse(text: str) -> None:
    try:
        read_response(text.encode())
    except ApplyError:
        pass


# Inputs built to make a backtracking regex (or a rescanning loop) blow up; each is a
# function of n that grows linearly in n.
PATHOLOGICAL = {
    "open-angles": lambda n: "<" * n,
    "unterminated-attribute": lambda n: '<FILE_CHANGES>\n<FILE_NEW file_path="' + "a" * n,
    "attribute-spaces": lambda n: "<FILE_CHANGES>\n<FILE_NEW " + " " * n + "x",
    "many-open-containers": lambda n: "<FILE_CHANGES>\n" * (n // 15),
    "many-directive-tags": lambda n: "<FILE_CHANGES>\n" + '<FILE_NEW file_path="a">' * (n // 24),
    "quotes": lambda n: '<CodeChange filePath="' + '"' * n,
    "codechange-spaces": lambda n: "<CodeChange" + " " * n + "filePath",
    "search-markers": lambda n: '<CodeChange filePath="a">\n' + "<<<<<<< SEARCH\n" * (n // 15),
    "dividers": lambda n: '<CodeChange filePath="a">\n<<<<<<< SEARCH\n' + "=======\n" * (n // 8),
    "begin-patch-lines": lambda n: "*** Begin Patch\n" * (n // 16),
    "update-headers": lambda n: "*** Begin Patch\n" + "*** Update File: a\n" * (n // 19),
    "star-runs": lambda n: "*" * n,
    "at-runs": lambda n: "@@ " * (n // 3),
    "diff-headers": lambda n: "--- a/x\n+++ b/x\n" * (n // 16),
    "hunk-headers": lambda n: "--- a/x\n+++ b/x\n" + "@@ -1 +1 @@\n" * (n // 12),
    # an unfenced hunk whose blank lines each ask what follows them (prose or more hunk)
    "raw-hunk-blank-lines": lambda n: (f"--- a/x\n+++ b/x\n@@ -1,{n // 2} +1,{n // 2} @@\n"
                                       + " a\n\n" * (n // 4) + "\nDone.\n"),
    "fences": lambda n: "```\n" * (n // 4),
    "fence-backticks": lambda n: "`" * n,
    "tildes": lambda n: "~" * n,
    "long-space-line": lambda n: " " * n + "\n",
    "spaces-then-tag": lambda n: " " * n + "<FILE_CHANGES",
    "lone-crs": lambda n: "\r" * n,
    "crlf": lambda n: "\r\n" * (n // 2),
    "cr-runs-before-lf": lambda n: ("\r" * 50 + "\n") * (n // 51),
    "one-long-line": lambda n: "a" * n,
    "hashline-ops": lambda n: '<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path="a">\n'
                              + "1#00:x\n" * (n // 7),
    "hashline-ranges": lambda n: '<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path="a">\n'
                                 + "1#00-" * (n // 5),
    "big-patch-block": lambda n: '<FILE_CHANGES>\n<FILE_PATCH file_path="a">\n@@\n'
                                 + " x\n" * (n // 3) + "</FILE_PATCH>\n</FILE_CHANGES>\n",
    "prose-with-markers": lambda n: "Use <FILE_NEW> and *** Begin Patch words. " * (n // 42),
}


def locate_unique(n: int) -> None:
    from git_aiapply.locate.locate import apply_hunks
    from git_aiapply.ops import Hunk
    from git_aiapply.text import FileText, encode

    ft = FileText.from_bytes(encode("same\n" * n + "unique\n"))
    hunk = Hunk([(" ", "same"), (" ", "same"), ("-", "unique"), ("+", "changed")])
    new, _a, _r = apply_hunks(ft, [hunk], path="f")
    assert new.lines[-1] == "changed"


def locate_ambiguous(n: int) -> None:
    from git_aiapply.locate.locate import apply_hunks
    from git_aiapply.ops import Hunk
    from git_aiapply.text import FileText, encode

    try:
        apply_hunks(FileText.from_bytes(encode("same\n" * n)), [Hunk([(" ", "same"), ("-", "same"),
                                                              ("+", "x")])], path="f")
    except ApplyError:
        return
    raise AssertionError("an ambiguous edit was applied")


def message_from_prose(n: int) -> None:
    from git_aiapply.message.message import build_message

    def message(explanation: str) -> str:
        return build_message(explanation, formats=["apply-patch"], response_id="0123456789abcdef",
                             model=None, descriptions=[], changed=[("update", "a.txt")])

    for make in (lambda k: "`" * k, lambda k: "[" * k, lambda k: "*a" * k, lambda k: "_" * k,
                 lambda k: "e.g. " * (k // 2), lambda k: "x" * 4 * k,
                 lambda k: "word " * k + ".", lambda k: "> q\n" * (k // 2),
                 lambda k: "- " * k, lambda k: "|" * k, lambda k: "#" * k,
                 lambda k: "\\*" * k, lambda k: "<" * k, lambda k: "![" * k):
        message(make(n))


def cases(n: int):
    """(name, function, argument at size n, argument at size 4n)"""
    for name, make in PATHOLOGICAL.items():
        yield name, parse_or_refuse, make(n), make(4 * n)
    yield "json-nesting", read_or_refuse, '{"choices":' + "[" * (n // 2), '{"choices":' + "[" * (2 * n)
    yield "locate: identical lines, one unique", locate_unique, n // 2, 2 * n
    yield "locate: ambiguous in identical lines", locate_ambiguous, n // 2, 2 * n
    yield "commit message from pathological prose", message_from_prose, n, 4 * n
