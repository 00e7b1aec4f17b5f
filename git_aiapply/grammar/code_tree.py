"""A text read by its language's grammar (tree-sitter), and the questions the checks ask
of it: where the first syntax error is, which lines are only comments, which lines begin
inside a string literal, where a definition's header ends.

Rows are 0-based line numbers of the lines given (joined with ``\\n``, as tree-sitter
counts rows).  tree-sitter and a grammar's compiled module are loaded on the first
question about a file of that language, and directly: a grammar package's ``__init__``
imports ``importlib.resources`` for its queries, which costs more than the parse.
"""
from __future__ import annotations

import os

from .languages import Grammar

# the node kinds (named, in any grammar) whose text is a string literal's: their inner
# lines are text, never re-indented.  YAML's block scalars are not here: their content is
# indented relative to the key, so it moves with it.
_STRING_KINDS = frozenset({
    "string", "string_literal", "raw_string_literal", "interpreted_string_literal",
    "template_string", "text_block", "heredoc_body", "heredoc", "nowdoc", "encapsed_string",
    "verbatim_string_literal", "raw_string", "interpolated_string_expression",
    "interpolated_verbatim_string_text", "string_array", "symbol_array",
})


class _Loaded:
    """One grammar, loaded: its language, a parser, and the queries built for it."""

    def __init__(self, grammar: Grammar):
        import tree_sitter as ts

        binding = _load_binding(grammar.package)
        self.language = ts.Language(getattr(binding, grammar.function)())
        self.parser = ts.Parser(self.language)
        kinds = {self.language.node_kind_for_id(i) for i in range(self.language.node_kind_count)
                 if self.language.node_kind_is_named(i)
                 and self.language.node_kind_is_visible(i)}
        comments = sorted(k for k in kinds if k.endswith("comment"))
        strings = sorted(kinds & _STRING_KINDS)
        self.comments = _query(ts, self.language, comments)
        self.strings = _query(ts, self.language, strings)
        self._declarations = False  # built on the first question (declarations())

    @property
    def declarations(self):
        """A query for the nodes that declare a name: their ``name`` (a definition), ``key``
        (a mapping's entry) or ``module_name`` (Python's ``from M import``) field, of the
        fields this grammar has."""
        if self._declarations is False:
            import tree_sitter as ts

            fields = [f for f in _NAME_FIELDS if self.language.field_id_for_name(f) is not None]
            self._declarations = ts.Query(self.language, " ".join(
                f"(_ {f}: (_) @name) @node" for f in fields)) if fields else None
        return self._declarations


_NAME_FIELDS = ("name", "key", "module_name")


def _query(ts, language, kinds: list[str]):
    if not kinds:
        return None
    return ts.Query(language, " ".join(f"({k}) @n" for k in kinds))


def _load_binding(package: str):
    """The grammar's compiled ``_binding`` module, loaded from the installed package's
    folder without running the package's ``__init__``."""
    import importlib.machinery
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(f"the grammar package {package} is not installed")
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for folder in spec.submodule_search_locations:
        for name in sorted(os.listdir(folder)):
            if name.startswith("_binding") and name.endswith(suffixes):
                found = importlib.util.spec_from_file_location(f"{package}._binding",
                                                               os.path.join(folder, name))
                module = importlib.util.module_from_spec(found)
                found.loader.exec_module(module)
                return module
    raise ImportError(f"the grammar package {package} has no compiled module")


_LOADED: dict[tuple[str, str], _Loaded | None] = {}


def _loaded(grammar: Grammar) -> _Loaded | None:
    key = (grammar.package, grammar.function)
    if key not in _LOADED:
        try:
            _LOADED[key] = _Loaded(grammar)
        except (ImportError, OSError, ValueError, AttributeError):
            # a broken installation leaves the file to the text rules, as a file of a
            # language with no grammar has them
            _LOADED[key] = None
    return _LOADED[key]


