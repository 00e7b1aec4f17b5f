"""trailers.py, the one reader and writer of commit trailers: checked against git's own
reader (`git interpret-trailers --parse`) on messages nobody here wrote for it."""
from __future__ import annotations

import subprocess

import pytest

from git_aiapply.message.trailers import (AI_RESPONSE, add_trailers, ends_with_trailers,
    parse_trailers, read_trailers, trailer_values)

RID = "0123456789abcdef"

MESSAGES = [
    f"Subject\n\nBody.\n\nAI-Format: unified-diff\nAI-Response: {RID}\n",
    "Subject\n\nKey: a\nKey: b\n",
    "Subject\n\nKey: a\n  continued\n\tand more\nOther:x\n",
    "Subject\n\nSigned-off-by: A <a@b>\n(cherry picked from commit 123)\n",
    "Subject\r\n\r\nAI-Response: abc\r\n",
    "AI-Response: abc\n",  # one paragraph: the subject, never trailers
    "\n\nAI-Response: abc\n",  # blank lines first: an empty subject
    f"Subject\n\nBody line\nAI-Response: {RID}\n",  # prose in the block, nothing git writes
    "Subject\n\nBody line\nSigned-off-by: A <a@b>\n",  # a quarter rule: git's own trailer
    "Subject\n\none\ntwo\nthree\nfour\nSigned-off-by: A <a@b>\n",  # under a quarter
    "Subject\n\nNot a trailer: spaces in the key\n",
    "Subject\n\nKey : spaced colon\n",
    f"Subject\n\nAI-Response: {RID}\n\nFinal prose.\n",
    "Subject\n\n  indented: first line\nKey: v\n",  # a blank-led line continues nothing
    "Subject\n\nKéy: not ascii\n",
    "Subject\n\nKey: v\n\n\n\n",
    "",
]


def _git_reads(message: str) -> list[tuple[str, str]]:
    out = subprocess.run(["git", "interpret-trailers", "--parse", "--no-divider"],
                         input=message.encode(), capture_output=True, check=True).stdout.decode()
    return [tuple(part.strip() for part in line.split(":", 1)) for line in out.splitlines()]


@pytest.mark.parametrize("message", MESSAGES)
def test_reads_what_git_reads(message):
    assert read_trailers(message) == _git_reads(message)


def test_first_value_wins_and_keys_compare_without_case():
    msg = f"Subject\n\nai-response: {RID}\nAI-Response: fedcba9876543210\n"
    assert parse_trailers(msg) == {"ai-response": RID, "AI-Response": "fedcba9876543210"}
    assert trailer_values(msg, AI_RESPONSE) == [RID, "fedcba9876543210"]


def test_comment_lines_and_the_scissors_are_what_git_commit_strips():
    msg = (f"Subject\n\nAI-Response: {RID}\n# Please enter the commit message\n#\n"
           "# ------------------------ >8 ------------------------\nKey: below the cut\n")
    assert read_trailers(msg, comment_char="#") == [(AI_RESPONSE, RID)]
    assert read_trailers(msg) == []  # read as it stands, the comments are prose
    assert read_trailers("Subject\n\n; a comment\nKey: v\n", comment_char=";") == [("Key", "v")]


@pytest.mark.parametrize("message, joined", [
    ("Fix it", "Fix it\n\nSigned-off-by: A <a@b>\n"),
    ("Fix it\n\nBody: not alone\nprose", "Fix it\n\nBody: not alone\nprose\n\nSigned-off-by: A <a@b>\n"),
    ("Fix it\n\nCo-authored-by: B <b@c>\n\n", "Fix it\n\nCo-authored-by: B <b@c>\nSigned-off-by: A <a@b>\n"),
])
def test_add_trailers_joins_an_existing_block_as_git_does(message, joined):
    assert add_trailers(message, ["Signed-off-by: A <a@b>"]) == joined
    assert ends_with_trailers(joined)
    # git commit --signoff agrees
    git = subprocess.run(["git", "interpret-trailers", "--trailer", "Signed-off-by: A <a@b>"],
                         input=message.encode() + b"\n", capture_output=True,
                         check=True).stdout.decode()
    assert git.rstrip("\n") == joined.rstrip("\n")


# --------------------------------------------------------------------------- end to end

EDIT = """Loud greeting.

```diff
--- a/a.txt
+++ b/a.txt
@@ -1 +1 @@
-hello
+HELLO
```
"""


def test_a_response_id_quoted_in_prose_is_no_earlier_run(repo):
    """The repeated-response search asks the trailer block: a commit that only quotes the
    id in its prose did not apply the response."""
    from git_aiapply.answer.response import response_id

    repo.write("a.txt", "hello\n")
    rid = response_id(EDIT.encode())
    repo.git("add", "a.txt")
    repo.git("commit", "-qm", f"Base\n\nThe model once answered\n{AI_RESPONSE}: {rid}\nbut we did not take it.")
    r = repo.run(response=EDIT)
    assert r.returncode == 0, r.err
    assert repo.read("a.txt") == b"HELLO\n"
    assert trailer_values(repo.message(), AI_RESPONSE) == [rid]
    again = repo.run(response=EDIT)  # the commit just made holds it as a trailer
    assert again.returncode == 0 and "already applied" in again.out
    assert repo.count() == 2


def test_message_option_trailers_join_the_users_trailer_block(repo):
    repo.write("a.txt", "hello\n")
    repo.commit_all("base")
    r = repo.run("-m", "Shout\n\nCo-authored-by: B <b@c>", "--signoff", response=EDIT)
    assert r.returncode == 0, r.err
    git_read = repo.git("log", "-1", "--format=%(trailers:only,unfold)").strip().splitlines()
    assert [k for k, _ in read_trailers(repo.message())] == [
        line.split(":")[0] for line in git_read]
    assert git_read[0] == "Co-authored-by: B <b@c>" and git_read[-1].startswith("Signed-off-by:")
    assert {"AI-Format", "AI-Response"} <= {line.split(":")[0] for line in git_read}
