"""`git ai-apply hook ...`: the hook kit's checks, run by its hooks (hook_kit.py)."""
from ..hook_kit import hook_cmd as command  # noqa: F401