class CodeTree:
    """``lines`` as ``grammar`` reads them."""

    def __init__(self, grammar: Grammar, lines: list[str], loaded: _Loaded):
        self.grammar = grammar
        self.lines = lines
        self._raw = [line.encode("utf-8", "surrogatepass") for line in lines]
        self._loaded = loaded
        self.tree = loaded.parser.parse(b"\n".join(self._raw))
        self.root = self.tree.root_node

    # -- syntax -------------------------------------------------------------------
    @property
    def has_error(self) -> bool:
        return self.root.has_error

    def first_error(self) -> int | None:
        """The row of the first syntax error, None when the text parses."""
        rows = self.error_rows()
        return rows[0] if rows else None

    def error_rows(self) -> list[int]:
        """The rows where syntax errors are, in order: the first text of each innermost
        unreadable stretch (an outer one also holds the valid code the parser recovered
        around it), else the places of missing tokens."""
        errors: list[int] = []
        missing: list[int] = []
        stack = [self.root] if self.root.has_error else []
        while stack:
            node = stack.pop()
            if node.is_missing:
                missing.append(node.start_point.row)
                continue
            inner = [c for c in node.children if c.has_error or c.is_missing]
            if node.is_error and not any(c.is_error or c.has_error for c in inner
                                         if not c.is_missing):
                errors.append(_first_token_row(node))
            stack.extend(inner)
        return sorted(set(errors or missing))

    # -- comments and strings -----------------------------------------------------
    def _spans(self, query) -> list:
        if query is None:
            return []
        import tree_sitter as ts

        captures = ts.QueryCursor(query).captures(self.root)
        return [(n.start_point, n.end_point) for nodes in captures.values() for n in nodes]

    def comment_rows(self) -> set[int]:
        """The rows that hold nothing but comments (and whitespace)."""
        covered: dict[int, list[tuple[int, int]]] = {}
        for start, end in self._spans(self._loaded.comments):
            for row in range(start.row, end.row + 1):
                a = start.column if row == start.row else 0
                b = end.column if row == end.row else len(self._raw[row]) if row < len(self._raw) else 0
                covered.setdefault(row, []).append((a, b))
        return {row for row, spans in covered.items() if _only_covered(self._raw[row], spans)}

    def rows_with_comments(self) -> set[int]:
        """The rows where a comment starts (alone or after code)."""
        return {start.row for start, _end in self._spans(self._loaded.comments)}

    def string_rows(self) -> set[int]:
        """The rows that begin inside a string literal (a multi-line string, a heredoc, a
        raw string): their leading whitespace is the string's text."""
        rows: set[int] = set()
        for start, end in self._spans(self._loaded.strings):
            first = start.row + 1
            if start.row < len(self._raw) and end.row > start.row:
                raw = self._raw[start.row]
                # a heredoc's body starts in its first line's indentation
                if start.column <= len(raw) - len(raw.lstrip()):
                    first = start.row
            rows.update(range(first, end.row + 1))
        return rows

    def enclosing(self, row: int) -> list[str]:
        """The kinds of the nodes around the text of ``row``, innermost first (a comment
        in a ``catch`` block: ``statement_block``, ``catch_clause``, ``try_statement``...)."""
        if not 0 <= row < len(self._raw):
            return []
        raw = self._raw[row]
        column = len(raw) - len(raw.lstrip())
        node = self.root.descendant_for_point_range((row, column), (row, column))
        kinds = []
        while node is not None:
            kinds.append(node.type)
            node = node.parent
        return kinds

    # -- definitions --------------------------------------------------------------
    def declared_names(self) -> dict[int, str]:
        """The rows that declare a name, each with its text up to the end of that name
        (leading whitespace aside): ``def put``, ``func (s *Server) Stop``,
        ``public void Withdraw``, ``from fastapi``, ``image`` (a mapping's key).  A
        declaration is a node with a name field that is a definition (it has a body or
        parameters, or spans several rows), a mapping's entry (its key) or Python's
        ``from M import``; its name is on its first row, which holds nothing before it
        but modifiers (``export``, ``pub``).  A row with several keeps the outermost."""
        query = self._loaded.declarations
        if query is None:
            return {}
        import tree_sitter as ts

        best: dict[int, tuple[tuple[int, int], str]] = {}
        for _i, caps in ts.QueryCursor(query).matches(self.root):
            node, name = caps["node"][0], caps["name"][0]
            row = node.start_point.row
            if name.end_point.row != row or row >= len(self._raw):
                continue
            if not (node.child_by_field_name("body") is not None
                    or node.child_by_field_name("parameters") is not None
                    or node.end_point.row > row
                    or node.child_by_field_name("key") is not None
                    or node.child_by_field_name("module_name") is not None):
                continue
            raw = self._raw[row]
            start = len(raw) - len(raw.lstrip())
            if node.start_point.column > start and raw[start:node.start_point.column].strip() \
                    and not _only_modifiers(raw[start:node.start_point.column]):
                continue
            rank = (node.start_point.column, name.end_point.column)
            if row not in best or rank < best[row][0]:  # the outermost, its first name
                best[row] = (rank, raw[start:name.end_point.column].decode("utf-8", "replace"))
        return {row: text for row, (_rank, text) in best.items()}

    def header_end(self, row: int) -> int | None:
        """For a statement that opens a body at ``row`` (a definition, a class, a block
        statement): the last row of its header (a wrapped signature, the line of its
        opening brace, and a docstring that opens the body), None when no statement with
        a body starts there."""
        node = self._statement_at(row)
        if node is None:
            return None
        body = node.child_by_field_name("body")
        if body is None:
            return None
        if body.child_count and body.children[0].type in ("{", "do", "begin", "then"):
            return body.children[0].end_point.row
        last = row
        for child in node.children:
            if child.start_byte >= body.start_byte:
                break
            last = max(last, child.end_point.row)
        first = body.named_children[0] if body.named_child_count else None
        if first is not None and _is_docstring(first):
            last = max(last, first.end_point.row)
        return last

    def _statement_at(self, row: int):
        if not 0 <= row < len(self._raw):
            return None
        raw = self._raw[row]
        column = len(raw) - len(raw.lstrip())
        node = self.root.descendant_for_point_range((row, column), (row, column))
        best = None
        while node is not None and node != self.root:
            if node.start_point.row != row:
                break
            if node.child_by_field_name("body") is not None:
                best = node
            node = node.parent
        return best

    # -- definitions named --------------------------------------------------------
    def names_at(self, ranges: list[tuple[int, int]], limit: int = 8) -> list[str]:
        """The definitions the rows of ``ranges`` fall in (``(first, last)`` rows, both
        included): for each, the innermost definition around a touched row (a function, a
        method, a class; a config file's table or key), named as the code names it and
        qualified by the definition around it (``Parser.parse``); in the order of the
        text, each once, at most ``limit``.  Rows in no definition name nothing."""
        out: list[str] = []
        for first, last in sorted(ranges):
            if len(out) >= limit:
                break
            _names_in(self.root, first, last, (), out, limit, 0,
                      self.grammar.name in SECTION_GRAMMARS)
        return out[:limit]


