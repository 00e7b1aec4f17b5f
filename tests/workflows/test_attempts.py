"""Many responses, each on its own branch; `attempts` and `pick` (BEHAVIOR.md §9,
docs/ATTEMPTS.md).  Real repositories, the real command, checked with the git CLI."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import AI_APPLY, GitRepo


def patch(path: str, old: str, new: str, explanation: str = "") -> str:
    return (f"{explanation}\n\n<FILE_CHANGES>\n<FILE_PATCH file_path=\"{path}\">\n@@\n"
            f"-{old}\n+{new}\n</FILE_PATCH>\n</FILE_CHANGES>\n")


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\nbeta\ngamma\n")
    repo.write("src/b.py", "B = 1\n")
    repo.commit_all("base")
    # a worktree that is anything but clean: the runs must not touch any of it
    repo.write("src/b.py", "B = 2  # unstaged\n")
    repo.write("untracked.txt", "mine\n")
    repo.write("staged.txt", "staged\n")
    repo.git("add", "staged.txt")
    return repo


def write(tmp: Path, name: str, text: str) -> str:
    p = tmp / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return str(p)


def same_except_refs(before: dict, after: dict) -> None:
    for key in before:
        if key != "refs":
            assert before[key] == after[key], key


def branches(repo: GitRepo, pattern: str = "*") -> list[str]:
    return repo.git("for-each-ref", "--format=%(refname:short)", f"refs/heads/{pattern}").split()


# --------------------------------------------------------------------------- the run


def test_every_response_on_its_own_branch(base: GitRepo, tmp_path):
    rs = tmp_path / "rs"
    files = [write(rs, "one.md", patch("a.txt", "alpha", "ONE", "First idea.")),
             write(rs, "two.md", patch("a.txt", "alpha", "TWO", "Second idea.")),
             write(rs, "bad.md", patch("a.txt", "not in the file", "x")),
             write(rs, "three.md", patch("a.txt", "gamma", "THREE"))]
    head = base.head()
    before = base.snapshot()
    r = base.run("--branch", "try/{n}", *files)
    assert r.returncode == 1  # one was refused
    same_except_refs(before, base.snapshot())  # HEAD, index bytes, worktree, status
    assert sorted(branches(base, "try")) == ["try/1", "try/2", "try/4"]
    for b in ("try/1", "try/2", "try/4"):
        assert base.git("rev-parse", f"{b}^").strip() == head  # independent, same base
    assert base.tree("try/1")["a.txt"][1] == b"ONE\nbeta\ngamma\n"
    assert base.tree("try/2")["a.txt"][1] == b"TWO\nbeta\ngamma\n"
    assert base.tree("try/4")["a.txt"][1] == b"alpha\nbeta\nTHREE\n"
    # the summary table
    lines = r.out.splitlines()
    assert lines[0].split() == ["#", "RESPONSE", "BRANCH", "STATUS", "FILES", "+/-", "FIRST", "ERROR"]
    row3 = _row(lines, "bad.md")
    assert "try/3" in row3 and "refused" in row3 and "could not find" in row3
    row1 = next(l for l in lines if "one.md" in l)
    assert "applied" in row1 and "+1 -1" in row1
    assert lines[-1].startswith("3 of 4 applied, 1 refused")
    assert "\r" not in r.err  # no progress bar when stderr is not a terminal


def test_all_applied_exits_0_and_name_template(base: GitRepo, tmp_path):
    files = [write(tmp_path, "fast model.md", patch("a.txt", "alpha", "A")),
             write(tmp_path, "slow.v2.md", patch("a.txt", "beta", "B"))]
    r = base.run("--branch", "cand/{name}-{n:02d}", *files)
    assert r.returncode == 0, r.out + r.err
    # a file stem is made branch-safe (space -> -)
    assert sorted(branches(base, "cand")) == ["cand/fast-model-01", "cand/slow.v2-02"]


def test_same_branch_for_two_responses_is_a_usage_error(base: GitRepo, tmp_path):
    a = write(tmp_path / "x", "r.md", patch("a.txt", "alpha", "A"))
    b = write(tmp_path / "y", "r.md", patch("a.txt", "alpha", "B"))
    before = base.snapshot()
    for template in ("same/{name}", "fixed"):
        r = base.run("--branch", template, a, b)
        assert r.returncode == 2
        assert "the same branch" in r.err
    assert base.snapshot() == before


@pytest.mark.parametrize("template", ["t/{m}", "t/{n!r}", "t/{n:zz}", "t/{"])
def test_bad_template_is_a_usage_error(base: GitRepo, tmp_path, template):
    a = write(tmp_path, "r.md", patch("a.txt", "alpha", "A"))
    r = base.run("--branch", template, a)
    assert r.returncode == 2, r.err
    assert branches(base, "t") == []


def test_single_response_with_template(base: GitRepo, tmp_path):
    a = write(tmp_path, "only.md", patch("a.txt", "alpha", "A"))
    r = base.run("--branch", "t/{name}", a)
    assert r.returncode == 0, r.err
    assert branches(base, "t") == ["t/only"]


def test_folder_of_responses(base: GitRepo, tmp_path):
    d = tmp_path / "answers"
    write(d, "b.md", patch("a.txt", "beta", "B"))
    write(d, "a.md", patch("a.txt", "alpha", "A"))
    write(d, ".hidden.md", patch("a.txt", "gamma", "H"))
    (d / "sub").mkdir()
    write(d / "sub", "c.md", patch("a.txt", "gamma", "C"))
    r = base.run("--branch", "f/{n}-{name}", str(d))
    assert r.returncode == 0, r.out + r.err
    assert sorted(branches(base, "f")) == ["f/1-a", "f/2-b"]  # sorted by name
    empty = tmp_path / "empty"
    empty.mkdir()
    r = base.run("--branch", "e/{n}", str(empty))
    assert r.returncode == 2 and "no response files" in r.err


def test_json_lines_file(base: GitRepo, tmp_path):
    chat = {"model": "gpt-test", "choices": [{"message": {"role": "assistant",
                                                          "content": patch("a.txt", "gamma", "G")}}]}
    lines = [json.dumps(patch("a.txt", "alpha", "A", "Plain string line.")),
             "",
             json.dumps({"response": patch("a.txt", "beta", "B"), "name": "named one",
                         "model": "m-1"}),
             json.dumps(chat),
             "{not json",
             json.dumps({"response": chat, "name": "wrapped"}),
             json.dumps(42)]
    f = write(tmp_path, "samples.jsonl", "\n".join(lines) + "\n")
    r = base.run("--branch", "j/{name}", "--json", f)
    assert r.returncode == 1
    results = [json.loads(line) for line in r.out.splitlines()]  # JSON Lines
    got = {x["input"]: x for x in results}
    assert [x["n"] for x in results] == [1, 2, 3, 4, 5, 6]
    assert got[f"{f}:1"]["status"] == "applied" and got[f"{f}:1"]["branch"] == "j/samples-1"
    assert got[f"{f}:3"]["branch"] == "j/named-one" and got[f"{f}:3"]["model"] == "m-1"
    assert got[f"{f}:4"]["status"] == "applied" and got[f"{f}:4"]["model"] == "gpt-test"
    assert got[f"{f}:5"]["status"] == "refused" and "not JSON" in got[f"{f}:5"]["error_text"]
    assert got[f"{f}:6"]["branch"] == "j/wrapped" and got[f"{f}:6"]["status"] == "applied"
    assert got[f"{f}:7"]["status"] == "refused"
    assert [x["status"] for x in results].count("applied") == 4
    assert "AI-Model: m-1" in base.message("j/named-one")
    assert "AI-Model: gpt-test" in base.message("j/samples-3")
    assert sorted(branches(base, "j")) == ["j/named-one", "j/samples-1", "j/samples-3", "j/wrapped"]


def test_json_output_for_programs(base: GitRepo, tmp_path):
    files = [write(tmp_path, "ok.md", patch("a.txt", "alpha", "A")),
             write(tmp_path, "no.md", patch("a.txt", "zzz", "x"))]
    r = base.run("--branch", "p/{n}", "--json", *files)
    assert r.returncode == 1
    ok, no = [json.loads(line) for line in r.out.splitlines()]
    assert ok["status"] == "applied" and ok["branch"] == "p/1"
    assert ok["commit"] == base.git("rev-parse", "p/1").strip()
    assert ok["base"] == base.head() and ok["added"] == 1 and ok["removed"] == 1
    assert no["status"] == "refused" and no["branch"] == "p/2" and no["commit"] is None
    assert no["errors"][0]["file"] == "a.txt"


def test_rerun_is_idempotent(base: GitRepo, tmp_path):
    files = [write(tmp_path, f"r{i}.md", patch("a.txt", "alpha", f"A{i}")) for i in range(3)]
    assert base.run("--branch", "i/{n}", *files).returncode == 0
    tips = {b: base.git("rev-parse", b).strip() for b in branches(base, "i")}
    r = base.run("--branch", "i/{n}", *files)
    assert r.returncode == 0
    assert r.out.count("already applied") == 3
    assert {b: base.git("rev-parse", b).strip() for b in branches(base, "i")} == tips


def test_base_option_for_all_attempts(base: GitRepo, tmp_path):
    first = base.head()
    base.write("a.txt", "alpha\nbeta\ngamma\ndelta\n")
    base.git("add", "a.txt")
    base.git("commit", "-q", "-m", "second")
    files = [write(tmp_path, f"r{i}.md", patch("a.txt", "alpha", f"A{i}")) for i in range(2)]
    r = base.run("--branch", "b/{n}", "--base", first, *files)
    assert r.returncode == 0, r.err
    for b in ("b/1", "b/2"):
        assert base.git("rev-parse", f"{b}^").strip() == first
    r = base.run("--branch", "b/{n}", "--base", "no-such-rev", *files)
    assert r.returncode == 2


def test_progress_bar_on_a_terminal(base: GitRepo, tmp_path):
    import pty

    files = [write(tmp_path, f"r{i}.md", patch("a.txt", "alpha", f"A{i}")) for i in range(5)]
    master, slave = pty.openpty()
    p = subprocess.run([*AI_APPLY, "--branch", "bar/{n}", *files], cwd=base.root, env=base.env,
                       stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    err = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    assert p.returncode == 0
    assert b"\r" in err and b"/5" in err and b"[" in err
    assert b"\r" not in p.stdout  # the table on stdout stays clean


def test_quiet_prints_only_refusals(base: GitRepo, tmp_path):
    files = [write(tmp_path, "ok.md", patch("a.txt", "alpha", "A")),
             write(tmp_path, "no.md", patch("a.txt", "zzz", "x"))]
    r = base.run("-q", "--branch", "q/{n}", *files)
    assert r.returncode == 1
    assert r.out == ""
    assert "no.md" in r.err and "ok.md" not in r.err


# --------------------------------------------------------------------------- concurrency


def _spawn(repo: GitRepo, *args: str) -> subprocess.Popen:
    return subprocess.Popen([*AI_APPLY, *args], cwd=repo.root, env=repo.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_parallel_processes_onto_different_branches_all_succeed(base: GitRepo, tmp_path):
    head = base.head()
    before = base.snapshot()
    files = [write(tmp_path, f"r{i}.md", patch("a.txt", "alpha", f"A{i}")) for i in range(12)]
    procs = [_spawn(base, "--branch", f"par/{i}", f) for i, f in enumerate(files)]
    results = [(p.wait(), p.stdout.read(), p.stderr.read()) for p in procs]
    assert all(code == 0 for code, _o, _e in results), results
    assert len(branches(base, "par")) == 12
    for i in range(12):
        assert base.git("rev-parse", f"par/{i}^").strip() == head
        assert base.tree(f"par/{i}")["a.txt"][1] == f"A{i}\nbeta\ngamma\n".encode()
    same_except_refs(before, base.snapshot())
    assert base.git("fsck", "--no-dangling") == ""


def test_parallel_processes_onto_one_branch_one_wins(base: GitRepo, tmp_path):
    """All edit the same line, so whatever the timing exactly one can land: a racer
    that lost the compare-and-swap refuses, and one that came after finds the line
    already changed and refuses too.  Nothing is lost: the branch holds the winner."""
    for rnd in range(3):
        files = [write(tmp_path / str(rnd), f"r{i}.md", patch("a.txt", "alpha", f"W{rnd}-{i}"))
                 for i in range(6)]
        procs = [_spawn(base, "--branch", f"contended/{rnd}", f) for f in files]
        results = [(p.wait(), p.stdout.read().decode(), p.stderr.read().decode()) for p in procs]
        winners = [i for i, (code, _o, _e) in enumerate(results) if code == 0]
        assert len(winners) == 1, results
        for i, (code, _out, err) in enumerate(results):
            if i != winners[0]:
                assert "Traceback" not in err and "internal error" not in err
                # refused by the compare-and-swap or by the winner's line (exit 1), or
                # stopped by the winner's reference lock: a held lock is fatal (128), as
                # a held index.lock is
                assert ((code == 1 and ("moved while" in err or "could not find" in err))
                        or (code == 128 and "reference lock" in err)), (code, err)
        tip = f"contended/{rnd}"
        assert base.git("rev-parse", f"{tip}^").strip() == base.head()
        assert base.tree(tip)["a.txt"][1] == f"W{rnd}-{winners[0]}\nbeta\ngamma\n".encode()
    assert not list((base.root / ".git" / "refs" / "heads").rglob("*.lock"))


# --------------------------------------------------------------------------- attempts


def test_attempts_lists_branches_made_by_the_tool(base: GitRepo, tmp_path):
    chat = {"model": "claude-test", "content": [{"type": "text", "text": patch("a.txt", "beta", "B")}],
            "role": "assistant", "type": "message"}
    files = [write(tmp_path, "r1.md", patch("a.txt", "alpha", "A")),
             write(tmp_path, "r2.json", json.dumps(chat))]
    assert base.run("--branch", "try/{n}", *files).returncode == 0
    base.git("branch", "plain")  # not made by the tool
    r = base.run("attempts")
    assert r.returncode == 0, r.err
    lines = r.out.splitlines()
    assert lines[0].split()[:4] == ["BRANCH", "BASE", "BASE", "IS"]
    assert [l.split()[0] for l in lines[1:]] == ["try/1", "try/2"]
    assert "plain" not in r.out and "main" not in r.out
    assert "yes" in lines[1] and "file-changes" in lines[1] and "+1 -1" in lines[1]
    assert "claude-test" in lines[2]
    out = json.loads(base.run("attempts", "--json").out)
    a1 = out["attempts"][0]
    assert a1["branch"] == "try/1" and a1["base"] == base.head() and a1["base_is_head"] is True
    assert a1["files"] == 1 and a1["added"] == 1 and a1["removed"] == 1
    assert a1["format"] == "file-changes"
    # HEAD moves on: the attempts are no longer on HEAD
    base.git("commit", "-q", "--allow-empty", "-m", "later")
    out = json.loads(base.run("attempts", "--json").out)
    assert [a["base_is_head"] for a in out["attempts"]] == [False, False]
    assert " no " in base.run("attempts").out


def test_attempts_pattern(base: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "A"))
    assert base.run("--branch", "try/1", f).returncode == 0
    assert base.run("--branch", "other/1", f).returncode == 0
    assert base.run("--branch", "tryhard", f).returncode == 0
    names = lambda *a: [x["branch"] for x in json.loads(base.run("attempts", "--json", *a).out)["attempts"]]
    assert names() == ["other/1", "try/1", "tryhard"]
    assert names("try") == ["try/1"]
    assert names("try*") == ["try/1", "tryhard"]
    assert names("*/1") == ["other/1", "try/1"]


def test_prune_asks_and_deletes(base: GitRepo, tmp_path):
    files = [write(tmp_path, f"r{i}.md", patch("a.txt", "alpha", f"A{i}")) for i in range(3)]
    assert base.run("--branch", "try/{n}", *files).returncode == 0
    base.git("branch", "keep")
    # not at a terminal and no --yes: refuse, delete nothing
    r = base.run("attempts", "--prune")
    assert r.returncode == 2 and "--yes" in r.err
    assert len(branches(base, "try")) == 3
    # only the matching ones
    r = base.run("attempts", "--prune", "--yes", "try/1")
    assert r.returncode == 0, r.err
    assert "Deleted branch try/1" in r.out
    assert sorted(branches(base, "try")) == ["try/2", "try/3"]
    assert not (base.root / ".git" / "logs" / "refs" / "heads" / "try" / "1").exists()
    r = base.run("attempts", "--prune", "--yes")
    assert r.returncode == 0
    assert branches(base, "try") == []
    assert branches(base, "keep") == ["keep"]
    assert base.run("attempts").out.strip() == "no attempt branches"


def test_prune_keeps_a_checked_out_attempt(base: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "A"))
    assert base.run("--branch", "try/1", f).returncode == 0
    base.git("worktree", "add", "-q", str(tmp_path / "wt"), "try/1")
    r = base.run("attempts", "--prune", "--yes")
    assert r.returncode == 0
    assert "keeping try/1" in r.err
    assert branches(base, "try") == ["try/1"]


# --------------------------------------------------------------------------- pick


@pytest.fixture
def clean(repo: GitRepo) -> GitRepo:
    repo.write("a.txt", "alpha\nbeta\ngamma\n")
    repo.write("src/b.py", "B = 1\n")
    repo.commit_all("base")
    return repo


def test_pick_fast_forwards_when_the_attempt_is_on_head(clean: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", "Rename and extend.\n\n<FILE_CHANGES>\n"
              "<FILE_PATCH file_path=\"a.txt\">\n@@\n-alpha\n+ALPHA\n</FILE_PATCH>\n"
              "<FILE_NEW file_path=\"new/c.txt\">\nsee\n</FILE_NEW>\n"
              "<FILE_DELETE file_path=\"src/b.py\" />\n</FILE_CHANGES>\n")
    r = clean.run("--branch", "try/1", f)
    assert r.returncode == 0, r.out + r.err
    tip = clean.git("rev-parse", "try/1").strip()
    clean.write("untouched-untracked.txt", "x\n")
    r = clean.run("pick", "try/1")
    assert r.returncode == 0, r.err
    assert "Fast-forward" in r.out
    assert clean.head() == tip
    assert clean.read("a.txt") == b"ALPHA\nbeta\ngamma\n"
    assert clean.read("new/c.txt") == b"see\n"
    assert not (clean.root / "src" / "b.py").exists()
    assert clean.git("status", "--porcelain") == "?? untouched-untracked.txt\n"
    assert "pick" in clean.git("reflog", "-1", "--format=%gs", "main")
    # git agrees with the index's stat data: nothing to refresh
    assert clean.git("diff-files", "--name-only") == ""
    r = clean.run("pick", "try/1")
    assert r.returncode == 0 and "nothing to pick" in r.out


def test_pick_refuses_dirty_touched_files(clean: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "ALPHA"))
    assert clean.run("--branch", "try/1", f).returncode == 0
    clean.write("a.txt", "alpha\nbeta\ngamma\nmine\n")
    before = clean.snapshot()
    r = clean.run("pick", "try/1")
    assert r.returncode == 1
    assert "a.txt has unstaged changes" in r.err
    assert clean.snapshot() == before


def test_pick_refuses_untracked_file_in_the_way(clean: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", "<FILE_CHANGES>\n<FILE_NEW file_path=\"n.txt\">\nnew\n"
                                "</FILE_NEW>\n</FILE_CHANGES>\n")
    assert clean.run("--branch", "try/1", f).returncode == 0
    clean.write("n.txt", "precious\n")
    before = clean.snapshot()
    r = clean.run("pick", "try/1")
    assert r.returncode == 1
    assert "not tracked" in r.err
    assert clean.snapshot() == before


def test_pick_reapplies_when_head_moved_with_hooks(clean: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "ALPHA", "Shout alpha."))
    assert clean.run("--branch", "try/1", f).returncode == 0
    attempt_msg = clean.message("try/1")
    clean.write("src/b.py", "B = 2\n")
    clean.git("commit", "-q", "-am", "meanwhile")
    moved = clean.head()
    marker = tmp_path / "hook-ran"
    hook = clean.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\necho $GIT_AI_APPLY > {marker}\n")
    hook.chmod(0o755)
    r = clean.run("pick", "try/1")
    assert r.returncode == 0, r.err
    assert "Fast-forward" not in r.out
    assert clean.git("rev-parse", "HEAD^").strip() == moved
    assert clean.head() != clean.git("rev-parse", "try/1").strip()
    assert clean.read("a.txt") == b"ALPHA\nbeta\ngamma\n"
    assert clean.read("src/b.py") == b"B = 2\n"
    assert clean.message() == attempt_msg  # the attempt's message, trailers included
    assert marker.read_text().strip() == "1"
    assert clean.git("status", "--porcelain") == ""
    # picked again: already there
    r = clean.run("pick", "try/1")
    assert r.returncode == 0 and "nothing to pick" in r.out


def test_pick_conflict_refuses_and_changes_nothing(clean: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "ALPHA"))
    assert clean.run("--branch", "try/1", f).returncode == 0
    clean.write("a.txt", "omega\nbeta\ngamma\n")
    clean.git("commit", "-q", "-am", "conflicting")
    before = clean.snapshot()
    r = clean.run("pick", "try/1")
    assert r.returncode == 1
    assert "conflicts" in r.err and "a.txt" in r.err
    assert clean.snapshot() == before


def test_pick_no_ff_and_delete(clean: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "ALPHA"))
    assert clean.run("--branch", "try/1", f).returncode == 0
    tip = clean.git("rev-parse", "try/1").strip()
    head = clean.head()
    # (a later date: made in the same second, the new commit would be the attempt's twin)
    r = clean.run("pick", "--no-ff", "-d", "try/1",
                  env=dict(clean.env, GIT_COMMITTER_DATE="@2000000000 +0000"))
    assert r.returncode == 0, r.err
    assert clean.head() != tip
    assert clean.git("rev-parse", "HEAD^").strip() == head
    assert clean.read("a.txt") == b"ALPHA\nbeta\ngamma\n"
    assert branches(clean, "try") == []


def test_pick_errors(clean: GitRepo, tmp_path):
    clean.git("branch", "plain")
    r = clean.run("pick", "plain")
    assert r.returncode == 1 and "not an attempt branch" in r.err
    assert clean.run("pick", "nope").returncode == 2
    assert clean.run("pick", "main").returncode == 2
    bare = tmp_path / "bare.git"
    clean.git("clone", "-q", "--bare", str(clean.root), str(bare))
    r = GitRepo(bare, clean.env).run("pick", "plain")
    assert r.returncode == 2 and "bare" in r.err


def test_check_and_diff_with_several_write_nothing(base: GitRepo, tmp_path):
    files = [write(tmp_path, "ok.md", patch("a.txt", "alpha", "A")),
             write(tmp_path, "no.md", patch("a.txt", "zzz", "x"))]
    before = base.snapshot()
    r = base.run("--branch", "c/{n}", "--check", *files)
    assert r.returncode == 1
    assert "would apply" in r.out and r.out.splitlines()[-1].startswith("1 of 2 would apply")
    r = base.run("--branch", "c/{n}", "--diff", *files)
    assert "==> " in r.out and "+A" in r.out
    assert "RESPONSE" not in r.out and "RESPONSE" in r.err  # the table goes to stderr
    assert base.snapshot() == before


def test_edit_with_several_is_a_usage_error(base: GitRepo, tmp_path):
    files = [write(tmp_path, f"r{i}.md", patch("a.txt", "alpha", f"A{i}")) for i in range(2)]
    r = base.run("--branch", "e/{n}", "-e", *files)
    assert r.returncode == 2
    assert branches(base, "e") == []


def test_attempts_in_a_bare_repository(clean: GitRepo, tmp_path):
    bare = tmp_path / "bare.git"
    clean.git("clone", "-q", "--bare", str(clean.root), str(bare))
    b = GitRepo(bare, clean.env)
    head = b.git("rev-parse", "HEAD").strip()
    files = [write(tmp_path, f"r{i}.md", patch("a.txt", "alpha", f"A{i}")) for i in range(3)]
    r = b.run("--branch", "try/{n}", *files)
    assert r.returncode == 0, r.out + r.err
    assert b.git("rev-parse", "HEAD").strip() == head
    assert not (bare / "index").exists()
    out = json.loads(b.run("attempts", "--json").out)
    assert [a["branch"] for a in out["attempts"]] == ["try/1", "try/2", "try/3"]
    assert all(a["base_is_head"] for a in out["attempts"])
    assert b.run("attempts", "--prune", "--yes").returncode == 0
    assert branches(b, "try") == []


# --------------------------------------------------------------------------- prune keeps people's work


def test_prune_keeps_a_feature_branch_with_human_commits_under_an_ai_tip(base: GitRepo, tmp_path):
    """Regression: a feature branch whose tip was applied by the tool (trailer) but which
    holds the user's own unmerged commits was deleted by `attempts --prune --yes`."""
    repo = base
    repo.git("stash", "-q", "-u")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("mine.txt", "hours of work\n")
    repo.git("add", "mine.txt")
    repo.git("commit", "-q", "-m", "my own work")
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "A", "Tidy."))
    assert repo.run(f).returncode == 0
    assert "AI-Response" in repo.git("log", "-1", "--format=%B")
    repo.git("checkout", "-q", "main")
    tip = repo.git("rev-parse", "feature").strip()
    r = repo.run("attempts", "--prune", "--yes")
    assert r.returncode == 0, r.err
    assert repo.git("rev-parse", "feature").strip() == tip
    assert "keeping feature" in r.err and "not created by `git ai-apply --branch`" in r.err
    out = json.loads(repo.run("attempts", "--json").out)
    feat = [a for a in out["attempts"] if a["branch"] == "feature"][0]
    assert feat["prunable"] is False and "not created" in feat["kept_because"]


