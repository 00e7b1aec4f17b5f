"""`git ai-apply serve`: JSON lines in, one --json object per line out (serve.py holds the
protocol; docs/API.md)."""
from ..serve import serve_cmd as command  # noqa: F401
