"""000 Fig 17 (read) and Fig 18 (update): the cost of a transaction as it touches more rows,
all local (left) and multisite (right), one line per deployment.

Time per transaction is ``cpus × 10⁶ / throughput``: the CPU-microseconds the whole
deployment spends per committed transaction, with aborted attempts, 2PC waits and messaging
included. With one closed-loop worker per cpu it equals the mean response time (Little's
law), but unlike the recorded latency it needs no assumption about what the latency
histogram counts (committed attempts only), so deployments of any shape compare on one
axis. Each point is ``cpus × 10⁶ / mean throughput`` over the repetitions (not the mean of
per-run times, which one stalled run would dominate); the error bar is the 95% confidence
interval of the mean throughput mapped to time (``[k / high, k / low]``), and the summary
states every change with its interval (:mod:`islands.analysis.statistics`). When the rows hold both read and update runs
the figure has two rows: Fig 17 on top, Fig 18 below.
"""

from __future__ import annotations

import pandas as pd

from islands.analysis.verdicts import winner
from islands.plots._common import (
    Drawing,
    aggregate,
    axis_scale,
    color_of,
    deployment_order,
    deployment_titles,
    draw_line,
    figure_legend,
    fmt_us,
    log_note,
    log_ticks,
    machine_note,
    marker_of,
    new_grid,
    plain_ticks,
    prepared,
    run_note,
    series_trend,
)
from islands.plots.figure_rules import titled

__all__ = ["plot_txn_size", "time_per_txn_us"]

#: The paper's figure of each kind (update or not): Fig 17/18 under locking, Fig 27 under occ
#: (Sec 9 draws one cost-vs-rows figure).
_FIGURE_OF = {False: "000-fig17", True: "000-fig18"}
_OCC_FIGURE_OF = {False: "000-fig27", True: "000-fig27"}
_TRANSPORT_NAMES = {"unix": "unix sockets", "shm": "shared memory", "tcp": "TCP"}


def time_per_txn_us(rows: pd.DataFrame) -> pd.Series:
    """``deployment.n_cpus × 10⁶ / throughput_tps`` per row: CPU-µs per committed transaction."""
    return rows["deployment.n_cpus"].astype(float) * 1e6 / rows["throughput_tps"].astype(float)


def plot_txn_size(rows: pd.DataFrame, figure_id: str = "000-fig17") -> Drawing:
    """Time per transaction (CPU-µs, see the module docstring) vs rows per transaction, one
    line per deployment; columns: local (0% multisite) and each multisite share the rows
    hold; rows: read (Fig 17) and update (Fig 18) as present. The summary gives each line's
    cost at the fewest and the most rows and the cheapest deployment at each end."""
    df = prepared(rows, f"figure {figure_id}")
    df = df[df["throughput_tps"] > 0].copy()
    if df.empty:
        raise ValueError(f"figure {figure_id}: no row has a positive throughput")
    df["rows"] = df["config.micro.rows_per_txn"].astype(int)
    df["pct"] = df["config.micro.multisite"].astype(float) * 100
    deployments = deployment_order(df)
    titles = deployment_titles(df)
    kinds = [u for u in (False, True) if u in set(df["update"])]
    shares = sorted(set(df["pct"]))
    occ = "config.engine.cc" in df and set(df["config.engine.cc"]) == {"occ"}
    figure_of = _OCC_FIGURE_OF if occ else _FIGURE_OF
    figures = list(dict.fromkeys(figure_of[u] for u in kinds))

    fig, grid = new_grid(len(kinds), len(shares), 5.6 * len(shares), 4.4 * len(kinds) + 0.8)
    lines: list[str] = []
    xs_all = sorted(set(df["rows"]))
    for r, update in enumerate(kinds):
        for c, share in enumerate(shares):
            ax = grid[r][c]
            part = df[(df["update"] == update) & (df["pct"] == share)]
            agg = aggregate(part, ["deployment", "rows", "n_cpus"])
            agg = as_time(agg)
            log = axis_scale(ax, agg["mean"])
            if len(xs_all) > 1 and xs_all[0] > 0 and xs_all[-1] / xs_all[0] >= 8:
                ax.set_xscale("log")
                log_ticks(ax.xaxis)
                ax.set_xticks(xs_all, [str(x) for x in xs_all])
            series = []
            for i, dep in enumerate(deployments):
                sub = agg[agg["deployment"] == dep].sort_values("rows")
                if sub.empty:
                    continue
                draw_line(
                    ax,
                    sub["rows"].to_list(),
                    sub,
                    color=color_of(i),
                    marker=marker_of(i),
                    linestyle="-",
                    label=titles[dep],
                )
                series.append((dep, sub))
            where = "local (0% multisite)" if share == 0 else f"{share:g}% multisite"
            kind = "read" if not update else "update"
            ax.set_title(f"{figure_of[update].replace('000-fig', 'Fig ')}: {kind}, {where}")
            ax.set_xlabel("rows per transaction" + (" (log scale)" if ax.get_xscale() == "log" else ""))
            ax.set_ylabel("time per transaction (CPU-µs" + (", log scale)" if log else ")"))
            if not log:
                ax.set_ylim(bottom=0)
                plain_ticks(ax.yaxis)
            ax.grid(alpha=0.3, which="major")
            lines.extend(_panel_summary(f"{kind}, {where}", series, titles))

    figure_legend(fig, [ax for row in grid for ax in row])
    transports = sorted(set(df["via"]) - {"none"})
    over = " over " + " and ".join(_TRANSPORT_NAMES.get(t, t) for t in transports) if transports else ""
    which = " and ".join(f.replace("000-fig", "Fig ") for f in figures)
    machine = machine_note(df)
    titled(
        fig,
        f"000 {which}: time per transaction vs rows per transaction{over}\n"
        "time per transaction = cpus × 10⁶ / throughput (CPU-µs per committed transaction)\n"
        f"{machine}\n{run_note(df)}\n{log_note(df)}",
    )
    stem = figures[0] if len(figures) == 1 else f"{figures[0]}-{figures[1].rsplit('fig', 1)[1]}"
    summary = "\n".join(
        [
            f"{stem}: time per transaction (cpus x 1e6 / throughput, CPU-µs) vs rows per transaction{over}; {machine}; "
            f"{log_note(df)}",
            *lines,
        ]
    )
    return Drawing(figure=fig, summary=summary, stem=stem)


