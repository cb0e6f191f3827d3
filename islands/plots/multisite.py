"""000 Fig 11 (unix sockets) and Fig 14 (shared memory): throughput as the share of
multisite transactions grows, one line per deployment, read (left) and update (right), one
row of panels per data size where the rows hold several (Fig 11: cache-resident on top,
memory-resident below). The caption says whether and how the runs logged.

Each point is the mean throughput over a point's repetitions with its 95% confidence
interval as error bars; the summary states every ratio with its interval
(:mod:`islands.analysis.statistics`). Where the rows hold several transports (the Fig 14 experiment runs shared
memory and unix sockets side by side), a multi-instance deployment gets one line per
transport (shared memory solid, unix sockets dashed); a single instance sends no messages,
so its runs over either transport make one line.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from islands.analysis.verdicts import comparison_words, winner
from islands.plots._common import (
    TRANSPORT_STYLES,
    Drawing,
    aggregate,
    axis_scale,
    change_text,
    color_of,
    deployment_order,
    deployment_titles,
    draw_line,
    figure_legend,
    fmt_tps,
    log_note,
    machine_note,
    marker_of,
    new_grid,
    one_socket_note,
    plain_ticks,
    prepared,
    run_note,
    series_trend,
    topology_of,
)
from islands.plots.figure_rules import titled

__all__ = ["plot_multisite"]

_TRANSPORT_NAMES = {"unix": "unix sockets", "shm": "shared memory", "tcp": "TCP"}
_FIGURE_TITLES = {"000-fig11": "000 Fig 11", "000-fig14": "000 Fig 14", "002-fig3": "002 Fig 3"}


def plot_multisite(rows: pd.DataFrame, figure_id: str = "000-fig11") -> Drawing:
    """Throughput (thousand transactions per second) vs % multisite transactions, one line
    per deployment (and transport), one panel per read / update; the summary gives each
    line's value at the lowest and highest % multisite and every comparison of the
    deployments, at each % multisite: the sweep's own verdicts where it repeated until
    answered (run.precision, in ``rows.attrs["precision"]``), else the best against the
    runner-up from the rows."""
    decided = rows.attrs.get("precision") or {}
    df = prepared(rows, f"figure {figure_id}")
    df["pct"] = df["config.micro.multisite"].astype(float) * 100
    deployments = deployment_order(df)
    titles = deployment_titles(df)
    vias: list[str] = [v for v in ("shm", "unix", "tcp") if v in set(df["via"])] + sorted(
        set(df["via"]) - {"shm", "unix", "tcp", "none"}
    )
    several = len(vias) > 1
    kinds = [u for u in (False, True) if u in set(df["update"])]
    # One row of panels per data size (the paper's cache-resident top row, memory-resident bottom).
    df["rows_per_site"] = df["config.micro.rows_per_site"].astype(int) if "config.micro.rows_per_site" in df else 0
    sizes = sorted(set(df["rows_per_site"]))

    fig, grid = new_grid(len(sizes), len(kinds), 6.2 * len(kinds), 4.6 * len(sizes) + 0.6, sharey=True)
    # One scale for every panel, so that read and update, small and large data compare at a glance.
    log = axis_scale(grid[0][0], aggregate(df, ["deployment", "via", "update", "pct", "rows_per_site"])["mean"] / 1e3)
    if not log:
        plain_ticks(grid[0][0].yaxis)
    lines: list[str] = []
    panels = [(r, c, size, update) for r, size in enumerate(sizes) for c, update in enumerate(kinds)]
    for r, c, size, update in panels:
        ax = grid[r][c]
        part = df[(df["update"] == update) & (df["rows_per_site"] == size)]
        rows_txt = _rows_text(part)
        panel = f"{'update' if update else 'read'} {rows_txt}"
        if len(sizes) > 1:
            panel += f", {residence(df, size)}"
        agg = aggregate(part, ["deployment", "via", "pct"])
        series: list[tuple[str, str, pd.DataFrame]] = []
        for i, dep in enumerate(deployments):
            for via in sorted(
                set(agg[agg["deployment"] == dep]["via"]),
                key=lambda v: (v not in vias, vias.index(v) if v in vias else 0),
            ):
                sub = agg[(agg["deployment"] == dep) & (agg["via"] == via)].sort_values("pct")
                label = titles[dep]
                if several and via != "none":
                    label += f", {_TRANSPORT_NAMES.get(via, via)}"
                draw_line(
                    ax,
                    sub["pct"].to_list(),
                    sub,
                    color=color_of(i),
                    marker=marker_of(i),
                    linestyle=TRANSPORT_STYLES.get(via, "-.") if several else "-",
                    label=label,
                    scale=1e-3,
                )
                series.append((dep, via, sub))
        ax.set_title(f"{panel}" if len(sizes) > 1 else f"{panel} per transaction", fontsize=10)
        ax.set_xlabel("multisite transactions (%)")
        if c == 0:
            ax.set_ylabel("throughput (thousand txn/s" + (", log scale)" if log else ")"))
        else:
            ax.tick_params(labelleft=True)
        ax.set_xlim(-4, 104)
        ax.set_xticks(sorted(set(agg["pct"].round(6))) if agg["pct"].nunique() <= 11 else range(0, 101, 10))
        if not log:
            ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3, which="both" if log else "major")
        lines.extend(_panel_summary(panel, series, titles, several, _decided(decided, update, size, len(sizes) > 1)))

    figure_legend(fig, [ax for row in grid for ax in row])
    transports = " vs ".join(_TRANSPORT_NAMES.get(v, v) for v in vias) or "no messages (single instances)"
    head = _FIGURE_TITLES.get(figure_id, figure_id)
    machine = machine_note(df)
    logged = log_note(df)
    title = f"{head}: throughput vs multisite transactions, over {transports}\n{machine}\n{run_note(df)}\n{logged}"
    notes = []
    if len(sizes) > 1 and all(residence(df, size).startswith("cache-resident") for size in sizes):
        notes.append(
            "no data size here exceeds the last-level cache: the figure cannot show the cost of memory-resident "
            "data on this machine (raise micro.rows_per_site)"
        )
    titled(fig, title, notes)
    socket = one_socket_note(df)
    summary = "\n".join(
        [f"{figure_id}: throughput vs % multisite over {transports}; {machine}; {logged}", *lines]
        + ([f"note: {socket}"] if socket else [])
    )
    return Drawing(figure=fig, summary=summary, stem=figure_id)


def data_bytes(df: pd.DataFrame, rows_per_site: int) -> float:
    """The micro workload's data at ``rows_per_site`` on the whole machine (one site per core):
    each row's header and 4-byte columns and its index entry (~120 B at 10 columns)."""
    columns = int(df["config.micro.columns"].iloc[0]) if "config.micro.columns" in df.columns else 10
    topo = topology_of(df)
    sites = topo.n_cores if topo is not None else int(df["n_cpus"].max())
    return float(rows_per_site) * sites * (16 + 4 * columns + 64)


