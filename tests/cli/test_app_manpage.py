"""The manual page: installed with the package where man-db finds it from PATH (a venv's
bin/ -> its share/man), so `git help ai-apply` and `git ai-apply --help` open it; and it
describes every apply option of the one option table."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from git_aiapply.run.options import APPLY_OPTIONS

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "git-ai-apply.1"


def test_page_describes_every_apply_option():
    text = PAGE.read_text().replace("\\-", "-")
    for o in APPLY_OPTIONS:
        for name in o.names:
            assert f"\\fB{name}\\fR" in text, name


def test_page_names_every_subcommand():
    from git_aiapply.cli.commands import SUBCOMMANDS

    text = PAGE.read_text().replace("\\-", "-")
    synopsis = text.split(".SH SYNOPSIS", 1)[1].split(".SH", 1)[0]
    commands = text.split(".SH COMMANDS", 1)[1].split(".SH", 1)[0]
    for name in SUBCOMMANDS:
        assert f"\\fB{name}\\fR" in commands, name
        if name != "hook":  # the kit's entry point, run by the hooks it installs
            assert f"\\fB{name}\\fR" in synopsis, name


def _regular_install_of_this_tree() -> Path | None:
    """The running virtualenv, when it holds a regular (not editable) `pip install` of
    this source tree, as CI's does: the installation the fixture below would make, and
    whose man page file pip recorded."""
    from importlib.metadata import distributions

    purelib = sysconfig.get_paths()["purelib"]
    for dist in distributions(path=[purelib]):  # not the source tree's egg-info
        if dist.metadata["Name"] != "git-ai-apply":
            continue
        origin = json.loads(dist.read_text("direct_url.json") or "{}")
        if origin.get("dir_info", {}).get("editable") or origin.get("url") != ROOT.as_uri():
            return None
        assert any(str(f).endswith("share/man/man1/git-ai-apply.1") for f in dist.files or ())
        return Path(sys.prefix)
    return None


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The package as `pip install .` installs it: the running virtualenv's own install
    when it is one (CI), else built as a wheel and installed (without its dependencies,
    which the running venv has) into a fresh virtualenv."""
    venv = _regular_install_of_this_tree()
    if venv is not None:
        return venv
    tmp = tmp_path_factory.mktemp("install")
    wheels = tmp / "wheels"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                        "-w", str(wheels), str(ROOT)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    wheel = next(wheels.glob("git_ai_apply-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.endswith(".data/data/share/man/man1/git-ai-apply.1") for n in names)
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                    str(venv)], check=True)
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                        "install", "-q", "--no-deps", "--no-index", str(wheel)],
                       capture_output=True, text=True)
    if r.returncode != 0:  # an older pip without --python: install with a prefix
        r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                            "--no-index", "--prefix", str(venv), str(wheel)],
                           capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # the running venv's dependencies, placed AFTER the installed package on sys.path (a
    # .pth line is appended to it), so that the wheel's own git_aiapply is the one loaded
    # even when the running venv holds a regular install of the project too (CI's)
    site = next((venv / "lib").glob("python3*/site-packages"))
    deps = next(p for p in sys.path if p.endswith("site-packages"))
    (site / "running-venv-dependencies.pth").write_text(deps + "\n")
    return venv


def test_page_is_installed_with_the_package(installed: Path):
    page = installed / "share" / "man" / "man1" / "git-ai-apply.1"
    assert page.read_bytes() == PAGE.read_bytes()


def _env(installed: Path, home: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MAN"))}
    env.update(PATH=f"{installed / 'bin'}{os.pathsep}{env.get('PATH', '')}", HOME=str(home),
               MANPAGER="cat", PAGER="cat", GIT_PAGER="cat", MANWIDTH="80", LC_ALL="C.UTF-8",
               GIT_CONFIG_NOSYSTEM="1")
    return env


@pytest.mark.skipif(shutil.which("man") is None, reason="no man on this machine")
def test_man_and_git_help_find_the_page(installed: Path, tmp_path: Path):
    env = _env(installed, tmp_path)
    r = subprocess.run(["man", "-w", "git-ai-apply"], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert Path(r.stdout.strip()).resolve() == (installed / "share/man/man1/git-ai-apply.1").resolve()
    for argv in (["git", "help", "ai-apply"], ["git", "ai-apply", "--help"]):
        r = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True)
        assert r.returncode == 0, (argv, r.stderr)
        assert "turn a language model's response into one git commit" in r.stdout, argv


def test_installed_package_holds_every_module_and_applies(installed: Path, repo):
    """Regression: the wheel left out git_aiapply/git/ (a package missing from
    pyproject's list), so a non-editable install failed on every run but --help."""
    site = Path(next((installed / "lib").glob("python3*/site-packages")))
    source = ROOT / "git_aiapply"
    wanted = {p.parent.relative_to(source).as_posix() for p in source.rglob("__init__.py")}
    have = {p.parent.relative_to(site / "git_aiapply").as_posix()
            for p in (site / "git_aiapply").rglob("__init__.py")}
    assert wanted <= have, sorted(wanted - have)
    repo.write("a.txt", "alpha\n")
    repo.commit_all()
    env = {k: v for k, v in repo.env.items() if k != "PYTHONPATH"}
    cmd = installed / "bin" / "git-ai-apply"
    response = "Shout.\n\n```diff\n--- a/a.txt\n+++ b/a.txt\n@@\n-alpha\n+ALPHA\n```\n"
    r = subprocess.run([str(cmd), "-"], input=response, cwd=repo.root, env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert repo.git("show", "HEAD:a.txt") == "ALPHA\n"
    where = subprocess.run([str(installed / "bin" / "python"), "-c",
                            "import git_aiapply.git.repo as m; print(m.__file__)"],
                           cwd=repo.root, env=env, capture_output=True, text=True)
    assert where.returncode == 0 and where.stdout.startswith(str(site)), where.stdout + where.stderr
