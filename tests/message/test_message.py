"""The commit message built from a response's explanation (BEHAVIOR.md §8)."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from git_aiapply.message.explanation import strip_markup
from git_aiapply.message.changes import describe_changes
from git_aiapply.message.message import (build_message, fit_subject, is_generic, sentence_end,
                                         subject_of)
from git_aiapply.message.trailers import parse_trailers

RID = "0123456789abcdef"
CHANGED = [("update", "src/app.py")]


def message(explanation: str, **kw) -> str:
    args = dict(formats=["apply-patch"], response_id=RID, model=None, descriptions=[],
                changed=CHANGED)
    args.update(kw)
    return build_message(explanation, **args)


def split(msg: str) -> tuple[str, str]:
    """(subject, body without trailers)."""
    assert msg.endswith("\n") and not msg.endswith("\n\n")
    paragraphs = msg.rstrip("\n").split("\n\n")
    if paragraphs[-1].startswith("AI-"):
        paragraphs = paragraphs[:-1]
    return paragraphs[0], "\n\n".join(paragraphs[1:])


# ---------------------------------------------------------------- subjects

SUBJECTS = [
    # plain first sentences
    ("Fix the crash when the config file is empty.", "Fix the crash when the config file is empty"),
    ("Fix the crash. Also tidy the imports.", "Fix the crash"),
    ("Stop retrying on 4xx errors! They never succeed.", "Stop retrying on 4xx errors"),
    ("Does this need a lock? Yes, so I added one.", "Does this need a lock?"),
    ("Rename the flag:", "Rename the flag"),
    ("Bump the minimum version to 1.2. The old one lacks `match`.", "Bump the minimum version to 1.2"),
    ("Use `os.path.join` (e.g. for Windows paths) instead. Then more.",
     "Use `os.path.join` (e.g. for Windows paths) instead"),
    ("Cache results, i.e. the parsed config. Faster start-up.", "Cache results, i.e. the parsed config"),
    ("Support Python 3.12. vs. 3.11 nothing else changes.", "Support Python 3.12. vs. 3.11 nothing else changes"),
    ("Call `obj.close(). finally` in the handler. Done.", "Call `obj.close(). finally` in the handler"),
    ("The cache (see `cache.py`.) was stale. Now fixed.", "The cache (see `cache.py`.) was stale"),
    # hard-wrapped prose: the sentence spans lines
    ("Make the retry loop honour the\ntimeout. Before, it slept forever.",
     "Make the retry loop honour the timeout"),
    # headings: the text counts, generic ones are skipped
    ("# Fix `parse_args` when no arguments are given\n\nDetails.", "Fix `parse_args` when no arguments are given"),
    ("## Summary\n\nThe loader now skips empty sections.", "The loader now skips empty sections"),
    ("### Changes made:\nAdd a `--quiet` flag.", "Add a `--quiet` flag"),
    ("## **Summary**\n\nRemove dead code.", "Remove dead code"),
    ("## 🔧 Changes\n\nRemove dead code.", "Remove dead code"),
    ("# Plan\n\n## Explanation\n\n## Overview\n\nDrop Python 3.8 support.", "Drop Python 3.8 support"),
    ("Summary\n=======\n\nThe cache key ignored the locale.", "The cache key ignored the locale"),
    ("Solution\n--------\nHandle `None` in `merge`.", "Handle `None` in `merge`"),
    ("## Root cause\n\nThe lock was never released.", "The lock was never released"),
    # bold first lines and lead-ins
    ("**Fix the off-by-one in `paginate`**\n\nThe last page was dropped.", "Fix the off-by-one in `paginate`"),
    ("**Fix the off-by-one in `paginate`**\nThe last page was dropped.", "Fix the off-by-one in `paginate`"),
    ("**Summary:** Fixed the race in the job queue. It now locks.", "Fixed the race in the job queue"),
    ("**Summary**: Fixed the race in the job queue.", "Fixed the race in the job queue"),
    ("__Explanation__\n\nThe parser ignored tabs.", "The parser ignored tabs"),
    ("**Fix.** Guard against a missing key.", "Guard against a missing key"),
    ("Summary: the parser ignored tabs.", "The parser ignored tabs"),
    ("fix: handle None in parse", "Handle None in parse"),
    ("fix: parse_args accepts no arguments", "parse_args accepts no arguments"),
    ("feat(cli): add a --json flag", "feat(cli): add a --json flag"),
    # "Here's the fix" preambles and fillers
    ("Here's the fix:\n\nGuard against an empty list in `mean`.", "Guard against an empty list in `mean`"),
    ("Here is the fix:\nGuard against an empty list.", "Guard against an empty list"),
    ("Here\u2019s the updated code:\n\nThis fixes the bug where x was 0.", "This fixes the bug where x was 0"),
    ("Here are the changes.\n\nAdd type hints to `utils`.", "Add type hints to `utils`"),
    ("Sure! Here's the fix:\n\nClose the file handle.", "Close the file handle"),
    ("Sure, here's the patch you need:\n\nClose the file handle.", "Close the file handle"),
    ("Certainly. I added a lock around the counter.", "Add a lock around the counter"),
    ("Okay, I changed the timeout from 5 to 30 seconds! That should help.",
     "Change the timeout from 5 to 30 seconds"),
    ("Great question! Good catch. The loop should stop at `len(items) - 1`. I fixed it.",
     "The loop should stop at `len(items) - 1`"),
    ("Here's the fix for the off-by-one error in `paginate`:", "Fix the off-by-one error in `paginate`"),
    # round 4: narration made a description where that is mechanical
    ("Here is a patch that makes retries respect the timeout:",
     "Make retries respect the timeout"),
    ("Here are the changes to make the loop stop early.", "Make the loop stop early"),
    ("I've made the following changes:\n\n- Remove the global\n- Pass the config in",
     "Remove the global"),
    # lists
    ("Changes:\n- Fix the off-by-one in paginate\n- Add a test for the last page",
     "Fix the off-by-one in paginate"),
    ("1. Rename `foo` to `bar`.\n2. Update the callers.", "Rename `foo` to `bar`"),
    ("* **Parser**: accept tabs", "Parser: accept tabs"),
    ("- Fix it\n  ```\n  code\n  ```\n- next", "Fix it"),
    ("- [x] Drop the global lock\n- [ ] Add tests", "Drop the global lock"),
    # markup removed
    ("I've updated the [README](https://example.com/readme) to mention *optional* deps.",
     "Update the README to mention optional deps"),
    ("Use __slots__ in `Point`.", "Use slots in `Point`"),
    ("Keep snake_case_names and 2 * 3 = 6 intact.", "Keep snake_case_names and 2 * 3 = 6 intact"),
    ("Escape \\*stars\\* in the output.", "Escape *stars* in the output"),
    ("See <https://example.com/issue/1> for details.", "See https://example.com/issue/1 for details"),
    ("Mark the `plain words` span and keep `x = 1`.", "Mark the plain words span and keep `x = 1`"),
    ("Add ``code with ` tick`` support.", "Add `` code with ` tick `` support"),
    ("Support ![logo](logo.png) images and [refs][1].", "Support logo images and refs"),
    # non-prose before the first sentence is skipped (and kept in the body)
    ("```\ncode first\n```\n\nThen the explanation.", "Then the explanation"),
    ("    indented code\n\nPlain text after code.", "Plain text after code"),
    ("| a | b |\n|---|---|\n| 1 | 2 |\n\nThe table above shows it.", "The table above shows it"),
    ("> quoted error\n\nHandle the quoted error.", "Handle the quoted error"),
    ("---\nRefactor the loader.\n---", "Refactor the loader"),
    ("<think>\nthe user wants a fix. Let me think.\n</think>\nRemove the unused import.",
     "Remove the unused import"),
    ("Let me know if this works.\n\nRename foo to bar.", "Rename foo to bar"),
    ("a | b\n--|--\n1 | 2\n\nThe table above shows it.", "The table above shows it"),
    # a generic-looking first line that hard wrapping cut short is not skipped
    ("Here's the fix\nfor the crash on empty input.", "Fix the crash on empty input"),
    ("Here's the fix\nThe crash came from empty input.", "The crash came from empty input"),
    ("Summary\nThe crash came from empty input.", "The crash came from empty input"),
    # prose before and after a change block, joined by the dispatcher
    ("Here is the change to `foo`:\nThis makes foo faster.", "Change `foo`"),
    ("There are two causes:\nthe lock and the timer.", "There are two causes: the lock and the timer"),
]


@pytest.mark.parametrize("explanation, subject", SUBJECTS, ids=[s for _, s in SUBJECTS])
def test_subject(explanation, subject):
    msg = message(explanation)
    assert split(msg)[0] == subject
    assert subject_of(msg) == subject


NO_PROSE = ["", "   \n\n", "## Summary\n", "Here's the fix:", "Sure!\n\nHere are the changes:",
            "**Changes**", "---", "```\n```", "Let me know if you need anything else!"]


@pytest.mark.parametrize("explanation", NO_PROSE)
def test_no_prose_names_the_changes(explanation):
    msg = message(explanation, changed=[("update", "src/app.py"), ("add", "src/util.py")])
    subject, body = split(msg)
    assert subject == "Update src/app.py, add src/util.py"
    assert body == ""


def test_only_code_gives_fallback_subject_and_keeps_the_code():
    subject, body = split(message("```sh\nmake test\n```"))
    assert subject == "Update src/app.py"
    assert body == "```sh\nmake test\n```"


# ---------------------------------------------------------------- long subjects
# (round 4: a sentence too long for the subject is never cut with an ellipsis; its main
# clause is the subject when one fits, else the change names the subject; the whole
# sentence opens the body either way)

LONG = ("Both `search` methods now raise `NotImplementedError`, so a caller that forgets "
        "to override them fails loudly instead of getting `None`.")


@pytest.mark.parametrize("explanation", [
    LONG,
    "Both `search` methods now raise `NotImplementedError`, so a caller that forgets\n"
    "to override them fails loudly instead of getting `None`.",
    "## " + LONG[:-1],
])
def test_long_sentence_gives_its_main_clause_and_opens_the_body(explanation):
    subject, body = split(message(explanation))
    assert subject == "Both `search` methods now raise `NotImplementedError`"
    assert " ".join(body.split()).startswith(LONG[:-1])


def test_long_sentence_then_rest_of_paragraph():
    text = LONG + " A second sentence follows."
    subject, body = split(message(text))
    assert subject == "Both `search` methods now raise `NotImplementedError`"
    assert " ".join(body.split()) == text
    assert all(len(line) <= 72 for line in body.splitlines())


def test_cut_after_lead_in_keeps_lead_in_out_of_the_body():
    subject, body = split(message("Sure! " + LONG))
    assert subject == "Both `search` methods now raise `NotImplementedError`"
    assert body.startswith("Both `search`") and "Sure" not in body


def test_a_long_sentence_without_a_clause_that_fits_lets_the_change_name_the_subject():
    text = ("Make the `RetryingHTTPAdapterWithExponentialBackoffAndJitter` honour the "
            "configured `max_retries_on_connection_reset_by_peer` setting.")
    subject, body = split(message(text + " It was ignored."))
    assert subject == "Update src/app.py"
    assert " ".join(body.split()) == text + " It was ignored."


@pytest.mark.parametrize("text, limit, expected", [
    ("short", 72, ("short", False)),
    ("a" * 72, 72, ("a" * 72, False)),
    ("Fix the loader.", 72, ("Fix the loader", False)),
    ("Fix the loader\u2026", 72, ("Fix the loader", False)),
    ("word " * 20, 72, ("", True)),  # no clause ends in it: no subject of it
    ("a" * 100, 72, ("", True)),
    ("one two, and three four", 12, ("one two", True)),
    ("Fix `a; b` here; and more words", 17, ("Fix `a; b` here", True)),  # not inside code
    ("x  y\tz", 72, ("x y z", False)),
])
def test_fit_subject(text, limit, expected):
    got = fit_subject(text, limit)
    assert got == expected
    assert len(got[0]) <= limit and not got[0].endswith("\u2026")


@pytest.mark.parametrize("limit", [20, 50, 72, 100])
def test_subject_max(limit):
    subject, _ = split(message(LONG, subject_max=limit))
    assert len(subject) <= limit
    assert not subject.endswith("\u2026")


# ---------------------------------------------------------------- bodies

RICH = """## Summary