def _only_modifiers(text: bytes) -> bool:
    """Whether ``text`` (what stands before a declaration on its row) is words only
    (``export``, ``pub``, ``public static``): not code that ends a statement."""
    return all(w.isalpha() for w in text.decode("utf-8", "replace").split())


def _first_token_row(error) -> int:
    """The row of the first text an unreadable stretch holds (it may open with an empty
    token at the end of the line before)."""
    stack = [error]
    while stack:
        node = stack.pop()
        if node.child_count == 0:
            if node.end_byte > node.start_byte:
                return node.start_point.row
            continue
        stack.extend(reversed(node.children))
    return error.start_point.row


def _is_docstring(node) -> bool:
    return (node.type == "expression_statement" and node.named_child_count == 1
            and node.named_children[0].type in ("string", "concatenated_string"))


def _only_covered(raw: bytes, spans: list[tuple[int, int]]) -> bool:
    """Whether every non-blank byte of ``raw`` lies in one of ``spans``."""
    text_start = len(raw) - len(raw.lstrip())
    text_end = len(raw.rstrip())
    if text_start >= text_end:
        return False
    at = text_start
    for a, b in sorted(spans):
        if a > at:
            if raw[at:a].strip():
                return False
        at = max(at, b)
        if at >= text_end:
            return True
    return not raw[at:text_end].strip()


