"""Hostile paths, table-driven: every hostile path, in every directive of every format
that can carry a path (new file, patch, delete, both ends of a rename), is refused
(BEHAVIOR.md §6).

The whole table (~900 cases) runs in-process through the pure layer the command runs
before it writes anything: parse the response, then plan it (``make_plan``, which
normalizes and checks every path and what the tree and the disk hold along it) against a
model of the test repository; a case passes when one of the two refuses it with
ApplyError.  A dozen representative cases, one per kind of refusal and per format, run
through the real command too, checking exit 1 and that HEAD, refs, index, worktree, the
git dir's lock files and everything outside the worktree stay byte-for-byte as they
were.
"""
from __future__ import annotations

import os

import pytest

from conftest import GitRepo, make_env
from git_aiapply.errors import ApplyError
from git_aiapply.formats import parse_response
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import MODE_FILE, MODE_LINK, make_plan

# Every path here must be refused wherever it appears.
HOSTILE = {
    # leaving the worktree
    "dotdot": "../escape.txt",
    "dotdot-deep": "dir/../../escape.txt",
    "dotdot-many": "../../../../../../tmp/escape.txt",
    "dotdot-inside": "dir/../a.txt",
    "absolute-outside": "{outside}/escape.txt",
    "absolute-etc": "/etc/ai-apply-escape",
    "home": "~/escape.txt",
    # git's own folder, in every case and disguise
    "dotgit": ".git/config",
    "dotgit-hook": ".git/hooks/post-checkout",
    "dotgit-upper": ".GIT/config",
    "dotgit-mixed": ".Git/hooks/pre-commit",
    "dotgit-nested": "dir/.git/config",
    "dotgit-trailing-dot": ".git./config",
    "dotgit-trailing-dots-spaces": ".git. . /config",
    "dotgit-trailing-space": ".git /config",
    "ntfs-short-name": "git~1/config",
    "ntfs-short-name-upper": "GIT~1/hooks/pre-commit",
    "ntfs-ads": ".git::$INDEX_ALLOCATION/config",
    "ntfs-ads-data": ".git:$DATA",
    "hfs-zwnj": ".g\u200cit/config",
    "hfs-leading-zwj": "\u200d.git/config",
    "hfs-bom": ".git\ufeff/config",
    "fullwidth": "\uff0e\uff47\uff49\uff54/config",
    "dotgit-file": ".git",
    # through a symbolic link
    "through-link-in-repo": "link/evil.txt",
    "through-link-outside": "outlink/evil.txt",
    "through-link-nested": "dir/innerlink/evil.txt",
    # file/folder clashes
    "file-as-folder": "a.txt/evil.txt",
    "file-as-folder-deep": "dir/f.txt/x/y.txt",
    "folder-as-file": "dir",
    "submodule-as-folder": "sub/evil.txt",
    # empty and dot components
    "empty": "",
    "blank": "   ",
    "dot": ".",
    "dot-slash-only": "./",
    "double-slash": "dir//f.txt",
    "dot-component": "dir/./f.txt",
    "trailing-slash": "dir/",
    # NUL and control characters
    "nul": "a\x00b.txt",
    "escape-seq": "a\x1b[31mred.txt",
    "bell": "a\x07.txt",
    "carriage-return": "a\rb.txt",
    "del": "a\x7f.txt",
    "c1-nel": "a\u0085.txt",
    "bidi-override": "a\u202etxt.exe",
    # over-long
    "long-component": "a" * 256 + ".txt",
    "long-path": "d/" * 2100 + "x.txt",
    # separators a model may mean differently
    "backslash": "dir\\f.txt",
    "drive": "C:/evil.txt",
}

