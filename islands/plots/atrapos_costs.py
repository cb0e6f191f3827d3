"""Paper 002's cost figures from a sweep's rows: the runs of an experiment file with a
``[probe]`` (:mod:`islands.experiments.probes`), drawn through :mod:`islands.plots.atrapos_timelines`: Fig 9 (the
time of a sequence of re-partitioning actions against its length, ``probe.kind =
"repartition_cost"``) and Table 2 (throughput per TATP transaction with the monitor's
recording off and on within one run, ``"monitor_overhead"``).

Each row holds its probe's numbers (``probe.*``). Fig 9 pools the sequences of every row
(repetitions) per length; Table 2 pools the phases of every row of a transaction. The caption
says what the machine was (virtual sockets, cores) and the sizes beside the paper's.
"""

from __future__ import annotations

import json
import math
import textwrap
from typing import Any

import numpy as np
import pandas as pd

from islands.plots._common import Drawing, machine_note, require
from islands.plots.adaptivity import _SHORT  # TATP's transactions as the paper names them
from islands.plots.atrapos_timelines import plot_monitoring_overhead, plot_repartition_cost

__all__ = ["plot_monitoring_rows", "plot_repartition_rows"]


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _workers(rows: pd.DataFrame) -> int | None:
    if "config.driver.cpus" not in rows.columns:
        return None
    cpus = _json(rows["config.driver.cpus"].iloc[0])
    return len(cpus) if isinstance(cpus, (list, tuple)) and cpus else None


def _errors(rows: pd.DataFrame) -> list[str]:
    if "probe.error" not in rows.columns:
        return []
    return sorted({str(e) for e in rows["probe.error"].dropna() if str(e)})


def plot_repartition_rows(rows: pd.DataFrame, figure_id: str = "002-fig9") -> Drawing:
    """002 Fig 9 from the rows of a ``repartition_cost`` probe: per sequence length, the
    sequences' end-to-end times (ms) over the repetitions, against the paper's bound (80
    rearrangements < 200 ms at 800 K rows). The summary gives each length's median total,
    summed pause and longest pause. Raises ``ValueError`` (one line) for rows of another
    probe or none, or when no sequence finished."""
    from islands.atrapos.repartition_cost import PAPER_ACTIONS, PAPER_MS, PAPER_ROWS

    what = f"figure {figure_id}"
    require(rows, ("probe.kind", "probe.actions", "probe.total_ms"), what)
    kinds = set(rows["probe.kind"].astype(str))
    if kinds != {"repartition_cost"}:
        raise ValueError(f"{what}: needs the rows of a repartition_cost [probe], not {', '.join(sorted(kinds))}")
    samples: dict[str, dict[int, list[float]]] = {"total_ms": {}, "pause_ms": {}, "max_pause_us": {}}
    for _, row in rows.iterrows():
        actions = [int(n) for n in _json(row["probe.actions"])]
        for key, by_n in samples.items():
            column = f"probe.{key}"
            values = _json(row[column]) if column in rows.columns else []
            for n, v in zip(actions, values, strict=False):
                by_n.setdefault(n, [])
                if v is not None and math.isfinite(float(v)):
                    by_n[n].append(float(v))
    done = {n: v for n, v in samples["total_ms"].items() if v}
    if not done:
        raise ValueError(f"{what}: no sequence of actions finished ({'; '.join(_errors(rows)) or 'no numbers'})")
    row_count = _rows_in_all(rows)
    workers = _workers(rows)
    sizes = f"{row_count:,} rows" if row_count else "rows not recorded"
    caption = (
        f"{machine_note(rows)}; PLP micro under load, "
        + (f"{workers} workers; " if workers else "")
        + f"{sizes} (paper: {PAPER_ROWS:,}); each action moves one routing unit"
    )
    drawing = plot_repartition_cost({"move (= split, merge, rearrange here)": done}, note=textwrap.fill(caption, 75))
    lines = [caption, "actions  total ms (median)  summed pause ms  longest pause us  sequences"]
    for n in sorted(samples["total_ms"]):
        med = {k: float(np.median(v[n])) if v.get(n) else math.nan for k, v in samples.items()}
        lines.append(
            f"{n:>7}  {med['total_ms']:>17.3f}  {med['pause_ms']:>15.3f}  {med['max_pause_us']:>16.1f}"
            f"  {len(samples['total_ms'][n])}"
        )
    top = PAPER_ACTIONS if PAPER_ACTIONS in done else max(done)
    ours = float(np.median(done[top]))
    lines.append(
        f"{top} actions: {ours:.3g} ms here against the paper's {PAPER_ACTIONS} rearrangements < {PAPER_MS:g} ms"
    )
    lines += [f"note: {e}" for e in _errors(rows)]
    return Drawing(drawing.figure, "\n".join(lines), drawing.stem)


