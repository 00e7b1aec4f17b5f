"""The model's chat around a change, kept out of the commit message (BEHAVIOR.md §8 "Chat
is not message"; message.py asks these):

- ``imperative``: a subject the model wrote as intent or report, put in the imperative
  where that is mechanical: "I'll add X" / "Let me add X" -> "Add X" (the word after the
  intent is the verb's base form already); "I've updated X" / "I added X" -> "Update X",
  "Add X", only for the past tenses in ``PAST`` (a table, not a rule: "I've taken care of
  X" stays as written);
- ``is_chat``: a sentence about the conversation, not the change ("Let me take a look.",
  "I can see the issue.");
- ``split_model_trailers``: ``Fixes: #1`` / ``Co-authored-by: ...`` lines that end the
  explanation, for the message's trailer block;
- ``drop_controls``: NUL and every other control character but the line feed and the tab,
  and terminal escape sequences whole.
"""
from __future__ import annotations

from ..lazy_re import lazy_compile

from .explanation import strip_markup

# What may stand before a base-form verb: "I'll add", "Let me add", "I'm going to add".
_INTENT = (("i'll",), ("i", "will"), ("let", "me"), ("let's",), ("let", "us"),
           ("i'm", "going", "to"), ("i", "am", "going", "to"), ("we'll",), ("we", "will"),
           ("i'd", "be", "happy", "to"), ("i'd", "be", "glad", "to"), ("i'm", "happy", "to"),
           ("i", "need", "to"), ("we", "need", "to"), ("i'd", "like", "to"),
           ("i'll", "go", "ahead", "and"), ("let", "me", "go", "ahead", "and"))
# What may stand before a past tense: "I've added", "I have added", "I added".
_REPORT = (("i've",), ("i", "have"), ("i",), ("we've",), ("we", "have"), ("we",))
# Words between those and the verb that the imperative drops ("I'll also add").
_ADVERBS = frozenset("also now just first then quickly simply additionally further".split())
# Words that open a sentence and the imperative drops ("Now I'll add").
_OPENERS = frozenset("now next first then so finally".split())
# Verbs of the conversation, not of the change: "Let me explain", "I'll take a look".
_CHAT_VERBS = frozenset("""
know explain help look take check see think walk show start begin review examine analyze
analyse investigate read understand try go break outline summarize summarise describe
clarify provide share give answer assist dig inspect trace answer respond note mention
""".split())
# Words after an intent that are not the change's verb ("I'll need to", "I'll be adding"):
# the sentence stays as written.
_NOT_BASE = frozenset("be need have want probably should must".split())
# Sentences that are the conversation whatever follows ("I can see the issue here.").
_CHAT_STARTS = ("i can see", "i see the", "i see what", "i see why", "i understand the",
                "now i understand", "i now understand", "now i see", "now i can see",
                "ok, now i understand", "okay, now i understand", "now i have all",
                "i now have all", "i have all the information", "now i have enough",
                "now i have a clear", "now i have a good",
                "i found the issue", "i found the problem", "i found the bug",
                "i've found the issue", "i've found the problem", "i've found the bug",
                "i've reviewed", "i have reviewed", "i've looked", "i have looked",
                "i looked at", "i've analyzed", "i've analysed", "i've identified the issue",
                "i've identified the problem", "i identified the issue")
# What the model calls its own earlier turn ("my previous answer"); after "the" only the
# first five ("the previous version" may be the code's)
_MY_WORK = ("answer", "response", "reply", "suggestion", "attempt", "patch", "message",
            "solution", "version", "edit", "fix", "code")
# Openings about the conversation, not the change (compared word by word, punctuation
# after a word ignored): apologies, agreement with the user, thanks, pleasantries.  After
# one of them and a comma, the rest of the sentence decides ("You're right, I'll add X"
# says something; "You're right, I misread it" does not).
_CONVERSATION = tuple(tuple(p.split()) for p in """
i apologize|i apologise|apologies|my apologies|sorry|i'm sorry|i am sorry|so sorry
my mistake|my bad|my error|oops|i made a mistake|i made an error|that was my mistake
that was wrong|i was wrong|i got that wrong|i misread|i misunderstood|i missed that
i missed this|i overlooked that|i overlooked this
you're right|you are right|you're absolutely right|you are absolutely right
you're correct|you are correct|you're absolutely correct|you are absolutely correct
you're quite right|you are quite right|absolutely right|that's right|that's correct
good catch|great catch|nice catch|good point|great point|fair point|good question
great question|that's a great question|that's a good question|that's a good point
that's a great point|that's a great catch|that's a good catch
thanks for|thank you|thanks so much|thanks a lot|many thanks
i hope this helps|hope this helps|i hope that helps|hope that helps|happy to help
glad to help|glad i could help|i understand your|i understand the concern
as requested|as you requested|as you asked|here it is|here you go|here you are
""".replace("\n", "|").split("|") if p.strip()) + tuple(
    (who, when, what) for when in ("previous", "earlier", "last")
    for who, whats in (("my", _MY_WORK), ("the", _MY_WORK[:5])) for what in whats)
