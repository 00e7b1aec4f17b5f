"""Reading a unified diff's hunks: where a hunk ends, and whether the answer was cut.

A hunk's body runs to its real end, whatever its ``@@`` header counts say (BEHAVIOR.md
§2, §3): they are recounted, as ``git apply --recount`` does, and only break the ties
nothing else can (see ``read_hunk``).  A hunk is called cut off only on a real signal.
The file-section structure around the hunks (names, git's extended headers, the
operations) is ``unified_diff``'s; a section is passed in as ``sec`` and only asked for
``sec.error(reason, line, hint=...)``.
"""
from __future__ import annotations

import re

from ..ops import ADD, CONTEXT, REMOVE, Hunk
from ..text import HunkHeader, fence_open, read_hunk_header
from .scan import CUT_OFF, CUT_OFF_HINT, Scan

DEV_NULL = "/dev/null"
# a markdown list item as prose writes it: '- Fixed ...', '+ Added ...'
_LIST_ITEM = re.compile(r"[-+] \S")
PLACELESS_HINT = ("give a few unchanged lines of the file around the added lines as context "
                  "(lines starting with a space)")
LEFT_OUT_HINT = ("give the lines the hunk replaces as '-' lines, with a few unchanged lines "
                 "around them as context (lines starting with a space)")


def is_file_header(lines: list[str], i: int) -> bool:
    """A '--- X' line directly followed by '+++ Y'."""
    return (i + 1 < len(lines) and lines[i].startswith("--- ")
            and lines[i + 1].startswith("+++ "))


def section_starts(lines: list[str], i: int) -> bool:
    """Line ``i`` begins a file section (a '---'/'+++' pair counts only with an '@@' line
    after it, so prose with dashes never reads as a diff: ``unified_diff``'s module doc)."""
    line = lines[i]
    if line.startswith("diff --git "):
        return True
    if line.startswith("diff ") and is_file_header(lines, i + 1):
        return i + 3 < len(lines) and lines[i + 3].startswith("@@")
    return is_file_header(lines, i) and i + 2 < len(lines) and lines[i + 2].startswith("@@")


def svn_header(lines: list[str], i: int) -> bool:
    """Subversion's 'Index: PATH' and '====' lines right before a file section."""
    return (i + 2 < len(lines) and lines[i].startswith("Index: ")
            and lines[i + 1].startswith("====") and section_starts(lines, i + 2))


def is_hunk_line(line: str) -> bool:
    """A context, removed or added line, a '\\ No newline' line, or an empty line (a blank
    context line whose space was trimmed)."""
    return line == "" or line[0] in " -+\\"


def next_content(lines: list[str], i: int) -> int:
    """The first line at or after ``i`` that is not blank (``len(lines)`` if none)."""
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def read_hunk(lines: list[str], i: int, number: int, sec,
               scan: Scan | None = None, bounded: bool = False) -> tuple[Hunk | None, int]:
    """Read the hunk whose '@@' header is line ``i``; return it (None for a header with no
    lines after it) and the line after it.

    The body runs to its real end (the next '@@', a file header, the line closing the
    fence or ``<patch>``, anything that is not a hunk line) whatever the header counts say:
    it is recounted, as ``git apply --recount`` does (BEHAVIOR.md §2).  The counts are
    used only where nothing else can tell: a ``---``/``+++`` pair that may be a removed
    and an added line, trailing blank lines that may be blank context, and, in an
    unfenced (not ``bounded``) diff, a blank line followed by diff-like prose."""
    header = lines[i].rstrip()
    if header.startswith("@@@"):
        raise sec.error("combined diffs ('@@@' hunks of a merge) are not supported", i + 1,
                        hint="write an ordinary two-sided diff")
    m = read_hunk_header(header)
    hunk = _HunkBody(lines, number, sec, m, scan, watch=not bounded)
    j = hunk.read(i + 1)
    body = hunk.body
    if scan is not None and j > scan.last_content:
        _check_not_cut(lines, i, j, number, sec, m, body, scan)
    if not body:
        return None, j
    if j != hunk.prose_at:
        _refuse_a_lost_context_line(lines, j, number, sec)
    unplaced = placeless_addition(header, body)
    if unplaced:
        raise sec.error(f"hunk {number}: {unplaced}", i + 1, hint=PLACELESS_HINT)
    left_out = old_lines_left_out(m, body)
    if left_out:
        raise sec.error(f"hunk {number}: {left_out}", i + 1, hint=LEFT_OUT_HINT)
    return Hunk(body, number=number, kind="hunk", line_hint=m.old_start if m else None,
                old_no_newline=hunk.old_no_newline, new_no_newline=hunk.new_no_newline), j