def _rows_in_all(rows: pd.DataFrame) -> int | None:
    """The micro rows of the whole instance (rows per site × sites), if the rows say."""
    workers = _workers(rows)
    if "config.micro.rows_per_site" not in rows.columns or not workers:
        return None
    return int(rows["config.micro.rows_per_site"].iloc[0]) * workers


def plot_monitoring_rows(rows: pd.DataFrame, figure_id: str = "002-table2") -> Drawing:
    """002 Table 2 from the rows of a ``monitor_overhead`` probe: per TATP transaction (its
    ``tatp.mix``), the rates of the phases with the monitor's recording off and on (pooled
    over repetitions) and the overhead off / on - 1 with its confidence interval, against the
    paper's worst case (3.32%). Raises ``ValueError`` (one line) for rows of another probe or
    none, or a transaction without phases on both sides."""
    from islands.analysis.verdicts import change_words
    from islands.atrapos.monitor_overhead import PAPER_WORST

    what = f"figure {figure_id}"
    require(rows, ("probe.kind", "probe.off_tps", "probe.on_tps"), what)
    kinds = set(rows["probe.kind"].astype(str))
    if kinds != {"monitor_overhead"}:
        raise ValueError(f"{what}: needs the rows of a monitor_overhead [probe], not {', '.join(sorted(kinds))}")
    mix_column = next((c for c in ("config.tatp.mix", "tatp.mix") if c in rows.columns), None)
    off: dict[str, list[float]] = {}
    on: dict[str, list[float]] = {}
    for _, row in rows.iterrows():
        mix = str(row[mix_column]) if mix_column else "TATP"
        name = _SHORT.get(mix, mix)
        off.setdefault(name, []).extend(float(x) for x in _json(row["probe.off_tps"]))
        on.setdefault(name, []).extend(float(x) for x in _json(row["probe.on_tps"]))
    lacking = [n for n in off if not off[n] or not on[n]]
    if lacking:
        why = "; ".join(_errors(rows)) or "its runs were too short for a phase of each"
        side = "off" if not off[lacking[0]] else "on"
        raise ValueError(f"{what}: {lacking[0]} has no phase with the recording {side} ({why})")
    workers = _workers(rows)
    phase = float(rows["probe.phase_s"].iloc[0]) if "probe.phase_s" in rows.columns else math.nan
    caption = (
        f"{machine_note(rows)}; TATP under PLP"
        + (f", {workers} workers" if workers else "")
        + f"; recording switched off and on every {phase:g} s within each run"
    )
    width = 1.2 * len(off) + 3  # plot_monitoring_overhead's, inches: about 10 characters each
    drawing = plot_monitoring_overhead(off, on, note=textwrap.fill(caption, int(10 * width)))
    # The drawn overhead (1 - on / off of the medians), then the phases' ratio off / on with
    # its confidence interval: whether this machine can tell the monitor's cost from noise.
    lines = [caption, drawing.summary, "the phases' rates, off / on (islands.analysis.statistics.ratio):"]
    for name in off:
        lines.append(f"  {name}: {change_words(off[name], on[name])} ({len(off[name])} phases off, {len(on[name])} on)")
    lines.append(f"issue 17's target: 2% (paper 002: {100 * PAPER_WORST:.2f}%)")
    lines += [f"note: {e}" for e in _errors(rows)]
    return Drawing(drawing.figure, "\n".join(lines), drawing.stem)
