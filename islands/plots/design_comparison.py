"""Paper 002 (ATraPos): its baselines (:mod:`islands.figures.designs`) against each other.

- Fig 1/2: throughput vs sockets, read 1 row, perfectly partitionable: per-core
  shared-nothing, centralized shared-everything, PLP;
- Fig 5: the same with PLP on the hardware-aware system structures and coarse shared-nothing;
- Fig 6: a two-table transaction (TATP UpdateSubscriberData: Subscriber and SpecialFacility)
  vs sockets: centralized, PLP, and with each table routed apart (``engine.plp_units =
  per_table``) 002's naive, workload-aware and ATraPos-static placements; the caption gives
  each design's share of transactions that met two owners (multisite);
- Fig 8: TATP and TPC-C per transaction type and mix, each design over PLP.

Cores on x, with the sockets they span: those the deployment's cores span in the topology the run was planned on, which
may be virtual (the caption says so and what it was made of). Each point is the mean over
the repetitions with its 95% confidence interval; ratios are stated with their intervals.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from collections.abc import Mapping
from typing import Any

import pandas as pd

from islands.config.settings import DEFAULT_WORKLOAD
from islands.figures.designs import DESIGNS, design_of
from islands.plots._common import (
    Drawing,
    aggregate,
    color_of,
    draw_line,
    error_bars,
    figure_legend,
    fmt_tps,
    log_note,
    machine_note,
    marker_of,
    new_grid,
    plain_ticks,
    prepared,
    ratio_of,
    ratio_text,
    run_note,
    topology_of,
)
from islands.plots.figure_rules import titled

__all__ = ["plot_designs"]

_TITLES = {
    "002-fig1": "002 Fig 1/2: throughput vs sockets, read 1 row (SN, centralized SE, PLP)",
    "002-fig2": "002 Fig 1/2: throughput vs sockets, read 1 row (SN, centralized SE, PLP)",
    "002-fig5": "002 Fig 5: hardware-aware system structures vs sockets",
    "002-fig6": "002 Fig 6: a two-table transaction vs sockets",
    "002-fig8": "002 Fig 8: per transaction and mix, normalized to PLP",
}
_ENGINE = ("config.engine.execution", "config.engine.system_structures", "config.engine.cc")
#: Engine settings a design may fix that older stored rows lack (then their defaults).
_ENGINE_OPTIONAL = ("config.engine.plp_units", "config.engine.plp_placement", "config.engine.plp_workers_per_cpu")


def plot_designs(rows: pd.DataFrame, figure_id: str = "002-fig2") -> Drawing:
    """Fig 8: one bar per design and transaction type (and the mix), over PLP's. The others:
    throughput (thousand txn/s) vs sockets, one line per design."""
    df = prepared(rows, f"figure {figure_id}", extra=(*_ENGINE, "deployment.sockets"))
    columns = [*_ENGINE, *(c for c in _ENGINE_OPTIONAL if c in df.columns)]
    df["design"] = [
        design_of(int(n), _engine_settings(engine))
        for n, engine in zip(df["n_instances"], df[columns].to_dict("records"), strict=True)
    ]
    df["sockets"] = [_spanned(spans) for spans in df["deployment.sockets"]]
    designs = [d for d in DESIGNS if d in set(df["design"])]
    notes = _caption(df)
    fig6 = figure_id == "002-fig6" and any(d in _PER_TABLE_DESIGNS for d in designs)
    if fig6:
        notes = f"{notes}\n{textwrap.fill(_fig6_note(df), 150)}"
    if figure_id == "002-fig8":
        return _per_transaction(df, figure_id, designs, notes)
    drawing = _vs_sockets(df, figure_id, designs, notes)
    if fig6:
        drawing = dataclasses.replace(drawing, summary=f"{drawing.summary}\n  {_fig6_note(df)}")
    return drawing


def _engine_settings(columns: Mapping[Any, Any]) -> dict[str, Any]:
    """A stored row's engine settings by name, as :func:`design_of` reads them (a setting an
    older row lacks is left out: its default)."""
    out: dict[str, Any] = {}
    for column, value in columns.items():
        name = str(column).rsplit(".", 1)[1]
        if isinstance(value, str):
            out[name] = value
        elif name == "plp_workers_per_cpu" and pd.notna(value):
            out[name] = int(value)
    return out


def _spanned(spans: Any) -> int:
    """How many sockets a stored deployment's ``sockets`` (each instance's; JSON text or
    lists) span."""
    if isinstance(spans, str):
        spans = json.loads(spans)
    return len({int(s) for part in spans for s in part})


#: The designs that route each table apart (Fig 6's placements).
_PER_TABLE_DESIGNS = ("naive", "naive-oversaturated", "workload-aware", "atrapos-static")


def _fig6_note(df: pd.DataFrame) -> str:
    """What Fig 6's per-table placements are here and what this machine can show of them,
    with each design's share of committed transactions that met two owners."""
    shares = []
    top = int(df["n_cpus"].max())
    if {"multisite_commits", "commits"} <= set(df.columns):
        for design in _PER_TABLE_DESIGNS:
            sub = df[(df["design"] == design) & (df["n_cpus"] == top)]
            total = pd.to_numeric(sub["commits"], errors="coerce").sum()
            if len(sub) and total > 0:
                met = pd.to_numeric(sub["multisite_commits"], errors="coerce").sum()
                shares.append(f"{DESIGNS[design].label} {met / total:.0%}")
    text = (
        "Per table: each table's rows of a key range are a unit of their own; naive keeps site i's "
        "Subscriber and SpecialFacility units on worker i (one worker runs both: no oversaturation, "
        "unlike 002's one thread per partition); naive with 2 threads per core is 002's: two workers "
        "pinned to each core, each with its own site and client, one owning the core's Subscriber "
        "units, the other its SpecialFacility units (every transaction meets both; the data has two "
        "sites per core, twice the others'); workload-aware puts Subscriber's partitions on the "
        "first cores and SpecialFacility's on the next; ATraPos static puts each pair on one socket. "
        "With one core per (virtual) socket the last two place alike, and virtual sockets share the "
        "real caches, so socket distance costs nothing here unless a delay is injected."
    )
    if shares:
        text += f" Transactions that met two owners on {top} core(s): " + ", ".join(shares) + "."
    return text


