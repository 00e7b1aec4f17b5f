#!/usr/bin/env python3
"""Linear time on hostile input: the CPU time of parsing (or locating in) an input of size
4n against size n.  Linear growth gives about 4, a quadratic path about 16.

    python3 bench/linear.py             # n = 50,000; exit 1 if a growth is 10 or more
    python3 bench/linear.py --n 2000    # tiny: only checks that every case runs

The test suite checks what these inputs give (tests/test_hostile_content.py, the format
tests), never how long they take: a stopwatch in a test fails on a busy machine and says
nothing on a quiet one.  Run this after changing a parser, the locator or the message
builder.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from git_aiapply.errors import ApplyError  # noqa: E402
from git_aiapply.formats import parse_response  # noqa: E402
from git_aiapply.response import normalize_newlines, read_response  # noqa: E402


def _parse(text: str) -> None:
    try:
        parse_response(normalize_newlines(text))
    except ApplyError:
        pass


def _read(text: str) -> None:
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


def _locate_unique(n: int) -> None:
    from git_aiapply.locate import apply_hunks
    from git_aiapply.ops import Hunk
    from git_aiapply.text import FileText

    ft = FileText.from_str("same\n" * n + "unique\n")
    hunk = Hunk([(" ", "same"), (" ", "same"), ("-", "unique"), ("+", "changed")])
    new, _a, _r = apply_hunks(ft, [hunk], path="f")
    assert new.lines[-1] == "changed"


def _locate_ambiguous(n: int) -> None:
    from git_aiapply.locate import apply_hunks
    from git_aiapply.ops import Hunk
    from git_aiapply.text import FileText

    try:
        apply_hunks(FileText.from_str("same\n" * n), [Hunk([(" ", "same"), ("-", "same"),
                                                              ("+", "x")])], path="f")
    except ApplyError:
        return
    raise AssertionError("an ambiguous edit was applied")


def _message(n: int) -> None:
    from git_aiapply.message import build_message

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
        yield name, _parse, make(n), make(4 * n)
    yield "json-nesting", _read, '{"choices":' + "[" * (n // 2), '{"choices":' + "[" * (2 * n)
    yield "locate: identical lines, one unique", _locate_unique, n // 2, 2 * n
    yield "locate: ambiguous in identical lines", _locate_ambiguous, n // 2, 2 * n
    yield "commit message from pathological prose", _message, n, 4 * n


def cpu(fn, arg, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn(arg)
        best = min(best, time.process_time() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--limit", type=float, default=10.0, help="largest growth accepted")
    args = ap.parse_args()
    worst = 0.0
    print(f"| input (n = {args.n:,}) | CPU at n | CPU at 4n | growth |")
    print("|---|---|---|---|")
    for name, fn, small, large in cases(args.n):
        fn(small)  # warm up imports and caches
        t_small = max(cpu(fn, small, args.repeat), 1e-4)
        t_large = cpu(fn, large, args.repeat)
        growth = t_large / t_small
        worst = max(worst, growth)
        flag = "" if growth < args.limit else "  **not linear**"
        print(f"| {name} | {t_small * 1000:.1f} ms | {t_large * 1000:.1f} ms | {growth:.1f}{flag} |")
    print(f"\nworst growth {worst:.1f} (limit {args.limit})")
    return 0 if worst < args.limit else 1


if __name__ == "__main__":
    sys.exit(main())
