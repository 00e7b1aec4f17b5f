"""`git ai-apply hook ...`: the hook kit's checks, run by its hooks (hookkit.py)."""
from ..hookkit import hook_cmd as command  # noqa: F401
