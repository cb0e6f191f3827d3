"""Paper 002's adaptivity figures from a sweep's rows: the runs of an experiment file with a
run-time schedule and ``grid.adaptive = [true, false]`` (:mod:`islands.experiments.schedule`), drawn
through :mod:`islands.plots.atrapos_timelines`: Fig 10 (TATP's mix changed, ``mix`` events), Fig 11
(skew, a ``hot_fraction``/``hot_share`` event), Fig 12 (a worker's core taken away, ``park``)
and Fig 13 (alternating mixes, with the controller's monitoring interval below).

Each row holds its throughput timeline (``timeline.tps``, ``timeline.interval_s``) and the
controller's log (``atrapos.*``: the events as fired, the re-partitionings, the intervals).
The adaptive and the static run are drawn side by side; with several repetitions each
interval is the median of the repetitions' (cut to the shortest), and the re-partitionings,
events and intervals are the first repetition's. Each timeline is drawn in about
:data:`POINTS` bins (the adaptation time's resolution is one bin). The caption says what the
machine was (virtual sockets, cores) and how long the phases were beside the paper's.
"""

from __future__ import annotations

import json
import math
import textwrap
from typing import Any

import numpy as np
import pandas as pd

from islands.atrapos.controller import Check
from islands.plots._common import Drawing, machine_note, require
from islands.plots.atrapos_timelines import (
    Timeline,
    plot_alternating,
    plot_cores_removed,
    plot_skew,
    plot_workload_change,
)

__all__ = ["plot_adaptivity"]

_COLUMNS = ("timeline.tps", "timeline.interval_s", "atrapos.adaptive", "atrapos.events", "atrapos.repartitions")
#: About how many points a run's timeline is drawn with (the paper's Fig 12: one per second of 60).
POINTS = 30
#: The paper's phases, for the caption: (when its event came, its run's length), seconds.
_PAPER_S = {"002-fig10": (30.0, 90.0), "002-fig11": (20.0, 60.0), "002-fig12": (20.0, 60.0), "002-fig13": (60.0, 180.0)}
#: The event kind each figure is about.
_KIND = {"002-fig10": "mix", "002-fig11": "skew", "002-fig12": "park", "002-fig13": "mix"}


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _binned(tps: np.ndarray, interval_s: float) -> tuple[np.ndarray, float]:
    """The timeline in bins of whole intervals, about :data:`POINTS` of them (the mean of
    each; a last partial bin dropped): the engine counts per 0.1 s, which on a shared
    machine is noise to the eye and to the adaptation time's "every interval within 10%"."""
    k = max(1, int(round(len(tps) / POINTS)))
    n = len(tps) // k
    return tps[: n * k].reshape(n, k).mean(axis=1), interval_s * k


def _side(df: pd.DataFrame, label: str) -> tuple[Timeline, list[Any], list[float], list[Any]]:
    df = df.sort_values("repetition") if "repetition" in df.columns else df
    series = [np.asarray(_json(t), dtype=float) for t in df["timeline.tps"]]
    if not series or min(len(s) for s in series) == 0:
        raise ValueError(f"{label}: a run stored no throughput timeline")
    n = min(len(s) for s in series)
    first = df.iloc[0]
    if "config.driver.duration_s" in df.columns:
        # The window as configured: the engine's measured window also holds its stop (it
        # waits for a re-partitioning in progress to finish, then for running transactions),
        # nearly a second of almost no commits on a loaded machine; drawn, it reads as a
        # collapse at the end and spoils the last phase's adaptation time.
        whole = math.ceil(float(first["config.driver.duration_s"]) / float(first["timeline.interval_s"]) - 1e-9)
        n = min(n, max(1, whole))
    tps, interval_s = _binned(
        np.median(np.vstack([s[:n] for s in series]), axis=0), float(first["timeline.interval_s"])
    )
    timeline = Timeline(label, [float(x) for x in tps], interval_s)
    repartitions = [float(r["at_s"]) for r in _json(first["atrapos.repartitions"])]
    intervals = _json(first["atrapos.intervals"]) if "atrapos.intervals" in df.columns else []
    return timeline, list(_json(first["atrapos.events"])), repartitions, list(intervals or [])


def _checks(intervals: list[Any]) -> list[Check]:
    """The controller's intervals as :class:`Check` (their log: end, length, throughput,
    evaluated, re-partitioned, next length; logs of before Fig 13 have only the first three)."""
    checks = []
    for entry in intervals:
        at, length, tps = (float(x) for x in entry[:3])
        if len(entry) >= 6:
            checks.append(Check(at, length, tps, bool(entry[3]), bool(entry[4]), float(entry[5])))
        else:
            checks.append(Check(at, length, tps, False, False, length))
    return checks


#: TATP's transactions as the paper names them.
_SHORT = {
    "get_subscriber_data": "GetSubData",
    "get_new_destination": "GetNewDest",
    "get_access_data": "GetAccData",
    "update_subscriber_data": "UpdSubData",
    "update_location": "UpdLocation",
    "insert_call_forwarding": "InsCallFwd",
    "delete_call_forwarding": "DelCallFwd",
    "standard": "TATP-Mix",
}


def _mix_name(value: Any) -> str:
    """A mix change's label: the mix as the paper names it, "skewed" when it brings a hot set."""
    mix = str(value.get("mix", "?")) if isinstance(value, dict) else str(value)
    name = _SHORT.get(mix, mix)
    if isinstance(value, dict) and float(value.get("hot_fraction", 0) or 0) > 0:
        name += " (skewed)"
    return name


