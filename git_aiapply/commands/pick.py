"""`git ai-apply pick BRANCH`: bring one attempt onto the current branch (attempts.py)."""
from ..attempts import pick_cmd as command  # noqa: F401
