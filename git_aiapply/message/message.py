"""The commit message: a subject and body from the response's prose, then trailers.

BEHAVIOR.md §8 ("Message: a git user keeps it as written", round 4).  The explanation
(the prose outside the change blocks) is read into chunks of a small subset of markdown
by ``explanation.py``; the model's thinking aloud (exploration, retracted attempts,
line-by-line narration, paths outside the repository) is taken out by ``thinking.py``;
the AI-* trailers are written by ``trailers.py``.

Subject: the first sentence that says what changed (a heading counts).  Skipped on the
way: code, tables and quotes; generic headings and lead-ins ("Summary", "## Changes
made", "Here's the fix:", "**Root cause:**"), which are dropped from the body as well;
filler openings ("Sure!", "Certainly,"); closing pleasantries ("Let me know if ...");
chat, and the model's narration of its own work (``narration.py``: "Now I understand
the issue", "Looking at ...", "The issue is ..."), which stays in the body where it says
why.  Narration that is mechanical to turn into a description is turned ("Here's the
patch that fixes X" -> "Fix X", "I'll add X" -> "Add X").  Markdown markup is removed;
backticks stay around code (anything but plain words).  At most ``subject_max``
characters, never cut: a longer sentence gives its main clause when one fits
(``main_clause``: "Fix X, so that Y" -> "Fix X"), else the change names the subject
(``changes.py``: ``Change load and save (app.py)``); the whole sentence then opens the
body.

Body: the rest, at most BODY_LINES lines, cut where a paragraph, a sentence or a list
item ends.  Prose paragraphs are re-wrapped at 72 columns; code, tables and quotes are
kept as they are; list items are kept, or re-wrapped with a hanging indent when a line
of theirs is longer than 72 columns; headings lose their ``#`` (git's message cleanup
would take such lines for comments); thematic breaks are dropped (git reads a ``---``
line as the end of the message when it looks for trailers).

Everything here is linear in the explanation: lines are scanned once, and the regexes
used cannot backtrack.
"""
from __future__ import annotations

from .changes import subject_from_change
from .chatter import drop_controls, imperative, is_chat, split_model_trailers
from .explanation import (Chunk, ListItem, parse_chunks, sentence_end, sentences, skip_space,
                          strip_markup)
from .narration import CHANGE_VERBS, describe, is_narration, says_nothing
from ..record import record
from .thinking import RepoPaths, without_thinking
from .trailers import trailer_lines

SUBJECT_MAX = 72
BODY_WIDTH = 72
BODY_LINES = 15  # a body a git user reads: the rest of a long explanation stays out

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
        pos = skip_space(text, pos)
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

def _drop_lead_ins(text: str) -> int:
    """Offset where the meaningful part of a paragraph starts: past filler sentences
    ("Sure!"), generic first lines or sentences ("Here's the fix."), generic lead-ins
    ending in a colon ("**Summary:**", "Here's the fix:") and filler words ("Sure, ")."""
    pos = skip_space(text, 0)
    for _ in range(12):  # each round consumes something; a bound keeps it linear
        if pos >= len(text):
            return pos
        nl = text.find("\n", pos)
        line = text[pos:] if nl < 0 else text[pos:nl]
        if is_generic(line) and (nl < 0 or _line_stands_alone(line, text[nl + 1:nl + 2])):
            pos = skip_space(text, len(text) if nl < 0 else nl)
            continue
        end = sentence_end(text, pos)
        if end - pos <= 120 and (is_generic(text[pos:end]) or is_chat(text[pos:end])):
            pos = skip_space(text, end)
            continue
        colon = _lead_in_colon(text, pos)
        if colon is not None:
            pos = colon
            continue
        comma = text.find(",", pos, pos + 30)
        if comma > 0 and _normalize(text[pos:comma]) in FILLERS:
            pos = skip_space(text, comma + 1)
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
    lead = text[pos:colon]
    if colon < 0 or not (is_generic(lead) or is_chat(lead) or is_narration(lead)):
        return None  # ("Looking at the code, I need to:" introduces what follows)
    j = colon + 1
    while j < len(text) and text[j] in "*_":
        j += 1
    return skip_space(text, j)


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
        # "Here's the fix for the crash" -> "Fix the crash"
        skip = len(words) - len(rest)
        while skip < len(words) - 1 and words[skip].lower() in _ARTICLES:
            skip += 1
        if words[skip].lower().strip("`") in _PREAMBLE_NOUNS | _PREAMBLE_ADJECTIVES:
            s = _capitalize(" ".join(_noun_as_verb(words[skip:])))
    return s