def llc_bytes(df: pd.DataFrame) -> int | None:
    """The last-level cache of the machine the rows were measured on (every socket's together),
    from the stored topology; None where it does not say."""
    topo = topology_of(df)
    if topo is None:
        return None
    caches = {}
    for cpu in topo.cpus:
        llc = topo.llc_of(cpu)
        if llc is not None:
            caches[llc.cpus] = llc.size_bytes
    return sum(caches.values()) or None


def residence(df: pd.DataFrame, rows_per_site: int) -> str:
    """``memory-resident (100,000 rows per site, ~24 MB > 16 MB LLC)``: "memory-resident" only
    when the data exceeds the last-level cache the topology reports, "cache-resident" when it
    fits, neither when the topology does not say."""
    size, llc = data_bytes(df, rows_per_site), llc_bytes(df)
    mb = f"~{size / 2**20:,.0f} MB" if size >= 2**20 else f"~{size / 2**10:,.0f} KB"
    if llc is None:
        return f"{rows_per_site:,} rows per site, {mb}; LLC size unknown"
    where = "memory-resident" if size > llc else "cache-resident"
    return f"{where} ({rows_per_site:,} rows per site, {mb} {'>' if size > llc else '≤'} {llc / 2**20:,.0f} MB LLC)"


def _rows_text(part: pd.DataFrame) -> str:
    sizes = sorted({int(v) for v in part["config.micro.rows_per_txn"]})
    n = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
    return f"{n} row{'s' if sizes[-1] != 1 else ''}"


