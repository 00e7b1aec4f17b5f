"""batch's jobs, without a repository: reading JSON Lines (a bad line is a job with its
error, never the end), the checks of each job's fields, grouping by repository, and
which earlier results a --resume keeps."""
from __future__ import annotations

import io
import json
import os

import pytest

from git_aiapply.doors.batch_jobs import (JobError, branch_name, checked_job, done_results,
                                          group_jobs, jobs_of_lines, number_jobs,
                                          one_branch_each, read_jobs,
                                          to_resume)


def _lines(*objs) -> bytes:
    return b"".join((o if isinstance(o, bytes) else json.dumps(o).encode()) + b"\n"
                    for o in objs)


def test_every_line_is_a_job_and_a_bad_one_carries_its_error(tmp_path):
    f = tmp_path / "jobs.jsonl"
    f.write_bytes(_lines({"id": "a", "repo": "r", "response": "x"}, b"", b"{not json",
                         [1, 2], {"repo": "r", "response": "y"}, {"_dir": "/etc", "repo": "r"}))
    jobs = read_jobs(str(f))
    assert [j["_line"] for j in jobs] == [1, 3, 4, 5, 6]
    assert jobs[0]["_dir"] == str(tmp_path) and jobs[0]["id"] == "a"
    assert "line 3 is not JSON" in jobs[1]["_error"]
    assert "not a JSON object but a list" in jobs[2]["_error"]
    assert jobs[3]["id"] == 5  # no id: the line number
    assert "unknown job field '_dir'" in jobs[4]["_error"]


def test_a_second_job_of_the_same_id_is_an_error_and_the_first_runs():
    jobs = number_jobs([{"_line": 1, "id": 7}, {"_line": 2, "id": 7}, {"_line": 3, "id": "7"}])
    assert "_error" not in jobs[0] and "_error" not in jobs[2]  # 7 and "7" differ
    assert "is the id of line 1 too" in jobs[1]["_error"]


def test_a_list_of_dicts_reads_like_a_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    jobs = read_jobs([{"repo": "r", "response": "x"}, "nope"])
    assert jobs[0] == {"repo": "r", "response": "x", "_line": 1, "_dir": str(tmp_path), "id": 1}
    assert "job 2 is not an object" in jobs[1]["_error"]


def test_checked_job_fills_in_the_defaults_and_resolves_paths(tmp_path):
    job = {"id": "t/1 x", "repo": "r", "response_file": "a.md", "_dir": str(tmp_path),
           "options": {"format": "whole"}}
    spec = checked_job(job, {"options": {"no_verify": True, "format": "diff"}})
    assert spec == {"id": "t/1 x", "repo": str(tmp_path / "r"), "base": "HEAD",
                    "branch": "ai/batch/t-1-x", "response_file": str(tmp_path / "a.md"),
                    "options": {"no_verify": True, "format": "whole"}}
    assert checked_job({"id": 1, "repo": "/r", "response": {"choices": []}, "base": "v1",
                        "branch": "try/{id}"})["branch"] == "try/1"


@pytest.mark.parametrize("job, words", [
    ({"id": 1, "response": "x"}, "names no repository"),
    ({"id": 1, "repo": "r"}, "holds neither of response"),
    ({"id": 1, "repo": "r", "response": "x", "response_file": "f"}, "holds both"),
    ({"id": 1, "repo": "r", "response": 3}, "response is the answer's text"),
    ({"id": 1, "repo": 5, "response": "x"}, "repo is a string, not number"),
    ({"id": True, "repo": "r", "response": "x"}, "id is a string or a whole number"),
    ({"id": 1, "repo": "r", "response": "x", "opts": {}}, "unknown job field 'opts'"),
    ({"id": 1, "repo": "r", "response": "x", "options": []}, "options is an object"),
    ({"id": 1, "repo": "r", "response": "x", "options": {"branch": "b"}},
     "branch is a job field"),
    ({"_line": 4, "_error": "line 4 is not JSON"}, "line 4 is not JSON"),
])
def test_a_bad_job_is_a_job_error_naming_what_is_wrong(job, words):
    with pytest.raises(JobError) as e:
        checked_job(job)
    assert words in e.value.text and e.value.exit_code == 2


def test_branch_names_make_the_id_ref_safe():
    assert branch_name("ai/batch/{id}", "django__django-1234") == "ai/batch/django__django-1234"
    assert branch_name("ai/batch/{id}", "a..b:c~1^") == "ai/batch/a.b-c-1"
    assert branch_name("fixed", 3) == "fixed"
    # refs/heads/NAME is the branch NAME, as --branch takes it: one name everywhere
    assert branch_name("refs/heads/zz", 1) == "zz" and branch_name("refs/heads/t/{id}", 2) == "t/2"
    assert branch_name("refs/remotes/x", 1) == "refs/remotes/x"  # as --branch: a branch so named


