"""diffstat.py prints what git prints: the short stat and summary lines of `git commit`
(`git diff -M --shortstat --summary`), git's rename similarity, its path quoting and its
`{a => b}` compaction.  Each case is committed in a real repository and compared with
git's own output for the same two trees."""
from __future__ import annotations

import random

import pytest

from conftest import GitRepo
from git_aiapply.cli.commands.apply import line_counts
from git_aiapply.run.diffstat import (apply_numstat_lines, apply_stat_lines, apply_summary_lines,
    diff_summary_lines, net_stats, shortstat)


def lines(n: int, seed: int) -> str:
    rnd = random.Random(seed)
    return "".join(f"line {rnd.randrange(10**6)} of the file\n" for _ in range(n))


def edit(text: str, changed: int, seed: int) -> str:
    rnd = random.Random(seed)
    out = text.splitlines(True)
    for i in rnd.sample(range(len(out)), changed):
        out[i] = f"changed {rnd.randrange(10**6)}\n"
    return "".join(out)


BASE = lines(40, 1)
CASES = [
    # (before {path: content}, after {path: content})
    ({"a.txt": BASE}, {"b.txt": BASE}),
    ({"src/old.py": BASE}, {"src/new.py": edit(BASE, 4, 2)}),
    ({"a/b/c.txt": BASE}, {"a/d/c.txt": edit(BASE, 12, 3)}),
    ({"x/y.txt": BASE}, {"z.txt": BASE + "one more\n"}),
    ({"dir/file": BASE}, {"dir/sub/file": BASE}),
    ({"p/q/r.txt": BASE}, {"p/q/s/r.txt": edit(BASE, 19, 4)}),  # near 50%
    ({"p.txt": BASE}, {"q.txt": edit(BASE, 25, 5)}),  # too different: delete + create
    ({"crlf.txt": BASE.replace("\n", "\r\n")}, {"moved.txt": BASE}),
    ({"one.txt": BASE, "two.txt": lines(30, 9)},
     {"uno.txt": edit(BASE, 2, 6), "dos.txt": edit(lines(30, 9), 3, 7)}),
    ({"same1.txt": BASE, "same2.txt": BASE}, {"other/same1.txt": BASE, "same3.txt": BASE}),
    ({"tab\there.txt": BASE, "é.txt": "x\n"}, {"quote\"d.txt": BASE, "ü.txt": "x\ny\n"}),
    ({"k.txt": "a\n"}, {"k.txt": "a\nb\n", "new.txt": ""}),
]


def commit_tree(repo: GitRepo, files: dict[str, str]) -> None:
    repo.git("rm", "-rqf", "--ignore-unmatch", ".")
    for path, text in files.items():
        repo.write(path, text)
    repo.git("add", "-A")
    repo.git("commit", "-q", "--allow-empty", "-m", "state")


@pytest.mark.parametrize("before,after", CASES)
def test_summary_and_stats_are_gits(repo: GitRepo, tmp_path, before, after):
    commit_tree(repo, before)
    commit_tree(repo, after)
    want = repo.git("diff", "-M", "--shortstat", "--summary", "HEAD~", "HEAD").splitlines()
    b = {p: (0o100644, t.encode()) for p, t in before.items()}
    a = {p: (0o100644, t.encode()) for p, t in after.items()}
    stats = net_stats(b, a, line_counts)
    assert [shortstat(stats), *diff_summary_lines(stats)] == want
    # git apply, reading git's own diff of the same change
    patch = tmp_path / "change.diff"
    patch.write_bytes(repo.git("diff", "-M", "--binary", "HEAD~", "HEAD").encode("utf-8", "surrogateescape"))
    repo.git("reset", "-q", "--hard", "HEAD~")
    got = apply_stat_lines(stats) + apply_numstat_lines(stats) + apply_summary_lines(stats)
    assert got == repo.git("apply", "--stat", "--numstat", "--summary", str(patch)).splitlines()


def test_short_stat_words():
    from git_aiapply.run.diffstat import FileStat

    def st(a, d):
        return FileStat("M", "f", "f", 0o100644, 0o100644, a, d)

    assert shortstat([]) == " 0 files changed"
    assert shortstat([st(1, 0)]) == " 1 file changed, 1 insertion(+)"
    assert shortstat([st(0, 2), st(0, 1)]) == " 2 files changed, 3 deletions(-)"
    assert shortstat([st(0, 0)]) == " 1 file changed, 0 insertions(+), 0 deletions(-)"


# ---------------------------------------------------------------- large files: bounded diff

def _edited(rnd: random.Random, base: list[bytes]) -> list[bytes]:
    out = list(base)
    for _ in range(rnd.randrange(1, 6)):
        i = rnd.randrange(len(out) + 1)
        kind = rnd.choice(("insert", "delete", "replace", "dup"))
        if kind == "insert":
            out[i:i] = [b"new %d\n" % rnd.randrange(5) for _ in range(rnd.randrange(1, 4))]
        elif kind == "delete" and out:
            del out[i:i + rnd.randrange(1, 4)]
        elif kind == "replace" and out:
            out[i:i + 1] = [b"changed %d\n" % rnd.randrange(3)]
        elif out:  # a line repeated next to itself: diffs may slide such a change
            out.insert(i, out[min(i, len(out) - 1)])
    return out


def test_large_files_are_diffed_between_their_first_and_last_differences(monkeypatch):
    """Above DIFF_LINES_MAX lines the common ends are cut before libgit2's diff: the counts
    must stay those of the whole files' diff, on any edit (ends and repeated lines included)."""
    import pygit2

    from git_aiapply.git import state

    monkeypatch.setattr(state, "DIFF_LINES_MAX", 3)
    rnd = random.Random(7)
    for case in range(400):
        base = [b"%d\n" % rnd.randrange(4) for _ in range(rnd.randrange(0, 40))]
        old, new = b"".join(base), b"".join(_edited(rnd, base))
        if rnd.random() < 0.2:  # no newline at the end of one side
            new = new.rstrip(b"\n")
        if old == new:
            continue
        _ctx, added, deleted = pygit2.Patch.create_from(old, new).line_stats
        assert state.line_counts(old, new) == (added, deleted), (case, old, new)
        head, tail = state.shared_ends(old, new)
        assert old[:head] == new[:head] and old[len(old) - tail:] == new[len(new) - tail:]
        assert head + tail <= min(len(old), len(new))


def test_a_large_window_takes_the_edits_counts(monkeypatch):
    from git_aiapply.git import state

    monkeypatch.setattr(state, "DIFF_LINES_MAX", 10)
    old = b"".join(b"line %d\n" % i for i in range(100))
    new = old.replace(b"line 1\n", b"one\n", 1).replace(b"line 98\n", b"ninety-eight\n")
    assert state.line_counts(old, new) == (2, 2)  # the window's own diff: small enough
    assert state.line_counts(old, new, fallback=(9, 9)) == (9, 9)  # 98 lines apart: over 10
    # binary content (a NUL in git's first 8,000 bytes) is never cut
    assert state.line_counts(b"\0" + old, b"\0" + new, fallback=(9, 9)) == (0, 0)
