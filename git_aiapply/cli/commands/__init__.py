"""The subcommands, one module each (imported only when used: start-up time).

Every module but ``apply`` defines ``command``, its click command; ``apply`` (the plain
`git ai-apply [OPTIONS] RESPONSE...`) holds the work of the default command and no click,
since main.py runs it without loading click.  This registry is what main.py needs to tell
a subcommand from a response file, so it stays free of imports."""

# first word on the command line -> module of this package
SUBCOMMANDS = {
    "show": "show",
    "prompt": "prompt",
    "demo": "demo",
    "install-hooks": "install_hooks",
    "hook": "hook",
    "undo": "undo",
    "attempts": "attempts",
    "pick": "pick",
    "recover": "recover",
    "serve": "serve",  # docs/API.md
    "mcp": "mcp",  # docs/API.md
    "batch": "batch",  # docs/BATCH.md
}


def load(name: str):
    """The click command of subcommand ``name``."""
    import importlib

    return importlib.import_module(f"{__name__}.{SUBCOMMANDS[name]}").command