def test_prune_keeps_an_existing_branch_the_tool_committed_onto(base: GitRepo, tmp_path):
    base.git("branch", "mine")  # made by the user, not by --branch
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "A"))
    assert base.run("--branch", "mine", f).returncode == 0
    r = base.run("attempts", "--prune", "--yes")
    assert r.returncode == 0
    assert branches(base, "mine") == ["mine"]
    assert "keeping mine" in r.err


@pytest.mark.parametrize("how", ["commit", "amend", "reset", "rebase", "update-ref"])
def test_prune_keeps_an_attempt_someone_worked_on(base: GitRepo, tmp_path, how):
    repo = base
    f1 = write(tmp_path, "r1.md", patch("a.txt", "alpha", "A", "First."))
    f2 = write(tmp_path, "r2.md", patch("a.txt", "gamma", "G", "Second."))
    assert repo.run("--branch", "try/1", f1).returncode == 0
    assert repo.run("--branch", "try/1", f2).returncode == 0  # the tool's own, twice
    assert repo.run("--branch", "try/2", f1).returncode == 0
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", str(wt), "try/1")
    w = GitRepo(wt, repo.env)
    if how == "commit":  # a human commit, then the tool again on top
        w.write("mine.txt", "mine\n")
        w.git("add", "mine.txt")
        w.git("commit", "-q", "-m", "mine")
        f3 = write(tmp_path, "r3.md", patch("a.txt", "beta", "B", "Third."))
        assert w.run(f3).returncode == 0
    elif how == "amend":  # the user's file folded into the tool's commit (trailer kept)
        w.write("mine.txt", "mine\n")
        w.git("add", "mine.txt")
        w.git("commit", "-q", "--amend", "--no-edit")
    elif how == "reset":
        w.git("reset", "-q", "--hard", "HEAD~1")
    elif how == "rebase":
        repo.git("commit", "-q", "--allow-empty", "-m", "later on main")
        w.git("rebase", "-q", "main")
    else:  # moved by plumbing, with a reflog entry of its own
        w.git("update-ref", "-m", "by hand", "refs/heads/try/1", "HEAD~1")
    repo.git("worktree", "remove", "--force", str(wt))
    tip = repo.git("rev-parse", "try/1").strip()
    r = repo.run("attempts", "--prune", "--yes")
    assert r.returncode == 0, r.err
    assert repo.git("rev-parse", "try/1").strip() == tip
    assert "keeping try/1" in r.err
    assert branches(repo, "try") == ["try/1"]  # try/2 was the tool's own: gone


