"""000 Fig 22-24: the standard workloads' remote transactions.

- Fig 23 (TPC-B) and Fig 24 (TPC-C Payment): throughput as the share of remote transactions
  grows from 0 to 100%, one line per deployment (and transport).
- Fig 22: per workload, each deployment's throughput with local-only transactions beside
  the specification's share of remote ones.

Each point is the mean over the repetitions with its 95% confidence interval; changes are
stated with their intervals.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from islands.config.workload_words import STANDARD_PANELS, name_of
from islands.plots._common import (
    TRANSPORT_STYLES,
    Drawing,
    aggregate,
    change_text,
    color_of,
    deployment_order,
    deployment_titles,
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
    run_note,
)
from islands.plots.figure_rules import titled

__all__ = ["plot_remote_share", "plot_standard"]

#: Per panel (a workload, or one of its transactions run alone): the config column holding its
#: remote share, the name shown, and the other share that must be at its lowest.
_REMOTE = {
    panel: (f"config.{share}", title, None if other is None else f"config.{other}")
    for panel, (share, title, other) in STANDARD_PANELS.items()
}
_TITLES = {"000-fig23": "TPC-B vs % remote transactions", "000-fig24": "TPC-C Payment vs % remote payments"}


def _layout_note(df: pd.DataFrame) -> str:
    """'; TPC-C spec layout' (the row layouts of the rows shown, of each workload with a
    layout setting), '' without such rows. Rows stored before the setting existed ran the
    narrow layout."""
    notes = []
    for workload in sorted(set(df["config.workload"].astype(str))):
        column = f"config.{workload}.layout"
        if column not in df.columns:
            continue
        layouts = df.loc[df["config.workload"] == workload, column].fillna("narrow").astype(str)
        notes.append(f"; {name_of(workload)} {' and '.join(sorted(set(layouts)))} layout")
    return "".join(notes)


def _with_remote(rows: pd.DataFrame, what: str) -> pd.DataFrame:
    df = prepared(rows, what, extra=("config.workload",))
    df["workload"] = df["config.workload"].astype(str)
    for workload in set(df["workload"]):  # a workload with a mix: a panel per transaction run alone
        mix = f"config.{workload}.mix"
        if mix in df.columns:
            own = df["workload"] == workload
            df.loc[own, "workload"] = workload + "-" + df.loc[own, mix].astype(str)
    df = df[df["workload"].isin(list(_REMOTE))].copy()
    if df.empty:
        raise ValueError(f"{what}: no rows of a standard workload run alone (TPC-B, TPC-C payment or new_order)")
    df["remote_pct"] = np.nan
    keep = pd.Series(True, index=df.index)
    for workload, (column, _, other) in _REMOTE.items():
        if column in df.columns:
            mask = df["workload"] == workload
            df.loc[mask, "remote_pct"] = df.loc[mask, column].astype(float) * 100
            if other is not None and other in df.columns and mask.any():
                keep &= ~mask | (df[other] == df.loc[mask, other].min())
    return df[keep]


def plot_remote_share(rows: pd.DataFrame, figure_id: str = "000-fig23") -> Drawing:
    """Throughput (thousand txn/s) vs % remote transactions, one line per deployment and
    transport. The summary gives each line's throughput at the lowest and highest share."""
    df = _with_remote(rows, f"figure {figure_id}")
    deployments = deployment_order(df)
    titles = deployment_titles(df)
    fig, grid = new_grid(1, 1, 9.0, 5.0)
    ax = grid[0][0]
    lines = []
    for i, dep in enumerate(deployments):
        for via in sorted(set(df[df["deployment"] == dep]["via"])):
            part = df[(df["deployment"] == dep) & (df["via"] == via)]
            agg = aggregate(part, ["remote_pct"]).sort_values("remote_pct")
            label = titles[dep] + ("" if via == "none" else f" ({via})")
            draw_line(
                ax,
                agg["remote_pct"].to_list(),
                agg,
                color=color_of(i),
                marker=marker_of(i),
                linestyle=TRANSPORT_STYLES.get(via, "-"),
                label=label,
                scale=1e-3,
            )
            first, last = agg.iloc[0], agg.iloc[-1]
            lines.append(
                f"  {label}: {fmt_tps(first['mean'])} at {first['remote_pct']:g}% → "
                f"{fmt_tps(last['mean'])} at {last['remote_pct']:g}% remote "
                f"({change_text(last, first)}) txn/s"
            )
    ax.set_xlabel("remote transactions (%)")
    ax.set_ylabel("throughput (thousand txn/s)")
    ax.set_ylim(bottom=0)
    plain_ticks(ax.yaxis)
    ax.grid(alpha=0.3)
    figure_legend(fig, [ax])
    machine = machine_note(df)
    title = _TITLES.get(figure_id, "throughput vs % remote")
    logged = log_note(df)
    layout = _layout_note(df)
    titled(fig, f"000 Fig {figure_id.rsplit('fig', 1)[-1]}: {title}{layout}\n{machine}\n{run_note(df)}\n{logged}")
    summary = "\n".join([f"{figure_id}: {title}{layout}; {machine}; {logged}", *lines])
    return Drawing(figure=fig, summary=summary, stem=figure_id)


