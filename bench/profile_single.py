#!/usr/bin/env python3
"""Where the single-shot command's time goes on a large repository.

    python3 bench/profile_single.py [--files 100000] [--rounds 7]

Measures, as medians of alternated runs on the synthetic repository of bench/synth.py:
the whole command (`git ai-apply -q R`) against `git apply --index D && git commit`,
and its phases on their own: a bare Python start, `import pygit2`, the command's own
imports (`import git_aiapply.cli.main` and what the apply path loads), libgit2's index read
(it verifies the index's SHA-1 checksum on every read), libgit2's index write, and git's
own index read and write (`git update-index --really-refresh` skips nothing: it reads and
writes the whole index) for comparison.  Prints a table for bench/results.md.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import synth  # noqa: E402
from run import find_bin_dir, interpreter_of  # noqa: E402


def timed(argv, cwd, env, stdin=None) -> float:
    t0 = time.perf_counter()
    r = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True)
    elapsed = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: exit {r.returncode}: {r.stderr.decode()[-2000:]}")
    return elapsed


IN_PROCESS = r'''
import os, sys, time, shutil, tempfile
t0 = time.perf_counter()
import pygit2
t1 = time.perf_counter()
path = os.path.join(sys.argv[1], ".git", "index")
reads, writes = [], []
tmp = tempfile.mkdtemp()
for _ in range(int(sys.argv[2])):
    copy = os.path.join(tmp, "index")
    shutil.copyfile(path, copy)
    a = time.perf_counter(); idx = pygit2.Index(copy); b = time.perf_counter()
    idx.write(); c = time.perf_counter()
    reads.append(b - a); writes.append(c - b)
shutil.rmtree(tmp)
reads.sort(); writes.sort()
print(t1 - t0, reads[len(reads) // 2], writes[len(writes) // 2], len(idx))
'''


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=100_000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "git-ai-apply-bench"))
    ap.add_argument("--bin-dir", default=None)
    args = ap.parse_args(argv)
    bin_dir = find_bin_dir(args.bin_dir)
    python = interpreter_of(os.path.join(bin_dir, "git-ai-apply"))
    env = synth.git_env(fixed_dates=False)
    env["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = os.path.join(args.workdir, "pycache")
    repo = os.path.join(args.workdir, f"files-{args.files}")
    synth.build_files_repo(repo, args.files)
    edit = synth.one_file_edit(args.files)
    folder = os.path.join(args.workdir, "inputs")
    os.makedirs(folder, exist_ok=True)
    resp, diff = os.path.join(folder, "profile.md"), os.path.join(folder, "profile.diff")
    with open(resp, "w") as f:
        f.write(edit.response)
    with open(diff, "w") as f:
        f.write(edit.diff)
    base = synth.git(repo, "rev-parse", "HEAD").strip()

    def reset():
        synth.git(repo, "reset", "-q", "--hard", base)
        synth.settle(repo)

    samples: dict[str, list[float]] = {}

    def add(name, value):
        samples.setdefault(name, []).append(value)

    cmds = {
        "git ai-apply -q R (the command)": lambda: timed(["git", "ai-apply", "-q", resp], repo, env),
        "git apply --index D && git commit": lambda: (timed(["git", "apply", "--index", diff], repo, env)
                                                      + timed(["git", "commit", "-q", "-m", "m"], repo, env)),
    }
    for name, fn in cmds.items():  # warm-up
        reset()
        fn()
    for r in range(args.rounds):
        order = list(cmds.items())
        if r % 2:
            order.reverse()
        for name, fn in order:
            reset()
            add(name, fn())
        add("python -c pass (interpreter start)", timed([python, "-c", "pass"], repo, env))
        add("python -c 'import pygit2'", timed([python, "-c", "import pygit2"], repo, env))
        add("python -c 'import git_aiapply.cli.main, git_aiapply.run.pipeline, git_aiapply.git, "
            "git_aiapply.formats, git_aiapply.plan.plan, git_aiapply.message.message' (start + every import "
            "of the apply path)",
            timed([python, "-c", "import git_aiapply.cli.main, git_aiapply.run.pipeline, git_aiapply.git, "
                   "git_aiapply.formats, git_aiapply.plan.plan, git_aiapply.message.message"], repo, env))
        add("git update-index --really-refresh (git: read + write the index)",
            timed(["git", "update-index", "-q", "--really-refresh"], repo, env))
    reset()
    out = subprocess.run([python, "-c", IN_PROCESS, repo, str(args.rounds)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    entries = int(out[3])
    size = os.path.getsize(os.path.join(repo, ".git", "index"))
    med = {k: statistics.median(v) for k, v in samples.items()}
    rows = list(med.items()) + [
        (f"libgit2 index read, in process ({entries:,} entries, {size / 2**20:.1f} MiB; "
         "checksum verified)", float(out[1])),
        ("libgit2 index write, in process", float(out[2])),
    ]
    print(f"{args.files:,} files, {args.rounds} rounds, medians:\n")
    print("| phase | ms |")
    print("|---|---:|")
    for name, v in rows:
        print(f"| {name} | {v * 1000:.1f} |")
    cmd = med["git ai-apply -q R (the command)"]
    git = med["git apply --index D && git commit"]
    print(f"\ncommand / git: {cmd / git:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
