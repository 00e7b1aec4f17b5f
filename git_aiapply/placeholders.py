"""Placeholder lines: a line of new text that stands for code the model left out.

Models abbreviate unchanged code (``# ... existing code ...``, ``// rest of the file
unchanged``, ``<!-- ... -->``, a bare ``...``).  Written where an edit replaces lines, such
a line would silently delete what it stands for, so the planner refuses it
(``op_placeholder_problems``); where nothing is removed, or where the old text already holds the
line, it is content.

``is_placeholder`` is a pure function of one line.  The rule (docs/DECISIONS.md):
- The text that is judged is a comment's body (``#``, ``//``, ``/* */``, ``<!-- -->``,
  ``--``, ``;``, ``%``, ``{{/* */}}``, ``{# #}``, ``(* *)``, ``'''``/``\"\"\"``, ``REM``...),
  a trailing comment after code, the inside of ``{ ... }`` / ``[ ... ]`` / ``( ... )``,
  or a whole line of plain words.
- It is a placeholder when it is only an ellipsis (``...``, ``…``, ``. . .``); when an
  ellipsis opens it, or stands on both sides of it; when it has an ellipsis and a word of
  the placeholder vocabulary (existing, unchanged, rest, remaining, omitted, ...); or when,
  without one, the whole note is such a phrase (``rest of the file``, ``existing code``,
  ``other methods omitted for brevity``, ``imports unchanged``, ``same as before``,
  ``(unchanged)``): a comment that only mentions the words (``# handle other cases``,
  ``# leave the file unchanged``) is prose about real code.
- Code is never judged as words: an ellipsis glued to a name (``...args``, the spread
  syntax), ``def f(): ...``, ``pass  # ...`` and ``x = 1  # unchanged`` are code (a
  trailing note counts only after a line that opens a block); a line of plain words must
  be all words, and short, to count.
"""
from __future__ import annotations

import re

_ELLIPSIS = r"(?:\.\s?\.\s?\.+|…+)"
_ONLY_ELLIPSIS = re.compile(rf"^(?:{_ELLIPSIS}|\[\s*{_ELLIPSIS}\s*\]|\(\s*{_ELLIPSIS}\s*\)|"
                            rf"\{{\s*{_ELLIPSIS}\s*\}}|<\s*{_ELLIPSIS}\s*>)$")
# an ellipsis that opens a note, apart from what follows (not `...args`, `...)`)
_LEADING_ELLIPSIS = re.compile(rf"^{_ELLIPSIS}(?=\s|$)")
_TRAILING_ELLIPSIS = re.compile(rf"(?<![\w$]){_ELLIPSIS}$|\s{_ELLIPSIS}$")
_ANY_ELLIPSIS = re.compile(_ELLIPSIS)

# What is left out: code and its parts.
_NOUN = (r"(?:code|file|files|function|functions|method|methods|class|classes|module|"
         r"implementation|implementations|body|bodies|lines?|content|contents|imports?|"
         r"definitions?|logic|fields?|propert(?:y|ies)|props|members?|tests?|cases?|"
         r"handlers?|helpers?|config(?:uration)?|styles?|rules?|sections?|parts?|blocks?|"
         r"statements?|declarations?|components?|routes?|endpoints?|entries|keys|items|"
         r"elements|markup|html|css|stuff|things|setup|script|template|exports?|"
         r"constants?|variables?|types?|interfaces?|functionality|steps?|options|settings|"
         r"dependencies|attributes|columns|queries|migrations?|scripts|tags?|code\s?base)")
# What a note may add after naming the left-out code: "... unchanged", "... go here".
_TAIL = (r"(?:\s+(?:(?:is|are|remains?|stays?|goes|go|kept|left)\s+)?(?:here|below|above|"
         r"unchanged|the\s+same|as\s+before|as[\s-]is|intact|untouched|omitted|elided|"
         r"(?:omitted\s+)?for\s+brevity|not\s+shown|etc))*")
