"""doors/batch_worker.py: what every executor runs, apply_jobs, keeping one warm session
per repository (at most MAX_WARM), picklable, a URL repository applied in this machine's
clone of it."""
from __future__ import annotations

import pickle

import pytest

import git_aiapply
from conftest import LOUDER_BETA, GitRepo
from git_aiapply.doors import batch_worker


@pytest.fixture
def base(repo: GitRepo, env) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    repo.settle()
    return repo


def test_apply_jobs_is_picklable_and_keeps_one_session_per_repository(base: GitRepo,
                                                                      monkeypatch):
    assert pickle.loads(pickle.dumps(batch_worker.apply_jobs)) is batch_worker.apply_jobs
    opened = []
    real = git_aiapply.Session

    def counting(path, *a, **k):
        opened.append(path)
        return real(path, *a, **k)

    monkeypatch.setattr("git_aiapply.doors.api.Session", counting)
    jobs = [{"id": n, "repo": str(base.root), "response": LOUDER_BETA} for n in (1, 2, 3)]
    statuses = [r["status"] for r in batch_worker.apply_jobs(jobs, defaults={})]
    assert statuses == ["applied"] * 3 and len(opened) == 1


def test_a_worker_keeps_at_most_max_warm_repositories_open(base: GitRepo, monkeypatch):
    monkeypatch.setattr(batch_worker, "MAX_WARM", 1)
    sessions: dict = {}
    first = batch_worker._session(sessions, str(base.root))
    assert batch_worker._session(sessions, str(base.root)) is first
    with pytest.raises(batch_worker.JobError):
        batch_worker._session(sessions, str(base.root / "nowhere"))
    assert list(sessions.values())[0].exit_code == 128 and len(sessions) == 1


def test_a_url_repo_is_applied_in_this_machines_clone_of_it(base: GitRepo, tmp_path,
                                                           monkeypatch):
    """A job whose repo is a URL runs in the clone git/clone_cache.py keeps (cloned once):
    its branch is there, the URL's repository untouched."""
    monkeypatch.setenv("GIT_AI_APPLY_BATCH_CACHE", str(tmp_path / "cache"))
    origin = tmp_path / "origin.git"
    base.git("clone", "-q", "--bare", str(base.root), str(origin))
    jobs = [{"id": n, "repo": origin.as_uri(), "response": LOUDER_BETA} for n in (1, 2)]
    got = list(batch_worker.apply_jobs(jobs, defaults={}))
    assert [r["status"] for r in got] == ["applied", "applied"]
    (clone,) = (tmp_path / "cache").glob("*.git")
    assert base.git("--git-dir", str(clone), "rev-parse", "ai/batch/2").strip() == got[1]["commit"]
    assert "+BETA" in got[0]["diff"] and "ai/" not in base.git("--git-dir", str(origin),
                                                               "for-each-ref")
