"""doors/batch_run.py's parts: the progress line's words and the summary table, a
results file whose last line a kill cut short, and the output that cannot be written."""
from __future__ import annotations

import pytest

from git_aiapply.doors.batch_run import Output, Tally, _clock, _cut_partial_line
from git_aiapply.errors import FatalError


def test_tally_counts_and_says_what_is_left(monkeypatch):
    tally = Tally(total=4, skipped=1, show=False)
    for status in ("applied", "already-applied", "refused", "error"):
        tally.add({"status": status})
    tally.total = 8
    label = tally.label()
    assert label.startswith("applied 2, refused 1, errors 1, ") and label.endswith(" left")
    lines = tally.summary_lines()
    assert lines[0].split() == ["STATUS", "JOBS"]
    assert ["kept", "(--resume)", "1"] in [line.split() for line in lines]
    assert lines[-2].split() == ["total", "5"] and lines[-1].startswith("4 jobs run in ")


def test_clock():
    assert (_clock(0), _clock(61.4), _clock(3725)) == ("0:00", "1:01", "1:02:05")


def test_a_line_cut_short_is_dropped_before_resuming(tmp_path):
    f = tmp_path / "out.jsonl"
    f.write_bytes(b'{"id": 1}\n{"id": 2, "sta')
    _cut_partial_line(str(f))
    assert f.read_bytes() == b'{"id": 1}\n'
    _cut_partial_line(str(tmp_path / "none"))  # nothing yet: nothing to cut
    out = Output(str(f), resume=True)
    out.write({"id": 3})
    out.close()
    assert f.read_bytes() == b'{"id": 1}\n{"id": 3}\n'


def test_an_output_that_cannot_be_written_is_fatal(tmp_path):
    with pytest.raises(FatalError, match="cannot write"):
        Output(str(tmp_path / "missing" / "out.jsonl"), resume=False)


def test_first_ctrl_c_stops_new_jobs_a_second_stops_at_once(capsys, monkeypatch):
    import os
    import signal

    from git_aiapply.doors.batch_run import Interrupts

    before = signal.getsignal(signal.SIGINT)
    told = []
    with Interrupts(lambda: told.append(1)) as interrupts:
        os.kill(os.getpid(), signal.SIGINT)
        assert interrupts.stopped and told == [1]
        os.kill(os.getpid(), signal.SIGINT)  # git passing the same Ctrl-C on: the same one
        monkeypatch.setattr(Interrupts, "SAME_PRESS", 0.0)
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # the wait is not cut short
        os.kill(os.getpid(), signal.SIGINT)
    assert signal.getsignal(signal.SIGINT) is before and told == [1]
    assert capsys.readouterr().err.count("finishing the jobs under way") == 1
