"""What a change did, printed as git prints it: the lines after `git commit`
(``[main 1a2b3c4] subject``, the short stat, ``create mode 100644 x``, ``rename a => b
(100%)``), and ``git apply``'s ``--stat``, ``--numstat`` and ``--summary``, and ``--diff``'s colours.

The change is the net difference between two states of the touched paths (before and
after), whatever steps the response took to get there: a file deleted and created again
is an update, a rename and back is no rename.  Renames are found as git finds them
(``diffcore-rename``: identical content first, then git's similarity estimate, 50% at
least), so the percentages are git's.  Pure: no repository.
"""
from __future__ import annotations

from collections import deque

from ..record import record
from ..paths import quote_git_path
from ..text import is_binary

MAX_SCORE = 60000  # git's diffcore MAX_SCORE
MIN_SCORE = 30000  # -M default: 50%
_HASHBASE = 107927
_MASK = 0xFFFFFFFF


@record
class FileStat:
    """One path of the net change (``old_path`` differs from ``path`` for a rename)."""

    status: str  # 'A' added, 'D' deleted, 'M' modified (content or mode), 'R' renamed
    path: str
    old_path: str
    old_mode: int
    new_mode: int
    added: int = 0
    deleted: int = 0
    binary: bool = False
    score: int = 0  # renames: git's similarity, 0..MAX_SCORE
    same_content: bool = False  # only the mode changed (or a rename of identical content)


# --------------------------------------------------------------------------- similarity


def _spans(data: bytes) -> dict[int, int]:
    """git's hash_chars: the content cut into lines (or 64-byte pieces), bytes per hash."""
    text = not is_binary(data)
    counts: dict[int, int] = {}
    n = accum1 = accum2 = 0
    size = len(data)
    i = 0
    while i < size:
        c = data[i]
        i += 1
        if text and c == 13 and i < size and data[i] == 10:
            continue  # CR of CRLF is ignored in text
        old1 = accum1
        accum1 = ((accum1 << 7) ^ (accum2 >> 25)) & _MASK
        accum2 = ((accum2 << 7) ^ (old1 >> 25)) & _MASK
        accum1 = (accum1 + c) & _MASK
        n += 1
        if n < 64 and c != 10:
            continue
        h = ((accum1 + accum2 * 0x61) & _MASK) % _HASHBASE
        counts[h] = counts.get(h, 0) + n
        n = accum1 = accum2 = 0
    if n:
        h = ((accum1 + accum2 * 0x61) & _MASK) % _HASHBASE
        counts[h] = counts.get(h, 0) + n
    return counts


def similarity(src: bytes, dst: bytes) -> int:
    """git's estimate_similarity: 0..MAX_SCORE, 0 when the sizes differ too much."""
    return _similarity(src, dst, _spans, _spans)


def _similarity(src: bytes, dst: bytes, src_spans, dst_spans) -> int:
    """``similarity``, with the spans of each side from the functions given (remembered
    by the caller that compares one file with many)."""
    max_size, base_size = max(len(src), len(dst)), min(len(src), len(dst))
    if max_size * (MAX_SCORE - MIN_SCORE) < (max_size - base_size) * MAX_SCORE:
        return 0
    if not max_size:
        return MAX_SCORE
    s, d = src_spans(src), dst_spans(dst)
    copied = sum(min(cnt, d.get(h, 0)) for h, cnt in s.items())
    return int(copied * MAX_SCORE / max_size)


def percent(score: int) -> int:
    return int(score * 100 / MAX_SCORE)


# --------------------------------------------------------------------------- the net change


def _is_regular(mode: int) -> bool:
    return mode & 0o170000 == 0o100000


