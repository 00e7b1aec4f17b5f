"""A harness's loop: 40 responses in a row, each its own commit, through one
`git ai-apply serve` process (and through the library, for reference) against 40 runs of
`git apply --index D && git commit -q -m M`.  Used by bench/run.py (scenario ``loop``).

Both sides start from the same settled repository and end with the same tree (run.py
checks it after the warm-up runs); the times are those of the whole loop, process starts
included: serve is one process answering 40 JSON requests read from a file, the library
loop is one Python process calling ``Session.apply`` 40 times (bench/api_loop.py)."""
from __future__ import annotations

import json
import os

import synth

COUNT = 40
SIZES_FULL = [200, 100_000]
SIZES_QUICK = [200, 10_000]
TARGETS = {200: 1.5, 100_000: 0.5}  # serve / git (bench/README.md)
# the warm path's own cost per answer (serve's 40 requests less its start-up) / git's
# per-answer cost (issue 34)
PER_ANSWER_TARGETS = {200: 0.5}
HERE = os.path.dirname(os.path.abspath(__file__))


def write_loop_inputs(folder: str, edits: list) -> tuple[list[str], list[str], str]:
    """The responses, the diffs and serve's request file of a loop."""
    os.makedirs(folder, exist_ok=True)
    responses, diffs = [], []
    for k, edit in enumerate(edits, 1):
        resp = os.path.join(folder, f"r{k:02d}.md")
        diff = os.path.join(folder, f"r{k:02d}.diff")
        with open(resp, "w") as f:
            f.write(edit.response)
        with open(diff, "w") as f:
            f.write(edit.diff)
        responses.append(resp)
        diffs.append(diff)
    requests = os.path.join(folder, "requests.jsonl")
    with open(requests, "w") as f:
        for resp in responses:
            f.write(json.dumps({"path": resp}) + "\n")
    with open(os.path.join(folder, "first-request.jsonl"), "w") as f:
        f.write(json.dumps({"path": responses[0]}) + "\n")
    return responses, diffs, requests


def scenarios(bench, Pair, Side, sizes: list[int]) -> None:
    for n in sizes:
        repo = bench.files_repo(n)
        edits = synth.loop_edits(n, COUNT)
        folder = os.path.join(bench.workdir, "inputs", f"loop-{n}")
        responses, diffs, requests = write_loop_inputs(folder, edits)
        git_loop = Side(f"{COUNT} x (git apply --index && git commit)",
                        [c for d, e in zip(diffs, edits)
                         for c in (["git", "apply", "--index", d],
                                   ["git", "commit", "-q", "-m", e.response.split("\n", 1)[0]])])
        serve = Side(f"git ai-apply serve, {COUNT} requests", [["git", "ai-apply", "serve"]],
                     stdin=requests)
        library = Side(f"library, {COUNT} x Session.apply",
                       [[bench.python, os.path.join(HERE, "api_loop.py"), *responses]])
        serve_pair = Pair(f"{COUNT} responses in a row, {n:,} files: serve", repo, serve,
                          git_loop, target=TARGETS.get(n))
        bench.measure(serve_pair)
        bench.measure(Pair(f"{COUNT} responses in a row, {n:,} files: library (reference)",
                           repo, library, git_loop))
        per_answer(bench, Pair, Side, n, repo, serve_pair, folder)


def per_answer(bench, Pair, Side, n: int, repo: str, serve_pair, folder: str) -> None:
    """serve with its first request only (start-up, the first request's imports and
    reads), beside the floor; then the warm path's cost per answer, (40 requests - the
    first alone) / 39, against git's cost per answer."""
    first = Side("git ai-apply serve, first request only", [["git", "ai-apply", "serve"]],
                 stdin=os.path.join(folder, "first-request.jsonl"))
    start = Pair(f"serve started, its first request, {n:,} files", repo, first, bench.floor())
    bench.measure(start)
    warm = (serve_pair.median("a") - start.median("a")) / (COUNT - 1)
    git = serve_pair.median("b") / COUNT
    target = PER_ANSWER_TARGETS.get(n)
    bench.extra_rows.append((
        f"warm path, {n:,} files: serve's cost per answer after the first ((40 requests - "
        f"the first alone) / 39 = {warm * 1000:.2f} ms) / git's ({git * 1000:.2f} ms)",
        f"{warm / git:.2f}x", f"<= {target}x" if target else "",
        warm / git <= target if target else None))
