"""`git ai-apply prompt FORMAT`: instructions a model needs to answer in a format, in our
own words, for a system prompt: the part every format shares, then the format's own
(``prompts`` of each format object in formats/)."""
from __future__ import annotations

_COMMON = """\
Explain the change first, in plain prose: the first sentence becomes the commit subject,
so make it say what the change does (under 72 characters if you can). Then give the edits.
Paths are relative to the repository root. Every edit must match the current file
exactly; include enough unchanged lines around each edit that it matches only one place.
"""



def _prompts() -> dict[str, str]:
    """--format name -> its instructions, from the format registry (each format module
    holds its own)."""
    from ..formats import FORMATS

    return {name: text for f in FORMATS for name, text in f.prompts.items()}


PROMPTS = _prompts()


def prompt_for(fmt: str) -> str:
    if fmt not in PROMPTS:
        raise KeyError(f"unknown format {fmt!r}; known formats: {', '.join(PROMPTS)}")
    return _COMMON + "\n" + PROMPTS[fmt]