class _HunkBody:
    """A hunk's body being read line by line, with the header's counts of the lines still
    announced (``old_left``, ``new_left``; None: no counts) recounted as it goes."""

    def __init__(self, lines: list[str], number: int, sec, m: HunkHeader | None,
                 scan: Scan | None, watch: bool):
        self.lines = lines
        self.number = number
        self.sec = sec
        self.scan = scan
        self.old_left, self.new_left = _announced(m) if m else (None, None)
        self.body: list[tuple[str, str]] = []
        self.blank_run = 0  # trailing blank lines in ``body`` (tentative context)
        self.old_before_blanks = self.new_before_blanks = None  # counts left before that run
        self.last_tag: str | None = None
        self.old_no_newline = self.new_no_newline = False
        self.prose_at: int | None = None  # where prose after the hunk begins (an unfenced diff's list)
        self.ahead: _RunAhead | None = None  # the lines after the hunk's first blank line
        self.watch = watch  # an unfenced diff: watch for the prose after it

    def read(self, j: int) -> int:
        """Read the body from line ``j`` to its real end; return the line after it (its
        trailing blank lines that are not the hunk's left out)."""
        lines = self.lines
        while j < len(lines) and not self._ends_before(j):
            line = lines[j]
            if line.startswith("\\"):  # '\ No newline at end of file': of the line before
                self.old_no_newline = self.old_no_newline or self.last_tag in (CONTEXT, REMOVE)
                self.new_no_newline = self.new_no_newline or self.last_tag in (CONTEXT, ADD)
                self.blank_run = 0
                j += 1
                continue
            if self.watch and self.body and not self.blank_run:
                self.ahead, self.prose_at = _prose_after(lines, j, self.number, self.sec,
                                                         self.old_left, self.new_left, self.ahead)
                self.watch = self.prose_at is None
                if j == self.prose_at:
                    break
            self._take(line)
            j += 1
        if self.blank_run:
            drop = self.blank_run - _blank_lines_kept(lines, j, self.blank_run,
                                                      self.old_before_blanks,
                                                      self.new_before_blanks)
            del self.body[len(self.body) - drop:]
            j -= drop
            # a '\' line cannot sit after a blank run (it resets the run), so j is exact
        return j

    def _ends_before(self, j: int) -> bool:
        """Line ``j`` is not the hunk's: prose after it, the next hunk or file, a line
        that is no hunk line, or the fence's close past the lines the counts announce."""
        line = self.lines[j]
        if j == self.prose_at or _closes_hunk(self.lines, j, self.old_left, self.new_left) \
                or not is_hunk_line(line):
            return True
        # past the lines its header counts, ' ```' closes the fence (BEHAVIOR.md §2)
        return (line[:1] == " " and self.scan is not None
                and (self.old_left is None or (self.old_left <= 0 and self.new_left <= 0))
                and self.scan.ends_fence(j))

    def _take(self, line: str) -> None:
        """Add a context, removed or added line (a blank one is tentative context)."""
        if not line.strip():
            if self.blank_run == 0:
                self.old_before_blanks, self.new_before_blanks = self.old_left, self.new_left
            self.blank_run += 1
            tag, content = CONTEXT, line[1:]
        else:
            self.blank_run = 0
            tag, content = line[0], line[1:]
        self.body.append((tag, content))
        self.last_tag = tag
        if self.old_left is not None:
            self.old_left -= tag != ADD
            self.new_left -= tag != REMOVE


