"""The ``unified-diff`` format: ``git diff`` output and GNU unified diffs.

A file section starts at ``diff --git a/X b/Y`` (with git's extended header lines) or at
a ``--- X`` line directly followed by ``+++ Y`` and an ``@@`` line, so prose with dashes
never counts as a diff.  Consecutive sections (blank lines between them allowed) form one
change block; prose in between starts a new block.

Line numbers and counts in ``@@`` headers are hints: the body defines the hunk.  Counts
are used for one thing only, telling a removed line ``--- x`` or an added line ``+++ x``
from the next file header, and for keeping trailing blank context lines they announce.
"""
from __future__ import annotations

import re

from ..errors import ParseError
from ..ops import (ADD, CONTEXT, REMOVE, DeleteFile, EditFile, Hunk, NewFile, Operation,
                   RenameFile, SetMode, Source)
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan, scan_blocks
from ..paths import read_quoted_path
from ..text import HunkHeader, fence_open, read_hunk_header

NAME = "unified-diff"

DEV_NULL = "/dev/null"
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


def _is_file_header(lines: list[str], i: int) -> bool:
    """A '--- X' line directly followed by '+++ Y'."""
    return (i + 1 < len(lines) and lines[i].startswith("--- ")
            and lines[i + 1].startswith("+++ "))


def _section_starts(lines: list[str], i: int) -> bool:
    """Line ``i`` begins a file section (see the module doc for why '@@' is required)."""
    line = lines[i]
    if line.startswith("diff --git "):
        return True
    if line.startswith("diff ") and _is_file_header(lines, i + 1):
        return i + 3 < len(lines) and lines[i + 3].startswith("@@")
    return _is_file_header(lines, i) and i + 2 < len(lines) and lines[i + 2].startswith("@@")


def _svn_header(lines: list[str], i: int) -> bool:
    """Subversion's 'Index: PATH' and '====' lines right before a file section."""
    return (i + 2 < len(lines) and lines[i].startswith("Index: ")
            and lines[i + 1].startswith("====") and _section_starts(lines, i + 2))


def _is_hunk_line(line: str) -> bool:
    return line == "" or line[0] in " -+\\"


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
    triggers = "dI-"
    markers = ("diff --git ", "--- a/", "+++ b/", "--- /dev/null", "+++ /dev/null", "@@ -")
    tells = ("\n+++ ", "\n@@ ")

    def opens(self, scan: Scan, i: int) -> bool:
        return _svn_header(scan.lines, i) or _section_starts(scan.lines, i)

    def parse(self, scan: Scan, i: int) -> Block:
        lines = scan.lines
        n = len(lines)
        first = i
        if _svn_header(lines, i):
            i += 2
        ops: list[Operation] = []
        while True:
            section, i = _read_section(lines, i, scan)
            ops.extend(_operations(section))
            end = i
            j = i
            while j < n and not lines[j].strip():
                j += 1
            if j < n and _section_starts(lines, j):
                i = j
                continue
            if _svn_header(lines, j):
                i = j + 2
                continue
            break
        return Block(NAME, scan.starts[first], scan.offset(end), ops)


FORMAT = UnifiedDiff()


def find_blocks(text: str) -> list[Block]:
    return scan_blocks(text, [FORMAT]).blocks


def _read_section(lines: list[str], i: int, scan: Scan | None = None) -> tuple[_Section, int]:
    """Read one file section from line ``i``; return it and the line after it."""
    n = len(lines)
    sec = _Section(i + 1)
    if lines[i].startswith("diff --git "):
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
    number = 0
    while i < n and lines[i].startswith("@@"):
        number += 1
        hunk, i = _read_hunk(lines, i, number, sec, scan)
        sec.hunks.append(hunk)
    if not sec.hunks and scan is not None and i >= n - 1 and scan.ends_mid_line(n - 1):
        # the response stops inside a header line ('rename to ne' for 'new.py') or in
        # the one after them ('ind' for 'index ...' after 'new file mode 100644')
        raise sec.error(f"{CUT_OFF}: its last line {lines[n - 1][:60]!r} ends the response "
                        "in the middle of the line", n, hint=CUT_OFF_HINT)
    return sec, i


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


