"""The command line: the console script's entry point, start-up, click's command tree and
one module per subcommand (``commands/``), each a thin layer over the stages below.

- ``main``: the entry point (a plain apply skips click); ``startup``: importing pygit2
  cheaply; ``app``: the click commands; ``commands/``: one module per subcommand.

Nothing below imports the command line (the package's ``__main__`` runs ``main``);
nothing is imported here.
"""

OPEN_MODULES = ("main",)
