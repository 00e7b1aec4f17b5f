"""`git ai-apply batch` end to end (the real command, two repositories, seven jobs): one
result line per job, a branch for each applied one whose `git diff BASE BRANCH` is the
line's diff byte for byte, bad jobs as results, nothing else of either repository touched;
--jobs 2 gives what --jobs 1 gives; --resume keeps what is done; the usage errors and the
fatal ones."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import AI_APPLY, LOUDER_BETA, GitRepo, init_repo, run_command

REFUSED = "Fix.\n\n```diff\n--- a/src/b.txt\n+++ b/src/b.txt\n@@\n-no such line\n+x\n```\n"
CHAT = {"model": "m", "choices": [{"finish_reason": "stop", "message": {
    "role": "assistant", "content": LOUDER_BETA.replace("BETA", "Beta")}}]}
# id -> (status, exit code): what each job of _jobs() gives
EXPECTED = {"a1": ("applied", 0), "a2": ("refused", 1), 3: ("error", 2), "gone": ("error", 128),
            "b1": ("error", 2), "b2": ("applied", 0), "b3": ("applied", 0)}


@pytest.fixture
def two(tmp_path: Path, git_env) -> tuple[GitRepo, GitRepo, Path]:
    repos = []
    for name in ("r1", "r2"):
        r = init_repo(tmp_path / name, git_env)
        r.write("src/b.txt", "alpha\nbeta\n")
        r.commit_all("base")
        r.write("src/b.txt", "alpha\nbeta\ngamma\n")  # HEAD moves on: jobs name the base
        r.commit_all("later")
        r.settle()
        repos.append(r)
    (tmp_path / "answers").mkdir()
    (tmp_path / "answers" / "b2.md").write_text(LOUDER_BETA)
    return repos[0], repos[1], tmp_path


def _jobs(folder: Path) -> Path:
    lines = [json.dumps({"id": "a1", "repo": "r1", "base": "HEAD~1", "response": LOUDER_BETA}),
             json.dumps({"id": "a2", "repo": "r1", "response": REFUSED}),
             '{"id": "x", "repo": ',  # line 3: not JSON
             json.dumps({"id": "gone", "repo": "nowhere", "response": LOUDER_BETA}),
             json.dumps({"id": "b1", "repo": "r2", "base": "v9", "response": LOUDER_BETA}),
             json.dumps({"id": "b2", "repo": "r2", "response_file": "answers/b2.md"}),
             json.dumps({"id": "b3", "repo": "r2", "base": "HEAD~1", "response": CHAT,
                         "branch": "try/{id}", "options": {"no_verify": True}})]
    path = folder / "jobs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _batch(folder: Path, env, *args: str):
    r = run_command(["batch", *args], cwd=folder, env=env)
    r.out, r.err = r.stdout.decode(), r.stderr.decode()
    assert "Traceback" not in r.err, r.err
    return r


def _results(text: str) -> dict:
    return {d["id"]: d for d in map(json.loads, text.splitlines())}


def _unmoved(r: GitRepo, head: str) -> None:
    assert r.head() == head and r.git("status", "--porcelain") == ""
    assert r.git("symbolic-ref", "HEAD").strip() == "refs/heads/main"


def test_every_job_gets_its_line_and_only_its_branch(two):
    r1, r2, folder = two
    heads = r1.head(), r2.head()
    r = _batch(folder, r1.env, str(_jobs(folder)), "--jobs", "1")
    assert r.returncode == 0, r.err
    got = _results(r.out)
    assert {i: (d["status"], d["exit_code"]) for i, d in got.items()} == EXPECTED
    assert list(got) == list(EXPECTED)  # one worker: the file's order
    # the diff is what git prints for base..branch, byte for byte
    for job_id, repo, base, branch in (("a1", r1, "HEAD~1", "ai/batch/a1"),
                                       ("b2", r2, "HEAD", "ai/batch/b2"),
                                       ("b3", r2, "HEAD~1", "try/b3")):
        assert got[job_id]["branch"] == branch
        assert got[job_id]["diff"] == repo.git("diff", base, branch) != ""
        assert repo.git("rev-parse", branch).strip() == got[job_id]["commit"]
    assert r1.git("show", "ai/batch/a1:src/b.txt") == "alpha\nBETA\n"
    assert r2.git("show", "try/b3:src/b.txt") == "alpha\nBeta\n"
    assert r1.git("branch", "--list", "ai/*") == "  ai/batch/a1\n"  # a refusal makes none
    assert "not JSON" in got[3]["error_text"] and got[3]["diff"] == ""
    assert "nowhere" in got["gone"]["error_text"] and "unknown base 'v9'" in got["b1"]["error_text"]
    assert got["a2"]["error_text"] and got["a2"]["diff"] == ""
    for repo, head in zip((r1, r2), heads):
        _unmoved(repo, head)
    assert "applied" in r.err and "refused" in r.err  # the summary table, on stderr

    # --jobs 2: the same results (the same branches, the same trees)
    for repo in (r1, r2):
        for ref in repo.git("for-each-ref", "--format=%(refname)", "refs/heads/ai",
                            "refs/heads/try").split():
            repo.git("update-ref", "-d", ref)
    r = _batch(folder, r1.env, str(_jobs(folder)), "--jobs", "2")
    assert r.returncode == 0, r.err
    again = _results(r.out)

    def same(d):
        return {k: v for k, v in d.items() if k not in ("commit", "message")}

    assert {i: same(d) for i, d in again.items()} == {i: same(d) for i, d in got.items()}
    assert r2.git("rev-parse", "try/b3^{tree}") == r2.git("rev-parse", f"{got['b3']['commit']}^{{tree}}")


def test_resume_keeps_what_is_done_and_runs_the_rest(two):
    r1, r2, folder = two
    jobs = str(_jobs(folder))
    out = folder / "out.jsonl"
    assert _batch(folder, r1.env, jobs, "--jobs", "1", "-o", str(out)).returncode == 0
    first = _results(out.read_text())
    # a branch moved by someone: its job runs again (already applied there: kept as is)
    r2.git("branch", "-f", "ai/batch/b2", "HEAD")
    with out.open("ab") as f:
        f.write(b'{"id": "a1", "stat')  # a line cut short by a kill
    r = _batch(folder, r1.env, jobs, "--jobs", "1", "-o", str(out), "--resume")
    assert r.returncode == 0, r.err
    lines = out.read_text().splitlines()
    assert len(lines) == 7 + 5  # a1 and b3 kept; the rest ran again, one line each
    rerun = [json.loads(x) for x in lines[7:]]
    assert [d["id"] for d in rerun] == ["a2", 3, "gone", "b1", "b2"]
    assert rerun[-1]["status"] == "applied" and rerun[-1]["diff"] == first["b2"]["diff"]
    assert r2.git("rev-parse", "ai/batch/b2").strip() == rerun[-1]["commit"]
    assert "kept (--resume)  2" in r.err


@pytest.mark.parametrize("args, code, words", [
    (["--resume"], 2, "--resume reads the results of an earlier run"),
    (["--push", "origin"], 2, "--push goes with --ray"),
    (["--jobs", "0"], 2, "--jobs takes a number of workers"),
    (["-o", "no/such/folder/out.jsonl"], 128, "fatal: cannot write no/such/folder/out.jsonl"),
])
def test_usage_and_fatal_errors(two, args, code, words):
    r1, _r2, folder = two
    r = _batch(folder, r1.env, str(_jobs(folder)), *args)
    assert r.returncode == code and words in r.err, r.err
    assert r.out == "" and r1.git("branch", "--list", "ai/*") == ""


def test_a_missing_jobs_file_is_fatal(two):
    r1, _r2, folder = two
    r = _batch(folder, r1.env, "nope.jsonl")
    assert r.returncode == 128 and r.err.startswith("fatal: cannot read nope.jsonl")


@pytest.mark.parametrize("args, address", [(["--ray"], None), (["--ray", "auto"], "auto"),
                                           (["--ray", "ray://head:10001"], "ray://head:10001")])
def test_a_bare_ray_is_a_local_cluster_and_an_address_is_kept(args, address, monkeypatch):
    """What --ray hands the Ray executor (doors/batch_ray.py): no address for a bare --ray
    (a local cluster, or RAY_ADDRESS), else the one given."""
    from click.testing import CliRunner

    from git_aiapply.cli.commands.batch import command
    from git_aiapply.doors import batch_ray, batch_run

    seen = {}
    monkeypatch.setattr(batch_ray, "run_on_ray", lambda groups, **kw: seen.update(kw) or iter(()))
    monkeypatch.setattr(batch_run, "_run", lambda jobs, o, t, w, executor, out:
                        executor([], {}, lambda: False) and 0)
    r = CliRunner().invoke(command, [*args, "--push", "origin", "-"], input="")
    assert r.exit_code == 0, r.output
    assert seen["address"] == address and seen["push"] == "origin"


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_starts_no_other_job_and_writes_those_under_way(tmp_path: Path, git_env, workers):
    """A real SIGINT to the process group of `git ai-apply batch` (a terminal's Ctrl-C;
    git passes it on to the command once more) in a batch of 200 jobs, on one worker and
    on two: it ends promptly (git dies of the SIGINT once the command has exited 130),
    every branch made has its line, and no job under way failed (the programs a job runs,
    its `git diff`, never see the SIGINT)."""
    import os
    import signal
    import subprocess
    import time

    r = init_repo(tmp_path / "r", git_env)
    for n in range(1, 6):
        r.write(f"m{n}.py", f"def f{n}():\n    return {n}\n")
    r.commit_all("base")
    r.settle()
    jobs = tmp_path / "jobs.jsonl"
    jobs.write_text("".join(json.dumps({"id": i, "repo": "r", "response": (
        f"m{i % 5 + 1}.py\n```python\n<<<<<<< SEARCH\n    return {i % 5 + 1}\n=======\n"
        f"    return {1000 + i}\n>>>>>>> REPLACE\n```\n")}) + "\n" for i in range(200)))
    out = tmp_path / "out.jsonl"
    env = {**r.env, "PATH": os.path.dirname(AI_APPLY[0]) + os.pathsep + r.env["PATH"]}
    p = subprocess.Popen(["git", "ai-apply", "batch", "-j", workers, "-o", str(out), str(jobs)],
                         cwd=tmp_path, env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and (not out.exists() or out.read_bytes().count(b"\n") < 5):
        time.sleep(0.02)
    os.killpg(p.pid, signal.SIGINT)
    try:
        err = p.communicate(timeout=20)[1].decode()
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        raise
    assert p.returncode == -signal.SIGINT and "Traceback" not in err, err
    assert "interrupted: " in err and "--resume continues" in err
    lines = out.read_bytes().splitlines()
    written = {json.loads(line)["branch"] for line in lines}
    made = set(r.git("for-each-ref", "--format=%(refname:short)", "refs/heads/ai").split())
    assert made == written and 5 <= len(made) < 200
    assert all(json.loads(line)["status"] == "applied" for line in lines)
