"""Commit messages a git user would keep (BEHAVIOR.md §8 "Chat is not message", issue 22
item 6): the subject is what the change does, not the model's chat; closing chat stays
out of the body; trailers the model wrote at the end join the tool's own in one block that
git recognises; no control byte reaches a commit.  Plain functions, plus git's own
readers (interpret-trailers, fsck --strict) where they decide."""
from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.message.message import build_message, imperative, subject_of

RID = "0123456789abcdef"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def message(explanation: str, **kw) -> str:
    args = dict(formats=["apply-patch"], response_id=RID, model="m", descriptions=[],
                changed=[("update", "src/app.py")])
    args.update(kw)
    return build_message(explanation, **args)


# Realistic first lines of model answers, and the subject a git user would keep.
OPENINGS = [
    # future / intent, rewritten into the imperative
    ("I'll add a retry to `fetch_user` so transient errors don't fail the request.",
     "Add a retry to `fetch_user` so transient errors don't fail the request"),
    ("I will add input validation to the signup form.", "Add input validation to the signup form"),
    ("Let me fix the off-by-one error in `paginate`.", "Fix the off-by-one error in `paginate`"),
    ("Let's rename `cfg` to `config` throughout the module.",
     "Rename `cfg` to `config` throughout the module"),
    ("I'm going to extract the parsing into its own function.",
     "Extract the parsing into its own function"),
    ("Sure! I'll update the README to document the new flag.",
     "Update the README to document the new flag"),
    ("Certainly! Let me refactor the loop to use `enumerate`.",
     "Refactor the loop to use `enumerate`"),
    ("Okay, I'll also handle the empty-list case.", "Handle the empty-list case"),
    ("Absolutely! I'll make the timeout configurable.", "Make the timeout configurable"),
    ("Great question! Let me add a test for the edge case.", "Add a test for the edge case"),
    ("I'd be happy to add type hints to the `utils` module.",
     "Add type hints to the `utils` module"),
    ("Now I'll wire the new option into the CLI.", "Wire the new option into the CLI"),
    ("We'll switch the cache to an LRU policy.", "Switch the cache to an LRU policy"),
    # past tense with a known verb, rewritten
    ("I've updated the config loader to ignore blank lines.",
     "Update the config loader to ignore blank lines"),
    ("I have removed the unused import from `main.py`.", "Remove the unused import from `main.py`"),
    ("I added a lock around the shared counter.", "Add a lock around the shared counter"),
    ("I've fixed the race condition in the job queue.", "Fix the race condition in the job queue"),
    ("I've also renamed the helper for clarity.", "Rename the helper for clarity"),
    ("Done! I've replaced the deprecated `datetime.utcnow()` calls.",
     "Replace the deprecated `datetime.utcnow()` calls"),
    ("I changed the default port from 8000 to 8080.", "Change the default port from 8000 to 8080"),
    ("We've simplified the error handling in `load`.", "Simplify the error handling in `load`"),
    ("I made the parser accept tabs.", "Make the parser accept tabs"),
    # filler dropped, the sentence kept
    # (round 4: "The bug is ..." is narration, no subject; this sentence says the same)
    ("Sure, the date parsing ignores the timezone.", "The date parsing ignores the timezone"),
    ("Certainly. The function now returns early on empty input.",
     "The function now returns early on empty input"),
    ("Good catch! The loop never terminated when `n` was 0.",
     "The loop never terminated when `n` was 0"),
    ("You're right. The cache key ignored the locale.", "The cache key ignored the locale"),
    ("Of course! Here's the change:\n\nGuard `mean` against an empty list.",
     "Guard `mean` against an empty list"),
    ("Here's the change:\n\nStop logging the API key.", "Stop logging the API key"),
    ("Okay, here is the fix:\n\nClose the socket in `finally`.", "Close the socket in `finally`"),
    ("Ah, I see the issue. The regex was greedy.", "The regex was greedy"),
    ("I see the problem. `split()` drops empty fields.", "`split()` drops empty fields"),
    ("Thanks for the report! The migration skipped nullable columns.",
     "The migration skipped nullable columns"),
    ("No problem! Use a context manager for the file.", "Use a context manager for the file"),
    ("Alright, the timeout now applies to the whole request.",
     "The timeout now applies to the whole request"),
    # chat sentences skipped whole
    ("Let me take a look at the code.\n\nThe handler swallowed `KeyError`.",
     "The handler swallowed `KeyError`"),
    ("Let me explain what was wrong. The counter was shared between threads.",
     "The counter was shared between threads"),
    ("I'll help you fix this. Move the import to the top of the file.",
     "Move the import to the top of the file"),
    ("I can see the issue here. The default argument is mutable.",
     "The default argument is mutable"),
    # not mechanical: the sentence stays as it is
    ("I think the cache should be per-user.", "I think the cache should be per-user"),
    ("I've taken care of the flaky test.", "I've taken care of the flaky test"),
    ("I'll be honest: this needs a redesign.", "I'll be honest: this needs a redesign"),
    ("I'll need to change the schema first.", "I'll need to change the schema first"),
    ("I used to think this was safe.", "I used to think this was safe"),
    ("I'll take a look at the tests first:\n\nMake `run` return its exit code.",
     "Make `run` return its exit code"),
    ("Let me know if you want tests. Add a `--dry-run` flag.", "Add a `--dry-run` flag"),
    ("I added", "I added"),  # nothing after the verb: nothing to rewrite
    # already fine
    ("Fix the crash when the config file is empty.", "Fix the crash when the config file is empty"),
    ("Add a `--verbose` flag to the CLI.", "Add a `--verbose` flag to the CLI"),
    ("## Handle missing keys in `merge`\n\nDetails.", "Handle missing keys in `merge`"),
]


