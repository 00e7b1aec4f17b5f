"""The trailers of commit messages (BEHAVIOR.md §8): the AI-* lines this tool writes, and
the one reader of a message's trailer block that everything else asks (attempts, undo,
the repeated-response search, ``--signoff``, the kit's commit-msg check).

Read with git's rules (``git interpret-trailers``, trailer.c): the block is the message's
last paragraph, never its first (the subject); a trailer is ``Key: value`` with a key of
letters, digits and '-' (blanks allowed before the colon), and a line starting with
blanks continues the trailer above it.  The paragraph is a trailer block when every line
is a trailer, a continuation or a ``(cherry picked from commit ...)`` note, or, as git
allows, when at least a quarter of its lines are trailers and one of them is one git
writes itself (``Signed-off-by:``, the cherry-pick note).  Keys compare without case."""
from __future__ import annotations

AI_FORMAT = "AI-Format"
AI_RESPONSE = "AI-Response"
AI_MODEL = "AI-Model"
# the path options (-p, --directory, --include, --exclude) a response was applied with:
# part of what "the same response, already applied" means
AI_PATHS = "AI-Paths"

# the lines git itself writes into a trailer block (trailer.c's git_generated_prefixes)
_GIT_GENERATED = ("Signed-off-by: ", "(cherry picked from commit ")
SCISSORS = " ------------------------ >8 ------------------------"


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


def _key_of(line: str) -> tuple[str, str] | None:
    """(key, value) when ``line`` is a ``Key: value`` trailer line, else None."""
    key, sep, value = line.partition(":")
    key = key.rstrip(" \t")
    if not sep or not key or not all(c.isalnum() or c == "-" for c in key) or not key.isascii():
        return None
    return key, value.strip()


def _message_lines(message: str, comment_char: str | None) -> list[str]:
    lines = message.replace("\r\n", "\n").split("\n")
    if comment_char:
        # what `git commit` will strip: comment lines, and all below the scissors line
        cut = [i for i, line in enumerate(lines) if line == comment_char + SCISSORS]
        if cut:
            lines = lines[:cut[0]]
        lines = [line for line in lines if not line.startswith(comment_char)]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def _block_start(lines: list[str]) -> int | None:
    """Index of the last paragraph's first line, or None when it is the first paragraph
    (the subject, which is never a trailer block; as in git, leading blank lines are an
    empty subject)."""
    start = len(lines)
    while start > 0 and lines[start - 1].strip():
        start -= 1
    if start == 0:
        return None
    return start


def read_trailers(message: str, comment_char: str | None = None) -> list[tuple[str, str]]:
    """The trailers of ``message`` in order, as (key as written, value with continuation
    lines joined by a space); ``[]`` when its last paragraph is no trailer block.
    ``comment_char``: read the message as `git commit` will keep it (a commit-msg hook's
    file still holds git's ``#`` comments)."""
    lines = _message_lines(message, comment_char)
    start = _block_start(lines)
    if start is None:
        return []
    found: list[list[str]] = []
    trailers = recognised = others = 0
    continuing = False  # the line above is a trailer (or continues one)
    for line in lines[start:]:
        if line[:1] in (" ", "\t") and continuing:
            found[-1][1] = (found[-1][1] + " " + line.strip()).strip()
            continue
        pair = _key_of(line)
        if line.startswith(_GIT_GENERATED):
            recognised += 1
        if pair is None:
            if line.startswith(_GIT_GENERATED[1]):
                trailers += 1
            else:
                others += 1
            continuing = False
            continue
        trailers += 1
        found.append(list(pair))
        continuing = True
    if others and not (recognised and trailers * 3 >= others):
        return []
    return [(k, v) for k, v in found]


def parse_trailers(message: str) -> dict[str, str]:
    """The trailers of a commit message by key as written; when a key repeats, its first
    value.  ``{}`` when there are none."""
    out: dict[str, str] = {}
    for key, value in read_trailers(message):
        out.setdefault(key, value)
    return out


def trailer_values(message: str, key: str, comment_char: str | None = None) -> list[str]:
    """Every value of trailer ``key`` (any case), in order."""
    key = key.lower()
    return [v for k, v in read_trailers(message, comment_char) if k.lower() == key]


def ends_with_trailers(message: str) -> bool:
    """Whether the message's last paragraph is a trailer block."""
    return bool(read_trailers(message))


def add_trailers(message: str, lines: list[str]) -> str:
    """``message`` with trailer ``lines`` added: into its trailer block when it ends with
    one (as `git commit --signoff` and `git interpret-trailers` do), else as a new last
    paragraph.  Ends with a newline."""
    body = message.rstrip("\n")
    if not lines:
        return body + "\n"
    if not body.strip():
        return "\n".join(lines) + "\n"
    joint = "\n" if ends_with_trailers(body) else "\n\n"
    return body + joint + "\n".join(lines) + "\n"
