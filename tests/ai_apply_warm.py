"""A warm `git-ai-apply`: a process that has imported the command's dependencies once and
forks a child for every run, so that a test pays for the command's own work and not, each
time, for starting Python and importing pygit2 (about four fifths of a small run).

Each child is a real, separate process: it gets the run's environment, working folder,
argument list and standard streams (files, as a pipe gives them: not a terminal), executes
again the modules whose top level reads the environment (found by reading the package's
source: the fault injection of the crash-safety tests), and runs the console script's
entry point, ``git_aiapply.cli.main:run``, to its end: exit code, uncaught exception and
death by a signal (SIGKILL faults) are those of the process itself.  What the child does
not share with an `exec` of the script: the interpreter's start-up (one hash seed for
every run), modules already imported (the command imports some lazily, for its start-up
time: tests/cli/test_startup.py checks that with exec), libgit2's initialisation, whose
configuration search path, read from HOME at ``import pygit2``, is set again from the
run's own HOME, and the last step of the interpreter's shutdown, freeing the modules
(`_finalize`: threads, atexit handlers, stream flushes and the run's garbage are done as
Python does them; the runs marked real_command go all the way).

The tests' side is `WarmCommand` (conftest.py's `GitRepo.run` uses it); this file run as
a script is the server: length-prefixed pickles on standard input and output, one request
(argv, env, cwd, stdin/stdout/stderr file names) answered with the child's wait status.
"""
from __future__ import annotations

import gc
import os
import pickle
import struct
import subprocess
import sys
import threading

_HEADER = struct.Struct("!I")


def _send(stream, obj) -> None:
    data = pickle.dumps(obj)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream):
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(head)
    return pickle.loads(stream.read(size))


# -------------------------------------------------------------------------- the server


def _preload() -> None:
    """The dependencies, imported as git_aiapply/cli/startup.py imports pygit2 (CA file
    hidden), and the standard modules the command uses."""
    saved = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = os.devnull
    try:
        import pygit2  # noqa: F401
    finally:
        if saved is None:
            del os.environ["SSL_CERT_FILE"]
        else:
            os.environ["SSL_CERT_FILE"] = saved
    import argparse, dataclasses, difflib, enum, hashlib, json, pathlib, re  # noqa: F401,E401
    import shlex, signal, stat, tempfile, textwrap, unicodedata  # noqa: F401,E401
    import click, xxhash  # noqa: F401,E401


