"""The model narrating its own work, as rules over a sentence's opening words (BEHAVIOR.md
§8 round 4, "Message: a git user keeps it as written").  A model explains a change in
commit-worthy prose and around it tells what it is doing: that prose is read here, and
the rules are data, one phrase a line, compared word by word (case, markup and the
punctuation after a word ignored).  English first; the same openers in German, French,
Spanish and Portuguese, the languages models most often answer a user in.

- ``NARRATION``: the model telling its reading ("Now I understand the issue", "Looking at
  the hook in ...", "The issue is that ..."): never the subject; it may stay in the body,
  where it often says why;
- ``EXPLORATION``: the model thinking aloud ("Wait, ...", "Actually, ...", "Hmm", "Let me
  re-read ..."): the sentence and the rest of its paragraph stay out of the message;
- ``RETRACTION``: exploration that says what came before was wrong ("Wait, that's
  wrong"): the attempt before it stays out too;
- ``LINE_NARRATION``: the diff told line by line ("Line 12: ...", "In the first hunk
  ..."), or the model's plan to edit by line number ("Now edit lines 5 to 6", an agent's
  narration of its ``edit 5:6`` command): out of the body, the diff says it better;
- ``LOOKING``: the model telling it is about to look at files (an intent, then one of
  these verbs: "Let me open the file", "Now I'll search for the handler"): exploration,
  it never says what changed;
- ``describe``: an opener after which the change's own description follows, made into
  the subject where that is mechanical: "Here's the patch that fixes X" -> "Fix X",
  "The fix is to move X" -> "Move X", "You can make X" -> "Make X"
  (``chatter.imperative`` does "I'll add X" -> "Add X").
"""
from __future__ import annotations

from functools import lru_cache

from .chatter import PAST, imperative, intent_verb_at
from .explanation import strip_markup


class _Phrases(tuple):
    """The phrases of a table (each a tuple of words), and by first word (its trailing
    comma dropped, as a sentence's words are compared) the lengths and words to compare:
    a sentence is looked up by its first word, not tried against the whole table."""

    def __new__(cls, phrases):
        self = super().__new__(cls, phrases)
        by_first: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
        for phrase in self:
            words = tuple(w.rstrip(",") for w in phrase)
            by_first.setdefault(words[0], []).append((len(words), words))
        self.by_first = by_first
        return self


def _phrases(text: str) -> _Phrases:
    return _Phrases(tuple(line.split()) for line in text.strip().split("\n") if line.strip())


NARRATION = _phrases("""
now i understand
i now understand
i understand
now i see
i see
now i can see
i can see
i notice
i noticed
i found
i've found
i have found
looking at
looking through
looking into
after looking
after reviewing
after analyzing
after analysing
after examining
after investigating
upon
on closer inspection
examining
reviewing
analyzing
analysing
investigating
based on
now i have
i now have
i have all
i have enough
i'll start
i will start
i'll begin
i will begin
let me start
let's start
first, let me
first let me
i need to understand
i need to look
i need to check
i need to find
i need to figure
we need to understand
to understand
the issue is
the issue was
the issue here is
the issue seems
the issue appears
the problem is
the problem was
the problem here is
the problem seems
the bug is
the bug was
the root cause is
the root cause was
the cause is
the cause was
this is because
the reason is
it looks like
it seems
it appears
here's what's happening
here is what's happening
here is what is happening
what's happening is
here's the problem
here is the problem
here's the issue
here is the issue
the current code
the current implementation
currently
as you can see
as we can see
we can see
ok so
okay so
so the
jetzt verstehe ich
ich verstehe
ich sehe
wenn ich mir
schauen wir
sehen wir uns
das problem ist
das problem war
der fehler ist
je vois
je comprends
maintenant je comprends
en regardant
voyons
le problème est
le problème était
ahora entiendo
entiendo
veo que
mirando
veamos
el problema es
el problema era
agora entendo
entendo
vejo que
olhando
vamos ver
o problema é
o problema era
""")

EXPLORATION = _phrases("""
wait
but wait
so wait
ok wait
okay wait
hmm
hm
actually
but actually
oops
hold on
on second thought
let me check
let me re-check
let me recheck
let me double-check
let me re-read
let me reread
let me re-examine
let me reexamine
let me reconsider
let me look
let me verify
let me think
let me trace
let me see
let me try
let me search
let me find
let me confirm
let me figure
now let me
let's check
let's see
let's look
let's think
let's verify
let's re-read
let's trace
let's try
looking more carefully
looking more closely
looking closer
looking again
looking at this again
looking at it again
re-reading
rereading
thinking about it
thinking about this
i wonder
moment
warte
moment mal
eigentlich
attends
en fait
espera
en realidad
na verdade
""")

