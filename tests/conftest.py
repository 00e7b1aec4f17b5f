"""Shared fixtures: real git repositories in temporary folders, and the real
`git-ai-apply` command run as a subprocess.

`GitRepo.run` runs the command in a child forked from a warm server that has imported its
dependencies (ai_apply_warm.py: a separate process with the run's environment, streams and
exit status, SIGKILL faults included), about five times cheaper than starting Python and
pygit2 for each run.  Tests about the executable itself run it with ``exec``: those marked
``@pytest.mark.real_command`` (test_e2e_apply.py, a case of each family, a few crash tests;
the races, serve and start-up tests start their own processes), and every
test when GIT_AI_APPLY_TEST_EXEC=1 is set, or when a run's environment changes how Python
starts (locale, PYTHON* variables)."""
from __future__ import annotations

import atexit
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ai_apply_warm import WarmCommand


def _rewrite_only_our_asserts() -> None:
    """pytest rewrites the asserts of every module of an installed distribution that
    ships a pytest plugin, compiling each from source in every test process: hypothesis
    (73 modules) and anyio (33; its plugin is off, see addopts) cost about a second and a
    half of each worker's start.  No test here relies on their asserts' messages, so they
    load as plain modules; conftest and the test files are rewritten as before.  (The
    marks live in a private set: if pytest renames it, this does nothing.)"""
    from _pytest.assertion.rewrite import AssertionRewritingHook

    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if isinstance(finder, AssertionRewritingHook) and isinstance(marked, set):
            marked -= {n for n in marked if n.lstrip("_").startswith(("hypothesis", "anyio"))}
            getattr(finder, "_marked_for_rewrite_cache", {}).clear()


_rewrite_only_our_asserts()


def _plain_asserts_for_the_whole_suite(config) -> None:
    """The whole suite (pytest run with no path: the README's command, CI) imports its
    test modules as they are: rewriting their 5,000 asserts for pytest's messages cost
    each worker 7 of its 9.5 seconds of collection (a quarter of the two-minute budget).
    A run that names a file, a folder or a test keeps the rewritten asserts and their
    messages."""
    if config.option.assertmode != "rewrite" or not config.args:
        return
    here = Path(__file__).resolve().parent  # tests/: what an xdist worker is given too
    for arg in config.args:
        if (Path(config.invocation_params.dir) / arg).resolve() != here:
            return
    from _pytest.assertion.rewrite import AssertionRewritingHook

    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, AssertionRewritingHook)]


