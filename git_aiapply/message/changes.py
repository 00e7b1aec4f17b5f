"""A subject made from the change itself (BEHAVIOR.md §8), for a response whose prose
has no sentence that says what changed in ``aiapply.subjectLength`` characters, or no
prose at all.

- ``subject_from_change``: the functions, classes or sections the edits touch, as the
  file's grammar names them, and the files: ``Change pytest_runtest_makereport
  (src/_pytest/skipping.py)``, ``Change load and save (app.py)``; the names come from
  the caller (``names_of``, asked only here and only for a few updated files, since
  reading them costs a parse); without names,
- ``describe_changes``: the files and what happened to them (``Update src/app.py, add
  src/util.py``).

Never cut with an ellipsis: a shorter form is tried, then a count of the files.
"""
from __future__ import annotations

SUBJECT_MAX = 72
MAX_NAMED_FILES = 3  # files whose definitions a subject names; more name the files only
_NAMED_VERBS = ("update", "mode")  # a file changed in place: its definitions say where


def subject_from_change(changed: list[tuple[str, str]], names_of, limit: int = SUBJECT_MAX) -> str:
    """The subject naming the definitions the change touches in each updated file, when
    ``names_of(path)`` names some and it fits in ``limit``; else ``describe_changes``."""
    items = [(verb.strip().lower() or "change", path) for verb, path in changed]
    if names_of is not None and 0 < len(items) <= MAX_NAMED_FILES:
        named = [(verb, path, list(names_of(path)) if verb in _NAMED_VERBS else [])
                 for verb, path in items]
        if any(names for _v, _p, names in named):
            for shown in (None, 2, 1):
                for base_names in (False, True):
                    text = _render_named(named, shown, base_names)
                    if len(text) <= limit:
                        return text
    return describe_changes(changed, limit)


def _names(names: list[str], shown: int | None) -> str:
    """``a``, ``a and b``, ``a, b and c``; past ``shown`` names, ``a, b and 3 more``."""
    if shown is not None and len(names) > shown:
        return ", ".join(names[:shown]) + f" and {len(names) - shown} more"
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _render_named(named: list[tuple[str, str, list[str]]], shown: int | None,
                  base_names: bool) -> str:
    groups: list[tuple[str, list[str]]] = []
    for verb, path, names in named:
        where = path.rsplit("/", 1)[-1] if base_names else path
        where = where.replace(" -> ", " to ")
        verb, phrase = ("change", f"{_names(names, shown)} ({where})") if names else (verb, where)
        if groups and groups[-1][0] == verb:
            groups[-1][1].append(phrase)
        else:
            groups.append((verb, [phrase]))
    text = ", ".join(f"{verb} {_names(phrases, None)}" for verb, phrases in groups)
    return text[:1].upper() + text[1:]


def describe_changes(changed: list[tuple[str, str]], limit: int = SUBJECT_MAX) -> str:
    """A subject naming what changed, for a response without prose.

    ``changed`` holds (verb, path) pairs such as ("update", "src/app.py") or
    ("rename", "a -> b").  Paths of consecutive equal verbs are grouped, "a -> b" reads
    "a to b", and only the first verb is capitalised:
    ``Update src/app.py and src/b.py, add src/util.py``.  When that is longer than
    ``limit``, the first files are named and the others counted
    (``Update src/app.py, src/b.py and 5 more files``); if even one path does not fit,
    its base name is used, and as a last resort ``Change N files``.
    """
    items = [(verb.strip().lower() or "change", path.replace(" -> ", " to ")) for verb, path in changed]
    if not items:
        return _first_that_fits(("Apply AI response", "Apply"), limit)
    full = _render_changes(items, len(items))
    if len(full) <= limit:
        return full
    for shown in range(len(items) - 1, 0, -1):
        text = _render_changes(items, shown)
        if len(text) <= limit:
            return text
    short = [(verb, path.rsplit("/", 1)[-1]) for verb, path in items]
    for shown in range(len(items), 0, -1):
        text = _render_changes(short, shown)
        if len(text) <= limit:
            return text
    count = len(items)
    verbs = {v for v, _ in items}
    verb = verbs.pop().capitalize() if len(verbs) == 1 else "Change"
    return _first_that_fits((f"{verb} {count} file{'s' if count != 1 else ''}", verb), limit)


def _first_that_fits(texts: tuple[str, ...], limit: int) -> str:
    """The first of ``texts`` that fits; a limit shorter than any word gets the last
    one's first letters (aiapply.subjectLength may be set that low)."""
    for text in texts:
        if len(text) <= limit:
            return text
    return texts[-1][:limit]


def _render_changes(items: list[tuple[str, str]], shown: int) -> str:
    groups: list[tuple[str, list[str]]] = []
    for verb, path in items[:shown]:
        if groups and groups[-1][0] == verb:
            groups[-1][1].append(path)
        else:
            groups.append((verb, [path]))
    more = len(items) - shown
    phrases = []
    for verb, paths in groups:
        if more or len(paths) == 1:
            joined = ", ".join(paths)
        else:
            joined = ", ".join(paths[:-1]) + " and " + paths[-1]
        phrases.append(f"{verb} {joined}")
    text = ", ".join(phrases)
    if more:
        text += f" and {more} more file{'s' if more != 1 else ''}"
    return text[:1].upper() + text[1:]
