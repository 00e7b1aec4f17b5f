"""The ``search-replace`` format: aider's SEARCH/REPLACE blocks (its ``diff`` and
``diff-fenced`` edit formats).

    src/app.py
    ```python
    <<<<<<< SEARCH
    old lines
    =======
    new lines
    >>>>>>> REPLACE
    ```

The block body is read by ``search_blocks`` (shared with ``codechange``).  The path is
what aider accepts: the line just before the block, looking back over fence lines and
blank lines up to three lines that say something (so the path may stand before the
opening fence, inside it as its first line, or before a closed fence of its own); or the
fence line itself (```` ```python src/app.py ````, ```` ```src/app.py ````).  ``#``,
``*``, backticks and a trailing ``:`` around it are markup, dropped; prose around a file's
name (``File: x.py``, ``x.py (helper)``, ``Now in `x.py`:``) still names it.  A block
whose path cannot be read takes the previous block's, only when nothing but whitespace
separates them.  The path is taken as written: never matched onto another file's name.
The fences are aider's (``fence_of``): backticks or tildes, and its tag pairs
(``<source>python`` ... ``</source>``, ``<code>``, ``<pre>``, ``<codeblock>``,
``<sourcecode>``).

Consecutive blocks of one file form one edit of it (located together against the file as
it was, as the blocks of one ``<CodeChange>``; when they do not fit together, one after
another as aider applies them, ``locate.apply_edit``); an empty SEARCH creates the file.
"""
from __future__ import annotations

import re
from ..lazy_re import lazy_compile

from ..errors import ParseError
from ..ops import Source
from ..paths import knows_tracked, tracked_kind
from .scan import CUT_OFF, CUT_OFF_HINT, Block, Format, Scan
from .search_blocks import (BlockError, NumberedBlock, file_operations, is_divider, is_replace,
                            is_search, looks_like_marker, read_block, search_line_hint)

NAME = "search-replace"

# A fence line, indented or not (the stricter text.fence_open limits indentation to three
# spaces; blocks inside list items are indented further).
# read on every line of every response: compiled at import, not on first use (lazy_re)
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*([^`]*?)[ \t]*")
# Fence info strings that name a shell: a path-looking line inside such a fence is a
# command, not a path.
_SHELLS = {"bash", "sh", "shell", "console", "zsh", "fish", "ksh", "csh", "tcsh", "cmd", "bat",
           "batch", "powershell", "ps1", "pwsh", "terminal"}
_LOOKBACK = 3  # lines that say something, as aider
_LIST_ITEM = lazy_compile(r"(?:[-+]|\d{1,3}[.)])[ \t]+")  # '- ', '1. ', '2) ' before a path


# aider's other fences (its ``all_fences``): a tag pair that does not occur in the files,
# a language after the opening tag (``<source>python``).
TAG_FENCES = ("source", "code", "pre", "codeblock", "sourcecode")
_TAG_FENCE = re.compile(r"[ \t]*<(/?)(" + "|".join(TAG_FENCES) + r")>[ \t]*([^<>`]*?)[ \t]*",
                        re.IGNORECASE)


def fence_of(line: str) -> tuple[str, int, str] | None:
    """(fence char, length, info string) of a fence line: for backticks and tildes the
    character and how many; for aider's tag fences the tag (``<source>`` opens,
    ``</source>`` closes) and 0."""
    m = _FENCE.fullmatch(line)
    if m:
        return m.group(1)[0], len(m.group(1)), m.group(2)
    if "<" not in line:
        return None
    m = _TAG_FENCE.fullmatch(line)
    if not m or (m.group(1) and m.group(3)):
        return None  # a closing tag takes nothing after it
    return f"<{m.group(1)}{m.group(2).lower()}>", 0, m.group(3)


def is_closing_tag(fence: tuple[str, int, str]) -> bool:
    return fence[0].startswith("</")


