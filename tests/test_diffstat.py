"""diffstat.py prints what git prints: the short stat and summary lines of `git commit`
(`git diff -M --shortstat --summary`), git's rename similarity, its path quoting and its
`{a => b}` compaction.  Each case is committed in a real repository and compared with
git's own output for the same two trees."""
from __future__ import annotations

import random

import pytest

from conftest import GitRepo
from git_aiapply.commands.apply import line_counts
from git_aiapply.diffstat import (apply_numstat_lines, apply_stat_lines, apply_summary_lines,
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
    from git_aiapply.diffstat import FileStat

    def st(a, d):
        return FileStat("M", "f", "f", 0o100644, 0o100644, a, d)

    assert shortstat([]) == " 0 files changed"
    assert shortstat([st(1, 0)]) == " 1 file changed, 1 insertion(+)"
    assert shortstat([st(0, 2), st(0, 1)]) == " 2 files changed, 3 deletions(-)"
    assert shortstat([st(0, 0)]) == " 1 file changed, 0 insertions(+), 0 deletions(-)"