_ALONE = frozenset(("thanks", "thank you", "cheers", "indeed"))


def _about_conversation(words: list[str]) -> bool:
    """Whether ``words`` (a sentence's, lower-cased) open with talk about the conversation
    and nothing after a comma says more."""
    bare = [w.strip(",.!;") for w in words]
    took = _after(bare, _CONVERSATION)
    if took is None:
        return False
    rest = words[took:]
    if not rest or not words[took - 1].endswith(","):
        return True
    return " ".join(bare[took:]) in _ALONE or _about_conversation(rest) or \
        is_chat(" ".join(rest))


# Past tense -> base form, for the verbs a change is reported with.
PAST = {p: b for b, p in (w.split(":") for w in """
add:added update:updated fix:fixed change:changed remove:removed rename:renamed
replace:replaced move:moved refactor:refactored implement:implemented create:created
delete:deleted modify:modified make:made wrap:wrapped extract:extracted
introduce:introduced convert:converted simplify:simplified adjust:adjusted
improve:improved correct:corrected switch:switched bump:bumped drop:dropped split:split
clean:cleaned tidy:tidied handle:handled guard:guarded ensure:ensured enable:enabled
disable:disabled set:set use:used pass:passed raise:raised return:returned
increase:increased decrease:decreased reduce:reduced limit:limited cache:cached
export:exported import:imported document:documented rewrite:rewrote rewrite:rewritten
restructure:restructured reorganize:reorganized reorganise:reorganised inline:inlined
merge:merged mark:marked validate:validated sort:sorted escape:escaped quote:quoted
register:registered initialize:initialized initialise:initialised declare:declared
define:defined expose:exposed hide:hid upgrade:upgraded downgrade:downgraded pin:pinned
revert:reverted restore:restored rework:reworked tighten:tightened loosen:loosened
relax:relaxed skip:skipped catch:caught log:logged wire:wired hook:hooked
""".split())}


def _words(text: str) -> list[str]:
    return [w.lower().replace("\u2019", "'") for w in text.split(" ")]


def _after(words: list[str], prefixes) -> int | None:
    """How many words the longest of ``prefixes`` takes from ``words``, or None (the
    prefixes tried are those opening with the first word: _by_first)."""
    by_first = _by_first(prefixes)
    best = None
    for p in (*by_first.get(words[0] if words else None, ()), *by_first.get(None, ())):
        if tuple(words[:len(p)]) == p and (best is None or len(p) > best):
            best = len(p)
    return best


# id of a table of prefixes -> (the table, its prefixes by first word; None: the empty one)
_BY_FIRST: dict[int, tuple] = {}


def _by_first(prefixes) -> dict:
    kept = _BY_FIRST.get(id(prefixes))
    if kept is None or kept[0] is not prefixes:
        table: dict = {}
        for p in prefixes:
            table.setdefault(p[0] if p else None, []).append(p)
        kept = _BY_FIRST[id(prefixes)] = (prefixes, table)
    return kept[1]


def _verb_at(words: list[str], prefixes) -> int | None:
    """Index of the verb after an opener, one of ``prefixes`` and adverbs, or None."""
    i = 0
    while i < len(words) and words[i].rstrip(",") in _OPENERS:
        i += 1
    took = _after(words[i:], prefixes)
    if took is None:
        return None
    i += took
    while i < len(words) and words[i] in _ADVERBS:
        i += 1
    return i if i < len(words) else None