def net_stats(before: dict, after: dict, line_counts) -> list[FileStat]:
    """The net change from ``before`` to ``after`` (path -> (mode, bytes) or None), sorted
    by path as git sorts a diff.  ``line_counts(old, new)`` -> (added, deleted) counts the
    lines of a text diff (None: lines are not counted, nor binary files told apart)."""
    deleted, added, stats = {}, {}, []
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        if old is None:
            added[path] = new
        elif new is None:
            deleted[path] = old
        else:
            stats.append(_stat("M", path, path, old, new, line_counts))
    pairs = _renames(deleted, added)
    for src, dst in pairs:
        old, new = deleted.pop(src), added.pop(dst)
        st = _stat("R", dst, src, old, new, line_counts)
        st.score = pairs[(src, dst)]
        stats.append(st)
    for path, old in deleted.items():
        stats.append(_stat("D", path, path, old, None, line_counts))
    for path, new in added.items():
        stats.append(_stat("A", path, path, None, new, line_counts))
    stats.sort(key=lambda s: s.path)
    return stats


def _stat(status, path, old_path, old, new, line_counts) -> FileStat:
    old_data = old[1] if old else b""
    new_data = new[1] if new else b""
    st = FileStat(status, path, old_path, old[0] if old else 0, new[0] if new else 0)
    st.same_content = old_data == new_data
    if line_counts is None:
        return st  # what changed, not by how much (binary only matters to the counts)
    if is_binary(old_data) or is_binary(new_data):
        st.binary = True
    elif old_data != new_data:
        if not old_data and b"\r" not in new_data:
            st.added = _lines(new_data)  # every line is added: no diff needed
        elif not new_data and b"\r" not in old_data:
            st.deleted = _lines(old_data)
        else:
            st.added, st.deleted = line_counts(old_data, new_data)
    return st


def _lines(data: bytes) -> int:
    """The lines git counts in ``data`` (a last line without a newline counts)."""
    return data.count(b"\n") + (1 if data and data[-1] != 0x0A else 0)


# git's diff.renameLimit default: the similarity of every deleted file with every added one
# is estimated only when there are at most this many squared pairs (diffcore-rename's
# too_many_rename_candidates); identical files are paired whatever their number.
RENAME_LIMIT = 1000


def _renames(deleted: dict, added: dict) -> dict[tuple[str, str], int]:
    """git's rename pairing: identical content first (a source with the same file name
    preferred), then the most similar pairs, each source and destination used once."""
    pairs: dict[tuple[str, str], int] = {}
    if not deleted or not added:
        return pairs
    used_src: set[str] = set()
    done_dst: set[str] = set()
    # the sources of each content (and of each content and file name), in order, so that
    # identical files pair up in time linear in their number
    by_content: dict[tuple, deque[str]] = {}
    by_name: dict[tuple, deque[str]] = {}
    for s, (smode, sdata) in deleted.items():
        key = (sdata, _is_regular(smode))
        by_content.setdefault(key, deque()).append(s)
        by_name.setdefault(key + (s.rsplit("/", 1)[-1],), deque()).append(s)

    def first_unused(queue) -> str | None:
        while queue and queue[0] in used_src:
            queue.popleft()
        return queue[0] if queue else None

    for dst, (dmode, ddata) in added.items():
        key = (ddata, _is_regular(dmode))
        src = first_unused(by_name.get(key + (dst.rsplit("/", 1)[-1],)))
        if src is None:
            src = first_unused(by_content.get(key))
        if src is not None:
            pairs[(src, dst)] = MAX_SCORE
            used_src.add(src)
            done_dst.add(dst)
    sources = {s: v for s, v in deleted.items() if s not in used_src}
    targets = {d: v for d, v in added.items() if d not in done_dst}
    if len(sources) * len(targets) > RENAME_LIMIT * RENAME_LIMIT:
        return pairs
    spans: dict[int, dict[int, int]] = {}

    def spans_of(data: bytes) -> dict[int, int]:  # each file's hashes computed once
        key = id(data)
        if key not in spans:
            spans[key] = _spans(data)
        return spans[key]

    scored = []
    for dst, (dmode, ddata) in targets.items():
        for src, (smode, sdata) in sources.items():
            if _is_regular(smode) != _is_regular(dmode):
                continue
            score = _similarity(sdata, ddata, spans_of, spans_of)
            if score >= MIN_SCORE:
                scored.append((-score, dst, src))
    for neg, dst, src in sorted(scored):
        if dst in done_dst or src in used_src:
            continue
        pairs[(src, dst)] = -neg
        used_src.add(src)
        done_dst.add(dst)
    return pairs