def closes(line: str, fence: tuple[str, int, str]) -> bool:
    """``line`` closes the fence ``fence`` opened: a bare fence of its character at least
    as long (indented or not), or the closing tag of its tag."""
    f = fence_of(line)
    if f is None:
        return False
    if fence[0].startswith("<"):
        return f[0] == "</" + fence[0][1:]
    return not f[2] and f[0] == fence[0] and f[1] >= fence[1]


def strip_path(line: str, sentences: bool = True) -> str | None:
    """The path a path line names, its markup dropped; None when the line is no path.

    A path is one word (no whitespace; a list item's marker before it is dropped);
    ``...``, markers and a bare word that ends with a colon (``Changes:``, prose) are not
    paths.  Prose around a path still names it when the path surely names a file (a
    folder or an extension, ``_prose_path``); ``sentences=False`` leaves out a name
    backticked in a sentence (``Run `main.py`:``), for a format where any fence after
    the line would be taken as that file."""
    path = _word_path(line)
    return path if path is not None else _prose_path(line, sentences)


# 'File: x.py', '**Path:** x.py', '#### Filename: `x.py`': a label before the path
_LABEL = lazy_compile(r"(?:file ?name|file ?path|file|path)[ \t]*[:\-\u2013\u2014][ \t]*(.+)",
                    re.IGNORECASE)
# 'x.py (helper module)', '`x.py` (new file):' : the path, then a parenthesised remark
_REMARK = lazy_compile(r"(\S+)[ \t]+\([^()]*\)[ \t]*:?")
_BACKTICKED = lazy_compile(r"`([^`\s]+)`")


def _prose_path(line: str, sentences: bool = True) -> str | None:
    """The path named in a line of prose as models write it before a block: after a label
    (``File: x.py``, ``#### File: `x.py```), before a remark (``x.py (helper module)``), or
    as the one backticked file name of a line that introduces the block (``Now the same
    in `x.py`:``).  Only a name that surely is a file's (a folder or an extension) is
    taken, so a sentence never becomes a path."""
    s = _LIST_ITEM.sub("", line.strip(), count=1).lstrip("#").strip().replace("**", "")
    label = _LABEL.fullmatch(s)
    if label:
        rest = label.group(1).strip()
        remark = _REMARK.fullmatch(rest)
        return _file_name(_word_path(remark.group(1) if remark else rest))
    remark = _REMARK.fullmatch(s)
    if remark:
        return _file_name(_word_path(remark.group(1)))
    if sentences and s.endswith(":"):
        named = {p for p in map(_file_name, _BACKTICKED.findall(s)) if p}
        if len(named) == 1:
            path = named.pop()
            return path if sentence_is_about(s, path) else None
    return None


# where a clause begins or ends: punctuation, a sentence's '. ', a dash between words
_SENTENCE_END = lazy_compile(r"[.!?](?=\s)")
_CLAUSE_EDGE = lazy_compile(r"[;:!?,()\u2014\u2013]|\.(?=\s|$)|\s-\s")
# what opens a clause about a file: optional sequence words, then a locative or edit
# word, then optional 'the', 'file' ('Now in', 'Also edit the file', 'Same in')
_ABOUT_WORDS = lazy_compile(
    r"(?:(?:now|then|and|also|so|next|finally|first|lastly|same|but)\s+)*"
    r"(?:in|inside|within|for|to|update|edit|change|modify|open|fix|patch)\s+"
    r"(?:the\s+)?(?:file\s+)?", re.IGNORECASE)
# a word that says the file is not the one to change: a contrast, a negation, a source
_RULED_OUT = lazy_compile(
    r"\b(?:unlike|not|never|no|instead|except|rather|leave|leaving|left|keep|kept|"
    r"untouched|unchanged|as it is|as is|from|than|similar|same as|compar\w*|"
    r"cop(?:y|ies|ied)|mirror\w*|match\w*|differ\w*|based on|"
    r"like(?!\s+(?:this|so|that)\b))\b|n[\'\u2019]t\b", re.IGNORECASE)


