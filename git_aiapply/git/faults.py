"""Fault injection for the crash-safety tests (tests/test_crash_safety.py).

GIT_AI_APPLY_FAULT=ACTION:STEP[:N] makes the N-th (default 1st) pass through STEP either
raise an OSError (ACTION "fail") or SIGKILL this process (ACTION "kill").  Read once at
import; unset, each step costs one global lookup."""
from __future__ import annotations

import errno
import os

_FAULT = os.environ.get("GIT_AI_APPLY_FAULT") or None
_FAULT_SEEN: dict[str, int] = {}


def fault(step: str) -> None:
    if _FAULT is None:
        return
    action, _, rest = _FAULT.partition(":")
    want, _, nth = rest.partition(":")
    if want != step:
        return
    _FAULT_SEEN[step] = _FAULT_SEEN.get(step, 0) + 1
    if _FAULT_SEEN[step] != (int(nth) if nth.isdigit() else 1):
        return
    if action == "kill":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
    raise OSError(errno.EIO, f"injected fault at {step}")


def remove_file(path: str) -> None:
    """Remove ``path`` if it exists."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
