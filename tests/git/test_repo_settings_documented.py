"""Every `aiapply.*` setting the code reads is documented in the README and the manual page
(issue 35: aiapply.threeWay, .threeWayDepth and .testCommand were read and not documented).

The settings are found by structure, not by a list: the calls to the repository's config
readers (``Repo.config_get`` / ``config_bool`` / ``config_int`` / ``config_choice``) with
a literal key, the calls to a function that hands one of its parameters to such a reader
as the key (prepare.py's ``_setting``), and the hook kit's ``git config --get KEY``."""
from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "git_aiapply"
READERS = {"config_get", "config_bool", "config_int", "config_choice"}
OWN = re.compile(r"aiapply\.[A-Za-z]+$")


def _name(call: ast.Call) -> str | None:
    f = call.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None


def _wrappers(trees) -> dict[str, tuple[int, str]]:
    """Functions that pass a parameter to a reader as its key: name -> (position, name)."""
    out = {}
    for tree in trees:
        for fn in ast.walk(tree):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
            for call in ast.walk(fn):
                if isinstance(call, ast.Call) and _name(call) in READERS and call.args \
                        and isinstance(call.args[0], ast.Name) and call.args[0].id in params:
                    out[fn.name] = (params.index(call.args[0].id), call.args[0].id)
    return out


def _key_given(call: ast.Call, where: tuple[int, str]) -> ast.expr | None:
    position, name = where
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == name), None)


@functools.cache  # the package read once for both tests (a worker runs them one after another)
def settings_read() -> frozenset[str]:
    trees = [ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))]
    wrappers = _wrappers(trees) | {r: (0, "key") for r in READERS}
    keys = set()
    for tree in trees:
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and _name(call) in wrappers:
                key = _key_given(call, wrappers[_name(call)])
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    keys.add(key.value)
    for hook in (ROOT / "hooks").iterdir():
        keys.update(re.findall(r"git config --get (\S+)\)", hook.read_text()))
    return frozenset(k for k in keys if OWN.match(k))


def test_the_finder_sees_the_settings_it_must():
    found = settings_read()
    # read directly, through prepare._setting, and by the hook kit's shell
    assert {"aiapply.format", "aiapply.threeWay", "aiapply.includeDirty",
            "aiapply.threeWayDepth", "aiapply.testCommand"} <= found, found


def test_every_setting_the_code_reads_is_in_the_readme_and_the_manual():
    readme = (ROOT / "README.md").read_text()
    manual = (ROOT / "docs" / "git-ai-apply.1").read_text()
    missing = [(key, where) for key in sorted(settings_read())
               for where, text, shown in (("README.md", readme, f"`{key}`"),
                                          ("git-ai-apply.1", manual, f"\\fB{key}\\fR"))
               if shown not in text]
    assert missing == []