def ruled_out_path(line: str) -> str | None:
    """The one file ``line`` backticks when the sentence is not about it (``The value
    copied from `x.py`:``), for a refusal to say why the name was not taken."""
    named = {p for p in map(_file_name, _BACKTICKED.findall(line)) if p}
    if len(named) != 1:
        return None
    path = named.pop()
    return None if sentence_is_about(line, path) else path


def _clause_around(line: str, start: int, end: int) -> tuple[str, str]:
    """The text of ``line``'s clause before and after its span ``start:end``."""
    edges_before = [m.end() for m in _CLAUSE_EDGE.finditer(line, 0, start)]
    after = _CLAUSE_EDGE.search(line, end)
    return (line[edges_before[-1] if edges_before else 0:start],
            line[end:after.start() if after else len(line)])


def sentence_is_about(line: str, path: str) -> bool:
    """Whether the sentence ``line`` names ``path`` as the file its block changes: the
    path follows a locative or edit word that opens its clause (``In x.py,``, ``Now
    edit the file x.py``) or ends the line before its ``:`` (``Now the same in
    `x.py`:``), and no contrasting or negating word stands in its clause (``Unlike
    x.py``, ``Keep x.py as it is``, ``copied from `x.py```).  The one rule for every
    reader of a path from a sentence (a SEARCH/REPLACE block, a headerless diff)."""
    for m in re.finditer(r"[`*]*" + re.escape(path) + r"[`*]*", line):
        before, after = _clause_around(line, m.start(), m.end())
        if _RULED_OUT.search(before + " " + after):
            return False
        if _ABOUT_WORDS.fullmatch(_LIST_ITEM.sub("", before.strip(" \t#*>"), count=1) + " "):
            return True
        # ending the line, the path has no opener: its whole sentence, a parenthesised
        # aside left out, must not rule it out ('For comparison, here is config/dev.py:')
        sentence = re.sub(r"\([^()]*\)", "", line[max(
            (e.end() for e in _SENTENCE_END.finditer(line, 0, m.start())), default=0):m.start()])
        if re.fullmatch(r"[\s`*]*:[\s`*]*", line[m.end():]) and not _RULED_OUT.search(sentence):
            return True
    return False


def cut_in_a_path_line(line: str, after_a_block: bool) -> bool:
    """``line``, the response's last and cut mid-line, may be cut in a block's path line."""
    stripped = line.strip()
    sentence = _ends_a_sentence(stripped)
    path = strip_path(line)
    if path is not None and not sentence and ("/" in path or "." in path):
        return True  # cut in what names a file (``src/ap``, ``app.p``): a block's path
    if not after_a_block:
        return False
    # after a complete block (of any format: aider's first block may follow others), cut
    # inside what may be the next block's path line (``Makef``, ``src/cl``, ``### run``,
    # ``File: uti``); a sentence's end (``Done.``) or several words are prose
    if fence_of(line) is None and ((path is not None and not sentence)
                                   or set(_LIST_ITEM.sub("", stripped, count=1)) <= set("#*`")):
        return True
    return _cut_prose_path(line)


# what a line of prose cut mid-line may end with, besides letters and digits, where a
# prose line may name the next block's file: a closing sentence ends with punctuation or
# a symbol ('Done.', 'Happy coding! 🚀'); these say the line went on ('with:' announces
# a block, 'src/', 'a, b', '(see')
_UNFINISHED = frozenset("/_-,(:")


# words a line that introduces the next block ends on when cut ('Now the same in')
_LEADS_ON = frozenset("a an and also at change edit file files for from in into modify now "
                      "of on same the then this to update with".split())


def stops_mid_word(line: str) -> bool:
    """``line``, the response's last and without its newline, stops where prose goes on
    (``Now the same in``, ``Try it with:``), not at a closing sentence's end.  A remark
    of several words that only lacks its full stop (``Let me know if that helps``), with
    no file name in sight, is a closing sentence."""
    s = line.rstrip()
    last = s[-1:]
    if fence_of(line) is not None or not (last.isalnum() or last in _UNFINISHED):
        return False
    words = s.split()
    end = words[-1].lower()  # cut mid-word too: 'Now the same i' is 'in' cut short
    return (last in _UNFINISHED or len(words) < 4 or "`" in s or "/" in s or "." in end
            or any(w.startswith(end) for w in _LEADS_ON))