def _skew_name(value: Any) -> str:
    fraction, share = float(value.get("hot_fraction", math.nan)), float(value.get("hot_share", math.nan))
    if fraction == 0:
        return "skew off"
    share_text = "" if math.isnan(share) else f"{share:.0%} of requests"
    fraction_text = "" if math.isnan(fraction) else f"{fraction:.0%} of data"
    return "skew: " + " to ".join(t for t in (share_text, fraction_text) if t)


def plot_adaptivity(rows: pd.DataFrame, figure_id: str = "002-fig12") -> Drawing:
    """Throughput over time of ATraPos (``atrapos.adaptive`` true) against the static
    configuration, the events marked (002 Fig 10: mix changes; Fig 11: skew; Fig 12: a
    worker's core taken away; Fig 13: alternating mixes, the controller's interval below),
    the adaptive run's re-partitionings ticked, and its adaptation time after each event in
    the summary beside the paper's 5 s. Raises ``ValueError`` (one line) for rows without the
    controller's log, without both runs, or without the figure's kind of event."""
    what = f"figure {figure_id}"
    require(rows, _COLUMNS, what)
    adaptive = rows["atrapos.adaptive"].astype(bool)
    if not adaptive.any() or adaptive.all():
        raise ValueError(f"{what}: needs both an adaptive and a static run (grid.adaptive = [true, false])")
    atrapos, events, repartitions, intervals = _side(rows[adaptive], "ATraPos")
    static, _, _, _ = _side(rows[~adaptive], "static")
    kind = _KIND.get(figure_id, "park")
    fired = [(float(at), value) for at, k, value in events if k == kind]
    if not fired:
        entry = {"park": "park = N", "mix": 'mix = "..."', "skew": "hot_fraction = F, hot_share = S"}[kind]
        raise ValueError(f"{what}: the adaptive run fired no {kind} event (a [[schedule]] entry with {entry})")
    duration = max(atrapos.end_s, static.end_s)
    paper = _PAPER_S.get(figure_id)
    at = fired[0][0]
    if kind == "park":
        phases = f"the core goes at {at:.2g} s of {duration:.3g} s" + (
            f" (paper: {paper[0]:g} s of {paper[1]:g} s)" if paper else ""
        )
    elif kind == "skew":
        phases = f"skew from {at:.2g} s of {duration:.3g} s" + (
            f" (paper: {paper[0]:g} s of {paper[1]:g} s)" if paper else ""
        )
    else:
        lengths = np.diff([0.0] + [a for a, _ in fired] + [duration])
        phases = f"phases of {', '.join(f'{x:.2g}' for x in lengths)} s" + (
            f" (paper: {paper[0]:g} s each)" if paper else ""
        )
    workers = _workers(rows)
    cores = f"one PLP instance of {workers} workers, one per core; " if workers else ""
    caption = f"{machine_note(rows)}; {cores}{phases}; throughput per {atrapos.interval_s:g} s"
    note = textwrap.fill(caption, 95)
    kept = [r for r in repartitions if r <= duration]
    if kind == "park":
        who = "worker " + ", ".join(str(int(w)) for w in fired[0][1])
        drawing = plot_cores_removed(atrapos, static, at, what=f"{who}'s core taken away", repartitions=kept, note=note)
        subject = "the core was taken away"
    elif kind == "skew":
        drawing = plot_skew(atrapos, static, at, repartitions=kept, note=note, what=_skew_name(fired[0][1]))
        subject = "the skew came"
    else:
        first_mix = _first_mix(rows)
        named = [(0.0, first_mix)] + [(a, _mix_name(v)) for a, v in fired]
        if figure_id == "002-fig13":
            checks = [c for c in _checks(intervals) if c.at_s <= duration]  # none from the stop
            drawing = plot_alternating(atrapos, static, named, checks, note=note)
        else:
            drawing = plot_workload_change(atrapos, static, named, repartitions=kept, note=note)
        subject = "the first change"
    repeated = int(rows["repetition"].max()) + 1 if "repetition" in rows.columns else 1
    extra = f"\nmedian of {repeated} repetitions per interval" if repeated > 1 else ""
    after = [r for r in repartitions if r >= at]
    extra += (
        f"\nATraPos re-partitioned {after[0] - at:.2f} s after {subject}"
        if after
        else f"\nATraPos did not re-partition after {subject}"
    )
    return Drawing(drawing.figure, f"{caption}\n{drawing.summary}{extra}", drawing.stem)


def _first_mix(rows: pd.DataFrame) -> str:
    """The mix the runs started with (``tatp.mix``), or "start"."""
    for column in ("tatp.mix", "config.tatp.mix"):
        if column in rows.columns:
            values = rows[column].dropna()
            if len(values):
                mix = str(values.iloc[0])
                hot = column.replace("mix", "hot_fraction")
                skewed = hot in rows.columns and float(rows[hot].iloc[0] or 0) > 0
                return _SHORT.get(mix, mix) + (" (skewed)" if skewed else "")
    return "start"


def _workers(rows: pd.DataFrame) -> int | None:
    """How many workers (cores) the runs had (``config.driver.cpus``), if the rows say."""
    if "config.driver.cpus" not in rows.columns:
        return None
    cpus = _json(rows["config.driver.cpus"].iloc[0])
    return len(cpus) if isinstance(cpus, (list, tuple)) and cpus else None
