"""How a sweep shows its progress: a rich progress bar with an ETA on a terminal, one line
per finished run otherwise (``make run > log 2>&1``, CI, ``nohup``), or nothing. Both go to
stderr, so that stdout stays the command's own output (a summary, or JSON for a program).

A line reads ``[3/24] 1ISL unix update=false multisite=0 rep 0: 1.23 M txn/s, 0.6 s; eta 14 s``
(``; machine busy`` appended when other processes used the CPUs meanwhile); the ETA is the
mean time of the runs made so far times the runs left.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any, Literal

from islands.analysis.tables import human_number

__all__ = ["Mode", "SweepProgress", "choose_mode"]

Mode = Literal["bar", "lines", "none"]


def choose_mode(progress: bool | str | None) -> Mode:
    """``None``: a bar when stderr is a terminal, lines otherwise; ``True`` a bar, ``False``
    nothing; ``"bar"``, ``"lines"`` or ``"none"`` as named."""
    if progress is None:
        return "bar" if sys.stderr.isatty() else "lines"
    if progress is True:
        return "bar"
    if progress is False:
        return "none"
    if progress in ("bar", "lines", "none"):
        return progress  # type: ignore[return-value]
    raise ValueError(f"progress: {progress!r} is not one of bar, lines, none")


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _tps(v: Any) -> str:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return "no throughput"
    if not math.isfinite(x):
        return "no throughput"
    return f"{human_number(x)} txn/s"


class SweepProgress:
    """The progress of one sweep (or of any series of runs: ``label`` names it on the bar):
    ``total`` runs of which ``completed`` were already done."""

    def __init__(self, mode: Mode, total: int, completed: int, label: str = "sweep") -> None:
        self.mode = mode
        self.total = total
        self.done = completed
        self.made = 0
        self.started = time.monotonic()
        self.progress: Any = None
        if mode == "bar":
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self.progress = Progress(
                TextColumn(f"[bold]{label}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                TextColumn("{task.description}", markup=False),
                console=Console(stderr=True),
            )
            self.task = self.progress.add_task("", total=total, completed=completed)

    def __enter__(self) -> SweepProgress:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def describe(self, text: str) -> None:
        """Names the run starting now (on the bar)."""
        if self.progress is not None:
            self.progress.update(self.task, description=text)

    def add_runs(self, n: int) -> None:
        """``n`` more runs to make (a round of repetitions until precision)."""
        self.total += n
        if self.progress is not None:
            self.progress.update(self.task, total=self.total)

    def eta_s(self) -> float:
        """Seconds left at the mean pace of the runs made so far (NaN before the first)."""
        if self.made == 0:
            return math.nan
        return (time.monotonic() - self.started) / self.made * (self.total - self.done)

    def finished(self, what: str, result: dict[str, Any], run_s: float, busy: bool = False) -> None:
        """One run ended: advances the bar, or prints its line."""
        self.done += 1
        self.made += 1
        if self.progress is not None:
            self.progress.advance(self.task)
        elif self.mode == "lines":
            line = (
                f"[{self.done}/{self.total}] {what}: {_tps(result.get('throughput_tps'))}, {run_s:.1f} s; "
                f"eta {_duration(self.eta_s())}"
            )
            if busy:
                line += "; machine busy"
            print(line, file=sys.stderr, flush=True)
