"""Adaptation time (issue 17's note, paper 002 Sec VI-D): seconds from a change (workload,
skew, cores) until throughput is back within 10% of the new steady state and stays there.

The new steady state is the median throughput over the last ``tail`` share of the phase (from
the change to the next one, or the end of the run). Pure functions of a per-interval
throughput series (``RunResult.timeline_tps``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["adaptation_time", "steady_state"]


def _phase(tps: Sequence[float], interval_s: float, start_s: float, end_s: float | None) -> tuple[np.ndarray, int]:
    if interval_s <= 0:
        raise ValueError(f"interval_s: {interval_s} must be positive")
    series = np.asarray(tps, dtype=np.float64)
    first = int(math.ceil(start_s / interval_s - 1e-9))
    last = series.size if end_s is None else min(series.size, int(math.floor(end_s / interval_s + 1e-9)))
    if last == series.size and last - first > 1:
        # The run's final interval is left out: it is not the window's last stretch alone.
        # The engine's stop does not end the workers' counting: commits a worker finishes
        # after the window closed (its pipeline and the actions it still serves, drained as it
        # shuts down) go into intervals past the window's end, which throughput_timeline folds
        # into the last one so that the intervals add up to the run's commits (seen on this
        # loaded machine: a 2 s window whose workers counted 65 intervals of 0.1 s); a last
        # interval shorter than a whole one is kept when it is 5% of one or more; and each
        # worker counts its intervals from when it saw the window open, so one that saw it
        # late (descheduled, parked) has its last interval cut short by the stop. Its rate can
        # be above or below the steady state for reasons that are not the adaptation's.
        last -= 1
    if not 0 <= first < last:
        raise ValueError(f"phase [{start_s}, {end_s}) s: no whole interval of the {series.size} in the series")
    return series[first:last], first


def steady_state(
    tps: Sequence[float], interval_s: float, start_s: float, end_s: float | None = None, tail: float = 0.3
) -> float:
    """The median throughput of the last ``tail`` share of the phase ``[start_s, end_s)``."""
    if not 0 < tail <= 1:
        raise ValueError(f"tail: {tail} must be in (0, 1]")
    phase, _ = _phase(tps, interval_s, start_s, end_s)
    n = max(1, int(round(tail * phase.size)))
    return float(np.median(phase[-n:]))


def adaptation_time(
    tps: Sequence[float],
    interval_s: float,
    change_s: float,
    end_s: float | None = None,
    tolerance: float = 0.10,
    tail: float = 0.3,
) -> float:
    """Seconds from ``change_s`` to the start of the first interval from which every interval
    of the phase ``[change_s, end_s)`` is within ``tolerance`` of the phase's steady state
    (0 when the first whole interval after the change already is; NaN when the steady state
    is 0). Its resolution is one interval. A phase that runs to the end of the series leaves
    the run's final interval out (see ``_phase``: it overlaps the stop)."""
    phase, first = _phase(tps, interval_s, change_s, end_s)
    steady = steady_state(tps, interval_s, change_s, end_s, tail)
    if steady <= 0:
        return math.nan
    inside = np.abs(phase - steady) <= tolerance * steady
    outside = np.flatnonzero(~inside)
    settled = 0 if outside.size == 0 else int(outside[-1]) + 1
    return max(0.0, (first + settled) * interval_s - change_s)
