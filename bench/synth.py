"""Synthetic repositories for the benchmarks, built with `git fast-import`.

Two kinds:

* ``files`` repositories: N small source files spread over folders
  (``src/mNNN/sN/fNNNNNN.py``, 100 files per folder), one commit;
* ``bigfile`` repositories: one Python-like file of N lines (functions of ten lines,
  with the repeated lines real code has: ``total = 0``, blank lines, ``return``...)
  beside a few small files.

Each repository is built once into a cache folder and reused while its recipe is the
same (a ``.bench-recipe`` file in the git dir records it).  Edits are generated
together with their two spellings: a numberless ``FILE_PATCH`` response for
``git ai-apply`` and the equivalent unified diff, with real line numbers, for
``git apply``.

Usable as a script too: ``python bench/synth.py files 100000 /tmp/r`` builds one;
``python bench/synth.py bigfile-edit 400 3`` prints a big-file edit in both spellings (JSON).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass

RECIPE_VERSION = 3
FILES_PER_DIR = 100
DIRS_PER_MODULE = 10
FUNC_LINES = 10  # lines of one generated function
BIG_PATH = "src/big_module.py"
IDENTITY = {
    "GIT_AUTHOR_NAME": "Bench Author", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench Author", "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000",
}


def git_env(fixed_dates: bool = True) -> dict[str, str]:
    """An environment that ignores the user's and the system's git config, so every run
    measures the same thing.  Building uses fixed dates (the same repository every time);
    measured runs use the clock, so that each run writes a new commit as in real use."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(IDENTITY)
    if not fixed_dates:
        del env["GIT_AUTHOR_DATE"], env["GIT_COMMITTER_DATE"]
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    env["LC_ALL"] = "C"
    return env


def git(repo: str, *args: str, input: bytes | None = None) -> str:
    r = subprocess.run(["git", *args], cwd=repo, env=git_env(), input=input, capture_output=True)
    if r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed in {repo}: "
                           f"{r.stderr.decode('utf-8', 'replace').strip()}")
    return r.stdout.decode("utf-8", "surrogateescape")


# --------------------------------------------------------------------------- contents


