"""The library loop of the ``loop`` benchmark: apply each response file given, in order,
through one warm ``git_aiapply.Session`` of the current folder's repository."""
import sys
from pathlib import Path

import git_aiapply

session = git_aiapply.Session(".")
for name in sys.argv[1:]:
    result = session.apply(Path(name))
    if result.status != "applied":
        sys.exit(f"{name}: {result.status}: {result.error_text}")
