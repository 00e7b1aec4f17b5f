"""Regular expressions compiled on first use.  Modules of the core hold many patterns that
a plain run never needs (placeholder wordings, prose path rules, language tables), and
compiling them all at import is a measurable part of the command's start-up."""
from __future__ import annotations

import re


class LazyPattern:
    """``re.compile(pattern, flags)`` when first used; then the compiled pattern's
    methods and attributes (``search``, ``match``, ``sub``, ``pattern``...)."""

    __slots__ = ("_pattern", "_flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0):
        self._pattern, self._flags, self._compiled = pattern, flags, None

    def __getattr__(self, name: str):
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return getattr(compiled, name)


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern:
    """A pattern compiled on first use (typed as the compiled pattern it stands for)."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]
