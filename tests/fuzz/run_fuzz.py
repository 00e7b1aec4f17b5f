#!/usr/bin/env python3
"""A long fuzz run (not part of the default pytest run).

    .venv/bin/python tests/fuzz/run_fuzz.py [--inputs 100000] [--seed 1] [--family NAME]

Families (inputs are split evenly among those selected):

- ``parse``: mutated responses (seeds: the shipped examples, the conformance and project
  cases, and hand-written blocks of every format; mutations: drop, duplicate, swap,
  truncate, insert format fragments, flip bytes, CRLF / lone CR, fence wrapping) through
  ``read_response`` and ``parse_response``;
- ``plan``: the same mutated responses planned against an in-memory repository
  (``make_plan``: paths, the locator, hashline), as the command does before writing;
- ``bytes``: random bytes as a response;
- ``path``: random path text through ``normalize_path``;
- ``locate``: random files and edits, checking that lines outside the edit never
  change and that the reverse edit gives the original.

Anything but the tool's own ``ApplyError`` (and, for ``locate``, a wrong result) is a
failure: it is printed with its input (first 20) and the run exits 1.  Figures printed at
the end: inputs per family, refusals, failures, throughput and the slowest input.
"""
from __future__ import annotations

import argparse
import glob
import os
import random
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from git_aiapply.errors import ApplyError  # noqa: E402
from git_aiapply.formats import parse_response  # noqa: E402
from git_aiapply.locate.locate import apply_hunks  # noqa: E402
from git_aiapply.ops import Hunk  # noqa: E402
from git_aiapply.paths import normalize_path  # noqa: E402
from git_aiapply.plan.plan import MODE_FILE, MODE_LINK, make_plan  # noqa: E402
from git_aiapply.answer.response import read_response  # noqa: E402
from git_aiapply.text import FileText, decode, encode  # noqa: E402

FRAGMENTS = [
    "<FILE_CHANGES>", "</FILE_CHANGES>", '<FILE_NEW file_path="a.txt">', "</FILE_NEW>",
    '<FILE_PATCH file_path="a.txt">', "</FILE_PATCH>", '<FILE_DELETE file_path="b.txt" />',
    '<FILE_RENAME from_path="a.txt" to_path="c/d.txt" />', '<FILE_HASHLINE_PATCH file_path="a.txt">',
    "</FILE_HASHLINE_PATCH>", "1#00:x", "2#ZP-3#ab:y", ">+1#5e z", "<+2#QQ:w", "<!--", "-->",
    "*** Begin Patch", "*** End Patch", "*** Add File: n.txt", "*** Update File: a.txt",
    "*** Delete File: b.txt", "*** Move to: m.txt", "*** End of File", "apply_patch <<'EOF'",
    "EOF", '<CodeChange filePath="a.txt">', "<CodeChange file='b.txt'>", "</CodeChange>",
    "<Description>d</Description>", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE",
    "--- a/a.txt", "+++ b/a.txt", "--- /dev/null", "+++ /dev/null", "diff --git a/a.txt b/a.txt",
    "rename from a.txt", "rename to r.txt", "new file mode 100644", "new mode 100755",
    "deleted file mode 100644", "similarity index 90%", "@@ -1,2 +1,2 @@", "@@", "@@ def f():",
    "\\ No newline at end of file", "```", "```diff", "~~~", "+x", "-x", " x", "-one", "+ONE",
    " two", "", " ", "\t", "\ufeff", "../x", ".git/config", "link/x", "a.txt/x", "dir",
    "GIT~1", "\u200c", "é", "“q”", "\x00",
]

HAND_WRITTEN = [
    '<FILE_CHANGES>\n<FILE_PATCH file_path="a.txt">\n@@\n one\n-two\n+TWO\n three\n</FILE_PATCH>\n'
    '<FILE_NEW file_path="n.txt">\nnew\n</FILE_NEW>\n<FILE_DELETE file_path="b.txt" />\n'
    '<FILE_RENAME from_path="c/d.txt" to_path="e.txt" />\n</FILE_CHANGES>\n',
    '<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path="a.txt">\n2#{h2}:TWO\n>+3#{h3} four\n'
    "</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n",
    "*** Begin Patch\n*** Update File: a.txt\n*** Move to: m.txt\n@@ one\n-two\n+TWO\n"
    "*** Add File: n.txt\n+x\n*** Delete File: b.txt\n*** End Patch\n",
    '<CodeChange filePath="a.txt">\n<Description>d</Description>\n<<<<<<< SEARCH\ntwo\n=======\n'
    "TWO\n>>>>>>> REPLACE\n</CodeChange>\n",
    "```diff\ndiff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-two\n"
    "+TWO\n three\n```\n",
]