def _decided(record: dict[str, Any], update: bool, size: int, by_size: bool) -> dict[float, str]:
    """% multisite → the sweep's verdict on the panel's comparison there (a manifest's
    ``precision`` record), where exactly one of its groups is that comparison."""
    if not record.get("groups"):
        return {}
    found: dict[float, list[dict[str, Any]]] = {}
    for g in record["groups"]:
        params = g.get("params") or {}
        if "multisite" not in params or params.get("update", update) != update:
            continue
        if by_size and params.get("rows_per_site", size) != size:
            continue
        found.setdefault(round(float(params["multisite"]) * 100, 6), []).append(g)
    precision = float(record["precision"])
    return {x: comparison_words(gs[0], precision, where=False).text for x, gs in found.items() if len(gs) == 1}


def _panel_summary(
    panel: str,
    series: list[tuple[str, str, pd.DataFrame]],
    titles: dict[str, str],
    several: bool,
    decided: dict[float, str] | None = None,
) -> list[str]:
    """``read 10 rows:``, then a line per series (``2ISL (per-core): 1.28 M txn/s at 0%
    multisite, falls to 36.8 K at 100% (-97%)``), then every comparison of the deployments, one
    line per % multisite: the sweep's verdict there (``decided``, ``compared at 0%: …``) where
    it has one, else the best against the runner-up from the rows (``at 0%: 2ISL (per-core) is
    1.26× faster than 1ISL (95% CI 1.08–1.47)``, :func:`~islands.analysis.verdicts.winner`)."""

    def name(dep: str, via: str) -> str:
        return titles[dep] + (f" over {_TRANSPORT_NAMES.get(via, via)}" if several and via != "none" else "")

    out = [f"{panel}:"]
    for dep, via, sub in series:
        trend = series_trend(
            sub["pct"].to_list(),
            sub["mean"].to_list(),
            lambda v: f"{fmt_tps(v)} txn/s",
            lambda x: f"at {x:g}% multisite",
            short=fmt_tps,
            at_short=lambda x: f"at {x:g}%",
            samples=sub["values"].to_list(),
        )
        out.append(f"  {name(dep, via)}: {trend}")
    # Who wins at each % multisite, and by how much.
    all_pct = sorted({p for _, _, sub in series for p in sub["pct"]})
    decided = decided or {}
    best = []
    if len(series) > 1:
        for x in all_pct:
            if round(float(x), 6) in decided:
                best.append(f"compared at {x:g}%: {decided[round(float(x), 6)]}")
                continue
            # Each deployment at its best transport, against the other deployments.
            per_dep: dict[str, tuple[float, str, tuple[float, ...]]] = {}
            for dep, via, sub in series:
                if (sub["pct"] == x).any():
                    here = sub[sub["pct"] == x].iloc[0]
                    value = (float(here["mean"]), name(dep, via), tuple(here["values"]))
                    per_dep[dep] = max(per_dep.get(dep, value), value)
            at = sorted(per_dep.values(), reverse=True)
            if len(at) < 2:
                continue
            best.append(f"at {x:g}%: {winner({who: values for _, who, values in at})}")
    out.extend(f"  {line}" for line in best)
    if several:
        gains = []
        for dep in dict.fromkeys(d for d, v, _ in series if v != "none"):
            by_via = {v: sub for d, v, sub in series if d == dep}
            if "shm" in by_via and "unix" in by_via:
                x = all_pct[-1]
                shm, unix = (by_via[v][by_via[v]["pct"] == x] for v in ("shm", "unix"))
                if len(shm) and len(unix):
                    gains.append(f"{titles[dep]} {change_text(shm, unix)}")
        if gains:
            out.append(f"  shared memory vs unix sockets at {all_pct[-1]:g}% multisite: " + ", ".join(gains))
    return out
