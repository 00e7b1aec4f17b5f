#!/usr/bin/env python3
"""Benchmark: `git ai-apply batch` against the harness loop (issue 34, item 5).

A synthetic evaluation set: ``--repos`` repositories of ``--files`` small files (bench/
synth.py's), each with three commits the answers are written against; ``--answers``
answers spread over them, each at its own base, in several formats (FILE_PATCH, a fenced
unified diff, SEARCH/REPLACE, apply-patch, a chat API's JSON object) with one in ten
refused (an edit whose lines are not in the file).

- **loop**: what a harness does today, per answer: ``git checkout -f -q BASE``, the plain
  ``git ai-apply --json RESPONSE`` (a commit on the detached HEAD), the record (the JSON
  line and ``git diff BASE HEAD``, what batch's result line holds), ``git reset -q --hard``;
- **batch**: one ``git ai-apply batch --jobs N -o results.jsonl jobs.jsonl``.

Both sides must agree: every answer the same status, every applied one the same tree (the
loop's HEAD against the batch branch); the benchmark stops otherwise.  Then the per-answer
flatness: batch on ``--flat`` answers (default 100 and 1,000) on one repository.

With ``--ray [ADDRESS]``: the same set again with ``batch --ray`` (a local Ray cluster the
command starts and stops, its start included; or the running cluster at ADDRESS, e.g.
``auto`` after ``ray start --head``; the ``ray`` extra), which must agree too; its time
against ``batch --jobs N``.  ``--no-loop`` leaves the harness loop out (Ray's figure only).

Usage: python bench/batch.py [--repos 4] [--files 2000] [--answers 100] [--jobs 2]
       [--flat 100,1000] [--ray [ADDRESS]] [--no-loop] [--workdir DIR] [--json]
Needs git, bench/synth.py beside it, and git-ai-apply next to this Python or on PATH.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth  # noqa: E402  (bench/synth.py: the synthetic files, shared with run.py)
from attempts import ai_apply_command  # noqa: E402


# --------------------------------------------------------------------------- the set


def build_repo(path: str, n_files: int) -> list[str]:
    """A repository of ``n_files`` files and three commits (the later two change file 0,
    which no answer touches); its commit ids, oldest first."""
    synth.build_files_repo(path, n_files)
    env = synth.git_env()
    bases = [synth.git(path, "rev-parse", "main").strip()]
    if synth.git(path, "rev-list", "--count", "main").strip() == "1":
        target = os.path.join(path, synth.small_file_path(0))
        for k in (1, 2):
            with open(target, "a") as f:
                f.write(f"# revision {k}\n")
            subprocess.run(["git", "commit", "-q", "-am", f"revision {k}"], cwd=path, env=env,
                           check=True)
    out = synth.git(path, "rev-list", "--reverse", "main").split()
    synth.git(path, "checkout", "-q", "main")
    synth.settle(path)
    return out if len(out) == 3 else bases


def answer(k: int, n_files: int) -> tuple[str | dict, bool]:
    """Answer ``k`` for a repository of ``n_files`` files: (the response, refused?)."""
    i = 1 + (k * 7919) % (n_files - 1)
    path = synth.small_file_path(i)
    lines = synth.small_file_content(i).decode().splitlines()
    at = next(j for j, line in enumerate(lines) if line.startswith("    if total > "))
    new = "    if total >= LIMIT:"
    edit = synth.make_edit(path, lines, {at: new},
                           explanation=f"Make handler_{i} inclusive at its limit.")
    kind = k % 10
    if kind == 4:  # refused: the lines to replace are not in the file
        return (f"Fix it.\n\n{path}\n```python\n<<<<<<< SEARCH\n    if total > 12345:\n"
                f"=======\n{new}\n>>>>>>> REPLACE\n```\n"), True
    if kind in (1, 6):
        return f"Make it inclusive.\n\n```diff\n{edit.diff}```\n", False
    if kind in (2, 7):
        return (f"Make it inclusive.\n\n{path}\n```python\n<<<<<<< SEARCH\n{lines[at]}\n"
                f"=======\n{new}\n>>>>>>> REPLACE\n```\n"), False
    if kind == 3:
        return {"model": "bench", "choices": [{"finish_reason": "stop", "message": {
            "role": "assistant", "content": f"Inclusive.\n\n```diff\n{edit.diff}```\n"}}]}, False
    if kind == 8:
        return (f"Make it inclusive.\n\n```\n*** Begin Patch\n*** Update File: {path}\n@@\n"
                f"-{lines[at]}\n+{new}\n*** End Patch\n```\n"), False
    return edit.response, False


def write_set(work: str, repos: list[tuple[str, list[str]]], n: int, n_files: int) -> list[dict]:
    """``n`` jobs over ``repos`` (path, bases), responses in files under work/answers."""
    answers = os.path.join(work, "answers")
    os.makedirs(answers, exist_ok=True)
    jobs = []
    for k in range(n):
        repo, bases = repos[k % len(repos)]
        response, _refused = answer(k, n_files)
        name = os.path.join(answers, f"{k}.{'json' if isinstance(response, dict) else 'md'}")
        with open(name, "w") as f:
            f.write(json.dumps(response) if isinstance(response, dict) else response)
        jobs.append({"id": k, "repo": repo, "base": bases[k % len(bases)],
                     "response_file": name})
    return jobs


# --------------------------------------------------------------------------- the sides


def run_loop(jobs: list[dict], env: dict) -> tuple[float, dict]:
    """The harness loop; (seconds, id -> (status, tree or None))."""
    cmd = ai_apply_command()
    out = {}
    t0 = time.perf_counter()
    for job in jobs:
        repo, base = job["repo"], job["base"]
        subprocess.run(["git", "checkout", "-f", "-q", base], cwd=repo, env=env, check=True)
        r = subprocess.run([*cmd, "--json", job["response_file"]], cwd=repo, env=env,
                           capture_output=True)
        status = json.loads(r.stdout)["status"]
        subprocess.run(["git", "diff", base, "HEAD"], cwd=repo, env=env, capture_output=True,
                       check=True)  # the record a harness keeps
        tree = None
        if status == "applied":
            tree = subprocess.run(["git", "rev-parse", "HEAD^{tree}"], cwd=repo, env=env,
                                  capture_output=True, text=True, check=True).stdout.strip()
        subprocess.run(["git", "reset", "-q", "--hard"], cwd=repo, env=env, check=True)
        out[job["id"]] = (status, tree)
    dt = time.perf_counter() - t0
    for repo in {j["repo"] for j in jobs}:
        subprocess.run(["git", "checkout", "-f", "-q", "main"], cwd=repo, env=env, check=True)
    return dt, out


def run_batch(jobs: list[dict], work: str, env: dict, workers: int,
              ray: str | None = None) -> tuple[float, dict]:
    """One `git ai-apply batch` (``ray``: with --ray, "" for a local cluster, else the
    cluster's address); (seconds, id -> (status, tree or None))."""
    for repo in {j["repo"] for j in jobs}:
        refs = synth.git(repo, "for-each-ref", "--format=delete %(refname)", "refs/heads/ai/")
        if refs:
            subprocess.run(["git", "update-ref", "--stdin"], cwd=repo, env=env, input=refs,
                           text=True, check=True)
    path = os.path.join(work, "jobs.jsonl")
    with open(path, "w") as f:
        f.write("".join(json.dumps(j) + "\n" for j in jobs))
    results = os.path.join(work, "results.jsonl")
    t0 = time.perf_counter()
    how = [] if ray is None else ["--ray", ray] if ray else ["--ray"]
    r = subprocess.run([*ai_apply_command(), "batch", *how, "--jobs", str(workers), "-o", results,
                        path], cwd=work, env=env, capture_output=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"batch failed ({r.returncode}): {r.stderr.decode()[-2000:]}")
    out = {}
    by_id = {j["id"]: j for j in jobs}
    with open(results) as f:
        for line in f:
            d = json.loads(line)
            tree = None
            if d["status"] == "applied":
                tree = synth.git(by_id[d["id"]]["repo"], "rev-parse",
                                 f"{d['commit']}^{{tree}}").strip()
            out[d["id"]] = (d["status"], tree)
    return dt, out


def _agree(one: dict, other: dict) -> None:
    if one != other:
        bad = sorted(k for k in one if one[k] != other.get(k))
        raise SystemExit(f"the sides differ on answers {bad[:10]}: "
                         f"{[(one[k], other.get(k)) for k in bad[:3]]}")


# --------------------------------------------------------------------------- main


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repos", type=int, default=4)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--answers", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--flat", default="100,1000")
    ap.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS")
    ap.add_argument("--no-loop", action="store_true")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    work = args.workdir or os.path.join(tempfile.gettempdir(), "git-ai-apply-bench-batch")
    os.makedirs(work, exist_ok=True)
    env = synth.git_env(fixed_dates=False)
    repos = [(p, build_repo(p, args.files)) for p in
             (os.path.join(work, f"repo{r}") for r in range(args.repos))]
    jobs = write_set(work, repos, args.answers, args.files)
    batch_s, batch_out = run_batch(jobs, work, env, args.jobs)
    loop_s, loop_out = (None, batch_out) if args.no_loop else run_loop(jobs, env)
    _agree(loop_out, batch_out)
    refused = sum(1 for s, _t in loop_out.values() if s == "refused")
    report = {"answers": len(jobs), "repos": args.repos, "files": args.files,
              "refused": refused, "loop_s": loop_s and round(loop_s, 2),
              "batch_s": round(batch_s, 2),
              "ratio": loop_s and round(batch_s / loop_s, 3), "jobs": args.jobs, "flat": {}}
    if args.ray is not None:
        ray_s, ray_out = run_batch(jobs, work, env, args.jobs, ray=args.ray)
        _agree(batch_out, ray_out)
        report.update(ray_s=round(ray_s, 2), ray_ratio=round(ray_s / batch_s, 2))
    one = [repos[0]]
    for n in (int(x) for x in args.flat.split(",") if x):
        flat_jobs = write_set(os.path.join(work, f"flat{n}"), one, n, args.files)
        secs, _out = run_batch(flat_jobs, os.path.join(work, f"flat{n}"), env, args.jobs)
        report["flat"][n] = {"s": round(secs, 2), "ms_per_answer": round(1000 * secs / n, 1)}
    if args.json:
        print(json.dumps(report))
    else:
        loop = f"loop {loop_s:.2f} s, " if loop_s else ""
        ratio = f": {batch_s / loop_s:.2f}x" if loop_s else ""
        print(f"{len(jobs)} answers over {args.repos} repositories of {args.files} files "
              f"({refused} refused): {loop}batch --jobs {args.jobs} {batch_s:.2f} s{ratio}")
        if args.ray is not None:
            where = (f"--ray {args.ray}" if args.ray
                     else "--ray (a local cluster, its start included)")
            print(f"  batch {where}: {report['ray_s']:.2f} s, "
                  f"{report['ray_ratio']:.2f}x batch --jobs {args.jobs}")
        for n, r in report["flat"].items():
            print(f"  one repository, {n} answers: {r['s']:.2f} s, {r['ms_per_answer']} ms "
                  "an answer")
    if not args.workdir:
        shutil.rmtree(os.path.join(work, "answers"), ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
