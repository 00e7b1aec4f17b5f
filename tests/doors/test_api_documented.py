"""docs/API.md's option table names every option the library takes (issue 35: `three_way`
was taken and not documented), and nothing it does not take."""
from __future__ import annotations

import re
from pathlib import Path

from git_aiapply.doors.api import OPTION_NAMES

API_MD = Path(__file__).resolve().parents[2] / "docs" / "API.md"


def test_the_option_table_is_the_option_list():
    text = API_MD.read_text()
    table = text.split("| option | type | command line |", 1)[1].split("\n\n", 1)[0]
    documented = re.findall(r"^\s*\| `([a-z_]+)` \|", table, re.M)
    assert sorted(documented) == sorted(OPTION_NAMES)
    assert len(documented) == len(set(documented))
