"""One run: a request prepared the same way for every front door, then one response taken
from its text to its commit (parse, plan, verify, commit) and reported as one outcome.

- ``prepare``: the one preparation of a request (options, identity, the journal check);
- ``options``: the apply command's options, declared once; ``limits``: ``-p``,
  ``--directory``, ``--include`` / ``--exclude`` over the operations;
- ``inputs``: the responses a command line names; ``pipeline``: one response, start to
  finish; ``suggest``: the fix a refusal can name (retry with -3, already applied,
  ``--format whole``); ``diffstat``: what a change did, printed as git prints it; ``term``: printing
  to the terminal as git does (the command line and the workflows report through it).

Other stages import the modules named in ``OPEN_MODULES``; nothing is imported here.
"""

OPEN_MODULES = ("diffstat", "inputs", "limits", "options", "pipeline", "prepare", "term")
