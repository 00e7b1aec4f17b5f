"""The AI-* trailers of the commits this tool makes (BEHAVIOR.md §8): writing them, and
the one reader of a message's trailer paragraph that everything else asks."""
from __future__ import annotations

AI_FORMAT = "AI-Format"
AI_RESPONSE = "AI-Response"
AI_MODEL = "AI-Model"


def trailer_lines(formats: list[str], response_id: str, model: str | None) -> list[str]:
    """The AI-* trailer lines of one response's commit (model names on one line)."""
    lines = []
    if formats:
        lines.append(f"{AI_FORMAT}: " + ", ".join(formats))
    if response_id:
        lines.append(f"{AI_RESPONSE}: {response_id}")
    if model and model.strip():
        lines.append(f"{AI_MODEL}: " + " ".join(model.split()))
    return lines


def parse_trailers(message: str) -> dict[str, str]:
    """The trailers of a commit message: its last paragraph, when every line of it is
    ``Key: value`` (a key of letters, digits and '-') or a continuation line starting
    with whitespace.  The first paragraph (the subject) never holds trailers.  Keys are
    as written; when one repeats, the first value is kept.  ``{}`` when there are none.
    """
    lines = message.replace("\r\n", "\n").rstrip().split("\n")
    start = len(lines)
    while start > 0 and lines[start - 1].strip():
        start -= 1
    if start == 0:
        return {}  # only one paragraph: the subject
    found: dict[str, str] = {}
    last_key = None  # the trailer a continuation line extends (None: a repeated key)
    seen_trailer = False
    for line in lines[start:]:
        if line[:1] in (" ", "\t") and seen_trailer:
            if last_key is not None:
                found[last_key] = (found[last_key] + " " + line.strip()).strip()
            continue
        key, sep, value = line.partition(":")
        key = key.rstrip()
        if not sep or not key or not all(c.isalnum() or c == "-" for c in key):
            if line.startswith("(cherry picked from commit "):
                continue
            return {}
        seen_trailer = True
        if key in found:
            last_key = None
            continue
        found[key] = value.strip()
        last_key = key
    return found
