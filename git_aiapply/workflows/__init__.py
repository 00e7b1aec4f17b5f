"""Workflows: what users do around single runs: attempts on branches (and pick), undo,
recover after an interrupted run, the hook kit, the demo and the format prompts.

- ``attempts``: many candidate answers, one branch each; ``undo_last``: take back the last
  commit; ``recover``: repair an interrupted run;
- ``hook_kit``: ``install-hooks`` and the hooks' checks; ``demo``: the scratch-repository
  tour; ``prompts``: a format's instructions for a system prompt.

The command line and the front doors import them; nothing is imported here.
"""

OPEN_MODULES = ("attempts", "demo", "hook_kit", "prompts", "recover", "undo_last")