def test_prune_keeps_an_attempt_moved_without_a_reflog_entry(base: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "A"))
    assert base.run("--branch", "try/1", f).returncode == 0
    # a commit of someone else's, written straight into the ref (no reflog entry)
    tree = base.git("rev-parse", "try/1^{tree}").strip()
    other = base.git("commit-tree", "-p", "try/1", "-m", "x\n\nAI-Response: 0123456789abcdef",
                     tree).strip()
    (base.root / ".git" / "refs" / "heads" / "try" / "1").write_text(other + "\n")
    r = base.run("attempts", "--prune", "--yes")
    assert r.returncode == 0
    assert base.git("rev-parse", "try/1").strip() == other
    assert "keeping try/1" in r.err and "without a reflog entry" in r.err


def test_prune_with_reflogs_off_still_knows_its_own_branches(base: GitRepo, tmp_path):
    """`--branch` keeps a reflog for the branches it creates, as `git branch
    --create-reflog` does, whatever core.logAllRefUpdates says."""
    base.git("config", "core.logAllRefUpdates", "false")
    f1 = write(tmp_path, "r1.md", patch("a.txt", "alpha", "A"))
    f2 = write(tmp_path, "r2.md", patch("a.txt", "gamma", "G"))
    assert base.run("--branch", "try/1", f1).returncode == 0
    assert base.run("--branch", "try/1", f2).returncode == 0
    log = base.git("reflog", "show", "--format=%gs", "try/1").splitlines()
    assert len(log) == 2 and "created branch from " + base.head() in log[1]
    r = base.run("attempts", "--prune", "--yes")
    assert r.returncode == 0, r.err
    assert branches(base, "try") == []


