"""Races: `git ai-apply` against itself, against `git add` / `git commit`, and against a
stale `index.lock`.  Whatever the interleaving: every run either commits or refuses
clearly with nothing changed, no update is lost (every run that said "applied" is in
the final history and content), and the repository stays consistent (clean status,
`git fsck` clean, no stray lock or temporary file)."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from conftest import AI_APPLY

# How a run may refuse when it loses a race: each names the cause.
RACE_REFUSALS = ("index.lock exists", "another git ai-apply", "moved while the response",
                 "HEAD moved", "cannot update")


def _patch(path: str, old: str, new: str) -> str:
    return (f"Change {path}.\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{path}\">\n@@\n-{old}\n"
            f"+{new}\n</FILE_PATCH>\n</FILE_CHANGES>\n")


def _start(repo, response: str, name: str) -> subprocess.Popen:
    rp = repo.root.parent / f"{name}.md"
    rp.write_text(response)
    return subprocess.Popen([*AI_APPLY, str(rp)], cwd=repo.root, env=repo.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _finish(p: subprocess.Popen) -> tuple[int, str]:
    out, err = p.communicate(timeout=120)
    text = (out + err).decode("utf-8", "replace")
    assert "Traceback" not in text and "internal error" not in text, text
    assert p.returncode in (0, 1, 128), text
    if p.returncode:
        assert any(r in text for r in RACE_REFUSALS), text
        # a refusal says nothing changed; a held lock is git's own fatal message
        assert "nothing was changed" in text or "index.lock exists" in text
    return p.returncode, text


def _consistent(repo) -> None:
    assert repo.git("status", "--porcelain", "--untracked-files=no") == ""
    r = subprocess.run(["git", "fsck", "--no-progress"], cwd=repo.root, env=repo.env,
                       capture_output=True)
    assert r.returncode == 0, r.stderr
    stray = [n for n in os.listdir(repo.root / ".git") if n.endswith(".lock") or "ai-apply" in n
             or n == "AI_APPLY_JOURNAL"]
    assert stray == []


def _slow_hook(repo, seconds: float) -> None:
    repo.write(".git/hooks/pre-commit", f"#!/bin/sh\nsleep {seconds}\n", mode=0o755)


def _holding_hook(repo, flags) -> None:
    """A pre-commit hook that, in the first run to reach it, says so and waits for the
    file ``go`` while its run holds index.lock: the other run meets the lock for certain,
    whatever the machine's load (a sleeping hook only made that likely)."""
    repo.write(".git/hooks/pre-commit",
               f"#!/bin/sh\nif mkdir '{flags}/holding' 2>/dev/null; then\n"
               f"  touch '{flags}/in-hook'\n"
               f"  while [ ! -e '{flags}/go' ]; do sleep 0.01; done\nfi\n", mode=0o755)


def _wait_for(path, p: subprocess.Popen) -> None:
    for _ in range(12000):  # a guard against a hang, not a timing: 120 s
        if path.exists() or p.poll() is not None:
            return
        time.sleep(0.01)


