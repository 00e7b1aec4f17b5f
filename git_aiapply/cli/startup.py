"""The command's start-up: import pygit2 without loading the system's CA bundle.

``import pygit2`` hands libgit2 the TLS certificate locations that Python's ssl module
reports; given a CA *file*, OpenSSL parses every certificate in it at once: about 20 ms
of a 70 ms import on a quiet machine, 45 ms of 150 ms under load (bench/results.md).
The command never talks to a remote, so for the import only the CA file is hidden
(``SSL_CERT_FILE`` naming no regular file; libgit2 keeps the CA folder, which OpenSSL
reads lazily) and the environment is put back at once: hooks and every other child
process see it unchanged.  A program importing the library does not go through here: it
may use pygit2 for TLS.
"""
from __future__ import annotations

import io
import os
import sys


class _PipeTolerantFile(io.RawIOBase):
    """A standard stream's file descriptor whose reader may go away: once a write finds
    the pipe closed (EPIPE), the rest of the output is dropped instead of raising.  Any
    other write error of the standard output (a full disk, an I/O error) is git's
    ``fatal:``, exit 128: the first one raises FatalError ``cannot write the standard
    output: REASON`` (wherever the write was: a print in a command, the flush at its end),
    the rest of the output is dropped, so that no later flush says it again.  Standard
    error's write errors drop its output, as git ignores them: there is nowhere to say
    them."""

    def __init__(self, fd: int, fatal: bool = True):
        super().__init__()
        self.fd = fd
        self.fatal = fatal
        self.broken = False

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fd

    def isatty(self) -> bool:
        return os.isatty(self.fd)

    def write(self, data) -> int:
        if self.broken:
            return len(data)
        try:
            return os.write(self.fd, data)
        except BrokenPipeError:
            self.broken = True
            return len(data)
        except OSError as e:
            from ..errors import ErrorKind, FatalError

            self.broken = True
            if not self.fatal:
                return len(data)
            raise FatalError(f"cannot write the standard output: {e.strerror or e}",
                             kind=ErrorKind.IO) from None


def tolerate_closed_pipes() -> None:
    """Standard output and error that never fail for a reader that went away (``git
    ai-apply undo | head -0``): a command then exits with the status of what it did,
    never "failed" (click exits 1 on EPIPE) or "nothing changed" after a change.  ``serve``
    and ``mcp`` keep the plain streams: a closed pipe there ends the loop."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        try:
            fd = stream.fileno()
        except (AttributeError, OSError, ValueError):
            continue  # closed at start, or not a file: left as it is
        try:
            stream.flush()
        except OSError:
            pass
        wrapped = io.TextIOWrapper(io.BufferedWriter(_PipeTolerantFile(fd, name == "stdout")),
                                   encoding=stream.encoding, errors=stream.errors,
                                   line_buffering=stream.line_buffering,
                                   write_through=getattr(stream, "write_through", False))
        setattr(sys, name, wrapped)


def import_pygit2(read_index_early: bool = False) -> None:
    """``read_index_early``: the run will commit to the worktree, so libgit2 is loaded
    first and the index read while the rest is imported (git/early_index.py)."""
    if "pygit2" in sys.modules:
        return
    saved = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = os.devnull  # not a regular file: ssl reports no CA file
    try:
        if read_index_early:  # libgit2's start-up reads the CA paths too
            from ..git import early_index

            early_index.start()
        import pygit2  # noqa: F401
        if read_index_early:
            early_index.adopt_into_package()
    except ImportError:
        pass  # reported where it is used, as before
    finally:
        if saved is None:
            del os.environ["SSL_CERT_FILE"]
        else:
            os.environ["SSL_CERT_FILE"] = saved
