"""The command imports pygit2 without parsing the CA bundle (git_aiapply/cli/startup.py),
and puts the environment back at once: hooks see it as it was; the library is unaffected."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import LOUDER_BETA, GitRepo


@pytest.fixture
def base(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.commit_all("base")
    hook = repo.root / ".git" / "hooks" / "pre-commit"
    hook.write_text('#!/bin/sh\necho "SSL_CERT_FILE=${SSL_CERT_FILE-unset}"\n')
    hook.chmod(0o755)
    return repo


@pytest.mark.parametrize("value", [None, "/custom/ca.pem"])
def test_hooks_see_the_environment_unchanged(base: GitRepo, value):
    env = dict(base.env)
    env.pop("SSL_CERT_FILE", None)
    if value is not None:
        env["SSL_CERT_FILE"] = value
    r = base.run("--json", response=LOUDER_BETA, env=env)
    out = json.loads(r.out)
    assert out["status"] == "applied"
    assert f"SSL_CERT_FILE={value or 'unset'}" in out["hook_output"]


def test_only_the_command_skips_the_ca_file():
    code = ("import os, sys\n"
            "os.environ.pop('SSL_CERT_FILE', None)\n"
            "from git_aiapply.cli.startup import import_pygit2\n"
            "import_pygit2()\n"
            "import pygit2\n"
            "print('SSL_CERT_FILE' in os.environ, pygit2.settings.ssl_cert_file)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "None"]
    lib = subprocess.run([sys.executable, "-c", "import ssl, git_aiapply, pygit2; "
                          "print(pygit2.settings.ssl_cert_file == ssl.get_default_verify_paths().cafile)"],
                         capture_output=True, text=True, check=True)
    assert lib.stdout.strip() == "True"