def change_words(stats: list[FileStat]) -> list[tuple[str, str]]:
    """(verb, path) of each file for a subject that names what changed
    (``message.changes.describe_changes``)."""
    out = []
    for st in stats:
        if st.status == "A":
            out.append(("add", st.path))
        elif st.status == "D":
            out.append(("delete", st.path))
        elif st.status == "R":
            out.append(("rename", f"{st.old_path} -> {st.path}"))
        elif st.old_mode != st.new_mode and st.same_content:
            out.append(("chmod", st.path))
        else:
            out.append(("update", st.path))
    return out


# --------------------------------------------------------------------------- printing


def shortstat(stats: list[FileStat]) -> str:
    """`` 2 files changed, 3 insertions(+), 1 deletion(-)`` (git's print_stat_summary)."""
    return shortstat_of(len(stats), sum(s.added for s in stats), sum(s.deleted for s in stats))


def shortstat_of(files: int, ins: int, dels: int) -> str:
    """git's summary line for these counts: a zero count beside a non-zero one is left
    out, as git leaves it out."""
    if not files:
        return " 0 files changed"
    out = f" {files} file{'s' if files != 1 else ''} changed"
    if ins or not dels:
        out += f", {ins} insertion{'s' if ins != 1 else ''}(+)"
    if dels or not ins:
        out += f", {dels} deletion{'s' if dels != 1 else ''}(-)"
    return out


def _pprint_rename(a: str, b: str) -> str:
    """git diff's ``a => b`` with the common leading and trailing folders outside braces
    (``src/{old.py => new.py}``)."""
    qa, qb = quote_git_path(a), quote_git_path(b)
    if qa != a or qb != b:
        return f"{qa} => {qb}"
    pfx = 0
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        if a[i] == "/":
            pfx = i + 1
        i += 1
    sfx = 0
    ia, ib = len(a) - 1, len(b) - 1
    adjust = 1 if pfx else 0
    while ia >= pfx - adjust and ib >= pfx - adjust and ia >= 0 and ib >= 0 and a[ia] == b[ib]:
        if a[ia] == "/":
            sfx = len(a) - ia
        ia -= 1
        ib -= 1
    a_mid = max(len(a) - pfx - sfx, 0)
    b_mid = max(len(b) - pfx - sfx, 0)
    if pfx + sfx:
        return f"{a[:pfx]}{{{a[pfx:pfx + a_mid]} => {b[pfx:pfx + b_mid]}}}{a[len(a) - sfx:]}"
    return f"{a} => {b}"


def _mode_change(st: FileStat, show_name: bool, quote: bool = True) -> list[str]:
    if st.old_mode and st.new_mode and st.old_mode != st.new_mode:
        name = f" {quote_git_path(st.path) if quote else st.path}" if show_name else ""
        return [f" mode change {st.old_mode:06o} => {st.new_mode:06o}{name}"]
    return []


def diff_summary_lines(stats: list[FileStat]) -> list[str]:
    """`git diff --summary` lines, as `git commit` prints them after the short stat."""
    out = []
    for st in stats:
        if st.status == "A":
            out.append(f" create mode {st.new_mode:06o} {quote_git_path(st.path)}")
        elif st.status == "D":
            out.append(f" delete mode {st.old_mode:06o} {quote_git_path(st.path)}")
        elif st.status == "R":
            out.append(f" rename {_pprint_rename(st.old_path, st.path)} ({percent(st.score)}%)")
            out += _mode_change(st, False)
        else:
            out += _mode_change(st, True)
    return out


def commit_summary(branch_label: str, commit_id: str, subject: str, root: bool,
                   stats: list[FileStat], *, author: str | None = None,
                   date: str | None = None) -> list[str]:
    """What `git commit` prints: ``[main 1a2b3c4] subject`` (``[main (root-commit) ...]``,
    ``[detached HEAD ...]``), `` Author: ...`` when the author is not the committer,
    `` Date: ...`` when the date was given, the short stat, and the summary lines."""
    head = f"[{branch_label}{' (root-commit)' if root else ''} {commit_id[:7]}] {subject}"
    extra = ([f" Author: {author}"] if author else []) + ([f" Date: {date}"] if date else [])
    return [head, *extra, shortstat(stats), *diff_summary_lines(stats)]


