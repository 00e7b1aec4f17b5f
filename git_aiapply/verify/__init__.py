"""Verifying: checks of meaning on what an edit or a planned result says (placeholders
standing for left-out code, a response already applied), asked before anything is written.

- ``syntax``: a planned file the response leaves unparsable (grammar/);
- ``placeholders``: lines that stand for code the model left out;
- ``already``: whether the files still hold what a response did.

Other stages import them; nothing is imported here.
"""

OPEN_MODULES = ("already", "placeholders", "syntax")
