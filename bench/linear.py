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

_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path[:0] = [_ROOT, os.path.join(_ROOT, "tests")]

# the inputs live with the tests that check what they give (tests/hostile_inputs.py)
from hostile_inputs import cases  # noqa: E402


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
