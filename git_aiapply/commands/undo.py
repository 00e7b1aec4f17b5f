"""`git ai-apply undo`: take back the last commit this tool made (undo.py decides what
may be taken back)."""
from ..undo import undo_cmd as command  # noqa: F401
