"""The commit message: a subject and body from the response's prose, then trailers.

BEHAVIOR.md §8.  The explanation (the prose outside the change blocks) is read into
chunks of a small subset of markdown by ``explanation.py``; the AI-* trailers are
written by ``trailers.py``.

Subject: the first sentence of the first chunk that says something.  Skipped on the way:
code, tables and quotes; generic headings and lead-ins ("Summary", "## Changes made",
"Here's the fix:", "**Root cause:**"), which are dropped from the body as well; filler
openings ("Sure!", "Certainly,"); closing pleasantries ("Let me know if ...").  Markdown
markup is removed; backticks stay around code (anything but plain words).  At most
``subject_max`` characters: a longer sentence is cut at a word boundary and ends with
``…``, and the whole sentence then opens the body.

Body: the rest.  Prose paragraphs are re-wrapped at 72 columns; code, tables and quotes
are kept as they are; list items are kept, or re-wrapped with a hanging indent when a
line of theirs is longer than 72 columns; headings lose their ``#`` (git's message
cleanup would take such lines for comments); thematic breaks are dropped (git reads a
``---`` line as the end of the message when it looks for trailers).

Everything here is linear in the explanation: lines are scanned once, and the regexes
used cannot backtrack.
"""
from __future__ import annotations

from .chatter import drop_controls, imperative, is_chat, split_model_trailers
from .explanation import MAX_CODE_SPAN, Chunk, ListItem, parse_chunks, strip_markup
from ..record import record
from .trailers import trailer_lines

SUBJECT_MAX = 72
BODY_WIDTH = 72
ELLIPSIS = "\u2026"

# Headings and lead-ins that say nothing about the change (compared after _normalize).
GENERIC = frozenset(p.strip() for p in """
summary|changes|change|plan|explanation|overview|solution|fix|fixes|the fix|the changes
changes made|change made|summary of changes|summary of the changes|changes summary
explanation of changes|explanation of the changes|overview of changes|what changed
what i changed|what was changed|what's changed|whats changed|key changes|main changes
code changes|proposed changes|the solution|proposed solution|proposed fix|the patch|patch
diff|the diff|implementation|the implementation|approach|the approach|details|description
notes|note|result|results|answer|response|update|updates|updated code|the updated code
modified code|the code|code|corrected code|root cause|the problem|problem|the issue|issue
cause|analysis|context|background|why|motivation|rationale|reasoning|how|what|testing
tests|how to test|verification|steps|next steps|files changed|modified files|changed files
file changes|edits|the edits|tl;dr|tldr|done|complete|changes i made|what i did
i've made the following changes|i made the following changes|the following changes
the following changes were made|following changes|here's what i changed
here is what i changed|here's what changed|here is what changed|here's what i did
here is what i did|commit message|suggested commit message
""".replace("\n", "|").split("|") if p.strip())

# Nouns that a "Here's the ..." preamble introduces ("Here's the fix:", "Here are the
# updated files:"): with nothing after them the line is generic.
_PREAMBLE_NOUNS = frozenset("""
fix fixes change changes patch patches diff diffs update updates edit edits code solution
implementation version file files modification modifications correction corrections
""".split())
_PREAMBLE_ADJECTIVES = frozenset("""
updated modified corrected revised complete full fixed new required necessary minimal
proposed final following relevant
""".split())
_ARTICLES = frozenset(("the", "a", "an", "my", "our", "your", "this", "these", "some"))

# Openings that carry no meaning ("Sure! ...", "Certainly, ...").
FILLERS = frozenset("""
sure|certainly|of course|okay|ok|absolutely|great|alright|all right|got it|good catch
great question|good question|no problem|happy to help|understood|yes|right|done|perfect
you're right|you are right|sure thing|great catch|thanks|thank you
excellent|excellent question|nice catch|good point|great point|ah|oh|hmm|well|i see
i understand|makes sense|that makes sense|thanks for the report|thanks for reporting this
thank you for the report|thanks for catching that|found it|i found it|nice|cool|awesome
sorry|apologies|my apologies|my bad|my mistake|oops|you're absolutely right
you are absolutely right|you're correct|you are correct|you're absolutely correct
you are absolutely correct|you're quite right|absolutely right|that's right|that's correct
fair point|great point|good point|indeed|as requested|as you requested|as you asked
""".replace("\n", "|").split("|"))