def _preload_package() -> list[str]:
    """Import every module of git_aiapply; return those whose top level reads the
    environment (os.environ, getenv: e.g. the fault injection), which each child executes
    again (importlib.reload: the same module object, so every name bound to its functions
    sees the new values) once the run's environment is set."""
    import ast
    import importlib
    import pkgutil

    import git_aiapply

    reread = []
    for info in pkgutil.walk_packages(git_aiapply.__path__, "git_aiapply."):
        try:
            module = importlib.import_module(info.name)
        except Exception:  # an optional extra (mcp) missing: the child imports it, or not
            continue
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".py"):
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        top = [node for node in tree.body
               if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        if any(isinstance(n, ast.Attribute) and n.attr in ("environ", "getenv", "environb")
               or isinstance(n, ast.Name) and n.id in ("environ", "getenv")
               for node in top for n in ast.walk(node)):
            reread.append(info.name)
    return reread


def _child(req) -> None:
    """In the forked child: become the run, then run the console script's entry point.
    Never returns: SystemExit (or an uncaught exception) ends the interpreter here."""
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    import time

    time.tzset()  # the C library read TZ when the server started: read the run's
    for fd, (path, flags) in enumerate([(req["stdin"], os.O_RDONLY),
                                        (req["stdout"], os.O_WRONLY | os.O_TRUNC),
                                        (req["stderr"], os.O_WRONLY | os.O_TRUNC)]):
        f = os.open(path, flags)
        os.dup2(f, fd)
        os.close(f)
    # standard streams as a fresh interpreter makes them for files (not a terminal)
    sys.stdin = sys.__stdin__ = open(0, "r", encoding=_STDIO[0], errors=_STDIO[1], closefd=False)
    sys.stdout = sys.__stdout__ = open(1, "w", encoding=_STDIO[0], errors=_STDIO[1],
                                       closefd=False)
    sys.stderr = sys.__stderr__ = open(2, "w", encoding=_STDIO[0], errors="backslashreplace",
                                       closefd=False, buffering=1)
    import pygit2
    from pygit2.enums import ConfigLevel

    # libgit2 read HOME once, when the server imported pygit2: read it again for this run
    home = os.environ.get("HOME")
    if home:
        pygit2.settings.search_path[ConfigLevel.GLOBAL] = home
        xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        pygit2.settings.search_path[ConfigLevel.XDG] = os.path.join(xdg, "git")
    sys.argv = list(req["argv"])
    sys.path[0] = os.path.dirname(req["argv"][0])
    import importlib

    for name in _REREAD:
        importlib.reload(sys.modules[name])
    from git_aiapply.cli.main import run

    try:
        run()  # the console script: sys.exit(run())
        status = 0
    except SystemExit as e:
        status = _exit_status(e.code)
    except BaseException:
        sys.excepthook(*sys.exc_info())
        status = 1
    _finalize(status)


def _exit_status(code) -> int:
    """The exit status Python gives ``SystemExit(code)``: None is 0, a number itself,
    anything else is printed to standard error and is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _finalize(status: int) -> None:
    """End the child as Python's finalisation ends a process, up to the point where it
    frees the modules: non-daemon threads joined, atexit handlers run, standard streams
    flushed (a failed flush of standard output is status 120), the run's garbage
    collected (its finalisers run).  Freeing the preloaded modules would take about three
    quarters of a small run's time and nothing the command wrote depends on it."""
    import atexit

    threading._shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            if stream is sys.stdout:
                status = 120
    gc.collect()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(status)


_STDIO = (None, None)
_REREAD: list[str] = []  # modules whose top level reads the environment


def _preload_grammars() -> None:
    """Every grammar loaded once (grammar/code_tree.py keeps each it loads): a child reads
    code through the grammar the command would load for it, without loading it again
    (about 10 ms a run that touches a Python file)."""
    from git_aiapply.grammar import code_tree, languages

    for grammar in languages.ALL:
        code_tree._loaded(grammar)


def serve() -> None:
    global _STDIO
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    # the children's standard streams are their own: the server's are /dev/null
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    _STDIO = (sys.stdout.encoding, sys.stdout.errors)
    _preload()
    _REREAD[:] = _preload_package()
    _preload_grammars()
    # Every object the server holds now, out of the collector's sight: a child's collections
    # (and the one at its interpreter's shutdown) would otherwise visit, and so copy, every
    # page of the preloaded modules (about two thirds of a small run's time).
    gc.collect()
    gc.freeze()
    while True:
        req = _receive(requests)
        if req is None:
            return
        pid = os.fork()
        if pid == 0:
            requests.close()
            answers.close()
            _child(req)
        _, status = os.waitpid(pid, 0)
        _send(answers, os.waitstatus_to_exitcode(status))


# -------------------------------------------------------------------------- the tests' side


class WarmCommand:
    """One server per test process, started at the first run; runs are one at a time
    (a test that needs two commands at once runs the real one)."""

    def __init__(self, argv0: str, scratch: str, env: dict[str, str]):
        self.argv0 = argv0
        self.scratch = scratch
        self.env = env
        self.lock = threading.Lock()
        self.server: subprocess.Popen | None = None

    def _python(self) -> str:
        """The interpreter the script's #! line names, as an exec of the script runs."""
        with open(self.argv0, "rb") as f:
            first = f.readline().decode(errors="replace").strip()
        named = first[2:].strip() if first.startswith("#!") else ""
        return named if os.path.isabs(named) and os.access(named, os.X_OK) else sys.executable

    def _start(self) -> subprocess.Popen:
        if self.server is None or self.server.poll() is not None:
            self.server = subprocess.Popen([self._python(), __file__],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           env=self.env)
        return self.server

    def run(self, argv: list[str], *, cwd, env: dict[str, str],
            input: bytes | None) -> subprocess.CompletedProcess:
        with self.lock:
            server = self._start()
            names = {k: os.path.join(self.scratch, k) for k in ("stdin", "stdout", "stderr")}
            with open(names["stdin"], "wb") as f:
                f.write(input or b"")
            for k in ("stdout", "stderr"):
                open(names[k], "wb").close()
            _send(server.stdin, dict(argv=[self.argv0, *argv], cwd=str(cwd), env=dict(env),
                                     **names))
            code = _receive(server.stdout)
            assert code is not None, "the warm git-ai-apply server died"
            with open(names["stdout"], "rb") as f:
                out = f.read()
            with open(names["stderr"], "rb") as f:
                err = f.read()
        return subprocess.CompletedProcess([self.argv0, *argv], code, out, err)

    def close(self) -> None:
        if self.server is not None:
            self.server.stdin.close()
            self.server.wait()
            self.server = None


if __name__ == "__main__":
    serve()
