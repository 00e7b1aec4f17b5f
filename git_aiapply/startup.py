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

import os
import sys


def import_pygit2(read_index_early: bool = False) -> None:
    """``read_index_early``: the run will commit to the worktree, so libgit2 is loaded
    first and the index read while the rest is imported (git/early_index.py)."""
    if "pygit2" in sys.modules:
        return
    saved = os.environ.get("SSL_CERT_FILE")
    os.environ["SSL_CERT_FILE"] = os.devnull  # not a regular file: ssl reports no CA file
    try:
        if read_index_early:  # libgit2's start-up reads the CA paths too
            from .git import early_index

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
