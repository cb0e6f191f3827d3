"""Paper 002's adaptivity figures (issue 17 item 5): throughput timelines of ATraPos against
the static configuration, with the run's events marked, and the re-partitioning cost.

- :func:`plot_timeline`: the common drawing, throughput per interval of each run (one line
  each), a dashed vertical line per change (workload change, skew, cores removed or given
  back) labelled at the top, and a tick per re-partitioning at the bottom in its run's colour;
  optionally a second panel with the monitoring interval (Fig 13);
- :func:`plot_workload_change` (Fig 10), :func:`plot_skew` (Fig 11),
  :func:`plot_cores_removed` (Fig 12), :func:`plot_alternating` (Fig 13): the same with the
  paper's captions;
- :func:`plot_repartition_cost` (Fig 9): milliseconds for a sequence of split, merge and
  rearrange actions against how many, mean with standard deviation, with the paper's 200 ms;
- :func:`plot_monitoring_overhead` (Table 2): throughput per TATP transaction with monitoring
  on and off, and the overhead in percent beside the paper's worst case (3.32%).

They take the runs' own data, not a sweep's rows: a :class:`Timeline` per run (from
``RunResult.timeline_tps`` and its interval, or built by hand) and :class:`Event` lists. The
summary gives each run's median throughput per phase and, for the adaptive run, the
adaptation time after each change (:func:`islands.atrapos.adaptation_time`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from islands.analysis.verdicts import Claim, claim_words, event_words
from islands.atrapos.adaptation import adaptation_time
from islands.atrapos.controller import Check
from islands.plots._common import Drawing, color_of, fmt_tps, marker_of, new_grid, plain_ticks
from islands.plots.figure_rules import titled

__all__ = [
    "EVENT_KINDS",
    "Event",
    "Timeline",
    "plot_alternating",
    "plot_cores_removed",
    "plot_monitoring_overhead",
    "plot_repartition_cost",
    "plot_skew",
    "plot_timeline",
    "plot_workload_change",
]

#: 002's claim on adaptation, with the tolerance the summary judges it by.
ADAPTATION_CLAIM = Claim("002", "ATraPos adapts within 5 s", high=5.0, unit=" s")

#: The kinds of event a timeline marks; all but "repartition" start a new phase.
EVENT_KINDS = ("workload", "skew", "cores", "repartition")


@dataclass(frozen=True)
class Timeline:
    """One run's throughput per interval: ``tps[i]`` over ``[i, i+1) * interval_s``."""

    label: str
    tps: Sequence[float]
    interval_s: float

    def __post_init__(self) -> None:
        if not self.interval_s > 0:
            raise ValueError(f"timeline {self.label!r}: interval_s {self.interval_s} must be positive")
        if len(self.tps) == 0:
            raise ValueError(f"timeline {self.label!r}: no intervals")

    @classmethod
    def of_result(cls, label: str, result: Any) -> Timeline:
        """From a :class:`islands.execution.run_result.RunResult` (its ``timeline_tps`` and
        ``config.driver.timeline_interval_s``)."""
        return cls(label, list(result.timeline_tps), float(result.config.driver.timeline_interval_s))

    @property
    def seconds(self) -> np.ndarray:
        """The middle of each interval, in seconds from the start."""
        return (np.arange(len(self.tps)) + 0.5) * self.interval_s

    @property
    def end_s(self) -> float:
        """The end of the last interval."""
        return len(self.tps) * self.interval_s


@dataclass(frozen=True)
class Event:
    """Something that happened at ``at_s``: a change of ``kind`` ("workload", "skew",
    "cores") with its ``label`` (the new phase's name), or a "repartition" of run ``run``."""

    at_s: float
    kind: str
    label: str = ""
    run: str = ""

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"event kind {self.kind!r} is not one of {', '.join(EVENT_KINDS)}")
        if not self.at_s >= 0:
            raise ValueError(f"event at {self.at_s} s: must be at or after the start")


def _phases(events: Sequence[Event], end_s: float) -> list[tuple[float, float, str]]:
    changes = sorted((e for e in events if e.kind != "repartition"), key=lambda e: e.at_s)
    starts = [(0.0, "start")] + [(e.at_s, e.label or e.kind) for e in changes if e.at_s > 0]
    return [(s, starts[i + 1][0] if i + 1 < len(starts) else end_s, name) for i, (s, name) in enumerate(starts)]


