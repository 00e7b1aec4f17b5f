"""`git ai-apply recover`: repair what an interrupted run left behind (recover.py decides
what is the tool's own)."""
from ..recover import recover_cmd as command  # noqa: F401
