"""`git ai-apply batch JOBS`: many responses, each onto its own branch, one result line
each (doors/batch_run.py; docs/BATCH.md)."""
from __future__ import annotations

import sys

import click


@click.command("batch")
@click.argument("jobs", type=click.Path(allow_dash=True, dir_okay=False))
@click.option("-j", "--jobs", "workers", type=int, default=None, metavar="N",
              help="Run N workers on this machine (default: one per core; 1: the "
                   "jobs in the file's order).")
@click.option("-o", "--out", default=None, metavar="FILE",
              help="Write the result lines to FILE (default: standard output).")
@click.option("--resume", is_flag=True,
              help="Keep the results already in --out FILE whose branch still holds their "
                   "commit; run the other jobs, adding their lines.")
@click.option("--ray", is_flag=False, flag_value="", default=None, metavar="[ADDRESS]",
              help="Run the jobs as Ray tasks, grouped by repository: on the cluster at "
                   "ADDRESS, or a local one (needs the ray extra).")
@click.option("--push", default=None, metavar="REMOTE",
              help="With --ray: push each job's branch to REMOTE.")
def command(jobs, workers, out, resume, ray, push):
    """Apply every job of JOBS (JSON Lines, or - for standard input): each response onto
    its base as a commit on its own branch, without touching the worktree, the index or
    HEAD; one result line per job as it finishes (the --json object with id, branch and
    diff).  Exit 0 when every job has its result, 2 on a usage error, 128 when the
    environment stops the batch, 130 on Ctrl-C (--resume continues)."""
    from ...doors.batch_run import run_batch

    sys.exit(run_batch(jobs, out=out, workers=workers, resume=resume, ray=ray, push=push))