BASE_FILES = {
    "a.txt": (MODE_FILE, b"one\ntwo\nthree\n"),
    "b.txt": (MODE_FILE, b"bee\r\nline\r\n"),
    "c/d.txt": (MODE_FILE, b"\xef\xbb\xbfdee\nno newline"),
    "link": (MODE_LINK, b"c"),
    "bin.dat": (MODE_FILE, b"\x00\x01binary"),
}


class DictBase:
    """An in-memory repository for make_plan (tracked files only; nothing on disk)."""

    def __init__(self, files):
        self.files = files
        self.dirs = set()
        for p in files:
            parts = p.split("/")
            for i in range(1, len(parts)):
                self.dirs.add("/".join(parts[:i]))

    def entry(self, path):
        return self.files.get(path)

    def kind(self, path):
        if path in self.files:
            return "symlink" if self.files[path][0] == MODE_LINK else "file"
        return "dir" if path in self.dirs else None

    def disk_kind(self, path):
        return None


def seeds() -> list[str]:
    from git_aiapply.locate.hashline import line_id

    out = [s.replace("{h2}", line_id("two")).replace("{h3}", line_id("three")) for s in HAND_WRITTEN]
    patterns = [os.path.join(ROOT, "git_aiapply", "examples", "*.md"),
                os.path.join(ROOT, "tests", "cases", "*", "response.*"),
                os.path.join(ROOT, "..", "shared", "conformance", "*", "*", "response.*")]
    for pat in patterns:
        for path in sorted(glob.glob(pat)):
            try:
                with open(path, "rb") as f:
                    out.append(f.read(200_000).decode("utf-8", "surrogateescape"))
            except OSError:
                pass
    return out


def mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(11)
        i = rng.randrange(len(lines) + 1)
        if op == 0 and lines:
            del lines[min(i, len(lines) - 1)]
        elif op == 1 and lines:
            j = min(i, len(lines) - 1)
            lines.insert(j, lines[j])
        elif op == 2:
            lines.insert(i, rng.choice(FRAGMENTS))
        elif op == 3 and len(lines) > 1:
            j, k = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[j], lines[k] = lines[k], lines[j]
        elif op == 4:
            lines = lines[:i]  # truncated response
        elif op == 5 and lines:
            j = min(i, len(lines) - 1)
            s = lines[j]
            pos = rng.randrange(len(s) + 1)
            lines[j] = s[:pos] + rng.choice(["\udcff", "\udcc3", "\r", "\x00", '"', "'", "<", ">", "`",
                                             " ", "\t", "é", "\u202e"]) + s[pos:]
        elif op == 6 and lines:
            j = min(i, len(lines) - 1)
            s = lines[j]
            if s:
                pos = rng.randrange(len(s))
                lines[j] = s[:pos] + s[pos + 1:]
        elif op == 7:
            lines = ["```" + rng.choice(["", "diff", "xml"])] + lines + ["```"]
        elif op == 8:
            return "\r\n".join(lines) if rng.random() < 0.5 else "\r".join(lines)
        elif op == 9:
            lines.insert(i, rng.choice(FRAGMENTS) + rng.choice(FRAGMENTS))
        else:
            lines.insert(i, "".join(rng.choice("ab <>/\"'=@+-*#:") for _ in range(rng.randint(0, 30))))
    return "\n".join(lines)


class Stats:
    def __init__(self):
        self.inputs = 0
        self.refused = 0
        self.failures: list[tuple[str, str]] = []
        self.slowest = (0.0, "")
        self.seconds = 0.0


def run_one(stats: Stats, fn, arg, label: str) -> None:
    t = time.perf_counter()
    try:
        fn(arg)
    except ApplyError:
        stats.refused += 1
    except Exception:  # a failure: anything but the tool's own refusal
        stats.failures.append((repr(arg)[:2000], traceback.format_exc(limit=6)))
    dt = time.perf_counter() - t
    stats.seconds += dt
    stats.inputs += 1
    if dt > stats.slowest[0]:
        stats.slowest = (dt, label)


def fam_parse(text: str) -> None:
    r = read_response(text.encode("utf-8", "surrogatepass"))
    parse_response(r.text)


def fam_plan(text: str) -> None:
    r = read_response(text.encode("utf-8", "surrogatepass"))
    parsed = parse_response(r.text)
    make_plan(parsed.ops, DictBase(BASE_FILES), lambda raw: normalize_path(raw, worktree="/repo"))


