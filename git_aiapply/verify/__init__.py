"""Verifying: checks of meaning on what an edit or a planned result says (placeholders
standing for left-out code, a response already applied), asked before anything is written.

- ``syntax``: a planned file the response leaves unparsable (grammar/);
- ``placeholder_edits``: the edits that write a placeholder, judged by the file's grammar
  (structure) where it has one; ``placeholders``: the text rules (a note's words);
- ``already``: whether the files still hold what a response did.

Other stages import them; nothing is imported here.
"""

OPEN_MODULES = ("already", "placeholder_edits", "placeholders", "syntax")
