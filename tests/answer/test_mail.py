"""`git format-patch` mails read as `git am` reads them (answer/mail.py, BEHAVIOR.md §1):
one commit per mail, the mail's author, date, subject and body, the signature left out."""
from __future__ import annotations

import subprocess

import pytest

from git_aiapply.answer.mail import read_mail, split_mbox
from git_aiapply.answer.response import read_response

MAIL = """From 452a2dbe64491df1ae09ea298eafcba41b2ae67e Mon Sep 17 00:00:00 2001
From: =?UTF-8?q?Ren=C3=A9e=20Author?= <renee@x.org>
Date: Sat, 28 Nov 2026 21:32:04 +0100
Subject: [PATCH v2 1/2] Raise the limit to 5 so that long
 queues drain

Because five is better.

Signed-off-by: Renée Author <renee@x.org>
---
 f1.py | 2 +-
 1 file changed, 1 insertion(+), 1 deletion(-)

diff --git a/f1.py b/f1.py
index c78d02e..94b923b 100644
--- a/f1.py
+++ b/f1.py
@@ -1,3 +1,3 @@
 x = 0
-LIMIT = 1
+LIMIT = 5
 y = 2
-- 
2.39.5

"""


def test_a_mail_gives_its_author_date_message_and_patch():
    mail, patch = read_mail(MAIL)
    assert (mail.author_name, mail.author_email) == ("Renée Author", "renee@x.org")
    assert mail.date == "Sat, 28 Nov 2026 21:32:04 +0100"
    assert mail.subject == "Raise the limit to 5 so that long queues drain"
    assert mail.body == "Because five is better.\n\nSigned-off-by: Renée Author <renee@x.org>"
    assert patch.startswith(" f1.py | 2 +-") and patch.rstrip().endswith(" y = 2")
    assert "2.39.5" not in patch and "\n-- \n" not in patch


def test_the_response_of_a_mail_is_its_patch():
    r = read_response(MAIL.encode(), "0001-raise.patch")
    assert r.mail is not None and "diff --git" in r.text and "2.39.5" not in r.text


@pytest.mark.parametrize("text", [
    "From me to you\n\nhello",  # not the mail's first line
    MAIL.replace("Subject:", "X-Subject:"),  # no subject
    "Some answer.\n\n" + MAIL,
])
def test_not_a_mail(text):
    assert read_mail(text) is None


def test_a_removed_line_that_looks_like_the_signature_is_kept():
    patch = MAIL.replace("-LIMIT = 1\n", "-LIMIT = 1\n-- \n").replace("@@ -1,3", "@@ -1,4")
    _mail, body = read_mail(patch.split("-- \n2.39.5")[0])
    assert "\n-- \n" in body


def test_an_mbox_splits_into_its_mails():
    second = MAIL.replace("452a2dbe", "552a2dbe").replace("1/2", "2/2")
    mails = split_mbox((MAIL + second).encode())
    assert [m[:46] for m in mails] == [MAIL[:46].encode(), second[:46].encode()]
    assert split_mbox(MAIL.encode()) is None and split_mbox(b"hello") is None


def _git(repo, *args, author: tuple[str, str] | None = None) -> str:
    env = dict(repo.env)
    if author:
        env.update(GIT_AUTHOR_NAME=author[0], GIT_AUTHOR_EMAIL=author[1],
                   GIT_AUTHOR_DATE="1700000000 +0200")
    return subprocess.run(["git", *args], cwd=repo.root, env=env, check=True,
                          capture_output=True, text=True).stdout


def test_the_command_applies_a_series_as_git_am_would(repo, env, tmp_path):
    repo.write("f.py", "a = 1\nb = 2\n")
    base = repo.commit_all("base")
    repo.write("f.py", "a = 10\nb = 2\n")
    _git(repo, "commit", "-qam", "First change\n\nIts reason.", author=("Ann A", "ann@x.org"))
    repo.write("f.py", "a = 10\nb = 20\n")
    _git(repo, "commit", "-qam", "Second change", author=("Bob B", "bob@x.org"))
    mbox = tmp_path / "series.mbox"
    mbox.write_text(_git(repo, "format-patch", "-2", "--stdout"))
    want = _git(repo, "rev-parse", "HEAD^{tree}")
    _git(repo, "reset", "-q", "--hard", base)
    r = repo.run(str(mbox))
    assert r.returncode == 0, r.err
    assert _git(repo, "rev-parse", "HEAD^{tree}") == want
    log = _git(repo, "log", "-2", "--format=%an <%ae>|%ad|%s|%b", "--date=raw")
    assert log.startswith("Bob B <bob@x.org>|1700000000 +0200|Second change|AI-Format: unified-diff")
    assert "Ann A <ann@x.org>|1700000000 +0200|First change|Its reason." in log
    # --author wins over the mail's, as for git am's --author... (one mail)
    _git(repo, "reset", "-q", "--hard", base)
    one = tmp_path / "one.patch"
    one.write_text(_git(repo, "format-patch", "-1", "--stdout", "HEAD@{1}~1"))
    r = repo.run("--author", "Carl C <carl@x.org>", str(one))
    assert r.returncode == 0, r.err
    assert _git(repo, "log", "-1", "--format=%an|%s") == "Carl C|First change\n"