def _temporary_folders_in_memory(root: str = "/dev/shm", need: int = 2 << 30) -> None:
    """Put the tests' temporary folders (pytest's tmp_path, the warm server's scratch) on
    a memory filesystem when the machine has one and the user chose no TMPDIR: thousands
    of small repositories are made and removed, and on a disk filesystem the kernel's
    bookkeeping of that (journal, discards) was a third of the suite's time.  The tests
    are the same; only where their scratch folders live changes.  Workers inherit it."""
    if os.environ.get("TMPDIR") or not os.path.isdir(root) or not os.access(root, os.W_OK):
        return
    try:
        st = os.statvfs(root)
    except OSError:
        return
    # tests run hooks and scripts they write there: not on a noexec mount (Docker's default)
    if st.f_bavail * st.f_frsize < need or st.f_flag & os.ST_NOEXEC:
        return
    folder = os.path.join(root, f"tests-of-git_aiapply-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return
    own = os.lstat(folder)  # ours alone, not a link or another user's folder
    if not stat.S_ISDIR(own.st_mode) or own.st_uid != os.getuid() or own.st_mode & 0o077:
        return
    os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # asked again, from TMPDIR


_temporary_folders_in_memory()

BIN_DIR = os.path.dirname(sys.executable)


def _command() -> list[str]:
    exe = os.path.join(BIN_DIR, "git-ai-apply")
    if os.path.exists(exe):
        return [exe]
    found = shutil.which("git-ai-apply")
    if found:
        return [found]
    return [sys.executable, "-m", "git_aiapply"]


AI_APPLY = _command()

# Variables read when Python starts: a run whose values differ from the warm server's
# is run with exec.
_STARTUP_VARS = ("LC_ALL", "LC_CTYPE", "LANG", "LANGUAGE")
_EXEC_ALWAYS = os.environ.get("GIT_AI_APPLY_TEST_EXEC") == "1"
_warm: WarmCommand | None = None
_real_command_test = False  # the running test is marked real_command


def _warm_command() -> WarmCommand:
    global _warm
    if _warm is None:
        scratch = tempfile.mkdtemp(prefix="ai-apply-warm-")
        home = Path(scratch) / "home"
        home.mkdir()
        _warm = WarmCommand(AI_APPLY[0], scratch, make_env(home))

        def stop(w=_warm):
            w.close()
            shutil.rmtree(w.scratch, ignore_errors=True)

        atexit.register(stop)
    return _warm


def _starts_like_the_warm_server(env: dict[str, str]) -> bool:
    base = make_env(Path("/"))
    keys = {k for k in (*env, *base) if k in _STARTUP_VARS or k.startswith("PYTHON")}
    return all(env.get(k) == base.get(k) for k in keys)


def run_command(argv: list[str], *, cwd, env: dict[str, str],
                input: bytes | None = None) -> subprocess.CompletedProcess:
    """`git-ai-apply ARGV` with its output captured: warm, or with exec (see above)."""
    if (_EXEC_ALWAYS or _real_command_test or len(AI_APPLY) != 1
            or not _starts_like_the_warm_server(env)):
        return subprocess.run([*AI_APPLY, *argv], cwd=cwd, env=env, input=input,
                              capture_output=True)
    return _warm_command().run(argv, cwd=cwd, env=env, input=input)


# The longest tests (and modules whose tests share an expensive fixture), started first so
# that no worker is left running one of them alone at the end (pytest-xdist hands tests out
# in collection order).
LONGEST_FIRST = ("tests/test_bench_smoke.py::test_bench_runs", "tests/cli/test_app_manpage.py",
                 "tests/test_races.py",
                 "tests/workflows/test_attempts.py::test_parallel", "tests/doors/test_mcp_server.py",
                 "tests/doors/test_serve.py", "tests/doors/test_batch_ray.py")


def pytest_collection_modifyitems(config, items):
    def rank(item) -> int:
        return next((i for i, p in enumerate(LONGEST_FIRST) if item.nodeid.startswith(p)),
                    len(LONGEST_FIRST))

    items.sort(key=rank)  # stable: the rest keep their order


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    global _real_command_test
    _real_command_test = item.get_closest_marker("real_command") is not None


def pytest_configure(config):
    """Compile the package's bytecode once, before any test (and any xdist worker) runs:
    the command runs as installed, where pip compiled its modules.  Without it, in an
    editable install with PYTHONDONTWRITEBYTECODE set, every run of the command would
    compile the whole package again, about half of its start-up time."""
    config.addinivalue_line(
        "markers", "real_command: run git-ai-apply with exec, never from the warm server")
    _plain_asserts_for_the_whole_suite(config)
    # hypothesis's per-example deadline is a timed assertion: on a loaded machine it
    # failed tests that had nothing wrong (speed is measured in bench/, never asserted)
    from hypothesis import settings

    settings.register_profile("suite", deadline=None)
    settings.load_profile("suite")
    if hasattr(config, "workerinput"):
        return  # the controller did it
    import compileall

    import git_aiapply

    compileall.compile_dir(os.path.dirname(git_aiapply.__file__), quiet=1)

# A small diff response several test modules apply to a repository with src/b.txt.
LOUDER_BETA = """Make beta louder.

```diff
--- a/src/b.txt
+++ b/src/b.txt
@@
 alpha
-beta
+BETA
```
"""


def make_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("GIT_"):
            del env[k]
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Test Author",
        GIT_AUTHOR_EMAIL="author@example.com",
        GIT_COMMITTER_NAME="Test Committer",
        GIT_COMMITTER_EMAIL="committer@example.com",
        LC_ALL="C.UTF-8",
        PATH=BIN_DIR + os.pathsep + env.get("PATH", ""),
    )
    return env


