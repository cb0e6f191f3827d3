"""000 Fig 20: throughput as the row choice grows skewed (Zipf exponent s), read (top) and
update (bottom), one line per deployment × % multisite.

Colour and marker name the deployment, the line style the share of multisite transactions
(solid the lowest, then dashed, dotted, ...). Each point is the mean throughput over the
repetitions with its 95% confidence interval; changes are stated with their intervals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
from matplotlib.lines import Line2D

from islands.plots._common import (
    Drawing,
    aggregate,
    axis_scale,
    change_text,
    color_of,
    deployment_order,
    deployment_titles,
    draw_line,
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

__all__ = ["plot_skew"]

if TYPE_CHECKING:
    from matplotlib.typing import LineStyleType

_STYLES: tuple[LineStyleType, ...] = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))
_TRANSPORT_NAMES = {"unix": "unix sockets", "shm": "shared memory", "tcp": "TCP"}


def plot_skew(rows: pd.DataFrame, figure_id: str = "000-fig20") -> Drawing:
    """Throughput (thousand txn/s) vs Zipf s, one panel per read / update (stacked), one line
    per deployment and % multisite. The summary gives, per panel and % multisite, each
    deployment's throughput at the lowest and the highest s and the change between them."""
    df = prepared(rows, f"figure {figure_id}", extra=("config.micro.zipf_s",))
    df["s"] = df["config.micro.zipf_s"].astype(float)
    df["pct"] = df["config.micro.multisite"].astype(float) * 100
    deployments = deployment_order(df)
    titles = deployment_titles(df)
    kinds = [u for u in (False, True) if u in set(df["update"])]
    shares = sorted(set(df["pct"]))

    fig, grid = new_grid(len(kinds), 1, 10.0, 4.3 * len(kinds) + 0.9, sharey=True)
    # One scale for both panels, so that read and update compare at a glance.
    log = axis_scale(grid[0][0], aggregate(df, ["deployment", "update", "pct", "s"])["mean"] / 1e3)
    if not log:
        plain_ticks(grid[0][0].yaxis)
    lines: list[str] = []
    for r, update in enumerate(kinds):
        ax = grid[r][0]
        part = df[df["update"] == update]
        agg = aggregate(part, ["deployment", "pct", "s"])
        rows_txt = _rows_text(part)
        kind = "update" if update else "read"
        lines.append(f"{kind} {rows_txt}:")
        for j, share in enumerate(shares):
            parts = []
            for i, dep in enumerate(deployments):
                sub = agg[(agg["deployment"] == dep) & (agg["pct"] == share)].sort_values("s")
                if sub.empty:
                    continue
                draw_line(
                    ax,
                    sub["s"].to_list(),
                    sub,
                    color=color_of(i),
                    marker=marker_of(i),
                    linestyle=_STYLES[j % len(_STYLES)],
                    label=None,
                    scale=1e-3,
                )
                first, last = sub.iloc[0], sub.iloc[-1]
                if len(sub) > 1:
                    parts.append(
                        f"{dep} {fmt_tps(first['mean'])} at s={first['s']:g} → {fmt_tps(last['mean'])} "
                        f"at s={last['s']:g} ({change_text(last, first)})"
                    )
                else:
                    parts.append(f"{dep} {fmt_tps(first['mean'])} at s={first['s']:g}")
            lines.append(f"  {share:g}% multisite: " + "; ".join(parts) + " txn/s")
        ax.set_title(f"{kind} {rows_txt} per transaction")
        ax.set_xlabel("Zipf exponent s of the row choice (0 = uniform)")
        ax.set_ylabel("throughput (thousand txn/s" + (", log scale)" if log else ")"))
        if not log:
            ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3, which="major")
        ax.tick_params(labelleft=True)
    # One legend in two parts: colour and marker = deployment, line style = % multisite.
    handles = [
        Line2D([], [], color=color_of(i), marker=marker_of(i), label=titles[d]) for i, d in enumerate(deployments)
    ]
    handles += [
        Line2D([], [], color="0.3", linestyle=_STYLES[j % len(_STYLES)], label=f"{share:g}% multisite")
        for j, share in enumerate(shares)
    ]
    fig.legend(handles=handles, loc="outside right center", fontsize=8, frameon=False)

    transports = sorted(set(df["via"]) - {"none"})
    over = " over " + " and ".join(_TRANSPORT_NAMES.get(t, t) for t in transports) if transports else ""
    machine = machine_note(df)
    logged = log_note(df)
    titled(fig, f"000 Fig 20: throughput vs Zipf skew{over}\n{machine}\n{run_note(df)}\n{logged}")
    legend_note = "deployments: " + ", ".join(titles[d] for d in deployments)
    summary = "\n".join([f"{figure_id}: throughput vs Zipf skew s{over}; {machine}; {logged}; {legend_note}", *lines])
    return Drawing(figure=fig, summary=summary, stem=figure_id)


def _rows_text(part: pd.DataFrame) -> str:
    sizes = sorted({int(v) for v in part["config.micro.rows_per_txn"]})
    n = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
    return f"{n} row{'s' if sizes[-1] != 1 else ''}"
