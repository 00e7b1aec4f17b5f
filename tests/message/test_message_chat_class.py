"""Chat is not message, as a class (BEHAVIOR.md §8): apologies, agreement with the user,
thanks and pleasantries are about the conversation, never the subject, wherever they
open the answer and whatever change sentence follows them.  A link's target the subject
drops (a subject has no room for URLs) is kept: the sentence opens the body."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.message.chatter import is_chat
from git_aiapply.message.message import build_message, subject_of

RID = "0123456789abcdef"


def message(explanation: str) -> str:
    return build_message(explanation, formats=["search-replace"], response_id=RID, model=None,
                         descriptions=[], changed=[("update", "config.yaml")], trailers=False)


# Openings about the conversation, as models write them (typographic apostrophes too).
CHAT = [
    "You're absolutely right, my previous answer was wrong.",
    "You\u2019re absolutely right.",
    "You are correct, I missed that.",
    "You're right, I misread the config.",
    "I apologize for the confusion.",
    "Apologies for the oversight.",
    "My apologies, the earlier answer was incomplete.",
    "Sorry about that!",
    "Sorry for the confusion.",
    "I'm sorry, that was my mistake.",
    "My mistake.",
    "My bad!",
    "I made a mistake in my previous answer.",
    "My previous answer was wrong.",
    "The previous answer had a bug.",
    "Thanks for pointing that out!",
    "Thank you for catching that.",
    "I hope this helps!",
    "Hope this helps.",
    "Good catch!",
    "Great point, thanks.",
    "That's a great question!",
    "As requested, here it is.",
    "Happy to help!",
    "I understand your concern.",
    "I see the problem now.",
]
# Sentences that say what the change does, and the subject a git user would keep.
CHANGES = [
    ("Let me fix the port.", "Fix the port"),
    ("I'll move the server to port 9090.", "Move the server to port 9090"),
    ("Change the port to 9090.", "Change the port to 9090"),
    ("I've updated the pool size to 50.", "Update the pool size to 50"),
]


@pytest.mark.parametrize("chat", CHAT)
def test_chat_sentences_are_chat(chat):
    assert is_chat(chat)


@pytest.mark.parametrize("sentence", [
    "Fix the port.", "Sorry-proof the retry loop.", "Thanks to the cache, lookups are O(1).",
    "You're right that the port is taken: move the server to 9090.",
    "My previous implementation of `parse` dropped the last line.",
    "Apologize in the error text when the upload fails.",
    "The previous version leaked file handles.", "The last patch level is kept.",
])
def test_sentences_about_the_change_are_not_chat(sentence):
    assert not is_chat(sentence)


@settings(max_examples=150, deadline=None)
@given(chat=st.lists(st.sampled_from(CHAT), min_size=1, max_size=3),
       change=st.sampled_from(CHANGES), same_paragraph=st.booleans())
def test_chat_never_becomes_the_subject(chat, change, same_paragraph):
    sentence, subject = change
    sep = " " if same_paragraph else "\n\n"
    explanation = " ".join(chat) + sep + sentence + "\n\nLet me know if you need anything else!"
    assert subject_of(message(explanation)) == subject


@pytest.mark.parametrize("chat", ["I hope this helps! Below is the fix.",
                                  "You're absolutely right, my previous answer was wrong.",
                                  "Sorry about that. Here's the corrected version:"])
def test_chat_alone_leaves_the_subject_to_the_change(chat):
    msg = message(chat)
    assert subject_of(msg) == "Update config.yaml"


def test_a_link_target_the_subject_drops_is_kept_in_the_body():
    msg = message("See [the proxy docs](https://example.com/proxy) for why: port 8080 is taken.")
    assert subject_of(msg) == "See the proxy docs for why: port 8080 is taken"
    assert "https://example.com/proxy" in msg


def test_a_link_in_a_list_items_subject_is_kept_in_the_body():
    msg = message("- Follow [RFC 9110](https://www.rfc-editor.org/rfc/rfc9110) for the header.")
    assert subject_of(msg) == "Follow RFC 9110 for the header"
    assert "https://www.rfc-editor.org/rfc/rfc9110" in msg


def test_a_subject_without_a_link_is_not_repeated_in_the_body():
    msg = message("Move the server to port 9090.\n\nThe old one is taken.")
    assert msg.count("Move the server") == 1
