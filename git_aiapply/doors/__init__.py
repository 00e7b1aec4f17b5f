"""The front doors for programs: the library (``git_aiapply.apply`` and ``Session``),
``serve`` (JSON lines) and ``mcp`` (Model Context Protocol), all through ``run``.

- ``api``: the library (its argument types are the package's face: ``git_aiapply.api_types``;
  its results, views of the ``--json`` objects, are in ``results``);
  ``warm_index``: the index a Session keeps warm between requests;
- ``serve``: JSON lines in, ``--json`` objects out; ``mcp_server``: the MCP server;
- ``batch``: many jobs, each onto its own branch (``batch_jobs`` reads them,
  ``batch_run`` is the command's run: output, resume, progress; ``batch_ray`` runs the
  jobs as Ray tasks, ``--ray``; docs/BATCH.md).

The command line imports them (and the package's face the library); nothing is imported
here.
"""

OPEN_MODULES = ("api", "batch", "batch_run", "mcp_server", "serve")