# (name, template): {p} is the hostile path.  Existing file: a.txt = "one\ntwo\n".
TEMPLATES = {
    "fc-new": '<FILE_CHANGES>\n<FILE_NEW file_path="{p}">\nevil\n</FILE_NEW>\n</FILE_CHANGES>\n',
    "fc-patch": '<FILE_CHANGES>\n<FILE_PATCH file_path="{p}">\n@@\n-one\n+ONE\n two\n'
                '</FILE_PATCH>\n</FILE_CHANGES>\n',
    "fc-delete": '<FILE_CHANGES>\n<FILE_DELETE file_path="{p}" />\n</FILE_CHANGES>\n',
    "fc-rename-to": '<FILE_CHANGES>\n<FILE_RENAME from_path="a.txt" to_path="{p}" />\n'
                    '</FILE_CHANGES>\n',
    "fc-rename-from": '<FILE_CHANGES>\n<FILE_RENAME from_path="{p}" to_path="b.txt" />\n'
                      '</FILE_CHANGES>\n',
    "hashline": '<FILE_CHANGES>\n<FILE_HASHLINE_PATCH file_path="{p}">\n1#00:ONE\n'
                '</FILE_HASHLINE_PATCH>\n</FILE_CHANGES>\n',
    "ap-add": "*** Begin Patch\n*** Add File: {p}\n+evil\n*** End Patch\n",
    "ap-update": "*** Begin Patch\n*** Update File: {p}\n@@\n-one\n+ONE\n two\n*** End Patch\n",
    "ap-delete": "*** Begin Patch\n*** Delete File: {p}\n*** End Patch\n",
    "ap-move-to": "*** Begin Patch\n*** Update File: a.txt\n*** Move to: {p}\n@@\n-one\n+ONE\n"
                  " two\n*** End Patch\n",
    "cc-create": '<CodeChange filePath="{p}">\n<<<<<<< SEARCH\n=======\nevil\n>>>>>>> REPLACE\n'
                 '</CodeChange>\n',
    "cc-edit": '<CodeChange file="{p}">\n<<<<<<< SEARCH\none\n=======\nONE\n>>>>>>> REPLACE\n'
               '</CodeChange>\n',
    "ud-new": "```diff\n--- /dev/null\n+++ b/{p}\n@@ -0,0 +1 @@\n+evil\n```\n",
    "ud-modify": "```diff\n--- a/{p}\n+++ b/{p}\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n```\n",
    "ud-delete": "```diff\n--- a/{p}\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n```\n",
    "ud-rename": "```diff\ndiff --git a/a.txt b/{p}\nsimilarity index 100%\nrename from a.txt\n"
                 "rename to {p}\n```\n",
    "git-diff-new": "```diff\ndiff --git a/{p} b/{p}\nnew file mode 100644\n--- /dev/null\n"
                    "+++ b/{p}\n@@ -0,0 +1 @@\n+evil\n```\n",
}


@pytest.fixture(scope="module")
def _shared_repo(tmp_path_factory):
    """One repository for the whole table: a refusal changes nothing (each case asserts
    it), so the cases cannot disturb each other, and setting up once keeps this fast."""
    base = tmp_path_factory.mktemp("hostile")
    home = base / "home"
    home.mkdir()
    root = base / "repo"
    root.mkdir()
    r = GitRepo(root, make_env(home))
    r.git("init", "-q", "-b", "main")
    r.git("config", "user.name", "Config User")
    r.git("config", "user.email", "config@example.com")
    outside = base / "outside"
    outside.mkdir()
    r.write("a.txt", "one\ntwo\n")
    r.write("dir/f.txt", "one\ntwo\n")
    os.symlink("dir", root / "link")
    os.symlink(str(outside), root / "outlink")
    os.symlink("../..", root / "dir" / "innerlink")
    r.commit_all()
    # a submodule entry (gitlink) without a checkout
    head = r.head()
    r.git("update-index", "--add", "--cacheinfo", f"160000,{head},sub")
    r.git("commit", "-q", "-m", "add a submodule entry")
    (root / "sub").mkdir()
    r.outside = outside
    return r


@pytest.fixture
def hostile_repo(_shared_repo):
    return _shared_repo


@pytest.fixture
def own_repo(repo, tmp_path):
    """A fresh copy of the hostile repository, for tests that add files to it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    repo.write("a.txt", "one\ntwo\n")
    repo.write("dir/f.txt", "one\ntwo\n")
    os.symlink("dir", repo.root / "link")
    os.symlink(str(outside), repo.root / "outlink")
    repo.commit_all()
    repo.outside = outside
    return repo


def outside_files(repo) -> list[str]:
    found = []
    for base in (repo.outside, repo.root.parent):
        for dirpath, dirnames, filenames in os.walk(base):
            if os.path.abspath(dirpath).startswith(str(repo.root)):
                dirnames[:] = []
                continue
            found += [os.path.join(dirpath, n) for n in filenames
                      if "escape" in n or "evil" in n]
    return found


def fingerprint(repo) -> dict:
    """Everything a refusal must leave as it was, read directly (no git process: this
    runs for ~900 cases): every file and link of the worktree and the git dir except
    objects (a refusal may not even write a blob, and loose objects are checked by
    count), with contents."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(repo.root):
        for name in filenames + dirnames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, repo.root)
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                out[rel] = ("dir",)
            elif rel.startswith(os.path.join(".git", "objects")):
                out[rel] = ("object",)
            else:
                st = os.lstat(p)
                with open(p, "rb") as f:
                    out[rel] = (oct(st.st_mode), f.read())
    return out


