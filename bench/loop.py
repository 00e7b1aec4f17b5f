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
        bench.measure(Pair(f"{COUNT} responses in a row, {n:,} files: serve", repo, serve,
                           git_loop, target=TARGETS.get(n)))
        bench.measure(Pair(f"{COUNT} responses in a row, {n:,} files: library (reference)",
                           repo, library, git_loop))