def git_date(seconds: int, offset_minutes: int) -> str:
    """git's default date format in the date's own zone: ``Thu Apr 7 22:13:13 2005 +0200``."""
    import time

    from ..dates import zone

    t = time.gmtime(seconds + offset_minutes * 60)
    return (f"{time.strftime('%a %b', t)} {t.tm_mday} {time.strftime('%H:%M:%S %Y', t)} "
            f"{zone(offset_minutes)}")


def apply_stat_lines(stats: list[FileStat]) -> list[str]:
    """`git apply --stat`: one scaled bar per file, then the short stat."""
    if not stats:
        return [" 0 files changed"]
    names = [quote_git_path(s.path) for s in stats]
    max_len = 0
    for s in stats:
        for p in {s.old_path, s.path}:
            max_len = max(max_len, len(quote_git_path(p)))
    max_change = max((s.added + s.deleted for s in stats), default=0)
    width = min(max_len, 50)
    out = []
    for s, q in zip(stats, names):
        if len(q) > width:
            cut = len(q) + 3 - width
            slash = q.find("/", cut)
            q = "..." + q[slash if slash >= 0 else cut:]
        if s.binary:
            out.append(f" {q:<{width}} |  Bin")
            continue
        bar = 70 - width if width + max_change > 70 else max_change
        add, dele = s.added, s.deleted
        if max_change > 0:
            total = ((add + dele) * bar + max_change // 2) // max_change
            add = (add * bar + max_change // 2) // max_change
            dele = total - add
        out.append(f" {q:<{width}} |{s.added + s.deleted:5d} {'+' * add}{'-' * dele}")
    out.append(shortstat(stats))
    return out


def apply_numstat_lines(stats: list[FileStat]) -> list[str]:
    """`git apply --numstat`: added, deleted, path (``-`` for binary files)."""
    return [("-\t-\t" if s.binary else f"{s.added}\t{s.deleted}\t") + quote_git_path(s.path)
            for s in stats]


def apply_summary_lines(stats: list[FileStat]) -> list[str]:
    """`git apply --summary`: creations, deletions, renames (common leading folders in
    braces) and mode changes.  Unlike its --stat and --numstat (and `git commit`'s
    summary), git apply prints these names unquoted."""
    out = []
    for st in stats:
        if st.status == "A":
            out.append(f" create mode {st.new_mode:06o} {st.path}")
        elif st.status == "D":
            out.append(f" delete mode {st.old_mode:06o} {st.old_path}")
        elif st.status == "R":
            old, new = st.old_path, st.path
            o_parts, n_parts = old.split("/"), new.split("/")
            k = 0
            while k < min(len(o_parts), len(n_parts)) - 1 and o_parts[k] == n_parts[k]:
                k += 1
            if k:
                prefix = "/".join(o_parts[:k]) + "/"
                out.append(f" rename {prefix}{{{'/'.join(o_parts[k:])} => "
                           f"{'/'.join(n_parts[k:])}}} ({percent(st.score)}%)")
            else:
                out.append(f" rename {old} => {new} ({percent(st.score)}%)")
            out += _mode_change(st, False)
        else:
            out += _mode_change(st, True, quote=False)
    return out


def colorize_diff(diff: str) -> str:
    """``--diff``'s text in git's default colours (meta bold, hunk headers cyan)."""
    out = []
    for line in diff.splitlines(True):
        if line.startswith(("diff --git", "--- ", "+++ ", "new file", "deleted file", "old mode",
                            "new mode", "rename ", "index ")):
            out.append(f"\x1b[1m{line.rstrip(chr(10))}\x1b[m\n")
        elif line.startswith("@@"):
            out.append(f"\x1b[36m{line.rstrip(chr(10))}\x1b[m\n")
        elif line.startswith("+"):
            out.append(f"\x1b[32m{line.rstrip(chr(10))}\x1b[m\n")
        elif line.startswith("-"):
            out.append(f"\x1b[31m{line.rstrip(chr(10))}\x1b[m\n")
        else:
            out.append(line)
    return "".join(out)
