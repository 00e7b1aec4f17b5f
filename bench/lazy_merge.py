#!/usr/bin/env python3
"""The lazy merge alone, in process (plan/lazy_merge.py, issue 31): the snippet of the
`lazy` scenario (bench/synth.py ``lazy_edit``) merged into its file, as the planner merges
it (placeholders found, declarations read when needed, merged).  Median CPU time of 7
runs at 10,000 lines / 20 placeholders, and at 4x both: about 4 when linear.

    python3 bench/lazy_merge.py [--lines 10000] [--placeholders 20]

Exit 1 when the smaller merge takes 100 ms or more, or the growth is 10 or more.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import synth  # noqa: E402


def merge_time(n_lines: int, n_placeholders: int, rounds: int = 7) -> float:
    from git_aiapply.plan.lazy_merge import declarations, merge
    from git_aiapply.verify.placeholder_edits import snippet_placeholders

    def merge_snippet(path, file_lines, snippet):  # as lazily_merged merges it
        placeholders = snippet_placeholders(path, file_lines, snippet)
        return merge(file_lines, snippet, placeholders,
                     *declarations(path, file_lines, snippet, placeholders))

    file_lines = synth.big_file_lines(n_lines)
    response = synth.lazy_edit(n_lines, n_placeholders).response
    snippet = response.split('">\n', 1)[1].split("\n</FILE_NEW>", 1)[0].split("\n")
    merge_snippet(synth.BIG_PATH, file_lines, snippet)  # warm-up: grammars loaded
    times = []
    for _ in range(rounds):
        t0 = time.process_time()
        merge_snippet(synth.BIG_PATH, file_lines, snippet)
        times.append(time.process_time() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, default=10_000)
    ap.add_argument("--placeholders", type=int, default=20)
    args = ap.parse_args(argv)
    small = merge_time(args.lines, args.placeholders)
    large = merge_time(4 * args.lines, 4 * args.placeholders)
    growth = large / small
    print(f"lazy merge, {args.lines:,} lines, {args.placeholders} placeholders: "
          f"{small * 1000:.1f} ms; at 4x: {large * 1000:.1f} ms (growth {growth:.1f})")
    return 0 if small < 0.1 and growth < 10 else 1


if __name__ == "__main__":
    sys.exit(main())
