"""`git ai-apply batch`'s jobs (docs/BATCH.md): read from JSON Lines, checked one by one,
grouped by repository, and the results a `--resume` run may keep.

A job is a plain dict (what a worker process or a Ray task receives: picklable): the
line's object as written, plus ``_line`` (its line number, or its place in a list) and
``_dir`` (the folder a relative ``repo`` or ``response_file`` is read from: the jobs
file's, or the current folder for standard input and lists).  A line that is not a JSON
object becomes ``{"_line": N, "_error": TEXT}``: a job whose result is that error, never
the end of the batch.  No pygit2 here: the parent of the workers only reads and groups.
"""
from __future__ import annotations

import json
import os

# the fields a job may hold (docs/BATCH.md), and those the reader adds
JOB_KEYS = ("id", "repo", "base", "response", "response_file", "branch", "options")
INTERNAL_KEYS = ("_line", "_dir", "_error")
DEFAULT_BRANCH = "ai/batch/{id}"
DEFAULT_BASE = "HEAD"
# the job's own fields: an option of the same name would say it twice
JOB_FIELD_OPTIONS = ("branch", "base")


class JobError(Exception):
    """A job that cannot be run: its result is an error object (``error_object``) with
    this text, exit code and error kind."""

    def __init__(self, text: str, exit_code: int = 2, kind: str = "usage"):
        super().__init__(text)
        self.text, self.exit_code, self.kind = text, exit_code, kind


# --------------------------------------------------------------------------- reading


def read_jobs(source) -> list[dict]:
    """The jobs of ``source``: a JSON Lines file's path, ``"-"`` (standard input), or an
    iterable of dicts; numbered, with a default ``id`` (the line number) and a second job
    of the same ``id`` made an error.  An unreadable file is the caller's (OSError)."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if path == "-":
            import sys

            jobs = list(jobs_of_lines(sys.stdin.buffer, os.getcwd()))
        else:
            with open(path, "rb") as f:
                jobs = list(jobs_of_lines(f, os.path.dirname(os.path.abspath(path))))
    else:
        here = os.getcwd()
        jobs = [{**j, "_line": n, "_dir": j.get("_dir", here)} if isinstance(j, dict)
                else {"_line": n, "_error": f"job {n} is not an object but {type(j).__name__}"}
                for n, j in enumerate(source, 1)]
    return number_jobs(jobs)


def jobs_of_lines(lines, folder: str):
    """One job per non-blank line of ``lines`` (bytes), numbered from 1."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        yield job_of_line(line, n, folder)


def job_of_line(line: bytes, n: int, folder: str) -> dict:
    """The job of line ``n``: its object, or an ``_error`` saying why it is none."""
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError) as e:
        return {"_line": n, "_error": f"line {n} is not JSON: {e}"}
    if not isinstance(obj, dict):
        return {"_line": n, "_error": f"line {n} is not a JSON object but a "
                                      f"{_json_type(obj)}: a job is {{\"id\": ..., \"repo\": ..., "
                                      "\"response\": ...}"}
    inside = sorted(k for k in obj if k in INTERNAL_KEYS)
    if inside:  # the reader's own keys: a job cannot set them
        return {"_line": n, "_error": f"line {n}: unknown job field "
                                      f"{', '.join(map(repr, inside))}; {_known()}"}
    return {**obj, "_line": n, "_dir": folder}


def _json_type(value) -> str:
    return {list: "list", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(value), type(value).__name__)


def _known() -> str:
    return f"a job holds {', '.join(JOB_KEYS)}"


def number_jobs(jobs: list[dict]) -> list[dict]:
    """Each job with its ``id`` (the line number when it has none); a job whose ``id``
    an earlier job has is an error (the two results could not be told apart)."""
    seen: dict[str, int] = {}
    out = []
    for job in jobs:
        if "_error" not in job:
            if "id" not in job:
                job = {**job, "id": job["_line"]}
            key = json.dumps(job["id"])
            if key in seen and _is_id(job["id"]):
                job = {"_line": job["_line"], "id": job["id"], "_error": (
                    f"line {job['_line']}: id {key} is the id of line {seen[key]} too; "
                    "give every job its own id")}
            seen.setdefault(key, job["_line"])
        out.append(job)
    return out


