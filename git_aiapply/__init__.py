"""git ai-apply: turn a language model's response into one git commit."""

__version__ = "0.1.0"