def plot_standard(rows: pd.DataFrame, figure_id: str = "000-fig22") -> Drawing:
    """One panel per standard workload: each deployment's throughput with local-only
    transactions (0% remote) and with the largest remote share in the rows (the
    specification's), side by side. The summary gives the drop per deployment."""
    df = _with_remote(rows, f"figure {figure_id}")
    workloads = [w for w in _REMOTE if w in set(df["workload"])]
    fig, grid = new_grid(1, len(workloads), 5.5 * len(workloads), 4.8)
    layout = _layout_note(df)
    lines = [
        f"{figure_id}: local-only vs the standard share of remote transactions{layout}; {machine_note(df)}; "
        f"{log_note(df)}"
    ]
    for c, workload in enumerate(workloads):
        ax = grid[0][c]
        part = df[df["workload"] == workload]
        deployments = deployment_order(part)
        agg = aggregate(part, ["deployment", "remote_pct"])
        shares = sorted(set(agg["remote_pct"]))
        local, standard = shares[0], shares[-1]
        width = 0.38
        lines.append(f"{_REMOTE[workload][1]}:")
        if len(shares) < 2:
            lines.append(f"  only {local:g}% remote in the rows: nothing to compare")
        for i, dep in enumerate(deployments):
            values = {}
            for k, share in enumerate((local, standard)):
                sub = agg[(agg["deployment"] == dep) & (agg["remote_pct"] == share)]
                if sub.empty:
                    continue
                row = sub.iloc[0]
                values[share] = row
                ax.bar(
                    i + (k - 0.5) * width,
                    row["mean"] / 1e3,
                    width,
                    yerr=error_bars(sub, 1e-3),
                    color=color_of(0 if k == 0 else 1),
                    label=f"{share:g}% remote" if i == 0 else None,
                )
            if local in values and standard in values and local != standard:
                lines.append(
                    f"  {dep}: {fmt_tps(values[local]['mean'])} local-only → {fmt_tps(values[standard]['mean'])} "
                    f"with {standard:g}% remote ({change_text(values[standard], values[local])}) txn/s"
                )
        ax.set_xticks(range(len(deployments)), [deployment_titles(part)[d] for d in deployments], fontsize=8)
        ax.set_title(_REMOTE[workload][1])
        ax.set_ylabel("throughput (thousand txn/s)")
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=8, frameon=False)
        ax.grid(alpha=0.3, axis="y")
    titled(
        fig,
        f"000 Fig 22: standard workloads, local-only vs remote{layout}\n{machine_note(df)}\n{run_note(df)}\n"
        f"{log_note(df)}",
    )
    return Drawing(figure=fig, summary="\n".join(lines), stem=figure_id)