**Fix the crash when the config file is empty.** The loader assumed at least one section, e.g. `[core]`, and indexed into an empty list, which raised `IndexError` on start-up for every new user. Now it returns the defaults instead.

### Details



The fix has two parts:

- `config.py`: return `Config()` when there are no sections; this is a long line that goes on well past the seventy-two column limit of a commit body.
- `tests/test_config.py`: add a test
  1. nested item kept as written

```python
def load(path):
    if not sections:   
        return Config()
```

    $ indented code stays as it is, even when it is much longer than seventy-two columns

| column | other |
|--------|-------|
| 1      | 2     |

***

Let me know if you need anything else!
"""


def test_rich_body():
    """(round 4: the body holds at most 15 lines, cut where a chunk ends: the code block
    after the list does not fit, so the body ends with the list; the rest of RICH is
    rendered on its own below.)"""
    subject, body = split(message(RICH))
    assert subject == "Fix the crash when the config file is empty"
    assert body == RICH_BODY.split("\n```python")[0].rstrip("\n")
    tail = RICH[RICH.index("```python"):]
    assert split(message("Fix it.\n\n" + tail))[1] == RICH_BODY[RICH_BODY.index("```python"):]


RICH_BODY = """\
The loader assumed at least one section, e.g. `[core]`, and indexed into
an empty list, which raised `IndexError` on start-up for every new user.
Now it returns the defaults instead.