# one word ending a sentence: a capitalised word ('Done.'), or any word ending in ! ? …
_SENTENCE_WORD = lazy_compile(r"[A-Z][a-z]*[.!?…]|\S*[!?…]")


def _ends_a_sentence(stripped: str) -> bool:
    """``stripped`` (a stripped line) ends a sentence: ``.``, ``!``, ``?`` or ``…`` after
    several words, or one word that is no path cut after its dot (``runner.`` may be
    ``runner.py`` cut short; ``Done.`` is a sentence)."""
    if not stripped.endswith((".", "!", "?", "\u2026")) or stripped[:1] in "#*`":
        return False
    words = _LIST_ITEM.sub("", stripped, count=1)
    return " " in words or _SENTENCE_WORD.fullmatch(words) is not None


_LABEL_START = lazy_compile(r"(?:file ?name|file ?path|file|path)[ \t]*[:\-\u2013\u2014][ \t]*\S*",
                          re.IGNORECASE)


def _cut_prose_path(line: str) -> bool:
    """``line``, cut mid-line, may be the start of a prose path line (``_prose_path``): a
    label and at most one word (``File: uti``), a file's name and an unclosed remark
    (``app.py (ent``), or a backticked name still open (``in `utils.p``)."""
    s = _LIST_ITEM.sub("", line.strip(), count=1).lstrip("#").strip().replace("**", "")
    if _LABEL_START.fullmatch(s) or _prose_path(line.rstrip() + ":") is not None:
        return True  # a label, or a line cut just before its ':' (``in `utils.py```)
    word, paren, rest = s.partition(" (")
    if paren and ")" not in rest and _file_name(_word_path(word)):
        return True
    return (fence_of(line) is None and s.strip("`") != "" and s.count("`") % 2 == 1
            and " " not in s[s.rfind("`"):])


def _file_name(path: str | None) -> str | None:
    """``path`` when it surely names a file (a folder or an extension), else None."""
    if path is None or path.startswith(("http:", "https:")):
        return None
    if "/" in path or re.search(r"\.[A-Za-z0-9_]{1,8}$", path):
        return path
    return None


def _unmarked(line: str) -> tuple[str, bool]:
    """``line`` without the markup around a path (a list item's marker, ``#``, ``*``,
    backticks, a trailing ``:``), and whether a ``:`` ended it."""
    s = _LIST_ITEM.sub("", line.strip(), count=1)
    colon = False
    prev = None
    while s != prev:
        prev = s
        if s.endswith(":"):
            colon = True
            s = s[:-1]
        s = s.strip().lstrip("#").strip().strip("`").strip("*").strip()
    return s, colon


def _word_path(line: str) -> str | None:
    """The path of a line that is one word with markup (see strip_path)."""
    s, colon = _unmarked(line)
    if not s or s == "..." or looks_like_marker(s) or fence_of(line) is not None:
        return None
    if any(ch.isspace() for ch in s) or "`" in s or set(s) <= set(".-_=*#>|~+"):
        return None
    if colon and "." not in s and "/" not in s:
        return None
    return s


def names_file(line: str) -> bool:
    """A path line that surely names a file (a folder or an extension), not a one-word
    sentence such as ``Done.``."""
    return _file_name(strip_path(line)) is not None


def path_in_info(info: str) -> str | None:
    """A path named in a fence's info string: ```` ```python src/app.py ````,
    ```` ```python:src/app.py ````, ```` ```src/app.py ````, ``title="src/app.py"``."""
    for token in re.split(r"[\s:]+", info):
        if "=" in token:
            token = token.split("=", 1)[1]
        token = token.strip("\"'{}")
        if ("/" in token or "." in token.strip(".")) and strip_path(token) == token:
            return token
    return None


