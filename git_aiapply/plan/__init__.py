"""Planning: the operations of one response turned into each touched file's final content,
in memory, against a snapshot of the repository (nothing here writes).

- ``plan``: the planner; ``plan_moves``: its checks of deletions and renames;
  ``put_file``: its checks of a computed state put at a path (``-3``'s merged result);
- ``gather``: a file's edits from several directives taken together; ``restated``: edits
  that restate an earlier one; ``diff_groups``: a git diff's operations applied together;
- ``whole_write``: whole-file writes; ``fragments``: a whole-file text that is only a
  stretch of the file it would replace; ``lazy_merge``: a snippet with placeholders (or a
  fragment) merged into the file it stands for; ``lazy_edits``: the writes and edits that
  reach that merge; ``missing_file`` and ``tracked_names``: which file a
  path means, and what a refusal suggests;
- ``overlay``: a snapshot with earlier responses' changes laid over it.

Other stages import ``plan`` and ``overlay``; nothing is imported here.
"""

OPEN_MODULES = ("overlay", "plan")