def _read_hunk(lines: list[str], i: int, number: int, sec: _Section,
               scan: Scan | None = None) -> tuple[Hunk, int]:
    """Read the hunk whose '@@' header is line ``i``; return it and the line after it."""
    n = len(lines)
    header = lines[i].rstrip()
    if header.startswith("@@@"):
        raise sec.error("combined diffs ('@@@' hunks of a merge) are not supported", i + 1,
                        hint="write an ordinary two-sided diff")
    m = read_hunk_header(header)
    old_left = new_left = None  # lines the counts still announce (None: no counts)
    line_hint = None
    if m:
        line_hint = m.old_start
        old_left = m.old_count if m.old_count is not None else 1
        new_left = m.new_count if m.new_count is not None else 1
    body: list[tuple[str, str]] = []
    blank_run = 0  # trailing blank lines in ``body`` (tentative context)
    old_before_blanks = new_before_blanks = None  # counts left before that run
    last_tag = None
    old_no_newline = new_no_newline = False
    j = i + 1
    while j < n:
        line = lines[j]
        counted = old_left is not None and (old_left > 0 or new_left > 0)
        if line.startswith("@@") or line.startswith("diff --git "):
            break
        if not counted:
            if _is_file_header(lines, j) and j + 2 < n and lines[j + 2].startswith("@@"):
                break  # the next file; without its '@@' the pair is a removed and an added line
            if (old_left is not None and line.rstrip() == "--"
                    and (j + 1 == n or not _is_hunk_line(lines[j + 1]))):
                break  # 'git format-patch' signature separator after the last hunk
        if not _is_hunk_line(line):
            break
        if line.startswith("\\"):
            if last_tag in (CONTEXT, REMOVE):
                old_no_newline = True
            if last_tag in (CONTEXT, ADD):
                new_no_newline = True
            blank_run = 0
            j += 1
            continue
        if not line.strip():
            if blank_run == 0:
                old_before_blanks, new_before_blanks = old_left, new_left
            blank_run += 1
            tag, content = CONTEXT, line[1:]
        else:
            blank_run = 0
            tag, content = line[0], line[1:]
        body.append((tag, content))
        last_tag = tag
        if old_left is not None:
            if tag != ADD:
                old_left -= 1
            if tag != REMOVE:
                new_left -= 1
        j += 1
    if blank_run:
        # Trailing blank lines end the hunk, unless the counts announce exactly that many
        # more context lines (a blank context line whose leading space was trimmed).  At
        # the end of the response a bare empty line is not taken as such a line: it is the
        # answer's own trailing blank (or where it was cut), so a short hunk shows as cut.
        usable = blank_run
        if j == n:
            while usable and not lines[j - blank_run + usable - 1].startswith(CONTEXT):
                usable -= 1
        keep = 0
        if (old_before_blanks is not None and old_before_blanks == new_before_blanks
                and 0 < old_before_blanks <= usable):
            keep = old_before_blanks
        drop = blank_run - keep
        del body[len(body) - drop:]
        j -= drop
        # a '\' line cannot sit after a blank run (it resets the run), so j is exact
    if not body:
        raise sec.error(f"hunk {number} has no lines", i + 1,
                        hint="a hunk needs context (' '), removed ('-') or added ('+') lines")
    if scan is not None and (j > scan.last_content or _ends_its_fence(lines, j, scan)):
        _check_not_cut(lines, i, j, number, sec, m, body, scan)
    if (j + 1 < n and lines[j].strip() and not _ends_hunk_cleanly(lines, j)
            and lines[j + 1].strip() and lines[j + 1][0] in " -+"):
        # hunk lines resume right after a foreign line: most likely a context line that
        # lost its leading space; ending the hunk here would apply only part of it.
        raise sec.error(
            f"hunk {number}: line {lines[j].strip()[:40]!r} does not start with ' ', '-' or '+' "
            "but hunk lines follow it", j + 1,
            hint="start every context line with a space, even an empty one")
    return Hunk(body, number=number, kind="hunk", line_hint=line_hint,
                old_no_newline=old_no_newline, new_no_newline=new_no_newline), j


def _ends_its_fence(lines: list[str], j: int, scan: Scan) -> bool:
    """Nothing but blank lines lies between the hunk (ending before line ``j``) and the
    line that closes the markdown fence around its diff."""
    if scan.fence is None:
        return False
    while j < len(lines) and not lines[j].strip():
        j += 1
    return j < len(lines) and scan.ends_fence(j)


def _check_not_cut(lines: list[str], i: int, j: int, number: int, sec: _Section, m: HunkHeader | None,
                   body: list[tuple[str, str]], scan: Scan) -> None:
    """Refuse a hunk that ends the response or its fence and looks cut off (BEHAVIOR.md
    §2): it holds fewer lines than its '@@' header announces, or its last line has no
    newline (the response stopped in the middle of it).  A hunk followed by anything
    else (another hunk or file, prose after an unfenced diff) is complete as written:
    its counts are only hints."""
    last = j - 1
    if scan.ends_mid_line(last) and lines[last][:1] in (CONTEXT, REMOVE, ADD):
        raise sec.error(f"{CUT_OFF}: the last line of hunk {number} ({lines[last][:40]!r}) "
                        "ends the response without a newline, in the middle of the line",
                        last + 1, hint=CUT_OFF_HINT)
    if not m:
        return
    old_count = m.old_count if m.old_count is not None else 1
    new_count = m.new_count if m.new_count is not None else 1
    old_seen = sum(1 for tag, _ in body if tag != ADD)
    new_seen = sum(1 for tag, _ in body if tag != REMOVE)
    if old_seen < old_count or new_seen < new_count:
        if j > scan.last_content:
            where, hint = "the response", CUT_OFF_HINT
        else:
            where = "its code fence"
            hint = (CUT_OFF_HINT + " (if this hunk is whole, its header's counts are wrong: "
                    "give the hunk's real line counts)")
        raise sec.error(f"{CUT_OFF}: hunk {number} ends {where} with {old_seen} of the "
                        f"{old_count} old and {new_seen} of the {new_count} new lines its "
                        f"header {lines[i].strip()!r} announces", i + 1, hint=hint)


def _ends_hunk_cleanly(lines: list[str], j: int) -> bool:
    """A line after a hunk that plainly ends it: a fence, a header, another diff."""
    line = lines[j]
    return (fence_open(line) is not None or line.startswith(("@@", "diff ", "Index: ", "--- ", "+++ "))
            or line.startswith("==="))


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
        old = None if old == DEV_NULL else old
        new = None if new == DEV_NULL else new
    if sec.rename_from is not None or sec.rename_to is not None:
        old = sec.rename_from or old
        new = sec.rename_to or new
    return old, new


def _one_path(sec: _Section, old: str, new: str) -> str:
    """The file a '---'/'+++' pair without a rename header means."""
    if old == new:
        return old
    if _drop_first(old) == _drop_first(new):  # 'diff -ru old-tree new-tree'
        return _drop_first(new)
    for base, backup in ((new, old), (old, new)):
        if any(backup == base + suffix for suffix in _BACKUP_SUFFIXES):
            return base
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
        ops.append(EditFile(path, sec.hunks, source))
    if mode is not None:
        ops.append(SetMode(path, mode, source))
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