def small_file_path(i: int) -> str:
    module = i // (FILES_PER_DIR * DIRS_PER_MODULE)
    sub = (i // FILES_PER_DIR) % DIRS_PER_MODULE
    return f"src/m{module:03d}/s{sub}/f{i:06d}.py"


def small_file_content(i: int) -> bytes:
    return (f'"""Module number {i}."""\n'
            f"\n"
            f"LIMIT = {i % 97}\n"
            f"\n"
            f"\n"
            f"def handler_{i}(request):\n"
            f"    total = 0\n"
            f"    for item in request.items:\n"
            f"        total += item.size * {i % 13 + 1}\n"
            f"    if total > LIMIT:\n"
            f"        return total - LIMIT\n"
            f"    return total\n").encode()


def function_lines(k: int) -> list[str]:
    """Function number ``k`` of a big file: ten lines, half of them repeated throughout
    the file as in real code, the others unique."""
    return [
        f"def compute_{k}(values):",
        f'    """Weighted total number {k}."""',
        "    total = 0",
        "    for value in values:",
        f"        total += value * {k % 13 + 1}",
        f"    if total > {k}:",
        f"        return total - {k}",
        "",
        f"    return total + {k}",
        "",
    ]


def big_file_lines(n_lines: int) -> list[str]:
    lines: list[str] = []
    k = 0
    while len(lines) < n_lines:
        lines.extend(function_lines(k))
        k += 1
    return lines[:n_lines]


# --------------------------------------------------------------------------- building


def _recipe_path(repo: str) -> str:
    return os.path.join(repo, ".git", "bench-recipe.json")


def _cached(repo: str, recipe: dict) -> bool:
    try:
        with open(_recipe_path(repo)) as f:
            return json.load(f) == recipe
    except (OSError, ValueError):
        return False


def fast_import_commit(git_dir: str, files, env: dict | None = None) -> None:
    """Stream one root commit on ``main`` holding ``files`` (an iterable of (path, bytes))
    into the repository at ``git_dir`` (a worktree or a bare repository)."""
    p = subprocess.Popen(["git", "fast-import", "--quiet", "--done"], cwd=git_dir,
                         env=env or git_env(), stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdin is not None
    w = p.stdin.write
    w(b"commit refs/heads/main\ncommitter Bench Author <bench@example.com> 1700000000 +0000\n"
      b"data 5\nbase\n")
    for path, data in files:
        w(b"M 100644 inline " + path.encode() + b"\ndata " + str(len(data)).encode() + b"\n")
        w(data)
        w(b"\n")
    w(b"\ndone\n")
    p.stdin.close()
    err = p.stderr.read() if p.stderr else b""
    if p.wait() != 0:
        raise RuntimeError(f"git fast-import failed: {err.decode('utf-8', 'replace')}")


def small_files(n_files: int):
    """(path, content) of the ``n_files`` small files of a files repository."""
    return ((small_file_path(i), small_file_content(i)) for i in range(n_files))


def _fast_import(repo: str, files) -> None:
    """A fresh repository with one root commit on ``main`` holding ``files``, checked out."""
    if os.path.exists(repo):
        shutil.rmtree(repo)
    os.makedirs(repo)
    git(repo, "init", "-q", "-b", "main")
    for key, value in (("user.name", "Bench Author"), ("user.email", "bench@example.com"),
                       ("core.autocrlf", "false"), ("gc.auto", "0"),
                       ("maintenance.auto", "false"), ("commit.gpgSign", "false")):
        git(repo, "config", key, value)
    fast_import_commit(repo, files)
    # fill the worktree and the index, then let the index settle (no racily clean entries)
    git(repo, "reset", "-q", "--hard", "main")
    settle(repo)


def settle(repo: str) -> None:
    """Refresh the index so that every entry has trusted stat data, as in a repository
    someone works in (outside any timed region)."""
    git(repo, "update-index", "-q", "--refresh")


def build_files_repo(repo: str, n_files: int) -> str:
    """A repository of ``n_files`` small files; returns its path (built once, cached)."""
    recipe = {"kind": "files", "n": n_files, "version": RECIPE_VERSION}
    if not _cached(repo, recipe):
        _fast_import(repo, small_files(n_files))
        with open(_recipe_path(repo), "w") as f:
            json.dump(recipe, f)
    return repo


DRIFT = ("    total = 0\n", "    total = 0  # counted in bytes\n")


def build_drifted_files_repo(repo: str, n_files: int) -> str:
    """A files repository whose HEAD changed, since the root commit, a line of the middle
    file that ``one_file_edit``'s context holds: an answer written against the root no
    longer fits HEAD, and ``-3`` merges it (built once, cached)."""
    recipe = {"kind": "drifted-files", "n": n_files, "version": RECIPE_VERSION}
    if not _cached(repo, recipe):
        _fast_import(repo, small_files(n_files))
        path = os.path.join(repo, small_file_path(n_files // 2))
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace(*DRIFT, 1))
        git(repo, "commit", "-q", "-am", "Count in bytes")
        settle(repo)
        with open(_recipe_path(repo), "w") as f:
            json.dump(recipe, f)
    return repo


def drifted_edit(n_files: int) -> Edit:
    """``one_file_edit``'s change written against the drifted file (it fits HEAD)."""
    i = n_files // 2
    path = small_file_path(i)
    lines = small_file_content(i).decode().replace(*DRIFT, 1).splitlines()
    at = next(j for j, l in enumerate(lines) if l.startswith("    if total > "))
    return make_edit(path, lines, {at: "    if total >= LIMIT:"},
                     explanation=f"Make handler_{i} inclusive at its limit.")


def build_bigfile_repo(repo: str, n_lines: int) -> str:
    """A repository holding BIG_PATH with ``n_lines`` lines and a few small files."""
    recipe = {"kind": "bigfile", "n": n_lines, "version": RECIPE_VERSION}
    if not _cached(repo, recipe):
        data = ("\n".join(big_file_lines(n_lines)) + "\n").encode()
        files = [(small_file_path(i), small_file_content(i)) for i in range(10)]
        files.append((BIG_PATH, data))
        _fast_import(repo, files)
        with open(_recipe_path(repo), "w") as f:
            json.dump(recipe, f)
    return repo


# --------------------------------------------------------------------------- edits


@dataclass
class Edit:
    """One file's edits in both spellings."""

    path: str
    response: str  # numberless FILE_PATCH response, with a line of explanation
    diff: str  # the equivalent unified diff with real line numbers (for git apply)
    hunks: int


def make_edit(path: str, lines: list[str], changes: dict[int, str], context: int = 3,
              explanation: str = "Tighten the limits.") -> Edit:
    """Replace line ``i`` (0-based) by ``changes[i]`` for every key, as hunks of
    ``context`` lines of context.  Changes closer than 2*context+1 lines are merged into
    one hunk, as diff would."""
    order = sorted(changes)
    groups: list[list[int]] = []
    for i in order:
        if groups and i - groups[-1][-1] <= 2 * context:
            groups[-1].append(i)
        else:
            groups.append([i])
    patch_parts: list[str] = []
    diff_parts: list[str] = [f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"]
    for g in groups:
        lo = max(0, g[0] - context)
        hi = min(len(lines), g[-1] + context + 1)
        body: list[str] = []
        for j in range(lo, hi):
            if j in changes:
                body.append(f"-{lines[j]}\n")
                body.append(f"+{changes[j]}\n")
            else:
                body.append(f" {lines[j]}\n")
        n = hi - lo
        diff_parts.append(f"@@ -{lo + 1},{n} +{lo + 1},{n} @@\n")
        diff_parts.extend(body)
        patch_parts.append("@@\n")
        patch_parts.extend(body)
    response = (f"{explanation}\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{path}\">\n"
                + "".join(patch_parts) + "</FILE_PATCH>\n</FILE_CHANGES>\n")
    return Edit(path, response, "".join(diff_parts), len(groups))


def one_file_edit(n_files: int) -> Edit:
    """The one-edit response for a files repository: a line of the middle file."""
    i = n_files // 2
    path = small_file_path(i)
    lines = small_file_content(i).decode().splitlines()
    at = next(j for j, l in enumerate(lines) if l.startswith("    if total > "))
    return make_edit(path, lines, {at: "    if total >= LIMIT:"},
                     explanation=f"Make handler_{i} inclusive at its limit.")


def loop_edits(n_files: int, count: int) -> list[Edit]:
    """``count`` one-line edits of ``count`` different files spread over the repository,
    to apply one after the other (a harness's loop of responses)."""
    edits = []
    for k in range(count):
        i = (k * n_files) // count + (n_files // count) // 2
        path = small_file_path(i)
        lines = small_file_content(i).decode().splitlines()
        at = next(j for j, l in enumerate(lines) if l.startswith("    if total > "))
        edits.append(make_edit(path, lines, {at: "    if total >= LIMIT:"},
                               explanation=f"Make handler_{i} inclusive at its limit."))
    return edits


def big_file_edit(n_lines: int, n_hunks: int) -> Edit:
    """``n_hunks`` one-line changes spread evenly over the big file."""
    lines = big_file_lines(n_lines)
    n_funcs = n_lines // FUNC_LINES
    step = max(1, n_funcs // n_hunks)
    changes: dict[int, str] = {}
    for h in range(n_hunks):
        k = h * step
        at = k * FUNC_LINES + 5  # "    if total > K:"
        changes[at] = f"    if total >= {k}:"
    return make_edit(BIG_PATH, lines, changes,
                     explanation=f"Make {n_hunks} limits inclusive.")


def lazy_edit(n_lines: int, n_hunks: int) -> Edit:
    """``big_file_edit``'s changes as one lazy snippet of the whole file (a FILE_NEW over
    the tracked file): each changed function shown whole down to its changed line and
    the one after it, a ``# ... existing code ...`` placeholder between two of them and
    after the last, as chat models write a change to a long file."""
    lines = big_file_lines(n_lines)
    edit = big_file_edit(n_lines, n_hunks)
    n_funcs = n_lines // FUNC_LINES
    step = max(1, n_funcs // n_hunks)
    body: list[str] = []
    for h in range(n_hunks):
        k = h * step
        shown = lines[k * FUNC_LINES:k * FUNC_LINES + 7]
        shown[5] = f"    if total >= {k}:"
        if h:
            body += ["", "# ... existing code ...", ""]
        body += shown
    body += ["", "# ... existing code ..."]
    response = (f"Make {n_hunks} limits inclusive.\n\n<FILE_CHANGES>\n"
                f'<FILE_NEW file_path="{BIG_PATH}">\n' + "\n".join(body) +
                "\n</FILE_NEW>\n</FILE_CHANGES>\n")
    return Edit(BIG_PATH, response, edit.diff, n_hunks)


def sections_edit(n_lines: int, n_hunks: int) -> Edit:
    """``big_file_edit``'s changes as ``n_hunks`` separate fenced diffs (each with its
    file headers and numbered hunk, as a model writes one change at a time), instead of
    one FILE_PATCH holding every hunk."""
    edit = big_file_edit(n_lines, n_hunks)
    headers, *hunks = edit.diff.split("\n@@ ")
    headers = headers.split("\n", 1)[1]  # the '--- a/' and '+++ b/' lines
    parts = [f"Make {n_hunks} limits inclusive, one change at a time.\n\n"]
    for h in hunks:
        parts.append(f"```diff\n{headers}\n@@ {h.rstrip(chr(10))}\n```\n\n")
    return Edit(edit.path, "".join(parts), edit.diff, len(hunks))


def new_files_edit(n_files: int) -> Edit:
    """One response adding ``n_files`` new files (FILE_NEW), 100 to a folder under new/,
    and the equivalent `git diff` of new files."""
    resp: list[str] = [f"Add {n_files} generated modules.\n\n<FILE_CHANGES>\n"]
    diff: list[str] = []
    for i in range(n_files):
        path = f"new/m{i // FILES_PER_DIR:04d}/gen_{i}.py"
        body = f'"""Generated module {i}."""\nVALUE = {i}\n\n\ndef value():\n    return VALUE\n'
        lines = body.splitlines()
        resp.append(f'<FILE_NEW file_path="{path}">\n{body}</FILE_NEW>\n')
        diff.append(f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n"
                    f"+++ b/{path}\n@@ -0,0 +1,{len(lines)} @@\n"
                    + "".join(f"+{l}\n" for l in lines))
    resp.append("</FILE_CHANGES>\n")
    return Edit("new/", "".join(resp), "".join(diff), 0)


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[0] == "bigfile-edit":
        # the edit in its two spellings, as JSON (tests/test_bench_smoke.py compares them)
        edit = big_file_edit(int(argv[1]), int(argv[2]))
        print(json.dumps({"path": edit.path, "response": edit.response, "diff": edit.diff,
                          "hunks": edit.hunks, "lines": big_file_lines(int(argv[1]))}))
        return 0
    if len(argv) != 3 or argv[0] not in ("files", "bigfile"):
        print("usage: synth.py files N_FILES PATH | synth.py bigfile N_LINES PATH\n"
              "       synth.py bigfile-edit N_LINES N_HUNKS", file=sys.stderr)
        return 2
    kind, n, path = argv[0], int(argv[1]), os.path.abspath(argv[2])
    (build_files_repo if kind == "files" else build_bigfile_repo)(path, n)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