def as_time(agg: pd.DataFrame) -> pd.DataFrame:
    """Aggregated throughputs (with an ``n_cpus`` column) as time per transaction: the mean,
    min, max, median and every repetition become ``n_cpus × 10⁶ / value``; the interval of the
    mean maps to ``[k / ci_high, k / ci_low]`` (inf where ``ci_low`` ≤ 0)."""
    out = agg.copy()
    k = out["n_cpus"].astype(float) * 1e6
    out["mean"] = k / agg["mean"]
    out["median"] = k / agg["median"]
    out["min"], out["max"] = k / agg["max"], k / agg["min"]
    out["ci_low"] = k / agg["ci_high"]
    out["ci_high"] = (k / agg["ci_low"]).where(agg["ci_low"] > 0, float("inf"))
    out["ci_high"] = out["ci_high"].where(agg["ci_low"].notna())
    out["sd"] = agg["sd"] / agg["mean"] * out["mean"]
    out["values"] = [tuple(kk / v for v in vs) for kk, vs in zip(k, agg["values"])]
    return out


def _panel_summary(panel: str, series: list[tuple[str, pd.DataFrame]], titles: dict[str, str]) -> list[str]:
    out = [f"{panel}:"]
    for dep, sub in series:
        trend = series_trend(
            sub["rows"].to_list(),
            sub["mean"].to_list(),
            fmt_us,
            lambda x: f"at {x} row{'s' if x != 1 else ''}",
            flat=0.10,
            falls="falls",
            rises="rises",
            samples=sub["values"].to_list(),
        )
        out.append(f"  {titles[dep]}: {trend}")
    if len(series) > 1:
        xs = sorted({x for _, sub in series for x in sub["rows"]})
        cheapest = []
        for x in [xs[0], xs[-1]] if len(xs) > 1 else xs:
            at = sorted(
                (float(here["mean"]), titles[dep], tuple(here["values"]))
                for dep, sub in series
                if (sub["rows"] == x).any()
                for here in [sub[sub["rows"] == x].iloc[0]]
            )
            rows_txt = f"{x} row{'s' if x != 1 else ''}"
            if len(at) >= 2:
                verdict = winner({who: values for _, who, values in at}, lower_is_better=True)
                cheapest.append(f"at {rows_txt}: {verdict}")
        if cheapest:
            out.append("  " + "; ".join(cheapest))
    return out
