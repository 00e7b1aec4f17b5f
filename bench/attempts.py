#!/usr/bin/env python3
"""Benchmark: many attempts onto many branches (issue 5, item 6).

For each repository size (default 10,000 and 100,000 files, built with `git fast-import`
in a bare repository), in one run and side by side:

- **ai-apply**: one `git ai-apply --branch 'attempt/{n}' r01.md ... r40.md` (40 responses,
  40 new branches), timed wall-clock from process start to exit;
- **plumbing**: the loop a harness would write without a worktree, one bash script doing
  per attempt: a temporary index (`read-tree BASE`), `git apply --cached`, `write-tree`,
  `commit-tree`, `update-ref`.

Every response is a markdown answer around a ```diff block (two files patched, one file
added); the plumbing loop applies exactly that diff.  After every round the trees of the
two sides are compared, attempt by attempt: the benchmark fails if they differ.

Also timed: the same ai-apply run with a single response, so that the per-attempt cost is
(T(40) - T(1)) / 39, free of start-up time; the plumbing loop's per-attempt cost is
T(40) / 40.  Targets (issue 5): ai-apply at least 20x faster than the loop at 100,000
files, and its per-attempt cost flat from 10,000 to 100,000 files.

Usage: python bench/attempts.py [--sizes 10000,100000] [--attempts 40] [--repeat 5]
       [--workdir DIR] [--keep] [--json]
Needs the standard library, git, bench/synth.py beside it (the same synthetic files as
bench/run.py), and the git-ai-apply command next to this Python or on PATH.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth  # noqa: E402  (bench/synth.py: the synthetic files, shared with run.py)


# --------------------------------------------------------------------------- synthesis


def build_repo(path: str, nfiles: int, env: dict) -> str:
    """A bare repository whose main branch holds ``nfiles`` files in one commit."""
    subprocess.run(["git", "init", "-q", "--bare", path], check=True, env=env)
    subprocess.run(["git", "symbolic-ref", "HEAD", "refs/heads/main"], cwd=path, check=True, env=env)
    synth.fast_import_commit(path, synth.small_files(nfiles), env)
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=path, env=env, capture_output=True,
                          text=True, check=True).stdout.strip()


def make_diff(nfiles: int, k: int) -> str:
    """Attempt k's change: two files patched (far apart in the tree), one file added."""
    parts = []
    for j, i in enumerate(((k * 7919) % nfiles, (k * 104729 + nfiles // 2) % nfiles)):
        path = synth.small_file_path(i)
        old = synth.small_file_content(i).decode().splitlines(True)
        new = list(old)
        new[6] = f"    total = {k * 10 + j}  # attempt {k}\n"
        new.insert(11, f"    # described by attempt {k}\n")
        body = "".join(difflib.unified_diff(old, new, f"a/{path}", f"b/{path}"))
        parts.append(f"diff --git a/{path} b/{path}\n{body}")
    added = f"src/m000/attempt_{k:03d}.py"
    lines = [f"# attempt {k}\n", f"VALUE = {k}\n"]
    parts.append(f"diff --git a/{added} b/{added}\nnew file mode 100644\n--- /dev/null\n"
                 f"+++ b/{added}\n@@ -0,0 +1,{len(lines)} @@\n" + "".join("+" + l for l in lines))
    return "".join(parts)


def make_response(diff: str, k: int) -> str:
    return (f"Attempt {k}: adjust two computations and record the attempt.\n\n"
            f"Both modules now add a per-attempt offset.\n\n```diff\n{diff}```\n")


# --------------------------------------------------------------------------- tools


def ai_apply_command() -> list[str]:
    here = os.path.join(os.path.dirname(sys.executable), "git-ai-apply")
    if os.path.exists(here):
        return [here]
    found = shutil.which("git-ai-apply")
    if found:
        return [found]
    return [sys.executable, "-m", "git_aiapply"]


def plumbing_script(base: str, patches: list[str], tmp: str) -> str:
    """The per-attempt plumbing loop, as one bash script."""
    lines = ["set -e", f"BASE={base}"]
    for k, patch in enumerate(patches, 1):
        idx = os.path.join(tmp, f"index.{k}")
        lines += [
            f"export GIT_INDEX_FILE={idx}",
            "git read-tree $BASE",
            f"git apply --cached {patch}",
            "T=$(git write-tree)",
            f"C=$(git commit-tree $T -p $BASE -m 'attempt {k}')",
            f"git update-ref refs/heads/plumb/{k} $C ''",
            f"rm -f {idx}",
        ]
    return "\n".join(lines) + "\n"


def delete_branches(repo: str, env: dict, *prefixes: str) -> None:
    refs = subprocess.run(["git", "for-each-ref", "--format=delete %(refname)", *prefixes],
                          cwd=repo, env=env, capture_output=True, text=True, check=True).stdout
    if refs:
        subprocess.run(["git", "update-ref", "--stdin"], cwd=repo, env=env, input=refs,
                       text=True, check=True)


def trees(repo: str, env: dict, prefix: str) -> dict[str, str]:
    out = subprocess.run(["git", "for-each-ref", "--format=%(refname) %(objectname)^{tree}",
                          prefix], cwd=repo, env=env, capture_output=True, text=True,
                         check=True).stdout.split("\n")
    refs = [l.split() for l in out if l]
    if not refs:
        return {}
    res = subprocess.run(["git", "rev-parse", *[r[1] for r in refs]], cwd=repo, env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return {r[0].rsplit("/", 1)[1]: t for r, t in zip(refs, res)}


def timed(argv, **kw) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the command and everything it ran)."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(argv, capture_output=True, **kw)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{argv[0]} failed ({r.returncode}): "
                         f"{r.stderr.decode(errors='replace')[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return dt, cpu


# --------------------------------------------------------------------------- run


def bench_size(nfiles: int, attempts: int, repeat: int, work: str, env: dict, log) -> dict:
    repo = os.path.join(work, f"repo-{nfiles}.git")
    t0 = time.perf_counter()
    base = build_repo(repo, nfiles, env)
    log(f"{nfiles:>7} files: repository built in {time.perf_counter() - t0:.1f}s")
    rdir = os.path.join(work, f"responses-{nfiles}")
    os.makedirs(rdir)
    responses, patches = [], []
    for k in range(1, attempts + 1):
        diff = make_diff(nfiles, k)
        rp = os.path.join(rdir, f"r{k:02d}.md")
        pp = os.path.join(rdir, f"p{k:02d}.diff")
        with open(rp, "w") as f:
            f.write(make_response(diff, k))
        with open(pp, "w") as f:
            f.write(diff)
        responses.append(rp)
        patches.append(pp)
    tmp = os.path.join(work, f"tmp-{nfiles}")
    os.makedirs(tmp)
    script = os.path.join(work, f"plumbing-{nfiles}.sh")
    with open(script, "w") as f:
        f.write(plumbing_script(base, patches, tmp))
    tool = ai_apply_command()
    ours, ours_one, plumbing = [], [], []
    for rnd in range(repeat):
        delete_branches(repo, env, "refs/heads/attempt", "refs/heads/plumb", "refs/heads/single")
        # alternate the order so that neither side always runs on a warmer cache
        order = ("ours", "plumbing") if rnd % 2 == 0 else ("plumbing", "ours")
        for side in order:
            if side == "ours":
                ours.append(timed([*tool, "-q", "--branch", "attempt/{n}", *responses],
                                  cwd=repo, env=env))
            else:
                plumbing.append(timed(["bash", script], cwd=repo, env=env))
        ours_one.append(timed([*tool, "-q", "--branch", "single/1", responses[0]], cwd=repo,
                              env=env))
        # both sides must have produced the same trees
        a, b = trees(repo, env, "refs/heads/attempt"), trees(repo, env, "refs/heads/plumb")
        if len(a) != attempts or a != b:
            bad = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            raise SystemExit(f"{nfiles} files: ai-apply and the plumbing loop disagree on "
                             f"attempts {bad[:10]}")
        log(f"{nfiles:>7} files: round {rnd + 1}/{repeat}: ai-apply {ours[-1][0]:.3f}s, "
            f"plumbing {plumbing[-1][0]:.3f}s, ai-apply x1 {ours_one[-1][0]:.3f}s (wall)")
    def med(samples, i):
        return statistics.median(s[i] for s in samples)

    med_ours, med_plumb, med_one = med(ours, 0), med(plumbing, 0), med(ours_one, 0)
    cpu_ours, cpu_plumb, cpu_one = med(ours, 1), med(plumbing, 1), med(ours_one, 1)
    return {
        "files": nfiles, "attempts": attempts, "rounds": repeat,
        "ai_apply_s": med_ours, "plumbing_s": med_plumb, "ai_apply_single_s": med_one,
        "ratio": med_plumb / med_ours,
        "ai_apply_cpu_s": cpu_ours, "plumbing_cpu_s": cpu_plumb, "ai_apply_single_cpu_s": cpu_one,
        "cpu_ratio": cpu_plumb / cpu_ours,
        # per attempt: the 40-response run minus the 1-response run (start-up), in CPU
        # time, which other load on the machine disturbs far less than wall time
        "ai_apply_per_attempt_ms": max(0.0, (cpu_ours - cpu_one) / (attempts - 1)) * 1000,
        "ai_apply_per_attempt_wall_ms": max(0.0, (med_ours - med_one) / (attempts - 1)) * 1000,
        "plumbing_per_attempt_ms": cpu_plumb / attempts * 1000,
        "plumbing_per_attempt_wall_ms": med_plumb / attempts * 1000,
        "samples": {"ai_apply": ours, "plumbing": plumbing, "ai_apply_single": ours_one},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--attempts", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workdir", default=None, help="where to build (default: a temp folder)")
    ap.add_argument("--keep", action="store_true", help="keep the repositories")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    if args.attempts < 2:
        ap.error("--attempts must be at least 2")
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    work = args.workdir or tempfile.mkdtemp(prefix="bench-attempts-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("GIT_"):
            del env[k]
    env.update(GIT_CONFIG_NOSYSTEM="1", HOME=work, LC_ALL="C",
               GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    results = []
    try:
        for n in sizes:
            results.append(bench_size(n, args.attempts, args.repeat, work, env, log))
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    largest = max(results, key=lambda r: r["files"])
    smallest = min(results, key=lambda r: r["files"])
    flat = largest["ai_apply_per_attempt_ms"] / max(smallest["ai_apply_per_attempt_ms"], 1e-9)
    summary = {"results": results, "ratio_at_largest": largest["ratio"],
               "per_attempt_growth": flat,
               "target_ratio_met": largest["ratio"] >= 20.0,
               "target_flat_met": flat <= 1.5}
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"{args.attempts} responses onto {args.attempts} branches, median of {args.repeat} "
          "rounds (bare repository, one commit)")
    print("wall: elapsed time of the whole run; cpu: user+system time of it and its children;"
          "\nper attempt: ai-apply (T40 - T1) / 39 in cpu time, plumbing T40 / 40 in cpu time")
    print(f"{'files':>8}  {'ai-apply':>9}  {'plumbing':>9}  {'ratio':>6}  {'cpu ratio':>9}  "
          f"{'ai-apply/attempt':>16}  {'plumbing/attempt':>16}  {'ai-apply x1':>11}")
    for r in results:
        print(f"{r['files']:>8}  {r['ai_apply_s']:>8.3f}s  {r['plumbing_s']:>8.3f}s  "
              f"{r['ratio']:>5.1f}x  {r['cpu_ratio']:>8.1f}x  {r['ai_apply_per_attempt_ms']:>14.2f}ms  "
              f"{r['plumbing_per_attempt_ms']:>14.1f}ms  {r['ai_apply_single_s']:>10.3f}s")
    print(f"ratio at {largest['files']} files: {largest['ratio']:.1f}x "
          f"(target >= 20x: {'met' if summary['target_ratio_met'] else 'MISSED'})")
    if len(results) > 1:
        print(f"ai-apply per-attempt cost {smallest['files']} -> {largest['files']} files: "
              f"x{flat:.2f} (target flat, <= 1.5: {'met' if summary['target_flat_met'] else 'MISSED'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
