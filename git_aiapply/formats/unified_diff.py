"""The ``unified-diff`` format: ``git diff`` output and GNU unified diffs.

A file section starts at ``diff --git a/X b/Y`` (with git's extended header lines) or at
a ``--- X`` line directly followed by ``+++ Y`` and an ``@@`` line, so prose with dashes
never counts as a diff.  Consecutive sections (blank lines between them allowed) form one
change block; prose in between starts a new block.

Line numbers and counts in ``@@`` headers are hints: the body defines the hunk, read to
its real end and recounted (``diff_hunks``).  ``<patch>`` ... ``</patch>`` (the SWE-bench
prompt's wrapper) holds a diff; a numbered hunk header outside any file's section is
refused, never left as prose.
"""
from __future__ import annotations

import re

from ..errors import ParseError
from ..ops import (ADD, CONTEXT, REMOVE, DeleteFile, EditFile, Hunk, NewFile, Operation,
                   RenameFile, SetMode, Source)
from .diff_hunks import DEV_NULL
from .diff_hunks import is_file_header as _is_file_header
from .diff_hunks import next_content as _next_content
from .diff_hunks import read_hunk as _read_hunk
from .diff_hunks import section_starts as _section_starts
from .diff_hunks import svn_header as _svn_header
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan
from .search_replace import (fence_of, names_file, path_in_info, ruled_out_path,
                             strip_path)
from ..paths import read_quoted_path
from ..text import fence_open, is_fence_close, read_hunk_header

NAME = "unified-diff"

PATCH_OPEN, PATCH_CLOSE = "<patch>", "</patch>"  # the SWE-bench prompt's wrapper
# '@@ -l[,c] +l[,c] @@ section'; the closing '@@' is optional (models drop it).
_DATE_RE = re.compile(r"\d{4}-\d\d-\d\d")
_TIME_RE = re.compile(r"\d\d:\d\d(?::\d\d(?:\.\d+)?)?")
_ZONE_RE = re.compile(r"[+-]\d{4}")
# one-letter prefixes git writes: a/ b/, and the mnemonic ones (diff.mnemonicPrefix)
_GIT_PREFIX_LETTERS = "abciwo"
_BACKUP_SUFFIXES = (".orig", ".old", ".bak", ".rej", "~")
_MODES = {"100644": 0o100644, "100755": 0o100755, "100664": 0o100644}
# git extended header lines that carry nothing we need
_IGNORED_HEADERS = ("index ", "similarity index ", "dissimilarity index ")


def _header_name(rest: str) -> str | None:
    """The file name of a ``---``/``+++`` line (text after the marker), or None if unreadable.

    Drops what follows a tab (timestamps, svn's '(revision N)') and a space-separated
    'YYYY-MM-DD HH:MM:SS[.frac] [+zone]' timestamp."""
    rest = rest.lstrip(" ")
    if rest.startswith('"'):
        name, _ = read_quoted_path(rest, 0)
        return name
    name = rest.split("\t", 1)[0].rstrip()
    words = name.split(" ")
    # a space-separated timestamp at the end: date time [zone]
    for k in range(max(1, len(words) - 3), len(words)):
        if _DATE_RE.fullmatch(words[k]) and all(
                _TIME_RE.fullmatch(w) or _ZONE_RE.fullmatch(w) for w in words[k + 1:]):
            name = " ".join(words[:k]).rstrip()
            break
    return name or None


def _has_git_prefix(name: str) -> bool:
    return len(name) > 2 and name[1] == "/" and name[0] in _GIT_PREFIX_LETTERS


def _drop_first(name: str) -> str:
    return name.split("/", 1)[1] if "/" in name else name


