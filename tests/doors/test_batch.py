"""doors/batch.py in process: the library's ``git_aiapply.batch`` (typed results, a bad
job a result), apply_jobs keeping one session per repository, the work shares of the
local workers, and the stop flag that lets the job under way finish."""
from __future__ import annotations

import pickle

import pytest

import git_aiapply
from conftest import LOUDER_BETA, GitRepo
from git_aiapply.doors import batch as batch_mod


@pytest.fixture
def base(repo: GitRepo, env) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def test_library_batch_yields_typed_results(base: GitRepo):
    head = base.head()
    jobs = [{"id": 1, "response": LOUDER_BETA}, {"id": 2, "response": "no change here"},
            {"id": 3, "response": LOUDER_BETA, "base": "nope"}]
    got = list(git_aiapply.batch(jobs, repo=str(base.root), branch="t/{id}"))
    assert [(r.id, r.status, r.exit_code, r.branch) for r in got] == [
        (1, "applied", 0, "t/1"), (2, "refused", 1, "t/2"), (3, "error", 2, "t/3")]
    one, two, three = got
    assert one.result is not None and one.result.files[0].path == "src/b.txt"
    assert one.diff == base.git("diff", head, "t/1") and one.ok and not two.ok
    assert three.result is None and "unknown base 'nope'" in (three.error_text or "")
    assert one.to_json()["id"] == 1 and one.to_json()["diff"] == one.diff
    assert base.head() == head and base.git("status", "--porcelain") == ""
    with pytest.raises(git_aiapply.InvalidOptions):
        list(git_aiapply.batch(jobs, repo=str(base.root), options={"chek": True}))


def test_apply_jobs_is_picklable_and_keeps_one_session_per_repository(base: GitRepo,
                                                                      monkeypatch):
    assert pickle.loads(pickle.dumps(batch_mod.apply_jobs)) is batch_mod.apply_jobs
    opened = []
    real = git_aiapply.Session

    def counting(path, *a, **k):
        opened.append(path)
        return real(path, *a, **k)

    monkeypatch.setattr("git_aiapply.doors.api.Session", counting)
    jobs = [{"id": n, "repo": str(base.root), "response": LOUDER_BETA} for n in (1, 2, 3)]
    statuses = [r["status"] for r in batch_mod.apply_jobs(jobs, defaults={})]
    assert statuses == ["applied"] * 3 and len(opened) == 1


def test_shares_keep_a_repository_in_each_and_cut_when_few():
    groups = [[{"id": i, "repo": "a"} for i in range(10)], [{"id": 10, "repo": "b"}]]
    shares = batch_mod._shares(groups, 2)
    assert sum(map(len, shares)) == 11 and all(len({j["repo"] for j in s}) == 1 for s in shares)
    assert len(shares) > 2 and [len(s) for s in shares] == sorted(map(len, shares), reverse=True)
    many = [[{"id": i}] for i in range(8)]
    assert batch_mod._shares(many, 2) == many


def test_stop_lets_the_job_under_way_finish_and_starts_no_other(base: GitRepo):
    jobs = [{"id": n, "repo": str(base.root), "response": LOUDER_BETA} for n in (1, 2, 3)]
    done = []
    for result in batch_mod.run_groups([jobs], stop=lambda: len(done) >= 1):
        done.append(result["id"])
    assert done == [1]
    assert base.git("branch", "--list", "ai/*").split() == ["ai/batch/1"]


def test_a_worker_keeps_at_most_max_warm_repositories_open(base: GitRepo, monkeypatch):
    monkeypatch.setattr(batch_mod, "MAX_WARM", 1)
    sessions: dict = {}
    first = batch_mod._session(sessions, str(base.root))
    assert batch_mod._session(sessions, str(base.root)) is first
    with pytest.raises(batch_mod.JobError):
        batch_mod._session(sessions, str(base.root / "nowhere"))
    assert list(sessions.values())[0].exit_code == 128 and len(sessions) == 1


def _fake_apply(job, defaults, sessions):
    import os

    if job.get("die"):
        os._exit(9)  # as a worker killed out of memory
    return {"id": job["id"], "status": "applied", "exit_code": 0, "pid": os.getpid()}


def test_workers_stream_every_result_and_a_dead_worker_stops_the_batch(monkeypatch):
    # the workers are forked: they run this process's (patched) apply_job
    monkeypatch.setattr(batch_mod, "apply_job", _fake_apply)
    groups = [[{"id": f"{r}{n}", "repo": r} for n in range(5)] for r in "abc"]
    got = list(batch_mod.run_groups(groups, workers=2))
    assert sorted(r["id"] for r in got) == sorted(j["id"] for g in groups for j in g)
    assert len({r["pid"] for r in got}) == 2
    groups[1][2]["die"] = True
    with pytest.raises(git_aiapply.FatalError, match="a batch worker process stopped"):
        list(batch_mod.run_groups(groups, workers=2))


def test_a_url_repo_is_applied_in_this_machines_clone_of_it(base: GitRepo, tmp_path,
                                                           monkeypatch):
    """A job whose repo is a URL runs in the clone git/clone_cache.py keeps (cloned once):
    its branch is there, the URL's repository untouched."""
    monkeypatch.setenv("GIT_AI_APPLY_BATCH_CACHE", str(tmp_path / "cache"))
    origin = tmp_path / "origin.git"
    base.git("clone", "-q", "--bare", str(base.root), str(origin))
    jobs = [{"id": n, "repo": origin.as_uri(), "response": LOUDER_BETA} for n in (1, 2)]
    got = list(batch_mod.apply_jobs(jobs, defaults={}))
    assert [r["status"] for r in got] == ["applied", "applied"]
    (clone,) = (tmp_path / "cache").glob("*.git")
    assert base.git("--git-dir", str(clone), "rev-parse", "ai/batch/2").strip() == got[1]["commit"]
    assert "+BETA" in got[0]["diff"] and "ai/" not in base.git("--git-dir", str(origin),
                                                               "for-each-ref")
