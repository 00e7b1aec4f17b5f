"""A code file's conventions that an edit's added lines are brought to, whatever tier
matched (BEHAVIOR.md §3): odd spaces in an added line's indentation become spaces; in a
file indented with tabs only, an added line indented with spaces gets tabs, level for
level (in a Makefile, any name ``is_makefile`` knows, its recipe lines always); a pair
of typographic quotes that certainly delimits a string in code (not inside a
plain-quoted string, a comment, a regex literal, JSX text or a heredoc) is folded.  Prose
files (.md, .txt, .rst, ...) keep everything.  ``conform`` applies all of it to one placed
edit's changed runs."""
from __future__ import annotations

from collections.abc import Sequence
import re
from ..lazy_re import lazy_compile
from math import gcd
from pathlib import PurePosixPath

from .corrections import aligned_places
from .matching import CannotCorrect
from ..record import record

# Odd spaces and zero-width characters an indentation may hold, and what they become.
_ODD_SPACES = {c: " " for c in "\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                               "\u2009\u200a\u202f\u205f\u3000"}
_ZERO_WIDTH = {c: "" for c in "\u200b\u200c\u200d\u2060\ufeff"}
_INDENT_FOLD = {**_ODD_SPACES, **_ZERO_WIDTH}
# Typographic characters and the plain ones they stand for in code.
_QUOTES = {**{c: "'" for c in "\u2018\u2019\u201a\u201b\u2032\u00b4"},
           **{c: '"' for c in "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb"}}
_OPENERS = frozenset("\u2018\u2019\u201c\u201d")
_CLOSER = {"\u2018": "\u2019", "\u2019": "\u2019", "\u201c": "\u201d", "\u201d": "\u201d"}
# What may stand before a string in code: an operator or bracket (not '[', which may
# open a regex character class), or one of these words.
_BEFORE_STRING = tuple("({=,:+?!;&|%") + ("=>", "<<")
_KEYWORDS = frozenset(("return", "yield", "in", "of", "case", "print", "puts", "echo", "and",
                       "or", "not", "is", "if", "elif", "else", "when", "then", "do", "await",
                       "throw", "raise", "assert", "typeof", "import", "from", "require",
                       "for", "as", "instanceof", "unless"))

PROSE_SUFFIXES = frozenset((".md", ".markdown", ".mdx", ".txt", ".text", ".rst", ".adoc",
                            ".asciidoc", ".org", ".tex", ".html", ".htm", ".xml", ".svg",
                            ".po", ".pot", ".csv", ".tsv", ".rtf", ".textile", ".wiki"))
# Files without a suffix that are code (Makefiles aside: ``is_makefile``); any other such
# name (README, LICENSE) is prose.
CODE_NAMES = frozenset(("dockerfile", "containerfile", "jenkinsfile", "rakefile", "gemfile",
                        "vagrantfile", "justfile"))


@record(frozen=True)
class Syntax:
    """What delimits strings and comments in a language, as far as folding needs."""

    line_comments: tuple = ()
    block_comment: tuple = ()  # (open, close), or () for none
    quotes: tuple = ("'", '"')  # strings that end on their line
    multiline: tuple = ()  # string delimiters that may span lines
    regex: bool = False  # /.../ literals where an operand may stand
    jsx: bool = False  # JSX may stand in the file (a .js file of a React app)
    opaque: str = ""  # regex of openers whose text is kept as written: heredocs, long strings


# a heredoc's opener (`<<EOF`, `<<-'EOF'`, `<<~EOF`, PHP's `<<<EOT`), its word in group 2:
# the text up to the word's line is kept as written, by the folding and the tabs alike
HEREDOC_OPENER = r"(?<!<)<<<?[-~]?[ \t]*(['\"]?)([A-Za-z_][\w.]*)\1"
_C_LIKE = Syntax(("//",), ("/*", "*/"))
_JVM = Syntax(("//",), ("/*", "*/"), multiline=('"""',))
_LANGUAGES = {
    **dict.fromkeys((".py", ".pyi", ".pyw"), Syntax(("#",), multiline=('"""', "'''"))),
    **dict.fromkeys((".js", ".mjs", ".cjs"),
                    Syntax(("//",), ("/*", "*/"), multiline=("`",), regex=True, jsx=True)),
    **dict.fromkeys((".ts", ".mts", ".cts"),
                    Syntax(("//",), ("/*", "*/"), multiline=("`",), regex=True)),
    **dict.fromkeys((".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs"), _C_LIKE),
    **dict.fromkeys((".java", ".kt", ".kts", ".scala", ".swift", ".dart", ".groovy"), _JVM),
    ".go": Syntax(("//",), ("/*", "*/"), multiline=("`",)),
    ".rs": Syntax(("//",), ("/*", "*/"), quotes=('"',)),  # 'a is a lifetime
    ".rb": Syntax(("#",), regex=True, opaque=HEREDOC_OPENER),
    ".php": Syntax(("//", "#"), ("/*", "*/"), opaque=HEREDOC_OPENER),
    ".lua": Syntax(("--",), ("--[[", "]]"), opaque=r"\[=*\["),
    ".sql": Syntax(("--",), ("/*", "*/"), opaque=r"\$(?:[A-Za-z_]\w*)?\$"),
    **dict.fromkeys((".css", ".scss", ".less"), Syntax((), ("/*", "*/"))),
    ".json": Syntax(quotes=('"',)),
}


def is_prose(path: str) -> bool:
    """Whether ``path`` holds prose, whose added lines keep every character as written."""
    p = PurePosixPath(path)
    if is_makefile(path):
        return False
    if not p.suffix:
        return p.name.lower() not in CODE_NAMES
    return p.suffix.lower() in PROSE_SUFFIXES


def syntax_for(path: str) -> Syntax | None:
    """The string and comment syntax of ``path``'s language; None when it is not a
    language whose strings and comments are known (typographic characters then kept:
    a shell word, a YAML scalar, JSX text may be prose standing outside quotes)."""
    return _LANGUAGES.get(PurePosixPath(path).suffix.lower())


# ---- odd spaces in indentation ----------------------------------------------------------

def plain_indentation(text: str) -> str:
    """``text`` with the odd spaces of its indentation made spaces and its zero-width
    characters there dropped (a model's no-break spaces are a syntax error in code)."""
    k = 0
    while k < len(text) and (text[k] in " \t" or text[k] in _INDENT_FOLD):
        k += 1
    head = text[:k]
    if k == len(text) or head.isascii():
        return text
    return "".join(_INDENT_FOLD.get(c, c) for c in head) + text[k:]


# ---- tabs --------------------------------------------------------------------------------

# the last file asked about and its answer: a file's hunks are conformed one after another
# against the same lines, and the question reads the whole file
_TABS_ONLY: list = [None, 0, False]


def indents_with_tabs_only(lines: Sequence[str]) -> bool:
    """Whether some line of the file starts with a tab and none starts with a space
    followed by code (a ' * ' line of a block comment does not count)."""
    last, size, answer = _TABS_ONLY
    if last is lines and size == len(lines):
        return answer
    answer = _tabs_only(lines)
    _TABS_ONLY[:] = [lines, len(lines), answer]
    return answer


def _tabs_only(lines: Sequence[str]) -> bool:
    tabs = False
    for line in lines:
        if line.startswith(" "):
            body = line.lstrip(" ")
            if body and not body.startswith(("*", "\t")):
                return False
        elif line.startswith("\t"):
            tabs = True
    return tabs


def _tab_level(line: str) -> int:
    return len(line) - len(line.lstrip("\t"))


def _spaces(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _needs_tabs(line: str) -> bool:
    return line.startswith(" ") and bool(line.strip()) and not line.lstrip(" ").startswith("*")


def tab_indentation(new_side: list[str], added: list[bool], level_before: int | None) -> list[str]:
    """``new_side`` (the edit's new lines as the file will hold them, ``added`` marking
    its own) with the space indentation of added lines made tabs, for a file indented with
    tabs only.  The answer's unit is the largest run of spaces dividing every such
    indentation; a single depth that is several 4-space steps may also be that many tabs
    of 4.  A reading places each line at most one level deeper than the non-blank line
    before it (``level_before``: the file's line above the edit); of two that do, one
    putting a line under a finished statement is dropped.  CannotCorrect when no
    reading, or two readings placing a line differently, remain: never a mix."""
    todo = [k for k, (t, a) in enumerate(zip(new_side, added)) if a and _needs_tabs(t)]
    if not todo:
        return new_side
    unit = 0
    for k in todo:
        unit = gcd(unit, _spaces(new_side[k]))
    first = new_side[todo[0]].strip()
    if unit < 2:
        raise CannotCorrect(_TABS + f": the added line {first!r} is indented with "
                            f"{_spaces(new_side[todo[0]])} space(s), not a whole number of levels")
    units = [unit] + ([4] if unit > 4 and unit % 4 == 0 else [])
    readings, bad = {}, ""
    for u in units:
        out, bad_line = _tab_reading(new_side, set(todo), u, level_before)
        if out is not None:
            readings.setdefault(tuple(out), u)
        bad = bad or bad_line
    if len(readings) > 1:  # a finished statement opens no level: that reading cannot be
        plausible = [r for r in readings if not _under_a_statement(r, todo, level_before)]
        readings = {r: readings[r] for r in plausible} if len(plausible) == 1 else readings
    if len(readings) == 1:
        return list(next(iter(readings)))
    if not readings:
        raise CannotCorrect(_TABS + f": read as tabs of {unit} spaces, the added line {bad!r} "
                            "would be more than one level deeper than the line before it")
    raise CannotCorrect(_TABS + f": its added lines (from {first!r}) are indented "
                        f"{unit} spaces, which could be one tab or {unit // 4}; write them with tabs")


_TABS = "the file indents with tabs only, but the edit indents with spaces"


def _tab_reading(new_side: list[str], todo: set[int], unit: int,
                 level_before: int | None) -> tuple[list[str] | None, str]:
    """The lines with tabs for spaces at ``unit`` spaces a tab, or None and the added
    line that reading cannot place."""
    out = []
    previous = level_before
    for k, line in enumerate(new_side):
        if k in todo:
            spaces = _spaces(line)
            level = spaces // unit
            if spaces % unit or (previous is not None and level > previous + 1):
                return None, line.strip()
            line = "\t" * level + line[spaces:]
        if line.strip():
            previous = _tab_level(line)
        out.append(line)
    return out, ""


# A line ending so is a finished statement: nothing can stand one level below it.
_STATEMENT_END = lazy_compile(r"[\w\"'`;]\s*$")
_OPENING_WORDS = frozenset(("then", "do", "else", "begin", "in", "of", "is", "repeat", "loop"))
_OPENING_STARTS = lazy_compile(r"\s*(def|class|module|if|elif|unless|while|until|for|case|"
                             r"when|function|sub|struct|begin|else)\b")


def _under_a_statement(reading: Sequence[str], todo: list[int], level_before: int | None) -> bool:
    """Whether ``reading`` puts an added line deeper than the non-blank line before it
    when that line is a finished statement (``x := 1``, ``rm -f app``), not the head of
    a block (``{``, ``:``, ``then``) or an unfinished expression (``,``, ``&&``)."""
    todo_set = set(todo)
    previous, level = None, level_before
    for k, line in enumerate(reading):
        if not line.strip():
            continue
        if k in todo_set and level is not None and previous is not None \
                and _tab_level(line) > level and _finished(previous):
            return True
        previous, level = line, _tab_level(line)
    return False


def _finished(line: str) -> bool:
    words = line.split()
    return bool(_STATEMENT_END.search(line)) and words[-1] not in _OPENING_WORDS \
        and not _OPENING_STARTS.match(line)


# ---- which added lines take tabs -----------------------------------------------------------

# The names make reads by itself (GNU make: GNUmakefile, makefile, Makefile; BSD make:
# BSDmakefile), and the same names with the suffixes of the tools that make Makefiles from
# them or include them (automake's Makefile.am, configure's Makefile.in, gettext's
# Makefile.in.in, BSD's Makefile.inc); any name ending .mk, .mak or .make is one included.
# Makefile.toml (cargo-make) is TOML: a suffix other than those is not taken.
MAKEFILE_NAMES = frozenset(("makefile", "gnumakefile", "bsdmakefile"))
_MAKEFILE_NAME_SUFFIXES = frozenset(("am", "in", "inc"))
MAKEFILE_SUFFIXES = (".mk", ".mak", ".make")
_CONDITIONAL = lazy_compile(r"\s*(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_DEFINE = lazy_compile(r"\s*((override|export)\s+)*define\b")
_ENDEF = lazy_compile(r"\s*endef\b")
# GNU make's .RECIPEPREFIX: recipes then start with that character, not a tab
_RECIPE_PREFIX = lazy_compile(r"\s*\.RECIPEPREFIX\s*[:+?]?=")


def is_makefile(path: str) -> bool:
    """Whether ``path`` names a Makefile (the one rule for it: its recipe lines are led by
    a tab, BEHAVIOR.md §3): ``Makefile``, ``makefile``, ``GNUmakefile``, ``BSDmakefile``,
    those with ``.am``, ``.in`` or ``.inc`` suffixes (``Makefile.am``, ``Makefile.in``,
    ``Makefile.in.in``), or any ``*.mk``, ``*.mak``, ``*.make``."""
    p = PurePosixPath(path.lower())
    stem, _dot, suffixes = p.name.partition(".")
    if stem in MAKEFILE_NAMES:
        return not suffixes or all(s in _MAKEFILE_NAME_SUFFIXES for s in suffixes.split("."))
    return p.suffix in MAKEFILE_SUFFIXES


def sets_recipe_prefix(lines: Sequence[str]) -> bool:
    """Whether a Makefile's lines set ``.RECIPEPREFIX`` (its recipes then need no tab)."""
    return any(".RECIPEPREFIX" in line and _RECIPE_PREFIX.match(line) for line in lines)


def _is_rule(line: str) -> bool:
    """``target: deps`` or ``target:: deps``; not an assignment (``=`` before the colon,
    or ``:=``/``::=``/``:::=``), nor a target-specific one (``app: CFLAGS += -g``, which
    takes no recipe).  A reference (``$(SRCS:.c=.o)``) is no colon and no ``=``."""
    line = _REFERENCE.sub("", line.split("#", 1)[0])
    colon = line.find(":")
    if colon < 0 or "=" in line[:colon]:
        return False
    return "=" not in line[colon:]


_REFERENCE = lazy_compile(r"\$[({][^(){}]*[)}]")


def makefile_recipes(seq: Sequence[str], start: int) -> list[bool]:
    """For each line of ``seq[start:]`` (the file's lines above the edit, then the edit's
    new lines), whether a space-indented one there is a recipe line, which make needs led
    by a tab: the non-blank line before it (a ``#`` comment skipped) is a recipe line, or
    a rule line outside any conditional; never inside ``define...endef``, never right
    after a directive or an assignment.  A line judged a recipe is one for the next."""
    out: list[bool] = []
    previous, depth, in_define = "", 0, False
    for k, line in enumerate(seq):
        recipe = not in_define and line.startswith(" ") and bool(line.strip()) and (
            previous == "recipe" or (previous == "rule" and depth == 0))
        if k >= start:
            out.append(recipe)
        if recipe or not line.strip() or line.startswith("#"):
            previous = "recipe" if recipe else previous
            continue
        previous, depth, in_define = _makefile_line(line, previous, depth, in_define)
    return out


def _makefile_line(line: str, previous: str, depth: int, in_define: bool):
    """What a Makefile line is (recipe, rule, directive, other) and the conditional depth
    and ``define`` state after it."""
    if in_define:
        return "other", depth, not _ENDEF.match(line)
    if line.startswith("\t"):
        return "recipe", depth, False
    if _DEFINE.match(line):
        return "directive", depth, True
    m = _CONDITIONAL.match(line)
    if m:
        step = {"endif": -1, "else": 0}.get(m.group(1), 1)
        return "directive", max(0, depth + step), False
    return ("rule" if _is_rule(line) else "other"), depth, False


_HEREDOC = lazy_compile(HEREDOC_OPENER)


def heredoc_bodies(seq: Sequence[str]) -> list[bool]:
    """Which lines of ``seq`` are a heredoc's body: after a line opening one (``<<WORD``,
    ``<<-WORD``, ``<< 'WORD'``, ``<<~WORD``, ``<<<WORD``) up to its terminator, a line
    that is WORD alone (indented, for ``<<-`` and ``<<~``; a ``;`` after it, for PHP).
    An opener with no terminator below is a shift (``1<<n``, ``cout << x``), no heredoc."""
    inside = [False] * len(seq)
    k = 0
    while k < len(seq):
        m = _HEREDOC.search(seq[k]) if "<<" in seq[k] else None
        end = _terminator(seq, k + 1, m.group(2)) if m else None
        if end is None:
            k += 1
            continue
        inside[k + 1:end] = [True] * (end - k - 1)
        k = end + 1
    return inside


def _terminator(seq: Sequence[str], k: int, word: str) -> int | None:
    for j in range(k, min(len(seq), k + 5000)):
        if seq[j].strip().rstrip(";") == word:
            return j
    return None


def _next_to_tabs(new_side: Sequence[str], todo: Sequence[bool]) -> list[bool]:
    """``todo`` narrowed to runs (blank lines aside) whose non-blank line just before or
    just after in ``new_side`` is tab-indented: the edit itself shows the file's style."""
    out = list(todo)
    k = 0
    while k < len(new_side):
        if not todo[k]:
            k += 1
            continue
        j = k
        while j < len(new_side) and (todo[j] or not new_side[j].strip()):
            j += 1
        before = next((t for t in reversed(new_side[:k]) if t.strip()), "")
        after = next((t for t in new_side[j:] if t.strip()), "")
        if not (before.startswith("\t") or after.startswith("\t")):
            out[k:j] = [False] * (j - k)
        k = j
    return out


# ---- typographic delimiters -------------------------------------------------------------

_JSX_TAG = lazy_compile(r"<[A-Za-z][\w.:-]*(?:\s[^<>]*)?/?>|</[A-Za-z][\w.:-]*\s*>|</?>")


def fold_delimiters(lines: list[str], syntax: Syntax, added: list[bool], state=None) -> list[str]:
    """``lines`` read in order as code of ``syntax`` from ``state`` (where the lines
    before left the scan: inside a block comment, a multi-line string or a heredoc, or
    None), with the typographic quotes of the ``added`` ones folded where they certainly
    delimit a string in code: a pair in code position (``_string_end``).  A line holding
    a typographic quote in code that is not such a pair, a regex literal, a heredoc or
    long string, is kept as written, and so is every line of an edit holding JSX in a
    file that may have it: never a half-folded line, never text the scan cannot read."""
    if syntax.jsx and any(_JSX_TAG.search(t) for t in lines):
        added = [False] * len(lines)
    out = []
    for line, fold in zip(lines, added):
        text, state = _scan_line(line, syntax, state, fold)
        out.append(text)
    return out


def scan_state(lines, syntax: Syntax, state=None):
    """Where reading ``lines`` as code of ``syntax`` leaves the scan.  Only a line holding
    something that can span lines (a block comment's, multi-line string's or heredoc's
    opener, or the closer of the one open) is read in full: the rest leave the state as
    it is."""
    spanning = (*syntax.block_comment[:1], *syntax.multiline)
    for line in lines:
        if state is None:
            if not any(s in line for s in spanning) and not _opens_unread(syntax, line):
                continue
        elif state[1] not in line:
            continue
        _text, state = _scan_line(line, syntax, state, False)
    return state


def _opens_unread(syn: Syntax, line: str) -> bool:
    return bool(syn.opaque) and re.search(syn.opaque, line) is not None


class _Out(list):
    """The scanned pieces of one line, whether it must be kept as written, and the
    heredoc its opener starts after it."""

    keep = False
    heredoc = ""


def _scan_line(line: str, syn: Syntax, state, fold: bool):
    if state is not None and state[0] == "heredoc":  # its text is kept; its own line ends it
        return line, None if line.strip().rstrip(";,)").strip() == state[1] else state
    out = _Out()
    i, n = 0, len(line)
    while i < n:
        if state is not None:  # ("block" | "string" | "opaque", closing delimiter)
            j, closed = _through(line, i, state[1], escapes=state[0] == "string")
            out.append(line[i:j])
            out.keep = out.keep or state[0] == "opaque"
            i = j
            if not closed:
                return _joined(line, out, fold), state
            state = None
            continue
        i, state = _code_step(line, i, syn, out)
    if out.heredoc and state is None:
        state = ("heredoc", out.heredoc)
    return _joined(line, out, fold), state


def _joined(line: str, out: _Out, fold: bool) -> str:
    return "".join(out) if fold and not out.keep else line


def _through(line: str, i: int, close: str, escapes: bool) -> tuple[int, bool]:
    """The position just past ``close`` from ``i`` (a backslash escapes the next character
    when ``escapes``), and whether it was found; else the end of the line."""
    n = len(line)
    while i < n:
        if escapes and line[i] == "\\":
            i += 2
            continue
        if line.startswith(close, i):
            return i + len(close), True
        i += 1
    return n, False


_TRIGGERS: dict[Syntax, re.Pattern] = {}


def _triggers(syn: Syntax) -> re.Pattern:
    """Where something may start in code: a comment, a string, a heredoc or long string,
    a regex literal, a typographic quote."""
    pattern = _TRIGGERS.get(syn)
    if pattern is None:
        starts = [*syn.block_comment[:1], *syn.line_comments, *syn.multiline, *syn.quotes]
        extra = [syn.opaque] if syn.opaque else []
        extra += ["/"] if syn.regex else []
        chars = "".join(sorted(_QUOTES))
        pattern = re.compile("|".join([*map(re.escape, starts), *extra]) + f"|[{re.escape(chars)}]")
        _TRIGGERS[syn] = pattern
    return pattern


def _code_step(line: str, i: int, syn: Syntax, out: _Out):
    """One step of the scan in code at ``i``: the next position and the state."""
    m = _triggers(syn).search(line, i)
    if m is None or m.start() > i:  # plain code up to the next trigger
        j = len(line) if m is None else m.start()
        out.append(line[i:j])
        return j, None
    if syn.block_comment and line.startswith(syn.block_comment[0], i):
        j, closed = _through(line, i + len(syn.block_comment[0]), syn.block_comment[1], False)
        out.append(line[i:j])
        return j, None if closed else ("block", syn.block_comment[1])
    if any(line.startswith(c, i) for c in syn.line_comments):
        out.append(line[i:])
        return len(line), None
    delim = next((d for d in syn.multiline if line.startswith(d, i)), None)
    if delim is not None:
        j, closed = _through(line, i + len(delim), delim, True)
        out.append(line[i:j])
        return j, None if closed else ("string", delim)
    c = line[i]
    if c in syn.quotes:
        j, _closed = _through(line, i + 1, c, True)  # a plain string ends on its line
        out.append(line[i:j])
        return j, None
    if c in _QUOTES:
        return _typographic_string(line, i, syn, out), None
    return _unread_step(line, i, syn, out)


def _unread_step(line: str, i: int, syn: Syntax, out: _Out):
    """A heredoc, long string or dollar-quoted body opened at ``i`` (its line kept as
    written, the state inside it), or a ``/``: a regex literal where an operand may
    stand (kept), else division."""
    m = re.compile(syn.opaque).match(line, i) if syn.opaque else None
    if m is None:
        j = i + 1
        if _operand_expected(line[:i]):
            j, _closed = _through(line, j, "/", True)
            out.keep = True
        out.append(line[i:j])
        return j, None
    token = m.group()
    out.append(token)
    out.keep = True
    if token.startswith("<<"):
        out.heredoc = re.search(r"[A-Za-z_]\w*", token).group()
        return m.end(), None
    close = token if token.startswith("$") else token.replace("[", "]")
    return m.end(), ("opaque", close)


def _operand_expected(before: str) -> bool:
    """Whether code ending in ``before`` expects an operand next (a string, a regex)."""
    before = before.rstrip()
    if not before or before.endswith(_BEFORE_STRING):
        return True
    word = re.search(r"(?<![\w$.])[A-Za-z_]\w*$", before)
    return word is not None and word.group() in _KEYWORDS


def _typographic_string(line: str, i: int, syn: Syntax, out: _Out) -> int:
    """A string opened by a typographic quote at ``i``, both delimiters then plain; any
    other typographic quote in code keeps the whole line as written."""
    j = _string_end(line, i, syn)
    if j is None:
        out.append(line[i])
        out.keep = True
        return i + 1
    plain = _QUOTES[line[i]]
    out.append(plain + line[i + 1:j] + plain)
    return j + 1


def _string_end(line: str, i: int, syn: Syntax) -> int | None:
    """Where the string a typographic quote at ``i`` certainly opens ends: the quote is
    one of ‘ ’ “ ” whose plain kind the language quotes strings with, standing where an
    operand may (``_operand_expected``, not directly after '['); its closer is the next
    ’ or ” of its kind, followed by no word (or by a keyword); the text between holds
    nothing that would end or escape the plain string.  None when it is not that sure."""
    c = line[i]
    plain = _QUOTES[c]
    if c not in _OPENERS or plain not in syn.quotes:
        return None
    j = line.find(_CLOSER[c], i + 1)
    if j < 0 or not _operand_expected(line[:i]):
        return None
    body = line[i + 1:j]
    if plain in body or c in body or body.endswith("\\"):
        return None
    rest = line[j + 1:]
    if rest[:1].isalnum() or rest[:1] == "_":
        return None
    word = re.match(r"\s*([A-Za-z_]\w*)", rest)
    return j if word is None or word.group(1) in _KEYWORDS else None


def has_typographic(text: str) -> bool:
    return not text.isascii() and any(c in _QUOTES for c in text)


# ---- one placed edit ---------------------------------------------------------------------

def conform(path: str, shapes, lines: Sequence[str], start: int, end: int):
    """The changed runs ``shapes`` (relative to the edit's place ``start``..``end`` in
    ``lines``) with their added lines brought to the file's conventions."""
    if is_prose(path):
        return shapes
    new_side, added = _new_side(shapes, lines[start:end])
    new_side = [plain_indentation(t) if a else t for t, a in zip(new_side, added)]
    syntax = syntax_for(path)
    if any(a and _needs_tabs(t) for t, a in zip(new_side, added)) and _takes_tabs(path, lines):
        new_side = tab_indentation(new_side, _tab_candidates(path, new_side, added, lines,
                                                             start, end),
                                   _level_above(lines, start))
    if syntax is not None and any(a and has_typographic(t) for t, a in zip(new_side, added)):
        state = scan_state((lines[k] for k in range(start)), syntax)
        folded = fold_delimiters(new_side, syntax, added, state)
        return _keep_own_changes(_rebuilt(shapes, new_side, added), _rebuilt(shapes, folded, added),
                                 lines[start:end])
    return _rebuilt(shapes, new_side, added)


def _takes_tabs(path: str, lines: Sequence[str]) -> bool:
    """Whether some added lines of ``path`` may get tabs for their spaces: a Makefile's
    recipe lines always (make needs the tab, whatever its other lines indent with, unless
    the file sets another recipe prefix); elsewhere only in a file indented with tabs only."""
    if is_makefile(path):
        return not sets_recipe_prefix(lines)
    return indents_with_tabs_only(lines)


def _tab_candidates(path: str, new_side: list[str], added: list[bool], lines: Sequence[str],
                    start: int, end: int) -> list[bool]:
    """Which added lines of ``new_side`` may get tabs for their spaces: not inside a
    multi-line string or a heredoc's body; in a Makefile only recipe lines, elsewhere only
    runs next to a tab-indented line of the edit."""
    in_string = _in_strings(new_side, syntax_for(path), lines, start)
    above, below = list(lines[:start]), list(lines[end:])
    in_heredoc = heredoc_bodies(above + new_side + below)[start:start + len(new_side)]
    todo = [a and _needs_tabs(t) and not s and not h
            for t, a, s, h in zip(new_side, added, in_string, in_heredoc)]
    if is_makefile(path):
        recipes = makefile_recipes(above + new_side, start)
        return [t and r for t, r in zip(todo, recipes)]
    return _next_to_tabs(new_side, todo)


def _keep_own_changes(written_runs, folded_runs, matched: Sequence[str]):
    """``folded_runs`` with folds undone where they would undo the edit's own change or
    straighten what the file writes: a run that folding would make remove and add the same
    lines keeps its lines as written (the typographic characters are its change), and so
    does each added line whose fold replaces a character that a removed line of its run
    holds at the corresponding place (difflib's alignment of the two lines: the file
    wrote it, whatever the edit changed before it on the line).  A line is kept whole,
    never half folded."""
    out = []
    for (a, b, written), (_a, _b, folded) in zip(written_runs, folded_runs):
        removed = matched[a:b]
        if folded == removed and written != removed:
            folded = written
        folded = [w if w != f and any(_copies_file_character(w, f, r) for r in removed) else f
                  for w, f in zip(written, folded)]
        out.append((a, b, folded))
    return out


def _copies_file_character(written: str, folded: str, removed: str) -> bool:
    """Whether a character folding changes in ``written`` (``folded``: one character for
    one) is one ``written`` copies from ``removed`` (difflib's alignment of the two)."""
    return any(written[k] != folded[k] for k, _j in aligned_places(written, removed))


def _in_strings(new_side: list[str], syntax: Syntax | None, lines: Sequence[str],
                start: int) -> list[bool]:
    """Which lines of ``new_side`` start inside a multi-line string (a Go raw string, a
    template literal, a docstring), whose spaces are text, not indentation."""
    if syntax is None or not syntax.multiline:
        return [False] * len(new_side)
    state = scan_state((lines[k] for k in range(start)), syntax)
    inside = []
    for line in new_side:
        inside.append(state is not None and state[0] == "string")
        _text, state = _scan_line(line, syntax, state, False)
    return inside


def _level_above(lines: Sequence[str], start: int) -> int | None:
    for k in range(start - 1, max(-1, start - 200), -1):
        if lines[k].strip():
            return _tab_level(lines[k])
    return None


def _new_side(shapes, matched: Sequence[str]) -> tuple[list[str], list[bool]]:
    """The edit's new lines in order (the file's matched lines between its runs), and
    which of them it adds."""
    seq: list[str] = []
    added: list[bool] = []
    pos = 0
    for a, b, texts in shapes:
        seq.extend(matched[pos:a])
        seq.extend(texts)
        added.extend([False] * (a - pos) + [True] * len(texts))
        pos = b
    seq.extend(matched[pos:])
    added.extend([False] * (len(matched) - pos))
    return seq, added


def _rebuilt(shapes, new_side: list[str], added: list[bool]):
    texts = iter(t for t, a in zip(new_side, added) if a)
    return [(a, b, [next(texts) for _t in run]) for a, b, run in shapes]