def placeless_addition(header: str, body: list[tuple[str, str]]) -> str | None:
    """Why a numberless hunk that only adds lines cannot be placed, or None.

    Such a hunk has no place but the text after its ``@@`` (``@@ class A:``), which these
    formats do not read (in git it is the line above the hunk, not its place): putting
    it at the end of the file, as a bare ``@@`` goes, would land it somewhere its author
    did not name (BEHAVIOR.md §3)."""
    text = header.strip()[2:]
    text = text.split("@@", 1)[1] if "@@" in text else text  # '@@ ... @@ text'
    text = text.strip()
    if not text or read_hunk_header(header) or any(tag != ADD for tag, _ in body):
        return None
    return (f"its '@@' line names a place ({text!r}) but it has no line numbers and no "
            "context lines, so where its added lines go cannot be found")


def old_lines_left_out(m: HunkHeader | None, body: list[tuple[str, str]]) -> str | None:
    """Why a hunk of only added lines whose header announces old lines cannot be placed,
    or None.  Counts are hints (recounted), but a hunk with no old line at all has
    nothing to be placed by but its number: when its header says it replaces lines
    there (``@@ -5,2 +5,3 @@``), its '-' lines and context were left out, and putting
    the added lines after line 5 would guess both where they go and what they replace
    (``-L,0`` announces none: an insertion after line L, as ``diff -U0`` writes it)."""
    if m is None or any(tag != ADD for tag, _ in body):
        return None
    announced = _announced(m)[0]
    if not announced:
        return None
    return (f"its header announces {announced} old line{'s' if announced > 1 else ''} "
            f"from line {m.old_start}, but it has no context or removed line, only added "
            "ones, so what they replace and where they go cannot be told")


def _announced(m: HunkHeader) -> tuple[int, int]:
    """The old and new line counts an '@@' header announces (an omitted count is 1)."""
    return (m.old_count if m.old_count is not None else 1,
            m.new_count if m.new_count is not None else 1)


def _blank_lines_kept(lines: list[str], j: int, blank_run: int, old_before: int | None,
                      new_before: int | None) -> int:
    """How many of the ``blank_run`` blank lines ending before line ``j`` belong to the
    hunk.  Trailing blank lines end the hunk, but those written as context (' ', the
    space kept) are the hunk's, and so are as many more as the counts (``old_before``,
    ``new_before``: what they still announced before the run) announce exactly: blank
    context lines whose leading space was trimmed.  At the end of the response a bare
    empty line is not taken as such a line: it is the answer's own trailing blank (or
    where it was cut), so a short hunk shows as cut."""
    first = j - blank_run
    usable = blank_run
    if j == len(lines):
        while usable and not lines[first + usable - 1].startswith(CONTEXT):
            usable -= 1
    keep = usable
    while keep and not lines[first + keep - 1].startswith(CONTEXT):
        keep -= 1
    if old_before is not None and old_before == new_before and keep < old_before <= usable:
        keep = old_before
    return keep


def _refuse_a_lost_context_line(lines: list[str], j: int, number: int, sec) -> None:
    """Hunk lines resume right after the foreign line ``j`` that ended the hunk: most
    likely a context line that lost its leading space; ending the hunk there would apply
    only part of it."""
    if (j + 1 < len(lines) and lines[j].strip() and not _ends_hunk_cleanly(lines, j)
            and lines[j + 1].strip() and lines[j + 1][0] in " -+"):
        raise sec.error(
            f"hunk {number}: line {lines[j].strip()[:40]!r} does not start with ' ', '-' or '+' "
            "but hunk lines follow it", j + 1,
            hint="start every context line with a space, even an empty one")


