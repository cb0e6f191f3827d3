"""Paper 002's adaptivity figures from a sweep's rows: the runs of an experiment file with a
run-time schedule and ``grid.adaptive = [true, false]`` (:mod:`islands.schedule`), drawn
through :mod:`islands.plots.atrapos`.

Each row holds its throughput timeline (``timeline.tps``, ``timeline.interval_s``) and the
controller's log (``atrapos.*``: the events as fired, the re-partitionings). The adaptive
and the static run are drawn side by side; with several repetitions each interval is the
median of the repetitions' (cut to the shortest), and the re-partitionings and events are
the first repetition's. Each timeline is drawn in about :data:`POINTS` bins (the
adaptation time's resolution is one bin). The caption says what the machine was (virtual sockets) and that the
phases are shorter than the paper's.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

import numpy as np
import pandas as pd

from islands.plots._common import Drawing, machine_note, require
from islands.plots.atrapos import Timeline, plot_cores_removed

__all__ = ["plot_adaptivity"]

_COLUMNS = ("timeline.tps", "timeline.interval_s", "atrapos.adaptive", "atrapos.events", "atrapos.repartitions")
#: About how many points a run's timeline is drawn with (the paper's Fig 12: one per second of 60).
POINTS = 30
#: The paper's phases, for the caption: Fig 12's cores go at 20 s of 60.
_PAPER_S = {"002-fig12": (20.0, 60.0)}


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _binned(tps: np.ndarray, interval_s: float) -> tuple[np.ndarray, float]:
    """The timeline in bins of whole intervals, about :data:`POINTS` of them (the mean of
    each; a last partial bin dropped): the engine counts per 0.1 s, which on a shared
    machine is noise to the eye and to the adaptation time's "every interval within 10%"."""
    k = max(1, int(round(len(tps) / POINTS)))
    n = len(tps) // k
    return tps[: n * k].reshape(n, k).mean(axis=1), interval_s * k


def _side(df: pd.DataFrame, label: str) -> tuple[Timeline, list[Any], list[float]]:
    df = df.sort_values("repetition") if "repetition" in df.columns else df
    series = [np.asarray(_json(t), dtype=float) for t in df["timeline.tps"]]
    if not series or min(len(s) for s in series) == 0:
        raise ValueError(f"{label}: a run stored no throughput timeline")
    n = min(len(s) for s in series)
    first = df.iloc[0]
    tps, interval_s = _binned(
        np.median(np.vstack([s[:n] for s in series]), axis=0), float(first["timeline.interval_s"])
    )
    timeline = Timeline(label, [float(x) for x in tps], interval_s)
    repartitions = [float(r["at_s"]) for r in _json(first["atrapos.repartitions"])]
    return timeline, list(_json(first["atrapos.events"])), repartitions


def plot_adaptivity(rows: pd.DataFrame, figure_id: str = "002-fig12") -> Drawing:
    """002 Fig 12: throughput over time of ATraPos (``atrapos.adaptive`` true) against the
    static configuration, the event (a worker's core taken away) marked, the adaptive run's
    re-partitionings ticked, and its adaptation time in the summary beside the paper's 5 s.
    Raises ``ValueError`` (one line) for rows without the controller's log, without both
    runs, or without a ``park`` event."""
    what = f"figure {figure_id}"
    require(rows, _COLUMNS, what)
    adaptive = rows["atrapos.adaptive"].astype(bool)
    if not adaptive.any() or adaptive.all():
        raise ValueError(f"{what}: needs both an adaptive and a static run (grid.adaptive = [true, false])")
    atrapos, events, repartitions = _side(rows[adaptive], "ATraPos")
    static, _, _ = _side(rows[~adaptive], "static")
    parks = [(float(at), [int(w) for w in workers]) for at, kind, workers in events if kind == "park"]
    if not parks:
        raise ValueError(f"{what}: the adaptive run fired no park event (a [[schedule]] entry with park = N)")
    at, workers = parks[0]
    who = "worker " + ", ".join(map(str, workers))
    duration = max(atrapos.end_s, static.end_s)
    paper = _PAPER_S.get(figure_id)
    phases = f"; the core goes at {at:.2g} s of {duration:.3g} s" + (
        f" (paper: {paper[0]:g} s of {paper[1]:g} s)" if paper else ""
    )
    note = f"{machine_note(rows)}{phases}; throughput per {atrapos.interval_s:g} s"
    drawing = plot_cores_removed(
        atrapos,
        static,
        at,
        what=f"{who}'s core taken away",
        repartitions=[r for r in repartitions if r <= duration],
        note=textwrap.fill(note, 95),
    )
    repeated = int(rows["repetition"].max()) + 1 if "repetition" in rows.columns else 1
    extra = f"\nmedian of {repeated} repetitions per interval" if repeated > 1 else ""
    after = [r for r in repartitions if r >= at]
    extra += (
        f"\nATraPos re-partitioned {after[0] - at:.2f} s after the core was taken away"
        if after
        else "\nATraPos did not re-partition after the core was taken away"
    )
    return Drawing(drawing.figure, f"{note}\n{drawing.summary}{extra}", drawing.stem)