# tree-sitter reads about 5 MB a second: a larger text is left to the text rules, so that
# an edit of a generated 6 MB module does not pay a second for each reading (the 2,000-hunk
# benchmark, bench/results.md)
MAX_PARSE_BYTES = 1 << 20


def parses(grammar: Grammar, data: bytes) -> bool | None:
    """Whether ``data`` (a file's bytes) parses without an error, read as they are (the
    quick question most files answer: nothing decoded or split); None when the grammar
    cannot be loaded or the file is larger than MAX_PARSE_BYTES."""
    if len(data) > MAX_PARSE_BYTES:
        return None
    loaded = _loaded(grammar)
    if loaded is None:
        return None
    return not loaded.parser.parse(data.removeprefix(b"\xef\xbb\xbf")).root_node.has_error


def read(grammar: Grammar | None, lines: list[str]) -> CodeTree | None:
    """``lines`` parsed by ``grammar``; None when there is none, it cannot be loaded, or
    the text is larger than MAX_PARSE_BYTES."""
    if grammar is None or sum(len(line) + 1 for line in lines) > MAX_PARSE_BYTES:
        return None
    loaded = _loaded(grammar)
    if loaded is None:
        return None
    return CodeTree(grammar, list(lines), loaded)


# Languages whose statements are read only inside a function: an edit's lines (a
# fragment) are also read wrapped in one, so that their strings are seen.
_BODY_WRAPPERS = {
    "Go": (["package p", "func _() {"], ["}"]),
    "Rust": (["fn _() {"], ["}"]),
    "Java": (["class _W {", "void _w() {"], ["}", "}"]),
    "C#": (["class _W {", "void _w() {"], ["}", "}"]),
    "C": (["void _w(void) {"], ["}"]),
    "C++": (["void _w() {"], ["}"]),
}


def fragment_string_rows(path: str, lines: list[str]) -> set[int]:
    """The rows of ``lines``, a fragment of a file at ``path`` (an edit's text), that begin
    inside a string literal: read as they are, and for a language whose statements live
    only in functions, also read inside one."""
    from .languages import grammar_for

    grammar = grammar_for(path, lines[0] if lines else None)
    tree = read(grammar, lines)
    if tree is None:
        return set()
    rows = tree.string_rows()
    wrapper = _BODY_WRAPPERS.get(grammar.name)
    if wrapper is not None:
        before, after = wrapper
        wrapped = read(grammar, before + list(lines) + after)
        if wrapped is not None:
            rows |= {r - len(before) for r in wrapped.string_rows()
                     if len(before) <= r < len(before) + len(lines)}
    return rows


def read_file(path: str, lines: list[str]) -> CodeTree | None:
    """The file at ``path`` (a repository path) with these lines, read by its grammar."""
    from .languages import grammar_for

    return read(grammar_for(path, lines[0] if lines else None), lines)


# -- the definitions a change touches ---------------------------------------------------

MAX_NAME = 60  # a longer "name" (a C++ template's qualified declarator) names nothing
_MAX_DEPTH = 100  # nesting read for names; deeper code names what is around it
_QUALIFY = 2  # a name with at most the one definition around it: ``Parser.parse``


# grammars of data, not code: their keys are the sections a change is in
SECTION_GRAMMARS = frozenset(("JSON", "YAML", "TOML"))