def _closes_hunk(lines: list[str], j: int, old_left: int | None, new_left: int | None) -> bool:
    """Line ``j`` ends the hunk before it: the next hunk, the next file's header, or
    'git format-patch''s signature separator."""
    line = lines[j]
    if line.startswith("@@") or line.startswith("diff --git "):
        return True
    n = len(lines)
    if is_file_header(lines, j) and j + 2 < n and lines[j + 2].startswith("@@"):
        # the next file, unless the counts announce exactly one more removed and one
        # more added line and the pair is not git's 'a/P' 'b/P' or /dev/null: then it
        # is those lines ('-- x' removed, '++ y' added)
        return not (old_left == 1 and new_left == 1) or _names_a_file(lines, j)
    counted = old_left is not None and (old_left > 0 or new_left > 0)
    return (old_left is not None and not counted and line.rstrip() == "--"
            and (j + 1 == n or not is_hunk_line(lines[j + 1])))


def _names_a_file(lines: list[str], j: int) -> bool:
    """The '---'/'+++' pair at line ``j`` is a header as git writes one: 'a/P' and 'b/P',
    or /dev/null on one side."""
    old, new = (lines[k][4:].split("\t", 1)[0].strip() for k in (j, j + 1))
    return DEV_NULL in (old, new) or (old[:2], new[:2]) == ("a/", "b/") and old[2:] == new[2:]


def _prose_after(lines: list[str], j: int, number: int, sec, old_left: int | None,
                 new_left: int | None, ahead: "_RunAhead | None") -> tuple["_RunAhead | None", int | None]:
    """In an unfenced diff, where prose begins after the hunk lines before line ``j``
    (None: not there), and the run read ahead (kept for the next question).

    At a blank line ``_prose_follows`` decides (the blank lines before the prose are read
    as any trailing blank lines are).  Right after the last line the counts announce, a
    markdown list (``+ Handles the empty case``) glued to the hunk is prose when every
    line of it reads as a list item and no more diff follows it."""
    if not lines[j].strip():
        if ahead is None or j >= ahead.end:
            ahead = _RunAhead(lines, j)
        if _prose_follows(lines, j, number, sec, old_left, new_left, ahead):
            return ahead, next_content(lines, j)
        return ahead, None
    if old_left == 0 and new_left == 0 and _LIST_ITEM.match(lines[j]):
        ahead = _RunAhead(lines, j)
        if not ahead.goes_on and ahead.last_unlisted < j:
            return ahead, j
    return ahead, None


class _RunAhead:
    """The run of hunk-like lines from ``start`` (a hunk's first blank line) to where it
    ends (the next hunk or file, or a line that is not a hunk line), read once so that
    the question ``_prose_follows`` asks at each later blank line costs nothing more."""

    def __init__(self, lines: list[str], start: int):
        n = len(lines)
        r = start
        while r < n and is_hunk_line(lines[r]) and not _closes_hunk(lines, r, None, None):
            r += 1
        self.start, self.end = start, r
        # the diff visibly goes on after the run
        self.goes_on = r < n and (lines[r].startswith(("@@", "diff ")) or is_file_header(lines, r)
                                  or svn_header(lines, r))
        last = r  # the run without its trailing blank lines (the separator before prose)
        while last > start and not lines[last - 1].strip():
            last -= 1
        self.last = last
        # the last line of the run that is neither blank nor a markdown list item
        self.last_unlisted = max((x for x in range(start, r) if lines[x].strip()
                                  and _LIST_ITEM.match(lines[x]) is None), default=-1)
        self._old, self._new = [0], [0]  # old / new lines in the run before each line
        for x in range(start, r):
            first = lines[x][:1]
            self._old.append(self._old[-1] + (first != ADD))
            self._new.append(self._new[-1] + (first != REMOVE))

    def completes(self, j: int, old_left: int, new_left: int) -> bool:
        """The lines from ``j`` to the end of the run are exactly what the counts still
        announce, with some or none of the run's trailing blank lines as blank context."""
        a, b = j - self.start, max(j, self.last) - self.start
        old, new = self._old[b] - self._old[a], self._new[b] - self._new[a]
        extra = old_left - old
        return extra == new_left - new and 0 <= extra <= self.end - max(j, self.last)


