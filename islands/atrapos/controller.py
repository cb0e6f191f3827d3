"""The adaptive monitoring interval of paper 002 Sec V-D, as a pure object.

ATraPos measures throughput over an interval that starts at 1 s. After each interval it
compares the interval's throughput with the mean of the previous (up to) 5 measurements:

- within 10%: the workload looks stable, the interval doubles (up to 8 s) and the model is
  not evaluated;
- otherwise (and after the very first interval, when there is nothing to compare with: the
  engine starts on the naive scheme, paper 002 Sec IV): the model is evaluated; the caller
  then reports whether it repartitioned. A repartitioning resets the interval to 1 s and
  forgets the measurements (the throughput after it belongs to a new scheme): the first
  interval after it only starts the new history. An evaluation that changes nothing keeps
  the interval, unless the caller asks for a recheck (a plan waiting for confirmation: the
  next interval is the shortest and ends with an evaluation).

:class:`IntervalController` holds that state; it never reads a clock, so tests drive it with
scripted series and the engine's monitor thread with real measurements.
:func:`replay` runs it over a per-second throughput series (a timeline) with a given
evaluation rule, which both tests and the Fig 13 plot use.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Check", "IntervalController", "replay"]


@dataclass(frozen=True)
class Check:
    """One end of an interval: when (``at_s``, seconds from the start), how long the interval
    was, the throughput measured over it, whether the model was evaluated, whether that
    repartitioned, and the next interval's length."""

    at_s: float
    interval_s: float
    tps: float
    evaluated: bool
    repartitioned: bool
    next_interval_s: float


class IntervalController:
    """The interval logic (see the module docstring). ``observe(tps)`` after each interval
    says whether to evaluate the model; when it does, ``evaluated(repartitioned)`` must
    follow before the next ``observe``."""

    def __init__(
        self, min_interval_s: float = 1.0, max_interval_s: float = 8.0, history: int = 5, tolerance: float = 0.10
    ) -> None:
        if not 0 < min_interval_s <= max_interval_s:
            raise ValueError(f"intervals: need 0 < min ({min_interval_s}) <= max ({max_interval_s})")
        if history < 1:
            raise ValueError(f"history: {history} must be at least 1")
        if not 0 <= tolerance < 1:
            raise ValueError(f"tolerance: {tolerance} must be in [0, 1)")
        self.min_interval_s = float(min_interval_s)
        self.max_interval_s = float(max_interval_s)
        self.tolerance = float(tolerance)
        self._history: deque[float] = deque(maxlen=history)
        self._interval_s = self.min_interval_s
        self._pending = False
        self._seed_only = False
        self._recheck = False

    @property
    def interval_s(self) -> float:
        """The length of the interval now being measured."""
        return self._interval_s

    @property
    def history(self) -> tuple[float, ...]:
        """The measurements compared with, oldest first."""
        return tuple(self._history)

    def is_stable(self, tps: float) -> bool:
        """Whether ``tps`` is within the tolerance of the mean of the remembered measurements
        (``False`` with none remembered)."""
        if not self._history:
            return False
        mean = float(np.mean(self._history))
        return abs(tps - mean) <= self.tolerance * abs(mean)

    def observe(self, tps: float, force: bool = False) -> bool:
        """Record the throughput of the interval that just ended; return whether to evaluate
        the model now (always with ``force``: the hardware changed). Raises ``ValueError``
        for a negative or non-finite throughput and ``RuntimeError`` when the previous
        evaluation was not reported."""
        if self._pending:
            raise RuntimeError("observe: the last evaluation's outcome was not reported (call evaluated())")
        if not (np.isfinite(tps) and tps >= 0):
            raise ValueError(f"tps: {tps} is not a non-negative throughput")
        force = force or self._recheck
        self._recheck = False
        if self._seed_only and not force:
            self._seed_only = False
            self._history.append(float(tps))
            return False
        self._seed_only = False
        stable = self.is_stable(tps) and not force
        self._history.append(float(tps))
        if stable:
            self._interval_s = min(2 * self._interval_s, self.max_interval_s)
            return False
        self._pending = True
        return True

    def evaluated(self, repartitioned: bool) -> None:
        """Report the outcome of the evaluation ``observe`` asked for."""
        if not self._pending:
            raise RuntimeError("evaluated: observe() did not ask for an evaluation")
        self._pending = False
        if repartitioned:
            self._interval_s = self.min_interval_s
            self._history.clear()
            self._seed_only = True

    def recheck(self) -> None:
        """After an evaluation that did not repartition: the next interval is the shortest and
        ends with an evaluation whatever its throughput (a plan waiting for confirmation)."""
        if self._pending:
            raise RuntimeError("recheck: the last evaluation's outcome was not reported (call evaluated())")
        self._interval_s = self.min_interval_s
        self._recheck = True


def replay(
    tps_per_s: Sequence[float],
    decide: Callable[[float], bool],
    controller: IntervalController | None = None,
    step_s: float = 1.0,
) -> list[Check]:
    """Run ``controller`` (a fresh default one if none) over a throughput series sampled every
    ``step_s`` seconds: each interval's throughput is the mean of the samples it covers, and
    ``decide(at_s)`` says whether an evaluation at ``at_s`` repartitions. Intervals are
    rounded to whole samples; the series' tail shorter than the interval is left out."""
    c = controller or IntervalController()
    series = np.asarray(tps_per_s, dtype=np.float64)
    checks: list[Check] = []
    at = 0
    while True:
        interval = c.interval_s
        n = max(1, round(interval / step_s))
        if at + n > series.size:
            break
        tps = float(series[at : at + n].mean())
        at += n
        evaluate = c.observe(tps)
        repartitioned = False
        if evaluate:
            repartitioned = bool(decide(at * step_s))
            c.evaluated(repartitioned)
        checks.append(Check(at * step_s, interval, tps, evaluate, repartitioned, c.interval_s))
    return checks