def _git_names(rest: str) -> tuple[str, str] | None:
    """The two names of a ``diff --git`` line (text after ``diff --git ``)."""
    rest = rest.rstrip()
    if rest.startswith('"'):
        a, j = read_quoted_path(rest, 0)
        tail = rest[j:].lstrip(" ")
        if a is None or not tail:
            return None
        b = read_quoted_path(tail, 0)[0] if tail.startswith('"') else tail
        return (a, b) if b else None
    if rest.endswith('"'):
        k = rest.rfind(' "')
        if k > 0:
            b, _ = read_quoted_path(rest, k + 1)
            return (rest[:k], b) if b else None
    # same name on both sides (the usual case): split in the middle, names may hold spaces
    if len(rest) % 2 == 1:
        half = len(rest) // 2
        a, b = rest[:half], rest[half + 1:]
        if rest[half] == " " and (a == b or _drop_first(a) == _drop_first(b)):
            return a, b
    k = rest.find(" b/")
    if k > 0:
        return rest[:k], rest[k + 1:]
    parts = rest.split(" ")
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    return None


class _Section:
    """One file's part of a diff, as read."""

    def __init__(self, line: int):
        self.line = line  # 1-based response line of its first header line
        self.git_names: tuple[str, str] | None = None
        self.git_prefixed = False
        self.prefix_taken = False  # the paths lost an a/ b/ prefix (see Source.git_prefix)
        self.prefixes = "ab"  # its letters (Source.prefixes)
        self.git_unreadable = False  # a 'diff --git' line whose two names cannot be split
        self.old_name: str | None = None  # from '---' (DEV_NULL for /dev/null)
        self.new_name: str | None = None  # from '+++'
        self.rename_from: str | None = None
        self.rename_to: str | None = None
        self.new_file = False
        self.deleted = False
        self.new_mode: str | None = None
        self.hunks: list[Hunk] = []
        self.notes: list[str] = []  # what was left out on purpose (an empty hunk)
        self.empty_hunks: list[tuple[int, int]] = []  # (hunk number, response line)
        self.display = "diff"  # directive words, refined once the path is known

    def error(self, reason: str, line: int | None = None, hint: str | None = None,
              file: str | None = None) -> ParseError:
        return ParseError(reason, line=line or self.line, directive=self.display,
                          file=file or self.named_file(), hint=hint)

    def named_file(self) -> str | None:
        """The file the section concerns as far as it has been read (its new side first),
        so that every refusal names it; None when no name could be read."""
        for name in (self.rename_to, self.new_name, self.git_names and self.git_names[1],
                     self.rename_from, self.old_name):
            if name and name != DEV_NULL:
                return _strip_git(self, name) if self.git_names and name == self.git_names[1] else name
        return None


# `git ai-apply prompt`: how to answer in this format, in our own words (prompts.py
# adds the common part).
PROMPT = """\
Answer with your explanation, then the change as a unified diff (as `git diff` prints it)
in a ```diff fence:

```diff
--- a/README.md
+++ b/README.md
@@ -1,3 +1,5 @@
 # Demo app
 
 A tiny program that greets people.
+
+Run it with: python src/app.py NAME
```

- `--- /dev/null` creates a file, `+++ /dev/null` deletes one; `rename from` /
  `rename to` lines (after `diff --git a/OLD b/NEW`) rename one.
- Line numbers only help to choose between equal places; the lines must match the file.
"""


