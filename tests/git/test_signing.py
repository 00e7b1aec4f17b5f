"""git/signing.py on real repositories: whether and how a commit is signed (-S /
--no-gpg-sign, aiapply.gpgSign, commit.gpgSign, gpg.format and its programs), an ssh
signature made with ssh-keygen that `git verify-commit` accepts, the signer's failures
fatal, and ``write_commit`` writing the very object `git hash-object -t commit` names."""
from __future__ import annotations

import shutil
import subprocess
import tempfile

import pytest

from conftest import GitRepo
from git_aiapply.errors import ErrorKind, FatalError
from git_aiapply.git.ident import Ident
from git_aiapply.git.repo import Repo
from git_aiapply.git.signing import signer, write_commit

AUTHOR = Ident("A U Thor", "author@example.com", 1700000000, 330)
COMMITTER = Ident("C O Mitter", "", 1700000100, -60)  # an empty email, as git allows


@pytest.fixture
def base(repo: GitRepo, env, monkeypatch) -> GitRepo:
    monkeypatch.chdir(repo.root)
    repo.write("a.txt", "alpha\n")
    repo.commit_all("base")
    return repo


def _write(base: GitRepo, message: str = "signed\n", sign=None) -> str:
    r = Repo(".").repo
    head = r.head.target
    return str(write_commit(r, AUTHOR, COMMITTER, message, r[head].tree_id, [head], sign))


def test_an_unsigned_commit_is_the_object_git_names(base: GitRepo):
    commit = _write(base, "subject\n\nbody\n")
    raw = base.git("cat-file", "commit", commit)
    assert base.git("hash-object", "-t", "commit", "--stdin", input=raw.encode()).strip() == commit
    assert raw == (f"tree {base.git('rev-parse', 'HEAD^{tree}').strip()}\n"
                   f"parent {base.head()}\n"
                   "author A U Thor <author@example.com> 1700000000 +0530\n"
                   "committer C O Mitter <> 1700000100 -0100\n\nsubject\n\nbody\n")
    assert base.git("log", "-1", "--format=%an|%ae|%cn|%ce|%ci", commit).strip() == \
        "A U Thor|author@example.com|C O Mitter||2023-11-14 21:15:00 -0100"
    fsck = subprocess.run(["git", "fsck", "--strict", "--no-dangling"], cwd=base.root,
                          env=base.env, capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


def test_whether_to_sign(base: GitRepo):
    assert signer(Repo("."), None) is None and signer(Repo("."), False) is None
    assert callable(signer(Repo("."), True))  # -S
    base.git("config", "commit.gpgSign", "true")
    assert callable(signer(Repo("."), None))
    assert signer(Repo("."), False) is None  # --no-gpg-sign
    base.git("config", "aiapply.gpgSign", "false")  # the tool's own setting wins
    assert signer(Repo("."), None) is None
    base.git("config", "aiapply.gpgSign", "maybe")
    with pytest.raises(FatalError, match="bad boolean config value 'maybe'"):
        signer(Repo("."), None)


def test_an_unknown_format_or_a_program_that_cannot_run_is_fatal(base: GitRepo, tmp_path):
    base.git("config", "gpg.format", "pgp2")
    with pytest.raises(FatalError) as e:
        signer(Repo("."), True)
    assert e.value.kind == ErrorKind.CONFIG and "'gpg.format': 'pgp2'" in e.value.message
    by_git = subprocess.run(["git", "commit", "-S", "--allow-empty", "-m", "x"], cwd=base.root,
                            env=base.env, capture_output=True, text=True)
    assert by_git.returncode != 0 and "gpg.format" in by_git.stderr  # git refuses it too
    base.git("config", "gpg.format", "x509")
    base.git("config", "gpg.x509.program", str(tmp_path / "no-such-gpgsm"))
    before = base.git("rev-list", "--all")
    with pytest.raises(FatalError) as e:
        _write(base, sign=signer(Repo("."), True))
    assert e.value.kind == ErrorKind.SIGNING
    assert e.value.message.startswith(f"cannot run {tmp_path / 'no-such-gpgsm'} to sign")
    assert base.git("rev-list", "--all") == before


def test_a_signer_that_fails_is_fatal_with_what_it_said(base: GitRepo, tmp_path):
    prog = tmp_path / "gpg"
    prog.write_text("#!/bin/sh\ncat >/dev/null\necho 'gpg: skipped: No secret key' >&2\nexit 2\n")
    prog.chmod(0o755)
    base.git("config", "gpg.program", str(prog))
    with pytest.raises(FatalError) as e:
        signer(Repo("."), True)("content")
    assert e.value.kind == ErrorKind.SIGNING
    assert e.value.message == f"gpg: skipped: No secret key\n{prog} failed to sign the data"


needs_ssh_keygen = pytest.mark.skipif(shutil.which("ssh-keygen") is None,
                                      reason="ssh-keygen is not installed")


@needs_ssh_keygen
def test_an_ssh_signature_git_verify_commit_accepts(base: GitRepo, tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the signer writes its files
    key = tmp_path / "key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tester", "-f",
                    str(key)], check=True, capture_output=True)
    allowed = tmp_path / "allowed"
    allowed.write_text("author@example.com " + (tmp_path / "key.pub").read_text())
    base.git("config", "gpg.format", "ssh")
    base.git("config", "user.signingKey", str(key))
    base.git("config", "gpg.ssh.allowedSignersFile", str(allowed))
    commit = _write(base, "signed with ssh\n", sign=signer(Repo("."), True))
    raw = base.git("cat-file", "commit", commit)
    assert "\ngpgsig -----BEGIN SSH SIGNATURE-----\n" in raw
    assert raw.endswith("\n\nsigned with ssh\n")
    verified = subprocess.run(["git", "verify-commit", commit], cwd=base.root, env=base.env,
                              capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    assert 'Good "git" signature' in verified.stderr
    assert list(scratch.iterdir()) == []  # its scratch folder is gone


@needs_ssh_keygen
def test_ssh_without_a_usable_key_is_fatal(base: GitRepo, tmp_path):
    base.git("config", "gpg.format", "ssh")
    with pytest.raises(FatalError, match="user.signingkey or gpg.ssh.defaultKeyCommand") as e:
        signer(Repo("."), True)("content")
    assert e.value.kind == ErrorKind.SIGNING
    base.git("config", "user.signingKey", str(tmp_path / "no-such-key"))
    with pytest.raises(FatalError) as e:
        signer(Repo("."), True)("content")
    assert e.value.kind == ErrorKind.SIGNING
    assert e.value.message.endswith("ssh-keygen failed to sign the data")
    assert "no-such-key" in e.value.message  # what ssh-keygen said comes first


def test_the_signed_content_is_the_commit_without_its_signature(base: GitRepo):
    signed: list[str] = []

    def sign(content: str) -> str:
        signed.append(content)
        return "-----BEGIN PGP SIGNATURE-----\n\nfake\n-----END PGP SIGNATURE-----\n"

    commit = _write(base, "with signature\n", sign=sign)
    raw = base.git("cat-file", "commit", commit)
    assert "gpgsig -----BEGIN PGP SIGNATURE-----\n \n fake\n -----END PGP SIGNATURE-----\n" in raw
    unsigned = "".join(line for line in raw.splitlines(keepends=True)
                       if not line.startswith(("gpgsig ", " ")))
    assert signed == [unsigned]
