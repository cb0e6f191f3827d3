"""Warm-up until the throughput is steady (issue 30, item 4), the default way a run is
measured by ``islands run`` and by sweeps (``run.steady_warmup``, default true).

The engine runs ``driver.warmup_s`` of warm-up (a short minimum: the first transactions,
the instances' start) and then its window of ``driver.duration_s``, recording a throughput
timeline of the window (commits per ``driver.timeline_interval_s``). The warm-up then goes
on into the window until the timeline is steady (:func:`islands.measure.run_noise.steady_start`:
no trend left from that interval on), and the run's throughput is the rate from there to the
window's end. The search stops at a cap, ``driver.warmup_s`` plus :data:`STEADY_CAP` of the
window: a run whose timeline is not steady by then is measured from the cap on and marked
``steady`` false, and the words that show it say "never steady within <cap> s"
(:func:`islands.analysis.verdicts.never_steady_words`). A timeline too
short to tell (fewer than :data:`~islands.measure.run_noise.MIN_INTERVALS` intervals) leaves
the run measured over its whole window (``steady`` None).

:func:`steady_fields` is pure (the timeline in, the fields out); :func:`measure_from_steady`
applies them to a result row.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from islands.measure.run_noise import STEADY_CAP, timeline_noise

__all__ = ["STEADY_CAP", "measure_from_steady", "steady_fields"]


def steady_fields(tps: Sequence[float], interval_s: float, warmup_s: float) -> dict[str, Any]:
    """The steady measurement of one run's timeline ``tps`` (intervals of ``interval_s``,
    after ``warmup_s`` of fixed warm-up): :func:`~islands.measure.run_noise.timeline_noise`'s
    fields, plus ``warmup_end_s`` (seconds from the warm-up's start to where the measured part
    begins: where the timeline became steady, or the cap) and ``warmup_cap_s`` (the latest it
    may end: ``warmup_s`` plus :data:`STEADY_CAP` of the window). Both NaN, and ``steady``
    None, for a timeline too short to tell."""
    noise: dict[str, Any] = dict(timeline_noise(tps, interval_s))
    full = max(0, len(tps) - 1)  # the full intervals (the last one may be short)
    if noise["steady"] is None:
        return {**noise, "warmup_end_s": math.nan, "warmup_cap_s": math.nan}
    cap_s = warmup_s + int(full * STEADY_CAP) * interval_s
    start = noise["steady_from_s"] if noise["steady"] else cap_s - warmup_s
    return {**noise, "warmup_end_s": warmup_s + start, "warmup_cap_s": cap_s}


def measure_from_steady(row: dict[str, Any], warmup_s: float) -> None:
    """Measures ``row`` (a run's result as a dict: ``throughput_tps``, ``timeline``) from where
    its timeline became steady: ``noise`` gets :func:`steady_fields`; ``throughput_tps`` becomes
    the rate from there (from the cap where it never was), the whole window's kept as
    ``throughput_window_tps``, ``throughput_per_core`` scaled alike. A row whose timeline is
    too short to tell keeps its throughput (``noise.steady`` None)."""
    timeline = row.get("timeline")
    if not isinstance(timeline, Mapping) or not timeline.get("tps"):
        return
    fields = steady_fields(timeline["tps"], float(timeline.get("interval_s") or 0.1), warmup_s)
    row["noise"] = {**row.get("noise", {}), **fields}
    tps = fields["steady_tps"]
    if fields["steady"] is None or tps != tps:
        return
    whole = row.get("throughput_tps", math.nan)
    row["throughput_window_tps"] = whole
    row["throughput_tps"] = tps
    per_core = row.get("throughput_per_core")
    if isinstance(per_core, (int, float)) and isinstance(whole, (int, float)) and whole > 0:
        row["throughput_per_core"] = per_core * tps / whole