def fam_bytes(raw: bytes) -> None:
    r = read_response(raw)
    parse_response(r.text)


def fam_path(raw: str) -> None:
    out = normalize_path(raw, worktree="/repo")
    parts = out.split("/")
    if out.startswith("/") or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        raise AssertionError(f"unsafe path accepted: {out!r}")


LOC_LINES = ["a", "b", "c", "  a", "a ", "", "x = 1", "}", "“q”", "\udcff"]


def fam_locate(case) -> None:
    lines, start, end, cb, ca, new = case
    body = [(" ", t) for t in lines[start - cb:start]] + [("-", t) for t in lines[start:end]]
    body += [("+", t) for t in new] + [(" ", t) for t in lines[end:end + ca]]
    hunk = Hunk(body)
    if not hunk.old:
        return
    data = "".join(l + "\n" for l in lines)
    got, _a, _r = apply_hunks(FileText.from_bytes(encode(data)), [hunk], path="f")  # may refuse
    if got.lines != lines[:start] + new + lines[end:]:
        raise AssertionError("a line outside the edit changed")
    if hunk.new:
        rev = Hunk([({"+": "-", "-": "+"}.get(tag, tag), t) for tag, t in hunk.lines])
        try:
            back, _a, _r = apply_hunks(got, [rev], path="f")
        except ApplyError:
            return
        if decode(back.raw) != data:
            raise AssertionError("apply then reverse-apply did not give the original")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--family", action="append",
                    choices=["parse", "plan", "bytes", "path", "locate"])
    args = ap.parse_args()
    families = args.family or ["parse", "plan", "bytes", "path", "locate"]
    rng = random.Random(args.seed)
    corpus = seeds()
    per = max(1, args.inputs // len(families))
    results: dict[str, Stats] = {}
    started = time.perf_counter()
    for fam in families:
        s = results[fam] = Stats()
        for k in range(per):
            if fam in ("parse", "plan"):
                text = rng.choice(corpus)
                for _ in range(rng.choice([1, 1, 2, 3])):
                    text = mutate(rng, text)
                run_one(s, fam_parse if fam == "parse" else fam_plan, text, f"{fam}#{k}")
            elif fam == "bytes":
                n = rng.choice([0, 1, 8, 64, 512, 4096])
                raw = bytes(rng.randrange(256) for _ in range(rng.randint(0, n)))
                if rng.random() < 0.5:
                    raw = rng.choice(FRAGMENTS).encode("utf-8", "surrogatepass") + b"\n" + raw
                run_one(s, fam_bytes, raw, f"bytes#{k}")
            elif fam == "path":
                parts = [rng.choice(["a", ".", "..", "", ".git", ".GIT", "git~1", ".git.", "x ",
                                     "\u200c.git", "~", "\\", ":", "é", "\x00", "\x1b", "\u202e",
                                     "/repo", "a" * 300, '"', "`", "./"]) for _ in range(rng.randint(0, 6))]
                run_one(s, fam_path, rng.choice(["/", "/", "\\", ""]).join(parts), f"path#{k}")
            else:
                lines = [rng.choice(LOC_LINES) for _ in range(rng.randint(1, 40))]
                start = rng.randrange(len(lines))
                end = rng.randint(start, min(len(lines), start + 6))
                cb = rng.randint(0, min(3, start))
                ca = rng.randint(0, min(3, len(lines) - end))
                new = [rng.choice(LOC_LINES) for _ in range(rng.randint(0, 5))]
                run_one(s, fam_locate, (lines, start, end, cb, ca, new), f"locate#{k}")
    total_time = time.perf_counter() - started
    total = sum(s.inputs for s in results.values())
    fails = sum(len(s.failures) for s in results.values())
    print(f"fuzz: seed {args.seed}, {len(corpus)} seed responses, {total} inputs in {total_time:.1f} s "
          f"({total / total_time:,.0f} inputs/s)")
    print(f"{'family':<8} {'inputs':>8} {'refused':>8} {'accepted':>9} {'failures':>8} "
          f"{'mean µs':>8} {'slowest ms':>10}")
    for fam, s in results.items():
        mean = s.seconds / s.inputs * 1e6 if s.inputs else 0
        print(f"{fam:<8} {s.inputs:>8} {s.refused:>8} {s.inputs - s.refused - len(s.failures):>9} "
              f"{len(s.failures):>8} {mean:>8.0f} {s.slowest[0] * 1000:>10.1f}")
    for fam, s in results.items():
        for arg, tb in s.failures[:20]:
            print(f"\nFAILURE in {fam}: input {arg}\n{tb}")
    print(f"{total - fails} passed, {fails} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
