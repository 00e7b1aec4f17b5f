"""Looking before writing and the commit's options, end to end: --check, --diff (colour
and pager), --json, --edit, --quiet, -m/-F, --signoff, signing through gpg.program, the
aiapply.* settings, and the texts of refusals a model gets back."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import GitRepo, LOUDER_BETA, run_on_terminal

RESPONSE = LOUDER_BETA

NOT_FOUND = """Fix gamma.

```diff
--- a/src/b.txt
+++ b/src/b.txt
@@
 alpha
-gamma
+GAMMA
```
"""

JSON_KEYS = {"response", "response_id", "model", "status", "exit_code", "commit", "branch", "base",
             "formats", "files", "added", "removed", "message", "note", "error_kind", "fault", "errors",
             "error_text", "warnings", "hook_output", "diff"}




@pytest.fixture
def based(repo: GitRepo) -> GitRepo:
    repo.write("src/b.txt", "alpha\nbeta\n")
    repo.write("old.txt", "old\n")
    repo.commit_all("base")
    repo.settle()
    return repo


# --------------------------------------------------------------------------- --check / --diff


def test_check_writes_nothing(based: GitRepo):
    before = based.snapshot()
    r = based.run("--check", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert "applies cleanly (1 file, +1 -1)" in r.out
    assert based.snapshot() == before
    r = based.run("--check", response=NOT_FOUND)
    assert r.returncode == 1
    assert "could not find" in r.err
    assert based.snapshot() == before


def test_diff_is_the_diff_git_shows_afterwards(based: GitRepo):
    before = based.snapshot()
    r = based.run("--diff", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert based.snapshot() == before
    assert "\x1b[" not in r.out  # not a terminal: no colour
    assert based.run(response=RESPONSE).returncode == 0
    shown = based.git("diff", "HEAD~1", "HEAD")
    body = lambda d: [l for l in d.splitlines() if not l.startswith("index ")]
    assert body(r.out) == body(shown)


def test_diff_colours_as_configured(based: GitRepo):
    based.git("config", "color.diff", "always")
    r = based.run("--diff", response=RESPONSE)
    assert "\x1b[31m-beta\x1b[m" in r.out and "\x1b[32m+BETA\x1b[m" in r.out
    based.git("config", "color.diff", "never")
    based.git("config", "color.ui", "always")
    assert "\x1b[" not in based.run("--diff", response=RESPONSE).out


def _run_on_terminal(repo: GitRepo, args: list[str], env: dict) -> str:
    """Run the tool with its standard output on a pseudo-terminal; what it printed."""
    return run_on_terminal(args, cwd=repo.root, env=env)[1]


def test_diff_on_a_terminal_uses_the_pager_and_colour(based: GitRepo, tmp_path: Path):
    rp = tmp_path / "r.md"
    rp.write_text(RESPONSE)
    env = dict(based.env, GIT_PAGER="sed 's/^/PAGED:/'", TERM="xterm")
    out = _run_on_terminal(based, ["--diff", str(rp)], env)
    assert "PAGED:\x1b[1mdiff --git a/src/b.txt b/src/b.txt" in out
    assert "\x1b[32m+BETA" in out
    env["GIT_PAGER"] = "cat"
    out = _run_on_terminal(based, ["--diff", str(rp)], env)
    assert "PAGED:" not in out and "+BETA" in out


# --------------------------------------------------------------------------- --json


def test_json_applied(based: GitRepo):
    r = based.run("--json", response=RESPONSE)
    assert r.returncode == 0, r.err
    out = json.loads(r.out)
    assert set(out) == JSON_KEYS
    assert out["status"] == "applied" and out["exit_code"] == 0
    assert out["commit"] == based.head()
    assert out["branch"] == "main"
    assert out["base"] == based.git("rev-parse", "HEAD~1").strip()
    assert out["formats"] == ["unified-diff"]
    assert out["files"] == [{"path": "src/b.txt", "action": "update", "old_path": None,
                             "added": 1, "removed": 1}]
    assert out["added"] == 1 and out["removed"] == 1
    assert out["message"] + "\n" == based.message()  # git log adds a newline
    assert out["errors"] == [] and out["error_text"] is None
    assert len(out["response_id"]) == 16


def test_json_refused_carries_the_feedback(based: GitRepo):
    r = based.run("--json", response=NOT_FOUND)
    assert r.returncode == 1
    out = json.loads(r.out)
    assert set(out) == JSON_KEYS
    assert out["status"] == "refused" and out["commit"] is None
    [err] = out["errors"]
    assert err["file"] == "src/b.txt"
    assert err["edit"] == 1
    assert err["edit_first_line"] == "alpha"
    assert "could not find" in err["reason"]
    assert err["nearby"] == [{"line": 1, "text": "alpha"}, {"line": 2, "text": "beta"}]
    assert err["hint"]
    assert out["error_text"].startswith("diff src/b.txt, edit 1 ('alpha')")


def test_json_with_check_and_diff(based: GitRepo):
    out = json.loads(based.run("--json", "--check", response=RESPONSE).out)
    assert out["status"] == "would-apply" and out["commit"] is None and out["diff"] is None
    out = json.loads(based.run("--json", "--diff", response=RESPONSE).out)
    assert out["status"] == "would-apply" and "+BETA" in out["diff"] and "\x1b[" not in out["diff"]


def test_json_already_applied(based: GitRepo):
    assert based.run(response=RESPONSE).returncode == 0
    out = json.loads(based.run("--json", response=RESPONSE).out)
    assert out["status"] == "already-applied" and out["commit"] == based.head()


# --------------------------------------------------------------------------- feedback texts


def test_refusal_text_not_found(based: GitRepo):
    r = based.run(response=NOT_FOUND)
    assert r.returncode == 1
    assert r.err.splitlines()[1:] == [
        "diff src/b.txt, edit 1 ('alpha'): could not find the edit's old lines (context and "
        "removed lines) in the file; the closest place starts at line 1, but line 2 there is "
        "'beta' where the edit has 'gamma'",
        "  closest lines in the file:",
        "  1 | alpha",
        "  2 | beta",
        "  hint: copy the unchanged and removed lines exactly as the file has them now (the "
        "closest lines are shown above) and send the response again with this edit corrected",
    ]


def test_refusal_text_ambiguous(based: GitRepo):
    based.write("src/c.txt", "x = 1\nreturn x\n\nx = 1\nreturn x\n")
    based.commit_all("c")
    r = based.run(response="""Change it.

