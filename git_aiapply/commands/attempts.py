"""`git ai-apply attempts`: list (and prune) the branch-per-attempt results (attempts.py
decides which branches are the tool's own)."""
from ..attempts import attempts_cmd as command  # noqa: F401
