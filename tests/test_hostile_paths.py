"""Hostile paths, table-driven, through the real command: every hostile path, in every
directive of every format that can carry a path (new file, patch, delete, both ends of a
rename), is refused with exit 1 and nothing written: HEAD, refs, index, worktree and the
git dir's lock files stay byte-for-byte as they were, and nothing appears outside the
worktree (BEHAVIOR.md §6)."""
from __future__ import annotations

import os

import pytest

from conftest import GitRepo, make_env

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


@pytest.mark.parametrize("template", list(TEMPLATES), ids=list(TEMPLATES))
@pytest.mark.parametrize("hostile", list(HOSTILE), ids=list(HOSTILE))
def test_hostile_path_refused_everywhere(hostile_repo, hostile, template):
    path = HOSTILE[hostile].replace("{outside}", str(hostile_repo.outside))
    response = TEMPLATES[template].replace("{p}", path)
    _check_refused(hostile_repo, response)


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


@pytest.mark.parametrize("name", DOTFILE_NAMES)
@pytest.mark.parametrize("fmt", ["fc-rename-to", "ap-move-to-link", "ud-rename-link"])
def test_symlink_renamed_to_a_git_dotfile_is_refused(hostile_repo, name, fmt):
    """A response cannot create links, but it can rename one: a symlinked .gitmodules
    (CVE-2018-11235) or .gitattributes/.gitignore/.mailmap must never be committed."""
    templates = {
        "fc-rename-to": '<FILE_CHANGES>\n<FILE_RENAME from_path="outlink" to_path="{p}" />\n'
                        '</FILE_CHANGES>\n',
        "ap-move-to-link": "*** Begin Patch\n*** Update File: outlink\n*** Move to: {p}\n"
                           "*** End Patch\n",
        "ud-rename-link": "```diff\ndiff --git a/outlink b/{p}\nsimilarity index 100%\n"
                          "rename from outlink\nrename to {p}\n```\n",
    }
    _check_refused(hostile_repo, templates[fmt].replace("{p}", name))
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
def test_hostile_sequences_in_one_response(hostile_repo, case):
    _check_refused(hostile_repo, SAME_RESPONSE[case])


def test_untracked_link_on_disk_is_not_written_through(own_repo):
    os.symlink(str(own_repo.outside), own_repo.root / "newlink")
    for t in ("fc-new", "ap-add", "cc-create", "ud-new"):
        _check_refused(own_repo, TEMPLATES[t].replace("{p}", "newlink/evil.txt"))


def test_untracked_file_or_folder_in_the_way(own_repo):
    own_repo.write("untracked.txt", "mine\n")
    own_repo.write("untracked_dir/keep.txt", "mine\n")
    for t in ("fc-new", "ap-add", "cc-create", "ud-new", "fc-rename-to"):
        _check_refused(own_repo, TEMPLATES[t].replace("{p}", "untracked.txt"))
        _check_refused(own_repo, TEMPLATES[t].replace("{p}", "untracked_dir"))
        _check_refused(own_repo, TEMPLATES[t].replace("{p}", "untracked.txt/x"))
    for t in ("fc-delete", "ap-delete", "ud-delete"):
        _check_refused(own_repo, TEMPLATES[t].replace("{p}", "untracked.txt"))


def test_absolute_path_inside_the_worktree_is_accepted(own_repo):
    """The one leniency: an absolute path inside the worktree is made relative."""
    p = f"{own_repo.root}/made.txt"
    r = own_repo.run(response=TEMPLATES["fc-new"].replace("{p}", p))
    assert r.returncode == 0, r.err
    assert own_repo.read("made.txt") == b"evil\n"
