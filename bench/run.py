#!/usr/bin/env python3
"""`git ai-apply` side by side with git: one command, one table.

    python3 bench/run.py            # the full run (about 10 minutes), updates bench/results.md
    python3 bench/run.py --quick    # small sizes, 3 rounds: a minute, writes nothing

Every scenario runs the two commands alternately (A B, then B A, ...) on the same
repository, which is reset to the same state before every measured run, outside the timed
region (`git reset --hard BASE` and a refreshed index).  One warm-up run of each side is
not counted.  The table shows median wall times, their ratio, and the peak resident memory
of each side (the largest of its processes, from wait4).  After the first round the two
sides' commits are compared: they must hold the same tree, or the run stops.

Scenarios (see bench/README.md): one response editing one file at 1,000 / 10,000 /
100,000 files vs `git apply --index && git commit`; a small repository vs the floor, a
Python process that only imports pygit2; 2,000 hunks in a 300,000-line file and 4,000 in a
600,000-line file vs `git apply --index && git commit`; peak memory of the latter vs the
file's size; branch per attempt (bench/attempts.py) when that module exists.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import synth  # noqa: E402  (bench/synth.py, beside this file)

TABLE_START = "<!-- bench table: start (written by bench/run.py) -->"
TABLE_END = "<!-- bench table: end -->"


# --------------------------------------------------------------------------- processes


@dataclass
class Sample:
    seconds: float
    peak_kib: int  # largest ru_maxrss among the side's processes


def run_process(argv: list[str], cwd: str, env: dict[str, str], log,
                stdin: str | None = None) -> tuple[int, int]:
    """Run one process to its end; (exit status, peak RSS in KiB of it and its children).
    ``stdin``: a file to read standard input from (the serve scenario's requests)."""
    with open(stdin or os.devnull, "rb") as given:
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdin=given, stdout=log,
                             stderr=subprocess.STDOUT)
    # wait4 gives this child's own rusage (RUSAGE_BOTH: including the processes it waited
    # for, e.g. `git` running `git-ai-apply`), unlike RUSAGE_CHILDREN, which is cumulative.
    _pid, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, usage.ru_maxrss


def run_side(cmds: list[list[str]], cwd: str, env: dict[str, str], label: str,
             stdin: str | None = None) -> Sample:
    """Run ``cmds`` one after the other (a `&&` chain); the time of the whole chain."""
    with tempfile.TemporaryFile() as log:
        peak = 0
        t0 = time.perf_counter()
        for argv in cmds:
            code, rss = run_process(argv, cwd, env, log, stdin)
            peak = max(peak, rss)
            if code != 0:
                log.seek(0)
                out = log.read().decode("utf-8", "replace")[-3000:]
                raise RuntimeError(f"{label}: `{' '.join(argv)}` exited {code} in {cwd}:\n{out}")
        elapsed = time.perf_counter() - t0
    return Sample(elapsed, peak)


# --------------------------------------------------------------------------- scenarios


@dataclass
class Side:
    label: str
    cmds: list[list[str]]
    commits: bool = True  # makes a commit whose tree is compared with the other side's
    stdin: str | None = None  # a file given as standard input


@dataclass
class Pair:
    """Two commands measured alternately on one repository."""

    name: str
    repo: str
    a: Side
    b: Side
    target: float | None = None  # ratio a/b must be at most this
    note: str = ""
    file_bytes: int | None = None
    a_samples: list[Sample] = field(default_factory=list)
    b_samples: list[Sample] = field(default_factory=list)

    def median(self, which: str) -> float:
        return statistics.median(s.seconds for s in getattr(self, f"{which}_samples"))

    def peak(self, which: str) -> int:
        return max(s.peak_kib for s in getattr(self, f"{which}_samples"))

    @property
    def ratio(self) -> float:
        return self.median("a") / self.median("b")


