"""doors/batch.py in process: the library's ``git_aiapply.batch`` (typed results, a bad
job a result), the work shares of the local workers, and the stop flag that lets the job under way finish."""
from __future__ import annotations

import pytest

import git_aiapply
from conftest import LOUDER_BETA, GitRepo
from git_aiapply.doors import batch as batch_mod, batch_worker


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
    with pytest.raises(git_aiapply.InvalidOptions, match="branch is not an option of a batch"):
        list(git_aiapply.batch(jobs, repo=str(base.root), options={"branch": "x"}))
    # a full ref name is the branch's, as --branch takes it: the line, the diff, --resume agree
    full, = git_aiapply.batch([jobs[0]], repo=str(base.root), branch="refs/heads/zz/{id}")
    assert (full.status, full.branch) == ("applied", "zz/1") and full.diff == one.diff
    assert base.git("rev-parse", "zz/1").strip() == full.commit


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


def _fake_apply(job, defaults, sessions):
    import os

    if job.get("die"):
        os._exit(9)  # as a worker killed out of memory
    return {"id": job["id"], "status": "applied", "exit_code": 0, "pid": os.getpid(),
            "pad": job.get("pad")}


def test_workers_stream_every_result_and_a_dead_worker_stops_the_batch(monkeypatch):
    # the workers are forked: they run this process's (patched) apply_job
    monkeypatch.setattr(batch_worker, "apply_job", _fake_apply)
    groups = [[{"id": f"{r}{n}", "repo": r} for n in range(5)] for r in "abc"]
    got = list(batch_mod.run_groups(groups, workers=2))
    assert sorted(r["id"] for r in got) == sorted(j["id"] for g in groups for j in g)
    assert len({r["pid"] for r in got}) == 2
    groups[1][2]["die"] = True
    with pytest.raises(git_aiapply.FatalError, match="a batch worker process stopped"):
        list(batch_mod.run_groups(groups, workers=2))


def test_a_reader_that_stops_reading_leaves_no_worker_behind(monkeypatch):
    """However the caller stops (Ctrl-C, an output error), the workers start no other job
    and the pool ends: its results queue is read until every worker is done."""
    import multiprocessing

    monkeypatch.setattr(batch_worker, "apply_job", _fake_apply)
    big = "x" * 70_000  # more than a pipe holds: a worker whose queue nobody reads would hang
    groups = [[{"id": f"{r}{n}", "repo": r, "pad": big} for n in range(40)] for r in "ab"]
    stop = batch_mod.StopFlag()
    got = batch_mod.run_groups(groups, workers=2, stop=stop)
    next(got)
    stop.set()
    got.close()
    assert multiprocessing.active_children() == []
