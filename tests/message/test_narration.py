"""The model narrating its own work, as rules over a sentence's opening words
(message/narration.py, BEHAVIOR.md §8 round 4): narration is never the subject,
exploration and retractions stay out of the body, the diff told line by line stays out,
and narration that is mechanical to turn into a description is turned."""
from __future__ import annotations

import pytest

from git_aiapply.message.narration import (describe, is_exploration, is_narration, is_retraction,
                                           narrates_lines, says_nothing)

NARRATION = [
    "Now I understand the issue.",
    "Looking at the `pytest_runtest_makereport` hook in `src/_pytest/skipping.py`, the chain stops.",
    "The issue is that `runxfail` swallows every later branch.",
    "The problem was the greedy regex.",
    "I'll start by reading the config loader.",
    "After analyzing the code, the cache is never cleared.",
    "**Looking at** the tests, they cover nothing.",
    "Jetzt verstehe ich das Problem.",  # the same openers in other languages
    "Le problème est dans le parseur.",
    "El problema es el analizador.",
    "O problema é o analisador.",
]
EXPLORATION = [
    "Wait, let me re-read this more carefully.",
    "Actually, the hook runs first.",
    "Hmm, that does not add up.",
    "Let me check the callers.",
    "Looking more carefully at the loop, it exits early.",
    "Hold on.",
    "Eigentlich ist es anders.",
]
NEITHER = [
    "Fix the skip location with `--runxfail`.",
    "The loader now skips empty sections.",
    "Move the check into the `else` branch.",
    "No one calls this function any more.",
    "Looks good.",
    "Currency codes are now upper-cased.",
]


@pytest.mark.parametrize("sentence", NARRATION + EXPLORATION)
def test_narration_and_exploration_are_never_a_subject(sentence):
    assert is_narration(sentence)


@pytest.mark.parametrize("sentence", EXPLORATION)
def test_exploration_is_thinking_aloud(sentence):
    assert is_exploration(sentence)


@pytest.mark.parametrize("sentence", NARRATION[:6] + NEITHER)
def test_narration_may_say_why_and_stays_in_the_body(sentence):
    assert not is_exploration(sentence)


@pytest.mark.parametrize("sentence", NEITHER)
def test_descriptions_are_no_narration(sentence):
    assert not is_narration(sentence) and not narrates_lines(sentence)


@pytest.mark.parametrize("sentence, retracts", [
    ("Wait, that's wrong.", True), ("Actually, that's not right: the hook runs later.", True),
    ("No, wait.", True), ("No.", True), ("Wait, no, the flag is read twice.", True),
    ("Scratch that.", True), ("But wait, that won't work.", True),
    ("No one calls this.", False), ("Wait, let me re-read.", False), ("That is the fix.", False),
])
def test_retractions(sentence, retracts):
    assert is_retraction(sentence) is retracts


@pytest.mark.parametrize("sentence, lines", [
    ("Line 12: `x` becomes `y`.", True), ("On lines 3-5 the loop is unrolled.", True),
    ("In the first hunk, the import moves.", True), ("L42: guard added.", True),
    ("The second hunk adds a test.", True),
    ("Lines of code matter.", False), ("Linear time is kept.", False), ("In the loop, stop.", False),
])
def test_the_diff_told_line_by_line(sentence, lines):
    assert narrates_lines(sentence) is lines


@pytest.mark.parametrize("sentence, described", [
    ("Here's the patch that fixes the skip location with `--runxfail`.",
     "Fix the skip location with `--runxfail`."),
    ("Here is a patch that makes retries respect the timeout:", "Make retries respect the timeout:"),
    ("Patch that makes retries respect the timeout", "Make retries respect the timeout"),
    ("This change makes `load` return defaults.", "Make `load` return defaults."),
    ("The fix ensures the lock is released.", "Ensure the lock is released."),
    ("The fix applies the offset once.", "Apply the offset once."),
    ("The fix is to move the check into the `else` branch.", "Move the check into the `else` branch."),
    ("So the fix is to wrap the call in `try`.", "Wrap the call in `try`."),
    ("To fix this, we need to add a guard for `None`.", "Add a guard for `None`."),
    ("You can make the loop stop early by checking `done`.",
     "Make the loop stop early by checking `done`."),
    # not mechanical: left as it is
    ("This means the cache is stale.", None), ("The change is small.", None),
    ("Fix that bug now.", None), ("Simply put, it works.", None),
    ("You can see the problem here.", None), ("The fix for this is subtle.", None),
])
def test_mechanical_narration_becomes_a_description(sentence, described):
    assert describe(sentence) == described


@pytest.mark.parametrize("subject, nothing", [
    ("Create the fix", True), ("Apply the following changes", True), ("Implement the solution", True),
    ("Make the necessary changes", True),
    ("Fix the parser", False), ("Apply the offset once", False), ("Update the changelog", False),
])
def test_a_subject_about_the_work_itself_says_nothing(subject, nothing):
    assert says_nothing(subject) is nothing


def test_opens_by_first_word_is_the_scan_of_the_whole_table():
    # the tables are looked up by first word: the same answer as trying every phrase
    from git_aiapply.message import narration as n

    def scan(words, phrases):
        best = None
        for phrase in phrases:
            k = len(phrase)
            if k <= len(words) and (best is None or k > best) \
                    and all(words[i] == phrase[i].rstrip(",") for i in range(k)):
                best = k
        return best

    tables = [n.NARRATION, n.EXPLORATION, n.RETRACTION, n._SHOWING, n._FIX_IS, n._YOU_CAN]
    tries = [[], ["zzz"], ["so"]]
    for table in tables:
        for phrase in table:
            words = [w.rstrip(",") for w in phrase]
            tries += [words, words + ["the", "fix"], words[:-1], words[1:]]
    for table in tables:
        for words in tries:
            assert n._opens(words, table) == scan(words, table), (words, table[:1])
    assert n._words("Now I see, the **bug**.") == ["now", "i", "see", "the", "bug"]


# the model saying it will look at files (an agent narrating its read-only commands)
LOOKING = [
    "Let me open the file.",
    "Let me open the file to see what's going on.",
    "First, let's find the file that defines clamp.",
    "Now I'll open the file and go to the function.",
    "Let me search for the function in the repository.",
    "Next, scroll down to the handler.",
    "I'm going to inspect `load` first.",
]
# the same verbs describing a change: no intent of the model's opens them
NOT_LOOKING = [
    "Open the file in binary mode so that CRLF survives.",
    "Check for None before reading the cache.",
    "Now check the return value of `load` before using it.",
    "Find the handler by name instead of by index.",
]


@pytest.mark.parametrize("sentence", LOOKING)
def test_looking_at_files_is_exploration(sentence):
    assert is_exploration(sentence) and is_narration(sentence)


@pytest.mark.parametrize("sentence", NOT_LOOKING)
def test_a_change_with_a_looking_verb_is_not(sentence):
    assert not is_exploration(sentence)


@pytest.mark.parametrize("sentence", ["Now edit lines 5 to 6.", "I'll now edit line 2.",
                                      "Let me edit lines 4-5 of the file."])
def test_a_plan_to_edit_by_line_number_is_line_narration(sentence):
    assert narrates_lines(sentence)


def test_a_change_that_names_a_line_word_is_not_line_narration():
    assert not narrates_lines("Now edit the line parser to accept tabs.")