class UnifiedDiff(Format):
    """``git diff`` / GNU unified diffs; consecutive file sections form one block."""

    name = NAME
    prompts = {"unified-diff": PROMPT}
    new_file_hint = 'a diff from `--- /dev/null`'
    triggers = "dI-<@"
    markers = ("diff --git ", "--- a/", "+++ b/", "--- /dev/null", "+++ /dev/null", "@@ -",
               PATCH_OPEN)
    tells = ("\n+++ ", "\n@@ ")

    def opens(self, scan: Scan, i: int) -> bool:
        return (_svn_header(scan.lines, i) or _section_starts(scan.lines, i)
                or _patch_tag_diff(scan.lines, i) is not None or _orphan_hunk(scan.lines, i))

    def parse(self, scan: Scan, i: int) -> Block:
        lines = scan.lines
        n = len(lines)
        first = i
        named = _orphan_hunk(lines, i) and _path_named_above(scan, i)
        if _orphan_hunk(lines, i) and not named:
            raise ParseError(
                f"a hunk header ({lines[i].strip()[:40]!r}) stands outside any file's diff: "
                f"no '---'/'+++' or 'diff --git' header names its file{_ruled_out_note(scan, i)}",
                line=i + 1,
                directive="diff", hint="give every hunk after its file's '--- a/PATH' and "
                                       "'+++ b/PATH' lines, with no prose in between")
        tagged = _patch_tag_diff(lines, i)
        if tagged:
            i, inner_fence = tagged
        if _svn_header(lines, i):
            i += 2
        bounded = tagged or scan.fence is not None or scan.inside_fence
        ops: list[Operation] = []
        notes: list[str] = []
        while True:
            section, i = _read_section(lines, i, scan, bounded, named or None)
            named = None
            ops.extend(_operations(section))
            notes.extend(section.notes)
            end = i
            j = _next_content(lines, i)
            if j < n and _section_starts(lines, j):
                i = j
                continue
            if _svn_header(lines, j):
                i = j + 2
                continue
            break
        if tagged:
            end = _patch_tag_close(lines, end, first, inner_fence) + 1
        return Block(NAME, scan.starts[first], scan.offset(end), ops, notes=notes)


def _orphan_hunk(lines: list[str], i: int) -> bool:
    """Line ``i``, outside every block, is a numbered '@@' hunk header with hunk lines
    after it: a hunk whose file header is missing (or that prose cut off from its diff).
    Left as prose it would be dropped while the rest applies, so it is refused."""
    return (lines[i].startswith("@@ -") and read_hunk_header(lines[i].rstrip()) is not None
            and i + 1 < len(lines) and lines[i + 1][:1] in (CONTEXT, REMOVE, ADD))


# lines of a diff that may stand above a hunk without making a file section
_NOT_PROSE = ("--- ", "+++ ", "diff ", "Index: ", "@@", "====")


def _path_named_above(scan: Scan, i: int) -> str | None:
    """The file a headerless diff (its first line ``i``, an '@@' header) concerns: the path
    in its fence's info string, or the one file the line of prose just above its fence
    (or above it, unfenced) names, read as a SEARCH/REPLACE block's path line is
    (``In `web/app.js`, change...:``, ``File: x.py``); None when none or several."""
    lines = scan.lines
    top = i
    if scan.fence is not None and _next_content(lines, scan.fence.line + 1) == i:
        top = scan.fence.line
        info_path = path_in_info(fence_of(lines[top])[2])
        if info_path:
            return info_path
    k = _prose_line_above(scan, top)
    return strip_path(lines[k]) if k is not None and names_file(lines[k]) else None


def _prose_line_above(scan: Scan, top: int) -> int | None:
    """The line of prose just above line ``top`` (up to three blank lines between)."""
    lines = scan.lines
    k = top - 1
    while k >= scan.floor and k >= top - 3 and not lines[k].strip():
        k -= 1
    if (k < scan.floor or not lines[k].strip() or fence_of(lines[k]) is not None
            or lines[k].startswith(_NOT_PROSE)):
        return None  # a diff's own header line left alone is no prose naming a file
    return k


def _ruled_out_note(scan: Scan, i: int) -> str:
    """For the refusal of a headerless diff: the one file the prose above it backticks
    but does not name as the file to change (``copied from `x.py```), else nothing."""
    top = scan.fence.line if scan.fence is not None else i
    k = _prose_line_above(scan, top)
    named = ruled_out_path(scan.lines[k]) if k is not None else None
    if named is None:
        return ""
    return (f" (the line above names {named!r}, but not as the file the diff changes: a "
            "sentence names it only right after 'In', 'Update', 'Edit' or the like, or "
            "just before its final ':', never beside 'unlike', 'not', 'copied from')")