def run_on_terminal(argv: list[str], *, cwd, env: dict[str, str]) -> tuple[int, str, str]:
    """Run the real command with its standard output on a pseudo-terminal (colour, the
    pager): (exit code, what it printed, as the terminal got it, its standard error)."""
    master, slave = os.openpty()
    p = subprocess.Popen([*AI_APPLY, *argv], cwd=cwd, env=env, stdout=slave,
                         stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # EIO: the other end closed
            break
        if not data:
            break
        chunks.append(data)
    err = p.stderr.read()
    p.wait()
    os.close(master)
    return p.returncode, b"".join(chunks).decode("utf-8", "replace"), err.decode("utf-8", "replace")


class GitRepo:
    """A scratch repository with helpers to set it up, run the tool, and inspect it."""

    def __init__(self, root: Path, env: dict[str, str]):
        self.root = root
        self.env = env

    # -- setting up -------------------------------------------------------------------
    def git(self, *args: str, check: bool = True, input: bytes | None = None,
            cwd: Path | None = None) -> str:
        r = subprocess.run(["git", *args], cwd=cwd or self.root, env=self.env, input=input,
                           capture_output=True)
        if check and r.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {r.stderr.decode()}")
        return r.stdout.decode("utf-8", "surrogateescape")

    def write(self, path: str, content: str | bytes, mode: int | None = None) -> Path:
        p = self.root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode()
        p.write_bytes(content)
        if mode is not None:
            os.chmod(p, mode)
        return p

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()

    def commit_all(self, message: str = "base") -> str:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "--no-verify", "-m", message)
        # the commit just made, read from the ref file git wrote (a set-up step: one git
        # call fewer; head() asks git)
        git_dir = self.root / ".git"
        if git_dir.is_dir():
            head = (git_dir / "HEAD").read_text()
            ref = git_dir / head[5:].strip() if head.startswith("ref: ") else None
            if ref is None:
                return head.strip()
            if ref.is_file():
                return ref.read_text().strip()
        return self.head()

    def settle(self) -> None:
        """Date the files in the past and refresh the index, so that no entry is "racily
        clean" and `git status` (in snapshot()) never rewrites the index on its own."""
        past = os.stat(self.root).st_mtime - 100
        for p in self.root.rglob("*"):
            if ".git" not in p.parts and p.is_file():
                os.utime(p, (past, past))
        self.git("update-index", "-q", "--refresh")

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    # -- running the tool -------------------------------------------------------------
    def run(self, *args: str, response: str | bytes | None = None, stdin: bytes | None = None,
            cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
        """Run `git-ai-apply ARGS`; ``response`` is written to a file outside the
        worktree and its path appended."""
        argv = list(args)
        if response is not None:
            rp = self.root.parent / f"response-{abs(hash(response)) % 10**8}.md"
            rp.write_bytes(response.encode() if isinstance(response, str) else response)
            argv.append(str(rp))
        r = run_command(argv, cwd=cwd or self.root, env=env or self.env, input=stdin)
        out = r.stdout.decode("utf-8", "replace")
        err = r.stderr.decode("utf-8", "replace")
        assert "Traceback (most recent call last)" not in out + err, out + err
        r.out, r.err = out, err  # type: ignore[attr-defined]
        return r

    # -- inspecting -------------------------------------------------------------------
    def snapshot(self) -> dict:
        """Everything a refusal must leave byte-for-byte as it was."""
        files = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                p = os.path.join(dirpath, name)
                rel = os.path.relpath(p, self.root)
                if os.path.islink(p):
                    files[rel] = ("link", os.readlink(p))
                else:
                    st = os.stat(p)
                    files[rel] = (oct(st.st_mode), Path(p).read_bytes())
            for d in dirnames:
                files.setdefault(os.path.relpath(os.path.join(dirpath, d), self.root) + "/", ("dir",))
        refs = self.git("for-each-ref", "--format=%(refname) %(objectname)")
        index = (self.root / ".git" / "index").read_bytes() if (self.root / ".git" / "index").exists() else b""
        # one git call for the commit HEAD names and the status (its "# branch.oid" line)
        status = self.git("status", "--porcelain=v2", "--branch", "-uall")
        oid = status.split("\n", 1)[0].removeprefix("# branch.oid ")
        head = "" if oid == "(initial)" else oid
        head_ref = (self.root / ".git" / "HEAD").read_bytes()  # where HEAD points, as written
        stray = sorted(n for n in os.listdir(self.root / ".git") if "lock" in n or "ai-apply" in n.lower())
        return {"files": files, "refs": refs, "head_ref": head_ref, "head": head,
                "index": index, "status": status, "stray": stray}

    def tree(self, rev: str = "HEAD") -> dict[str, tuple[str, bytes]]:
        """path -> (mode, content) of every file in ``rev``, read with two git calls."""
        raw = subprocess.run(["git", "ls-tree", "-r", "-z", rev], cwd=self.root, env=self.env,
                             capture_output=True).stdout
        entries = []
        for rec in raw.split(b"\0"):
            if rec:
                meta, path = rec.split(b"\t", 1)
                mode, _t, oid = meta.split(b" ")
                entries.append((path.decode(), mode.decode(), oid))
        batch = subprocess.run(["git", "cat-file", "--batch"], cwd=self.root, env=self.env,
                               input=b"".join(oid + b"\n" for _, _, oid in entries),
                               capture_output=True).stdout
        out, at = {}, 0
        for path, mode, _oid in entries:
            nl = batch.index(b"\n", at)
            size = int(batch[at:nl].split(b" ")[2])
            out[path] = (mode, batch[nl + 1:nl + 1 + size])
            at = nl + 1 + size + 1  # the content, then a newline
        return out

    def message(self, rev: str = "HEAD") -> str:
        return self.git("log", "-1", "--format=%B", rev)

    def count(self, rev: str = "HEAD") -> int:
        return int(self.git("rev-list", "--count", rev).strip())


@pytest.fixture
def git_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    return make_env(home)


@pytest.fixture
def env(git_env, monkeypatch, tmp_path):
    """For tests that call the library in-process: it sees the same environment as the
    command does in the tests, configuration files included.  libgit2 found the global
    and system config files when pygit2 was imported, from this process's HOME then (the
    user's ~/.gitconfig): for the test's length it reads those of the test's HOME, and no
    system file (GIT_CONFIG_NOSYSTEM), as the command in the test's environment does."""
    for k in list(os.environ):
        if k.startswith("GIT_"):
            monkeypatch.delenv(k)
    for k, v in git_env.items():
        monkeypatch.setenv(k, v)
    import pygit2
    from pygit2.enums import ConfigLevel

    paths = pygit2.settings.search_path
    levels = (ConfigLevel.GLOBAL, ConfigLevel.XDG, ConfigLevel.SYSTEM)
    saved = {level: paths[level] for level in levels}
    no_system = tmp_path / "no-system-config"
    no_system.mkdir(exist_ok=True)
    paths[ConfigLevel.GLOBAL] = git_env["HOME"]
    paths[ConfigLevel.XDG] = os.path.join(git_env["XDG_CONFIG_HOME"], "git")
    paths[ConfigLevel.SYSTEM] = str(no_system)
    yield git_env
    for level, value in saved.items():
        paths[level] = value


_EMPTY_REPO: list[Path] = []  # made by git once per test process, copied for each new one
_ENV_OF_EMPTY_REPO = {"HOME", "XDG_CONFIG_HOME", "PATH", "GIT_CONFIG_NOSYSTEM", "GIT_AUTHOR_NAME",
                      "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"}


def _git_init(r: GitRepo) -> None:
    r.git("init", "-q", "-b", "main")
    r.git("config", "user.name", "Config User")
    r.git("config", "user.email", "config@example.com")
    r.git("config", "core.autocrlf", "false")
    # no `git maintenance run --auto` child after each `git commit` of a test's set-up (a
    # third of a commit's cost); the tool under test never reads these
    r.git("config", "maintenance.auto", "false")
    r.git("config", "gc.auto", "0")


def _initialises_as_the_copy(env: dict[str, str]) -> bool:
    """Whether `git init` under ``env`` makes what the copied repository holds: no git
    variable but make_env's, no user configuration in HOME."""
    home = Path(env.get("HOME", "/nonexistent"))
    xdg = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return (all(k in _ENV_OF_EMPTY_REPO for k in env if k.startswith("GIT_"))
            and not (home / ".gitconfig").exists() and not (xdg / "git").exists())


def init_repo(root: Path, env: dict[str, str]) -> GitRepo:
    """An empty repository on branch main, with a configured identity and no CRLF
    conversion (the same for every test, whatever the user's git config says).  Its .git
    is a copy of one `git init` made once per test process, when git would make the same."""
    root.mkdir(parents=True)
    r = GitRepo(root, env)
    if not _initialises_as_the_copy(env):
        _git_init(r)
        return r
    if not _EMPTY_REPO:
        scratch = Path(tempfile.mkdtemp(prefix="ai-apply-empty-repo-"))
        atexit.register(shutil.rmtree, scratch, True)
        (scratch / "home").mkdir()
        made = GitRepo(scratch / "repo", make_env(scratch / "home"))
        made.root.mkdir()
        _git_init(made)
        _EMPTY_REPO.append(made.root / ".git")
    shutil.copytree(_EMPTY_REPO[0], root / ".git", symlinks=True)
    return r


@pytest.fixture
def repo(tmp_path: Path, git_env) -> GitRepo:
    return init_repo(tmp_path / "repo", git_env)


@pytest.fixture(scope="session")
def built_once(tmp_path_factory):
    """``built_once(key, prepare)``: a repository ``prepare(repo)`` set up, made once per
    test process and kept, for results several tests compare with (the state a clean run
    leaves).  Only for repositories no test changes."""
    made: dict = {}

    def get(key, prepare) -> GitRepo:
        if key not in made:
            home = tmp_path_factory.mktemp("home")
            home.mkdir(exist_ok=True)
            made[key] = init_repo(tmp_path_factory.mktemp("built") / "repo", make_env(home))
            prepare(made[key])
        return made[key]

    return get


@pytest.fixture
def copy_of(built_once):
    """``copy_of(repo, key, prepare)``: turn the test's fresh ``repo`` into a copy of the
    repository ``prepare`` sets up, built once per test process (cheaper than running the
    same setup, tool runs included, for every test).  The copy's index stat data are
    refreshed, as the copied files are new inodes; environment settings the setup made
    (fixed dates) are carried over."""
    def copy(repo: GitRepo, key, prepare) -> GitRepo:
        template = built_once(key, prepare)
        base_env = make_env(Path(template.env["HOME"]))
        repo.env.update({k: v for k, v in template.env.items()
                         if k not in ("HOME", "XDG_CONFIG_HOME") and base_env.get(k) != v})
        shutil.rmtree(repo.root)
        shutil.copytree(template.root, repo.root, symlinks=True)
        repo.git("update-index", "-q", "--refresh", check=False)
        return repo

    return copy


def blocks_of(format_module, text: str):
    """The blocks one format's reader finds in ``text`` (the scan the parser runs, with only
    that format): a format's tests look at its blocks without the others'."""
    from git_aiapply.formats.scan import scan_blocks

    return scan_blocks(text, [format_module.FORMAT]).blocks


def file_text(text: str):
    """A FileText of ``text`` as the file's bytes would read (utf-8, undecodable bytes kept
    as surrogates), for tests that write a file's content as a str."""
    from git_aiapply.text import FileText, encode

    return FileText.from_bytes(encode(text))


def text_of(ft) -> str:
    """A FileText's bytes as a str (the inverse of ``file_text``)."""
    from git_aiapply.text import decode

    return decode(ft.raw)


def merge_snippet(path: str, file_lines: list[str], snippet: list[str]):
    """A lazy snippet merged into the file at ``path`` as the planner merges it
    (plan/lazy_merge.py): its placeholders found by the file's grammar, the file's
    declarations read, then ``merge``."""
    from git_aiapply.plan.lazy_merge import declarations, merge
    from git_aiapply.verify.placeholder_edits import snippet_placeholders

    placeholders = snippet_placeholders(path, file_lines, snippet)
    return merge(file_lines, snippet, placeholders,
                 *declarations(path, file_lines, snippet, placeholders))
