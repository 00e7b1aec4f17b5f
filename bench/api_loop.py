"""The library loop of the ``loop`` benchmark: apply each response file given, in order,
through one warm ``git_aiapply.Session`` of the current folder's repository.

``--cold`` turns the warm index off (every request reads the index file again, as a new
process would): the difference is what keeping the index warm gains (bench/results.md)."""
import sys
import time
from pathlib import Path

import git_aiapply

args = sys.argv[1:]
cold = "--cold" in args
session = git_aiapply.Session(".", warm=not cold)
t0 = time.perf_counter()
files = [a for a in args if a != "--cold"]
for name in files:
    result = session.apply(Path(name))
    if result.status != "applied":
        sys.exit(f"{name}: {result.status}: {result.error_text}")
print(f"{(time.perf_counter() - t0) / max(1, len(files)) * 1000:.1f} ms per response "
      f"({'cold' if cold else 'warm'} index)", file=sys.stderr)