# a preamble's noun that is a verb too: "the fix for X" -> "Fix X"
_NOUN_VERBS = frozenset(("fix", "change", "update", "patch"))


def _noun_as_verb(words: list[str]) -> list[str]:
    """"fix for X" / "change to X" -> "fix X" / "change X"; "changes to make X" -> "make
    X"; anything else as it is."""
    if len(words) < 3 or words[1].lower() not in ("for", "to", "of"):
        return words
    if words[1].lower() == "to" and words[2].lower() in CHANGE_VERBS:
        return words[2:]
    return [words[0], *words[2:]] if words[0].lower() in _NOUN_VERBS else words


def fit_subject(text: str, limit: int = SUBJECT_MAX) -> tuple[str, bool]:
    """``text`` as a subject of at most ``limit`` characters: whole, or its main clause
    (``main_clause``); never cut inside it.  Returns (subject, shortened), or ("", True)
    when no complete phrase of it fits."""
    text = " ".join(text.split()).rstrip(" .:;,!\u2026")
    if len(text) <= limit:
        return text, False
    return main_clause(text, limit), True


# Where a sentence's main clause may end, when the whole does not fit: punctuation first
# (a semicolon, a dash between spaces, a parenthesis), then the words that open a clause
# of reason, purpose or manner, as data ("Fix X, so that Y" -> "Fix X").  English, then
# the same words in German, French, Spanish and Portuguese.
CLAUSE_BREAKS = ("; ", " \u2014 ", " \u2013 ", " - ", " (", ": ") + tuple(
    f"{comma}{word} " for word in """
so that|so|which|because|since|as|but|and|while|where|when|instead of|by|to avoid|to prevent
to ensure|in order to|rather than|without|weil|damit|sodass|und|aber|parce que|afin de|pour
et|mais|porque|para que|para|y|pero|e|mas""".replace("\n", "|").split("|")
    for comma in (", ", " "))
_MIN_CLAUSE_WORDS = 2


def main_clause(text: str, limit: int) -> str:
    """The longest opening of ``text`` that ends where a clause does (``CLAUSE_BREAKS``,
    outside code spans) and fits in ``limit``, or "" when none of two words or more does."""
    best = ""
    lowered = text.lower()
    for brk in CLAUSE_BREAKS:
        at = lowered.find(brk, 0, limit + 1)
        while 0 < at <= limit:
            head = text[:at].rstrip(" ,;:.!\u2026\u2014\u2013-")
            if (len(head) > len(best) and head.count("`") % 2 == 0
                    and len(head.split()) >= _MIN_CLAUSE_WORDS and head.count("(") == head.count(")")):
                best = head
            at = lowered.find(brk, at + 1, limit + 1)
    return best


# what _subject_from says of a sentence that gives no subject
_NARRATION = "narration"  # the model telling its work: look further; it may say why
_CHAT = "chat"  # about the conversation or the work itself: look further, it says nothing
_TOO_LONG = "too long"  # it says what changed, in more than the limit: the change names it


def _subject_from(sentence: str, limit: int):
    """(subject, shortened) for a sentence that says what changed; else _NARRATION, or
    _TOO_LONG, or None when nothing is left of it."""
    cleaned = _clean_subject(sentence).rstrip(" .:;,!\u2026")
    if not any(c.isalnum() for c in cleaned):
        return None  # nothing but marks: no subject
    described = describe(cleaned)  # "Here's the patch that fixes X" -> "Fix X"
    if described is None:
        described = imperative(cleaned)  # "I'll add X" -> "Add X"
        if described == cleaned and is_chat(cleaned):
            return _CHAT
        if described == cleaned and is_narration(cleaned):
            return _NARRATION
    if says_nothing(described):  # "Let me create the fix." -> "Create the fix"
        return _CHAT
    subject, shortened = fit_subject(described, limit)
    return (subject, shortened) if subject else _TOO_LONG


