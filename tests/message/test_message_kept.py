"""Messages a git user keeps as written (BEHAVIOR.md §8 round 4), on answers written the
way models write them: a complete subject of at most 72 characters that says what
changed, never cut with '…', never chat or narration, else made from the change; a body
of at most 15 lines without the model's exploration, retracted attempts or paths
outside the repository."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.message.message import BODY_LINES, build_message, subject_of

RID = "0123456789abcdef"
SKIPPING = [("update", "src/_pytest/skipping.py")]
NAMES = {"src/_pytest/skipping.py": ["pytest_runtest_makereport"]}


def message(explanation: str, changed=SKIPPING, limit: int = 72) -> str:
    return build_message(explanation, formats=["unified-diff"], response_id=RID, model=None,
                         descriptions=[], changed=changed, names_of=lambda p: NAMES.get(p, []),
                         subject_max=limit)


def body_of(msg: str) -> list[str]:
    paragraphs = msg.rstrip("\n").split("\n\n")
    return "\n\n".join(paragraphs[1:-1]).split("\n") if len(paragraphs) > 2 else []


THINKING_ALOUD = """Looking at the `pytest_runtest_makereport` hook in `/tmp/tmpq8x7/pytest/src/_pytest/skipping.py`, I can see that when `--runxfail` is used, the `elif` chain stops before the skip location is fixed.

Wait, let me re-read this more carefully. The hook first checks `unexpectedsuccess_key`, then `runxfail`. Hmm, so the location fix is in the last branch.

Actually, that's wrong: the fix belongs in its own `if`.

