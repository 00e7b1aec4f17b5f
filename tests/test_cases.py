"""Data-driven end-to-end cases: each folder under tests/cases holds

    case.json   what to expect (the fields of shared/conformance/CASES.md)
    before/     files of the base commit
    response.*  the model's response
    after/      the exact tree the new commit must hold (expect = apply)

Each case runs the real `git-ai-apply` in a fresh repository and checks the result with
the git CLI.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import GitRepo

CASES = Path(__file__).parent / "cases"
MARKUP = ("<FILE_CHANGES", "</FILE_CHANGES>", "*** Begin Patch", "<<<<<<< SEARCH",
          ">>>>>>> REPLACE", "<CodeChange", "FILE_HASHLINE_PATCH", "<FILE_PATCH", "<FILE_NEW")


def _case_dirs():
    return sorted(p for p in CASES.iterdir() if (p / "case.json").exists())


def _response(case: Path) -> Path:
    for name in ("response.md", "response.txt", "response.json", "response.patch"):
        if (case / name).exists():
            return case / name
    raise AssertionError(f"{case} has no response")


def _files(root: Path) -> dict[str, bytes]:
    out = {}
    if not root.exists():
        return out
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            p = Path(dirpath) / name
            out[str(p.relative_to(root))] = p.read_bytes() if not p.is_symlink() else os.readlink(p).encode()
    return out


def _cases() -> list:
    """Every case; the first of each family (ap-, cc-, fc-, ...) runs the installed
    script with exec, the others a warm child (conftest.py)."""
    seen, out = set(), []
    for case in _case_dirs():
        family = case.name.split("-")[0]
        marks = [] if family in seen else [pytest.mark.real_command]
        seen.add(family)
        out.append(pytest.param(case, id=case.name, marks=marks))
    return out


@pytest.mark.parametrize("case", _cases())
def test_case(case: Path, repo: GitRepo):
    spec = json.loads((case / "case.json").read_text())
    expect = spec.get("expect", "apply")
    for k, v in spec.get("git_config", {}).items():
        repo.git("config", k, v)
    if (case / "before").exists():
        shutil.copytree(case / "before", repo.root, dirs_exist_ok=True, symlinks=True)
    for link, target in spec.get("before_spec", {}).get("symlinks", {}).items():
        (repo.root / link).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, repo.root / link)
    for path, mode in spec.get("before_spec", {}).get("modes", {}).items():
        os.chmod(repo.root / path, 0o755 if mode == "100755" else 0o644)
    base = repo.commit_all("base")
    for path, content in spec.get("staged", {}).items():
        repo.write(path, content)
        repo.git("add", "--", path)
    for path, content in spec.get("dirty", {}).items():
        repo.write(path, content)
    for hook, body in spec.get("hooks", {}).items():
        repo.write(f".git/hooks/{hook}", body, mode=0o755)
    before = repo.snapshot()

    resp = _response(case)
    raw = resp.read_bytes()
    if b"{{WORKTREE}}" in raw:  # an absolute path inside the worktree, as the conformance runner
        top = repo.git("rev-parse", "--show-toplevel").strip()
        if resp.suffix == ".json":
            top = json.dumps(top)[1:-1]
        resp = repo.root.parent / ("response" + resp.suffix)
        resp.write_bytes(raw.replace(b"{{WORKTREE}}", top.encode()))
    args = list(spec.get("args", []))
    if spec.get("stdin"):
        r = repo.run(*args, "-", stdin=resp.read_bytes())
    else:
        r = repo.run(*args, str(resp))
    output = r.out + r.err

    if expect == "reject":
        assert r.returncode == 1, output
        assert output.strip(), "a refusal must say why"
        after = repo.snapshot()
        assert after == before, "a refusal changed the repository"
        for s in spec.get("stderr_contains", []):
            assert s.lower() in output.lower(), f"{s!r} not in {output!r}"
        return
    if expect == "noop":
        assert r.returncode == 0, output
        assert repo.snapshot() == before
        for s in spec.get("stderr_contains", []):
            assert s.lower() in output.lower(), f"{s!r} not in {output!r}"
        return

    assert r.returncode == 0, output
    assert repo.git("rev-parse", "HEAD^").strip() == base
    want = {}
    for rel, data in _files(case / "after").items():
        want[rel] = ("100644", data)
    for path, mode in spec.get("after_spec", {}).get("modes", {}).items():
        want[path] = (mode, want[path][1])
    for link, target in spec.get("after_spec", {}).get("symlinks", {}).items():
        want[link] = ("120000", target.encode())
    assert repo.tree() == want
    if not spec.get("staged") and not spec.get("dirty") or spec.get("dirty_included"):
        assert repo.git("status", "--porcelain", "-uall") == ""
        assert repo.git("diff-files", "--name-only") == "", "index stat data is stale"
    msg = repo.message()
    subject = msg.splitlines()[0]
    assert subject.strip() and len(subject) <= spec.get("max_subject", 100)
    for m in MARKUP:
        assert m not in msg
    for s in spec.get("subject_contains", []):
        assert s.lower() in subject.lower(), subject
    for s in spec.get("subject_lacks", []):
        assert s.lower() not in subject.lower(), subject
    for s in spec.get("message_contains", []):
        assert s.lower() in msg.lower(), msg
    for s in spec.get("message_lacks", []):
        assert s.lower() not in msg.lower(), msg
    if spec.get("renames"):
        ns = repo.git("diff", "-M", "--name-status", "HEAD^", "HEAD")
        for old, new in spec["renames"]:
            assert any(l.startswith("R") and l.split("\t")[1:] == [old, new] for l in ns.splitlines()), ns
    for path in spec.get("staged", {}):
        if not spec.get("dirty_included"):
            line = [l for l in repo.git("status", "--porcelain").splitlines() if l[3:] == path]
            assert line and line[0][0] in "AM", f"{path} is no longer staged"
