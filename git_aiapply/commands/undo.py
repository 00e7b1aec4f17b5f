"""`git ai-apply undo`: take back the last commit this tool made (undo_last.py decides what
may be taken back)."""
from ..undo_last import undo_cmd as command  # noqa: F401
