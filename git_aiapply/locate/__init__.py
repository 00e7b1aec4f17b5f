"""Locating: where each edit of a file goes, and what its added lines become (the matching
tiers, anchors, the indentation and style an edit takes on), as pure functions of text.

- ``locate``: an edit's candidate places and a file's edits applied at once;
  ``matching``: the tiers and the line index; ``corrections``: what a loose tier
  tolerated, corrected in the added lines; ``placer``: one place among the candidates;
- ``anchors``: apply-patch ``@@`` anchors; ``add_only``: add-only edits with no context;
- ``code_style``: the file's conventions added lines take on;
- ``divider_readings``: SEARCH/REPLACE blocks whose divider is ambiguous;
  ``builds_on``: a later edit that searches for what an earlier one wrote (applied in
  turn, or refused as ambiguous when the file holds the same lines unchanged elsewhere);
- ``hashline``: ``LINE#ID`` edits; ``text_edits``: ``str_replace`` / ``insert`` on a text;
- ``edit_report``: where each edit landed, for ``-v`` and ``--json``.

Other stages import the modules named in ``OPEN_MODULES``; nothing is imported here.
"""

OPEN_MODULES = ("builds_on", "divider_readings", "edit_report", "hashline", "locate",
                "matching", "placer", "text_edits")