# a new file's name with spaces, not a sentence's end: words of letters, digits and
# . _ - + @, one space between them, and an extension
_NEW_NAME = lazy_compile(r"[\w.+@-]+(?: [\w.+@-]+)*\.\w{1,8}")
# what stands around a file's name in a sentence and is not part of it
_TOKEN_EDGES = "`'\"*,.;:!?()[]{}<>"


def tracked_path(line: str, creates: bool, line_number: int) -> str | None:
    """The path a line names by what the repository tracks (``paths.tracked_kind``), for
    a line the rules above read as no path: the whole line, its markup dropped, when it
    is a tracked file whose name holds spaces (or, for a block that creates its file
    (``creates``), a new name with an extension in a tracked folder); else, for a block
    that edits, the one tracked file a sentence names (``In src/app.py, replace:``).  A sentence naming
    several tracked files is refused (``line_number``, 1-based): never guessed among."""
    whole, _colon = _unmarked(line)
    if whole and _file_name(whole) and not looks_like_marker(whole):
        if tracked_kind(whole) == "file":
            return whole
        folder, _slash, name = whole.rpartition("/")
        if creates and folder and _NEW_NAME.fullmatch(name) and tracked_kind(folder) == "dir":
            return whole
    if creates:
        return None  # a new file's path stands alone: a sentence may name its model
    spaced = _spaced_tracked_name(line)
    if spaced is not None:
        return spaced
    named = sorted({t for t in (w.strip(_TOKEN_EDGES) for w in line.split())
                    if _file_name(t) and tracked_kind(t) == "file"})
    if len(named) > 1:
        raise ParseError(
            f"the line before a SEARCH/REPLACE block names several files ({', '.join(named)}), "
            "so which one the block edits is not guessed", line=line_number,
            directive="SEARCH/REPLACE",
            hint="put the file's path alone on the line before the opening fence, e.g. "
                 f"{named[0]}, then ```, then <<<<<<< SEARCH")
    return named[0] if named and sentence_is_about(line, named[0]) else None


def _spaced_tracked_name(line: str) -> str | None:
    """A tracked file whose name holds spaces, named right after a clause's locative or
    edit word (``In docs/release notes.md, add:``): the longest run of words there that
    is one."""
    starts = [0] + [m.end() for m in _CLAUSE_EDGE.finditer(line)]
    for start in starts:
        opener = _ABOUT_WORDS.match(line[start:].lstrip(" \t#*>`"))
        if not opener:
            continue
        rest = line[start:].lstrip(" \t#*>`")[opener.end():]
        words = re.split(r"[,:;]", rest, maxsplit=1)[0].split(" ")
        for n in range(len(words), 1, -1):
            name = " ".join(words[:n]).strip(_TOKEN_EDGES)
            if " " in name and _file_name(name) and tracked_kind(name) == "file":
                return name if sentence_is_about(line, name) else None
    return None


def _untracked_names(lines: list[str], first: int, floor: int) -> str:
    """For the refusal of a block without a path: the file names the line before its
    wrapper holds that were not read as its path because nothing tracks them."""
    k = first - 1
    while k >= floor and not lines[k].strip():
        k -= 1
    if k < floor or fence_of(lines[k]) is not None or not knows_tracked():
        return ""
    whole, _colon = _unmarked(lines[k])
    # a line that starts with a folder and ends with an extension is one spaced name
    spaced = " " in whole and "/" in whole.split()[0] and _file_name(whole.split("/")[-1])
    names = [whole] if spaced else []
    names += [t for t in (w.strip(_TOKEN_EDGES) for w in lines[k].split()) if _file_name(t)]
    if not names:
        return ""
    if tracked_kind(names[0]) == "file":
        return (f" (the line before it names {names[0]!r}, but not as the file it is about: "
                "a sentence names the block's file only right after 'In', 'Update', 'Edit' "
                "or the like, or just before its final ':', and never beside 'unlike', "
                "'not', 'keep', 'copied from', 'instead of' or 'except')")
    return (f" (the line before it names {names[0]!r}, which is not tracked: a name with "
            "spaces, or in a sentence, is read as the path only when it names a tracked file)")


