"""`git ai-apply install-hooks`: install the hook kit (hook_kit.py)."""
from ..hook_kit import install_hooks_cmd as command  # noqa: F401
