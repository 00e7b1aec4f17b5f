"""Lazy edits reaching the merge (BEHAVIOR.md §5 "Lazy edits"; plan/lazy_merge.py merges):

- ``lazily_merged``: a whole-file write over a tracked file that is a snippet (it holds
  placeholders, says it is one, or is a fragment of the file), merged into the file, or
  refused with the merge's reason;
- ``merged_edits``: placeholders inside an edit (a REPLACE side or a hunk's ``+`` lines
  written lazily), merged inside the edit, whose old side is the file and new side the
  snippet.  An edit the merge cannot take exactly is left as it is, and the placeholder
  check refuses it."""
from __future__ import annotations



def merged_edits(op, path: str):
    """``op`` with each edit whose new side holds placeholders merged inside the edit: its
    old side is the file, its new side the snippet (a REPLACE side or a hunk's ``+`` lines
    written lazily).  An edit the merge cannot take exactly is left as it is: the
    placeholder check then refuses it, as before."""
    from ..ops import EditFile, ReplaceText
    from ..record import replace

    from ..verify.placeholder_edits import stand_in

    # plan.py asks every edit: the merge (lazy_merge.py) loads only for one whose new
    # lines hold a stand-in note (what _merged_side asks first, line by line)
    texts = ([t for h in op.hunks for tag, t in h.lines if tag == "+"]
             if isinstance(op, EditFile) else op.new.split("\n") if isinstance(op, ReplaceText)
             else [])
    if not any(stand_in(t) for t in texts):
        return op
    if isinstance(op, EditFile):
        hunks = [_merged_hunk(h, path) for h in op.hunks]
        if all(a is b for a, b in zip(hunks, op.hunks)):
            return op
        return replace(op, hunks=hunks)
    if isinstance(op, ReplaceText):
        ends = "\n" if op.old.endswith("\n") and op.new.endswith("\n") else ""
        old, new = (op.old[:-1], op.new[:-1]) if ends else (op.old, op.new)
        merged = _merged_side(path, old.split("\n"), new.split("\n"))
        return op if merged is None else replace(op, new="\n".join(merged) + ends)
    return op


def _merged_hunk(h, path: str):
    """The hunk ``h`` with its new side merged (each reading of a SEARCH/REPLACE block
    with several possible dividers too), or ``h`` itself."""
    from ..record import replace

    explicit = h.kind in ("hunk", "chunk")  # '-' lines the model wrote, not derived
    lines = _merged_lines(h.lines, path, explicit)
    readings = [(why, _merged_lines(r, path, explicit)) for why, r in h.readings]
    if lines is None and all(r is None for _why, r in readings):
        return h
    return replace(h, lines=lines if lines is not None else h.lines,
                   readings=[(why, r if r is not None else h.readings[n][1])
                             for n, (why, r) in enumerate(readings)])


def _merged_lines(lines: list[tuple[str, str]], path: str,
                  explicit: bool) -> list[tuple[str, str]] | None:
    """A hunk's tagged lines with its new side merged into its old side, or None.
    ``explicit``: its ``-`` lines are the model's own (a diff, an apply-patch chunk), so
    the merge may not keep one the hunk replaces by new code (``_replaced``)."""
    old = [t for tag, t in lines if tag != "+"]
    new = [t for tag, t in lines if tag != "-"]
    merged = _merged_side(path, old, new, lambda ph: _replaced(lines, ph) if explicit else set())
    if merged is None:
        return None
    out: list[tuple[str, str]] = []
    for tag, i1, i2, j1, j2 in _opcodes(old, merged):
        if tag == "equal":
            out.extend((" ", t) for t in old[i1:i2])
            continue
        out.extend(("-", t) for t in old[i1:i2])
        out.extend(("+", t) for t in merged[j1:j2])
    return out


def _opcodes(a: list[str], b: list[str]):
    from difflib import SequenceMatcher

    return SequenceMatcher(None, a, b, autojunk=False).get_opcodes()


def _merged_side(path: str, old: list[str], new: list[str],
                 replaced=lambda placeholders: set()) -> list[str] | None:
    """``new`` merged into ``old`` when it holds placeholders and merges exactly into
    something else than ``old``, keeping none of the old lines ``replaced(placeholders)``
    names; None otherwise (no placeholder, a refusal, an edit that changes nothing: the
    placeholder check words those)."""
    from ..verify.placeholder_edits import snippet_placeholders, stand_in
    from .lazy_merge import LazyRefusal, merge

    if not old or not any(line.strip() for line in old):
        return None
    held = {line.strip() for line in old}
    if not any(line.strip() not in held and stand_in(line) for line in new):
        return None  # the common case, kept cheap: no new line reads as a stand-in
    placeholders = snippet_placeholders(path, old, new)
    if not placeholders:
        return None
    try:
        merged = merge(old, new, placeholders).lines
    except LazyRefusal:
        return None
    # an edit of nothing but anchors and placeholders changes nothing: what it meant (a
    # deletion?) is not known, and the placeholder check says so
    if merged == old or _keeps_any(old, merged, replaced(placeholders)):
        return None
    return merged