def _check_refused(repo, response: str):
    before = fingerprint(repo)
    r = repo.run(response=response)
    assert r.returncode == 1, f"accepted!\n{response!r}\n{r.out}{r.err}"
    assert "internal error" not in r.err, r.err
    assert fingerprint(repo) == before
    assert outside_files(repo) == []
    assert not os.path.exists("/etc/ai-apply-escape")
    return r


# -- the whole table, in-process ---------------------------------------------------------

MODEL_ROOT = "/hostile/repo"
MODEL_OUTSIDE = "/hostile/outside"


class RepoModel:
    """What the shared repository below holds, as make_plan's Base sees it: tracked files
    and links (HEAD's tree), a submodule entry, and what is on disk besides."""

    TRACKED = {"a.txt": (MODE_FILE, b"one\ntwo\n"), "dir/f.txt": (MODE_FILE, b"one\ntwo\n"),
               "link": (MODE_LINK, b"dir"), "outlink": (MODE_LINK, MODEL_OUTSIDE.encode()),
               "dir/innerlink": (MODE_LINK, b"../..")}
    SUBMODULES = {"sub"}

    def entry(self, path):
        return self.TRACKED.get(path)

    def kind(self, path):
        if path in self.SUBMODULES:
            return "submodule"
        if path in self.TRACKED:
            return "symlink" if self.TRACKED[path][0] == MODE_LINK else "file"
        if any(p.startswith(path + "/") for p in self.TRACKED):
            return "dir"
        return None

    def disk_kind(self, path):
        return "dir" if path == ".git" else self.kind(path)


def refused_in_process(response: str) -> ApplyError:
    """The ApplyError the pure layer refuses ``response`` with (fails when it is accepted)."""
    try:
        parsed = parse_response(response)
        make_plan(parsed.ops, RepoModel(), lambda raw: normalize_path(raw, worktree=MODEL_ROOT))
    except ApplyError as e:
        return e
    raise AssertionError(f"accepted!\n{response!r}")


_MOVES_A_TXT = ("fc-rename-to", "ap-move-to", "ud-rename")  # templates that move a.txt itself


@pytest.mark.parametrize("template", list(TEMPLATES), ids=list(TEMPLATES))
@pytest.mark.parametrize("hostile", list(HOSTILE), ids=list(HOSTILE))
def test_hostile_path_refused_everywhere(hostile, template):
    if hostile == "file-as-folder" and template in _MOVES_A_TXT:
        pytest.skip("a.txt moved to a.txt/evil.txt replaces the file by a folder, as git "
                    "applies it (BEHAVIOR.md §5): tests/plan/test_plan_files.py")
    path = HOSTILE[hostile].replace("{outside}", MODEL_OUTSIDE)
    err = refused_in_process(TEMPLATES[template].replace("{p}", path))
    assert err.problems and all(p.reason for p in err.problems)


# the same templates with an ordinary path are accepted: the refusals above are the paths'
BENIGN = {"fc-new": "new/ok.txt", "fc-rename-to": "b.txt", "fc-rename-from": "a.txt",
          "ap-add": "new/ok.txt", "ap-move-to": "new/moved.txt", "cc-create": "new/ok.txt",
          "ud-new": "new/ok.txt", "ud-rename": "new/moved.txt", "git-diff-new": "new/ok.txt"}


@pytest.mark.parametrize("template", [t for t in TEMPLATES if t != "hashline"])
def test_templates_with_an_ordinary_path_are_accepted(template):
    parsed = parse_response(TEMPLATES[template].replace("{p}", BENIGN.get(template, "a.txt")))
    plan = make_plan(parsed.ops, RepoModel(), lambda raw: normalize_path(raw, worktree=MODEL_ROOT))
    assert not plan.is_noop()


# one per kind of refusal and per format, through the real command
END_TO_END = [("dotdot", "fc-new"), ("absolute-outside", "ap-add"), ("dotgit-hook", "cc-create"),
              ("ntfs-short-name", "ud-new"), ("hfs-zwnj", "git-diff-new"),
              ("through-link-outside", "ap-add"), ("through-link-nested", "fc-patch"),
              ("file-as-folder", "ud-modify"), ("submodule-as-folder", "ap-update"),
              ("folder-as-file", "fc-delete"), ("dotgit", "fc-rename-to"),
              ("nul", "hashline")]