def _patch_tag_diff(lines: list[str], i: int) -> tuple[int, tuple[str, int] | None] | None:
    """When line ``i`` is ``<patch>`` (the SWE-bench prompt's wrapper) and a diff follows
    it, directly or in a markdown fence: (the diff's first line, that fence or None)."""
    if lines[i].strip().lower() != PATCH_OPEN:
        return None
    j = _next_content(lines, i + 1)
    fence = fence_open(lines[j]) if j < len(lines) else None
    if fence is not None:
        j = _next_content(lines, j + 1)
    if j < len(lines) and (_svn_header(lines, j) or _section_starts(lines, j)):
        return j, fence
    return None


def _patch_tag_close(lines: list[str], i: int, opened: int,
                     inner_fence: tuple[str, int] | None) -> int:
    """The ``</patch>`` line closing the ``<patch>`` of line ``opened`` (after the fence
    inside it, if any), the diff having ended before line ``i``; refused when the answer
    ends first (cut off) or something else stands there."""
    n = len(lines)
    j = _next_content(lines, i)
    if inner_fence is not None and j < n:
        if not is_fence_close(lines[j], *inner_fence):
            raise ParseError(f"the <patch> opened at response line {opened + 1} holds "
                             f"{lines[j].strip()[:40]!r} after its diff (response line {j + 1}), "
                             "where the code fence inside it should close", line=j + 1,
                             directive="patch", hint="put only the diff between <patch> and "
                                                     "</patch>")
        j = _next_content(lines, j + 1)
    if j < n and lines[j].strip().lower() == PATCH_CLOSE:
        return j
    if j >= n:
        raise ParseError(f"{CUT_OFF}: the <patch> opened at response line {opened + 1} is "
                         "never closed", line=opened + 1, directive="patch", hint=CUT_OFF_HINT)
    raise ParseError(f"the <patch> opened at response line {opened + 1} holds "
                     f"{lines[j].strip()[:40]!r} after its diff (response line {j + 1}), "
                     "where </patch> should close it", line=j + 1, directive="patch",
                     hint="put only the diff between <patch> and </patch>")


FORMAT = UnifiedDiff()



def _read_section(lines: list[str], i: int, scan: Scan | None = None,
                  bounded: bool = False, named: str | None = None) -> tuple[_Section, int]:
    """Read one file section from line ``i``; return it and the line after it.
    ``bounded``: something closes the diff (a fence, ``</patch>``), see ``_read_hunk``;
    ``named``: the file of a headerless diff (its hunks begin at line ``i``), named by
    the prose above it."""
    n = len(lines)
    sec = _Section(i + 1)
    if named is not None:
        sec.old_name = sec.new_name = named
        sec.display = "diff " + named
    elif lines[i].startswith("diff --git "):
        sec.display = "diff " + lines[i][len("diff --git "):].strip()
        names = _git_names(lines[i][len("diff --git "):])
        if names is not None:
            sec.git_names = names
            sec.git_prefixed = _has_git_prefix(names[0]) and _has_git_prefix(names[1])
            sec.prefix_taken = sec.git_prefixed
            sec.prefixes = names[0][0] + names[1][0]
            sec.display = "diff " + _strip_git(sec, names[1])
        else:
            # names with spaces and no a/ b/ prefixes cannot be split; the '---'/'+++' or
            # rename lines may still name the file (checked in _paths)
            sec.git_unreadable = True
        i = _read_git_headers(lines, i + 1, sec)
    elif lines[i].startswith("diff "):
        i += 1  # a GNU 'diff -u OLD NEW' command line: only the '---'/'+++' names count
    if i < n and lines[i].startswith("--- "):
        if not _is_file_header(lines, i):
            raise sec.error("a '--- ' file header line is not followed by a '+++ ' line", i + 1)
        _read_names(lines, i, sec)
        i += 2
    i = _read_hunks(lines, i, sec, scan, bounded)
    if not sec.hunks and scan is not None and i >= n - 1 and scan.ends_mid_line(n - 1):
        # the response stops inside a header line ('rename to ne' for 'new.py') or in
        # the one after them ('ind' for 'index ...' after 'new file mode 100644')
        raise sec.error(f"{CUT_OFF}: its last line {lines[n - 1][:60]!r} ends the response "
                        "in the middle of the line", n, hint=CUT_OFF_HINT)
    return sec, i