def _is_id(value) -> bool:
    return isinstance(value, (str, int)) and not isinstance(value, bool)


# --------------------------------------------------------------------------- checking


def checked_job(job: dict, defaults: dict | None = None) -> dict:
    """The job's fields, checked and filled in: ``id``, ``repo`` (a path), ``base``,
    ``response`` or ``response_file`` (a path), ``branch`` (a name) and ``options``
    (the library's, with ``defaults["options"]`` under them; not yet validated); a
    JobError when a field is missing or of the wrong type."""
    defaults = defaults or {}
    if "_error" in job:
        raise JobError(job["_error"])
    where = f"job {json.dumps(job.get('id', job.get('_line')))}"
    unknown = sorted(k for k in job if k not in JOB_KEYS and k not in INTERNAL_KEYS)
    if unknown:
        raise JobError(f"{where}: unknown job field{'s' if len(unknown) > 1 else ''} "
                       f"{', '.join(map(repr, unknown))}; {_known()}")
    job_id = job.get("id", job.get("_line"))
    if not _is_id(job_id):
        raise JobError(f"{where}: id is a string or a whole number, not {_json_type(job_id)}")
    folder = job.get("_dir") or os.getcwd()
    repo = _string(job, "repo", defaults.get("repo"), where)
    if repo is None:
        raise JobError(f"{where} names no repository: give its \"repo\" (a folder)")
    out = {"id": job_id, "repo": repo if _is_url(repo, folder) else os.path.join(folder, repo),
           "base": _string(job, "base", defaults.get("base") or DEFAULT_BASE, where),
           "branch": branch_name(_string(job, "branch", defaults.get("branch"), where)
                                 or DEFAULT_BRANCH, job_id)}
    out.update(_response_of(job, folder, where))
    out["options"] = _options_of(job, defaults, where)
    return out


def _string(job: dict, key: str, default, where: str):
    value = job.get(key, default)
    if value is not None and not isinstance(value, str):
        raise JobError(f"{where}: {key} is a string, not {_json_type(value)}")
    return value


def _response_of(job: dict, folder: str, where: str) -> dict:
    """``{"response": TEXT or chat JSON}`` or ``{"response_file": PATH}``."""
    if ("response" in job) == ("response_file" in job):
        raise JobError(f"{where} holds {'both' if 'response' in job else 'neither'} of "
                       "response (the text, or a chat API's JSON object) and response_file "
                       "(a file): give exactly one")
    if "response" in job:
        if not isinstance(job["response"], (str, dict, list)):
            raise JobError(f"{where}: response is the answer's text (a string) or a chat "
                           f"API's JSON object, not {_json_type(job['response'])}")
        return {"response": job["response"]}
    path = _string(job, "response_file", None, where)
    return {"response_file": os.path.join(folder, path)}


def _options_of(job: dict, defaults: dict, where: str) -> dict:
    options = job.get("options", {})
    if not isinstance(options, dict):
        raise JobError(f"{where}: options is an object of the library's options "
                       f"({{\"format\": \"search-replace\", ...}}), not {_json_type(options)}")
    twice = sorted(k for k in options if k in JOB_FIELD_OPTIONS)
    if twice:
        raise JobError(f"{where}: {' and '.join(twice)} {'is a job field' if len(twice) == 1 else 'are job fields'}"
                       f", not an option: write \"{twice[0]}\": ... beside \"options\"")
    from .api import OPTION_NAMES

    unknown = sorted(k for k in options if k not in OPTION_NAMES)
    if unknown:  # the library's own check would list branch and base among its options
        known = ", ".join(n for n in OPTION_NAMES if n not in JOB_FIELD_OPTIONS)
        raise JobError(f"{where}: unknown option{'s' if len(unknown) > 1 else ''} "
                       f"{', '.join(map(repr, unknown))}; a job's options are {known} "
                       f"({' and '.join(JOB_FIELD_OPTIONS)} are job fields)")
    return {**(defaults.get("options") or {}), **options}