@pytest.mark.parametrize("explanation, subject", OPENINGS, ids=[s for _, s in OPENINGS])
def test_subject_of_realistic_openings(explanation, subject):
    msg = message(explanation)
    assert subject_of(msg) == subject


def test_the_corpus_is_large_and_varied():
    assert len(OPENINGS) >= 40
    assert len({e.split()[0] for e, _ in OPENINGS}) >= 20


@pytest.mark.parametrize("sentence, rewritten", [
    ("I'll add X", "Add X"),
    ("i will add x", "Add x"),
    ("Let me fix X", "Fix X"),
    ("I've updated X", "Update X"),
    ("I have just added X", "Add X"),
    ("We added X", "Add X"),
    ("I'll `pip install` it", "I'll `pip install` it"),  # not a plain word: left alone
    ("I'll explain", "I'll explain"),  # chat, not a change: left alone here
    ("I updated", "I updated"),
    ("I've frobnicated X", "I've frobnicated X"),  # an unknown verb: left alone
    ("Let me know", "Let me know"),
    ("Add X", "Add X"),
])
def test_imperative(sentence, rewritten):
    assert imperative(sentence) == rewritten


# ---------------------------------------------------------------- closing chat

@pytest.mark.parametrize("explanation", [
    "Fix the loop.\n\nIt stopped one item early. Let me know if you have any questions!",
    "Fix the loop.\n\nIt stopped one item early.\n\nHope this helps!",
    "Fix the loop.\n\nIt stopped one item early. Feel free to ask for tests.",
    "Fix the loop.\n\nIt stopped one item early. Would you like me to add a test?",
    "Fix the loop.\n\nIt stopped one item early.\n\nPlease let me know if this works. Happy coding!",
])
def test_closing_chat_is_not_in_the_body(explanation):
    msg = message(explanation, trailers=False)
    assert msg == "Fix the loop\n\nIt stopped one item early.\n"


# ---------------------------------------------------------------- the model's trailers

def parse(msg: str) -> list[str]:
    return subprocess.run(["git", "interpret-trailers", "--parse"], input=msg, text=True,
                          capture_output=True, check=True).stdout.splitlines()


