"""How steady one run's throughput was: the within-run drift and whether (and from when) the
throughput timeline reached a steady state. Pure functions of the timeline a run returns
(``timeline.tps``: committed transactions per second in each interval of
``config.driver.timeline_interval_s``); the sweep stores :func:`timeline_noise` under
``noise.*`` in every row.

- ``timeline_cv``: coefficient of variation (sd / mean) of the full intervals (the last one
  may be short and is left out): the within-run noise a user sees as a jagged timeline.
- ``drift``: median of the last third over the median of the first third, minus 1: a trend
  across the window (warming caches, a log filling up, a neighbour starting).
- ``steady_from_s``: where the steady state starts: the first interval from which the rest of
  the window shows no trend (its first third's median within :data:`STEADY_TOLERANCE` of the
  rest's median, and that first interval within 1.5 times the tolerance), searched up to
  :data:`STEADY_CAP` of the window; NaN with ``steady`` false when it never settles within
  the cap (the run never reached a steady state: its throughput is an average over a
  transient). ``steady_tps``: the mean rate from there on,
  what the run would have measured had its warm-up ended when the timeline became stable;
  where it never did, the rate from the cap on (the warm-up ended at the cap, reported by
  ``steady`` false).

The engine's warm-up is a fixed number of seconds before the window opens (the driver runs
it in C++); ending the warm-up itself at stability needs the driver to watch its own
timeline. Until then, the steady part of the measured window is found afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
# numpy is imported where it is used: every instance process imports this module (through the
# run's result), and numpy's import was about half of an instance's start-up (~0.1 s of CPU).

__all__ = ["MIN_INTERVALS", "STEADY_CAP", "STEADY_TOLERANCE", "steady_start", "timeline_noise"]

#: The first third of the rest of the window within this share of the rest's median: steady.
STEADY_TOLERANCE = 0.10
#: The steady state is searched for in this share of the window at most (the cap, reported).
STEADY_CAP = 0.5
#: Fewer full intervals than this tell nothing about steadiness.
MIN_INTERVALS = 6


def _full(tps: Sequence[float]) -> np.ndarray:
    import numpy as np

    a = np.asarray([float(v) for v in tps], dtype=float)
    return a[:-1] if len(a) > 1 else a  # the last interval may be short


def steady_start(tps: Sequence[float], tolerance: float = STEADY_TOLERANCE, cap: float = STEADY_CAP) -> int | None:
    """The index of the first interval from which the timeline is steady (see the module
    docstring), or None when it is not within the first ``cap`` of the intervals, or there are
    fewer than :data:`MIN_INTERVALS` full intervals."""
    import numpy as np

    a = _full(tps)
    n = len(a)
    if n < MIN_INTERVALS or not np.isfinite(a).all():
        return None
    for i in range(int(n * cap) + 1):
        rest = a[i:]
        if len(rest) < MIN_INTERVALS // 2 * 2:
            break
        centre = float(np.median(rest))
        if centre <= 0:
            continue
        head = rest[: max(2, len(rest) // 3)]
        # no trend left (the head's median is the rest's), and the first interval is not
        # still on its way up or down
        if (
            abs(float(np.median(head)) - centre) <= tolerance * centre
            and abs(rest[0] - centre) < 1.5 * tolerance * centre
        ):
            return i
    return None


def timeline_noise(tps: Sequence[float], interval_s: float) -> dict[str, float | bool | None]:
    """``timeline_cv``, ``drift``, ``steady``, ``steady_from_s`` and ``steady_tps`` of a run's
    timeline (NaN where the timeline is too short to say, fewer than :data:`MIN_INTERVALS`
    full intervals; ``steady`` is then None: not known, which is not "never steady")."""
    import numpy as np

    nan = math.nan
    a = _full(tps)
    if len(a) < MIN_INTERVALS or not np.isfinite(a).all() or float(a.mean()) <= 0:
        return {"timeline_cv": nan, "drift": nan, "steady": None, "steady_from_s": nan, "steady_tps": nan}
    third = max(1, len(a) // 3)
    first, last = float(np.median(a[:third])), float(np.median(a[-third:]))
    start = steady_start(tps)
    return {
        "timeline_cv": float(a.std(ddof=1) / a.mean()),
        "drift": last / first - 1 if first > 0 else nan,
        "steady": start is not None,
        "steady_from_s": start * interval_s if start is not None else nan,
        "steady_tps": float(a[start if start is not None else int(len(a) * STEADY_CAP) :].mean()),
    }