class Bench:
    def __init__(self, args):
        self.args = args
        self.workdir = os.path.abspath(args.workdir)
        os.makedirs(self.workdir, exist_ok=True)
        self.bin_dir = find_bin_dir(args.bin_dir)
        self.env = synth.git_env(fixed_dates=False)
        self.env["PATH"] = self.bin_dir + os.pathsep + os.environ.get("PATH", "")
        # Measure Python as installed programs run: with compiled bytecode.  The cache goes
        # to the work folder (written by the warm-up runs), not into the source tree.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env["PYTHONPYCACHEPREFIX"] = os.path.join(self.workdir, "pycache")
        self.python = interpreter_of(os.path.join(self.bin_dir, "git-ai-apply"))
        self.pairs: list[Pair] = []
        self.extra_rows: list[tuple] = []  # derived rows: (name, value, target, ok)
        self.log = print if not args.quiet else (lambda *a, **k: None)

    # -- repositories -----------------------------------------------------------------
    def files_repo(self, n: int) -> str:
        path = os.path.join(self.workdir, f"files-{n}")
        t0 = time.perf_counter()
        synth.build_files_repo(path, n)
        self.log(f"  repository of {n:,} files ready ({time.perf_counter() - t0:.1f}s)")
        return path

    def drifted_repo(self, n: int) -> str:
        path = os.path.join(self.workdir, f"drifted-{n}")
        t0 = time.perf_counter()
        synth.build_drifted_files_repo(path, n)
        self.log(f"  drifted repository of {n:,} files ready ({time.perf_counter() - t0:.1f}s)")
        return path

    def bigfile_repo(self, n_lines: int) -> str:
        path = os.path.join(self.workdir, f"bigfile-{n_lines}")
        t0 = time.perf_counter()
        synth.build_bigfile_repo(path, n_lines)
        self.log(f"  repository with a {n_lines:,}-line file ready ({time.perf_counter() - t0:.1f}s)")
        return path

    def write_inputs(self, name: str, edit: synth.Edit) -> tuple[str, str]:
        folder = os.path.join(self.workdir, "inputs")
        os.makedirs(folder, exist_ok=True)
        resp = os.path.join(folder, f"{name}.md")
        diff = os.path.join(folder, f"{name}.diff")
        with open(resp, "w") as f:
            f.write(edit.response)
        with open(diff, "w") as f:
            f.write(edit.diff)
        return resp, diff

    # -- sides ------------------------------------------------------------------------
    def ai_apply(self, response: str, *options: str) -> Side:
        return Side("git ai-apply", [["git", "ai-apply", "-q", *options, response]])

    def git_pipeline(self, diff: str, message: str) -> Side:
        return Side("git apply --index && git commit",
                    [["git", "apply", "--index", diff], ["git", "commit", "-q", "-m", message]])

    def floor(self) -> Side:
        return Side("python -c 'import pygit2'", [[self.python, "-c", "import pygit2"]], commits=False)

    # -- measuring --------------------------------------------------------------------
    def reset(self, repo: str, base: str) -> None:
        synth.git(repo, "reset", "-q", "--hard", base)
        synth.settle(repo)
        # written out before the next run: resetting 100,000 new files away leaves
        # hundreds of MB of dirty pages, whose writeback otherwise lands in the next timing
        os.sync()

    def measure(self, pair: Pair) -> None:
        base = synth.git(pair.repo, "rev-parse", "HEAD").strip()
        rounds = self.args.rounds
        self.log(f"- {pair.name}: {rounds} rounds")
        try:
            trees: dict[str, str] = {}
            for side in (pair.a, pair.b):  # warm-up, not counted (and the tree check)
                self.reset(pair.repo, base)
                run_side(side.cmds, pair.repo, self.env, side.label, side.stdin)
                if side.commits:
                    head = synth.git(pair.repo, "rev-parse", "HEAD").strip()
                    if head == base:
                        raise RuntimeError(f"{pair.name}: {side.label} made no commit")
                    trees[side.label] = synth.git(pair.repo, "rev-parse", "HEAD^{tree}").strip()
            if len(trees) == 2 and len(set(trees.values())) != 1:
                raise RuntimeError(f"{pair.name}: the two sides committed different trees: {trees}")
            for r in range(rounds):
                order = [("a", pair.a), ("b", pair.b)]
                if r % 2:
                    order.reverse()
                for which, side in order:
                    self.reset(pair.repo, base)
                    sample = run_side(side.cmds, pair.repo, self.env, side.label, side.stdin)
                    getattr(pair, f"{which}_samples").append(sample)
        finally:
            self.reset(pair.repo, base)
        verdict = ""
        if pair.target is not None:
            verdict = f" (target <= {pair.target}: {'ok' if pair.ratio <= pair.target else 'MISSED'})"
        self.log(f"    {pair.a.label} {pair.median('a') * 1000:.1f} ms, {pair.b.label} "
                 f"{pair.median('b') * 1000:.1f} ms, ratio {pair.ratio:.2f}{verdict}")
        self.pairs.append(pair)