# Closing pleasantries: a paragraph that starts like this is left out of the message.
_CLOSINGS = ("let me know", "hope this helps", "i hope this helps", "feel free to",
             "happy coding", "good luck", "hope that helps", "if you have any questions",
             "if you need anything", "please let me know", "would you like me",
             "would you like", "do you want me", "shall i", "should i also", "i can also",
             "i could also", "don't hesitate", "do not hesitate", "hope it helps",
             "i hope that helps", "glad i could help", "happy to help", "cheers",
             "if you have any other questions")
# chat wherever it stands in a sentence ("If you hit a snag, let me know.")
_CHAT_ANYWHERE = ("let me know", "feel free to", "don't hesitate", "do not hesitate",
                  "happy coding", "hope this helps", "hope that helps")

# Words after which a '.' does not end a sentence.
ABBREVIATIONS = frozenset("""
e.g eg i.e ie etc vs cf approx incl esp viz al ca resp fig mr mrs ms dr
""".split())

_CLOSERS = "*_)\"'\u2019\u201d]"  # may follow a sentence's final punctuation
_SUBJECT_SCAN = 600  # characters of a sentence worth cleaning up for a subject


# --------------------------------------------------------------------------- generic lines

def _normalize(s: str) -> str:
    """Lower-case words of a short line, for comparing with the generic phrases."""
    s = strip_markup(s).lower().replace("\u2019", "'").replace("`", "")
    s = s.strip(" \t:.!?;,-\u2014\u2013")
    # leading emoji or bullets ("✅ Summary", "📝 Changes")
    while s and not s[0].isalnum():
        s = s[1:].lstrip()
    return " ".join(s.split())


def is_generic(s: str) -> bool:
    """Whether a heading or lead-in says nothing about the change ("Summary", "Here's the fix:")."""
    if len(s) > 120:
        return False
    norm = _normalize(s)
    if not norm or norm in GENERIC or norm in FILLERS:
        return True
    words = [w.strip(",;") for w in norm.split()]
    rest = _after_preamble(words)
    if rest is None:
        return False
    # "here's the fix", "here are the updated files", "here is the complete patch"
    while rest and (rest[0] in _ARTICLES or rest[0] in _PREAMBLE_ADJECTIVES):
        rest = rest[1:]
    if rest and rest[0] in _PREAMBLE_NOUNS:
        rest = rest[1:]
        return not rest or " ".join(rest) in ("to apply", "you need", "needed", "required",
                                              "for this", "for you", "below")
    return False


def _after_preamble(words: list[str]) -> list[str] | None:
    """The words after "here's" / "here is" / "below is" / ..., or None."""
    if words[:1] in (["here's"], ["heres"]):
        return words[1:]
    if words[:2] in (["here", "is"], ["here", "are"], ["below", "is"], ["below", "are"]):
        return words[2:]
    return None


def _is_closing(s: str) -> bool:
    """A sentence (or line) of closing chat: it opens with it, or a clause of it does ("If
    you hit a snag, let me know.") and it names no code.  The same words inside a clause
    are content ("Callers may feel free to pass retries=5.")."""
    said = _normalize(s)
    if said.startswith(_CLOSINGS):
        return True
    return "`" not in s and any(said.startswith(chat) or f", {chat}" in said
                                for chat in _CHAT_ANYWHERE)


def _without_closings(text: str) -> str:
    """A paragraph without the closing-chat sentences it ends with ("... Let me know if
    ...").  Only the trailing run goes: the same words inside a paragraph ("If you run
    into a 429, it waits ...") say what the change does."""
    sentences: list[str] = []
    pos = 0
    for _ in range(200):  # sentences worth looking at; the rest is kept as it is
        pos = _skip_space(text, pos)
        if pos >= len(text):
            break
        end = sentence_end(text, pos)
        sentences.append(text[pos:end])
        pos = end
    else:
        return text
    keep = len(sentences)
    while keep and _is_closing(sentences[keep - 1]):
        keep -= 1
    return text if keep == len(sentences) else " ".join(sentences[:keep])


# --------------------------------------------------------------------------- sentences