def _read_hunks(lines: list[str], i: int, sec: _Section, scan: Scan | None,
                bounded: bool) -> int:
    """Read the section's hunks from line ``i`` into ``sec``; return the line after them."""
    n = len(lines)
    number = 0
    while i < n and lines[i].startswith("@@"):
        number += 1
        header = i
        hunk, i = _read_hunk(lines, i, number, sec, scan, bounded)
        if hunk is not None:
            sec.hunks.append(hunk)
        else:
            _drop_empty_hunk(lines, header, number, sec)
        after = _next_content(lines, i)
        if after < n and lines[after].startswith("@@"):
            i = after  # blank lines between two hunks: the next hunk is this file's too
    return i


def _drop_empty_hunk(lines: list[str], i: int, number: int, sec: _Section) -> None:
    """An '@@' header with no lines inside a diff that goes on (BEHAVIOR.md §2): it
    changes nothing and is left out with a note.  A new or deleted file's hunks are its
    content, so there an empty one is refused rather than make the file empty."""
    if sec.new_file or sec.deleted or DEV_NULL in (sec.old_name, sec.new_name):
        raise sec.error(f"hunk {number} has no lines", i + 1,
                        hint="a new file's hunk gives its lines as '+' lines, a deleted "
                             "file's as '-' lines")
    sec.empty_hunks.append((number, i + 1))
    sec.notes.append(f"response line {i + 1}: hunk {number} of {sec.named_file() or 'the diff'} "
                     f"({lines[i].strip()[:40]}) has no lines; left out")


def _strip_git(sec: _Section, name: str) -> str:
    return name[2:] if sec.git_prefixed and _has_git_prefix(name) else name


def _read_git_headers(lines: list[str], i: int, sec: _Section) -> int:
    """git's extended header lines after 'diff --git'; return the first line after them."""
    n = len(lines)
    while i < n:
        line = lines[i]
        if line.startswith(_IGNORED_HEADERS) or line.startswith("old mode "):
            pass
        elif line.startswith("new file mode "):
            sec.new_file = True
            sec.new_mode = line[len("new file mode "):].strip()
        elif line.startswith("deleted file mode "):
            sec.deleted = True
        elif line.startswith("new mode "):
            sec.new_mode = line[len("new mode "):].strip()
        elif line.startswith(("rename from ", "rename old ")):
            sec.rename_from = _quoted_or_plain(line.split(" ", 2)[2])
        elif line.startswith(("rename to ", "rename new ")):
            sec.rename_to = _quoted_or_plain(line.split(" ", 2)[2])
        elif line.startswith(("copy from ", "copy to ")):
            raise sec.error("copies are not supported",
                            i + 1, hint="write the copy as a new file (--- /dev/null)")
        elif line.startswith("GIT binary patch") or (line.startswith("Binary files ")
                                                      and line.rstrip().endswith(" differ")):
            raise sec.error("binary patches are not supported", i + 1,
                            hint="binary files cannot be changed through a response")
        else:
            return i
        i += 1
    return i


def _quoted_or_plain(name: str) -> str:
    name = name.rstrip()
    if name.startswith('"'):
        unquoted, _ = read_quoted_path(name, 0)
        if unquoted is not None:
            return unquoted
    return name