@pytest.mark.parametrize("hold", [False, True], ids=["free", "hook-holds-the-lock"])
def test_two_runs_at_once_on_one_repository(repo, hold):
    n = 12
    repo.write("a.txt", "".join(f"a{i}\n" for i in range(n)))
    repo.write("b.txt", "".join(f"b{i}\n" for i in range(n)))
    repo.commit_all()
    flags = repo.root.parent / "flags"
    flags.mkdir()
    if hold:
        _holding_hook(repo, flags)
    applied = {"a": set(), "b": set()}
    refusals = 0
    # held: the same certain interleaving each time, a and b taking turns (4 rounds do)
    rounds = 4 if hold else n
    for i in range(rounds):
        start_count = repo.count()
        if not hold:
            pa = _start(repo, _patch("a.txt", f"a{i}", f"A{i}"), f"ra{i}")
            pb = _start(repo, _patch("b.txt", f"b{i}", f"B{i}"), f"rb{i}")
            ca, _ = _finish(pa)
            cb, _ = _finish(pb)
        else:
            # one run (a, then b, in turn) waits in its hook; the other starts meanwhile
            first, second = (("a", "b") if i % 2 == 0 else ("b", "a"))
            p1 = _start(repo, _patch(f"{first}.txt", f"{first}{i}", f"{first.upper()}{i}"),
                        f"r{first}{i}")
            _wait_for(flags / "in-hook", p1)
            assert (flags / "in-hook").exists(), _finish(p1)
            p2 = _start(repo, _patch(f"{second}.txt", f"{second}{i}", f"{second.upper()}{i}"),
                        f"r{second}{i}")
            c2, text2 = _finish(p2)
            assert c2 != 0, text2  # the lock was held: refused, nothing changed
            (flags / "go").touch()
            c1, text1 = _finish(p1)
            assert c1 == 0, text1
            for name in ("holding", "in-hook", "go"):
                (flags / name).rmdir() if name == "holding" else (flags / name).unlink()
            ca, cb = (c1, c2) if first == "a" else (c2, c1)
        refusals += (ca != 0) + (cb != 0)
        if ca == 0:
            applied["a"].add(i)
        if cb == 0:
            applied["b"].add(i)
        assert repo.count() == start_count + (ca == 0) + (cb == 0)
        _consistent(repo)
    # no lost update: exactly the runs that said "applied" are in the content
    a = repo.git("show", "HEAD:a.txt").splitlines()
    b = repo.git("show", "HEAD:b.txt").splitlines()
    assert a == [f"A{i}" if i in applied["a"] else f"a{i}" for i in range(n)]
    assert b == [f"B{i}" if i in applied["b"] else f"b{i}" for i in range(n)]
    assert applied["a"] or applied["b"]
    if hold:
        assert refusals == rounds  # while one ran its hook, the other met the lock


def test_the_same_response_twice_at_once_commits_once(repo):
    repo.write("a.txt", "one\ntwo\n")
    repo.commit_all()
    _slow_hook(repo, 0.2)
    resp = _patch("a.txt", "one", "ONE")
    p1, p2 = _start(repo, resp, "same1"), _start(repo, resp, "same2")
    codes = [_finish(p1)[0], _finish(p2)[0]]
    assert 0 in codes
    assert repo.count() == 2
    # whichever refused: running it again now says it is already applied
    r = repo.run(response=resp)
    assert r.returncode == 0 and "already applied" in r.out
    _consistent(repo)


def _retry(repo, response: str, name: str, tries: int = 200) -> int:
    """Run until applied (a refusal from a race is retried); returns the attempts."""
    for k in range(1, tries + 1):
        code, text = _finish(_start(repo, response, f"{name}-{k}"))
        if code == 0:
            return k
        time.sleep(0.01)
    raise AssertionError(f"{name} never applied: {text}")