@needs_git
@pytest.mark.parametrize("explanation, theirs", [
    ("Fix the crash on empty input.\n\nThe parser indexed [0] first.\n\nFixes: #123",
     ["Fixes: #123"]),
    ("Fix the crash.\n\nThe parser indexed [0] first, which is a rather long line that "
     "the body wrapping would fold.\nFixes: #123\nCo-authored-by: Ann Example <ann@example.com>",
     ["Fixes: #123", "Co-authored-by: Ann Example <ann@example.com>"]),
    ("Fix the crash.\n\n**Closes:** #9\nReviewed-by: Bo <bo@example.com>",
     ["Closes: #9", "Reviewed-by: Bo <bo@example.com>"]),
    ("Fix the crash.\n\nRefs: JIRA-1\n\nLet me know if this helps!", ["Refs: JIRA-1"]),
])
def test_trailers_the_model_wrote_join_ours(explanation, theirs):
    msg = message(explanation)
    ours = ["AI-Format: apply-patch", f"AI-Response: {RID}", "AI-Model: m"]
    assert parse(msg) == theirs + ours
    paragraphs = msg.rstrip("\n").split("\n\n")
    assert paragraphs[-1].splitlines() == theirs + ours  # one block, lines as written
    assert not any(t in "\n\n".join(paragraphs[:-1]) for t in theirs)
    trailers_only = message(explanation, trailers=False)
    assert parse(trailers_only) == theirs


@needs_git
@pytest.mark.parametrize("explanation", [
    "Fix it.\n\nNote: this looks like a trailer.",  # not a trailer key git users write
    "Fix it.\n\nFixes: #1\n\nThe rest of the story.",  # not at the end
    "Fix it.\n\nAI-Response: ffffffffffffffff",  # our own keys are never the model's
    "Fix it.\n\n```\nFixes: #1\n```",  # inside code
])
def test_lines_that_are_not_the_models_trailers_stay_in_the_body(explanation):
    msg = message(explanation)
    assert parse(msg) == ["AI-Format: apply-patch", f"AI-Response: {RID}", "AI-Model: m"]


# ---------------------------------------------------------------- control bytes

_CONTROLS = [chr(c) for c in range(32) if chr(c) not in "\n\t"] + ["\x7f", "\x85", "\x9b"]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_CONTROLS + ["Fix it", ". ", "\n", "\n\n", "`",
                                                       "```\n", "- ", "Fixes: #1"]),
                          st.text(max_size=8)), max_size=30).map("".join))
def test_no_control_byte_reaches_the_message(explanation):
    msg = message(explanation, model="m\x00\x1b[31m")
    assert not any(c in msg for c in _CONTROLS)


@needs_git
def test_git_fsck_strict_accepts_the_commit(tmp_path):
    env = {"GIT_AUTHOR_NAME": "A", "GIT_AUTHOR_EMAIL": "a@example.com",
           "GIT_COMMITTER_NAME": "A", "GIT_COMMITTER_EMAIL": "a@example.com",
           "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def git(*args, input=None):
        return subprocess.run(["git", *args], cwd=tmp_path, env=env, input=input,
                              capture_output=True, check=True).stdout

    git("init", "-q")
    tree = git("write-tree").strip().decode()
    msg = message("Sure!\x00 I'll add\x1b[2J a flag.\r\n\nBody\x07 text.\n\nFixes: #1\x00")
    oid = git("commit-tree", tree, input=msg.encode()).strip().decode()
    git("update-ref", "HEAD", oid)
    git("fsck", "--strict")
    stored = git("cat-file", "commit", oid).split(b"\n\n", 1)[1].decode()
    assert stored == msg and stored.startswith("Add a flag\n")


@needs_git
def test_a_long_trailer_stays_on_one_line():
    long = "Co-authored-by: " + "A Very Long Name " * 5 + "<someone@example.com>"
    msg = message("Fix the crash.\n\n" + long)
    assert long in msg.splitlines()
    assert parse(msg)[0] == long


def test_chat_words_inside_a_paragraph_stay_only_the_closing_run_goes():
    # "If you run into ..." and "Enjoy ..." may say what the change does; a trailing run
    # of closing chat ("let me know" anywhere in it) goes
    explanation = ("Retry on rate limits.\n\nThe client now retries with a delay. If you run "
                   "into a 429, it waits for Retry-After. If anything breaks, let me know. "
                   "Happy coding!")
    msg = message(explanation, trailers=False)
    assert msg == ("Retry on rate limits\n\nThe client now retries with a delay. If you run "
                   "into a 429, it waits for\nRetry-After.\n")
