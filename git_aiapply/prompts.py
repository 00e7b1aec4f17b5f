"""`git ai-apply prompt FORMAT`: instructions a model needs to answer in a format, in our
own words, for a system prompt."""
from __future__ import annotations

_COMMON = """\
Explain the change first, in plain prose: the first sentence becomes the commit subject,
so make it say what the change does (under 72 characters if you can). Then give the edits.
Paths are relative to the repository root. Every edit must match the current file
exactly; include enough unchanged lines around each edit that it matches only one place.
"""

PROMPTS = {
    "file-changes": """\
Answer with your explanation, then one <FILE_CHANGES> block holding directives:

<FILE_CHANGES>
<FILE_NEW file_path="src/config.py">
GREETING = "Hello"
</FILE_NEW>

<FILE_PATCH file_path="src/app.py">
@@
 def greet(name):
-    print("Hi " + name)
+    print(GREETING + ", " + name)
</FILE_PATCH>

<FILE_RENAME from_path="docs/NOTES.txt" to_path="docs/notes.md" />

<FILE_DELETE file_path="old_config.ini" />
</FILE_CHANGES>

- FILE_NEW gives a file's whole content (it creates the file or replaces it).
- FILE_PATCH holds unified-diff hunks without line numbers: each hunk starts with `@@`;
  lines start with a space (unchanged), `-` (removed) or `+` (added). Copy unchanged and
  removed lines exactly from the file.
- FILE_APPEND adds its content at the end of a file (creating the file when missing).
- FILE_RENAME moves a file; FILE_DELETE removes one. Directives apply in order, so a
  patch after a rename names the new path.
""",
    "hashline": """\
Files are shown to you with an id on every line, as `LINE#ID:text` (for example
`12#3f:    return x`), inside <FILE_CONTENT path="..."> blocks. Edit them by those ids.
Answer with your explanation, then:

<FILE_CHANGES>
<FILE_HASHLINE_PATCH file_path="src/app.py">
2#33:    print(GREETING + ", " + name)
<+1#6c:from config import GREETING
5#a1-7#0e:
</FILE_HASHLINE_PATCH>
</FILE_CHANGES>

Operations, one per line (line numbers and ids are those of the file as shown):
- `L#ID:text` replaces line L with text; `L1#ID-L2#ID:text` replaces lines L1 to L2.
  An empty text deletes them. Lines that follow an operation and start no operation of
  their own continue its text (several new lines).
- `>+L#ID:text` inserts text after line L; `<+L#ID:text` inserts it before line L.
  Empty text inserts a blank line.
- Copy every `L#ID` exactly as shown: an id that does not match the current line makes
  the whole answer be refused, and you get the current lines back to retry.
FILE_NEW, FILE_RENAME and FILE_DELETE directives (see the file-changes format) may be
used in the same block.
""",
    "apply-patch": """\
Answer with your explanation, then one patch:

*** Begin Patch
*** Add File: tests/test_app.py
+from app import greet
*** Update File: src/app.py
*** Move to: src/main.py
@@ def main():
-    greet("world")
+    greet(sys.argv[1])
*** Delete File: old_config.ini
*** End Patch

- Add File: every content line starts with `+`.
- Update File: chunks start with `@@`, optionally followed by a line of the file (a class
  or function header) that comes before the chunk; several `@@` lines in a row narrow
  down step by step. Lines start with a space (unchanged), `-` or `+`. `*** End of File`
  after a chunk pins it to the end of the file.
- `*** Move to:` right after `*** Update File:` renames the file.
""",
    "codechange": """\
Answer with your explanation, then one tag per file:

<CodeChange filePath="src/util.py">
<Description>Collapse repeated separators in slugify</Description>
<<<<<<< SEARCH
def slugify(text):
    return text.strip().lower().replace(" ", "-")
=======
def slugify(text):
    return "-".join(text.strip().lower().split())
>>>>>>> REPLACE
</CodeChange>

- SEARCH holds lines copied exactly from the file; REPLACE holds what replaces them.
  A tag may hold several SEARCH/REPLACE blocks.
- An empty SEARCH creates a new file whose content is the REPLACE part.
- The Description becomes part of the commit message.
""",
    "search-replace": """\
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
- Give the path before every block (a block without one edits the previous block's file).
  Several blocks may edit one file; each SEARCH must match the file as it is now.
- An empty SEARCH creates a new file whose content is the REPLACE part.
- When the content holds lines of ``` fences, fence the block with ```` instead.
""",
    "whole": """\
Answer with your explanation, then every file you change or create in full: the file's
path alone on a line, then a fenced block holding the file's whole new content:

src/config.py
```python
import os

GREETING = os.environ.get("GREETING", "Hello")
```

- Give every line of the file, unchanged ones included: the block replaces the file.
- When the content holds lines of ``` fences, fence the file with ```` instead.
- This format is used with `git ai-apply --format whole`: fenced code without a path
  line before it is taken as part of the explanation.
""",
    "unified-diff": """\
Answer with your explanation, then the change as a unified diff (as `git diff` prints it)
in a ```diff fence:

```diff
--- a/README.md
+++ b/README.md
@@ -1,3 +1,5 @@
 # Demo app
 
 A tiny program that greets people.
+
+Run it with: python src/app.py NAME
```

- `--- /dev/null` creates a file, `+++ /dev/null` deletes one; `rename from` /
  `rename to` lines (after `diff --git a/OLD b/NEW`) rename one.
- Line numbers only help to choose between equal places; the lines must match the file.
""",
}


def prompt_for(fmt: str) -> str:
    if fmt not in PROMPTS:
        raise KeyError(f"unknown format {fmt!r}; known formats: {', '.join(PROMPTS)}")
    return _COMMON + "\n" + PROMPTS[fmt]