def sentence_end(text: str, start: int = 0) -> int:
    """Index just past the first sentence of ``text[start:]`` (its final punctuation and
    closing markup included), or ``len(text)``.

    A sentence ends at '.', '!' or '?' followed by whitespace or the end, outside code
    spans; a '.' does not end one after an abbreviation (e.g., i.e., etc., vs.) or when
    a lower-case word follows ("version 1.2. then" is one sentence; so is "approx. ten").
    """
    n = len(text)
    i = start
    while i < n:
        c = text[i]
        if c == "`":
            k = i
            while k < n and text[k] == "`":
                k += 1
            run = k - i
            close = text.find("`" * run, k, min(n, k + MAX_CODE_SPAN))
            i = close + run if close >= 0 else k
            continue
        if c in ".!?":
            j = i + 1
            while j < n and text[j] in ".!?":
                j += 1
            k = j
            while k < n and text[k] in _CLOSERS:
                k += 1
            if k == n:
                return n
            if text[k].isspace():
                if not (c == "." and j == i + 1 and _dot_continues(text, start, i, k)):
                    return k
            i = j
            continue
        i += 1
    return n


def _dot_continues(text: str, start: int, dot: int, after: int) -> bool:
    """Whether the '.' at ``dot`` is inside a sentence (abbreviation, lower-case next)."""
    w = dot
    while w > start and w > dot - 20 and not text[w - 1].isspace():
        w -= 1
    word = text[w:dot].lstrip("(\"'*_").lower()
    if word in ABBREVIATIONS:
        return True
    nxt = after
    n = len(text)
    while nxt < n and text[nxt].isspace():
        nxt += 1
    return nxt < n and text[nxt].islower()


def _skip_space(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i].isspace():
        i += 1
    return i


def _drop_lead_ins(text: str) -> int:
    """Offset where the meaningful part of a paragraph starts: past filler sentences
    ("Sure!"), generic first lines or sentences ("Here's the fix."), generic lead-ins
    ending in a colon ("**Summary:**", "Here's the fix:") and filler words ("Sure, ")."""
    pos = _skip_space(text, 0)
    for _ in range(12):  # each round consumes something; a bound keeps it linear
        if pos >= len(text):
            return pos
        nl = text.find("\n", pos)
        line = text[pos:] if nl < 0 else text[pos:nl]
        if is_generic(line) and (nl < 0 or _line_stands_alone(line, text[nl + 1:nl + 2])):
            pos = _skip_space(text, len(text) if nl < 0 else nl)
            continue
        end = sentence_end(text, pos)
        if end - pos <= 120 and (is_generic(text[pos:end]) or is_chat(text[pos:end])):
            pos = _skip_space(text, end)
            continue
        colon = _lead_in_colon(text, pos)
        if colon is not None:
            pos = colon
            continue
        comma = text.find(",", pos, pos + 30)
        if comma > 0 and _normalize(text[pos:comma]) in FILLERS:
            pos = _skip_space(text, comma + 1)
            continue
        return pos
    return pos


def _line_stands_alone(line: str, next_char: str) -> bool:
    """Whether a paragraph's first line is complete on its own, not the start of a
    sentence that hard wrapping cut short ("Here's the fix\nfor the crash")."""
    return line.rstrip()[-1:] in (":", ".", "!", "*", "_") or not next_char.islower()


def _lead_in_colon(text: str, pos: int) -> int | None:
    """Past a generic lead-in that ends with a colon ("**Summary:** ..."), else None."""
    colon = -1
    i = pos
    limit = min(len(text), pos + 80)
    while i < limit:
        if text[i] == "`":
            return None  # a lead-in does not hold code
        if text[i] == ":":
            colon = i
            break
        if text[i] == "\n":
            return None
        i += 1
    if colon < 0 or not (is_generic(text[pos:colon]) or is_chat(text[pos:colon])):
        return None
    j = colon + 1
    while j < len(text) and text[j] in "*_":
        j += 1
    return _skip_space(text, j)


# --------------------------------------------------------------------------- subject

def _capitalize(s: str) -> str:
    """First letter upper-cased, unless the first word is code (``parse_args``, ``x.y``)."""
    first = s.split(" ", 1)[0].replace("'", "").replace("\u2019", "")
    return s[:1].upper() + s[1:] if s[:1].islower() and first.isalpha() else s