def plot_timeline(
    timelines: Sequence[Timeline],
    events: Sequence[Event] = (),
    *,
    title: str,
    stem: str,
    adaptive: str | None = None,
    checks: Sequence[Check] = (),
    note: str = "",
) -> Drawing:
    """Throughput over time of each run in ``timelines`` with ``events`` marked. ``adaptive``
    names the run whose adaptation times the summary gives (default: the first);
    ``checks`` (the controller's, :func:`islands.atrapos.replay`) add a panel with the
    monitoring interval. ``note`` goes under the title (for example "2 virtual sockets"; the
    figure standard's :func:`~islands.plots.figure_rules.titled`).
    Raises ``ValueError`` for no timelines or an event past the end."""
    if not timelines:
        raise ValueError(f"{stem}: no timelines")
    end_s = max(t.end_s for t in timelines)
    for e in events:
        if e.at_s > end_s:
            raise ValueError(f"{stem}: event {e.kind} at {e.at_s} s is after the end ({end_s:g} s)")
    labels = [t.label for t in timelines]
    for e in events:
        if e.kind == "repartition" and e.run and e.run not in labels:
            raise ValueError(f"{stem}: re-partitioning of unknown run {e.run!r} (runs: {', '.join(labels)})")
    rows = 2 if checks else 1
    fig, axes = new_grid(rows, 1, 7.5, 4.2 if rows == 1 else 5.6)
    ax = axes[0][0]
    peak = max(max(t.tps) for t in timelines)
    scale, unit = (1e6, "M ") if peak >= 1e6 else (1e3, "K ") if peak >= 1e3 else (1.0, "")
    for i, t in enumerate(timelines):
        ax.plot(t.seconds, np.asarray(t.tps) / scale, color=color_of(i), label=t.label, linewidth=1.2)
    top = ax.get_ylim()[1]
    for e in events:
        if e.kind == "repartition":
            i = labels.index(e.run) if e.run else 0
            ax.plot([e.at_s], [0], marker="^", color=color_of(i), markersize=7, clip_on=False, linestyle="none")
        else:
            ax.axvline(e.at_s, color="black", linestyle="--", linewidth=0.8)
            ax.text(e.at_s, top, f" {e.label or e.kind}", fontsize=8, va="top", ha="left")
    n_repart = sum(e.kind == "repartition" for e in events)
    if n_repart:
        ax.plot([], [], marker="^", color="grey", linestyle="none", label=f"re-partitioning ({n_repart})")
    ax.set_ylim(bottom=0)
    ax.set_xlim(0, end_s)
    ax.set_ylabel(f"throughput ({unit}txn/s)")
    plain_ticks(ax.yaxis)
    ax.legend(fontsize=8, loc="best")  # a fixed corner hid the runs' tails after a collapse
    if checks:
        ax2 = axes[1][0]
        xs = [0.0] + [c.at_s for c in checks]
        ys = [checks[0].interval_s] + [c.next_interval_s for c in checks]
        ax2.step(xs, ys, where="post", color=color_of(0))
        evaluated = [c for c in checks if c.evaluated]
        ax2.plot([c.at_s for c in evaluated], [c.interval_s for c in evaluated], "o", color=color_of(1), markersize=4)
        ax2.set_ylabel("monitoring interval (s)")
        ax2.set_xlim(0, end_s)
        ax2.set_ylim(0, max(ys) * 1.15)
        ax2.set_xlabel("time (s); dots: model evaluated")
    else:
        ax.set_xlabel("time (s)")
    titled(fig, title + (f"\n{note}" if note else ""))
    return Drawing(fig, "\n".join(_summary(timelines, events, end_s, adaptive)), stem)


