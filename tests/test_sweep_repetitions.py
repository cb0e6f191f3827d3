"""Repetitions a sweep can be trusted with: interleaved over the points (also across an
interrupt and a resume), the machine's state recorded with every row, a warning when other
processes kept the machine busy, and one progress line per run when not on a terminal."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from islands.experiments.sweep import Point, Sweep, load_spec
from islands.machine.topology import read_topology
from islands.measure.system_state import SystemProbe, busy_warning
from tiny_spec import tiny

TINY = tiny(repetitions=3)
ONCE = tiny(repetitions=1)  # the four points once each


def tiny(tmp_path: Path, out: str = "out", text: str = TINY) -> Sweep:
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return Sweep(load_spec(path), read_topology(), tmp_path / out)


class Recorder:
    """A runner that records the order of its calls; interrupts on the n-th call if asked."""

    def __init__(self, interrupt_on: int | None = None, sleep_s: float = 0.0) -> None:
        self.calls: list[Point] = []
        self.interrupt_on = interrupt_on
        self.sleep_s = sleep_s

    def __call__(self, point: Point) -> dict[str, Any]:
        self.calls.append(point)
        if self.interrupt_on is not None and len(self.calls) == self.interrupt_on:
            raise KeyboardInterrupt
        if self.sleep_s:
            time.sleep(self.sleep_s)
        return {"throughput_tps": 1000.0 * (1 + point.index) + point.repetition}


def test_repetitions_are_interleaved_round_robin_across_a_resume(tmp_path: Path) -> None:
    first = Recorder(interrupt_on=6)
    with pytest.raises(KeyboardInterrupt):
        tiny(tmp_path).run(first, progress=False)
    second = Recorder()
    assert tiny(tmp_path).run(second, progress=False).ran == 7
    order = [(p.index, p.repetition) for p in first.calls[:-1] + second.calls]
    # every point once, then every point again, backwards (so that a drift during a pass
    # favours no point: each pair of points runs in both orders), and so on
    assert order == [(i if r % 2 == 0 else 3 - i, r) for r in range(3) for i in range(4)]
    assert [(p.index, p.repetition) for p in second.calls][0] == (2, 1)  # resumes where it stopped
    rows = tiny(tmp_path).store.rows()
    assert list(zip(rows["point_index"], rows["repetition"])) == order


def test_rows_record_the_machine_state(tmp_path: Path) -> None:
    tiny(tmp_path).run(Recorder(), progress=False)
    store = tiny(tmp_path).store
    assert len(store.parts()) == 12  # one part file per run, none rewritten
    rows = store.rows()
    for column in (
        "system.load_avg_1m",
        "system.procs_running",
        "system.cpu_mhz",
        "system.cpu_governor",
        "system.virtualization",
        "system.other_cpu_share",
        "system.other_busy_processes",
        "system.busy",
    ):
        assert column in rows.columns, column
    assert (rows["system.load_avg_1m"] >= 0).all()
    assert (rows["system.other_cpu_share"] >= 0).all()
    assert rows["system.busy"].dtype == bool


@pytest.fixture
def spinner() -> Any:
    """A process spinning on a CPU that is not a child of this one (the shell that started it
    has exited), as another user's job would be; killed by its pid afterwards."""
    out = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -c "while True: pass" >/dev/null 2>&1 & echo $!'],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(out.stdout.strip())
    time.sleep(0.2)
    yield pid
    os.kill(pid, signal.SIGKILL)


def test_a_busy_machine_is_recorded_and_warned_about(
    tmp_path: Path, spinner: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each run's window 0.2 s, twenty clock ticks of the spinner's: four runs, not twelve of 0.4 s.
    outcome = tiny(tmp_path, text=ONCE).run(Recorder(sleep_s=0.2), progress=False)
    err = capsys.readouterr().err
    rows = tiny(tmp_path, text=ONCE).store.rows()
    assert rows["system.busy"].all()
    # the spinner alone uses a whole CPU of the machine's os.cpu_count() for the whole run
    assert (rows["system.other_cpu_share"] >= 0.5 / (os.cpu_count() or 1)).all()
    assert (rows["system.other_busy_processes"] >= 1).all()
    warnings = [line for line in err.splitlines() if line.startswith("warning: the machine was busy")]
    assert len(warnings) == 1 and "during 4 of 4 runs" in warnings[0]
    assert outcome.warnings == (warnings[0],)


def test_the_probe_leaves_out_this_process() -> None:
    probe = SystemProbe()
    probe.start()
    end = time.monotonic() + 0.3
    while time.monotonic() < end:  # this process spins: not "another" process
        pass
    state = probe.stop()
    assert str(os.getpid()) not in (state["top_processes"] or "")


def test_a_window_shorter_than_a_clock_tick_reads_no_impossible_share(spinner: int) -> None:
    """CPU times advance in clock ticks: a window of a millisecond must not read a spinning
    process's tick as thousands of percent of the machine."""
    for _ in range(20):
        probe = SystemProbe()
        probe.start()
        state = probe.stop()
        assert 0.0 <= state["other_cpu_share"] <= 1.0
        assert state["busiest_other_cpu"] <= (os.cpu_count() or 1)


def test_busy_warning_wording() -> None:
    assert busy_warning([{"busy": False, "other_cpu_share": 0.01}]) is None
    line = busy_warning(
        [
            {"busy": False, "other_cpu_share": 0.0},
            {"busy": True, "other_cpu_share": 0.42, "top_processes": "cc1plus[77] 84%"},
        ]
    )
    assert line == (
        "warning: the machine was busy during 1 of 2 runs: other processes used up to 42% of its CPU time "
        "(cc1plus[77] 84%); those rows have system.busy = true and may be slow"
    )


def test_one_progress_line_per_run_when_not_on_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny(tmp_path).run(Recorder(), progress=None)  # capsys: stderr is not a terminal
    captured = capsys.readouterr()
    assert captured.out == ""  # stdout stays free for the command's own output (JSON)
    lines = [line for line in captured.err.splitlines() if not line.startswith("warning: the machine was busy")]
    assert len(lines) == 12
    pattern = re.compile(r"^\[(\d+)/12\] 1ISL unix update=(true|false) multisite=0(\.5)? rep (\d): ([\d.]+) K txn/s, ")
    for n, line in enumerate(lines, 1):
        m = pattern.match(line)
        assert m, line
        assert int(m.group(1)) == n and int(m.group(4)) == (n - 1) // 4
        assert re.search(r"; eta \d+ s", line), line
    assert lines[0].split(": ")[1].startswith("1.0 K txn/s") and lines[3].split(": ")[1].startswith("4.0 K txn/s")


def test_no_progress_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny(tmp_path).run(Recorder(), progress=False)
    captured = capsys.readouterr()
    assert captured.out == "" and not [line for line in captured.err.splitlines() if line.startswith("[")]