@pytest.mark.parametrize("hostile,template", END_TO_END, ids=[f"{h}-{t}" for h, t in END_TO_END])
def test_hostile_path_refused_by_the_command(hostile_repo, hostile, template):
    path = HOSTILE[hostile].replace("{outside}", str(hostile_repo.outside))
    _check_refused(hostile_repo, TEMPLATES[template].replace("{p}", path))


def test_refusal_names_the_reason(hostile_repo):
    r = _check_refused(hostile_repo, TEMPLATES["fc-new"].replace("{p}", "../escape.txt"))
    assert "'..'" in r.err
    r = _check_refused(hostile_repo, TEMPLATES["ap-add"].replace("{p}", "link/evil.txt"))
    assert "symbolic link" in r.err
    r = _check_refused(hostile_repo, TEMPLATES["cc-create"].replace("{p}", "GIT~1/config"))
    assert ".git" in r.err
    r = _check_refused(hostile_repo, TEMPLATES["fc-new"].replace("{p}", "a\x1b[31mred.txt"))
    assert "\x1b" not in r.err  # a hostile path never reaches the terminal raw


# -- symlinked git files (git fsck: gitmodulesSymlink) --------------------------------

DOTFILE_NAMES = [".gitmodules", ".GITMODULES", ".gitmodules.", ".gitmodules ", "gitmod~1",
                 ".git\u200cmodules", ".gitattributes", ".gitignore", ".mailmap",
                 "dir/.gitattributes", "dir/.gitignore"]


DOTFILE_TEMPLATES = {
        "fc-rename-to": '<FILE_CHANGES>\n<FILE_RENAME from_path="outlink" to_path="{p}" />\n'
                        '</FILE_CHANGES>\n',
        "ap-move-to-link": "*** Begin Patch\n*** Update File: outlink\n*** Move to: {p}\n"
                           "*** End Patch\n",
        "ud-rename-link": "```diff\ndiff --git a/outlink b/{p}\nsimilarity index 100%\n"
                          "rename from outlink\nrename to {p}\n```\n",
}


@pytest.mark.parametrize("name", DOTFILE_NAMES)
@pytest.mark.parametrize("fmt", list(DOTFILE_TEMPLATES))
def test_symlink_renamed_to_a_git_dotfile_is_refused(name, fmt):
    """A response cannot create links, but it can rename one: a symlinked .gitmodules
    (CVE-2018-11235) or .gitattributes/.gitignore/.mailmap must never be committed."""
    refused_in_process(DOTFILE_TEMPLATES[fmt].replace("{p}", name))


def test_symlink_renamed_to_gitmodules_refused_by_the_command(hostile_repo):
    _check_refused(hostile_repo, DOTFILE_TEMPLATES["ap-move-to-link"].replace("{p}", ".gitmodules"))
    assert "gitmodulesSymlink" not in hostile_repo.git("fsck", check=False)


def test_regular_file_renamed_to_gitmodules_is_fine(own_repo):
    r = own_repo.run(response='<FILE_CHANGES>\n<FILE_RENAME from_path="a.txt" '
                                  'to_path=".gitattributes" />\n</FILE_CHANGES>\n')
    assert r.returncode == 0, r.err


# -- links created or moved by the same response -----------------------------------------