def _read_names(lines: list[str], i: int, sec: _Section) -> None:
    old = _header_name(lines[i][4:])
    new = _header_name(lines[i + 1][4:])
    if old is None or new is None:
        raise sec.error("cannot read the file name of a '---'/'+++' line",
                        i + 1 if old is None else i + 2)
    if sec.git_names is not None:
        if sec.git_prefixed:
            old = old[2:] if old != DEV_NULL and _has_git_prefix(old) else old
            new = new[2:] if new != DEV_NULL and _has_git_prefix(new) else new
    elif old == DEV_NULL:
        sec.prefix_taken = new.startswith("b/")
        new = new[2:] if new.startswith("b/") else new
    elif new == DEV_NULL:
        sec.prefix_taken = old.startswith("a/")
        old = old[2:] if old.startswith("a/") else old
    elif old.startswith("a/") and new.startswith("b/"):
        sec.prefix_taken = True
        old, new = old[2:], new[2:]
    sec.old_name, sec.new_name = old, new
    shown = new if new != DEV_NULL else old
    sec.display = "diff " + shown


def _mode(sec: _Section) -> int | None:
    if sec.new_mode is None:
        return None
    if sec.new_mode in _MODES:
        return _MODES[sec.new_mode]
    what = {"120000": "symlinks", "160000": "submodules"}.get(sec.new_mode, f"mode {sec.new_mode}")
    raise sec.error(f"{what} are not supported (mode {sec.new_mode})",
                    hint="only regular files (100644) and executables (100755) can be written")


def _paths(sec: _Section) -> tuple[str | None, str | None]:
    """(old path, new path) of the section; None for a side that does not exist."""
    git_old = git_new = None
    if sec.git_names is not None:
        git_old, git_new = (_strip_git(sec, name) for name in sec.git_names)
    old, new = sec.old_name, sec.new_name
    if old is None and not (sec.rename_from and sec.rename_to):
        # no '---'/'+++' lines: git's header names say it
        if sec.git_unreadable:
            raise sec.error("cannot read the two file names of this 'diff --git' line",
                            hint="write 'diff --git a/PATH b/PATH'")
        old, new = git_old, git_new
        if sec.new_file:
            old = None
        if sec.deleted:
            new = None
    else:
        old, new = _header_sides(old, new)
    if sec.rename_from is not None or sec.rename_to is not None:
        old = sec.rename_from or old
        new = sec.rename_to or new
    return old, new


# a remark models put after a header's path: 'a/config.yaml (original)'
_REMARK = re.compile(r"(\S.*?) +\([^()]*\)")


def _without_remark(name: str) -> str:
    """``name`` without a parenthesised remark after a space at its end."""
    m = _REMARK.fullmatch(name)
    return m.group(1) if m else name


def _header_sides(old: str, new: str) -> tuple[str | None, str | None]:
    """The '---'/'+++' names as (old path, new path), None for /dev/null; beside
    /dev/null a remark after the name ('+++ b/new.py (new file)') is no part of it."""
    old_path = None if old == DEV_NULL else old
    new_path = None if new == DEV_NULL else new
    if old_path is None or new_path is None:
        return old_path and _without_remark(old_path), new_path and _without_remark(new_path)
    return old_path, new_path


def _one_path(sec: _Section, old: str, new: str) -> str:
    """The file a '---'/'+++' pair without a rename header means."""
    if old == new:
        return old
    if _drop_first(old) == _drop_first(new):  # 'diff -ru old-tree new-tree'
        return _drop_first(new)
    for base, backup in ((new, old), (old, new)):
        if any(backup == base + suffix for suffix in _BACKUP_SUFFIXES):
            return base
    bare_old, bare_new = _without_remark(old), _without_remark(new)
    if bare_old == bare_new:  # 'a/x.yaml (original)', 'b/x.yaml (modified)'
        return bare_new
    raise sec.error(f"the '---' line names {old} but the '+++' line names {new}",
                    hint="for a rename write 'diff --git' with 'rename from'/'rename to' lines")