def _clean_subject(sentence: str) -> str:
    """A sentence as subject text: markup removed, no trailing period or colon."""
    s = strip_markup(sentence[:_SUBJECT_SCAN])
    s = s.rstrip(" .:;,!")
    words = s.split(" ")
    rest = _after_preamble([w.lower().replace("\u2019", "'") for w in words])
    if rest is not None:
        # "Here's the fix for the crash" -> "Fix for the crash"
        skip = len(words) - len(rest)
        while skip < len(words) - 1 and words[skip].lower() in _ARTICLES:
            skip += 1
        if words[skip].lower().strip("`") in _PREAMBLE_NOUNS | _PREAMBLE_ADJECTIVES:
            s = _capitalize(" ".join(words[skip:]))
    return s


def fit_subject(text: str, limit: int = SUBJECT_MAX) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters at a word boundary, ending with '…' when cut.

    Returns (subject, was_cut).
    """
    text = " ".join(text.split())
    if len(text) <= limit:
        return text, False
    room = max(1, limit - 1)
    cut = text.rfind(" ", 0, room + 1)
    if cut < room // 2:
        cut = room  # one very long word: cut inside it
    head = text[:cut].rstrip(" ,;:-\u2014\u2013(")
    if head.count("`") % 2:  # do not leave a code span open
        tick = head.rfind("`")
        space = head.rfind(" ", 0, tick)
        head = head[:space].rstrip(" ,;:-\u2014\u2013(") if space > 0 else head.replace("`", "")
    return head + ELLIPSIS, True


@record
class _Subject:
    """The subject line and whether it was cut."""

    text: str
    cut: bool


def _heading_subject(chunk: Chunk, limit: int) -> tuple[_Subject | None, list[Chunk]]:
    """A heading that says something is the subject (and stays in the body when cut)."""
    if is_generic(chunk.text) or not strip_markup(chunk.text):
        return None, []  # dropped from the body as well
    subject, cut = _subject_from(chunk.text, limit)
    return _Subject(subject, cut), [chunk] if cut else []


def _prose_subject(chunk: Chunk, limit: int) -> tuple[_Subject | None, list[Chunk]]:
    """The first sentence of a paragraph after its lead-ins; the rest stays in the body
    (all of it when the subject was cut)."""
    paragraph = _without_closings(chunk.text)
    start = _drop_lead_ins(paragraph)
    text = paragraph[start:]
    if not text.strip():
        return None, []
    end = sentence_end(text)
    subject, cut = _subject_from(text[:end], limit)
    if not subject:
        return None, []
    if start:  # a lead-in was dropped: "fix: handle None" -> "Handle None"
        subject = _capitalize(subject)
    cut = cut or _drops_link_target(text[:end])
    rest = text if cut else text[end:]
    if cut and start:
        rest = _capitalize(rest)
    if not rest.strip():
        return _Subject(subject, cut), []
    return _Subject(subject, cut), [Chunk("prose", chunk.lines, chunk.blank_before, text=rest.strip())]


def _list_subject(chunk: Chunk, limit: int) -> tuple[_Subject | None, list[Chunk]]:
    """The first sentence of a list's first item; the list stays in the body without it
    (whole when the subject was cut)."""
    item = next((it for it in chunk.items if it.marker), None)
    if item is None or not strip_markup(item.text()):
        return None, [chunk]
    # an item holding a fence gives only its first line; the code stays in the body
    text = item.text().split("\n", 1)[0] if item.verbatim else item.text()
    if text[:4].lower() in ("[ ] ", "[x] "):  # a task list item
        text = text[4:]
    end = sentence_end(text)
    subject, cut = _subject_from(text[:end], limit)
    if not subject:
        return None, [chunk]
    if cut or _drops_link_target(text[:end]):
        return _Subject(subject, cut), [chunk]
    return _Subject(subject, cut), _list_without_sentence(chunk, item, text[end:].strip())


def _list_without_sentence(chunk: Chunk, item: ListItem, rest: str) -> list[Chunk]:
    """``chunk`` with ``item`` holding only ``rest`` (the words after the sentence that
    became the subject); no chunk when no item is left."""
    items = list(chunk.items)
    pos = items.index(item)
    if item.verbatim:
        # the first sentence moves to the subject; the rest of the item stays as written
        keep = ([f"{item.indent}{item.marker} {rest}"] if rest else []) + item.lines[1:]
        items[pos] = ListItem(item.indent, item.marker if rest else "", keep,
                              item.blank_before, True)
    elif rest:
        items[pos] = ListItem(item.indent, item.marker,
                              [f"{item.indent}{item.marker} {rest}"], item.blank_before)
    else:
        del items[pos]
    if not items:
        return []
    items[0] = ListItem(items[0].indent, items[0].marker, items[0].lines,
                        False, items[0].verbatim)
    return [Chunk("list", [ln for it in items for ln in it.lines], chunk.blank_before, items=items)]


_BODY_ONLY = ("code", "table", "quote", "break")  # never give the subject
_SUBJECT_OF = {"heading": _heading_subject, "prose": _prose_subject, "list": _list_subject}


def _take_subject(chunks: list[Chunk], limit: int) -> tuple[_Subject | None, list[Chunk]]:
    """The subject, and the chunks left for the body (the subject's sentence removed
    unless the subject was cut; generic chunks before the subject dropped)."""
    body: list[Chunk] = []
    for idx, chunk in enumerate(chunks):
        if chunk.kind in _BODY_ONLY:
            body.append(chunk)
            continue
        take = _SUBJECT_OF.get(chunk.kind)
        if take is None:
            continue
        subject, kept = take(chunk, limit)
        body.extend(kept)
        if subject is not None:
            return subject, body + chunks[idx + 1:]
    return None, body


def _drops_link_target(sentence: str) -> bool:
    """Whether the subject made of ``sentence`` loses a link's target (``[text](url)``):
    the sentence then also opens the body, as a cut one does, so the URL is kept."""
    return "](" in sentence and "](" not in strip_markup(sentence)


def _subject_from(sentence: str, limit: int) -> tuple[str, bool]:
    cleaned = imperative(_clean_subject(sentence))  # "I'll add X" -> "Add X"
    if not cleaned:
        return "", False
    return fit_subject(cleaned, limit)


def describe_changes(changed: list[tuple[str, str]], limit: int = SUBJECT_MAX) -> str:
    """A subject naming what changed, for a response without prose.

    ``changed`` holds (verb, path) pairs such as ("update", "src/app.py") or
    ("rename", "a -> b").  Paths of consecutive equal verbs are grouped, "a -> b" reads
    "a to b", and only the first verb is capitalised:
    ``Update src/app.py and src/b.py, add src/util.py``.  When that is longer than
    ``limit``, the first files are named and the others counted
    (``Update src/app.py, src/b.py and 5 more files``); if even one path does not fit,
    its base name is used, and as a last resort ``Change N files``.
    """
    items = [(verb.strip().lower() or "change", path.replace(" -> ", " to ")) for verb, path in changed]
    if not items:
        return "Apply AI response"
    full = _render_changes(items, len(items))
    if len(full) <= limit:
        return full
    for shown in range(len(items) - 1, 0, -1):
        text = _render_changes(items, shown)
        if len(text) <= limit:
            return text
    short = [(verb, path.rsplit("/", 1)[-1]) for verb, path in items]
    for shown in range(len(items), 0, -1):
        text = _render_changes(short, shown)
        if len(text) <= limit:
            return text
    count = len(items)
    verbs = {v for v, _ in items}
    verb = verbs.pop().capitalize() if len(verbs) == 1 else "Change"
    return fit_subject(f"{verb} {count} file{'s' if count != 1 else ''}", limit)[0]


def _render_changes(items: list[tuple[str, str]], shown: int) -> str:
    groups: list[tuple[str, list[str]]] = []
    for verb, path in items[:shown]:
        if groups and groups[-1][0] == verb:
            groups[-1][1].append(path)
        else:
            groups.append((verb, [path]))
    more = len(items) - shown
    phrases = []
    for verb, paths in groups:
        if more or len(paths) == 1:
            joined = ", ".join(paths)
        else:
            joined = ", ".join(paths[:-1]) + " and " + paths[-1]
        phrases.append(f"{verb} {joined}")
    text = ", ".join(phrases)
    if more:
        text += f" and {more} more file{'s' if more != 1 else ''}"
    return _capitalize(text)


# --------------------------------------------------------------------------- body

def _wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    import textwrap  # imported here: only needed when a commit is written

    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=first,
                         subsequent_indent=rest, break_long_words=False,
                         break_on_hyphens=False) or [first.rstrip()]


def _render_list(chunk: Chunk, width: int) -> list[str]:
    out: list[str] = []
    for item in chunk.items:
        if item.blank_before and out:
            out.append("")
        lines = [ln.rstrip() for ln in item.lines]
        if item.verbatim or all(len(ln) <= width for ln in lines):
            out.extend(lines)
            continue
        if item.marker:
            first = f"{item.indent}{item.marker} "
            out.extend(_wrap(item.text(), width, first, " " * len(first.expandtabs(4))))
        else:
            out.extend(_wrap(item.text(), width, item.indent, item.indent))
    return out


def _render_chunk(chunk: Chunk, width: int) -> list[str]:
    if chunk.kind == "prose":
        text = _without_closings(chunk.text)
        return _wrap(text, width) if text.strip() else []
    if chunk.kind == "heading":
        text = strip_markup(chunk.text)
        return [text] if text.strip() else []  # an empty heading ("# ") says nothing
    if chunk.kind == "list":
        return _render_list(chunk, width)
    if chunk.kind == "break":
        return []
    return [ln.rstrip() for ln in chunk.lines]


def render_body(chunks: list[Chunk], width: int = BODY_WIDTH) -> str:
    out: list[str] = []
    prev: Chunk | None = None
    for chunk in chunks:
        if chunk.kind == "prose" and _without_closings(chunk.text) == "":
            continue  # a paragraph of closing chat only
        lines = _render_chunk(chunk, width)
        if not lines:
            if chunk.kind == "break" and prev is not None:
                prev = Chunk("break", [])  # forces a blank line before what follows
            continue
        if out:
            separate = (chunk.blank_before or prev is None or "heading" in (chunk.kind, prev.kind)
                        or prev.kind == "break" or (chunk.kind == prev.kind == "prose"))
            if separate:
                out.append("")
        out.extend(lines)
        prev = chunk
    return "\n".join(out).strip("\n")


def _description_bullets(descriptions: list[tuple[str, str]], width: int) -> list[str]:
    out: list[str] = []
    seen = set()
    for path, text in descriptions:
        text = " ".join(text.split())
        if not text or (path, text) in seen:
            continue
        seen.add((path, text))
        out.extend(_wrap(f"{path}: {text}", width, "- ", "  "))
    return out


# --------------------------------------------------------------------------- message

def build_message(explanation: str, *, formats: list[str], response_id: str, model: str | None,
                  descriptions: list[tuple[str, str]], changed,
                  subject_max: int = SUBJECT_MAX, trailers: bool = True) -> str:
    """The commit message for one response (BEHAVIOR.md §8), ending with a newline.
    ``changed``: the (verb, path) pairs of describe_changes, or a function giving them
    (asked only when the explanation has no subject: 100,000 new files take a while)."""
    explanation = drop_controls(explanation or "")
    explanation, theirs = split_model_trailers(explanation, _is_closing)
    chunks = parse_chunks(explanation)
    subject, body_chunks = _take_subject(chunks, subject_max)
    if subject is None and callable(changed):
        changed = changed()
    subject_text = subject.text if subject else describe_changes(changed, subject_max)
    paragraphs = [subject_text]
    body = render_body(body_chunks)
    if body:
        paragraphs.append(body)
    bullets = _description_bullets(descriptions, BODY_WIDTH)
    if bullets:
        paragraphs.append("\n".join(bullets))
    # the model's own trailers (Fixes:, Co-authored-by:) and ours: one block git reads
    block = theirs + (trailer_lines(formats, response_id, model) if trailers else [])
    if block:
        paragraphs.append("\n".join(block))
    return drop_controls("\n\n".join(paragraphs)) + "\n"


def subject_of(message: str) -> str:
    """The subject as git shows it (``%s``): the first paragraph, lines joined by spaces."""
    lines = []
    for line in message.lstrip("\n").split("\n"):
        if not line.strip():
            break
        lines.append(line.strip())
    return " ".join(lines)
