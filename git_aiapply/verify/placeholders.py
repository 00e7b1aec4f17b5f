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

What a placeholder does is STAND FOR lines the answer left out, so beyond the phrases
above a note counts by where it sits (``placeholder_lines``, ``_stand_in_notes``): a short
note (a comment, a bracketed line, a comment after a stub or after code) worded as
referring to code elsewhere (``refers_elsewhere``: as before, like before, the previous
version, the original, existing, same, unchanged, as is, identical, code here, an
ellipsis...) counts where it took the place of dropped lines: in a replaced stretch of
the alignment of old and new that drops more lines of code than it writes, or more
comment lines than it writes comments; so does, whatever its words, a comment alone in a
block's body there (``_is_whole_body``), unless it says the block is empty on purpose.
The same words in a comment written beside kept code (an insertion, or a one-for-one
rewrite) are a real comment.  An edit that drops
nothing but ends with a placeholder after a kept line opening a block (SEARCH
``def main():``), at that block's depth, leaves a note standing for the block's body
(``trailing_placeholder_lines``): refused too, with a hint to leave the note out.
"""
from __future__ import annotations

import re
from ..lazy_re import lazy_compile
from ..locate.matching import common_ends

_ELLIPSIS = r"(?:\.\s?\.\s?\.+|…+)"
_ONLY_ELLIPSIS = lazy_compile(rf"^(?:{_ELLIPSIS}|\[\s*{_ELLIPSIS}\s*\]|\(\s*{_ELLIPSIS}\s*\)|"
                            rf"\{{\s*{_ELLIPSIS}\s*\}}|<\s*{_ELLIPSIS}\s*>)$")
# an ellipsis that opens a note, apart from what follows (not `...args`, `...)`)
_LEADING_ELLIPSIS = lazy_compile(rf"^{_ELLIPSIS}(?=\s|$)")
_TRAILING_ELLIPSIS = lazy_compile(rf"(?<![\w$]){_ELLIPSIS}$|\s{_ELLIPSIS}$")
_ANY_ELLIPSIS = lazy_compile(_ELLIPSIS)

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
    # a short note naming what else there is and that it stays: "the rest of the file is
    # identical", "remainder of the file is unchanged": the note OPENS with what else there
    # is (a sentence that merely contains the words, "keep the existing stock untouched
    # for unknown names", is a comment; over dropped lines the structural rule judges it)
    r"^(?:and\s+|but\s+)?(?:the\s+)?(?:rest|remainder|everything\s+else|all\s+else|"
    r"anything\s+else|(?:all\s+)?(?:the\s+)?other\s+\w+|others|remaining\s+\w+)\b.*"
    r"\b(?:identical|unchanged|unmodified|the\s+same|same\s+as|as\s+before|untouched|"
    r"intact|omitted|elided|not\s+shown|as[\s-]is|stays|remains)\b",
    r"^(?:no\s+(?:other\s+|further\s+|more\s+)?changes?(?:\s+(?:here|below|above|needed|"
    r"elsewhere))?|nothing\s+(?:else\s+)?changed|"
    r"(?:your\s+|the\s+)?(?:code|implementation|logic)\s+(?:goes\s+)?here)\W*$",
    r"^\W*(?:unchanged|omitted|elided|truncated|abbreviated|etc|as\s+before)\W*$",
    r"\(\s*(?:unchanged|omitted|elided)\s*\)\s*$",
]
_SAYS = lazy_compile("|".join(f"(?:{p})" for p in _SAYS_PLACEHOLDER), re.IGNORECASE)
# Words that, next to an ellipsis, mean "left out".
_VOCABULARY = lazy_compile(
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
_OPENINGS = tuple(opening for opening, _closing in _COMMENTS)
_PLAIN_WORDS = lazy_compile(r"^[\w\s.…,:;!'\"()\[\]<>{}\-/*]+$")
_CODE_SIGNS = lazy_compile(r"[=;]|\w\(|\)\s*[{:]|=>|->|::|\w\.\w")
# a trailing comment after code: whitespace, then a comment opening
_TRAILING_COMMENT = lazy_compile(r"\s(?:#|//|--|/\*|<!--|\{/\*|\{\{/\*)\s?(?!.*[\"'`]\s*[,;)]?\s*$)")
_STUB_STATEMENTS = ("pass", "...", "}", "};", "},", ")", "]", "end")
_MAX_NOTE_WORDS = 10
_MAX_PLAIN_WORDS = 6
_INLINE_BLOCK = lazy_compile(r"\{\s*(?:/\*\s*)?(.*?)(?:\s*\*/)?\s*\}")


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
    if not text.startswith(_OPENINGS):  # most lines are code: one test, not one per syntax
        return None
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


def comment_words(line: str) -> str | None:
    """The words of ``line`` when the whole line is one comment (its markers stripped),
    else None."""
    body = _comment_body(line.strip())
    return None if body is None else body.strip().strip("*-=~#/;%! \t").strip()


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


# Stand-in words, in the languages models answer in: a note holding one of these (or an
# ellipsis) is worded as standing for code elsewhere.  English phrases are the verify
# module's own (placeholders._says_left_out); these are the others'.
_STAND_IN_WORDS = lazy_compile(
    r"其余|其他代码|其它代码|保持不变|不变|省略|原有代码|现有代码|同上|"  # Chinese
    r"既存|変更なし|そのまま|省略|残りの|同じ|"  # Japanese
    r"기존\s*코드|변경\s*없음|나머지|생략|"  # Korean
    r"\bresto\b|sin\s+cambios|igual\s+que\s+antes|c[oó]digo\s+existente|omitido|"  # Spanish
    r"sem\s+altera[cç][oõ]es|restante|inalterad|"  # Portuguese
    r"\breste\b|inchang[ée]|code\s+existant|comme\s+avant|omis\b|"  # French
    r"\bRest\b|unver[äa]ndert|bestehende[rn]?\s+Code|wie\s+bisher|ausgelassen|"  # German
    r"invariat|codice\s+esistente|come\s+prima|"  # Italian
    r"остальн|без\s+изменений|существующ|как\s+было|опущен|"  # Russian
    r"reszta|bez\s+zmian|istniej[aą]c|"  # Polish
    r"geri\s+kalan|de[gğ]i[sş]medi|mevcut\s+kod|"  # Turkish
    r"kode\s+yang\s+ada|tidak\s+berubah|"  # Indonesian
    r"phần\s+còn\s+lại|không\s+đổi|"  # Vietnamese
    r"बाकी|अपरिवर्तित",  # Hindi
    re.IGNORECASE)


def stand_in_words(words: str) -> bool:
    """Whether ``words`` hold a stand-in word of a language other than English."""
    return bool(_STAND_IN_WORDS.search(words))


# -- notes that stand for lines (the structural rule) ----------------------------------
# Words by which a note refers to code elsewhere rather than to the code beside it.
_REFERS = lazy_compile(
    r"\b(?:previous(?:ly)?|original(?:ly)?|existing|unchanged|unmodified|untouched|intact|"
    r"identical|as[\s-]is|as\s+(?:before|it\s+was|usual)|like\s+before|same|rest|"
    r"remaining|remainder|etc|omitted|elided|snip(?:ped)?|for\s+brevity|not\s+shown|"
    r"elsewhere|ditto|verbatim|unaltered|as\s+it\s+is|no\s+changes?|not\s+changed|"
    r"(?:current|old|earlier|prior)\s+(?:version|code|implementation|body|logic)|"
    r"(?:code|logic|goes|go|implementation|body|handling|lookup|stuff|steps?|"
    r"part|section)\s+here)\b", re.IGNORECASE)
_MAX_STAND_IN_WORDS = 12
# Phrases that name the user's code as standing elsewhere: a note that has one is a
# placeholder however it goes on (a long sentence over dropped lines, G9), up to a limit.
_NAMES_USERS_CODE = lazy_compile(
    r"\b(?:(?:stays?|remains?|is|are)\s+the\s+same|your\s+(?:current|existing)|"
    r"current\s+version|goes?\s+here|without\s+(?:any\s+)?(?:modifications?|changes?))\b",
    re.IGNORECASE)
_MAX_NAMED_STAND_IN_WORDS = 30
_BRACKET_PAIRS = ("()", "[]", "<>")


def _note_words(line: str) -> tuple[str, str] | None:
    """(words, kind) of a line that carries a note: ``comment`` (the whole line is one),
    ``bracketed`` (a line of words in brackets: `(usage section unchanged)`), ``stub`` (a
    stub statement with a comment: `pass  # as before`) or ``trailing`` (code with a
    comment after it, the code itself written out); None for code and prose."""
    text = line.strip()
    if not text or len(text) > 300:
        return None
    body, kind = _comment_body(text), "comment"
    if body is None and text[0] + text[-1] in _BRACKET_PAIRS and not _CODE_SIGNS.search(text):
        body, kind = text, "bracketed"
    if body is None:
        m = _TRAILING_COMMENT.search(text)
        if m is not None and m.start() > 0:
            body = _comment_body(text[m.start():].strip())
            kind = "stub" if text[:m.start()].rstrip() in _STUB_STATEMENTS else "trailing"
    words = (body or "").strip().strip("*-=~#/;%! \t").strip()
    return (words, kind) if words else None


def _refers(line: str) -> str | None:
    """The kind of note (``_note_words``) when ``line`` is a short note worded as standing
    for code that is elsewhere (in the previous version, further on, "here"): referring
    words (as before, like before, the original, existing, same, unchanged, as is,
    identical, code here...) or an ellipsis; else None."""
    note = _note_words(line)
    if note is None:
        return None
    words, kind = note
    if _NAMES_USERS_CODE.search(words):
        return kind if len(words.split()) <= _MAX_NAMED_STAND_IN_WORDS else None
    if len(words.split()) > _MAX_STAND_IN_WORDS:
        return None
    if _ANY_ELLIPSIS.search(words) or _REFERS.search(words) or stand_in_words(words):
        return kind
    return None


def refers_elsewhere(line: str) -> bool:
    """Whether ``line`` is a note worded as standing for code elsewhere (``_refers``).
    Alone this is no verdict: ``placeholder_lines`` counts such a note only where it took
    the place of dropped lines."""
    return _refers(line) is not None


def _is_comment(line: str) -> bool:
    return _comment_body(line.strip()) is not None


def _stands_for_dropped(old_block: list[str], new_block: list[str], notes: set[int]) -> bool:
    """Whether the notes of ``new_block`` (indexes in ``notes``: lines that are only a
    note) stand for lines of ``old_block`` that it replaces: the block drops more lines
    of code than it writes, or more comment lines than it writes comments (a note
    counting as one): a rewritten comment beside rewritten code is one for one."""
    def count(lines, comments):
        return sum(1 for line in lines if line.strip() and _is_comment(line) == comments)

    written = [line for j, line in enumerate(new_block) if j not in notes]
    return (count(old_block, False) > count(written, False)
            or count(old_block, True) > count(written, True) + len(notes))


def _stand_in_notes(old: list[str], new: list[str],
                    kinds: dict[int, str]) -> list[tuple[int, str]]:
    """The notes (``kinds``: index in ``new`` → kind of note) that sit where the edit
    dropped lines: in a replaced stretch of the alignment that drops more than it writes."""
    found = []
    for tag, i1, i2, j1, j2 in alignment(old, new):
        notes = {j - j1 for j in range(j1, j2) if j in kinds}
        if tag != "replace" or not notes:
            continue
        # a code line with a note after it is written code; the note may still stand
        # for the lines dropped around it (`w.load()  # the rest as before`)
        only_notes = {j for j in notes if kinds[j1 + j] != "trailing"}
        if _stands_for_dropped(old[i1:i2], new[j1:j2], only_notes):
            found += [(j1 + j + 1, new[j1 + j]) for j in sorted(notes)]
    return found


# A comment that is a whole block's body says what the body was, unless it says the
# block is empty on purpose.
_OPENS_CODE_BLOCK = lazy_compile(r"[:{]\s*$")
_ON_PURPOSE = lazy_compile(r"\b(?:empty|no-?op|nothing|intentional(?:ly)?|deliberate(?:ly)?|"
                         r"on\s+purpose|disabled|not\s+needed|unused|ignored?)\b",
                         re.IGNORECASE)
# ... or gives the reason it is empty (the work is done elsewhere: G10), without
# referring to the old code ("handled by the caller, as before" stands for it).
_GIVES_REASON = lazy_compile(
    r"\b(?:because|since|reported\s+by|handled\s+(?:by|in|elsewhere|upstream|above|below)|"
    r"owns?|owned\s+by|already|upstream|downstream|callers?|by\s+the\s+\w+(?:\s+\w+)?\s+now|"
    r"nothing\s+to\s+do|falls?\s+through|takes?\s+care\s+of)\b", re.IGNORECASE)
_REFERS_TO_OLD = lazy_compile(r"\b(?:here|existing|same|unchanged|as\s+before)\b", re.IGNORECASE)


def _is_whole_body(lines: list[str], j: int) -> bool:
    """Whether comment line ``j`` is alone between a line opening a block and the line
    that ends it (a dedent or a closing bracket): `def main():` / `# load and print`."""
    text = lines[j].strip()
    if not _is_comment(text) or text.startswith(('"""', "'''")) or _ON_PURPOSE.search(text):
        return False  # (a docstring alone is a valid body: a stub's)
    if _GIVES_REASON.search(text) and not (_REFERS_TO_OLD.search(text) or _REFERS.search(text)):
        return False
    before = next((lines[k] for k in range(j - 1, -1, -1) if lines[k].strip()), None)
    after = next((lines[k] for k in range(j + 1, len(lines)) if lines[k].strip()), None)
    if before is None or after is None or not _OPENS_CODE_BLOCK.search(before.rstrip()):
        return False
    return _indent(after) <= _indent(before) or bool(_CLOSES_BLOCK.match(after))