def test_pick_delete_keeps_a_branch_with_someone_elses_commits(clean: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "ALPHA"))
    assert clean.run("--branch", "try/1", f).returncode == 0
    wt = tmp_path / "wt"
    clean.git("worktree", "add", "-q", str(wt), "try/1")
    w = GitRepo(wt, clean.env)
    w.write("mine.txt", "mine\n")
    w.git("add", "mine.txt")
    w.git("commit", "-q", "-m", "mine")
    f2 = write(tmp_path, "r2.md", patch("a.txt", "gamma", "G"))
    assert w.run(f2).returncode == 0
    clean.git("worktree", "remove", "--force", str(wt))
    tip = clean.git("rev-parse", "try/1").strip()
    r = clean.run("pick", "-d", "try/1")
    assert r.returncode == 0, r.err
    assert clean.git("rev-parse", "try/1").strip() == tip
    assert "kept try/1" in r.err


# ------------------------------------------------ pick's refusals speak of pick, not of a response


def _refused_by_pick(r, snapshot_before, repo: GitRepo, why: str) -> None:
    assert r.returncode == 1, r.err
    first, *rest = r.err.splitlines()
    assert first == "error: pick refused; nothing was changed."
    assert why in "\n".join(rest)
    assert "response" not in r.err  # pick applies no response: nothing here is one
    assert repo.snapshot() == snapshot_before


