"""Hostile content: responses that are huge, have thousands of blocks, unbalanced or
nested tags, invalid UTF-8, or are built to make a parser backtrack; and files with
invalid UTF-8, BOMs, lone CRs and no final newline, whose bytes outside the edited lines
must come back unchanged.

Linearity is measured by bench/linear.py (the CPU time of a parse at size 4n against
size n); the tests here check what those inputs give, never how long they take."""
from __future__ import annotations

import subprocess
import sys

import pytest

from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.locate.hashline import line_id
from git_aiapply.answer.response import DEFAULT_MAX_BYTES, normalize_newlines, read_response

import hostile_inputs
from conftest import AI_APPLY

GOOD = '<FILE_CHANGES>\n<FILE_NEW file_path="n.txt">\nhello\n</FILE_NEW>\n</FILE_CHANGES>\n'


@pytest.fixture
def base(repo):
    repo.write("a.txt", "one\ntwo\nthree\n")
    repo.commit_all()
    return repo


# --------------------------------------------------------------------------- size limits


def _padded(size: int) -> bytes:
    body = GOOD.encode()
    return b"Explanation.\n\n" + body + b"x" * (size - len(body) - 15) + b"\n"


def test_response_above_max_bytes_is_refused(base):
    before = base.snapshot()
    r = base.run("--max-bytes", "1000", response=_padded(1001))
    assert r.returncode == 1
    assert "1000 bytes" in r.err and "limit" in r.err and "--max-bytes" in r.err
    assert base.snapshot() == before


def test_response_at_max_bytes_is_accepted(base):
    r = base.run("--max-bytes", "1000", response=_padded(1000))
    assert r.returncode == 0, r.err


def test_config_max_response_bytes(base):
    base.git("config", "aiapply.maxResponseBytes", "500")
    before = base.snapshot()
    r = base.run(response=_padded(600))
    assert r.returncode == 1 and "500 bytes" in r.err and "limit" in r.err
    assert base.snapshot() == before
    assert base.run("--max-bytes", "700", response=_padded(600)).returncode == 0


def test_max_bytes_zero_means_no_limit(base):
    """Regression: --max-bytes 0 read only the first byte of a response file."""
    r = base.run("--max-bytes", "0", response=_padded(5000))
    assert r.returncode == 0, r.err
    assert base.read("n.txt") == b"hello\n"


def _peak_rss_kib(argv, cwd, env, stdin_path=None) -> tuple[int, subprocess.CompletedProcess]:
    """Run ``argv`` in a fresh Python parent and report the child's peak RSS."""
    code = (
        "import resource, subprocess, sys, json\n"
        "argv = json.loads(sys.argv[1])\n"
        "stdin = open(sys.argv[2], 'rb') if sys.argv[2] else None\n"
        "r = subprocess.run(argv, stdin=stdin, capture_output=True)\n"
        "sys.stderr.write(r.stderr.decode('utf-8', 'replace'))\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.exit(r.returncode)\n"
    )
    import json

    p = subprocess.run([sys.executable, "-c", code, json.dumps(argv), stdin_path or ""],
                       cwd=cwd, env=env, capture_output=True)
    return int(p.stdout.decode().strip().splitlines()[-1]), p