def _note_kinds(old: list[str], new: list[str]) -> dict[int, str]:
    """The lines of ``new`` that may stand for dropped lines (index → kind of note): notes
    referring elsewhere (``_refers``) and comments that are a whole block's body; none
    when the old text holds each of them as often (a file's own notes, kept: the
    alignment, the costly part, is then skipped)."""
    from collections import Counter

    kinds = {}
    for j, line in enumerate(new):
        kind = _refers(line) or ("comment" if _is_whole_body(new, j) else None)
        if kind is not None:
            kinds[j] = kind
    notes = Counter(new[j].strip() for j in kinds)
    held = Counter(line.strip() for line in old if line.strip() in notes)
    return kinds if any(count > held[line] for line, count in notes.items()) else {}


def placeholder_lines(old: list[str], new: list[str], prose: bool = False
                      ) -> list[tuple[int, str]]:
    """The placeholders (1-based index in ``new``, line) that an edit replacing ``old``
    by ``new`` introduces: none when it removes nothing (every old line kept), and never
    one the old text already holds.  A line that is a placeholder as such
    (``is_placeholder``) counts anywhere in such an edit; a note that only refers to code
    elsewhere counts where it took the place of dropped lines (``_stand_in_notes``)."""
    if not new or not drops_lines(old, new):
        return []
    if prose:  # a heading, or code quoted in prose, is no comment of the file's
        new = [("" if _code_comment(line) else line) for line in new]
    found = [(i + 1, line) for i, line in enumerate(new) if is_placeholder(line)]
    if found:
        # held means kept where it was: aligned with an old line, not merely present
        # anywhere in the old text (a second copy written over dropped lines is new)
        kept = kept_lines(old, new) if any(line.strip() in {o.strip() for o in old}
                                            for _n, line in found) else set()
        found = [(n, line) for n, line in found if n - 1 not in kept]
    kinds = _note_kinds(old, new)
    if kinds:
        found = sorted(set(found) | set(_stand_in_notes(old, new, kinds)))
    return found