@record
class _Found:
    """What the prose gives for the subject: its text ("" when the sentence that says
    what changed is too long: the change then names it), and the chunks that open the
    body (the whole sentence, when the subject is shorter than it)."""

    text: str
    lead: list[Chunk]


def _heading_subject(chunk: Chunk, limit: int) -> tuple[_Found | None, list[Chunk]]:
    """A heading that says something is the subject (and stays in the body when cut)."""
    if is_generic(chunk.text) or not strip_markup(chunk.text):
        return None, []  # dropped from the body as well
    got = _subject_from(chunk.text, limit)
    if got in (None, _NARRATION, _CHAT):
        return None, [chunk]
    # in the body the heading's sentence is a paragraph: it opens it
    lead = [Chunk("prose", chunk.lines, chunk.blank_before, text=strip_markup(chunk.text))]
    if got == _TOO_LONG:
        return _Found("", lead), []
    return _Found(got[0], lead if got[1] else []), []


def _prose_subject(chunk: Chunk, limit: int) -> tuple[_Found | None, list[Chunk]]:
    """The first sentence of a paragraph, past its lead-ins and its narration, that says
    what changed; the rest stays in the body (all of it when the subject is shorter than
    the sentence)."""
    paragraph = _without_closings(chunk.text)
    start = _drop_lead_ins(paragraph)
    text = paragraph[start:]
    if not text.strip():
        return None, []
    parts = sentences(text)
    told: list[str] = []  # narration before the subject: it says why, so it stays
    for k, sentence in enumerate(parts):
        got = _subject_from(sentence, limit)
        if got in (None, _NARRATION, _CHAT):
            if got == _NARRATION:
                told.append(sentence)
            continue
        if got == _TOO_LONG:
            return _Found("", _prose(chunk, parts[k:], start)), _prose(chunk, told, start)
        subject, shortened = got
        if start or k:  # a lead-in was dropped: "fix: handle None" -> "Handle None"
            subject = _capitalize(subject)
        if shortened or _drops_link_target(sentence):
            return _Found(subject, _prose(chunk, parts[k:], start)), _prose(chunk, told, start)
        return _Found(subject, []), _prose(chunk, told + parts[k + 1:], start)
    return None, _prose(chunk, told, start)


def _prose(chunk: Chunk, parts: list[str], capitalize: bool) -> list[Chunk]:
    """The sentences ``parts`` of ``chunk`` as a paragraph of the body (none when empty)."""
    text = " ".join(p.strip() for p in parts).strip()
    if not text:
        return []
    return [Chunk("prose", chunk.lines, chunk.blank_before,
                  text=_capitalize(text) if capitalize else text)]


def _list_subject(chunk: Chunk, limit: int) -> tuple[_Found | None, list[Chunk]]:
    """The first sentence of a list's first item; the list stays in the body without it
    (whole when the subject is shorter than the sentence)."""
    item = next((it for it in chunk.items if it.marker), None)
    if item is None or not strip_markup(item.text()):
        return None, [chunk]
    # an item holding a fence gives only its first line; the code stays in the body
    text = item.text().split("\n", 1)[0] if item.verbatim else item.text()
    if text[:4].lower() in ("[ ] ", "[x] "):  # a task list item
        text = text[4:]
    end = sentence_end(text)
    got = _subject_from(text[:end], limit)
    if got in (None, _NARRATION, _CHAT):
        return None, [chunk]
    if got == _TOO_LONG:
        return _Found("", [chunk]), []
    subject, shortened = got
    if shortened or _drops_link_target(text[:end]):
        return _Found(subject, [chunk]), []
    return _Found(subject, []), _list_without_sentence(chunk, item, text[end:].strip())


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


def _take_subject(chunks: list[Chunk], limit: int) -> tuple[str | None, list[Chunk]]:
    """The subject ("" when the change must name it, None when the prose says nothing),
    and the chunks of the body: the sentence that says what changed first when the
    subject is not it whole, then the rest in order (generic chunks before the subject
    dropped)."""
    body: list[Chunk] = []
    for idx, chunk in enumerate(chunks):
        if chunk.kind in _BODY_ONLY:
            body.append(chunk)
            continue
        take = _SUBJECT_OF.get(chunk.kind)
        if take is None:
            continue
        found, kept = take(chunk, limit)
        body.extend(kept)
        if found is not None:
            return found.text, found.lead + body + chunks[idx + 1:]
    return None, body