Details

The fix has two parts:

- `config.py`: return `Config()` when there are no sections; this is a
  long line that goes on well past the seventy-two column limit of a
  commit body.
- `tests/test_config.py`: add a test
  1. nested item kept as written

```python
def load(path):
    if not sections:
        return Config()
```

    $ indented code stays as it is, even when it is much longer than seventy-two columns

| column | other |
|--------|-------|
| 1      | 2     |"""


BODY_CASES = [
    # (explanation, expected body)
    ("Fix it. " + "This sentence is repeated to fill the paragraph. " * 4,
     "This sentence is repeated to fill the paragraph. This sentence is\n"
     "repeated to fill the paragraph. This sentence is repeated to fill the\n"
     "paragraph. This sentence is repeated to fill the paragraph."),
    ("Fix it.\n\n\n\nSecond paragraph.\n\n\n", "Second paragraph."),
    ("Fix it.\nSecond line of the\nsame paragraph.", "Second line of the same paragraph."),
    ("Fix it.\n\n- a\n- b\n\n- c", "- a\n- b\n\n- c"),
    ("Fix it.\n\n```\n\n\ncode  \n\n\nmore\n```", "```\n\n\ncode\n\n\nmore\n```"),
    ("Fix it.\n\n~~~~ python\n```\nnot a close\n```\n~~~~", "~~~~ python\n```\nnot a close\n```\n~~~~"),
    ("Fix it.\n\n```\nunclosed fence\n\n# a comment", "```\nunclosed fence\n\n# a comment"),
    ("Fix it.\n\n## Testing\nRun `make test`.", "Testing\n\nRun `make test`."),
    ("Fix it.\n\nSee:\n```\nx\n```", "See:\n```\nx\n```"),
    ("Fix it.\n\n---\n\nAfter the break.", "After the break."),
    ("Fix it.\n\nHope this helps!", ""),
    ("- Fix the parser.\n- Add tests.\n- Update docs.", "- Add tests.\n- Update docs."),
    ("- Fix the parser. It dropped tabs.\n- Add tests.", "- It dropped tabs.\n- Add tests."),
    ("Changes:\n\n- Fix the parser\n\n  Indented continuation.\n- Add tests",
     "  Indented continuation.\n- Add tests"),
    ("- Fix it\n  ```\n  code\n  ```\n- next", "  ```\n  code\n  ```\n- next"),
    ("- Fix it. Then\n  ```\n  code\n  ```", "- Then\n  ```\n  code\n  ```"),
    ("Fix it.\n\n- item with code\n  ```\n  a very long line inside the fenced code of a list item that is kept verbatim\n  ```",
     "- item with code\n  ```\n  a very long line inside the fenced code of a list item that is kept verbatim\n  ```"),
    ("Fix it.\n\n> a quote\n> continues", "> a quote\n> continues"),
    ("Update `foo` as follows:\nThis makes foo faster.", "This makes foo faster."),
    ("Fix it.\n\nname | value that is long enough to pass the seventy-two column limit of a body\n"
     "-----|------\nx | 1\nAfter the table.",
     "name | value that is long enough to pass the seventy-two column limit of a body\n"
     "-----|------\nx | 1\nAfter the table."),
    ("Fix it.\n\n<think>\nsecret\n</think>\n\nAfter.", "After."),
    ("Fix it.\n\n1) first item that is long enough to be wrapped because it goes past the limit\n2) second",
     "1) first item that is long enough to be wrapped because it goes past the\n   limit\n2) second"),
]


@pytest.mark.parametrize("explanation, body", BODY_CASES)
def test_body(explanation, body):
    assert split(message(explanation))[1] == body


REALISTIC = [
    LONG,
    RICH,
    "I refactored the `Cache` class so that eviction happens lazily on read rather than on "
    "every write, which removes the background thread entirely and makes the tests deterministic. "
    "The public API is unchanged.\n\nOne caveat: `Cache.size` now counts expired entries until "
    "they are read. That matches what `functools.lru_cache` does, so I think it is acceptable, "
    "but let me know if you'd rather keep the eager behaviour.",
    "### Overview\nThis change introduces **structured logging** via the [`structlog`](https://www.structlog.org) "
    "library, replacing the ad-hoc `print` calls scattered across the codebase.\n\n"
    "### Notes\n* The log level is configurable through `LOG_LEVEL` environment variable, defaulting to `INFO` when unset.\n"
    "* JSON output is enabled when `LOG_FORMAT=json`.\n",
]


@pytest.mark.parametrize("explanation", REALISTIC)
def test_body_properties(explanation):
    msg = message(explanation, descriptions=[("src/app.py", "a description " * 10)])
    subject, body = split(msg)
    assert len(subject) <= 72 and "\n" not in subject
    assert not subject.endswith((".", ":"))
    in_code = False
    for line in body.splitlines():
        if line.lstrip().startswith("```"):
            in_code = not in_code
            continue
        if in_code or line.startswith("    ") or line.startswith("|"):
            continue
        assert len(line) <= 72, line
        assert not line.startswith("#"), line  # git would take it for a comment
        assert line.strip() not in ("---", "***", "___")
    if "\n\n\n" in msg:  # only a code block's own blank lines, kept as they are (§8)
        assert re.search(r"\n[ \t\r]*\n[ \t\r]*\n", explanation), msg
    assert body == body.strip()


def test_code_block_is_intact():
    code = "```python\ndef f(x):\n\n    # keep me\n    return  x   *  2\n```"
    subject, body = split(message("Double it.\n\n" + code + "\n\nThat is all for now, really."))
    assert code in body
    assert body.endswith("That is all for now, really.")


# ---------------------------------------------------------------- descriptions

def test_descriptions_become_bullets():
    msg = message("Count stray sheep too.", descriptions=[
        ("src/main.py", "Rename count_sheep to count_all_sheep and add\n  count_stray_sheep() to the sum"),
        ("src/b.py", "  "),  # empty: left out
        ("src/main.py", "Rename count_sheep to count_all_sheep and add count_stray_sheep() to the sum"),
        ("src/c.py", "Short."),
    ])
    assert msg == (
        "Count stray sheep too\n\n"
        "- src/main.py: Rename count_sheep to count_all_sheep and add\n"
        "  count_stray_sheep() to the sum\n"
        "- src/c.py: Short.\n\n"
        f"AI-Format: apply-patch\nAI-Response: {RID}\n")


def test_descriptions_without_prose():
    msg = message("", descriptions=[("a.py", "Tidy.")], changed=[("update", "a.py")])
    assert msg.startswith("Update a.py\n\n- a.py: Tidy.\n\nAI-Format:")


def test_codechange_seed_example():
    explanation = ("Stray sheep were missing from the total, so the counter now includes them and\n"
                   "its name says that it counts every sheep.")
    msg = build_message(explanation, formats=["codechange"], response_id=RID, model="gpt-5",
                        descriptions=[("src/main.py", "Rename count_sheep to count_all_sheep and add "
                                       "count_stray_sheep() to the sum")],
                        changed=[("update", "src/main.py")])
    assert "stray sheep" in subject_of(msg).lower()
    assert "count_stray_sheep" in msg
    assert parse_trailers(msg) == {"AI-Format": "codechange", "AI-Response": RID, "AI-Model": "gpt-5"}


# ---------------------------------------------------------------- trailers

@pytest.mark.parametrize("formats, model, lines", [
    (["apply-patch"], None, ["AI-Format: apply-patch", f"AI-Response: {RID}"]),
    (["file-changes", "hashline"], "claude-sonnet-4-5",
     ["AI-Format: file-changes, hashline", f"AI-Response: {RID}", "AI-Model: claude-sonnet-4-5"]),
    ([], "  gpt\n5  ", [f"AI-Response: {RID}", "AI-Model: gpt 5"]),
])
def test_trailers(formats, model, lines):
    msg = message("Fix it.", formats=formats, model=model)
    assert msg == "Fix it\n\n" + "\n".join(lines) + "\n"


def test_no_trailers():
    assert message("Fix it. More.", trailers=False) == "Fix it\n\nMore.\n"
    assert message("", trailers=False) == "Update src/app.py\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
@pytest.mark.parametrize("explanation", ["", "Fix it.", RICH, "Fix it.\n\nNote: this looks like a trailer.",
                                         "Fix it.\n\n---\n\nMore.", LONG])
def test_git_parses_the_trailers(explanation):
    msg = message(explanation, formats=["unified-diff", "codechange"], model="o4-mini",
                  descriptions=[("a.py", "desc")])
    out = subprocess.run(["git", "interpret-trailers", "--parse"], input=msg, text=True,
                         capture_output=True, check=True).stdout
    assert out.splitlines() == ["AI-Format: unified-diff, codechange", f"AI-Response: {RID}",
                                "AI-Model: o4-mini"]
    assert parse_trailers(msg) == {"AI-Format": "unified-diff, codechange", "AI-Response": RID,
                                   "AI-Model": "o4-mini"}


@pytest.mark.parametrize("msg, expected", [
    ("Subject\n\nBody.\n\nAI-Response: abc\nAI-Model: m\n", {"AI-Response": "abc", "AI-Model": "m"}),
    ("Subject\n\nKey: a\nKey: b\n", {"Key": "a"}),
    ("Subject\n\nKey: a\n  continued\nOther:x\n", {"Key": "a continued", "Other": "x"}),
    ("Subject\n\nSigned-off-by: A <a@b>\n(cherry picked from commit 123)\n", {"Signed-off-by": "A <a@b>"}),
    ("Subject\r\n\r\nAI-Response: abc\r\n", {"AI-Response": "abc"}),
    ("AI-Response: abc\n", {}),  # the subject is never a trailer
    ("Subject\n\nBody line\nAI-Response: abc\n", {}),  # mixed paragraph
    ("Subject\n\nNot a trailer: has spaces in key\n", {}),  # 'Not a trailer' has spaces
    ("Subject\n\nAI-Response: abc\n\nFinal prose.\n", {}),
    ("", {}),
])
def test_parse_trailers(msg, expected):
    assert parse_trailers(msg) == expected


@pytest.mark.parametrize("msg, subject", [
    ("Subject\n\nBody", "Subject"),
    ("\n\nSubject line one\nline two\n\nBody", "Subject line one line two"),
    ("", ""),
])
def test_subject_of(msg, subject):
    assert subject_of(msg) == subject


# ---------------------------------------------------------------- fallback subject

@pytest.mark.parametrize("changed, expected", [
    ([("update", "src/app.py")], "Update src/app.py"),
    ([("update", "src/app.py"), ("add", "src/util.py")], "Update src/app.py, add src/util.py"),
    ([("update", "a.py"), ("update", "b.py"), ("add", "c.py")], "Update a.py and b.py, add c.py"),
    ([("update", "a.py"), ("update", "b.py"), ("update", "c.py")], "Update a.py, b.py and c.py"),
    ([("rename", "docs/OLD_README.md -> README.md"), ("delete", "temp_notes.txt")],
     "Rename docs/OLD_README.md to README.md, delete temp_notes.txt"),
    ([("update", f"src/module_{i}.py") for i in range(10)],
     "Update src/module_0.py, src/module_1.py and 8 more files"),
    # even the base name does not fit: the count remains
    ([("add", "a/" + "x" * 80 + ".py")], "Add 1 file"),
    ([("add", "a/" + "x" * 80 + ".py"), ("delete", "b.py")], "Change 2 files"),
    ([("add", "a/" + "x" * 30 + ".py"), ("delete", "b/" + "y" * 60 + ".py")],
     "Add a/" + "x" * 30 + ".py and 1 more file"),
    # base names when a path is too long but its name fits
    ([("update", "very/deep/" * 8 + "name.py")], "Update name.py"),
    ([], "Apply AI response"),
])
def test_describe_changes(changed, expected):
    got = describe_changes(changed)
    assert len(got) <= 72
    assert got == expected


def test_describe_changes_limit():
    changed = [("update", f"pkg/file{i}.py") for i in range(3)]
    assert describe_changes(changed, 40) == "Update pkg/file0.py and 2 more files"
    assert describe_changes(changed, 10) == "Update"  # round 4: no ellipsis, a complete word
    assert describe_changes(changed, 3) == "Upd"  # shorter than any word: cut, never "…"


# ---------------------------------------------------------------- helpers

@pytest.mark.parametrize("text, expected", [
    ("**bold** and *it* and _it_ and __b__", "bold and it and it and b"),
    ("***both***", "both"),
    ("**unclosed bold", "**unclosed bold"),
    ("a_b_c and __init__.py", "a_b_c and init.py"),
    ("`**not bold**` kept", "`**not bold**` kept"),
    ("[text](http://x (y)) tail", "text) tail"),
    ("[x] not a link", "[x] not a link"),
    ("`` ` ``", "`` ` ``"),
    ("`plain words` and `x=1`", "plain words and `x=1`"),
    ("\\_not emphasis\\_", "_not emphasis_"),
    ("<https://a.b/c> and <b>", "https://a.b/c and <b>"),
])
def test_strip_markup(text, expected):
    assert strip_markup(text) == expected


@pytest.mark.parametrize("line, generic", [
    ("Summary", True), ("## Summary:", True), ("**Changes made**", True), ("Here's the fix:", True),
    ("Here is the updated code", True), ("Here are the complete, updated files:", True),
    ("Here are the updated files:", True), ("Sure!", True), ("TL;DR", True),
    ("Here's the fix for the crash", False), ("Fix the crash", False), ("Changes to `parse`", False),
    ("", True), ("x" * 200, False),
])
def test_is_generic(line, generic):
    assert is_generic(line) is generic


@pytest.mark.parametrize("text, end", [
    ("One. Two.", 4), ("No end", 6), ("A `b. c` d. E", 11), ("e.g. this. That", 10),
    ("Wait!! Really", 6), ("End.)", 5), ("**Bold.** Next", 9), ("1. 2", 2), ("v1. then", 8),
])
def test_sentence_end(text, end):
    assert sentence_end(text) == end


def test_pathological_input_gives_a_short_subject():
    """(Its linear time is measured by bench/linear.py, not here.)"""
    # big enough that a quadratic step would show; the linear time itself is bench's
    nasty = ["`" * 15000, "[" * 15000, "*a" * 15000, "_" * 15000, "e.g. " * 6000,
             "x" * 60000, ("word " * 12000) + ".", "> q\n" * 6000, "- " * 15000,
             "|" * 15000, "#" * 15000, "\\*" * 15000, "<" * 15000, "![" * 15000]
    for text in nasty:
        msg = message(text)
        assert len(subject_of(msg)) <= 72, text[:20]


def test_textwrap_is_imported_lazily():
    import sys
    code = "import sys, git_aiapply.message.message; print('textwrap' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_empty_heading_adds_no_blank_lines_to_the_body():
    # found by the property below: "# " between two headings made three blank lines
    msg = message("## Summary# \n# \n# # # ", subject_max=72, model="m")
    # (round 4: a heading with nothing after it is left out of the body)
    assert msg.startswith("Summary#\n\nAI-Format: apply-patch\n")


# ---------------------------------------------------------------- any input

from hypothesis import given, settings, strategies as st  # noqa: E402

_PIECES = st.sampled_from([
    "# ", "## Summary", "**", "__", "*", "_", "`", "```", "~~~", "    ", "- ", "1. ", "> ", "| a |",
    "---", "===", "[x](y)", "<https://a>", "Here's the fix:", "Sure! ", "e.g. ", "1.2. ", "\n", "\n\n",
    "\r\n", "\t", ". ", "! ", "? ", ":", "Fix the bug", "word", "\u2019", "\\", "<think>", "</think>",
    "\U0001f600", "\udcff",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=20)), max_size=40).map("".join),
       st.integers(min_value=5, max_value=100))
def test_any_explanation_gives_a_valid_message(explanation, limit):
    msg = message(explanation, subject_max=limit, model="m")
    subject = msg.split("\n", 1)[0]
    assert subject.strip() and len(subject) <= limit
    assert msg.split("\n")[1] == ""
    assert parse_trailers(msg) == {"AI-Format": "apply-patch", "AI-Response": RID, "AI-Model": "m"}
    if "\n\n\n" in msg:  # only a code block's own blank lines, kept as they are (§8)
        assert re.search(r"\n[ \t\r]*\n[ \t\r]*\n", explanation), msg