_LEAD = r"^(?:(?:and|keep|all|the|your|my|of|this|everything|else|rest)\s+)*"
# Without an ellipsis a note must BE one of these, whole (anchored): real comments that
# merely mention "other cases" or "the existing config" are prose.
_SAYS_PLACEHOLDER = [
    # "existing code", "other methods omitted for brevity", "remaining imports"
    rf"{_LEAD}(?:existing|previous|original|other|remaining|unchanged|omitted|same|"
    rf"earlier|prior|untouched|unmodified)\s+(?:\w+\s+)?{_NOUN}{_TAIL}\W*$",
    rf"{_LEAD}old\s+{_NOUN}{_TAIL}\W*$",
    # "rest of the file", "rest of the function stays the same"
    rf"{_LEAD}rest\s+of\s+(?:the\s+|this\s+|your\s+|my\s+)?\w+(?:\s+\w+)?{_TAIL}\W*$",
    rf"{_LEAD}rest{_TAIL}\W*$",
    # "imports unchanged", "everything else stays the same"
    rf"{_LEAD}(?:(?:other|remaining|existing)\s+)?(?:{_NOUN}|everything|else|rest)"
    rf"(?:\s+(?:else|of\s+the\s+\w+))?\s+(?:(?:is|are|remains?|stays?)\s+)?(?:the\s+)?"
    rf"(?:same|unchanged|as[\s-]is|intact|untouched|as\s+before|omitted|elided)\W*$",
    r"^(?:\w+\s+){0,3}(?:the\s+)?same\s+as\s+(?:before|above|below|original|existing|now)\W*$",
    # a few phrases nobody writes about code that is there
    r"\b(?:for\s+brevity|not\s+shown|snip(?:ped)?|and\s+so\s+on)\b",
    # any short note naming what else there is and that it stays: "the rest of the file is
    # identical", "everything else is identical", "remainder of the file is unchanged"
    r"\b(?:rest|remainder|everything\s+else|all\s+else|anything\s+else|other|others|"
    r"remaining|existing)\b.*\b(?:identical|unchanged|unmodified|the\s+same|same\s+as|"
    r"as\s+before|untouched|intact|omitted|elided|not\s+shown|as[\s-]is|stays|remains)\b",
    r"^(?:no\s+(?:other\s+|further\s+|more\s+)?changes?(?:\s+(?:here|below|above|needed|"
    r"elsewhere))?|nothing\s+(?:else\s+)?changed|"
    r"(?:your\s+|the\s+)?(?:code|implementation|logic)\s+(?:goes\s+)?here)\W*$",
    r"^\W*(?:unchanged|omitted|elided|truncated|abbreviated|etc|as\s+before)\W*$",
    r"\(\s*(?:unchanged|omitted|elided)\s*\)\s*$",
]
_SAYS = re.compile("|".join(f"(?:{p})" for p in _SAYS_PLACEHOLDER), re.IGNORECASE)
# Words that, next to an ellipsis, mean "left out".
_VOCABULARY = re.compile(
    r"\b(?:existing|unchanged|rest|remaining|remainder|omitted|omit|same|before|previous|"
    r"original|other|others|etc|more|keep|kept|elided|snip|truncated|code|here|above|below|"
    r"untouched|as\s+is|similar|likewise|so\s+on|identical)\b", re.IGNORECASE)

# Comment syntaxes: (opening, closing or '' for a line comment); longest openings first.
_COMMENTS = [
    ("{{/*", "*/}}"), ("{{-/*", "*/-}}"), ("{/*", "*/}"), ("{{!--", "--}}"), ("{{!", "}}"),
    ("<!--", "-->"), ("<%#", "%>"), ("{#", "#}"), ("{-", "-}"), ("(*", "*)"), ("--[[", "]]"),
    ('"""', '"""'), ("'''", "'''"), ("/*", "*/"), ("//", ""), ("#", ""), ("--", ""),
    (";", ""), ("%", ""), ("*", ""), ("'", ""), ("!", ""), ("REM ", ""), ("rem ", ""),
    ("::", ""), ("@rem ", ""),
]
_PLAIN_WORDS = re.compile(r"^[\w\s.…,:;!'\"()\[\]<>{}\-/*]+$")
_CODE_SIGNS = re.compile(r"[=;]|\w\(|\)\s*[{:]|=>|->|::|\w\.\w")
# a trailing comment after code: whitespace, then a comment opening
_TRAILING_COMMENT = re.compile(r"\s(?:#|//|--|/\*|<!--|\{/\*|\{\{/\*)\s?(?!.*[\"'`]\s*[,;)]?\s*$)")
_STUB_STATEMENTS = ("pass", "...", "}", "};", "},", ")", "]", "end")
_MAX_NOTE_WORDS = 10
_MAX_PLAIN_WORDS = 6
_INLINE_BLOCK = re.compile(r"\{\s*(?:/\*\s*)?(.*?)(?:\s*\*/)?\s*\}")