def find_bin_dir(given: str | None) -> str:
    """The folder of the `git-ai-apply` to measure: --bin-dir, the project's .venv, or PATH."""
    candidates = [given] if given else [os.path.join(ROOT, ".venv", "bin")]
    for c in candidates:
        if c and os.path.exists(os.path.join(c, "git-ai-apply")):
            return os.path.abspath(c)
    found = shutil.which("git-ai-apply")
    if found:
        return os.path.dirname(os.path.abspath(found))
    sys.exit("bench: git-ai-apply not found (install the project, or pass --bin-dir)")


def interpreter_of(script: str) -> str:
    """The Python interpreter named on the installed command's #! line (the floor uses the
    very same one)."""
    with open(script, "rb") as f:
        first = f.readline().decode("utf-8", "replace").strip()
    if first.startswith("#!"):
        parts = first[2:].split()
        if parts and os.path.basename(parts[0]) == "env" and len(parts) > 1:
            return shutil.which(parts[1]) or sys.executable
        if parts and os.path.exists(parts[0]):
            return parts[0]
    return sys.executable


# --------------------------------------------------------------------------- the plan


SIZES_FULL = [1_000, 10_000, 100_000]
SIZES_QUICK = [1_000, 10_000]
BIG_FULL = [(300_000, 2_000), (600_000, 4_000)]
BIG_QUICK = [(30_000, 200), (60_000, 400)]
SECTIONS_FULL = (80_000, 2_000)  # (lines of the file, fenced diffs in the response)
SECTIONS_QUICK = (30_000, 750)
NEW_FULL = [10_000, 100_000]
NEW_QUICK = [1_000, 10_000]


SCENARIOS = {"one-edit", "floor", "big-file", "sections", "three-way", "new-files", "attempts",
             "loop", "lazy"}
LAZY = (10_000, 20)  # the lazy scenario: a file of this many lines, this many placeholders