*** Begin Patch
*** Update File: src/c.txt
@@
-return x
+return x + 1
*** End Patch
""")
    assert r.returncode == 1
    text = r.err
    assert "src/c.txt" in text and "edit 1 ('return x')" in text
    assert "ambiguous: the edit's old lines occur 2 times, starting at lines 2, 5" in text
    assert "  2 | return x" in text and "  5 | return x" in text
    assert "hint: include more unchanged context lines" in text


def test_refusal_text_hashline(based: GitRepo):
    r = based.run(response="""Louder.

<FILE_CHANGES>
<FILE_HASHLINE_PATCH path="src/b.txt">
2#00:BETA
</FILE_HASHLINE_PATCH>
</FILE_CHANGES>
""")
    assert r.returncode == 1
    from git_aiapply.locate.hashline import line_id

    a, b = line_id("alpha"), line_id("beta")
    lines = r.err.splitlines()
    assert f"edit 1 ('2#00:BETA'): 2#00 is stale: line 2 is now 2#{b}" in lines[1]
    assert lines[2:5] == ["  current lines:", f"  1#{a}:alpha", f"  2#{b}:beta"]
    assert lines[5].startswith("  hint: re-read the current lines shown")
    out = json.loads(based.run("--json", response="""x

<FILE_CHANGES>
<FILE_HASHLINE_PATCH path="src/b.txt">
2#00:BETA
</FILE_HASHLINE_PATCH>
</FILE_CHANGES>
""").out)
    assert out["errors"][0]["nearby"][1] == {"line": 2, "ref": f"2#{b}", "text": "beta"}


def test_refusal_text_dirty_file(based: GitRepo):
    based.write("src/b.txt", "alpha\nbeta\nlocal\n")
    r = based.run(response=RESPONSE)
    assert r.returncode == 1
    assert "src/b.txt has unstaged changes; ai-apply only changes clean files" in r.err
    assert "--include-dirty" in r.err


# --------------------------------------------------------------------------- --edit / --quiet


EDITOR = r"""#!/bin/sh
cp "$1" "$EDITOR_SAW"
sed -i '1s/.*/Edited subject/' "$1"
"""


def test_edit_opens_commit_editmsg_between_the_hooks(based: GitRepo, tmp_path: Path):
    saw = tmp_path / "saw"
    editor = tmp_path / "editor"
    editor.write_text(EDITOR)
    editor.chmod(0o755)
    hooks = based.root / ".git" / "hooks"
    (hooks / "prepare-commit-msg").write_text('#!/bin/sh\necho "Prepared-by: hook" >> "$1"\n')
    (hooks / "commit-msg").write_text('#!/bin/sh\nhead -1 "$1" > "$SUBJECT"\necho "editor=$GIT_EDITOR" >> "$SUBJECT"\n')
    for h in ("prepare-commit-msg", "commit-msg"):
        (hooks / h).chmod(0o755)
    subject = tmp_path / "subject"
    env = dict(based.env, GIT_EDITOR=str(editor), EDITOR_SAW=str(saw), SUBJECT=str(subject))
    r = based.run("-e", response=RESPONSE, env=env)
    assert r.returncode == 0, r.err
    seen = saw.read_text()
    assert seen.startswith("Make beta louder\n")
    assert "# Please enter the commit message" in seen
    assert "Prepared-by: hook" in seen  # prepare-commit-msg ran before the editor
    assert subject.read_text() == f"Edited subject\neditor={editor}\n"  # commit-msg after it
    msg = based.message()
    assert msg.startswith("Edited subject\n")
    assert "#" not in msg  # comment lines are stripped, as git does when editing
    assert "AI-Response:" in msg


def test_edit_failure_and_empty_message_refuse(based: GitRepo, tmp_path: Path):
    before = based.snapshot()
    r = based.run("-e", response=RESPONSE, env=dict(based.env, GIT_EDITOR="false"))
    assert r.returncode == 1
    assert "problem with the editor 'false'" in r.err
    assert based.snapshot() == before
    # (the rollback rewrote src/b.txt, so the snapshot's `git status` refreshed the index)
    before = based.snapshot()
    r = based.run("-e", response=RESPONSE, env=dict(based.env, GIT_EDITOR="sh -c ': > \"$1\"' -"))
    assert r.returncode == 1
    assert "empty commit message" in r.err
    assert based.snapshot() == before


def test_quiet(based: GitRepo):
    r = based.run("-q", response=RESPONSE)
    assert r.returncode == 0 and r.out == "" and r.err == ""
    r = based.run("-q", response=NOT_FOUND)
    assert r.returncode == 1 and r.out == "" and "could not find" in r.err


def test_quiet_still_shows_hook_output(based: GitRepo):
    hook = based.root / ".git" / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho 'deployed preview'\n")
    hook.chmod(0o755)
    r = based.run("-q", response=RESPONSE)
    assert r.returncode == 0 and r.out == "" and "deployed preview" in r.err


# --------------------------------------------------------------------------- message options


def test_message_options_and_signoff(based: GitRepo, tmp_path: Path):
    r = based.run("-m", "First", "-m", "Second paragraph", "-s", response=RESPONSE)
    assert r.returncode == 0, r.err
    msg = based.message()
    assert msg.startswith("First\n\nSecond paragraph\n\n")
    trailers = based.git("log", "-1", "--format=%(trailers:only,unfold)")
    assert "AI-Format: unified-diff" in trailers
    assert "Signed-off-by: Test Committer <committer@example.com>" in trailers
    based.git("reset", "-q", "--hard", "HEAD~1")
    f = tmp_path / "msg.txt"
    f.write_text("From a file\n\nwith a body\n")
    r = based.run("-F", str(f), "--no-trailers", response=RESPONSE)
    assert r.returncode == 0, r.err
    assert based.message() == "From a file\n\nwith a body\n\n"


# --------------------------------------------------------------------------- aiapply.* settings


def test_config_trailers_and_subject_length(based: GitRepo):
    based.git("config", "aiapply.trailers", "false")
    based.git("config", "aiapply.subjectLength", "12")
    assert based.run(response=RESPONSE).returncode == 0
    msg = based.message()
    # round 4: "Make beta louder" does not fit and is never cut with '…': the change
    # names the subject, and the sentence opens the body
    assert msg.splitlines()[0] == "Update b.txt"
    assert msg.splitlines()[2] == "Make beta louder."
    assert "AI-" not in msg


def test_config_format_restriction(based: GitRepo):
    based.git("config", "aiapply.format", "codechange")
    r = based.run(response=RESPONSE)
    assert r.returncode == 1 and "no file changes found" in r.err
    assert based.run("--format", "unified-diff", response=RESPONSE).returncode == 0


def test_config_include_dirty_and_max_bytes(based: GitRepo):
    based.write("src/b.txt", "alpha\nbeta\nlocal\n")
    based.git("config", "aiapply.includeDirty", "true")
    r = based.run(response=RESPONSE)
    assert r.returncode == 0, r.err
    assert based.git("show", "HEAD:src/b.txt") == "alpha\nBETA\nlocal\n"
    based.git("config", "aiapply.maxResponseBytes", "20")
    r = based.run(response=NOT_FOUND)
    assert r.returncode == 1 and "more than 20 bytes" in r.err


# --------------------------------------------------------------------------- signing


FAKE_GPG = r"""#!/bin/sh
# stands in for gpg: records its arguments and the payload, prints an armored signature
echo "$@" > "$GPG_LOG"
cat > "$GPG_LOG.payload"
echo "[GNUPG:] SIG_CREATED D 1 8 00 1700000000 FAKE" >&2
printf -- '-----BEGIN PGP SIGNATURE-----\n\niQFAKEFAKE\n=abcd\n-----END PGP SIGNATURE-----\n'
"""


@pytest.fixture
def gpg(based: GitRepo, tmp_path: Path):
    prog = tmp_path / "fake-gpg"
    prog.write_text(FAKE_GPG)
    prog.chmod(0o755)
    log = tmp_path / "gpg.log"
    based.env = dict(based.env, GPG_LOG=str(log))
    based.git("config", "gpg.program", str(prog))
    return log


def _unsigned(raw: str) -> str:
    out, skip = [], False
    for line in raw.split("\n"):
        if line.startswith("gpgsig "):
            skip = True
            continue
        if skip and line.startswith(" "):
            continue
        skip = False
        out.append(line)
    return "\n".join(out)


def test_sign_with_gpg_program(based: GitRepo, gpg: Path):
    r = based.run("-S", response=RESPONSE)
    assert r.returncode == 0, r.err
    raw = based.git("cat-file", "-p", "HEAD")
    assert "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n iQFAKEFAKE\n =abcd\n -----END PGP SIGNATURE-----\n\n" in raw
    # what was signed is exactly the commit without its signature, as git verifies it
    assert _unsigned(based.git("cat-file", "commit", "HEAD")) == Path(str(gpg) + ".payload").read_text()
    assert gpg.read_text().split() == ["--status-fd=2", "-bsau", "Test", "Committer",
                                       "<committer@example.com>"]


def test_sign_by_config_and_key(based: GitRepo, gpg: Path):
    based.git("config", "commit.gpgSign", "true")
    based.git("config", "user.signingKey", "ABCDEF12")
    assert based.run(response=RESPONSE).returncode == 0
    assert "gpgsig " in based.git("cat-file", "-p", "HEAD")
    assert gpg.read_text().split() == ["--status-fd=2", "-bsau", "ABCDEF12"]
    based.git("reset", "-q", "--hard", "HEAD~1")
    assert based.run("--no-gpg-sign", response=RESPONSE).returncode == 0
    assert "gpgsig " not in based.git("cat-file", "-p", "HEAD")
    based.git("reset", "-q", "--hard", "HEAD~1")
    based.git("config", "aiapply.gpgSign", "false")  # ai-apply's own setting wins
    assert based.run(response=RESPONSE).returncode == 0
    assert "gpgsig " not in based.git("cat-file", "-p", "HEAD")


def test_sign_failure_refuses(based: GitRepo, tmp_path: Path):
    prog = tmp_path / "bad-gpg"
    prog.write_text("#!/bin/sh\necho 'gpg: no secret key' >&2\nexit 2\n")
    prog.chmod(0o755)
    based.git("config", "gpg.program", str(prog))
    before = based.snapshot()
    r = based.run("-S", response=RESPONSE)
    assert r.returncode == 128  # the environment, not the response: fatal, as git
    assert "fatal: " in r.err
    assert "failed to sign" in r.err and "gpg: no secret key" in r.err
    assert based.snapshot() == before


def test_sign_x509_uses_its_program(based: GitRepo, gpg: Path, tmp_path: Path):
    based.git("config", "gpg.format", "x509")
    based.git("config", "gpg.x509.program", based.git("config", "gpg.program").strip())
    based.git("config", "gpg.program", "/nonexistent/gpg")
    assert based.run("-S", response=RESPONSE).returncode == 0
    assert "gpgsig " in based.git("cat-file", "-p", "HEAD")


def test_refusal_text_missing_file_names_similar_paths(based: GitRepo):
    r = based.run(response="""Fix.

*** Begin Patch
*** Update File: b.txt
@@
-beta
+BETA
*** Update File: lib/nothing.txt
@@
-x
+y
*** End Patch
""")
    assert r.returncode == 1
    lines = r.err.splitlines()
    assert lines[1:] == [
        "Update File: b.txt: cannot patch b.txt: no such file",
        "  hint: did you mean src/b.txt? Use the path as git tracks it; to create b.txt, use "
        "`*** Add File: b.txt`",
        "Update File: lib/nothing.txt: cannot patch lib/nothing.txt: no such file",
        "  hint: check the path (relative to the repository root); to create the file, use "
        "`*** Add File: lib/nothing.txt`",
    ]
