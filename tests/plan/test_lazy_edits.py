"""Placeholders inside an edit merged (plan/lazy_edits.merged_edits, BEHAVIOR.md §5 "Lazy
edits", issue 31 item 3): a REPLACE side, a hunk's ``+`` lines, an apply-patch chunk or a
``str_replace`` new string that holds placeholders is merged into its own old side, which
then applies as usual; when that merge is not exact, the placeholder check refuses as
before.  Through the parser and the planner, in every format an edit arrives in."""
from __future__ import annotations

import json

import pytest
from hypothesis import given, settings, strategies as st

from git_aiapply.errors import ApplyError
from git_aiapply.answer.response import read_response
from git_aiapply.answer.toolcalls import parse_with_tools
from git_aiapply.paths import normalize_path
from git_aiapply.plan.plan import make_plan

from plan_base import DictBase

APP = """import os


def load(path):
    with open(path) as f:
        return f.read()


def save(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    print(load("x"))
"""
WANT = APP.replace('print(load("x"))', 'print(len(load("x")))')


def planned(text: str, files: dict | None = None) -> str:
    files = files or {"app.py": APP}
    ops = parse_with_tools(read_response(text.encode(), "r.md")).ops
    base = DictBase({p: (0o100644, t.encode()) for p, t in files.items()})
    plan = make_plan(ops, base, lambda p: normalize_path(p, worktree="/w"))
    return plan.final["app.py"].data.decode()


SEARCH_REPLACE = '''app.py
```python
<<<<<<< SEARCH
def save(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    print(load("x"))
=======
# ... remaining functions ...

def main():
    print(len(load("x")))
>>>>>>> REPLACE
```
'''
UNIFIED = '''```diff
--- a/app.py
+++ b/app.py
@@ -1,15 +1,7 @@
 import os
 
-
-def load(path):
-    with open(path) as f:
-        return f.read()
-
-
-def save(path, text):
-    with open(path, "w") as f:
-        f.write(text)
+# ... existing code ...
 
 
 def main():
-    print(load("x"))
+    print(len(load("x")))
```
'''
APPLY_PATCH = '''*** Begin Patch
*** Update File: app.py
@@
-def save(path, text):
-    with open(path, "w") as f:
-        f.write(text)
+def save(path, text):
+    # ... body unchanged ...
 
 
 def main():
-    print(load("x"))
+    print(len(load("x")))
*** End Patch
'''
CODECHANGE = '''<CodeChange filePath="app.py">
<<<<<<< SEARCH
def load(path):
    with open(path) as f:
        return f.read()


def save(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    print(load("x"))
=======
def load(path):
    # ... existing code ...

# ... existing code ...

def main():
    print(len(load("x")))
>>>>>>> REPLACE
</CodeChange>
'''
STR_REPLACE = json.dumps({"type": "message", "role": "assistant", "model": "m",
                          "stop_reason": "tool_use", "content": [{
                              "type": "tool_use", "id": "t1", "name": "Edit", "input": {
                                  "file_path": "app.py",
                                  "old_string": 'def save(path, text):\n    with open(path, "w") '
                                                'as f:\n        f.write(text)\n\n\ndef main():\n'
                                                '    print(load("x"))\n',
                                  "new_string": '# ... existing code ...\n\n\ndef main():\n'
                                                '    print(len(load("x")))\n'}}]})


@pytest.mark.parametrize("text", [SEARCH_REPLACE, UNIFIED, APPLY_PATCH, CODECHANGE, STR_REPLACE],
                         ids=["search-replace", "unified-diff", "apply-patch", "codechange",
                              "claude-code-edit"])
def test_placeholders_in_an_edit_keep_the_lines_they_stand_for(text):
    assert planned(text) == WANT


def test_a_diff_line_removed_for_new_code_is_never_kept_by_a_placeholder():
    """A diff's ``-`` lines are the model's own: ``-print(a)`` ``+print(b)`` ``+# ... rest
    ...`` says print(a) goes, while the note, merged, would keep it: refused as before
    (a SEARCH/REPLACE's old side is no such statement: its REPLACE is a snippet of it)."""
    text = UNIFIED.split("@@ -1,15 +1,7 @@")[0]
    text += ('@@ -14,2 +14,3 @@\n def main():\n-    print(load("x"))\n'
             '+    print(len(load("x")))\n+    # ... rest of main ...\n```\n')
    with pytest.raises(ApplyError, match="placeholder"):
        planned(text)


def test_an_edit_of_only_anchors_and_placeholders_is_refused_not_a_no_op():
    text = SEARCH_REPLACE.replace('    print(len(load("x")))', '    print(load("x"))')
    with pytest.raises(ApplyError, match="placeholder"):
        planned(text)


def test_a_note_the_old_side_holds_is_content_not_a_placeholder():
    files = {"app.py": APP.replace("def main():", "# ... existing code ...\ndef main():")}
    text = ('app.py\n```\n<<<<<<< SEARCH\n# ... existing code ...\ndef main():\n=======\n'
            '# ... existing code ...\ndef main():\n    """Run."""\n>>>>>>> REPLACE\n```\n')
    assert '    """Run."""' in planned(text, files)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["a()", "b = 2", "c.d(e)", "print(f)", "g += 1"]),
                min_size=1, max_size=6, unique=True),
       st.booleans())
def test_a_line_added_under_a_placeholder_lands_after_the_body_it_keeps(body, note_first):
    """A function's body left out by a note, one new line written before or after it: the
    result is the body kept whole with the new line at that end, whatever the body."""
    func = ["def run():"] + [f"    {b}" for b in body]
    files = {"app.py": "\n".join(func) + "\n\n\ndef other():\n    pass\n"}
    new = ["    # ... existing code ...", "    added()"]
    new = new if note_first else new[::-1]
    text = ("app.py\n```\n<<<<<<< SEARCH\n" + "\n".join(func) + "\n=======\ndef run():\n"
            + "\n".join(new) + "\n>>>>>>> REPLACE\n```\n")
    out = planned(text, files)
    want = func + ["    added()"] if note_first else func[:1] + ["    added()"] + func[1:]
    assert out == "\n".join(want) + "\n\n\ndef other():\n    pass\n"


def test_a_snippet_read_from_the_text_over_a_file_that_is_gone_is_refused_not_written():
    """A path + fence read as a tracked file's snippet, after an earlier change of the
    response deleted that file: nothing to merge into, so never written as a new file
    holding its placeholders (a tool call's snippet for a new path is the new file)."""
    from git_aiapply.ops import DeleteFile, NewFile, Source

    src = Source("whole", "lazy snippet of app.py")
    ops = [DeleteFile("app.py", src),
           NewFile("app.py", "x()\n# ... existing code ...\n", src, says_new=False, lazy=True)]
    base = DictBase({"app.py": (0o100644, APP.encode())})
    with pytest.raises(ApplyError, match="no such file to merge it into"):
        make_plan(ops, base, lambda p: normalize_path(p, worktree="/w"))