def intent_verb_at(words: list[str], *, opener_alone: bool = False) -> int | None:
    """Index of the verb an intent opens ("Let me open", "I'll now edit", "Now I'll
    add"), in lower-cased ``words`` without their trailing punctuation; None when no
    intent opens them.  ``opener_alone``: an opening word alone counts too ("Now edit",
    "Next, open")."""
    at = _verb_at(words, _INTENT)
    if at is None and opener_alone:
        i = 0
        while i < len(words) and words[i].rstrip(",") in _OPENERS:
            i += 1
        at = i if 0 < i < len(words) else None
    return at


def imperative(sentence: str) -> str:
    """``sentence`` in the imperative where that is mechanical, else as it is."""
    original = sentence.split(" ")
    words = _words(sentence)
    if len(words) < 3:
        return sentence
    at = _verb_at(words, _INTENT)
    if at is not None and at + 1 < len(words):
        verb = words[at]
        if (verb.isalpha() and verb.isascii() and verb not in _CHAT_VERBS
                and verb not in _NOT_BASE):
            return " ".join([verb.capitalize(), *original[at + 1:]])
        return sentence
    at = _verb_at(words, _REPORT)
    if (at is not None and at + 1 < len(words) and words[at] in PAST
            and not (words[at] == "used" and words[at + 1] == "to")):  # "I used to think"
        return " ".join([PAST[words[at]].capitalize(), *original[at + 1:]])
    return sentence


def is_chat(sentence: str) -> bool:
    """Whether a sentence is about the conversation rather than the change."""
    s = strip_markup(sentence).strip()
    if not s or len(s) > 160 or s.rstrip(":").find(":") >= 0:
        return False  # "I'll be honest: this needs X" says something after its colon
    words = _words(s.rstrip(".!:;"))
    at = _verb_at(words, _INTENT)
    if at is not None and words[at].strip(",.!:") in _CHAT_VERBS:
        return True
    return " ".join(words).startswith(_CHAT_STARTS) or _about_conversation(words)


# --------------------------------------------------------------------------- trailers

# Trailer keys git users write by hand; ``*-by`` keys (Co-authored-by, Reviewed-by ...) too.
_TRAILER_KEYS = frozenset("""
fixes fixed closes closed resolves resolved refs ref references see-also bug bugs issue
issues link change-id cc ticket related part-of jira
""".split())


def model_trailer(line: str) -> str | None:
    """``line`` as a ``Key: value`` trailer, when it is one a git user writes (markdown
    emphasis around it allowed), else None.  Never one of the tool's own ``AI-*`` keys."""
    for candidate in (line, strip_markup(line)):
        key, sep, value = candidate.strip().partition(":")
        key, value = key.strip(), value.strip()
        if not (sep and value and key and key.isascii() and key[0].isalpha()
                and all(c.isalnum() or c == "-" for c in key)):
            continue
        low = key.lower()
        if low.startswith("ai-"):
            return None
        if low in _TRAILER_KEYS or (low.endswith("-by") and len(low) > 3):
            return f"{key}: {value}"
    return None


def split_model_trailers(explanation: str, is_closing) -> tuple[str, list[str]]:
    """(the explanation without them, the trailer lines that end it).  Closing chat after
    them (``is_closing``) does not hide them; lines inside a code block are never taken."""
    lines = explanation.split("\n")
    end = len(lines)
    while end and (not lines[end - 1].strip() or is_closing(lines[end - 1])):
        end -= 1
    start = end
    while start and model_trailer(lines[start - 1]) is not None:
        start -= 1
    if start == end:
        return explanation, []
    from .explanation import parse_chunks

    chunks = parse_chunks("\n".join(lines[:end]))
    if chunks and chunks[-1].kind == "code":
        return explanation, []
    found = list(dict.fromkeys(model_trailer(line) for line in lines[start:end]))
    return "\n".join(lines[:start]), found


# --------------------------------------------------------------------------- controls

# a terminal escape sequence whole (an OSC string such as a title or a hyperlink, up to its
# BEL or ST; a CSI, with ESC [ or the one-byte CSI; any other ESC and its one byte), or one
# control character other than LF and tab
_CONTROL = lazy_compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x1b\x9b]\[?[0-?]*[ -/]*[@-~]"
                        r"|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def drop_controls(text: str) -> str:
    """``text`` without control characters, so that none reaches a commit: git fsck
    refuses a NUL, and escape sequences would reach terminals.  CRLF and a lone CR end a
    line, as a terminal shows them."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)