@pytest.mark.parametrize("via", ["file", "stdin"])
def test_100_mb_response_is_refused_in_bounded_memory(base, tmp_path, via):
    big = tmp_path / "huge.md"
    with open(big, "wb") as f:
        f.write(GOOD.encode())
        chunk = b"filler line that goes on and on\n" * 32768  # 1 MiB
        for _ in range(100):
            f.write(chunk)
    assert big.stat().st_size > 100 * 2**20
    before = base.snapshot()
    argv = [*AI_APPLY] + ([str(big)] if via == "file" else [])
    rss, p = _peak_rss_kib(argv, base.root, base.env, str(big) if via == "stdin" else None)
    assert p.returncode == 1, p.stderr
    assert b"limit" in p.stderr and b"10485760" in p.stderr
    assert base.snapshot() == before
    # at most the limit (10 MiB) plus the interpreter, never the whole 100 MiB
    assert rss < (DEFAULT_MAX_BYTES // 1024) + 80 * 1024, rss


# --------------------------------------------------------------------------- many blocks


def test_thousands_of_new_file_blocks(base):
    n = 3000
    body = "".join(f'<FILE_NEW file_path="many/f{i:04d}.txt">\nfile {i}\n</FILE_NEW>\n'
                   for i in range(n))
    r = base.run("-q", response=f"Many files.\n\n<FILE_CHANGES>\n{body}</FILE_CHANGES>\n")
    assert r.returncode == 0, r.err
    assert base.count() == 2
    files = base.git("ls-tree", "--name-only", "HEAD", "many/").split()
    assert len(files) == n
    assert base.read("many/f2999.txt") == b"file 2999\n"
    assert base.git("status", "--porcelain") == ""


def test_thousands_of_hunks_on_one_file(base):
    n = 2000
    base.write("big.txt", "".join(f"line {i}\n" for i in range(n)))
    base.commit_all("big")
    # every other line changed, one apply-patch chunk each, in reverse order
    chunks = "".join(f"@@\n line {i - 1}\n-line {i}\n+LINE {i}\n" for i in range(n - 1, 0, -2))
    r = base.run("-q", response=f"*** Begin Patch\n*** Update File: big.txt\n{chunks}*** End Patch\n")
    assert r.returncode == 0, r.err
    want = "".join((f"LINE {i}\n" if i % 2 else f"line {i}\n") for i in range(n))
    assert base.read("big.txt") == want.encode()


def test_thousands_of_blocks_one_bad_refuses_all(base):
    body = "".join(f'<FILE_NEW file_path="many/f{i}.txt">\nx\n</FILE_NEW>\n' for i in range(2000))
    body += '<FILE_NEW file_path="../escape.txt">\nx\n</FILE_NEW>\n'
    before = base.snapshot()
    r = base.run(response=f"<FILE_CHANGES>\n{body}</FILE_CHANGES>\n")
    assert r.returncode == 1
    assert base.snapshot() == before


# --------------------------------------------------------------------------- malformed

GOOD_FC = '<FILE_NEW file_path="n.txt">\nx\n</FILE_NEW>\n'
MALFORMED = {
    "fc-unclosed-container": "<FILE_CHANGES>\n" + GOOD_FC,
    "fc-unclosed-directive": "<FILE_CHANGES>\n" + GOOD_FC + '<FILE_NEW file_path="m.txt">\nx\n'
                             "</FILE_CHANGES>\n",
    "fc-nested-containers": "<FILE_CHANGES>\n<FILE_CHANGES>\n" + GOOD_FC + "</FILE_CHANGES>\n"
                            "</FILE_CHANGES>\n",
    "fc-mismatched-close": '<FILE_CHANGES>\n<FILE_PATCH file_path="a.txt">\n@@\n-one\n+ONE\n'
                           "</FILE_NEW>\n</FILE_CHANGES>\n",
    "fc-stray-close-inside": "<FILE_CHANGES>\n" + GOOD_FC + "</FILE_PATCH>\n</FILE_CHANGES>\n",
    "fc-unknown-directive": "<FILE_CHANGES>\n" + GOOD_FC + '<FILE_EXEC cmd="rm -rf /" />\n'
                            "</FILE_CHANGES>\n",
    "fc-unclosed-comment": "<FILE_CHANGES>\n<!-- \n" + GOOD_FC + "</FILE_CHANGES>\n",
    "fc-unclosed-attribute": '<FILE_CHANGES>\n<FILE_NEW file_path="n.txt>\nx\n</FILE_NEW>\n'
                             "</FILE_CHANGES>\n",
    "hl-unclosed": '<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path="a.txt">\n1#00:x\n',
    "ap-no-end": "*** Begin Patch\n*** Add File: n.txt\n+x\n",
    "ap-nested": "*** Begin Patch\n*** Begin Patch\n*** Add File: n.txt\n+x\n*** End Patch\n"
                 "*** End Patch\n",
    "ap-second-unclosed": "*** Begin Patch\n*** Add File: n.txt\n+x\n*** End Patch\n"
                          "*** Begin Patch\n*** Add File: m.txt\n+y\n",
    "cc-unclosed": '<CodeChange filePath="a.txt">\n<<<<<<< SEARCH\none\n=======\nONE\n'
                   ">>>>>>> REPLACE\n",
    "cc-no-replace-marker": '<CodeChange filePath="a.txt">\n<<<<<<< SEARCH\none\n=======\nONE\n'
                            "</CodeChange>\n",
    "cc-no-divider": '<CodeChange filePath="a.txt">\n<<<<<<< SEARCH\none\n>>>>>>> REPLACE\n'
                     "</CodeChange>\n",
    "cc-nested": '<CodeChange filePath="a.txt">\n<CodeChange filePath="b.txt">\n<<<<<<< SEARCH\n'
                 "one\n=======\nONE\n>>>>>>> REPLACE\n</CodeChange>\n</CodeChange>\n",
    "ud-hunk-without-lines": "```diff\n--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n```\n",
    "only-closing-tags": "</FILE_CHANGES>\n</FILE_NEW>\n*** End Patch\n</CodeChange>\n",
    "good-block-then-truncated": GOOD + "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n",
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_response_refused_with_nothing_changed(base, case):
    before = base.snapshot()
    r = base.run(response=MALFORMED[case])
    assert r.returncode == 1, r.out
    assert "internal error" not in r.err
    assert base.snapshot() == before


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_response_raises_only_the_tools_errors(case):
    try:
        parse_response(MALFORMED[case])
    except ApplyError:
        pass


# --------------------------------------------------------------------------- invalid UTF-8


def test_invalid_utf8_in_the_explanation_commits(base):
    """Regression: bytes that are not UTF-8 in the prose made the commit an internal
    error (surrogates in the message); they become U+FFFD in the message."""
    resp = b"Fix \xff\xfe the thing.\n\n" + GOOD.encode()
    r = base.run(response=resp)
    assert r.returncode == 0, r.err
    assert base.message().startswith("Fix \ufffd\ufffd the thing")
    assert base.git("fsck", "--strict", check=False) is not None


def test_invalid_utf8_in_file_content_is_kept_byte_for_byte(base):
    resp = (b'<FILE_CHANGES>\n<FILE_NEW file_path="n.bin">\nhello \xc3\x28 \xff\n</FILE_NEW>\n'
            b'<FILE_PATCH file_path="a.txt">\n@@\n-two\n+tw\xf0\x28\x8c\xbc\n</FILE_PATCH>\n'
            b"</FILE_CHANGES>\n")
    r = base.run(response=resp)
    assert r.returncode == 0, r.err
    assert base.read("n.bin") == b"hello \xc3\x28 \xff\n"
    assert base.read("a.txt") == b"one\ntw\xf0\x28\x8c\xbc\nthree\n"


def test_invalid_utf8_in_a_path_is_refused(base):
    before = base.snapshot()
    r = base.run(response=b'<FILE_CHANGES>\n<FILE_NEW file_path="bad\xff.txt">\nx\n</FILE_NEW>\n'
                          b"</FILE_CHANGES>\n")
    assert r.returncode == 1 and "UTF-8" in r.err
    assert base.snapshot() == before


def test_invalid_utf8_json_response(base):
    resp = b'{"choices": [{"message": {"role": "assistant", "content": "\xff\xfe"}}]}'
    r = base.run(response=resp)
    assert r.returncode == 1 and "internal error" not in r.err


# --------------------------------------------------------------------------- linear time

# Inputs built to make a backtracking regex (or a rescanning loop) blow up
# (tests/hostile_inputs.py); bench/linear.py measures that their CPU time grows linearly
# (n against 4n).  Here: what they give, at the benchmark's size.
N = 50_000


# (the commit message from pathological prose: test_message.py)
HOSTILE = [(name, fn, small) for name, fn, small, _large in hostile_inputs.cases(N)
           if fn is not hostile_inputs.message_from_prose]


@pytest.mark.parametrize("name, fn, arg", HOSTILE, ids=[name for name, *_ in HOSTILE])
def test_hostile_input_is_parsed_or_refused(name, fn, arg):
    """Each input ends in blocks or an ApplyError (the helpers let nothing else through);
    the locator applies the unique edit and refuses the ambiguous one."""
    fn(arg)


# --------------------------------------------------------------------------- odd files

# a BOM, CRLF, invalid UTF-8, lone CRs, a target line, more invalid bytes, no final newline
ODD = (b"\xef\xbb\xbfalpha\r\n"
       b"bad \xff\xfe bytes\r\n"
       b"lone\rcr\r"
       b"before\n"
       b"target\n"
       b"after \xc3\x28\r\n"
       b"last line, no newline")
PREFIX = ODD[:ODD.index(b"target\n")]
SUFFIX = ODD[ODD.index(b"target\n") + len(b"target\n"):]


def _odd_responses() -> dict[str, bytes]:
    hid = line_id("target")
    return {
        "file-patch": b'<FILE_CHANGES>\n<FILE_PATCH file_path="odd.txt">\n@@\n before\n-target\n'
                      b"+TARGET\n</FILE_PATCH>\n</FILE_CHANGES>\n",
        "file-patch-bad-bytes-context": b'<FILE_CHANGES>\n<FILE_PATCH file_path="odd.txt">\n@@\n'
                                        b"-target\n+TARGET\n after \xc3\x28\n</FILE_PATCH>\n"
                                        b"</FILE_CHANGES>\n",
        "hashline": f'<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path="odd.txt">\n6#{hid}:TARGET\n'
                    "</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n".encode(),
        "apply-patch": b"*** Begin Patch\n*** Update File: odd.txt\n@@\n before\n-target\n+TARGET\n"
                       b"*** End Patch\n",
        "codechange": b'<CodeChange filePath="odd.txt">\n<<<<<<< SEARCH\ntarget\n=======\nTARGET\n'
                      b">>>>>>> REPLACE\n</CodeChange>\n",
        "unified-diff": b"```diff\n--- a/odd.txt\n+++ b/odd.txt\n@@ -4,2 +4,2 @@\n before\n-target\n"
                        b"+TARGET\n```\n",
    }


@pytest.mark.parametrize("fmt", list(_odd_responses()))
def test_bytes_outside_the_edited_line_are_unchanged(base, fmt):
    base.write("odd.txt", ODD)
    base.commit_all("odd file")
    r = base.run(response=_odd_responses()[fmt])
    assert r.returncode == 0, r.err
    got = base.read("odd.txt")
    assert got.startswith(PREFIX + b"TARGET"), got
    rest = got[len(PREFIX) + len(b"TARGET"):]
    ending, tail = rest[:1], rest[1:]
    if rest.startswith(b"\r\n"):
        ending, tail = rest[:2], rest[2:]
    assert ending in (b"\n", b"\r\n", b"\r")
    if fmt == "apply-patch":
        # apply-patch always ends with a newline (the file's dominant ending)
        assert tail in (SUFFIX, SUFFIX + b"\n", SUFFIX + b"\r\n")
    else:
        assert tail == SUFFIX
    # the commit holds exactly the worktree bytes
    assert base.git("status", "--porcelain") == ""


@pytest.mark.parametrize("before,after", [
    (b"\xef\xbb\xbfbom\n", b"next\n"),
    (b"crlf\r\n", b"next\r\n"),
    (b"first\n", b"no final newline"),
    (b"lone\rcr\r", b"next\r"),
    (b"mixed\r\nendings\n", b"next\rlast\r\n"),
    (b"\xff\xfe\xfdbad\n", b"\xc3\x28\n"),
    (b"", b"tab\there\n"),
])
def test_edit_keeps_every_other_byte(base, before, after):
    data = before + b"target\n" + after
    base.write("f.txt", data)
    base.commit_all("f")
    resp = (b'<CodeChange filePath="f.txt">\n<<<<<<< SEARCH\ntarget\n=======\nTARGET\n'
            b">>>>>>> REPLACE\n</CodeChange>\n")
    r = base.run(response=resp)
    assert r.returncode == 0, r.err
    got = base.read("f.txt")
    assert got.startswith(before + b"TARGET") and got.endswith(after), got
    assert got[len(before) + 6:len(got) - len(after)] in (b"\n", b"\r\n", b"\r")