def _operations(sec: _Section) -> list[Operation]:
    mode = _mode(sec)
    old, new = _paths(sec)
    renaming = sec.rename_from is not None or sec.rename_to is not None
    if renaming and (not sec.rename_from or not sec.rename_to):
        raise sec.error("a rename needs both 'rename from' and 'rename to' lines")
    if old is None and new is None:
        raise sec.error("both sides of the diff are /dev/null")
    if old is None:
        return [_new_file(sec, new, mode)]
    if new is None:
        return [_deleted_file(sec, old)]
    ops: list[Operation] = []
    if renaming:
        sec.display = f"diff {old} => {new}"
        ops.append(RenameFile(old, new, _source(sec)))
        path = new
    else:
        path = _one_path(sec, old, new)
        sec.display = f"diff {path}"
    source = _source(sec)
    if sec.hunks:
        same_path = not renaming and old == new and mode is None
        ops.append(EditFile(path, sec.hunks, source,
                            text_if_missing=_added_text(sec.hunks) if same_path else None))
    if mode is not None:
        ops.append(SetMode(path, mode, source))
    if not ops and sec.empty_hunks:
        number, line = sec.empty_hunks[0]
        raise sec.error(f"hunk {number} has no lines, and this file's diff has no other hunk",
                        line, file=path, hint="a hunk needs context (' '), removed ('-') or "
                                              "added ('+') lines")
    if not ops:
        raise sec.error("this file's diff has no hunks and changes nothing", file=path,
                        hint="give '@@' hunks with the changed lines")
    return ops


def _source(sec: _Section) -> Source:
    return Source(NAME, sec.display, line=sec.line, git_prefix=sec.prefix_taken,
                  prefixes=sec.prefixes)


def _new_file(sec: _Section, path: str, mode: int | None) -> NewFile:
    sec.display = f"diff {path}"
    added: list[str] = []
    no_newline = False
    for h in sec.hunks:
        for tag, content in h.lines:
            if tag == ADD or (tag == CONTEXT and not content.strip()):
                added.append(content)  # a blank line written without its '+': still content
            else:
                raise sec.error(f"hunk {h.number} of a new file has a "
                                f"{'removed' if tag == REMOVE else 'context'} line {content!r}",
                                file=path, hint="every line of a new file starts with '+'")
        no_newline = h.new_no_newline
    text = "\n".join(added)
    if added and not no_newline:
        text += "\n"
    return NewFile(path, text, _source(sec), replace=False,
                   mode=mode if mode == 0o100755 else None)


def _added_text(hunks: list[Hunk]) -> str | None:
    """The text of hunks that only add lines (a blank line without its '+' counts, as in a
    new file's diff), or None when any line is context or removed, or a header says the
    file already has lines (``@@ -12,0``: an addition after line 12 of a file, not a new
    file; ``-0,0`` and the common slip ``-1,0`` stand for an empty one)."""
    if any(h.line_hint is not None and h.line_hint > 1 for h in hunks):
        return None
    added: list[str] = []
    for h in hunks:
        for tag, content in h.lines:
            if tag != ADD and (tag != CONTEXT or content.strip()):
                return None
            added.append(content)
    if not any(tag == ADD for h in hunks for tag, _ in h.lines):
        return None
    return "\n".join(added) + ("" if hunks[-1].new_no_newline else "\n")


def _deleted_file(sec: _Section, path: str) -> DeleteFile:
    sec.display = f"diff {path}"
    removed: list[str] = []
    for h in sec.hunks:
        for tag, content in h.lines:
            if tag == ADD or (tag == CONTEXT and content.strip()):
                raise sec.error(f"hunk {h.number} of a deleted file has "
                                f"{'an added' if tag == ADD else 'a context'} line {content!r}",
                                file=path, hint="every line of a deleted file starts with '-'")
            removed.append(content)  # a blank line written without its '-': still content
    return DeleteFile(path, _source(sec), old_lines=removed)
