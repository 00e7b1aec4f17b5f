"""What a regular (non-editable) install ships: every subpackage of the source tree is
listed in pyproject.toml, so `pip install .` does not leave a module behind (an editable
install would hide the omission; CI's fresh install would not)."""
from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_every_subpackage_is_installed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "git_aiapply").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert on_disk, "no package found: the test looks in the wrong place"
    assert on_disk - listed == set(), "packages missing from pyproject.toml's packages list"