def _drops_link_target(sentence: str) -> bool:
    """Whether the subject made of ``sentence`` loses a link's target (``[text](url)``):
    the sentence then also opens the body, as a cut one does, so the URL is kept."""
    return "](" in sentence and "](" not in strip_markup(sentence)


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


def render_body(chunks: list[Chunk], width: int = BODY_WIDTH, max_lines: int | None = None) -> str:
    """The body's lines; at most ``max_lines`` of them, cut where a paragraph, a sentence
    or a list item ends, never inside one (nor inside code), and never after a heading."""
    blocks: list[tuple[str, list[str]]] = []  # (kind, lines with the blank line before)
    prev: Chunk | None = None
    room = max_lines
    for chunk in chunks:
        if chunk.kind == "prose" and (_without_closings(chunk.text) == "" or is_generic(chunk.text)):
            continue  # a paragraph of closing chat only, or a lead-in ("Here's the fix:")
        lines = _render_chunk(chunk, width)
        if not lines:
            if chunk.kind == "break" and prev is not None:
                prev = Chunk("break", [])  # forces a blank line before what follows
            continue
        gap = [""] if blocks and _separate(chunk, prev) else []
        if room is not None and len(gap) + len(lines) > room:
            blocks.append((chunk.kind, _part_that_fits(chunk, width, room - len(gap), gap)))
            break
        blocks.append((chunk.kind, gap + lines))
        if room is not None:
            room -= len(gap) + len(lines)
        prev = chunk
    while blocks and (blocks[-1][0] == "heading" or not blocks[-1][1]):
        blocks.pop()  # a heading with nothing after it
    return "\n".join(line for _kind, lines in blocks for line in lines).strip("\n")


def _separate(chunk: Chunk, prev: Chunk | None) -> bool:
    """Whether a blank line stands between ``prev`` and ``chunk`` in the body."""
    return (chunk.blank_before or prev is None or "heading" in (chunk.kind, prev.kind)
            or prev.kind == "break" or (chunk.kind == prev.kind == "prose"))


def _part_that_fits(chunk: Chunk, width: int, room: int, gap: list[str]) -> list[str]:
    """The opening sentences of a paragraph, or the opening items of a list, that fit in
    ``room`` lines (with ``gap`` before them); nothing of anything else."""
    best: list[str] = []
    if chunk.kind == "prose":
        parts = sentences(_without_closings(chunk.text))
        for k in range(1, len(parts)):
            lines = _wrap(" ".join(parts[:k]), width)
            if len(lines) > room:
                break
            best = lines
    elif chunk.kind == "list":
        for k in range(1, len(chunk.items)):
            part = Chunk("list", [], items=chunk.items[:k])
            lines = _render_list(part, width)
            if len(lines) > room:
                break
            best = lines
    return gap + best if best else []


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
                  descriptions: list[tuple[str, str]], changed, names_of=None,
                  subject_max: int = SUBJECT_MAX, trailers: bool = True) -> str:
    """The commit message for one response (BEHAVIOR.md §8), ending with a newline.
    ``changed``: the (verb, path) pairs of ``changes.describe_changes``, or a function giving them
    (asked only when the prose names no subject or an absolute path: 100,000 new files
    take a while); ``names_of(path)``: the definitions the change touches in an updated
    file, asked only when the subject is made from the change."""
    explanation = drop_controls(explanation or "")
    explanation, theirs = split_model_trailers(explanation, _is_closing)
    repo = RepoPaths(changed)
    chunks = without_thinking(parse_chunks(explanation), repo)
    subject, body_chunks = _take_subject(chunks, subject_max)
    if not subject:
        subject = subject_from_change(repo.changed(), names_of, subject_max)
    paragraphs = [subject]
    bullets = _description_bullets(descriptions, BODY_WIDTH)[:BODY_LINES]
    room = BODY_LINES - (len(bullets) + 1 if bullets else 0)
    body = render_body(body_chunks, max_lines=room) if room > 0 else ""
    if body:
        paragraphs.append(body)
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