def _path_of_line(lines: list[str], k: int, head: int) -> str | None:
    """The path ``lines[k]`` names for the block whose SEARCH marker is ``lines[head]``:
    by the rules of ``strip_path``, else by what the repository tracks."""
    path = strip_path(lines[k])
    if path is not None:
        return path
    creates = head + 1 < len(lines) and is_divider(lines[head + 1])  # an empty SEARCH
    return tracked_path(lines[k], creates, k + 1)


def find_path(lines: list[str], head: int, floor: int) -> tuple[str | None, int, tuple | None]:
    """The path of the block whose SEARCH marker is ``lines[head]``, looking back no further
    than ``floor``: (path or None, first line of the block's wrapper, its opening fence)."""
    start = head
    fence = None  # the fence line nearest the block: the one that wraps it
    fences_between = 0
    said = 0
    k = head - 1
    while k >= floor and said < _LOOKBACK:
        line = lines[k]
        if not line.strip():
            k -= 1
            continue
        said += 1
        f = fence_of(line)
        if f is not None and is_closing_tag(f):
            break  # another fence's end: the path is not above it
        if f is not None:
            if fence is None:
                fence = f
            fences_between += 1
            start = k
            path = path_in_info(f[2])
            if path:
                return path, start, fence
            k -= 1
            continue
        path = _path_of_line(lines, k, head)
        if path is None:
            break
        above = fence_of(lines[k - 1]) if k - 1 >= floor else None
        if fences_between and above is not None and above[2].lower() in _SHELLS:
            break  # a command in a shell fence of its own
        if above is not None and fence is None:
            fence = above  # diff-fenced: the path is the fence's first line
        # the fence line above the path opens its block when nothing stands between them
        # (diff-fenced) or when it names a language (a closing fence never does)
        opens = above is not None and (not fences_between or bool(above[2]))
        return path, (k - 1 if opens else k), fence
    return None, start, fence


class _Run:
    """What the scan of one response remembers between SEARCH/REPLACE blocks: the last
    path (a block without one takes it), the fence the current run of blocks is in, and
    the blocks found so far (consecutive blocks of one file make one edit)."""

    def __init__(self):
        self.path: str | None = None
        self.fence = None
        self.last_line: int | None = None  # the previous block's last line
        self.found: list[tuple[str, int, int, NumberedBlock, Block]] = []

    def inherited_path(self, lines: list[str], first: int, head: int, floor: int = 0) -> str:
        """The previous block's path for a block whose own path cannot be read (its
        wrapper starts at ``first``): taken only when nothing but whitespace separates
        the two blocks; text between them may have meant another file."""
        if self.path is None:
            raise ParseError(
                "found a SEARCH/REPLACE block (<<<<<<< SEARCH / ======= / >>>>>>> REPLACE) but "
                "no file path for it: no path stands alone on the line before its opening "
                f"fence{_untracked_names(lines, first, floor)}, and no earlier block names one",
                line=head + 1, directive="SEARCH/REPLACE",
                hint="put the file's path alone on the line before the opening fence, e.g. "
                     "src/app.py, then ```, then <<<<<<< SEARCH")
        between = range(self.last_line + 1, first) if self.last_line is not None else ()
        said = next((k for k in between if lines[k].strip()), None)
        if said is not None:
            raise ParseError(
                f"found a SEARCH/REPLACE block without a file path that can be read: "
                f"{lines[said].strip()[:80]!r} (response line {said + 1}) stands between it "
                f"and the previous block, so it is not taken to edit that block's file "
                f"({self.path}) too",
                line=head + 1, directive="SEARCH/REPLACE",
                hint="put the file's path alone on the line before the opening fence, e.g. "
                     "src/app.py, then ```, then <<<<<<< SEARCH")
        return self.path