def _summary(timelines: Sequence[Timeline], events: Sequence[Event], end_s: float, adaptive: str | None) -> list[str]:
    lines = []
    phases = _phases(events, end_s)
    for t in timelines:
        parts = []
        for start, stop, name in phases:
            a, b = int(math.ceil(start / t.interval_s)), int(stop / t.interval_s)
            part = np.asarray(t.tps[a:b], dtype=float)
            parts.append(f"{name} {fmt_tps(float(np.median(part))) if part.size else 'n/a'}")
        lines.append(f"{t.label}: median txn/s per phase: " + ", ".join(parts))
    chosen = next((t for t in timelines if t.label == adaptive), timelines[0])
    for start, stop, name in phases[1:]:
        # An adaptation needs a re-partitioning of this run in the phase: without one, the
        # time the throughput took to settle is not an adaptation time.
        moved = sum(e.kind == "repartition" and e.run in ("", chosen.label) and start <= e.at_s < stop for e in events)
        try:
            seconds = adaptation_time(chosen.tps, chosen.interval_s, start, stop)
        except ValueError:
            seconds = math.nan
        shown = f"{seconds:.1f} s" if seconds == seconds else None
        text = (
            event_words(moved, f"re-partitioning after {name}", "").text
            or claim_words(ADAPTATION_CLAIM, seconds, shown).text
        )
        lines.append(f"{chosen.label} adaptation after {name} at {round(start, 2):g} s: {text}")
    repart = [e for e in events if e.kind == "repartition"]
    if repart:
        lines.append(f"re-partitionings at {', '.join(f'{round(e.at_s, 2):g}' for e in repart)} s")
    return lines


def _against_static(
    atrapos: Timeline,
    static: Timeline,
    events: list[Event],
    repartitions: Sequence[float],
    title: str,
    stem: str,
    note: str,
) -> Drawing:
    """The adaptive run beside the static one, with its re-partitionings added to ``events``."""
    events = events + [Event(at, "repartition", run=atrapos.label) for at in repartitions]
    return plot_timeline([atrapos, static], events, title=title, stem=stem, adaptive=atrapos.label, note=note)


def plot_workload_change(
    atrapos: Timeline,
    static: Timeline,
    phases: Sequence[tuple[float, str]],
    repartitions: Sequence[float] = (),
    note: str = "",
) -> Drawing:
    """002 Fig 10: TATP switching transaction types (``phases``: start second and name; the
    paper's UpdSubData, GetNewDest, TATP-Mix, 30 s each)."""
    events = [Event(at, "workload", name) for at, name in phases if at > 0]
    title = "002 Fig 10: adapting to workload changes (" + " → ".join(name for _, name in phases) + ")"
    return _against_static(atrapos, static, events, repartitions, title, "002-fig10", note)


def plot_skew(
    atrapos: Timeline,
    static: Timeline,
    skew_at_s: float,
    repartitions: Sequence[float] = (),
    note: str = "",
    what: str = "skew: 50% of requests to 20% of data",
) -> Drawing:
    """002 Fig 11: GetSubData, skew from ``skew_at_s`` (paper: at 20 s, 50% of the requests
    to 20% of the data; ``what`` labels it)."""
    events = [Event(skew_at_s, "skew", what)]
    return _against_static(atrapos, static, events, repartitions, "002 Fig 11: adapting to skew", "002-fig11", note)


def plot_cores_removed(
    atrapos: Timeline,
    static: Timeline,
    removed_at_s: float,
    what: str = "a socket's cores removed",
    repartitions: Sequence[float] = (),
    note: str = "",
) -> Drawing:
    """002 Fig 12: GetSubData, a socket's cores taken away at ``removed_at_s`` (paper: one
    10-core processor of 8 at 20 s)."""
    events = [Event(removed_at_s, "cores", what)]
    title = "002 Fig 12: adapting to lost cores"
    return _against_static(atrapos, static, events, repartitions, title, "002-fig12", note)


def plot_alternating(
    atrapos: Timeline,
    static: Timeline,
    phases: Sequence[tuple[float, str]],
    checks: Sequence[Check],
    note: str = "",
) -> Drawing:
    """002 Fig 13: alternating workloads (paper: A for 60 s, then B and A in turn) with the
    adaptive monitoring interval below; the controller's ``checks`` mark the re-partitionings."""
    events = [Event(at, "workload", name) for at, name in phases if at > 0]
    events += [Event(c.at_s, "repartition", run=atrapos.label) for c in checks if c.repartitioned]
    return plot_timeline(
        [atrapos, static],
        events,
        title="002 Fig 13: alternating workloads, adaptive monitoring interval",
        stem="002-fig13",
        adaptive=atrapos.label,
        checks=checks,
        note=note,
    )


