"""Chat kept out of the commit message, as plain functions (message/chatter.py,
BEHAVIOR.md §8): the imperative made where it is mechanical (every verb of the PAST table,
the intents, openers and adverbs dropped), sentences about the conversation, the model's
own trailers taken from the end, and control characters dropped while text stays."""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from git_aiapply.message.chatter import (PAST, drop_controls, imperative, is_chat,
                                         model_trailer, split_model_trailers)


def never_closing(_line: str) -> bool:
    return False


def test_the_trailers_a_git_user_writes_and_no_others():
    assert model_trailer("Signed-off-by: Ann <ann@example.com>") == "Signed-off-by: Ann <ann@example.com>"
    assert model_trailer("**Fixes:** #12") == "Fixes: #12"  # emphasis around it
    assert model_trailer("  Part-of:   epic-3  ") == "Part-of: epic-3"
    for line in ("AI-Model: gpt", "ai-response: 0123", "Note: it is", "Fixes:", "Closes #1",
                 "Fixed by: Ann", "-by: x", "Fixes #1: crash", "Réviewed-by: x"):
        assert model_trailer(line) is None, line


def test_trailers_are_taken_from_the_end_past_closing_chat_once_each():
    closing = {"Thanks!", "Hope this helps."}
    text = "Fix it.\n\nThe parser was off.\n\nFixes: #1\nRefs: JIRA-2\nFixes: #1\n\nThanks!\n"
    body, found = split_model_trailers(text, lambda line: line.strip() in closing)
    assert found == ["Fixes: #1", "Refs: JIRA-2"]
    assert body == "Fix it.\n\nThe parser was off.\n"
    # closing chat is not taken for a trailer, and nothing at all leaves the text as it is
    assert split_model_trailers("Fix it.\n\nThanks!", never_closing) == ("Fix it.\n\nThanks!", [])
    fenced = "Fix it.\n\n```\nFixes: #1\n```"
    assert split_model_trailers(fenced, never_closing) == (fenced, [])
    assert split_model_trailers("Fix it.\n\nFixes: #1\n\nMore prose.", never_closing)[1] == []


def test_chat_needs_a_short_sentence_without_a_statement_after_a_colon():
    assert is_chat("Let me take a look.") and is_chat("**I can see the issue.**")
    assert not is_chat("Let me take a look: the cache is never cleared.")
    assert not is_chat("Let me explain " + "why " * 40 + "it fails.")  # over 160 characters
    assert not is_chat("")


def test_intents_not_followed_by_a_base_form_verb_stay_as_written():
    for sentence in ("I'll be adding a flag", "Let me probably fix it", "I'll 修正 the docs",
                     "I used to think so", "I will"):
        assert imperative(sentence) == sentence


_OPENER = st.sampled_from(["", "Now ", "So, ", "First "])
_ADVERB = st.sampled_from(["", "also ", "just ", "now "])
_REST = st.sampled_from(["the parser.", "`load()` in `io.py`.", "X"])


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(sorted(PAST.items())), st.sampled_from(["I've", "I have", "We", "I"]),
       _OPENER, _ADVERB, _REST)
def test_every_reported_verb_of_the_table_becomes_its_base_form(pair, who, opener, adverb, rest):
    """Property: "(Now) I've (also) <past> <rest>" -> "<Base> <rest>", for every verb of
    the PAST table (typographic apostrophes too)."""
    past, base = pair
    sentence = f"{opener}{who} {adverb}{past} {rest}"
    assert imperative(sentence) == f"{base.capitalize()} {rest}"
    assert imperative(sentence.replace("'", "\u2019")) == f"{base.capitalize()} {rest}"


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["I'll", "Let me", "I'm going to", "We will", "I need to"]),
       st.sampled_from(["add", "wire", "frobnicate", "explain", "look", "check", "be"]),
       _OPENER, _ADVERB)
def test_an_intent_becomes_its_verb_unless_the_verb_is_the_conversations(intent, verb,
                                                                         opener, adverb):
    """Property: an intent and a base-form verb of the change give the imperative; a
    verb of the conversation (explain, look, ...) is chat, left as written."""
    sentence = f"{opener}{intent} {adverb}{verb} the retry loop."
    if verb in ("explain", "look", "check"):
        assert imperative(sentence) == sentence and is_chat(sentence)
    elif verb == "be":
        assert imperative(sentence) == sentence
    else:
        assert imperative(sentence) == f"{verb.capitalize()} the retry loop."
        assert not is_chat(sentence)


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs")), max_size=40),
       st.lists(st.sampled_from(["\n", "\t"]), max_size=3))
def test_text_without_control_characters_is_kept_as_it_is(text, breaks):
    """Property: only control characters and escape sequences go; every other character
    (any script, symbols, line feeds and tabs) stays, in order."""
    whole = "".join(breaks) + text + "".join(breaks)
    assert drop_controls(whole) == whole


def test_prefixes_by_first_word_are_the_scan_of_the_whole_table():
    # the tables are looked up by first word: the same answer as trying every prefix
    from git_aiapply.message import chatter as c

    def scan(words, prefixes):
        best = None
        for p in prefixes:
            if tuple(words[:len(p)]) == p and (best is None or len(p) > best):
                best = len(p)
        return best

    for table in (c._CONVERSATION, c._INTENT, c._REPORT, ((), ("so",))):
        tries = [[], ["zzz"], ["so", "x"]]
        for p in table:
            tries += [list(p), [*p, "and", "more"], list(p[:-1]), list(p[1:])]
        for words in tries:
            assert c._after(words, table) == scan(words, table), (words, table[:1])
