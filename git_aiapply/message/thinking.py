"""What the model thought aloud, kept out of the commit message (BEHAVIOR.md §8 round 4):
its exploration ("Wait, let me re-read ...", "Actually, ..."), the attempts it retracted
("Wait, that's wrong"), the diff told line by line, and paths outside the repository
(its own ``/tmp/...`` or ``/home/...`` checkout).  Read on the explanation's chunks
before the subject is chosen, so that neither subject nor body holds them.

- a sentence of exploration leaves out itself and the rest of its paragraph (or list
  item); when it opens a paragraph, the whole paragraph;
- a retraction also leaves out the attempt it retracts: the sentences before it in its
  paragraph, or, when it opens one, the paragraph (with the code after it) before;
- a paragraph or list item that opens with a line number or a hunk is left out;
- an absolute path whose end is a path the change touches is written as that repository
  path (``/testbed/src/app.py`` -> ``src/app.py``); any other path in a home, temporary
  or workspace folder, on a drive (``C:\\``) or under ``~`` leaves out its sentence (in
  prose), its item (in a list) or its line (in code, tables and quotes).  Other absolute
  paths (``/api/users``, ``/usr/bin/env``, ``/dev/null``) are the code's words and stay.
"""
from __future__ import annotations

from ..lazy_re import lazy_compile
from .explanation import Chunk, ListItem, sentences
from .narration import is_exploration, is_retraction, narrates_lines

# the first folders of an absolute path that is someone's machine, not the code's words
OUTSIDE_ROOTS = frozenset("""
tmp var private home Users root mnt media Volumes opt workspace workspaces workdir work
testbed builds runner github repo repos app code project projects data src content
""".split())
# an absolute path: after a space or an opening mark, '/', '~/' or a drive, then names
# ("./x" and "a.b/c" are relative; after "..." a path may start)
_ABSOLUTE = lazy_compile(r"(?<![\w~/\\:@-])(?<![\w/\s]\.)(?<!^\.)(?:~[/\\]|[A-Za-z]:[\\/]|/(?=[\w.@+-]+/))"
                         r"[\w.@+~-]*(?:[\\/][\w.@+~-]+)*")


class RepoPaths:
    """The paths the change touches, asked for only when an absolute path is met
    (``changed`` may be a function: 100,000 new files take a while to list)."""

    def __init__(self, changed):
        self._changed = changed
        self._paths: list[str] | None = None

    def changed(self) -> list[tuple[str, str]]:
        """The (verb, path) pairs of the change, asked for once."""
        if callable(self._changed):
            self._changed = self._changed()
        return self._changed or []

    def paths(self) -> list[str]:
        if self._paths is None:
            found = []
            for _verb, path in self.changed():
                found.extend(p.strip() for p in path.split(" -> "))
            # the longest first: /x/src/a/b.py is src/a/b.py, not a/b.py
            self._paths = sorted(set(found), key=len, reverse=True)
        return self._paths

    def in_repo(self, text: str) -> str | None:
        """``text`` with each absolute path the change names as its repository path; None
        when it holds a path outside the repository that names nothing of the change."""
        if "/" not in text and "\\" not in text:
            return text
        out = []
        pos = 0
        for m in _ABSOLUTE.finditer(text):
            path = m.group().replace("\\", "/")
            named = next((p for p in self.paths() if path.endswith("/" + p)), None)
            if named is None:
                if _outside(path):
                    return None
                continue
            out.append(text[pos:m.start()])
            out.append(named)
            pos = m.end()
        if not out:
            return text
        out.append(text[pos:])
        return "".join(out)


def _outside(path: str) -> bool:
    if path.startswith("~") or path[1:2] == ":":
        return True
    return path.split("/", 2)[1] in OUTSIDE_ROOTS


def without_thinking(chunks: list[Chunk], repo: RepoPaths) -> list[Chunk]:
    """``chunks`` without the model's thinking aloud and the paths outside the repository
    (the module's rules)."""
    out: list[Chunk] = []
    thought = False  # the paragraph before was thinking aloud, left out: a retraction's attempt
    for chunk in chunks:
        if chunk.kind == "prose":
            text, retracts = _prose(chunk.text, repo)
            if retracts and not thought:
                _drop_attempt(out)
            thought = not text
            if text:
                out.append(chunk if text == chunk.text else
                           Chunk("prose", chunk.lines, chunk.blank_before, text=text))
        elif chunk.kind == "heading":
            text = repo.in_repo(chunk.text)
            if text is not None and not is_exploration(text):
                out.append(chunk if text == chunk.text else
                           Chunk("heading", [text], chunk.blank_before, text=text))
        elif chunk.kind == "list":
            kept = _list(chunk, repo)
            if kept is not None:
                out.append(kept)
        elif chunk.kind in ("code", "table", "quote"):
            kept = _lines(chunk, repo)
            if kept is not None:
                out.append(kept)
        else:
            out.append(chunk)
        if chunk.kind != "prose" and chunk.kind not in ("code", "table", "quote", "break"):
            thought = False
    return out


def _prose(text: str, repo: RepoPaths) -> tuple[str, bool]:
    """(what a paragraph keeps, whether it retracts the paragraph before)."""
    kept: list[str] = []
    changed = retracts = False
    for i, sentence in enumerate(sentences(text)):
        if is_retraction(sentence):  # the attempt before it stays out, with it
            retracts = retracts or not kept
            kept, changed = [], True
            continue
        if is_exploration(sentence) or (i == 0 and narrates_lines(sentence)):
            return " ".join(kept), retracts
        in_repo = repo.in_repo(sentence)
        if in_repo is None or narrates_lines(sentence):
            changed = True
            continue
        changed = changed or in_repo != sentence
        kept.append(in_repo)
    return (" ".join(kept) if changed else text), retracts


def _drop_attempt(out: list[Chunk]) -> None:
    """The attempt a retraction retracts: the paragraph or list before it, with the code,
    tables and quotes that followed it; never past a heading."""
    while out and out[-1].kind in ("code", "table", "quote", "break"):
        out.pop()
    if out and out[-1].kind in ("prose", "list"):
        out.pop()


def _lines(chunk: Chunk, repo: RepoPaths) -> Chunk | None:
    """Code, a table or a quote without its lines that hold a path outside the repository;
    None when nothing but fences would be left."""
    lines = [ln if "/" not in ln and "\\" not in ln else repo.in_repo(ln) for ln in chunk.lines]
    if lines == chunk.lines:
        return chunk
    kept = [ln for ln in lines if ln is not None]
    if not any(ln.strip() and not ln.lstrip().startswith(("```", "~~~")) for ln in kept):
        return None
    return Chunk(chunk.kind, kept, chunk.blank_before)


def _list(chunk: Chunk, repo: RepoPaths) -> Chunk | None:
    """The list without its items of thinking aloud, of line-by-line narration, or with a
    path outside the repository (a continuation goes with its item)."""
    items: list[ListItem] = []
    dropping = False
    same = True
    for item in chunk.items:
        if item.marker or not dropping:
            first = item.text().split("\n", 1)[0]
            dropping = bool(item.marker) and (is_exploration(first) or narrates_lines(first))
        lines = None if dropping else [repo.in_repo(ln) for ln in item.lines]
        if lines is None or None in lines:
            dropping = dropping or bool(item.marker)
            same = False
            continue
        if lines != item.lines:
            same = False
            item = ListItem(item.indent, item.marker, lines, item.blank_before, item.verbatim)
        items.append(item)
    if same:
        return chunk
    if not items:
        return None
    return Chunk("list", [ln for it in items for ln in it.lines], chunk.blank_before, items=items)