The issue is that the `runxfail` branch swallows everything after it.
"""

REALISTIC = [
    # (answer, subject, in the body, not in the message)
    (THINKING_ALOUD, "Change pytest_runtest_makereport (src/_pytest/skipping.py)",
     ["src/_pytest/skipping.py", "swallows everything"], ["/tmp/", "Wait", "Hmm", "Actually"]),
    ("Now I understand the issue. The skip location must be fixed even with `--runxfail`.\n",
     "The skip location must be fixed even with `--runxfail`", [], ["understand"]),
    ("Here's the patch that fixes the skip location reported with `--runxfail`:\n",
     "Fix the skip location reported with `--runxfail`", [], ["patch"]),
    ("Patch that makes `--runxfail` leave skip locations alone.\n",
     "Make `--runxfail` leave skip locations alone", [], []),
    ("You can make `--runxfail` leave skips alone by moving the check.\n",
     "Make `--runxfail` leave skips alone by moving the check", [], []),
    ("The issue is that `runxfail` swallows the branches after it. The fix is to move the "
     "location fix into its own `if`.\n",
     "Move the location fix into its own `if`", ["The issue is that `runxfail`"], []),
    ("I'll start by reading the hook.\n\nThe skip location was lost with `--runxfail`, because "
     "the `elif` chain ended at the `runxfail` branch, which does nothing at all.\n",
     "The skip location was lost with `--runxfail`",
     ["because the `elif` chain"], ["I'll start"]),
    ("## Fix skip location reporting with --runxfail\n\nThe hook never reached the fix.\n",
     "Fix skip location reporting with --runxfail", ["never reached"], []),
    ("Wait, the hook is fine.\n\nMove the `runxfail` check after the skip location fix.\n",
     "Move the `runxfail` check after the skip location fix", [], ["Wait"]),
    ("Line 12: move the check.\n\nDo not let `--runxfail` hide skip locations.\n",
     "Do not let `--runxfail` hide skip locations", [], ["Line 12"]),
    # chat about the work itself says nothing, in the subject or the body
    ("Perfect! Now I have all the information I need. Let me create the fix.\n",
     "Change pytest_runtest_makereport (src/_pytest/skipping.py)", [], ["information", "create"]),
    ("To address this, we should update the validation logic so that empty strings are "
     "rejected (they were accepted before).\n",
     "Update the validation logic so that empty strings are rejected", ["accepted before"], []),
    ("Looking at the code, I need to:\n1. Add a `timeout` parameter to `fetch`\n"
     "2. Pass it to `requests.get`\n",
     "Add a `timeout` parameter to `fetch`", ["2. Pass it"], ["Looking at"]),
    ("Now I understand: the hook skips the location fix with `--runxfail`.\n\nHere's the fix:\n",
     "The hook skips the location fix with `--runxfail`", [], ["Here's the fix"]),
]


@pytest.mark.parametrize("answer, subject, body_has, lacks", REALISTIC,
                         ids=[r[1][:40] for r in REALISTIC])
def test_realistic_answers(answer, subject, body_has, lacks):
    msg = message(answer)
    assert subject_of(msg) == subject
    body = "\n".join(body_of(msg))
    for text in body_has:
        assert text in " ".join(body.split())
    for text in lacks:
        assert text not in msg


def test_the_best_sentence_opens_the_body_when_the_change_names_the_subject():
    best = ("Make the `RetryingHTTPAdapterWithExponentialBackoffAndJitter` honour the configured "
            "`max_retries_on_connection_reset_by_peer` setting.")
    msg = message("Looking at the adapter, it ignores the setting.\n\n" + best)
    assert subject_of(msg) == "Change pytest_runtest_makereport (src/_pytest/skipping.py)"
    assert " ".join(body_of(msg)).startswith(best[:40])


def test_a_long_body_is_cut_at_a_paragraph_end():
    paragraphs = [f"Paragraph {i} says why the change is needed, in one sentence of some "
                  f"length that wraps onto a second line." for i in range(12)]
    msg = message("Fix the hook.\n\n" + "\n\n".join(paragraphs))
    body = body_of(msg)
    assert len(body) <= BODY_LINES
    assert body[-1].endswith("second line.")
    assert " ".join(body).count("Paragraph") == 5  # whole paragraphs: 2 lines and a blank each


def test_a_long_paragraph_is_cut_at_a_sentence_end():
    long = " ".join(f"Sentence {i} tells one more reason the change is needed." for i in range(40))
    body = body_of(message("Fix the hook.\n\n" + long))
    assert len(body) <= BODY_LINES and body[-1].endswith("needed.")


def test_a_model_that_thinks_aloud_for_a_page_gets_a_short_body():
    page = "\n\n".join([THINKING_ALOUD] * 5 + ["Let me check the callers. They pass `None`."] * 10)
    msg = message(page)
    assert len(body_of(msg)) <= BODY_LINES
    assert "Let me" not in msg and "/tmp/" not in msg


# ---------------------------------------------------------------- any answer

_PIECES = st.sampled_from([
    "Now I understand the issue. ", "Looking at the hook in `/tmp/x/src/_pytest/skipping.py`, ",
    "Wait, let me re-read this. ", "Actually, that's wrong. ", "Hmm. ", "The issue is that ",
    "Here's the patch that fixes ", "Patch that makes ", "You can make ", "Line 3: ",
    "I'll add ", "the `runxfail` branch", " swallows the skip location", " because ",
    "; ", ", so that ", ". ", "\n\n", "\n", "- ", "## ", "```\n", "/home/me/", "C:\\Users\\me\\",
    "~/src/", "/testbed/src/_pytest/skipping.py", "word " * 12, "`code span`", "\u2026", "...",
    "Fix the hook", "Let me know if you need anything else!", "> quote\n", "| a | b |\n",
])


def _outside(msg: str) -> list[str]:
    """Absolute paths outside the repository (``a/home/b`` is a relative path)."""
    return re.findall(r"(?<![\w.~/\\-])(?:/tmp/|/home/|C:\\|~/)\S*", msg)


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=30).map(" ".join), st.integers(min_value=10, max_value=100))
def test_any_answer_gives_a_message_a_git_user_keeps(explanation, limit):
    msg = message(explanation, limit=limit)
    subject = subject_of(msg)
    assert subject and len(subject) <= limit
    assert not subject.endswith(("\u2026", "...", "."))
    assert msg.split("\n")[1] == ""
    assert len(body_of(msg)) <= BODY_LINES
    assert _outside(msg) == [], msg