def _caption(df: pd.DataFrame) -> str:
    topo = topology_of(df)
    cores = f"; the machine has {topo.n_cores} cores" if topo is not None else ""
    text = f"{machine_note(df)}{cores}\n{run_note(df)}; {log_note(df)}"
    return "\n".join(textwrap.fill(line, 150) for line in text.splitlines())


def _vs_sockets(df: pd.DataFrame, figure_id: str, designs: list[str], caption: str) -> Drawing:
    fig, grid = new_grid(1, 1, 8.5, 5.6)
    ax = grid[0][0]
    df = df.assign(cores=df["n_cpus"])
    agg = aggregate(df, ["design", "cores"])
    lines: list[str] = []
    sockets_of: dict[int, int] = {int(str(c)): int(n) for c, n in df.groupby("cores")["sockets"].max().items()}

    def _on(cores: Any) -> str:
        return f"{int(cores)} core(s), {sockets_of[int(cores)]} socket(s)"

    for i, design in enumerate(designs):
        sub = agg[agg["design"] == design].sort_values("cores")
        draw_line(
            ax,
            sub["cores"].to_list(),
            sub,
            color=color_of(i),
            marker=marker_of(i),
            linestyle="-",
            label=DESIGNS[design].label,
            scale=1e-3,
        )
        first, last = sub.iloc[0], sub.iloc[-1]
        lines.append(
            f"  {DESIGNS[design].label}: {fmt_tps(first['mean'])} txn/s on {_on(first['cores'])}"
            f" → {fmt_tps(last['mean'])} on {_on(last['cores'])}"
        )
    top = int(agg["cores"].max())
    at = agg[agg["cores"] == top].set_index("design")
    if "centralized" in at.index:
        for design in designs:
            if design != "centralized" and design in at.index:
                lines.append(
                    f"  on {_on(top)} {DESIGNS[design].label} / centralized SE: "
                    f"{ratio_text(at.loc[design], at.loc['centralized'])}"
                )
    ax.set_xlabel("cores (sockets they span)")
    ax.set_ylabel("throughput (thousand txn/s)")
    ax.set_ylim(bottom=0)
    ticks = sorted(sockets_of)
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{c}\n({sockets_of[c]})" for c in ticks])
    plain_ticks(ax.yaxis)
    ax.grid(alpha=0.3)
    figure_legend(fig, [ax], max_cols=3)
    title = _TITLES.get(figure_id, f"{figure_id}: throughput vs sockets")
    titled(fig, f"{title}\n{caption}")
    summary = "\n".join([f"{figure_id}: {title.split(': ', 1)[-1]}; {machine_note(df)}", *lines])
    return Drawing(figure=fig, summary=summary, stem=figure_id)