# `git ai-apply prompt`: how to answer in this format, in our own words (prompts.py
# adds the common part).
PROMPT = """\
Answer with your explanation, then one SEARCH/REPLACE block per edit. Each block is the
file's path alone on a line, then a fenced block holding the markers:

src/util.py
```python
<<<<<<< SEARCH
def slugify(text):
    return text.strip().lower().replace(" ", "-")
=======
def slugify(text):
    return "-".join(text.strip().lower().split())
>>>>>>> REPLACE
```

- SEARCH holds lines copied exactly from the file, whole lines, enough of them to match
  only one place; REPLACE holds what replaces them.
- Give the path before every block. Several blocks may edit one file, in turn: each
  SEARCH must match the file as the blocks before it left it.
- An empty SEARCH creates a new file whose content is the REPLACE part.
- When the content holds lines of ``` fences, fence the block with ```` instead.
"""


class SearchReplace(Format):
    """aider's SEARCH/REPLACE blocks, opened by the ``<<<<<<< SEARCH`` line; the path line
    and the fence before it belong to the block (found by looking back over prose)."""

    name = NAME
    reads_indented = True
    prompts = {"search-replace": PROMPT}
    new_file_hint = 'a SEARCH/REPLACE block with an empty SEARCH'
    leftover_markup = (
        (r"^\s*<{5,9} ?SEARCH(?:\s+line=\"?\d+\"?)?\s*$", "a SEARCH/REPLACE marker"),
        (r"^\s*>{5,9} ?REPLACE\s*$", "a SEARCH/REPLACE marker"),
    )
    triggers = "<"
    markers = ("<<<<<<< SEARCH",)
    tells = ("<<<<<<< SEARCH",)

    def opens(self, scan: Scan, i: int) -> bool:
        return is_search(scan.lines[i])

    def parse(self, scan: Scan, i: int) -> Block:
        run = scan.memo.setdefault(NAME, _Run())
        lines = scan.lines
        n = len(lines)
        named, first, wrap = find_path(lines, i, scan.floor)
        if wrap is not None:
            run.fence = wrap
        path = run.path = named or run.inherited_path(lines, first, i, scan.floor)
        try:
            raw = read_block(lines, i, aider_close=True)
        except BlockError as e:
            reason = e.reason
            if e.stopped_by == "end":
                reason = f"{CUT_OFF}: {reason}"
            raise ParseError(reason, line=i + 1, directive=f"SEARCH/REPLACE {path}", file=path,
                             hint=e.hint) from None
        readings = [_dedent(lines[i], r) for r in raw.readings]
        last = raw.end
        fence = run.fence
        if fence is not None:  # the closing fence belongs to the block
            k = last + 1
            while k < n and not lines[k].strip():
                k += 1
            if k < n and closes(lines[k], fence):
                last = k
                run.fence = None
                scan.takes_fence_close(k)
            elif k >= n:
                raise ParseError(f"{CUT_OFF}: the code fence around the block is never closed "
                                 "(the response ends after its REPLACE marker)", line=i + 1,
                                 directive=f"SEARCH/REPLACE {path}", file=path,
                                 hint=CUT_OFF_HINT)
        _no_stray_close(lines, last + 1, run.fence, path)
        run.last_line = last
        block = Block(NAME, scan.starts[first], scan.end_of(last), [])
        run.found.append((path, first, last, NumberedBlock(0, i + 1, readings,
                                                           [r.divider + 1 for r in raw.readings],
                                                           search_line_hint(lines[i])),
                          block))
        return block

    def begins_block(self, scan: Scan, k: int, mid_line: bool) -> bool:
        """Besides the SEARCH marker: after blocks of this format, a last line that names a
        file (``src/app.py``), or an opening fence right after one, begins the next block."""
        if super().begins_block(scan, k, mid_line):
            return True
        lines = scan.lines
        if mid_line and cut_in_a_path_line(lines[k], after_a_block=scan.floor > 0):
            return True
        run = scan.memo.get(NAME)
        if run is None or not run.found:
            # after another format's blocks, a last line that is only a file's name (no
            # prose around it) is the path line of an aider block that never came
            return (scan.floor > 0 and not mid_line and not _in_a_file_list(scan, k)
                    and _file_name(_word_path(lines[k])) is not None)
        if fence_of(lines[k]) is not None:
            if scan.fence is not None and scan.fence.line == k:
                return True  # an opening fence (diff-fenced: the path comes inside it)
            j = k - 1
            while j >= scan.floor and not lines[j].strip():
                j -= 1
            return j >= scan.floor and names_file(lines[j])
        if mid_line:  # after aider's blocks a line of prose may name the next file
            return stops_mid_word(lines[k])
        return names_file(lines[k]) and not _in_a_file_list(scan, k)

    def finish(self, scan: Scan) -> list[tuple[int, int]]:
        """Give each run of consecutive blocks of one file its one edit."""
        run = scan.memo.get(NAME)
        if run is not None:
            _edits(run.found)
        return []