def _definition_name(node, sections: bool) -> str | None:
    """The name of the definition ``node`` is, asked of the grammar's fields, not of its
    node kinds: a node with a ``body`` and a ``name`` (functions, methods, classes,
    modules in any grammar), a ``declarator`` chain (C, C++) or a ``type`` (Rust's
    ``impl``); a ``name`` or ``key`` whose ``value`` has a body (``const f = () => {}``,
    ``{load: function () {}}``); with ``sections`` (a data file), any ``key`` with a
    ``value`` (JSON, YAML) and a TOML table's key.  None for anything else."""
    named = None
    if node.child_by_field_name("body") is not None:
        named = node.child_by_field_name("name")
        if named is None:
            named = node.child_by_field_name("declarator")
            while named is not None and named.child_by_field_name("declarator") is not None:
                named = named.child_by_field_name("declarator")
        if named is None:
            named = node.child_by_field_name("type")
    elif node.child_by_field_name("value") is not None:
        value = node.child_by_field_name("value")
        if sections or value.child_by_field_name("body") is not None:
            named = node.child_by_field_name("key") or node.child_by_field_name("name")
    elif sections and node.type == "table" and node.named_child_count:  # TOML's [section]
        named = node.named_children[0]
    elif (node.child_by_field_name("type") is not None and node.end_point.row > node.start_point.row):
        named = node.child_by_field_name("name")  # Go's ``type T struct {...}``
    if named is None or named.start_point.row != named.end_point.row:
        return None
    text = named.text.decode("utf-8", "replace").strip().strip("\"'")
    return text if text and len(text) <= MAX_NAME and "\n" not in text else None


def _names_in(node, first: int, last: int, outer: tuple, out: list[str], limit: int,
              depth: int, sections: bool) -> bool:
    """Add to ``out`` the innermost definitions under ``node`` that rows ``first`` to
    ``last`` touch; whether any was found."""
    found = False
    if depth > _MAX_DEPTH:
        return found
    for child in node.named_children:
        if len(out) >= limit or child.start_point.row > last:
            break
        end = child.end_point
        if (end.row - 1 if end.column == 0 and end.row > child.start_point.row else end.row) < first:
            continue  # a node that ends at a line's start does not hold that line
        name = _definition_name(child, sections)
        chain = outer if name is None else outer + (name,)
        inner = _names_in(child, first, last, chain, out, limit, depth + 1, sections)
        if name is not None and not inner:
            qualified = ".".join(chain[-_QUALIFY:])
            if qualified not in out:
                out.append(qualified)
            inner = True
        found = found or inner
    return found


# a stretch of changed lines longer than this on either side is one range: difflib's
# matching is quadratic at worst
_DIFF_LINES = 2000


def changed_rows(old: list[str], new: list[str]) -> tuple[list[tuple[int, int]],
                                                          list[tuple[int, int]]]:
    """(the rows of ``new`` that the change wrote, the rows of ``old`` it removed where
    it wrote nothing in their place), each as ``(first, last)`` ranges."""
    import difflib

    start = 0
    while start < len(old) and start < len(new) and old[start] == new[start]:
        start += 1
    end = 0
    while (end < len(old) - start and end < len(new) - start
           and old[len(old) - 1 - end] == new[len(new) - 1 - end]):
        end += 1
    a, b = old[start:len(old) - end], new[start:len(new) - end]
    if not a and not b:
        return [], []
    if len(a) > _DIFF_LINES or len(b) > _DIFF_LINES:
        codes = [("replace", 0, len(a), 0, len(b))]
    else:
        codes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    written, removed = [], []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal":
            continue
        if j2 > j1:
            written.append((start + j1, start + j2 - 1))
        else:
            removed.append((start + i1, start + i2 - 1))
    return written, removed


def changed_definitions(path: str, old: str | bytes, new: str | bytes,
                        limit: int = 8) -> list[str]:
    """The definitions of the file at ``path`` that a change from ``old`` to ``new``
    touches (``CodeTree.names_at``): those around the lines it wrote, read in ``new``,
    then those around the lines it only removed, read in ``old``.  ``[]`` when no
    grammar reads the file (or it is no UTF-8 text, or larger than MAX_PARSE_BYTES) or
    no definition is touched."""
    try:
        old = old.decode("utf-8") if isinstance(old, bytes) else old
        new = new.decode("utf-8") if isinstance(new, bytes) else new
    except UnicodeDecodeError:
        return []
    if max(len(old), len(new)) > MAX_PARSE_BYTES:
        return []
    old_lines, new_lines = old.split("\n"), new.split("\n")
    written, removed = changed_rows(old_lines, new_lines)
    names: list[str] = []
    for lines, ranges in ((new_lines, written), (old_lines, removed)):
        if ranges and len(names) < limit:
            tree = read_file(path, lines)
            if tree is None:
                return []
            names += [n for n in tree.names_at(ranges, limit - len(names)) if n not in names]
    return names
