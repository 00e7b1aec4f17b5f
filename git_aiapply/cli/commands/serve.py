"""`git ai-apply serve`: JSON lines in, one --json object per line out (serve.py holds the
protocol; docs/API.md).  main.py runs the bare `git ai-apply serve` without click."""
import click


@click.command("serve")
def command():
    """Apply responses read as JSON lines on standard input, warm.

    Each line is {"response": TEXT, "options": {...}} or {"path": FILE, "options": {...}}
    (options: those of the library, docs/API.md); each gets one --json object per line
    on standard output, in order.  End of input stops the server.
    """
    from ...doors.serve import run_server

    run_server()