def _says_left_out(body: str) -> bool:
    """Whether ``body`` (a comment's words, or a line of plain words) stands for code
    that was left out."""
    body = body.strip().strip("*-=~#/;%! \t").strip()
    if not body:
        return False
    if _ONLY_ELLIPSIS.match(body):
        return True
    lead = bool(_LEADING_ELLIPSIS.match(body))
    trail = bool(_TRAILING_ELLIPSIS.search(body))
    if lead or (trail and len(body) > 3 and _ANY_ELLIPSIS.search(body[:-3])):
        return True  # "... anything", "... anything ..."
    if _ANY_ELLIPSIS.search(body) and _VOCABULARY.search(body):
        return True
    if body.startswith(("(", "[", "<")) and body.endswith((")", "]", ">")):
        inner = body[1:-1].strip()
        if inner and _says_left_out(inner):
            return True
    # without an ellipsis only a short note counts: a long comment or sentence that
    # mentions "the rest of the file" is prose about the code
    return len(body.split()) <= _MAX_NOTE_WORDS and bool(_SAYS.search(body))


def _comment_body(text: str) -> str | None:
    """The words of ``text`` when the whole line is one comment, else None."""
    for opening, closing in _COMMENTS:
        if text.startswith(opening):
            body = text[len(opening):]
            if opening == "'" and "'" in body:
                return None  # a quoted string, not a VB comment
            if closing and body.rstrip().endswith(closing):
                body = body.rstrip()[:-len(closing)]
            elif closing and opening in ('"""', "'''") and body.strip():
                return None  # a one-line docstring that does not close is code
            return body
    return None


def is_placeholder(line: str) -> bool:
    """Whether ``line`` only stands for code that was left out (see the module docstring)."""
    text = line.strip()
    if not text or len(text) > 300:
        return False
    if _ONLY_ELLIPSIS.match(text):
        return True
    body = _comment_body(text)
    if body is not None:
        return _says_left_out(body)
    if _trailing_comment_says_left_out(text) or _inline_block_is_placeholder(text):
        return True
    if _PLAIN_WORDS.match(text) and not _CODE_SIGNS.search(text):
        # a line of words, not code: `rest of the file unchanged`, `[... existing code ...]`;
        # prose (a markdown sentence) is longer, or has neither brackets nor an ellipsis
        marked = _ANY_ELLIPSIS.search(text) or (text[0] in "([<{" and text[-1] in ")]>}")
        if marked or len(text.split()) <= _MAX_PLAIN_WORDS:
            return _says_left_out(text)
    return False


def _trailing_comment_says_left_out(text: str) -> bool:
    """`def helper(x):  # ... unchanged`, `} // ... rest of the class`: code that opens
    a body, followed by a comment saying the body was left out."""
    m = _TRAILING_COMMENT.search(text)
    if m is None or m.start() == 0:
        return False
    code, comment = text[:m.start()].rstrip(), text[m.start():].strip()
    body = _comment_body(comment)
    if body is None or not _says_left_out(body):
        return False
    # after a line that opens a block it stands for the block's body, and after a stub
    # statement (`pass  # ...`) for the body it replaces (asked only when the edit drops
    # lines); after a statement (`timeout = 30  # unchanged`) it is a note on a real line
    return code.endswith((":", "{", "(", "[", ",")) or code in _STUB_STATEMENTS


def _inline_block_is_placeholder(text: str) -> bool:
    """`function f() { ... }`, `constructor() { /* ... */ }`: a body written as an
    ellipsis or a placeholder comment (but `{ ...obj }` is a spread)."""
    for m in _INLINE_BLOCK.finditer(text):
        inner = m.group(1).strip()
        if inner and (_ONLY_ELLIPSIS.match(inner) or (
                "/*" in m.group(0) and _says_left_out(inner))):
            return True
    return False


