"""Characterization figures: why deployments differ, read from the processor and the engine.

- 000 Fig 13 / 15: time per transaction by engine component (management, execution,
  communication, locking, logging), stacked, vs % multisite; read and update; unix sockets
  (Fig 13) or shared memory (Fig 15).
- 000 Fig 12: IPC, % stalled cycles, % LLC misses per deployment, cache- and memory-resident.
- 003 Fig 1 / 5: the cycle breakdown (paper 003's categories) vs data size / rows per
  transaction.
- 003 Fig 6: the code-module breakdown (share of samples per engine module).

Where the hardware counters are missing, the panel says why (the reason stored in each row's
metadata) instead of drawing zeros, and a panel of simulated counters (cachegrind, a
single-threaded copy of the instance, labelled simulated) fills in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.axes import Axes

from islands.plots._common import (
    Drawing,
    color_of,
    deployment_order,
    machine_note,
    new_grid,
    prepared,
    run_note,
)
from islands.plots.figure_rules import titled

__all__ = ["plot_breakdown", "plot_cycles", "plot_microarch", "plot_modules"]

COMPONENTS = ("management", "execution", "communication", "locking", "logging")
COMPONENT_LABELS = {
    "management": "xct management",
    "execution": "xct execution",
    "communication": "communication",
    "locking": "locking",
    "logging": "logging",
}
CATEGORIES = ("cat_retiring", "cat_branch_misprediction", "cat_icache", "cat_decoding", "cat_dcache", "cat_resource")
CATEGORY_LABELS = {
    "cat_retiring": "retiring",
    "cat_branch_misprediction": "branch mispred.",
    "cat_icache": "icache",
    "cat_decoding": "decoding",
    "cat_dcache": "dcache",
    "cat_resource": "resource/dependency",
}
MODULES = ("index", "cc", "log", "transaction", "transport", "driver", "other")
_TRANSPORT_NAMES = {"unix": "unix sockets", "shm": "shared memory", "tcp": "TCP", "none": "one instance"}


def _num(df: pd.DataFrame, column: str) -> pd.Series:
    if column not in df.columns:
        return pd.Series(np.nan, index=df.index)
    return pd.to_numeric(df[column], errors="coerce")


def _missing_reason(df: pd.DataFrame, metrics: Sequence[str]) -> str:
    """The stored reason the first of ``metrics`` is missing ('' when none is stored)."""
    for metric in metrics:
        column = f"metadata.counters_missing.{metric}"
        if column in df.columns:
            reasons = [r for r in df[column].dropna().astype(str) if r]
            if reasons:
                return reasons[0]
    return ""


def _say_why(ax: Axes, what: str, reason: str) -> None:
    """A panel that could not be drawn: what is missing and why, written on it."""
    import textwrap

    text = f"{what}: not measured on this machine\n\n" + textwrap.fill(
        reason or "the rows hold no such counters (the sweep's [profile] did not ask for them)", 60
    )
    ax.text(
        0.5,
        0.5,
        text,
        ha="center",
        va="center",
        transform=ax.transAxes,
        fontsize=8.5,
        wrap=True,
        bbox={"boxstyle": "round", "facecolor": "#f5f5f5", "edgecolor": "#999999"},
    )
    ax.set_xticks([])
    ax.set_yticks([])


def _stack(
    ax: Axes, labels: Sequence[str], parts: Mapping[str, npt.ArrayLike], names: dict[str, str], ylabel: str
) -> None:
    x = np.arange(len(labels))
    bottom = np.zeros(len(labels))
    for i, (key, values) in enumerate(parts.items()):
        v = np.nan_to_num(np.asarray(values, dtype=float))
        ax.bar(
            x, v, 0.65, bottom=bottom, color=color_of(i), label=names.get(key, key), edgecolor="white", linewidth=0.5
        )
        bottom += v
    ax.set_xticks(x, labels)
    ax.set_ylabel(ylabel)
    top = float(np.max(bottom)) if len(bottom) else 0.0
    if top > 0:  # headroom: the tallest bar is whole, never cut by the frame
        ax.set_ylim(0, top * 1.08)


def plot_breakdown(rows: pd.DataFrame, figure_id: str = "000-fig13") -> Drawing:
    """Stacked µs per transaction by component vs % multisite: one panel per deployment ×
    read/update. Needs rows swept with ``[profile] breakdown_every``."""
    what = f"figure {figure_id}"
    df = prepared(rows, what, extra=("breakdown.total_us",))
    df["pct"] = (df["config.micro.multisite"].astype(float) * 100).round(6)
    for component in COMPONENTS:
        df[component] = _num(df, f"breakdown.{component}_us")
    deployments = deployment_order(df)
    kinds = [u for u in (False, True) if u in set(df["update"])]
    fig, grid = new_grid(len(deployments), len(kinds), 5.2 * len(kinds), 3.6 * len(deployments) + 1.0)
    lines = []
    for r, dep in enumerate(deployments):
        for c, update in enumerate(kinds):
            ax = grid[r][c]
            part = df[(df["deployment"] == dep) & (df["update"] == update)]
            mean = part.groupby("pct")[list(COMPONENTS)].mean().sort_index()
            via = ", ".join(sorted(set(part["via"])))
            kind = "update" if update else "read"
            rows_per_txn = int(part["config.micro.rows_per_txn"].iloc[0])
            _stack(
                ax,
                [f"{p:g}%" for p in mean.index],
                {k: mean[k] for k in COMPONENTS},
                COMPONENT_LABELS,
                "µs per transaction",
            )
            ax.set_title(f"{dep} ({_TRANSPORT_NAMES.get(via, via)}): {kind} {rows_per_txn} rows")
            ax.set_xlabel("multisite transactions")
            for p, row in mean.iterrows():
                total = sum(row[k] for k in COMPONENTS if not math.isnan(row[k]))
                parts = ", ".join(f"{COMPONENT_LABELS[k]} {row[k]:.2f}" for k in COMPONENTS if row[k] > 0)
                lines.append(f"{dep} {via} {kind} {p:g}% multisite: {total:.2f} µs/txn = {parts}")
    handles, labels = grid[0][0].get_legend_handles_labels()
    ncols = len(COMPONENTS) if len(kinds) > 1 else 3  # one panel: the legend in two rows
    fig.legend(handles, labels, loc="outside lower center", ncols=ncols, frameon=False)
    transports = sorted(set(df["via"]) - {"none"})
    title = "time per transaction by component" + (
        f" over {', '.join(_TRANSPORT_NAMES[t] for t in transports)}" if transports else ""
    )
    titled(fig, f"{figure_id}: {title}\n{machine_note(rows)}\n{run_note(df)}")
    summary = "\n".join([f"{figure_id}: {title} (engine component clock, sampled transactions)", *lines])
    return Drawing(fig, summary, figure_id)


def _simulated_panel(ax: Axes, x_labels: Sequence[str], sim: pd.DataFrame, xlabel: str) -> list[str]:
    """Simulated (cachegrind) misses per 1000 instructions by x, and instructions per txn."""
    lines = []
    if sim.empty or sim["simulated.instructions"].isna().all():
        reason = ""
        if "simulated.reason" in sim.columns:
            reason = next((r for r in sim["simulated.reason"].dropna().astype(str) if r), "")
        _say_why(ax, "simulated counters", reason or "the sweep's [profile] did not ask for simulate")
        return ["simulated counters: none"]
    x = np.arange(len(x_labels))
    width = 0.2
    # A count whose two-run difference fell below zero is below what the simulation resolves:
    # the measurement records it as 0 and names it (simulated.floored); rows of an older
    # method may still hold a negative rate, drawn at 0 and named the same way.
    floored: set[str] = set()
    tallest = 0.0
    names = {"l1i": "L1i", "l1d": "L1d", "ll": "LL", "branch": "branch mispred."}
    if "simulated.floored" in sim.columns:
        for text in sim["simulated.floored"].dropna().astype(str):
            floored |= {names.get(m.strip().split("_")[0], m.strip()) for m in text.split(",") if m.strip()}
    for i, (col, name) in enumerate(
        (
            ("simulated.l1i_mpki", "L1i"),
            ("simulated.l1d_mpki", "L1d"),
            ("simulated.ll_mpki", "LL"),
            ("simulated.branch_mpki", "branch mispred."),
        )
    ):
        values = sim[col].to_numpy(dtype=float)
        if (values < 0).any():
            floored.add(name)
        ax.bar(x + (i - 1.5) * width, np.clip(values, 0, None), width, color=color_of(i), label=name)
        tallest = max(tallest, float(np.nanmax(values)) if np.isfinite(values).any() else 0.0)
    ax.set_xticks(x, x_labels)
    ax.set_ylabel("misses per 1000 instructions (simulated)")
    ax.set_ylim(0, tallest * 1.35 if tallest > 0 else 1.0)  # room for the legends above the bars
    ax.set_xlabel(xlabel)
    twin = ax.twinx()
    instructions = sim["simulated.instructions"].to_numpy(dtype=float)
    twin.plot(x, instructions, "k.-", label="instructions / txn")
    twin.set_ylabel("instructions per transaction (simulated)")
    # Headroom above the highest point: the line stays clear of the title and the legends.
    top = np.nanmax(instructions) if np.isfinite(instructions).any() else 0.0
    twin.set_ylim(0, top * 1.25 if top > 0 else 1.0)
    ax.legend(loc="upper left", fontsize=7, frameon=False)
    twin.legend(loc="upper right", fontsize=7, frameon=False)
    models = []
    if "simulated.cache_model" in sim.columns:
        models = [m for m in dict.fromkeys(sim["simulated.cache_model"].dropna().astype(str)) if m]
    model = " / ".join(models) if models else "host caches (model not recorded)"
    below = f"\nbelow the simulation's resolution, drawn at 0: {', '.join(sorted(floored))}" if floored else ""
    ax.set_title(f"SIMULATED: valgrind, a single-threaded copy\ncaches: {model}{below}", fontsize=8, wrap=True)
    lines.append(f"simulated cache model: {model}")
    if floored:
        lines.append(f"simulated misses below the simulation's resolution (drawn at 0): {', '.join(sorted(floored))}")
    for label, (_, row) in zip(x_labels, sim.iterrows()):
        how = ""
        if isinstance(row.get("simulated.method"), str) and row["simulated.method"]:
            seconds = pd.to_numeric(row.get("simulated.seconds", math.nan), errors="coerce")
            how = f" ({row['simulated.method']}" + (f", {seconds:.0f} s" if np.isfinite(seconds) else "") + ")"
        lines.append(
            f"simulated {label}{how}: {row['simulated.instructions']:,.0f} instructions/txn, "
            f"L1i {row['simulated.l1i_mpki']:.2f}, L1d {row['simulated.l1d_mpki']:.2f}, "
            f"LL {row['simulated.ll_mpki']:.3f}, branch mispred. {row['simulated.branch_mpki']:.2f} per 1000 instr."
        )
    return lines


def plot_microarch(rows: pd.DataFrame, figure_id: str = "000-fig12") -> Drawing:
    """IPC, % stalled cycles and % LLC misses per deployment for each data size (rows per
    site); and the simulated counters per data size."""
    what = f"figure {figure_id}"
    df = prepared(rows, what)
    df["size"] = df["config.micro.rows_per_site"].astype(int)
    sizes = sorted(set(df["size"]))
    deployments = deployment_order(df)
    fig, grid = new_grid(2, 2, 11.0, 8.0)
    lines = [f"{figure_id}: micro-architecture per deployment (local read, hardware counters)"]
    panels = (
        ("metrics.ipc", "IPC", ("instructions", "cycles")),
        ("metrics.stalled_pct", "% of cycles stalled", ("stalled_cycles", "cycles")),
        ("metrics.llc_miss_pct", "% of LLC references missing", ("llc_misses", "llc_references")),
    )
    for ax, (col, label, needs) in zip([grid[0][0], grid[0][1], grid[1][0]], panels):
        values = _num(df, col)
        if values.isna().all():
            _say_why(ax, label, _missing_reason(df, needs))
            lines.append(f"{label}: not measured ({_missing_reason(df, needs) or 'not asked for'})")
            continue
        x = np.arange(len(deployments))
        width = 0.8 / len(sizes)
        for j, size in enumerate(sizes):
            means = [values[(df["deployment"] == d) & (df["size"] == size)].mean() for d in deployments]
            ax.bar(x + (j - (len(sizes) - 1) / 2) * width, means, width, color=color_of(j), label=f"{size:,} rows/site")
            lines.append(
                f"{label}, {size:,} rows/site: " + ", ".join(f"{d} {m:.2f}" for d, m in zip(deployments, means))
            )
        ax.set_xticks(x, deployments)
        ax.set_ylabel(label)
        ax.legend(fontsize=7, frameon=False)
    sim = (
        df.groupby("size")[[c for c in df.columns if c.startswith("simulated.")]].first().reset_index()
        if any(c.startswith("simulated.") for c in df.columns)
        else pd.DataFrame()
    )
    for c in (
        "simulated.instructions",
        "simulated.l1i_mpki",
        "simulated.l1d_mpki",
        "simulated.ll_mpki",
        "simulated.branch_mpki",
    ):
        if not sim.empty:
            sim[c] = _num(sim, c)
    lines += _simulated_panel(
        grid[1][1], [f"{s:,} rows/site" for s in sizes], sim, "data size (same for every deployment)"
    )
    titled(fig, f"{figure_id}: IPC, stalls and LLC misses per deployment\n{machine_note(rows)}\n{run_note(df)}")
    return Drawing(fig, "\n".join(lines), figure_id)


def plot_cycles(rows: pd.DataFrame, figure_id: str = "003-fig1") -> Drawing:
    """Paper 003's cycle breakdown (retiring, branch misprediction, icache, decoding, dcache,
    resource) vs data size (Fig 1) or rows per transaction (Fig 5), with the simulated
    counters beside it."""
    what = f"figure {figure_id}"
    df = prepared(rows, what)
    by_rows = figure_id == "003-fig5"
    key = "config.micro.rows_per_txn" if by_rows else "config.micro.rows_per_site"
    df["x"] = df[key].astype(int)
    row_bytes = 16 + 4 * int(df["config.micro.columns"].iloc[0]) if "config.micro.columns" in df.columns else 56
    xs = sorted(set(df["x"]))
    labels = [f"{x} rows/txn" if by_rows else f"{x * row_bytes / 2**20:,.1f} MB" for x in xs]
    fig, grid = new_grid(1, 2, 12.0, 4.8)
    lines = [f"{figure_id}: cycle breakdown vs {'rows per transaction' if by_rows else 'data size'}"]
    cats = {c: [_num(df, f"metrics.{c}")[df["x"] == x].mean() for x in xs] for c in CATEGORIES}
    if all(math.isnan(v) for vals in cats.values() for v in vals):
        reason = _missing_reason(df, ("slots", "cycles", "icache_stall_cycles"))
        _say_why(grid[0][0], "cycle breakdown (top-down / 003 categories)", reason)
        lines.append(f"cycle breakdown: not measured ({reason or 'not asked for'})")
    else:
        _stack(
            grid[0][0], labels, {c: [100 * v for v in vals] for c, vals in cats.items()}, CATEGORY_LABELS, "% of cycles"
        )
        grid[0][0].legend(fontsize=7, frameon=False)
        for i, label in enumerate(labels):
            lines.append(f"{label}: " + ", ".join(f"{CATEGORY_LABELS[c]} {100 * cats[c][i]:.1f}%" for c in CATEGORIES))
    sim = (
        df.groupby("x")[[c for c in df.columns if c.startswith("simulated.")]].first().reset_index()
        if any(c.startswith("simulated.") for c in df.columns)
        else pd.DataFrame()
    )
    if not sim.empty:
        for c in sim.columns:
            if c not in ("x", "simulated.reason", "simulated.caches", "simulated.cache_model", "simulated.method"):
                sim[c] = _num(sim, c)
    lines += _simulated_panel(grid[0][1], labels, sim, "rows per transaction" if by_rows else "data size")
    note = ""
    if not sim.empty and "simulated.caches" in sim.columns:
        note = "\nsimulated caches: " + str(sim["simulated.caches"].dropna().iloc[0])
    titled(fig, f"{figure_id}: where the cycles go\n{machine_note(rows)}\n{run_note(df)}{note}")
    return Drawing(fig, "\n".join(lines), figure_id)


def plot_modules(rows: pd.DataFrame, figure_id: str = "003-fig6") -> Drawing:
    """Share of perf samples per engine module, one stacked bar per (read/update, rows per
    transaction)."""
    what = f"figure {figure_id}"
    df = prepared(rows, what, extra=("modules.samples.index",))
    df["label"] = [f"{'update' if u else 'read'} {n}" for u, n in zip(df["update"], df["config.micro.rows_per_txn"])]
    labels = list(dict.fromkeys(df.sort_values(["update", "config.micro.rows_per_txn"])["label"]))
    shares = {}
    for m in MODULES:
        df[m] = _num(df, f"modules.shares.{m}")
        shares[m] = [100 * df.loc[df["label"] == lab, m].mean() for lab in labels]
    fig, grid = new_grid(1, 1, 8.0, 4.8)
    if all(math.isnan(v) for vals in shares.values() for v in vals):
        _say_why(grid[0][0], "code-module profile", _missing_reason(df, ("modules",)))
    else:
        _stack(grid[0][0], labels, shares, {}, "% of samples")
        grid[0][0].legend(fontsize=7, frameon=False, loc="center left", bbox_to_anchor=(1.0, 0.5))
    lines = [f"{figure_id}: code-module breakdown (perf record cpu-clock samples, engine line tables)"]
    for i, lab in enumerate(labels):
        lines.append(f"{lab} rows: " + ", ".join(f"{m} {shares[m][i]:.1f}%" for m in MODULES))
    titled(fig, f"{figure_id}: time by engine module\n{machine_note(rows)}\n{run_note(df)}")
    return Drawing(fig, "\n".join(lines), figure_id)