def branch_name(template: str, job_id) -> str:
    """The job's branch, as its short name: ``{id}`` in it replaced by the id made
    ref-safe, as an attempt's ``{name}`` is (workflows/attempts.py), and a leading
    ``refs/heads/`` taken off, as ``--branch`` takes it (git/refs.py): the one name the
    run, the diff, the clash check and ``--resume`` use."""
    from ..git.refs import short_branch
    from ..workflows.attempts import ref_safe

    return short_branch(template.replace("{id}", ref_safe(str(job_id)))) or ""


def one_branch_each(jobs: list[dict], defaults: dict | None = None) -> list[dict]:
    """The jobs, a job whose branch (in its repository) an earlier job writes made an
    error: two ids can name one branch once made ref-safe ("a/1", "a-1"), and the second
    job would commit on the first one's change (or race it in another worker)."""
    seen: dict[tuple[str, str], object] = {}
    out = []
    for job in jobs:
        try:
            spec = checked_job(job, defaults)
        except JobError:
            out.append(job)  # its own error is its result
            continue
        key = (repo_key({**job, "repo": spec["repo"]}), spec["branch"])
        if key in seen:
            job = {"_line": job.get("_line"), "id": spec["id"], "_error": (
                f"job {json.dumps(spec['id'])}: its branch {spec['branch']} is the branch of "
                f"job {json.dumps(seen[key])} too; give each job its own branch (or id)")}
        else:
            seen[key] = spec["id"]
        out.append(job)
    return out


# --------------------------------------------------------------------------- grouping


def repo_key(job: dict) -> str:
    """The repository a job names, as one path for all the ways to write it ("" for a
    job naming none, or that cannot be read)."""
    repo = job.get("repo")
    if "_error" in job or not isinstance(repo, str):
        return ""
    folder = job.get("_dir") or os.getcwd()
    return repo if _is_url(repo, folder) else os.path.realpath(os.path.join(folder, repo))


def _is_url(repo: str, folder: str) -> bool:
    """A ``repo`` to clone (``batch --ray``: git/clone_cache.py), not a folder."""
    from ..git.clone_cache import is_url

    return is_url(repo, folder)


def group_jobs(jobs: list[dict]) -> list[list[dict]]:
    """The jobs grouped by repository (``repo_key``), groups in the order of their first
    job, jobs in file order inside each."""
    groups: dict[str, list[dict]] = {}
    for job in jobs:
        groups.setdefault(repo_key(job), []).append(job)
    return list(groups.values())


def cores() -> int:
    """The cores this process may run on (its affinity, else the machine's)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# --------------------------------------------------------------------------- resuming


def done_results(lines) -> dict[str, dict]:
    """The results of an earlier run's output (bytes lines) that made a commit, by their
    id (as JSON text): the last line of an id is its result; a line cut short (the
    run was killed while writing it) or not a result is passed over."""
    out: dict[str, dict] = {}
    for line in lines:
        try:
            result = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            continue
        if not isinstance(result, dict) or "id" not in result:
            continue
        key = json.dumps(result["id"])
        if result.get("commit") and result.get("branch") and result.get("exit_code") == 0:
            out[key] = result
        else:
            out.pop(key, None)  # a later line of the id says it must run again
    return out


def to_resume(jobs: list[dict], done: dict[str, dict], branch_tip) -> tuple[list[dict], int]:
    """(the jobs still to run, how many were skipped): a job is skipped when the earlier
    output holds its result and ``branch_tip(job, result)`` (the commit its branch is at
    now, None: no branch) is that result's commit."""
    todo = []
    skipped = 0
    for job in jobs:
        result = done.get(json.dumps(job.get("id"))) if "_error" not in job else None
        if result is not None and branch_tip(job, result) == result["commit"]:
            skipped += 1
        else:
            todo.append(job)
    return todo, skipped