def placeholder_lines(old: list[str], new: list[str]) -> list[tuple[int, str]]:
    """The placeholders (1-based index in ``new``, line) that an edit replacing ``old``
    by ``new`` introduces: none when it removes nothing (every old line kept), and never
    one the old text already holds."""
    if not new or not _drops_lines(old, new):
        return []
    found = [(i + 1, line) for i, line in enumerate(new) if is_placeholder(line)]
    if not found:
        return []
    # held means kept where it was: aligned with an old line, not merely present anywhere
    # in the old text (a second copy written over dropped lines is new)
    kept = _kept_lines(old, new) if any(line.strip() in {o.strip() for o in old}
                                        for _n, line in found) else set()
    return [(n, line) for n, line in found if n - 1 not in kept]


def _kept_lines(old: list[str], new: list[str]) -> set[int]:
    """The indexes of ``new`` that an alignment with ``old`` (surrounding whitespace
    ignored) pairs with an old line."""
    from difflib import SequenceMatcher

    a, b = [t.strip() for t in old], [t.strip() for t in new]
    head = 0  # a common start and end are kept; only the middle needs aligning
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    kept = set(range(head)) | set(range(len(b) - tail, len(b)))
    matcher = SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail],
                              autojunk=False)  # a frequent held line (a stub's `...`) still aligns
    return kept | {head + j + k for _i, j, size in matcher.get_matching_blocks()
                   for k in range(size)}


def _drops_lines(old: list[str], new: list[str]) -> bool:
    """Whether some non-blank line of ``old`` is missing from ``new`` (counted, with
    surrounding whitespace ignored)."""
    from collections import Counter

    kept = Counter(line.strip() for line in new)
    for line in old:
        s = line.strip()
        if not s:
            continue
        if kept[s] <= 0:
            return True
        kept[s] -= 1
    return False


def placeholder_reason(path: str, found: list[tuple[int, str]], where: str) -> str:
    """The refusal's words: which line, and why it cannot be committed."""
    number, line = found[0]
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return (f"{where} of {path} replaces existing lines, and line {number} of its new text, "
            f"{line.strip()!r}{more}, looks like a placeholder for code left out; "
            "committing it would delete that code")


PLACEHOLDER_HINT = ("send the complete new text of the file, or a patch that changes only "
                    "the lines it means to change, with every line written out")


def op_placeholder_problems(op, path: str, file_lines) -> list:
    """The refusals (``Problem``) for the placeholders an operation writes over lines it
    replaces: a full-content write (``NewFile`` over ``file_lines``), every hunk of an
    ``EditFile`` (each reading of a SEARCH/REPLACE block), a hashline ``set``, a text
    editor ``str_replace``.  Operations that only add lines have none."""
    from .errors import Problem
    from .ops import EditFile, HashlineEdit, NewFile, ReplaceText

    # (where, edit number, its first line, file lines it replaces from line N, hits)
    found: list[tuple[str, int | None, str | None, tuple[int, list[str]], list]] = []
    if isinstance(op, NewFile):
        old = list(file_lines)
        found.append(("the new content", None, None, (1, old),
                      placeholder_lines(old, op.text.split("\n"))))
    elif isinstance(op, EditFile):
        for h in op.hunks:
            for lines in [h.lines] + [r for _why, r in h.readings if r is not h.lines]:
                old = [t for tag, t in lines if tag != "+"]
                new = [t for tag, t in lines if tag != "-"]
                hits = placeholder_lines(old, new)
                if hits:
                    found.append(("this edit", h.number, h.first_line(), (1, []), hits))
                    break
    elif isinstance(op, HashlineEdit):
        for hop in op.ops:
            if hop.kind == "set":
                old = list(file_lines[hop.start - 1:hop.end])
                found.append(("this operation", hop.number, hop.raw, (hop.start, old),
                              placeholder_lines(old, hop.text_lines)))
    elif isinstance(op, ReplaceText):
        old = op.old.split("\n")
        found.append(("the replacement", op.number, None, (1, []),
                      placeholder_lines(old, op.new.split("\n"))))
    return [Problem(placeholder_reason(path, hits, where), file=path,
                    directive=op.source.directive, edit=number, edit_first_line=first,
                    nearby=[(start + i, line) for i, line in enumerate(old[:6])],
                    nearby_label="the lines it replaces begin", hint=PLACEHOLDER_HINT)
            for where, number, first, (start, old), hits in found if hits]