def test_pick_refusals_say_pick_was_refused(clean: GitRepo, tmp_path):
    clean.git("branch", "plain")
    before = clean.snapshot()
    _refused_by_pick(clean.run("pick", "plain"), before, clean,
                     "plain is not an attempt branch")
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "ALPHA"))
    assert clean.run("--branch", "try/1", f).returncode == 0
    clean.write("a.txt", "alpha\nbeta\ngamma\nmine\n")  # dirty
    before = clean.snapshot()
    _refused_by_pick(clean.run("pick", "try/1"), before, clean, "a.txt has unstaged changes")
    clean.git("checkout", "-q", "a.txt")
    clean.write("a.txt", "omega\nbeta\ngamma\n")  # conflict
    clean.git("commit", "-q", "-am", "conflicting")
    before = clean.snapshot()
    _refused_by_pick(clean.run("pick", "try/1"), before, clean, "conflicts")


def test_pick_refused_by_a_hook_names_the_hook(clean: GitRepo, tmp_path):
    f = write(tmp_path, "r.md", patch("a.txt", "alpha", "ALPHA"))
    assert clean.run("--branch", "try/1", f).returncode == 0
    clean.write("src/b.py", "B = 2\n")
    clean.git("commit", "-q", "-am", "meanwhile")  # not a fast-forward: the hooks run
    hook = clean.root / ".git" / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho 'lint says no' >&2\nexit 3\n")
    hook.chmod(0o755)
    before = clean.snapshot()
    r = clean.run("pick", "try/1")
    _refused_by_pick(r, before, clean, "pre-commit")
    assert "lint says no" in r.err


