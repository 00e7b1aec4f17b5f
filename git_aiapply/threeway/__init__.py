"""Three-way: answers written against an older commit (``-3``, a named base), applied at
that commit and merged into the current files.

- ``drift``: the pure part (the base an answer names, the drift rule, the merge's inputs);
- ``repo``: the same against a repository: the candidate bases and the merge;
- ``made``: whether one of the tool's commits already made an answer's change.

Other stages import them; nothing is imported here.
"""

OPEN_MODULES = ("drift", "made", "repo")
