"""`git ai-apply install-hooks`: install the hook kit (hookkit.py)."""
from ..hookkit import install_hooks_cmd as command  # noqa: F401