def test_ai_apply_while_git_add_and_commit_run(repo):
    n = 10
    repo.write("a.txt", "".join(f"a{i}\n" for i in range(n)))
    repo.write("c.txt", "c\n")
    repo.commit_all()
    # a shell loop committing c.txt with plain git, retrying when the index is locked
    script = (
        "i=0; ok=0\n"
        "while [ $ok -lt 25 ]; do\n"
        "  i=$((i+1))\n"
        "  echo \"c $ok\" > c.txt\n"
        "  if git add c.txt 2>../err.log && git commit -q -m \"git commit $ok\" 2>>../err.log; then\n"
        "    ok=$((ok+1))\n"
        "  fi\n"
        "  [ $i -gt 5000 ] && { cat ../err.log >&2; exit 1; }\n"
        "done\n"
        "exit 0\n"
    )
    git_loop = subprocess.Popen(["sh", "-c", script], cwd=repo.root, env=repo.env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    attempts = 0
    for i in range(n):
        attempts += _retry(repo, _patch("a.txt", f"a{i}", f"A{i}"), f"r{i}")
    assert git_loop.wait(timeout=300) == 0, git_loop.stderr.read()
    # every update of both writers is there
    log = repo.git("log", "--format=%s")
    assert sum(1 for l in log.splitlines() if l.startswith("git commit")) == 25
    assert sum(1 for l in log.splitlines() if l.startswith("Change a.txt")) == n
    assert repo.count() == 1 + 25 + n
    assert repo.git("show", "HEAD:a.txt") == "".join(f"A{i}\n" for i in range(n))
    assert repo.git("show", "HEAD:c.txt") == "c 24\n"
    # a refused git add may have left c.txt modified in the worktree; nothing else
    assert repo.git("status", "--porcelain", "--untracked-files=no") in ("", " M c.txt\n")
    _consistent_after_git(repo)


def _consistent_after_git(repo) -> None:
    r = subprocess.run(["git", "fsck", "--no-progress"], cwd=repo.root, env=repo.env,
                       capture_output=True)
    assert r.returncode == 0, r.stderr
    stray = [n for n in os.listdir(repo.root / ".git") if n.endswith(".lock") or "ai-apply" in n]
    assert stray == []


def test_ai_apply_never_commits_what_git_add_staged_meanwhile(repo):
    """Another file staged by `git add` while ai-apply runs stays staged and out of the
    ai-apply commit (the index is read under the lock, not before)."""
    repo.write("a.txt", "one\n")
    repo.write("other.txt", "o\n")
    repo.commit_all()
    repo.write("other.txt", "o2\n")
    repo.git("add", "other.txt")
    r = repo.run(response=_patch("a.txt", "one", "ONE"))
    assert r.returncode == 0, r.err
    assert repo.git("show", "HEAD:other.txt") == "o\n"
    assert repo.git("diff", "--cached", "--name-only") == "other.txt\n"


def test_stale_index_lock_refuses_clearly(repo):
    repo.write("a.txt", "one\n")
    repo.commit_all()
    (repo.root / ".git" / "index.lock").write_bytes(b"")
    before = repo.snapshot()
    r = repo.run(response=_patch("a.txt", "one", "ONE"))
    assert r.returncode == 128 and r.err.startswith("fatal: ")
    assert "index.lock exists" in r.err and "another git process" in r.err.lower()
    assert "remove the file" in r.err  # the hint says what to do
    assert repo.snapshot() == before
    assert (repo.root / ".git" / "index.lock").read_bytes() == b""  # never removed by us
    os.unlink(repo.root / ".git" / "index.lock")
    assert repo.run(response=_patch("a.txt", "one", "ONE")).returncode == 0


def test_git_commit_while_ai_apply_holds_the_lock_fails_cleanly(repo):
    """The other side of the race: git refuses while ai-apply holds index.lock, and its
    commit goes through afterwards: nothing lost on either side."""
    repo.write("a.txt", "one\n")
    repo.write("c.txt", "c\n")
    repo.commit_all()
    _slow_hook(repo, 1.0)
    p = _start(repo, _patch("a.txt", "one", "ONE"), "slow")
    lock = repo.root / ".git" / "index.lock"
    for _ in range(500):
        if lock.exists():
            break
        time.sleep(0.01)
    repo.write("c.txt", "c2\n")
    r = subprocess.run(["git", "commit", "-q", "-am", "by git"], cwd=repo.root, env=repo.env,
                       capture_output=True)
    if lock.exists() or p.poll() is None:
        assert r.returncode != 0 and b"index.lock" in r.stderr
    code, _ = _finish(p)
    assert code == 0
    if r.returncode != 0:
        assert subprocess.run(["git", "commit", "-q", "--no-verify", "-am", "by git"],
                              cwd=repo.root, env=repo.env).returncode == 0
    assert repo.git("show", "HEAD:a.txt") == "ONE\n"
    assert repo.git("show", "HEAD:c.txt") == "c2\n"
    assert repo.count() == 3
