"""`git ai-apply batch --ray` on a local Ray cluster (one for the module: starting one
costs seconds): the same commits, commit id for commit id, and the same result lines as
--jobs 2; a repository named by URL cloned once on the node and each branch pushed with
--push (a rejected push is that job's error); a task that fails gives its jobs error
results; no Ray: fatal, naming the extra.

Ray is in the test extra: without it this module fails (its import), it never skips.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
import ray

from conftest import LOUDER_BETA, GitRepo, init_repo, make_env, run_command
from git_aiapply.doors import batch_ray
from git_aiapply.doors.batch_run import _ray_executor, run_batch
from git_aiapply.errors import FatalError

REFUSED = "Fix.\n\n```diff\n--- a/src/b.txt\n+++ b/src/b.txt\n@@\n-no such line\n+x\n```\n"
GAMMA = LOUDER_BETA.replace("BETA", "Beta")
# one environment for the module (fixed dates: commit ids to compare): the tasks' workers
# start once for it
DATES = {"GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000100 +0000"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A local cluster started as the command starts one (batch_ray.connect), in this
    process's environment set to the module's; yields (the environment, its address)."""
    home = tmp_path_factory.mktemp("ray-home")
    env = {**make_env(home), **DATES,
           "GIT_AI_APPLY_BATCH_CACHE": str(home / "cache")}
    with pytest.MonkeyPatch.context() as mp:
        for k in [k for k in os.environ if k.startswith("GIT_")]:
            mp.delenv(k)
        for k, v in env.items():
            mp.setenv(k, v)
        mp.delenv("RAY_AUTH_MODE", raising=False)  # ray.init sets it (to "token"): undone
        assert batch_ray.connect(None, 2) is True
        try:
            assert batch_ray.connect(None, 2) is False  # connected already: kept
            yield env, ray.get_runtime_context().gcs_address
        finally:
            ray.shutdown()


def _repos(folder: Path, env) -> list[GitRepo]:
    repos = []
    for name in ("r1", "r2"):
        r = init_repo(folder / name, env)
        r.write("src/b.txt", "alpha\nbeta\n")
        r.commit_all("base")
        r.write("src/b.txt", "alpha\nbeta\ngamma\n")
        r.commit_all("later")
        repos.append(r)
    return repos


def _jobs(folder: Path) -> Path:
    lines = [json.dumps({"id": "a1", "repo": "r1", "base": "HEAD~1", "response": LOUDER_BETA}),
             json.dumps({"id": "a2", "repo": "r1", "response": REFUSED}),
             '{"id": "x", "repo": ',  # line 3: not JSON
             json.dumps({"id": "a4", "repo": "r1", "response": GAMMA}),
             json.dumps({"id": "b1", "repo": "r2", "base": "v9", "response": LOUDER_BETA}),
             json.dumps({"id": "b2", "repo": "r2", "response": LOUDER_BETA}),
             json.dumps({"id": "b3", "repo": "r2", "base": "HEAD~1", "response": GAMMA,
                         "branch": "try/{id}"})]
    path = folder / "jobs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _results(path: Path, folder: Path) -> dict:
    """The result lines by id, the folder's path written as FOLDER (the copies differ
    only there)."""
    text = path.read_text().replace(str(folder), "FOLDER")
    return {d["id"]: d for d in map(json.loads, text.splitlines())}


def _tips(r: GitRepo) -> str:
    return r.git("for-each-ref", "--format=%(refname) %(objectname)")


def test_ray_makes_the_commits_and_lines_the_local_workers_make(cluster, tmp_path):
    env, _address = cluster
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    repos = _repos(local, env)
    shutil.copytree(local, on_ray, symlinks=True)
    jobs = _jobs(local), _jobs(on_ray)
    r = run_command(["batch", "--jobs", "2", "-o", "out.jsonl", str(jobs[0])], cwd=local, env=env)
    assert r.returncode == 0, r.stderr
    assert run_batch(str(jobs[1]), out=str(on_ray / "out.jsonl"), ray=True) == 0
    got = _results(on_ray / "out.jsonl", on_ray)
    assert got == _results(local / "out.jsonl", local)  # no timings in a result line
    assert {i: d["status"] for i, d in got.items()} == {
        "a1": "applied", "a2": "refused", 3: "error", "a4": "applied", "b1": "error",
        "b2": "applied", "b3": "applied"}
    made = []
    for r_local in repos:
        r_ray = GitRepo(on_ray / r_local.root.name, env)
        assert _tips(r_ray) == _tips(r_local)  # the same commit ids, branch for branch
        assert r_ray.git("status", "--porcelain") == ""
        made += [line.split()[0] for line in _tips(r_ray).splitlines()]
    assert sorted(made) == ["refs/heads/ai/batch/a1", "refs/heads/ai/batch/a4",
                            "refs/heads/ai/batch/b2", "refs/heads/main", "refs/heads/main",
                            "refs/heads/try/b3"]


