"""A commit message keeps the model's content and nothing a terminal would act on
(BEHAVIOR.md §8): closing chat is recognised by where it stands, not by words found
anywhere in a sentence, and every kind of escape sequence goes whole."""
from __future__ import annotations

import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.message.chatter import drop_controls
from git_aiapply.message.message import build_message


def _message(explanation: str) -> str:
    """The message, its lines joined (the body is wrapped)."""
    return " ".join(_raw_message(explanation).split())


def _raw_message(explanation: str) -> str:
    return build_message(explanation, formats=["unified-diff"], response_id="0" * 12,
                         model=None, descriptions=[], changed=[("Update", "a.py")],
                         trailers=False)


@pytest.mark.parametrize("sentence", [
    "Callers who need more may feel free to pass retries=5.",
    "The log says it too; if it is too low, let me know in the logs via `--verbose`.",
])
def test_chat_words_inside_a_clause_are_content(sentence):
    message = _message("Raise the retry limit.\n\nThe limit is now 3. " + sentence)
    assert sentence.rstrip(".") in message


@pytest.mark.parametrize("closing", [
    "Let me know if it helps.", "If you hit a snag, let me know.", "Hope this helps!",
    "Feel free to ask.",
])
def test_closing_chat_at_the_end_of_a_paragraph_goes(closing):
    message = _message("Raise the retry limit.\n\nThe limit is now 3. " + closing)
    assert "The limit is now 3." in message and closing not in message


def test_prose_after_a_trailer_like_line_is_not_lost():
    message = _message("Raise the retry limit.\n\nFixes: #12\nThe retry now backs off to "
                       "30s. Let me know if it helps.")
    assert "The retry now backs off to 30s" in message


@pytest.mark.parametrize("raw, kept", [
    ("a\x1b]0;evil title\x07b", "ab"),                       # OSC (window title), BEL
    ("x\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\y", "xclicky"),  # OSC 8 hyperlink, ST
    ("p\x9b31mq", "pq"),                                       # one-byte CSI
    ("\x1b[1;31mred\x1b[0m", "red"),                           # CSI
    ("Fix the loader.\r\rIt crashed.", "Fix the loader.\n\nIt crashed."),  # lone CRs
    ("a\r\nb", "a\nb"),
])
def test_escape_sequences_go_whole(raw, kept):
    assert drop_controls(raw) == kept


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab ]0;8m[\\\x07\x1b\x9b\r\n\t\x00\x7f")),
               max_size=40))
def test_no_control_character_survives(text):
    out = drop_controls(text)
    assert not any(ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) <= 0x9f for c in out)


def test_a_message_with_escapes_passes_git_fsck(tmp_path):
    message = _raw_message("Fix the loader\x1b]0;evil\x07.\r\rIt crashed on \x9b31mtabs.")
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    tree = subprocess.run(["git", "-C", str(repo), "mktree"], input="", text=True,
                          capture_output=True, check=True).stdout.strip()
    commit = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit-tree",
         tree], input=message, text=True, capture_output=True, check=True).stdout.strip()
    subprocess.run(["git", "-C", str(repo), "update-ref", "HEAD", commit], check=True)
    assert subprocess.run(["git", "-C", str(repo), "fsck", "--strict"],
                          capture_output=True).returncode == 0
    shown = subprocess.run(["git", "-C", str(repo), "log", "-1", "--format=%B"],
                           capture_output=True, text=True, check=True).stdout
    assert "evil" not in shown and "31m" not in shown and "It crashed" in shown