RETRACTION = _phrases("""
that's wrong
that is wrong
that's not right
that is not right
that's not correct
that is not correct
that's incorrect
that is incorrect
that's not quite right
that isn't right
that won't work
that will not work
that doesn't work
that does not work
this won't work
this doesn't work
that approach won't work
scratch that
never mind
nevermind
on second thought
i was wrong
that's not it
no wait
das ist falsch
c'est faux
eso está mal
isso está errado
""")
# the interjections a retraction may open with ("Wait, no, ...", "Actually, that's wrong")
_INTERJECTIONS = frozenset("wait actually hmm hm oh ah oops but so ok okay no".split())

# what a description may follow: "Here's the patch that fixes X", "This change makes X"
_SHOWING = _phrases("""
here's the
here's a
here is the
here is a
below is the
below is a
this is the
this is a
""")
_WORK = frozenset("patch fix change diff commit pr update edit solution".split())
_THIS = frozenset("this the my our".split())
_BARE_WORK = frozenset("patch diff commit pr".split())  # "Patch that makes X"
# "The fix is to move X", "To fix this, move X": the words up to the description
_FIX_IS = _phrases("""
the fix is to
the fix here is to
the simplest fix is to
the simple fix is to
the correct fix is to
the right fix is to
the proper fix is to
the minimal fix is to
the solution is to
the simplest solution is to
the correct solution is to
the right solution is to
the fix should be to
to fix this,
to fix this issue,
to fix this bug,
to fix this problem,
to fix the issue,
to fix the bug,
to fix the problem,
to fix it,
to solve this,
to resolve this,
to address this,
to fix this issue,
to solve this issue,
to resolve this issue,
to address this issue,
to address the issue,
""")
# "You can make X": a suggestion to the user, mechanical to make the imperative
_YOU_CAN = _phrases("""
you can
you could
you should
you need to
you'll need to
you will need to
you may want to
you might want to
you just need to
we should
we can
we must
""")
_NOT_VERBS = frozenset("is was has does also now then".split())
_ADVERBS = frozenset("also now just first then simply".split())
# openers before a description: "So the fix is to ..."
_OPENERS = frozenset("so now therefore thus hence".split())
# the verbs a description is made with (a table, not a rule: "This means X" stays as it is)
CHANGE_VERBS = frozenset(PAST.values()) | frozenset("""
prevent allow avoid keep stop let respect support move check include exclude treat
report preserve honor honour accept reject read write show print call compute apply
resolve address introduce guard wrap return skip use add
""".split())


def _words(sentence: str) -> list[str]:
    """The sentence's words, lower-cased, the punctuation after each one dropped."""
    return list(_word_tuple(sentence[:300]))  # the opening is all the tables look at


@lru_cache(maxsize=256)  # each sentence is asked about by several tables in a row
def _word_tuple(opening: str) -> tuple[str, ...]:
    text = strip_markup(opening).lower().replace("\u2019", "'")
    return tuple(w.rstrip(",.:;!?\u2014\u2013") or w for w in text.split())


def _opens(words: list[str], phrases) -> int | None:
    """How many words the longest of ``phrases`` takes from the start, or None."""
    if not words:
        return None
    best = None
    for n, phrase in phrases.by_first.get(words[0], ()):
        if n <= len(words) and (best is None or n > best) and tuple(words[:n]) == phrase:
            best = n
    return best


def is_narration(sentence: str) -> bool:
    """The model telling its reading or its plan, not what the change does."""
    words = _words(sentence)
    return _opens(words, NARRATION) is not None or is_exploration(sentence)


# what the model says it will do before it changes anything: look at files (the verbs an
# intent opens: "Let me open", "I'll now search", "Next, scroll down"); an agent's read-only
# commands (SWE-agent's open, goto, scroll_up, search_file, find_file) told in words
LOOKING = frozenset("""
open reopen view inspect examine reread re-read scroll locate go navigate look review
explore browse study investigate peek glance reproduce
""".split())
# verbs that also describe a change in the imperative ("Check for None", "Find the
# handler by name"): looking only after an intent of the model's ("Let me check")
LOOKING_AFTER_INTENT = frozenset("find check read see run search grep".split())


def looks_at_files(sentence: str) -> bool:
    """An intent to look at the code, not a change: "Let me open the file to see what's
    going on", "First, let's find the file", "Next, open a.py"."""
    words = _words(sentence)
    at = intent_verb_at(words)
    if at is not None:
        return words[at] in LOOKING or words[at] in LOOKING_AFTER_INTENT
    at = intent_verb_at(words, opener_alone=True)
    return at is not None and words[at] in LOOKING


def is_exploration(sentence: str) -> bool:
    """The model thinking aloud: the sentence and the rest of its paragraph stay out."""
    return (_opens(_words(sentence), EXPLORATION) is not None or looks_at_files(sentence)
            or is_retraction(sentence))


def is_retraction(sentence: str) -> bool:
    """A sentence saying what came before was wrong ("Wait, that's wrong.")."""
    words = _words(sentence)
    raw = strip_markup(sentence[:300]).lower().split()
    if words == ["no"]:
        return True
    i = 0
    said_no = False  # "No, ...", "Wait, no, ...", "No wait ..."
    while i < len(words) - 1 and words[i] in _INTERJECTIONS:
        said_no = said_no or (words[i] == "no" and (raw[i].endswith(",") or words[i + 1] == "wait"))
        i += 1
    said_no = said_no or (i > 0 and words[i] == "no")  # "Actually, no."
    return said_no or _opens(words[i:], RETRACTION) is not None