def _row(lines: list[str], label: str) -> str:
    """A summary row with the continuation lines of its wrapped error, joined."""
    start = next(i for i, l in enumerate(lines) if label in l)
    row = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("    "):
            break
        row.append(line)
    return " ".join(" ".join(row).split())


@pytest.mark.parametrize("columns", [200, 60])
def test_summary_shows_a_long_first_error_whole_wrapped(base: GitRepo, tmp_path, columns):
    missing = "a line the file does not hold, long enough to pass any table column " * 3
    files = [write(tmp_path, "ok.md", patch("a.txt", "alpha", "A")),
             write(tmp_path, "long.md", patch("a.txt", missing.strip(), "x"))]
    r = base.run("--branch", "wrap/{n}", *files, env={**base.env, "COLUMNS": str(columns)})
    assert r.returncode == 1
    lines = r.out.splitlines()
    start = next(i for i, l in enumerate(lines) if "long.md" in l)
    assert lines[start + 1].startswith("    ")  # wrapped onto continuation lines
    assert all(len(l) <= columns for l in lines[start + 1:-1])
    text = _row(lines, "long.md")
    assert "could not find" in text and "…" not in text
    # the whole first line of the error, as the refusal of that response alone says it
    alone = base.run("--check", files[1])
    first = next(l for l in alone.err.splitlines() if "could not find" in l).removeprefix("error: ")
    assert " ".join(first.split()) in text