def scenarios(bench: Bench, only: set[str]) -> None:
    args = bench.args
    sizes = args.sizes or (SIZES_QUICK if args.quick else SIZES_FULL)
    big = BIG_QUICK if args.quick else BIG_FULL
    if args.big_lines:
        base_lines = args.big_lines
        big = [(base_lines, max(1, base_lines // 150)), (2 * base_lines, 2 * max(1, base_lines // 150))]

    if "one-edit" in only:
        for n in sizes:
            repo = bench.files_repo(n)
            edit = synth.one_file_edit(n)
            resp, diff = bench.write_inputs(f"one-edit-{n}", edit)
            bench.measure(Pair(f"one edit, {n:,} files", repo, bench.ai_apply(resp),
                               bench.git_pipeline(diff, "Make the handler inclusive"),
                               target=0.9 if n >= 100_000 else None))

    if "floor" in only:
        repo = bench.files_repo(args.small_files)
        edit = synth.one_file_edit(args.small_files)
        resp, _diff = bench.write_inputs(f"floor-{args.small_files}", edit)
        bench.measure(Pair(f"small repository ({args.small_files} files), one edit", repo,
                           bench.ai_apply(resp), bench.floor(), target=1.3,
                           note="vs a Python process that only imports pygit2"))

    if "big-file" in only:
        big_pairs = []
        for n_lines, n_hunks in big:
            repo = bench.bigfile_repo(n_lines)
            edit = synth.big_file_edit(n_lines, n_hunks)
            assert edit.hunks == n_hunks, (edit.hunks, n_hunks)
            resp, diff = bench.write_inputs(f"big-{n_lines}", edit)
            size = os.path.getsize(os.path.join(repo, synth.BIG_PATH))
            pair = Pair(f"{n_hunks:,} hunks, {n_lines:,}-line file", repo, bench.ai_apply(resp),
                        bench.git_pipeline(diff, f"Make {n_hunks} limits inclusive"),
                        target=2.0, file_bytes=size)
            bench.measure(pair)
            big_pairs.append(pair)
        if len(big_pairs) == 2:
            small_p, large_p = big_pairs
            growth = large_p.median("a") / small_p.median("a")
            bench.extra_rows.append((
                f"doubling file and hunks: git ai-apply time ({large_p.name} / {small_p.name})",
                f"{growth:.2f}x", "<= 2.3x", growth <= 2.3))
            git_growth = large_p.median("b") / small_p.median("b")
            bench.extra_rows.append((
                "doubling file and hunks: git apply + commit time (for reference)",
                f"{git_growth:.2f}x", "", None))
            mem = large_p.peak("a") * 1024 / large_p.file_bytes
            bench.extra_rows.append((
                f"peak memory, {large_p.name}: git ai-apply peak / file size "
                f"({large_p.peak('a') / 1024:.0f} MiB / {large_p.file_bytes / 2**20:.1f} MiB)",
                f"{mem:.1f}x", "< 10x", mem < 10))

    if "sections" in only:
        # a file's edits spread over many sections plan in about the time of the same
        # edits in one directive: the file is indexed once per response (issue 21)
        n_lines, n_sections = SECTIONS_QUICK if args.quick else SECTIONS_FULL
        if args.big_lines:
            n_lines, n_sections = args.big_lines, max(1, args.big_lines // 40)
        repo = bench.bigfile_repo(n_lines)
        sections = synth.sections_edit(n_lines, n_sections)
        assert sections.hunks == n_sections, (sections.hunks, n_sections)
        resp, _diff = bench.write_inputs(f"sections-{n_lines}", sections)
        one, _diff = bench.write_inputs(f"sections-one-{n_lines}",
                                        synth.big_file_edit(n_lines, n_sections))
        bench.measure(Pair(f"{n_sections:,} fenced diffs of a {n_lines:,}-line file", repo,
                           bench.ai_apply(resp),
                           Side("git ai-apply, one FILE_PATCH",
                                [["git", "ai-apply", "-q", one]]),
                           target=1.5, note="the same hunks as one FILE_PATCH"))

    if "lazy" in only:
        # a lazy snippet (the file shown with placeholders for what it leaves out) merges
        # in about the time of the same changes as a FILE_PATCH: linear in the file
        # (issue 31; the merge alone, in process: bench/lazy_merge.py)
        n_lines, n_hunks = LAZY
        if args.big_lines:
            n_lines, n_hunks = args.big_lines, max(1, args.big_lines // 500)
        repo = bench.bigfile_repo(n_lines)
        resp, _diff = bench.write_inputs(f"lazy-{n_lines}", synth.lazy_edit(n_lines, n_hunks))
        one, _diff = bench.write_inputs(f"lazy-one-{n_lines}",
                                        synth.big_file_edit(n_lines, n_hunks))
        bench.measure(Pair(f"a lazy snippet with {n_hunks} placeholders of a {n_lines:,}-line "
                           "file", repo, bench.ai_apply(resp),
                           Side("git ai-apply, one FILE_PATCH",
                                [["git", "ai-apply", "-q", one]]),
                           target=2.0, note="the same changes as one FILE_PATCH"))

    if "three-way" in only:
        # -3 on an answer written against an older commit costs at most 1.5x a plain apply
        # of the same change written against HEAD (issue 25)
        n = max(sizes)
        repo = bench.drifted_repo(n)
        old, _diff = bench.write_inputs(f"three-way-old-{n}", synth.one_file_edit(n))
        now, _diff = bench.write_inputs(f"three-way-now-{n}", synth.drifted_edit(n))
        bench.measure(Pair(f"-3: an answer written before the last commit, {n:,} files", repo,
                           bench.ai_apply(old, "-3"),
                           Side("git ai-apply, the same change written at HEAD",
                                [["git", "ai-apply", "-q", now]]),
                           target=1.5, note="a three-way merge against a plain apply"))

    if "new-files" in only:
        # planning must stay linear in the number of operations (issue 10): the time per
        # file may not grow from the smaller response to the ten times larger one
        new_pairs = []
        repo = bench.files_repo(args.small_files)
        for n in args.new_files or (NEW_QUICK if args.quick else NEW_FULL):
            edit = synth.new_files_edit(n)
            resp, diff = bench.write_inputs(f"new-files-{n}", edit)
            # a 100,000-file response is ~13 MB, over the default aiapply.maxResponseBytes
            pair = Pair(f"{n:,} new files in one response", repo,
                        bench.ai_apply(resp, "--max-bytes", "0"),
                        bench.git_pipeline(diff, f"Add {n} generated modules"))
            bench.measure(pair)
            new_pairs.append((n, pair))
        # planning alone (issue 10: 100,000 new files in a few seconds): --check of the
        # largest response against git apply --check of its diff
        n = new_pairs[-1][0]  # resp and diff: the loop's last, that response's files
        check = Pair(f"{n:,} new files in one response, planned only (--check)", repo,
                     Side("git ai-apply --check",
                          [["git", "ai-apply", "-q", "--check", "--max-bytes", "0", resp]],
                          commits=False),
                     Side("git apply --check", [["git", "apply", "--check", diff]],
                          commits=False))
        bench.measure(check)
        planned = check.median("a")
        bench.extra_rows.append((f"new files: planning {n:,} of them (--check)",
                                 f"{planned:.1f} s", "a few seconds (<= 5 s)", planned <= 5.0))
        if len(new_pairs) == 2:
            (n1, p1), (n2, p2) = new_pairs
            growth = (p2.median("a") / n2) / (p1.median("a") / n1)
            bench.extra_rows.append((
                f"new files: git ai-apply time per file, {n2:,} / {n1:,} files",
                f"{growth:.2f}x", "<= 1.5x (linear)", growth <= 1.5))
            git_growth = (p2.median("b") / n2) / (p1.median("b") / n1)
            bench.extra_rows.append((
                f"new files: git apply + commit time per file, {n2:,} / {n1:,} files (for reference)",
                f"{git_growth:.2f}x", "", None))

    if "attempts" in only:
        run_attempts_scenario(bench)

    if "loop" in only:
        import loop  # bench/loop.py: serve and the library against a loop of git commands

        loop.scenarios(bench, Pair, Side, args.loop_sizes or
                       (loop.SIZES_QUICK if args.quick else loop.SIZES_FULL))


def run_attempts_scenario(bench: Bench) -> None:
    """Branch per attempt: bench/attempts.py (written with that feature) measures 40
    responses onto 40 branches against the git plumbing loop, in its own bare
    repositories.  It is imported only here, and skipped cleanly when it is not there;
    its JSON summary becomes rows of this table."""
    import contextlib
    import importlib
    import io

    try:
        mod = importlib.import_module("attempts")
    except ModuleNotFoundError as e:
        if e.name != "attempts":
            raise
        bench.log("- branch per attempt: bench/attempts.py not present; skipped")
        bench.extra_rows.append(("branch per attempt", "skipped (bench/attempts.py absent)", "", None))
        return
    a = bench.args
    sizes = a.attempts_sizes or ("1000,10000" if a.quick else "10000,100000")
    count = a.attempts or (10 if a.quick else 40)
    repeat = max(1, min(a.rounds, 5))
    bench.log(f"- branch per attempt (bench/attempts.py): {count} responses, {sizes} files, "
              f"{repeat} rounds")
    work = tempfile.mkdtemp(prefix="attempts-", dir=bench.workdir)
    out = io.StringIO()
    # it finds git-ai-apply next to the running Python or on PATH: the one measured here
    saved_path = os.environ.get("PATH", "")
    os.environ["PATH"] = bench.bin_dir + os.pathsep + saved_path
    try:
        with contextlib.redirect_stdout(out):
            code = mod.main(["--json", "--sizes", sizes, "--attempts", str(count),
                             "--repeat", str(repeat), "--workdir", work])
    finally:
        os.environ["PATH"] = saved_path
        shutil.rmtree(work, ignore_errors=True)
    if code:
        raise RuntimeError(f"bench/attempts.py exited {code}")
    summary = json.loads(out.getvalue())
    for r in summary["results"]:
        bench.extra_rows.append((
            f"branch per attempt, {r['files']:,} files: {r['attempts']} responses onto "
            f"{r['attempts']} branches, one `git ai-apply --branch` ({r['ai_apply_s'] * 1000:.0f} ms) "
            f"vs the plumbing loop ({r['plumbing_s'] * 1000:.0f} ms)",
            f"{r['ratio']:.1f}x faster", "", None))
    largest = max(summary["results"], key=lambda r: r["files"])
    bench.extra_rows.append((
        f"branch per attempt at {largest['files']:,} files: plumbing loop / git ai-apply",
        f"{summary['ratio_at_largest']:.1f}x", ">= 20x", summary["target_ratio_met"]))
    if len(summary["results"]) > 1:
        bench.extra_rows.append((
            "branch per attempt: per-attempt cost (cpu), largest / smallest repository",
            f"{summary['per_attempt_growth']:.2f}x", "flat (<= 1.5x)", summary["target_flat_met"]))


# --------------------------------------------------------------------------- reporting


def machine_line(bench: Bench) -> str:
    pyver = subprocess.run([bench.python, "-c", "import sys, pygit2; print(sys.version.split()[0], "
                            "pygit2.__version__, pygit2.LIBGIT2_VERSION)"],
                           capture_output=True, text=True).stdout.split()
    gitver = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout.strip()
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    except OSError:
        pass
    py = f"Python {pyver[0]}, pygit2 {pyver[1]} (libgit2 {pyver[2]})" if len(pyver) == 3 else "Python ?"
    return (f"{os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}; "
            f"{gitver}; {py}")


def table(bench: Bench) -> str:
    a = bench.args
    lines = [
        f"Measured {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} on {machine_line(bench)}.",
        f"{a.rounds} alternating rounds per scenario (after one warm-up run of each side); "
        "medians of wall time; peak = largest resident set of the side's processes.",
        "",
        "| scenario | git ai-apply | the other side | other | ratio | target | "
        "peak ai-apply | peak other |",
        "|---|---:|---|---:|---:|---|---:|---:|",
    ]
    for p in bench.pairs:
        target = ""
        if p.target is not None:
            target = f"<= {p.target}x {'ok' if p.ratio <= p.target else '**MISSED**'}"
        lines.append(
            f"| {p.name} | {p.median('a') * 1000:.1f} ms | {p.b.label} | "
            f"{p.median('b') * 1000:.1f} ms | {p.ratio:.2f}x | {target} | "
            f"{p.peak('a') / 1024:.0f} MiB | {p.peak('b') / 1024:.0f} MiB |")
    if bench.extra_rows:
        lines += ["", "| derived | value | target |", "|---|---:|---|"]
        for name, value, target, ok in bench.extra_rows:
            mark = "" if ok is None else (" ok" if ok else " **MISSED**")
            lines.append(f"| {name} | {value} | {target}{mark} |")
    return "\n".join(lines) + "\n"


def write_results(path: str, text: str) -> None:
    """Replace the generated table in ``path``, keeping the hand-written notes around it."""
    block = f"{TABLE_START}\n{text}{TABLE_END}\n"
    try:
        with open(path) as f:
            old = f.read()
    except FileNotFoundError:
        old = "# Benchmark results\n\n" + TABLE_START + "\n" + TABLE_END + "\n"
    if TABLE_START in old and TABLE_END in old:
        head, rest = old.split(TABLE_START, 1)
        tail = rest.split(TABLE_END, 1)[1].lstrip("\n")
        new = head + block + ("\n" + tail if tail else "")
    else:
        new = old.rstrip("\n") + "\n\n" + block
    with open(path, "w") as f:
        f.write(new)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="git ai-apply side by side with git.")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes (1,000 and 10,000 files; 30,000/60,000-line files), 3 rounds; "
                         "writes no results file")
    ap.add_argument("--rounds", type=int, default=None, help="measured rounds per scenario (default 7, quick 3)")
    ap.add_argument("--only", default="one-edit,floor,big-file,sections,three-way,new-files,attempts,loop,lazy",
                    help="comma-separated scenarios: one-edit, floor, big-file, sections, new-files, "
                         "attempts, loop")
    ap.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=None,
                    help="file counts for the one-edit scenario (e.g. 1000,10000)")
    ap.add_argument("--new-files", type=lambda s: [int(x) for x in s.split(",")], default=None,
                    help="new files per response for the new-files scenario (two sizes; default "
                         "10000,100000; quick 1000,10000)")
    ap.add_argument("--small-files", type=int, default=20, help="files in the small repository (20)")
    ap.add_argument("--big-lines", type=int, default=None,
                    help="lines of the smaller big file (the other has twice as many; hunks = lines/150)")
    ap.add_argument("--attempts-sizes", default=None,
                    help="file counts for branch per attempt (default 10000,100000; quick 1000,10000)")
    ap.add_argument("--attempts", type=int, default=None,
                    help="responses per branch-per-attempt run (default 40; quick 10)")
    ap.add_argument("--loop-sizes", type=lambda s: [int(x) for x in s.split(",")], default=None,
                    help="file counts for the loop scenario (default 200,100000; quick 200,10000)")
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "git-ai-apply-bench"),
                    help="where the synthetic repositories are built and kept (reused between runs)")
    ap.add_argument("--bin-dir", default=None, help="folder holding the git-ai-apply to measure")
    ap.add_argument("--results", default=None,
                    help="file whose table to replace (default: bench/results.md for a full run, none "
                         "for --quick)")
    ap.add_argument("--json", dest="json_out", default=None, help="also write the raw samples here")
    ap.add_argument("--quiet", action="store_true", help="print only the table")
    args = ap.parse_args(argv)
    if args.rounds is None:
        args.rounds = 3 if args.quick else 7
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    unknown = only - SCENARIOS
    if unknown:
        ap.error(f"unknown scenario(s): {', '.join(sorted(unknown))}")

    bench = Bench(args)
    bench.log(f"git-ai-apply from {bench.bin_dir}; repositories in {bench.workdir}")
    scenarios(bench, only)
    text = table(bench)
    print()
    print(text, end="")
    results = args.results
    if results is None and not args.quick and not args.sizes and not args.big_lines \
            and not args.attempts_sizes and not args.attempts and not args.new_files \
            and not args.loop_sizes \
            and only == SCENARIOS:
        results = os.path.join(HERE, "results.md")
    if results:
        write_results(results, text)
        bench.log(f"\n(table written to {os.path.relpath(results)})")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump([{"name": p.name, "a": p.a.label, "b": p.b.label, "target": p.target,
                        "a_seconds": [s.seconds for s in p.a_samples],
                        "b_seconds": [s.seconds for s in p.b_samples],
                        "a_peak_kib": [s.peak_kib for s in p.a_samples],
                        "b_peak_kib": [s.peak_kib for s in p.b_samples],
                        "ratio": p.ratio} for p in bench.pairs]
                      + [{"derived": n, "value": v, "target": t, "ok": ok}
                         for n, v, t, ok in bench.extra_rows], f, indent=2)
    missed = [p.name for p in bench.pairs if p.target is not None and p.ratio > p.target]
    missed += [r[0] for r in bench.extra_rows if r[3] is False]
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