def _per_transaction(df: pd.DataFrame, figure_id: str, designs: list[str], caption: str) -> Drawing:
    # rows stored without their workload ran the default one
    workload = str(df["config.workload"].iloc[0]) if "config.workload" in df.columns else DEFAULT_WORKLOAD
    mix_column = f"config.{workload}.mix"
    if mix_column not in df.columns:
        raise ValueError(f"figure {figure_id}: the rows have no {mix_column} (a TATP or TPC-C sweep over mixes)")
    df = df.assign(mix=df[mix_column].astype(str))
    mixes = sorted(set(df["mix"]), key=lambda m: (m == "standard", m))  # the mix last, as 002 draws it
    agg = aggregate(df, ["design", "mix"])
    if "plp" not in designs:
        raise ValueError(f"figure {figure_id}: no PLP run to normalize to (grid.design must hold 'plp')")
    fig, grid = new_grid(1, 1, max(8.5, 1.3 * len(mixes) + 3), 5.6)
    ax = grid[0][0]
    width = 0.8 / max(1, len(designs))
    lines: list[str] = [f"  over PLP ({workload}):"]
    for i, design in enumerate(designs):
        xs: list[float] = []
        means: list[float] = []
        bounds: list[dict[str, Any]] = []
        for k, mix in enumerate(mixes):
            mine = agg[(agg["design"] == design) & (agg["mix"] == mix)]
            plp = agg[(agg["design"] == "plp") & (agg["mix"] == mix)]
            if mine.empty or plp.empty:
                continue
            ratio = ratio_of(mine.iloc[0], plp.iloc[0])
            xs.append(k + (i - (len(designs) - 1) / 2) * width)
            means.append(ratio.value)
            bounds.append({"mean": ratio.value, "ci_low": ratio.low, "ci_high": ratio.high})
            if design != "plp":
                lines.append(f"    {mix}: {DESIGNS[design].label} {ratio_text(mine.iloc[0], plp.iloc[0])}")
        ax.bar(
            xs,
            means,
            width=width,
            color=color_of(i),
            label=DESIGNS[design].label,
            yerr=error_bars(pd.DataFrame(bounds)) if bounds else None,
            capsize=2,
        )
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(mixes)))
    ax.set_xticklabels([m.replace("_", " ") for m in mixes], rotation=30, ha="right", fontsize=7)
    ax.set_ylabel("throughput / PLP's")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3, axis="y")
    figure_legend(fig, [ax], max_cols=4)
    sockets = int(df["sockets"].max())
    title = f"{_TITLES['002-fig8']}: {workload.upper()}, {sockets} socket(s)"
    titled(fig, f"{title}\n{caption}")
    summary = "\n".join([f"{figure_id}: {title.split(': ', 1)[-1]}; {machine_note(df)}", *lines])
    return Drawing(figure=fig, summary=summary, stem=figure_id)