FORMAT = SearchReplace()



def _no_stray_close(lines: list[str], k: int, fence, path: str) -> None:
    """Refuse a ``>>>>>>> REPLACE`` line after a block and before its fence closes (or,
    unfenced, before a blank line): the REPLACE held the marker as text and was cut there.
    Elsewhere such a line is prose (or another format's content), not this block's."""
    while k < len(lines):
        line = lines[k]
        if is_search(line):
            return
        if fence is None and not line.strip():
            return
        if fence is not None and closes(line, fence):
            return
        if is_replace(line):
            raise ParseError(f"unexpected {line.strip()!r} after the SEARCH/REPLACE block that "
                             "ended before it", line=k + 1, directive=f"SEARCH/REPLACE {path}",
                             file=path,
                             hint="a '>>>>>>> REPLACE' line inside REPLACE ends the block there; "
                                  "rewrite the edit so no line of its content is a marker")
        k += 1


def _dedent(head_line: str, reading):
    """A block indented as a whole (inside a list item) without that indentation."""
    indent = head_line[:len(head_line) - len(head_line.lstrip())]
    if not indent:
        return reading
    body = reading.search + reading.replace
    if not all(l.startswith(indent) for l in body if l.strip()):
        return reading
    cut = len(indent)
    return type(reading)(reading.divider, [l[cut:] for l in reading.search],
                         [l[cut:] for l in reading.replace])


def _edits(found) -> None:
    """One edit per run of consecutive blocks of one file, carried by the run's first
    Block (the others carry none)."""
    k = 0
    while k < len(found):
        path = found[k][0]
        run_end = k
        while run_end + 1 < len(found) and found[run_end + 1][0] == path:
            run_end += 1
        run = found[k:run_end + 1]
        source = Source(NAME, f"SEARCH/REPLACE {path}", line=run[0][3].line)
        numbered = [NumberedBlock(m, b.line, b.readings, b.divider_lines, b.line_hint)
                    for m, (_p, _f, _l, b, _blk) in enumerate(run, 1)]

        def error(reason: str, line: int, hint: str | None = None, _path=path, _source=source):
            return ParseError(reason, line=line, directive=_source.directive, file=_path, hint=hint)

        run[0][4].ops = file_operations(path, numbered, source, error, in_turn=True)
        k = run_end + 1


# a line introducing a list of the files an answer touched ('Modified files:', 'Files
# changed:', '**Changed:**')
_FILE_LIST_HEAD = lazy_compile(r"\W*(?:\w+\W+){0,3}?(?:files?|changed|modified|updated|edited|"
                             r"touched)\b[^:]*:\W*$", re.IGNORECASE)


def _in_a_file_list(scan: Scan, k: int) -> bool:
    """The response's last line ``k`` (whole, naming a file) is an entry of a closing list
    of files, not the path line of a block that never came: a list item after another one
    or after a line ending in ':', or any line under a heading such as 'Files changed:'."""
    lines = scan.lines
    j = k - 1
    while j >= scan.floor and not lines[j].strip():
        j -= 1
    if j < scan.floor:
        return False
    above = lines[j].strip()
    if _FILE_LIST_HEAD.match(above):
        return True
    item = _LIST_ITEM.match(lines[k].strip()) or lines[k].strip().startswith("* ")
    return bool(item) and (above.endswith(":") or _LIST_ITEM.match(above) is not None
                           or above.startswith("* "))
