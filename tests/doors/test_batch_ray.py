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
from git_aiapply.doors.batch import ray_executor as _ray_executor
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


def _jobs(folder: Path, *more: dict) -> Path:
    lines = [json.dumps({"id": "a1", "repo": "r1", "base": "HEAD~1", "response": LOUDER_BETA}),
             json.dumps({"id": "a2", "repo": "r1", "response": REFUSED}),
             '{"id": "x", "repo": ',  # line 3: not JSON
             json.dumps({"id": "a4", "repo": "r1", "response": GAMMA}),
             json.dumps({"id": "b1", "repo": "r2", "base": "v9", "response": LOUDER_BETA}),
             json.dumps({"id": "b2", "repo": "r2", "response": LOUDER_BETA}),
             json.dumps({"id": "b3", "repo": "r2", "base": "HEAD~1", "response": GAMMA,
                         "branch": "try/{id}"}), *map(json.dumps, more)]
    path = folder / "jobs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _results(path: Path, folder: Path, *also: tuple[str, str]) -> dict:
    """The result lines by id, the folder's path written as FOLDER, and each (old, new)
    of ``also`` replaced first."""
    text = path.read_text()
    for old, new in also:
        text = text.replace(old, new)
    text = text.replace(str(folder), "FOLDER")
    return {d["id"]: d for d in map(json.loads, text.splitlines())}


def _tips(r: GitRepo) -> str:
    return r.git("for-each-ref", "--format=%(refname) %(objectname)")


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory):
    """One run of the real command with --ray (a Ray driver and its workers start in
    seconds: one run for the module's checks) on two repositories (a copy of those
    --jobs 2 runs on) and a URL one, --push to a bare repository; and the --jobs 2 run."""
    env, address = cluster
    top = tmp_path_factory.mktemp("ray-runs")
    local, on_ray = top / "local", top / "ray"
    repos = _repos(local, env)
    shutil.copytree(local, on_ray, symlinks=True)
    origin, target = top / "origin.git", top / "target.git"
    for bare in (origin, target):
        repos[0].git("clone", "-q", "--bare", str(repos[0].root), str(bare))
    # the target already has a branch of the name job "clash" commits on, elsewhere
    other = repos[0].git("commit-tree", "-m", "other", "HEAD^{tree}").strip()
    repos[0].git("push", "-q", str(target), f"{other}:refs/heads/ai/batch/clash")
    url = origin.as_uri()
    r = run_command(["batch", "--jobs", "2", "-o", "out.jsonl", str(_jobs(local))], cwd=local,
                    env=env)
    assert r.returncode == 0, r.stderr
    jobs = _jobs(on_ray, {"id": "u1", "repo": url, "base": "HEAD~1", "response": LOUDER_BETA},
                 {"id": "u2", "repo": url, "response": GAMMA},
                 {"id": "u3", "repo": url, "response": REFUSED},
                 {"id": "clash", "repo": url, "response": LOUDER_BETA})
    # a driver connecting to a cluster with token authentication says so (Ray's rule); the
    # token is in the module's HOME, where the cluster's start saved it
    r = run_command(["batch", "--ray", address, "--push", target.as_uri(), "-o", "out.jsonl",
                     str(jobs)], cwd=on_ray,
                    env={**env, "RAY_AUTH_MODE": os.environ["RAY_AUTH_MODE"]})
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr.decode()
    return env, top, repos, _results(on_ray / "out.jsonl", top)


@pytest.mark.real_command
def test_ray_makes_the_commits_and_lines_the_local_workers_make(runs):
    env, top, repos, got = runs
    # the copies differ in their folder's name only
    local = _results(top / "local" / "out.jsonl", top, (str(top / "local"), str(top / "ray")))
    mine = {i: {k: v for k, v in d.items() if k != "pushed_to"} for i, d in got.items()
            if i in local}
    assert mine == local  # no timings in a result line: equal, field for field
    assert {i: d["status"] for i, d in mine.items()} == {
        "a1": "applied", "a2": "refused", 3: "error", "a4": "applied", "b1": "error",
        "b2": "applied", "b3": "applied"}
    made = []
    for r_local in repos:
        r_ray = GitRepo(top / "ray" / r_local.root.name, env)
        assert _tips(r_ray) == _tips(r_local)  # the same commit ids, branch for branch
        assert r_ray.git("status", "--porcelain") == ""
        made += [line.split()[0] for line in _tips(r_ray).splitlines()]
    assert sorted(made) == ["refs/heads/ai/batch/a1", "refs/heads/ai/batch/a4",
                            "refs/heads/ai/batch/b2", "refs/heads/main", "refs/heads/main",
                            "refs/heads/try/b3"]


@pytest.mark.real_command
def test_a_url_repository_is_cloned_on_the_node_and_each_branch_pushed(runs):
    env, top, repos, got = runs
    src, origin, target = repos[0], top / "origin.git", top / "target.git"
    to = "file://FOLDER/target.git"
    assert {i: (d["status"], d["pushed_to"]) for i, d in got.items() if i in (
        "u1", "u2", "u3", "clash", "a1", "a2")} == {
        "u1": ("applied", to), "u2": ("applied", to), "u3": ("refused", None),
        "clash": ("error", None), "a1": ("applied", to), "a2": ("refused", None)}
    assert "cannot push ai/batch/clash" in got["clash"]["error_text"] and got["clash"]["commit"]
    pushed = dict(line.split("\t")[::-1] for line in
                  src.git("ls-remote", str(target), "refs/heads/ai/*").splitlines())
    for job_id in ("u1", "u2", "a1"):  # a URL's job, and a shared folder's
        assert pushed[f"refs/heads/ai/batch/{job_id}"] == got[job_id]["commit"]
    assert src.git("--git-dir", str(target), "log", "-1", "--format=%P",
                   "ai/batch/u1").strip() == src.git("rev-parse", "HEAD~1").strip()
    # one clone on the node, and the URL's own repository untouched
    from git_aiapply.git.clone_cache import cache_path

    clones = [p.name for p in Path(env["GIT_AI_APPLY_BATCH_CACHE"]).iterdir()
              if p.suffix == ".git"]
    assert clones == [Path(cache_path(origin.as_uri(), "/")).name]
    assert "ai/" not in src.git("--git-dir", str(origin), "for-each-ref")


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


def test_the_library_takes_ray_as_the_command_does(cluster, tmp_path):
    # git_aiapply.batch(ray=ADDRESS): the same jobs give the same statuses, commits and
    # diffs as the library's local run (issue 34 item 4: the same options)
    import git_aiapply

    env, address = cluster
    here, there = tmp_path / "here", tmp_path / "there"
    _repos(here, env)
    shutil.copytree(here, there, symlinks=True)
    mine = {r.id: (r.status, r.commit, r.diff) for r in git_aiapply.batch(_jobs(here))}
    on_ray = {r.id: (r.status, r.commit, r.diff)
              for r in git_aiapply.batch(_jobs(there), ray=address)}
    assert on_ray == mine and mine["a1"][0] == "applied" and mine["a2"][0] == "refused"
    with pytest.raises(git_aiapply.UsageError):
        list(git_aiapply.batch(_jobs(there), push="origin"))