def _replaced(lines: list[tuple[str, str]], placeholders: set[int]) -> set[int]:
    """The old-side lines (indexes) a hunk replaces by new code: each run of its ``-`` and
    ``+`` lines whose ``+`` lines write code (not only placeholders, ``placeholders``
    counted in the new side, and copies of the run's ``-`` lines), or that writes nothing.
    ``-print(a)`` ``+print(b)`` ``+# ... rest of main ...`` says print(a) goes: the
    placeholder, merged, would keep it, two readings, refused."""
    out: set[int] = set()
    i = j = 0  # old-side and new-side index of the next line
    run_old: list[int] = []
    run_new: list[int] = []

    def close() -> None:
        olds = {lines_old[k].strip() for k in run_old}
        writes = [k for k in run_new if k not in placeholders and lines_new[k].strip()
                  and lines_new[k].strip() not in olds]
        if writes or not run_new:
            out.update(k for k in run_old if lines_old[k].strip())
        run_old.clear()
        run_new.clear()

    lines_old = [t for tag, t in lines if tag != "+"]
    lines_new = [t for tag, t in lines if tag != "-"]
    for tag, _text in lines:
        if tag == " ":
            close()
            i, j = i + 1, j + 1
        elif tag == "-":
            run_old.append(i)
            i += 1
        else:
            run_new.append(j)
            j += 1
    close()
    return out


def _keeps_any(old: list[str], merged: list[str], lines: set[int]) -> bool:
    """Whether ``merged`` keeps one of ``old``'s ``lines`` (indexes)."""
    if not lines:
        return False
    return any(tag == "equal" and any(i in lines for i in range(i1, i2))
               for tag, i1, i2, _j1, _j2 in _opcodes(old, merged))


LAZY_HINT = ("send the lines around each placeholder exactly as the file has them (a few "
             "lines before and after), or the whole file with every line written out")


def lazily_merged(op, path: str, old_data: bytes, ops=()):
    """``op`` (a NewFile over the tracked file holding ``old_data``) with its text merged
    into the file when it is a lazy snippet: it holds placeholders, it says it is one
    (``op.lazy``: an edit_file call), or it is a fragment of the file (fragments.py);
    ``op`` itself otherwise.  ApplyError, worded for the model, when it cannot be merged
    exactly."""
    from ..errors import ApplyError, Problem
    from ..record import replace
    from ..text import FileText
    from ..verify.placeholder_edits import snippet_placeholders
    from .fragments import fragment_of, written_elsewhere
    from .lazy_merge import LazyRefusal, declarations, merge

    ft = FileText.from_bytes(old_data)
    file_lines = list(ft.lines)
    snippet = op.text.split("\n")
    if snippet and snippet[-1] == "":
        snippet.pop()
    placeholders = snippet_placeholders(path, file_lines, snippet)
    if not placeholders and not op.lazy:
        if fragment_of(file_lines, snippet) is None:
            return op
        if fragment_of(file_lines, snippet, written_elsewhere(ops, path)) is None:
            return op  # what it leaves out goes to another file: a real rewrite
    try:
        merged = merge(file_lines, snippet, placeholders,
                       *declarations(path, file_lines, snippet, placeholders))
    except LazyRefusal as e:
        note = snippet[e.line - 1].strip() if e.line else None
        nearby = [(n, file_lines[n - 1]) for n in e.candidates[:1]
                  for n in range(max(n - 2, 1), min(n + 3, len(file_lines)) + 1)]
        what = (f"the snippet for {path}" + (f" (its line {e.line}, {note!r})" if note else ""))
        raise ApplyError(Problem(f"{what} cannot be merged into the file exactly: {e.reason}",
                                 file=path, directive=op.source.directive, nearby=nearby,
                                 nearby_label="the file's lines there", hint=LAZY_HINT,
                                 candidates=e.candidates)) from None
    text = "\n".join(merged.lines) + ("\n" if ft.final_newline or not file_lines else "")
    return replace(op, text=text, merged=tuple(merged.kept))