SAME_RESPONSE = {
    # a link moved to a new name, then written through under that name
    "renamed-link-then-through": '<FILE_CHANGES>\n<FILE_RENAME from_path="link" to_path="l2" />\n'
                                 '<FILE_NEW file_path="l2/evil.txt">\nx\n</FILE_NEW>\n'
                                 "</FILE_CHANGES>\n",
    "renamed-outlink-then-through": "*** Begin Patch\n*** Update File: outlink\n*** Move to: "
                                    "gone/o\n*** Add File: gone/o/evil.txt\n+x\n*** End Patch\n",
    # a symlink created by a diff (mode 120000), then written through
    "diff-creates-link": "```diff\ndiff --git a/x b/x\nnew file mode 120000\n--- /dev/null\n"
                         "+++ b/x\n@@ -0,0 +1 @@\n+dir\n\\ No newline at end of file\n"
                         "diff --git a/x/evil.txt b/x/evil.txt\nnew file mode 100644\n"
                         "--- /dev/null\n+++ b/x/evil.txt\n@@ -0,0 +1 @@\n+evil\n```\n",
    # a file created, then a file under it (file/folder clash inside one response)
    "new-file-then-under-it": '<FILE_CHANGES>\n<FILE_NEW file_path="n.txt">\nx\n</FILE_NEW>\n'
                              '<FILE_NEW file_path="n.txt/evil.txt">\ny\n</FILE_NEW>\n'
                              "</FILE_CHANGES>\n",
    "new-under-then-file": '<FILE_CHANGES>\n<FILE_NEW file_path="m/evil.txt">\ny\n</FILE_NEW>\n'
                           '<FILE_NEW file_path="m">\nx\n</FILE_NEW>\n</FILE_CHANGES>\n',
    "rename-onto-folder": '<FILE_CHANGES>\n<FILE_RENAME from_path="a.txt" to_path="dir" />\n'
                          "</FILE_CHANGES>\n",
    "delete-folder": "*** Begin Patch\n*** Delete File: dir\n*** End Patch\n",
    "delete-link-target-through-link": '<FILE_CHANGES>\n<FILE_DELETE file_path="link/f.txt" />\n'
                                       "</FILE_CHANGES>\n",
    "patch-a-symlink": "*** Begin Patch\n*** Update File: link\n@@\n-dir\n+/etc\n*** End Patch\n",
    "replace-a-symlink": '<FILE_CHANGES>\n<FILE_NEW file_path="outlink">\nx\n</FILE_NEW>\n'
                         "</FILE_CHANGES>\n",
    "edit-a-submodule": "*** Begin Patch\n*** Delete File: sub\n*** End Patch\n",
    # a good edit first, a hostile one after: the good one must not land either
    "good-then-hostile": '<FILE_CHANGES>\n<FILE_PATCH file_path="a.txt">\n@@\n-one\n+ONE\n two\n'
                         '</FILE_PATCH>\n<FILE_NEW file_path=".git/hooks/post-commit">\n'
                         "#!/bin/sh\n</FILE_NEW>\n</FILE_CHANGES>\n",
}


@pytest.mark.parametrize("case", list(SAME_RESPONSE))
def test_hostile_sequences_in_one_response(case):
    refused_in_process(SAME_RESPONSE[case])


@pytest.mark.parametrize("case", ["diff-creates-link", "good-then-hostile"])
def test_hostile_sequences_refused_by_the_command(hostile_repo, case):
    _check_refused(hostile_repo, SAME_RESPONSE[case])


UNTRACKED_ON_DISK = {"newlink": "symlink", "untracked.txt": "file", "untracked_dir": "dir",
                     "untracked_dir/keep.txt": "file"}


class RepoModelWithUntracked(RepoModel):
    def disk_kind(self, path):
        return UNTRACKED_ON_DISK.get(path) or super().disk_kind(path)


def refused_with_untracked(response: str) -> None:
    try:
        parsed = parse_response(response)
        make_plan(parsed.ops, RepoModelWithUntracked(),
                  lambda raw: normalize_path(raw, worktree=MODEL_ROOT))
    except ApplyError:
        return
    raise AssertionError(f"accepted!\n{response!r}")


@pytest.mark.parametrize("template", ["fc-new", "ap-add", "cc-create", "ud-new"])
def test_untracked_link_on_disk_is_not_written_through(template):
    refused_with_untracked(TEMPLATES[template].replace("{p}", "newlink/evil.txt"))


@pytest.mark.parametrize("template", ["fc-new", "ap-add", "cc-create", "ud-new", "fc-rename-to"])
@pytest.mark.parametrize("path", ["untracked.txt", "untracked_dir", "untracked.txt/x"])
def test_untracked_file_or_folder_in_the_way(template, path):
    refused_with_untracked(TEMPLATES[template].replace("{p}", path))


@pytest.mark.parametrize("template", ["fc-delete", "ap-delete", "ud-delete"])
def test_untracked_file_is_not_deleted(template):
    refused_with_untracked(TEMPLATES[template].replace("{p}", "untracked.txt"))


def test_untracked_things_in_the_way_refused_by_the_command(own_repo):
    os.symlink(str(own_repo.outside), own_repo.root / "newlink")
    own_repo.write("untracked.txt", "mine\n")
    _check_refused(own_repo, TEMPLATES["ap-add"].replace("{p}", "newlink/evil.txt"))
    _check_refused(own_repo, TEMPLATES["fc-rename-to"].replace("{p}", "untracked.txt"))
    assert own_repo.read("untracked.txt") == b"mine\n"


def test_absolute_path_inside_the_worktree_is_accepted(own_repo):
    """The one leniency: an absolute path inside the worktree is made relative."""
    p = f"{own_repo.root}/made.txt"
    r = own_repo.run(response=TEMPLATES["fc-new"].replace("{p}", p))
    assert r.returncode == 0, r.err
    assert own_repo.read("made.txt") == b"evil\n"