def _prose_follows(lines: list[str], j: int, number: int, sec, old_left: int | None,
                   new_left: int | None, ahead: _RunAhead) -> bool:
    """In an unfenced diff, whether the blank line ``j`` after hunk lines ends the hunk
    because what follows it is prose, not more of the hunk (BEHAVIOR.md §2).

    Nothing closes an unfenced diff, so a list after it (``- fixed``, ``+ added``) looks
    like hunk lines.  The diff-like lines after the blank run belong to the hunk when the
    diff visibly goes on after them (another hunk or file follows) or when they complete
    the header's counts exactly.  Otherwise they are prose when every one of them reads
    as a markdown list item (the sign, one space, a word).  Other lines (``-x``,
    ``+    return``, a context line) are the body when there are no counts (a bare
    '@@'), or when the counts are still open and the lines end the answer (the cut check
    then judges the hunk); anywhere else they may be the rest of a miscounted hunk or
    prose: that cannot be told apart, and is refused rather than guessed either way."""
    k = next_content(lines, j)
    if k >= ahead.end or ahead.goes_on:
        return False  # no diff-like line after the blanks, or the diff goes on after them
    if old_left is not None and ahead.completes(j, old_left, new_left):
        return False  # the lines complete the counts exactly: the hunk's
    if ahead.last_unlisted < k:
        return True  # every one reads as a list item
    if old_left is None or ((old_left > 0 or new_left > 0) and ahead.end == len(lines)):
        # no counts to go by (a bare '@@'), or the counts are still open and these lines
        # end the answer: the body (whether it is cut is judged at its end)
        return False
    raise sec.error(
        f"hunk {number}: after the blank line at response line {j + 1}, diff-like lines "
        f"follow ({lines[k].strip()[:40]!r}) that may be the hunk's or prose after the diff; "
        "its header counts do not settle it", j + 1,
        hint="put the diff in a ```diff fence, or give the hunk's real line counts")


def _check_not_cut(lines: list[str], i: int, j: int, number: int, sec, m: HunkHeader | None,
                   body: list[tuple[str, str]], scan: Scan) -> None:
    """Refuse a hunk that ends the response and looks cut off (BEHAVIOR.md §2): its last
    line has no newline (the response stopped in the middle of it), or it holds fewer
    lines than its '@@' header announces and nothing closes it (no fence, tag or line
    after it; a chat API's answer that its JSON calls complete, or the content of a
    closed fence, ends where its author stopped).  A hunk that something closes is
    complete as written: its counts are only hints."""
    last = j - 1
    if last > i and scan.ends_mid_line(last) and lines[last][:1] in (CONTEXT, REMOVE, ADD):
        raise sec.error(f"{CUT_OFF}: the last line of hunk {number} ({lines[last][:40]!r}) "
                        "ends the response without a newline, in the middle of the line",
                        last + 1, hint=CUT_OFF_HINT)
    if scan.ends_whole or scan.inside_fence:
        return
    if not body:
        raise sec.error(f"{CUT_OFF}: hunk {number}'s header {lines[i].strip()!r} ends the "
                        "response with no lines after it", i + 1, hint=CUT_OFF_HINT)
    if not m:
        return
    old_count = m.old_count if m.old_count is not None else 1
    new_count = m.new_count if m.new_count is not None else 1
    old_seen = sum(1 for tag, _ in body if tag != ADD)
    new_seen = sum(1 for tag, _ in body if tag != REMOVE)
    if old_seen < old_count or new_seen < new_count:
        raise sec.error(f"{CUT_OFF}: hunk {number} ends the response with {old_seen} of the "
                        f"{old_count} old and {new_seen} of the {new_count} new lines its "
                        f"header {lines[i].strip()!r} announces, and nothing closes it",
                        i + 1, hint=CUT_OFF_HINT)


def _ends_hunk_cleanly(lines: list[str], j: int) -> bool:
    """A line after a hunk that plainly ends it: a fence, a header, another diff."""
    line = lines[j]
    return (fence_open(line) is not None or line.startswith(("@@", "diff ", "Index: ", "--- ", "+++ "))
            or line.startswith("==="))