def plot_repartition_cost(costs_ms: Mapping[str, Mapping[int, Sequence[float]]], note: str = "") -> Drawing:
    """002 Fig 9: for each kind of action ("split", "merge", "rearrange"), the time of a
    sequence of n actions (ms, repetitions) against n: mean with standard deviation, and the
    paper's bound (80 rearrangements in under 200 ms). Raises ``ValueError`` for no data."""
    if not costs_ms or not any(costs_ms.values()):
        raise ValueError("002-fig9: no repartitioning costs")
    fig, axes = new_grid(1, 1, 6.0, 4.0)
    ax = axes[0][0]
    lines = []
    for i, (kind, by_n) in enumerate(costs_ms.items()):
        ns = sorted(by_n)
        means = [float(np.mean(by_n[n])) for n in ns]
        stds = [float(np.std(by_n[n])) for n in ns]
        ax.errorbar(ns, means, yerr=stds, color=color_of(i), marker=marker_of(i), capsize=3, label=kind)
        lines.append(f"{kind}: " + ", ".join(f"{n} → {m:.3g} ms" for n, m in zip(ns, means, strict=True)))
    peak = max(float(np.mean(v)) for by_n in costs_ms.values() for v in by_n.values())
    # the paper's bound first, so that the axis' range includes it (its label drawn outside the
    # axes made the layout collapse)
    ax.axhline(200, color="grey", linestyle=":", linewidth=0.8)
    if peak < 20:  # far below the paper's 200 ms: a log axis keeps both readable
        ax.set_yscale("log")
    else:
        ax.set_ylim(bottom=0)
    ax.text(ax.get_xlim()[0], 200, " paper 002: 80 rearrangements < 200 ms", fontsize=7, va="bottom")
    ax.set_xlabel("repartitioning actions in the sequence")
    ax.set_ylabel("time (ms)")
    ax.legend(fontsize=8)
    titled(fig, "002 Fig 9: cost of repartitioning" + (f"\n{note}" if note else ""))
    return Drawing(fig, "\n".join(lines), "002-fig9")


def plot_monitoring_overhead(
    off: Mapping[str, Sequence[float]], on: Mapping[str, Sequence[float]], note: str = ""
) -> Drawing:
    """002 Table 2: for each transaction (or mix), the throughput of repetitions with the
    monitoring off and on (bars: medians, ticks: min-max) and the overhead ``1 - on/off`` of
    the medians, with the paper's worst case, 3.32%. Raises ``ValueError`` when a
    transaction lacks one side or there are none."""
    names = list(off)
    if not names:
        raise ValueError("002-table2: no transactions")
    if set(names) != set(on) or any(len(off[n]) == 0 or len(on[n]) == 0 for n in names):
        raise ValueError("002-table2: every transaction needs runs with the monitoring off and on")
    fig, axes = new_grid(1, 1, 1.2 * len(names) + 3, 4.0)
    ax = axes[0][0]
    xs = np.arange(len(names))
    lines = []
    for i, (label, runs) in enumerate((("monitoring off", off), ("monitoring on", on))):
        med = np.array([np.median(runs[n]) for n in names])
        lo = med - np.array([np.min(runs[n]) for n in names])
        hi = np.array([np.max(runs[n]) for n in names]) - med
        ax.bar(xs + (i - 0.5) * 0.38, med, 0.38, yerr=[lo, hi], color=color_of(i), label=label, capsize=3)
    for x, n in zip(xs, names, strict=True):
        overhead = 1 - float(np.median(on[n])) / float(np.median(off[n]))
        top = max(float(np.max(off[n])), float(np.max(on[n])))
        ax.text(float(x), top, f"{100 * overhead:+.2f}%", ha="center", va="bottom", fontsize=8)
        lines.append(
            f"{n}: off {fmt_tps(float(np.median(off[n])))}, on {fmt_tps(float(np.median(on[n])))} txn/s, "
            f"overhead {100 * overhead:.2f}%"
        )
    lines.append("paper 002 Table 2: at most 3.32% (GetSubData)")
    ax.set_xticks(xs, names, rotation=20, fontsize=8)
    ax.set_ylabel("throughput (txn/s)")
    plain_ticks(ax.yaxis)
    ax.legend(fontsize=8)
    titled(fig, "002 Table 2: monitoring overhead" + (f"\n{note}" if note else ""))
    return Drawing(fig, "\n".join(lines), "002-table2")