def _code_comment(line: str) -> bool:
    """A line that opens with a code language's comment marker (``#``, ``//``...): in
    prose, a heading or quoted code; only ``<!-- -->`` is a prose file's comment."""
    text = line.strip()
    return text.startswith(_OPENINGS) and not text.startswith("<!--")


def alignment(old: list[str], new: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes for ``old`` → ``new``, surrounding whitespace ignored: a common
    start and end are equal; only the middle is aligned."""
    from difflib import SequenceMatcher

    a, b = [t.strip() for t in old], [t.strip() for t in new]
    head, tail = common_ends(a, b)
    matcher = SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail],
                              autojunk=False)  # a frequent held line (a stub's `...`) still aligns
    ops = [("equal", 0, head, 0, head)] if head else []
    ops += [(tag, head + i1, head + i2, head + j1, head + j2)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def kept_lines(old: list[str], new: list[str]) -> set[int]:
    """The indexes of ``new`` that an alignment with ``old`` (surrounding whitespace
    ignored) pairs with an old line."""
    return {j for tag, _i1, _i2, j1, j2 in alignment(old, new) if tag == "equal"
            for j in range(j1, j2)}


def drops_lines(old: list[str], new: list[str]) -> bool:
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


# A line after which the file goes on with a block's body (`def main():`, `server:`,
# `function f() {`, a markdown heading), and one before which a block's body ends.
_OPENS_BLOCK = lazy_compile(r"(?:[:{(\[]|=>|\bdo|\bthen|\bbegin)\s*$|^\s*#{1,6}\s+\w")
_CLOSES_BLOCK = lazy_compile(r"^\s*(?:[})\]]|end\b|fi\b|done\b|esac\b)")


def _edge_note(line: str, held: set[str], between: list[str]) -> bool:
    """A placeholder as such, or a bracketed comment referring elsewhere, that the old text
    does not hold, at the depth of the block it borders: not inside a block the edit's
    own lines (``between`` it and the kept line) opened (`def f(self): ...` in a new
    method is a stub, not a note)."""
    if line.strip() in held or _indent(line) > min(map(_indent, between), default=99):
        return False
    note = _note_words(line)
    bracketed = note is not None and note[0][0] + note[0][-1] in _BRACKET_PAIRS
    return is_placeholder(line) or (bracketed and _refers(line) == "comment")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip()) if line.strip() else 99


def trailing_placeholder_lines(old: list[str], new: list[str]) -> list[tuple[int, str]]:
    """The placeholder that an edit dropping nothing writes at its edge, standing for the
    lines of a block that the file holds outside the edit: the last line of ``new`` after
    a kept last old line that opens a block (SEARCH `def main():`, REPLACE `def main():`,
    a statement, `# ... rest of main unchanged ...`), or the first line of ``new`` before
    a kept first old line that closes one.  Nothing is lost, but the note would be
    committed as code."""
    olds = [line for line in old if line.strip()]
    news = [(i, line) for i, line in enumerate(new) if line.strip()]
    if not olds or not news or drops_lines(old, new):
        return []
    held = {line.strip() for line in old}
    found = []
    last_at, last = news[-1]
    opener_at = _last_index(new, olds[-1], last_at)
    if (_OPENS_BLOCK.search(olds[-1].rstrip()) and opener_at is not None
            and _edge_note(last, held, new[opener_at + 1:last_at])):
        found.append((last_at + 1, last))
    first_at, first = news[0]
    closer_at = _first_index(new, olds[0], first_at)
    if (_CLOSES_BLOCK.match(olds[0]) and closer_at is not None and first_at != last_at
            and _edge_note(first, held, new[first_at + 1:closer_at])):
        found.insert(0, (first_at + 1, first))
    return found


def _last_index(lines: list[str], line: str, before: int) -> int | None:
    """The index of the last copy of ``line`` (whitespace aside) before ``before``."""
    return next((i for i in range(before - 1, -1, -1) if lines[i].strip() == line.strip()),
                None)


def _first_index(lines: list[str], line: str, after: int) -> int | None:
    """The index of the first copy of ``line`` (whitespace aside) after ``after``."""
    return next((i for i in range(after + 1, len(lines))
                 if lines[i].strip() == line.strip()), None)