def narrates_lines(sentence: str) -> bool:
    """The diff told line by line: "Line 12: ...", "On lines 3-5 ...", "In the first
    hunk ...", "L42: ...": a line number or a hunk opens the sentence."""
    words = _words(sentence)[:8]
    at = intent_verb_at(words, opener_alone=True)  # "Now edit lines 5 to 6", "I'll edit line 2"
    words = (words[at + 1:] if at is not None else words)[:4]
    if words[:1] in (["on"], ["at"], ["in"]):
        words = words[1:]
    if words[:1] == ["the"]:
        words = words[1:]
    if len(words) >= 2 and words[0] in ("line", "lines", "hunk", "zeile", "ligne", "línea"):
        return words[1][:1].isdigit()
    if len(words) >= 2 and words[1] == "hunk":
        return True  # "the first hunk", "in the second hunk"
    first = words[0] if words else ""
    return len(first) > 1 and first[0] == "l" and first[1:].replace("-", "").isdigit()


def _base_form(word: str) -> str | None:
    """A verb's third person ("fixes", "makes", "applies") as its base form, else None."""
    w = word.lower()
    if not (w.isascii() and w.isalpha() and w.endswith("s")) or w in _NOT_VERBS or len(w) < 4:
        return None
    if w.endswith("ies"):
        return w[:-3] + "y" if w[:-3] + "y" in CHANGE_VERBS else None
    if w.endswith(("ches", "shes", "sses", "xes", "zes")):
        return w[:-2] if w[:-2] in CHANGE_VERBS else None
    base = None if w.endswith("ss") else w[:-1]  # "process" is no third person
    return base if base in CHANGE_VERBS else None


def _from(original: list[str], at: int) -> str:
    return " ".join(original[at:])


def describe(sentence: str) -> str | None:
    """The sentence made a description of the change where its narration is mechanical to
    remove, else None: "Here's the patch that fixes X" / "This change makes X" -> "Fix X",
    "Make X"; "The fix is to move X" / "To fix this, move X" -> "Move X"; "You can make
    X" -> "Make X"."""
    original = sentence.split()
    words = _words(sentence)
    if len(words) != len(original):
        return None
    while len(words) > 3 and words[0] in _OPENERS and words[1] not in ("far", "that"):
        words, original = words[1:], original[1:]
    if len(words) < 3:
        return None
    made = _work_does(words, original)
    if made is not None:
        return made
    took = _opens(words, _FIX_IS) or _opens(words, _YOU_CAN)
    if took is not None and took + 1 < len(words):
        i = took + (_opens(words[took:], _YOU_CAN) or 0)  # "To fix this, we should add X"
        while i < len(words) - 1 and words[i] in _ADVERBS:
            i += 1
        rest = _from(original, i)
        turned = imperative(rest)  # "To fix this, we need to add X" -> "Add X"
        if turned != rest:
            return turned
        if words[i] in CHANGE_VERBS and original[i].isalpha():
            return rest[:1].upper() + rest[1:]
    return None


def _work_does(words: list[str], original: list[str]) -> str | None:
    """"Here's the patch that fixes X", "This change makes X", "Patch that makes X" ->
    "Fix X", "Make X"; else None."""
    at = _opens(words, _SHOWING)
    i = at if at is not None else (1 if words[0] in _THIS else 0)
    if not (i < len(words) and (words[i] in _WORK if i else words[i] in _BARE_WORK)):
        return None
    i += 1
    if i < len(words) and words[i] in ("that", "which") and (at is not None or i == 1):
        i += 1  # "Here's the patch that fixes X", "Patch that makes X"
    elif at is not None or i != 2:
        return None  # "Here's the fix for X" is for _clean_subject; "Patch X" is a noun
    while i < len(words) and words[i] in _ADVERBS:
        i += 1
    base = _base_form(words[i]) if i + 1 < len(words) else None
    return _capital(base, original, i) if base else None


# what a subject "says nothing" with: "Create the fix", "Apply the changes below"
_SAYS_NOTHING_FILLER = frozenset("the a an this these that my our necessary following required "
                                 "needed proposed below now here above".split())


def says_nothing(subject: str) -> bool:
    """A subject whose verb acts on the work itself, not on the code: "Create the fix",
    "Implement the solution", "Apply the following changes"."""
    words = _words(subject)
    rest = [w for w in words[1:] if w not in _SAYS_NOTHING_FILLER]
    return 1 < len(words) <= 6 and len(rest) == 1 and rest[0].rstrip("s") in _WORK


def _capital(verb: str, original: list[str], at: int) -> str:
    return " ".join([verb.capitalize(), *original[at + 1:]])