@pytest.mark.real_command
def test_a_url_repository_is_cloned_on_the_node_and_each_branch_pushed(cluster, tmp_path):
    env, address = cluster
    (src,) = _repos(tmp_path, env)[:1]
    origin, target = tmp_path / "origin.git", tmp_path / "target.git"
    for bare in (origin, target):
        src.git("clone", "-q", "--bare", str(src.root), str(bare))
    # the target already has a branch of the name job "clash" commits on, elsewhere
    other = src.git("commit-tree", "-m", "other", "HEAD^{tree}").strip()
    src.git("push", "-q", str(target), f"{other}:refs/heads/ai/batch/clash")
    url = origin.as_uri()
    jobs = tmp_path / "url-jobs.jsonl"
    jobs.write_text("".join(json.dumps(j) + "\n" for j in (
        {"id": "u1", "repo": url, "base": "HEAD~1", "response": LOUDER_BETA},
        {"id": "u2", "repo": url, "response": GAMMA},
        {"id": "u3", "repo": url, "response": REFUSED},
        {"id": "clash", "repo": url, "response": LOUDER_BETA})))
    # a driver connecting to a cluster with token authentication says so (Ray's rule); the
    # token is in the module's HOME, where the cluster's start saved it
    r = run_command(["batch", "--ray", address, "--push", target.as_uri(), "-o", "out.jsonl",
                     str(jobs)], cwd=tmp_path, env={**env, "RAY_AUTH_MODE": os.environ["RAY_AUTH_MODE"]})
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr.decode()
    got = _results(tmp_path / "out.jsonl", tmp_path)
    to = "file://FOLDER/target.git"
    assert {i: (d["status"], d["pushed_to"]) for i, d in got.items()} == {
        "u1": ("applied", to), "u2": ("applied", to),
        "u3": ("refused", None), "clash": ("error", None)}
    assert "cannot push ai/batch/clash" in got["clash"]["error_text"] and got["clash"]["commit"]
    pushed = dict(line.split("\t")[::-1] for line in
                  src.git("ls-remote", str(target), "refs/heads/ai/*").splitlines())
    assert pushed["refs/heads/ai/batch/u1"] == got["u1"]["commit"]
    assert pushed["refs/heads/ai/batch/u2"] == got["u2"]["commit"]
    assert src.git("--git-dir", str(target), "log", "-1", "--format=%P",
                   "ai/batch/u1").strip() == src.git("rev-parse", "HEAD~1").strip()
    # one clone on the node, and the URL's own repository untouched
    assert [p.name for p in (Path(env["GIT_AI_APPLY_BATCH_CACHE"])).iterdir()
            if p.suffix == ".git"] == [Path(batch_ray_cache(url)).name]
    assert "ai/" not in src.git("--git-dir", str(origin), "for-each-ref")


def batch_ray_cache(url: str) -> str:
    from git_aiapply.git.clone_cache import cache_path

    return cache_path(url, "/")


def test_a_task_that_fails_gives_each_of_its_jobs_an_error_result(cluster):
    chunk = [{"id": "k1", "repo": "r", "response": "x", "_line": 1, "_dir": "/"},
             {"_line": 2, "_error": "line 2 is not JSON"}]

    @ray.remote(max_retries=0)
    def raises():
        raise RuntimeError("boom")

    got = batch_ray.chunk_results(raises.remote(), chunk, {})
    assert [(d["id"], d["status"], d["exit_code"], d["branch"]) for d in got] == [
        ("k1", "error", 128, "ai/batch/k1"), (2, "error", 128, None)]
    assert "the Ray task running this job failed" in got[0]["error_text"]
    assert "(RuntimeError: boom)" in got[0]["error_text"] and "--resume" in got[0]["error_text"]

    @ray.remote(max_retries=0)
    def dies():
        os._exit(1)

    got = batch_ray.chunk_results(dies.remote(), chunk[:1], {})
    assert got[0]["status"] == "error" and "WorkerCrashedError" in got[0]["error_text"]


def test_chunks_keep_one_repository_each_and_stay_small():
    groups = [[{"repo": "a", "id": i} for i in range(40)], [{"repo": "b", "id": 40}]]
    chunks = batch_ray.chunks_of(groups, 2)
    assert [len(c) for c in chunks] == [11, 11, 11, 7, 1]
    assert all(len({j["repo"] for j in c}) == 1 for c in chunks)
    assert max(map(len, batch_ray.chunks_of(groups * 10, 2))) == batch_ray.MAX_CHUNK


def test_the_tasks_get_the_drivers_git_environment_not_its_repository(monkeypatch):
    monkeypatch.setenv("GIT_DIR", "/somewhere/.git")
    monkeypatch.setenv("GIT_AUTHOR_DATE", "1700000000 +0000")
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("HOME", "/home/driver")
    monkeypatch.setenv("PATH", "/bin")
    env = batch_ray.driver_env()
    assert "GIT_DIR" not in env and "PATH" not in env
    assert env["GIT_AUTHOR_DATE"] == "1700000000 +0000" and env["GIT_CONFIG_COUNT"] == "1"
    assert env["HOME"] == "/home/driver"


def test_without_ray_the_command_is_fatal_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(FatalError, match=r"pip install 'git-ai-apply\[ray\]'") as e:
        _ray_executor(True, None, 2)
    assert e.value.exit_code == 128
