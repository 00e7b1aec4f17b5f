"""Path safety (BEHAVIOR.md §6): every hostile path is refused with a precise reason,
every ordinary path is accepted in its normalized form."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.paths import (check_leading_folders, dotgit_disguise, normalize_path, quote_git_path,
                                read_quoted_path, unquote_git_path)

WORKTREE = "/home/dev/repo"

# (raw path, phrase the refusal reason must contain)
REFUSED = [
    # empty
    ("", "is empty"),
    ("   ", "is empty"),
    ('""', "is empty"),
    ("``", "is empty"),
    ("./", "is empty"),
    # leaving the worktree, '.' and '..'
    ("..", "'..' component"),
    ("../etc/passwd", "'..' component"),
    ("src/../../x", "'..' component"),
    ("src/../README.md", "'..' component"),  # refused even though it stays inside
    ("a/..", "'..' component"),
    (".", "'.' component"),
    ("src/./a.py", "'.' component"),
    ("src/.", "'.' component"),
    ("/etc/passwd", "outside the worktree"),
    ("/home/dev/repo2/a.py", "outside the worktree"),
    ("/home/dev", "outside the worktree"),
    ("//server/share/a.py", "outside the worktree"),
    ("/home/dev/repo", "worktree root itself"),
    ("/home/dev/repo/", "worktree root itself"),
    ("/home/dev/repo/../x", "'..' component"),
    ("~/repo/a.py", "'~'"),
    ("~", "'~'"),
    # Windows and backslashes
    ("C:\\Users\\dev\\a.py", "Windows drive path"),
    ("c:/repo/a.py", "Windows drive path"),
    ("D:", "Windows drive path"),
    ("src\\a.py", "backslash"),
    ("\\\\server\\share", "backslash"),
    ('"C:\\Users\\x"', "Windows drive path"),  # quoted, with escapes git does not know
    # shape
    ("a//b", "empty component"),
    (".//a", "empty component"),
    ("src/", "ends with '/'"),
    ("src/lib/", "ends with '/'"),
    ("a" * 256, "longer than 255 bytes"),
    ("é" * 128, "longer than 255 bytes"),  # 256 bytes in UTF-8
    ("/".join(["d" * 200] * 21), "longer than 4096 bytes"),
    # control characters and invisible direction controls
    ("a\x00b", "NUL"),
    ("a\nb", "control character (U+000A)"),
    ("a\tb", "control character (U+0009)"),
    ("a\rb.py", "control character (U+000D)"),
    ("a\x1b[31mb", "control character (U+001B)"),
    ("a\x7fb", "control character (U+007F)"),
    ("a\x85b", "control character (U+0085)"),
    ('"tab\\there"', "control character (U+0009)"),  # git C-quoting decodes to a tab
    ("evil\u202etxt.exe", "direction-control character (U+202E)"),
    ("a\u2066b", "direction-control character (U+2066)"),
    ("bad\udcffname", "not valid UTF-8"),  # a surrogateescape'd undecodable byte
    # .git in any case
    (".git", "'.git' component"),
    (".git/config", "'.git' component"),
    (".git/hooks/pre-commit", "'.git' component"),
    ("sub/.git/HEAD", "'.git' component"),
    ("./.git/config", "'.git' component"),
    ("/home/dev/repo/.git/config", "'.git' component"),
    (".GIT/config", "another case"),
    (".Git/hooks/x", "another case"),
    ("a/.gIt", "another case"),
    # NTFS disguises
    (".git./config", "NTFS"),
    (".git../config", "trailing dots or spaces"),
    (".git /config", "trailing dots or spaces"),
    (".git . ./config", "trailing dots or spaces"),
    (".GIT. /x", "NTFS"),
    ("git~1/config", "8.3 short name"),
    ("GIT~1/config", "8.3 short name"),
    ("Git~1./config", "8.3 short name"),
    ("git~1 /config", "8.3 short name"),
    ("git~1:stream/config", "alternate data stream"),
    (".git::$INDEX_ALLOCATION/config", "alternate data stream"),
    (".git:$DATA", "alternate data stream"),
    (".git:anything", "alternate data stream"),
    (".git .:$DATA", "alternate data stream"),
    # HFS+ disguises: ignorable code points anywhere
    (".git\u200c/config", "HFS+"),
    ("\u200d.git/config", "HFS+"),
    (".g\u200eit/config", "HFS+"),
    (".gi\u200ft", "HFS+"),
    (".\u206agit", "HFS+"),
    (".G\u206fIT/x", "HFS+"),
    (".git\ufeff/x", "HFS+"),
    ("\ufeff.\ufeffg\ufeffi\ufefft\ufeff", "HFS+"),
    (".git\u200c./x", "HFS+"),  # both disguises at once
    # Unicode compatibility forms
    ("\uff0e\uff47\uff49\uff54/config", "compatibility form"),  # fullwidth .git
    ("\ufe52git/config", "compatibility form"),  # small full stop
]


@pytest.mark.parametrize(("raw", "phrase"), REFUSED, ids=[repr(r)[:40] for r, _ in REFUSED])
def test_hostile_paths_are_refused(raw, phrase):
    with pytest.raises(ApplyError) as caught:
        normalize_path(raw, worktree=WORKTREE)
    problem = caught.value.problems[0]
    assert phrase in problem.reason
    # the file named in the problem is printable: no raw control or bidi characters
    assert problem.file is not None
    assert all(ord(c) >= 0x20 and not (0x7F <= ord(c) <= 0x9F) and ord(c) not in (0x202E, 0x2066)
               for c in problem.file)


def test_refused_count_covers_the_brief():
    assert len(REFUSED) >= 40


# (raw path, normalized form)
ACCEPTED = [
    ("src/a.py", "src/a.py"),
    ("README.md", "README.md"),
    ("  src/a.py  ", "src/a.py"),
    ("src/a.py\n", "src/a.py"),
    ('"src/a.py"', "src/a.py"),
    ("'src/a.py'", "src/a.py"),
    ("`src/a.py`", "src/a.py"),
    ('`"src/a.py"`', "src/a.py"),
    ('" src/a.py "', "src/a.py"),
    ("./src/a.py", "src/a.py"),
    ("././src/a.py", "src/a.py"),
    ("`./src/a.py`", "src/a.py"),
    ("/home/dev/repo/src/a.py", "src/a.py"),
    ("/home/dev/repo/a.py", "a.py"),
    ('"caf\\303\\251.txt"', "café.txt"),  # git's C-style quoting
    ('"with \\"quotes\\".txt"', 'with "quotes".txt'),
    ("a/b.py", "a/b.py"),  # a/ and b/ prefixes are the diff parsers' business
    ("b/a.py", "b/a.py"),
    ("docs/naïve café.md", "docs/naïve café.md"),
    ("日本語/ファイル.txt", "日本語/ファイル.txt"),
    ("emoji/🎉.txt", "emoji/🎉.txt"),
    ("my folder/my file.txt", "my folder/my file.txt"),
    ("name with trailing space ", "name with trailing space"),
    (".github/workflows/x.yml", ".github/workflows/x.yml"),
    (".gitignore", ".gitignore"),
    (".gitattributes", ".gitattributes"),
    (".gitmodules", ".gitmodules"),
    ("sub/.gitignore", "sub/.gitignore"),
    ("a/.git-foo", "a/.git-foo"),
    (".gitx/a", ".gitx/a"),
    (".git~1/a", ".git~1/a"),
    (".git_backup", ".git_backup"),
    ("git", "git"),
    ("git/config", "git/config"),
    ("git~1x", "git~1x"),
    ("git~2/a", "git~2/a"),
    ("git~10", "git~10"),
    ("..foo", "..foo"),
    ("...", "..."),
    ("a/.hidden", "a/.hidden"),
    ("foo.", "foo."),
    ("a:b.txt", "a:b.txt"),
    ("C:foo", "C:foo"),
    ("~backup.txt", "~backup.txt"),
    ("src/~tmp", "src/~tmp"),
    ("x\u200cy.txt", "x\u200cy.txt"),  # ignorables are only a problem around '.git'
    ("a" * 255, "a" * 255),
    ("é" * 127 + "a", "é" * 127 + "a"),  # 255 bytes
    ('src/"quoted".py', 'src/"quoted".py'),
    ("\"unbalanced.py", "\"unbalanced.py"),
]


@pytest.mark.parametrize(("raw", "expected"), ACCEPTED, ids=[repr(r)[:40] for r, _ in ACCEPTED])
def test_ordinary_paths_are_accepted(raw, expected):
    assert normalize_path(raw, worktree=WORKTREE) == expected


@pytest.mark.parametrize("worktree", ["/home/dev/repo", "/home/dev/repo/"])
def test_worktree_with_or_without_trailing_slash(worktree):
    assert normalize_path("/home/dev/repo/x/y.c", worktree=worktree) == "x/y.c"
    with pytest.raises(ApplyError, match="outside the worktree"):
        normalize_path("/home/dev/repository/y.c", worktree=worktree)


def test_worktree_at_filesystem_root():
    assert normalize_path("/src/a.py", worktree="/") == "src/a.py"


@pytest.mark.parametrize(
    ("raw", "cwd", "expected"),
    [
        ("a.py", "/home/dev/repo/src", "src/a.py"),
        ("./a.py", "/home/dev/repo/src/", "src/a.py"),
        ("a.py", "/home/dev/repo", "a.py"),
        ("a.py", "src/lib", "src/lib/a.py"),
        ("a.py", ".", "a.py"),
        ("/home/dev/repo/b.py", "/home/dev/repo/src", "b.py"),  # absolute ignores cwd
    ],
)
def test_cwd_prefixes_relative_paths(raw, cwd, expected):
    assert normalize_path(raw, worktree=WORKTREE, cwd=cwd) == expected


@pytest.mark.parametrize(
    ("raw", "cwd", "phrase"),
    [
        ("../a.py", "/home/dev/repo/src", "'..' component"),
        ("a.py", "/elsewhere", "outside the worktree"),
        ("a.py", ".git", "'.git' component"),
    ],
)
def test_cwd_refusals(raw, cwd, phrase):
    with pytest.raises(ApplyError, match=phrase):
        normalize_path(raw, worktree=WORKTREE, cwd=cwd)


def test_refusal_carries_hint_and_file():
    with pytest.raises(ApplyError) as caught:
        normalize_path("  src\\lib\\a.py ", worktree=WORKTREE)
    problem = caught.value.problems[0]
    assert problem.file == "src\\lib\\a.py"
    assert "'/'" in (problem.hint or "")
    assert caught.value.kind == "refused"


def test_control_characters_are_escaped_in_the_report():
    with pytest.raises(ApplyError) as caught:
        normalize_path("a\x1b[2Jb", worktree=WORKTREE)
    assert caught.value.problems[0].file == "a\\x1b[2Jb"
    assert "\x1b" not in str(caught.value)


@pytest.mark.parametrize(
    ("quoted", "expected"),
    [
        ('"plain"', "plain"),
        ('"a\\tb"', "a\tb"),
        ('"\\303\\251"', "é"),
        ('"back\\\\slash"', "back\\slash"),
        ('"\\q"', None),  # unknown escape
        ('"\\377"', None),  # not UTF-8
        ('"trailing\\"', None),
        ("no quotes", None),
        ('"', None),
    ],
)
def test_unquote_git_path(quoted, expected):
    assert unquote_git_path(quoted) == expected


@pytest.mark.parametrize(
    ("name", "is_dotgit"),
    [
        (".git", True), (".GiT", True), (".git.", True), (".git  ", True), ("git~1", True),
        (".git:x", True), (".git\u200c", True), ("\uff0egit", True),
        (".gitignore", False), (".gitmodules", False), (".github", False), ("git~1x", False),
        ("git", False), ("", False), ("x.git", False), ("..git", False),
    ],
)
def test_dotgit_disguise(name, is_dotgit):
    assert (dotgit_disguise(name) is not None) is is_dotgit


# ---- check_leading_folders (the planner's check: tests/plan/test_plan.py runs it through make_plan) ----

TREE = {
    "src": "dir",
    "src/lib": "symlink",
    "src/app.py": "file",
    "vendor": "submodule",
    "docs": "dir",
    "docs/guide": "dir",
    "docs/guide/intro.md": "file",
    "README.md": "file",
}


def kind_of(prefix):
    return TREE.get(prefix)


@pytest.mark.parametrize(
    ("path", "phrase"),
    [
        ("src/lib/a.py", "src/lib is a symbolic link; ai-apply never writes through a link"),
        ("src/lib/deep/a.py", "src/lib is a symbolic link"),
        ("vendor/x.c", "vendor is a submodule"),
        ("src/app.py/x.py", "src/app.py is a file, so it cannot hold src/app.py/x.py"),
        ("README.md/x", "README.md is a file"),
    ],
)
def test_check_leading_folders_refusals(path, phrase):
    with pytest.raises(ApplyError) as caught:
        check_leading_folders(path, kind_of)
    assert phrase in caught.value.problems[0].reason
    assert caught.value.problems[0].file == path


@pytest.mark.parametrize(
    "path",
    ["src/app.py", "src/new.py", "docs/guide/intro.md", "docs/new/deeper/x.md", "new/dir/x", "README.md",
     "src/lib", "src", "vendor", "docs/guide"],  # the path itself: the caller's decision
)
def test_check_leading_folders_accepts(path):
    assert check_leading_folders(path, kind_of) is None


def test_check_leading_folders_asks_every_leading_folder_until_one_is_absent():
    asked = []

    def recording(prefix):
        asked.append(prefix)
        return "dir" if prefix != "a/b/c" else "file"

    with pytest.raises(ApplyError):
        check_leading_folders("a/b/c/d", recording)
    assert asked == ["a", "a/b", "a/b/c"]
    asked.clear()
    check_leading_folders("x/y/z", lambda p: asked.append(p))  # 'x' absent: nothing below
    assert asked == ["x"]


# ---- property: a result always satisfies every invariant, or ApplyError ----

PATH_ALPHABET = st.sampled_from(
    list("ab.~/ \\:\"'`gitGIT1") + ["\x00", "\n", "\x7f", "\u200c", "\ufeff", "\u202e", "é", "\uff0e", "\udcff",
                                    ".git", "git~1", "..", "./", "/home/dev/repo/", "C:"]
)
hostile_text = st.lists(PATH_ALPHABET, max_size=30).map("".join)


def assert_invariants(result: str) -> None:
    assert isinstance(result, str) and result
    assert not result.startswith("/") and not result.endswith("/")
    assert "\\" not in result
    encoded = result.encode("utf-8")
    assert len(encoded) <= 4096
    for name in result.split("/"):
        assert name not in ("", ".", "..")
        assert len(name.encode("utf-8")) <= 255
        stripped = "".join(c for c in name if c not in "\u200c\u200d\u200e\u200f\ufeff"
                           "\u202a\u202b\u202c\u202d\u202e\u206a\u206b\u206c\u206d\u206e\u206f")
        core = stripped.split(":", 1)[0].rstrip(". ").lower()
        assert core not in (".git", "git~1")
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in result)
    assert result.split("/")[0] != "~"
    # normalizing again changes nothing
    assert normalize_path(result, worktree=WORKTREE) == result


@settings(max_examples=1500, deadline=None)
@given(st.one_of(hostile_text, st.text(max_size=40)))
def test_normalize_path_returns_a_safe_path_or_refuses(raw):
    try:
        result = normalize_path(raw, worktree=WORKTREE)
    except ApplyError as error:
        assert error.problems and error.problems[0].reason
        return
    assert_invariants(result)


def test_cwd_at_filesystem_root_is_outside_the_worktree():
    with pytest.raises(ApplyError, match="outside the worktree"):
        normalize_path("a.py", worktree=WORKTREE, cwd="/")


@pytest.mark.parametrize(
    "raw",
    ['"' * 8000 + "a" + '"' * 8000, '"\\"' * 2500 + "a" + '\\""' * 2500, "a/" * 3000 + "b", " " * 10 ** 6 + "x" * 10 ** 5],
    ids=["nested quotes", "escaped quotes", "many components", "huge"],
)
def test_pathological_input_is_refused_or_normalized(raw):
    """Linear time on such input is measured by bench/linear.py, not with a stopwatch."""
    try:
        got = normalize_path(raw, worktree=WORKTREE)
    except ApplyError as e:
        assert str(e)
    else:
        assert got == got.strip("/") and "//" not in got and ".." not in got.split("/")


@pytest.mark.parametrize(("raw", "phrase"), [("~/x", "'~'"), ("C:/x", "Windows drive path"), ("a\\b", "backslash")])
def test_cwd_does_not_hide_start_refusals(raw, phrase):
    with pytest.raises(ApplyError, match=phrase):
        normalize_path(raw, worktree=WORKTREE, cwd="/home/dev/repo/src")


@pytest.mark.parametrize(
    ("text", "start", "expected"),
    [
        ('"a b" "c d"', 0, ("a b", 5)),
        ('"a b" "c d"', 6, ("c d", 11)),
        ('x"\\q"', 1, ("q", 5)),  # lenient: an unknown escape is its character
        ('"\\377"', 0, ("\udcff", 6)),  # bytes that are not UTF-8 kept as escapes
        ('"open', 0, (None, 5)),
    ],
)
def test_read_quoted_path_in_a_line(text, start, expected):
    assert read_quoted_path(text, start) == expected


def test_read_quoted_path_reads_what_git_quotes(tmp_path):
    """The decoder against git itself: names git must quote, listed by git ls-files."""
    import subprocess

    names = ["tab\there", "quote\"d", "back\\slash", "caf\u00e9", "new\nline", "\u65e5\u672c",
             "bell\x07", "sp ace", "emoji\U0001f600"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for name in names:
        (tmp_path / name).write_bytes(b"")
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    out = subprocess.run(["git", "-C", str(tmp_path), "-c", "core.quotePath=true", "ls-files"],
                         capture_output=True, check=True).stdout.decode("ascii")
    listed = out.splitlines()
    assert sum(line.startswith('"') for line in listed) == len(names) - 1  # all but "sp ace"
    decoded = {unquote_git_path(line) if line.startswith('"') else line for line in listed}
    assert decoded == set(names)
    assert {read_quoted_path(line)[0] for line in listed if line.startswith('"')} == \
        set(names) - {"sp ace"}
    assert sorted(quote_git_path(name) for name in names) == sorted(listed)  # and back