def test_an_unknown_option_lists_a_jobs_options_not_its_fields():
    with pytest.raises(JobError) as e:
        checked_job({"id": 1, "repo": "r", "response": "x", "options": {"chek": True}})
    text = e.value.text
    assert text.startswith("job 1: unknown option 'chek'; a job's options are check, diff, ")
    assert text.endswith("(branch and base are job fields)") and e.value.exit_code == 2
    listed = text.split("are ", 1)[1].split(" (")[0].split(", ")
    assert "branch" not in listed and "base" not in listed and "no_verify" in listed


def test_one_process_runs_the_jobs_in_file_order():
    from git_aiapply.doors.batch import in_file_order

    jobs = [{"id": 1, "repo": "a", "_line": 1}, {"id": 2, "repo": "b", "_line": 2},
            {"_line": 3, "_error": "line 3 is not JSON"}, {"id": 4, "repo": "a", "_line": 4},
            {"id": 5, "repo": "missing", "_line": 5}, {"id": 6, "repo": "b", "_line": 6}]
    groups = group_jobs(jobs)
    assert [j["_line"] for g in groups for j in g] != [1, 2, 3, 4, 5, 6]  # grouped: not so
    assert [j["_line"] for j in in_file_order(groups)] == [1, 2, 3, 4, 5, 6]


def test_groups_by_repository_in_file_order(tmp_path):
    (tmp_path / "r").mkdir()
    os.symlink(tmp_path / "r", tmp_path / "link")
    d = str(tmp_path)
    jobs = [{"id": 1, "repo": "r", "_dir": d}, {"id": 2, "repo": "s", "_dir": d},
            {"id": 3, "repo": "link", "_dir": d}, {"id": 4, "_error": "bad"},
            {"id": 5, "repo": str(tmp_path / "r"), "_dir": "/"}]
    assert [[j["id"] for j in g] for g in group_jobs(jobs)] == [[1, 3, 5], [2], [4]]


def test_jobs_of_lines_skip_blank_lines_keeping_numbers():
    jobs = list(jobs_of_lines(io.BytesIO(b'\n  \n{"id": 1}\n'), "/f"))
    assert jobs == [{"id": 1, "_line": 3, "_dir": "/f"}]


def test_resume_keeps_results_whose_branch_still_holds_their_commit():
    out = _lines({"id": "a", "status": "applied", "exit_code": 0, "commit": "c1", "branch": "b/a"},
                 {"id": "b", "status": "refused", "exit_code": 1, "commit": None, "branch": "b/b"},
                 {"id": "c", "status": "applied", "exit_code": 0, "commit": "c3", "branch": "b/c"},
                 {"id": "d", "status": "applied", "exit_code": 0, "commit": "c4", "branch": "b/d"},
                 {"id": "d", "status": "error", "exit_code": 2, "branch": "b/d"},
                 {"id": 1, "status": "applied", "exit_code": 0, "commit": "c5", "branch": "b/1"},
                 b'{"id": "e", "status": "appl')  # cut short by a kill
    done = done_results(io.BytesIO(out))
    assert sorted(done) == ['"a"', '"c"', "1"]
    tips = {"b/a": "c1", "b/c": "moved", "b/1": "c5"}
    jobs = [{"id": i} for i in ("a", "b", "c", "d", "e", "1")] + [{"id": 1}]
    todo, skipped = to_resume(jobs, done, lambda job, result: tips.get(result["branch"]))
    assert [j["id"] for j in todo] == ["b", "c", "d", "e", "1"] and skipped == 2


def test_two_jobs_of_one_branch_the_second_is_an_error(tmp_path):
    d = str(tmp_path)
    jobs = [{"id": "a/1", "repo": "r", "response": "x", "_dir": d},
            {"id": "a-1", "repo": "r", "response": "x", "_dir": d},
            {"id": "a-1b", "repo": "other", "response": "x", "_dir": d, "branch": "ai/batch/a-1"},
            {"id": "c", "repo": "r", "response": "x", "_dir": d, "branch": "mine"},
            {"id": "e", "repo": "r", "response": "x", "_dir": d, "branch": "mine"},
            {"id": "f", "repo": "r", "response": "x", "_dir": d, "branch": "refs/heads/mine"}]
    out = one_branch_each(jobs, {})
    assert [("_error" in j) for j in out] == [False, True, False, False, True, True]
    assert 'its branch ai/batch/a-1 is the branch of job "a/1" too' in out[1]["_error"]
    assert "mine is the branch of job \"c\" too" in out[4]["_error"]


def test_a_url_repo_is_kept_as_written_and_grouped_by_it(tmp_path):
    """A URL is cloned by the worker (git/clone_cache.py): not a folder under the jobs
    file's, and every job naming it is one group."""
    url = "file:///srv/origin.git"
    jobs = [{"id": 1, "repo": url, "response": "x", "_dir": str(tmp_path), "_line": 1},
            {"id": 2, "repo": "host:r.git", "response": "x", "_dir": str(tmp_path), "_line": 2},
            {"id": 3, "repo": url, "response": "x", "_dir": str(tmp_path), "_line": 3}]
    assert checked_job(jobs[0])["repo"] == url and checked_job(jobs[1])["repo"] == "host:r.git"
    assert [[j["id"] for j in g] for g in group_jobs(jobs)] == [[1, 3], [2]]
