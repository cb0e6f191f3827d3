"""Paper 004 (in-memory engines on multicores): TPC-C throughput vs the number of clients.

- Fig 3: read-only TPC-C, one shared engine vs the "aggregate" (one engine per client, here
  one single-threaded instance per core, all transactions local);
- Fig 4: the mixes (standard, 50-50, 80-20, 100-0) under each isolation level;
- Fig 5-8: the original engine (table-level 2PL with index latches) vs the modified one
  (latch-free indexes), against the aggregate.

One panel per mix, clients (the deployment's cpus) on x. A line is an engine: the shared
engine under each setting that varies (CC scheme, latches, isolation level), and the
aggregate. One client is one single-threaded instance, so its point belongs to both the
shared engine and the aggregate. Each point is the mean over the repetitions with its 95%
confidence interval; ratios are stated with their intervals.
"""

from __future__ import annotations

import pandas as pd

from islands.plots._common import (
    Drawing,
    aggregate,
    color_of,
    draw_line,
    figure_legend,
    fmt_tps,
    log_note,
    machine_note,
    marker_of,
    new_grid,
    plain_ticks,
    prepared,
    ratio_text,
    run_note,
)
from islands.plots.figure_rules import titled

__all__ = ["plot_engines"]

_TITLES = {
    "004-fig3": "004 Fig 3: read-only TPC-C, one shared engine vs one engine per client",
    "004-fig4": "004 Fig 4: TPC-C mixes × isolation level",
    "004-fig5": "004 Fig 5-8: latch-free indexes under table-level 2PL",
}
#: Paper 004's mixes in its order (read-only share last).
_MIXES = ("standard", "50-50", "80-20", "100-0")
_VARIANTS = ("config.engine.cc", "config.engine.latching", "config.engine.isolation")
_AGGREGATE = "aggregate (one engine per client)"


def plot_engines(rows: pd.DataFrame, figure_id: str = "004-fig3") -> Drawing:
    """TPC-C throughput (thousand txn/s) vs clients, one panel per mix, one line per engine.
    The summary gives, per panel, each line's throughput at one client and at the most
    clients with its scaling, and at the most clients every shared engine beside the
    aggregate and the latch-free engine beside the latched one."""
    df = prepared(rows, f"figure {figure_id}", extra=("config.tpcc.mix", *_VARIANTS))
    df["clients"] = df["n_cpus"]
    varying = [c for c in _VARIANTS if df[c].astype(str).nunique() > 1]
    single = df[df["n_instances"] == 1].copy()
    single["engine"] = single.apply(lambda r: _engine_label(r, varying), axis=1)
    # The aggregate: one single-threaded instance per client; with one client that is the
    # single instance of each variant.
    spread = df[(df["n_instances"] == df["n_cpus"])].copy()
    spread["engine"] = spread.apply(lambda r: _AGGREGATE + _variant_suffix(r, varying), axis=1)
    if not (spread["n_instances"] > 1).any():
        spread = spread.iloc[:0]
    data = pd.concat([single, spread], ignore_index=True)
    engines = list(dict.fromkeys(sorted(single["engine"].unique()))) + sorted(spread["engine"].unique())
    mixes = sorted(set(data["config.tpcc.mix"].astype(str)), key=lambda m: (_MIXES.index(m) if m in _MIXES else 9, m))

    cols = min(2, len(mixes))
    nrows = (len(mixes) + cols - 1) // cols
    fig, grid = new_grid(nrows, cols, max(9.5, 5.2 * cols + 1.5), 3.6 * nrows + 1.8)
    axes = [ax for row in grid for ax in row]
    lines: list[str] = []
    for k, mix in enumerate(mixes):
        ax = axes[k]
        part = data[data["config.tpcc.mix"].astype(str) == mix]
        agg = aggregate(part, ["engine", "clients"])
        lines.append(f"{mix} mix:")
        for i, engine in enumerate(engines):
            sub = agg[agg["engine"] == engine].sort_values("clients")
            if sub.empty:
                continue
            style = ":" if engine.startswith(_AGGREGATE) else "-"
            draw_line(
                ax,
                sub["clients"].to_list(),
                sub,
                color=color_of(i),
                marker=marker_of(i),
                linestyle=style,
                label=engine,
                scale=1e-3,
            )
            first, last = sub.iloc[0], sub.iloc[-1]
            scaling = (
                f" ({ratio_text(last, first)} from {int(first['clients'])} to {int(last['clients'])} clients)"
                if len(sub) > 1
                else ""
            )
            lines.append(
                f"  {engine}: {fmt_tps(first['mean'])} at {int(first['clients'])} → {fmt_tps(last['mean'])}"
                f" txn/s at {int(last['clients'])}{scaling}"
            )
        lines.extend(_comparisons(agg, engines))
        ax.set_title(f"{mix} mix")
        ax.set_xlabel("clients (cores)")
        ax.set_ylabel("throughput (thousand txn/s)")
        ax.set_ylim(bottom=0)
        ax.set_xticks(sorted(set(part["clients"])))
        plain_ticks(ax.yaxis)
        ax.grid(alpha=0.3)
    for ax in axes[len(mixes) :]:
        ax.set_visible(False)
    figure_legend(fig, axes[: len(mixes)], max_cols=2)
    machine = machine_note(df)
    title = _TITLES.get(figure_id, f"{figure_id}: TPC-C vs clients")
    titled(fig, f"{title}\n{machine}\n{run_note(df)};\nno remote transactions; {log_note(df)}")
    summary = "\n".join([f"{figure_id}: {title.split(': ', 1)[-1]}; {machine}", *lines])
    return Drawing(figure=fig, summary=summary, stem=figure_id)


def _variant_suffix(row: pd.Series, varying: list[str]) -> str:
    parts = []
    for column in varying:
        value = row[column]
        if column == "config.engine.latching":
            parts.append("latched" if bool(value) else "latch-free")
        elif column == "config.engine.isolation":
            parts.append(str(value).replace("_", " "))
        else:
            parts.append(str(value))
    return f", {', '.join(parts)}" if parts else ""


def _engine_label(row: pd.Series, varying: list[str]) -> str:
    return "shared engine" + _variant_suffix(row, varying)


def _comparisons(agg: pd.DataFrame, engines: list[str]) -> list[str]:
    """At the most clients every line has: shared engines against the aggregate, and each
    latch-free engine against its latched sibling."""
    if agg.empty:
        return []
    most = agg.groupby("engine")["clients"].max()
    top = int(most.min())
    if top < 2:
        return []
    at = agg[agg["clients"] == top].set_index("engine")
    out = []
    aggregates = [e for e in engines if e.startswith(_AGGREGATE) and e in at.index]
    for engine in engines:
        if engine not in at.index or engine.startswith(_AGGREGATE):
            continue
        for other in aggregates:
            out.append(f"  at {top} clients {engine} / {other}: {ratio_text(at.loc[engine], at.loc[other])}")
        if "latch-free" in engine:
            latched = engine.replace("latch-free", "latched")
            if latched in at.index:
                out.append(f"  at {top} clients latch-free / latched: {ratio_text(at.loc[engine], at.loc[latched])}")
    return out
