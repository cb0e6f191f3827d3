"""What the deployment figures (000 Fig 11, 14, 17, 18, 20) share: reading sweep rows,
naming deployments, averaging repetitions, the machine note and number formatting.

A figure function takes the rows of one results directory (``ResultStore.rows()``: flattened
dotted columns) and returns a :class:`Drawing` — the matplotlib figure on the Agg canvas
(never pyplot state), a short text summary of what it shows, and the file stem to save it
under. Saving is the caller's business (``islands plot`` writes PNG, PDF and summary.txt).
"""

from __future__ import annotations

import json
import math
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from islands.analysis.statistics import CONFIDENCE, Ratio, ratio, summarize
from islands.analysis.tables import human_number
from islands.analysis.verdicts import change_words, ratio_words
from islands.config.settings import DEFAULT_WORKLOAD
from islands.config.workload_registry import workload as workload_of
from islands.config.workload_words import SIZE_WORDS, size_words
from islands.machine.topology import Topology
from islands.plots._bench_style import COLORS
from islands.plots.inline_figure import InlineFigure, png_bytes

__all__ = [
    "Drawing",
    "aggregate",
    "axis_scale",
    "change_text",
    "color_of",
    "deployment_order",
    "deployment_titles",
    "draw_line",
    "error_bars",
    "figure_legend",
    "fmt_tps",
    "fmt_us",
    "log_note",
    "log_ticks",
    "machine_note",
    "one_socket_note",
    "marker_of",
    "new_grid",
    "plain_ticks",
    "prepared",
    "ratio_of",
    "ratio_text",
    "require",
    "run_note",
    "series_trend",
    "topology_of",
]

#: Columns every deployment figure reads.
BASE_COLUMNS = (
    "deployment.name",
    "deployment.n_instances",
    "deployment.n_cpus",
    "transport",
    "throughput_tps",
    "config.micro.update",
    "config.micro.multisite",
    "config.micro.rows_per_txn",
)
#: One marker per deployment, in the order of :data:`COLORS`.
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
#: Line style per transport (a single instance sends no messages: "none").
TRANSPORT_STYLES = {"shm": "-", "unix": "--", "tcp": ":", "none": "-"}
#: A panel whose values span more than this factor is drawn on a log scale.
LOG_RATIO = 20.0


@dataclass(frozen=True)
class Drawing:
    """A rendered figure: the figure, what it shows in a few lines, and its file stem."""

    figure: Figure
    summary: str
    stem: str

    def _repr_png_(self) -> bytes:
        """A notebook shows a drawing as its figure."""
        return png_bytes(self.figure)


def require(rows: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    """Raises ValueError (one line) when ``rows`` is empty or lacks one of ``columns``."""
    if rows.empty:
        raise ValueError(f"{what}: no result rows")
    missing = [c for c in columns if c not in rows.columns]
    if missing:
        raise ValueError(f"{what}: the rows have no column {missing[0]!r} (not sweep results of the micro workload?)")


def prepared(rows: pd.DataFrame, what: str, extra: Sequence[str] = ()) -> pd.DataFrame:
    """The rows with the columns the figures use, typed, plus ``deployment`` (the name),
    ``via`` (the transport, ``none`` for single instances, which send no messages) and
    ``update`` as a plain bool. Rows without a finite throughput are dropped."""
    require(rows, (*BASE_COLUMNS, *extra), what)
    df = rows.copy()
    df["deployment"] = df["deployment.name"].astype(str)
    df["update"] = df["config.micro.update"].astype(bool)
    df["n_instances"] = df["deployment.n_instances"].astype(int)
    df["n_cpus"] = df["deployment.n_cpus"].astype(int)
    df["via"] = np.where(df["n_instances"] > 1, df["transport"].astype(str), "none")
    df["throughput_tps"] = pd.to_numeric(df["throughput_tps"], errors="coerce")
    df = df[np.isfinite(df["throughput_tps"])]
    if df.empty:
        raise ValueError(f"{what}: no row has a measured throughput")
    return df


def deployment_order(df: pd.DataFrame) -> list[str]:
    """Deployment names from the fewest instances to the most (1ISL first, per-core last)."""
    first = df.drop_duplicates("deployment")
    return list(first.sort_values(["n_instances", "deployment"], kind="stable")["deployment"])


def deployment_titles(df: pd.DataFrame) -> dict[str, str]:
    """Each deployment name with the machine-relative roles it plays, for legends and
    summaries: ``"1ISL (shared-everything = per-socket)"``, ``"24ISL (per-core)"``."""
    out: dict[str, str] = {}
    for _, row in df.drop_duplicates("deployment").iterrows():
        roles = [r for r in str(row.get("deployment.roles", "") or "").split(",") if r]
        out[row["deployment"]] = f"{row['deployment']} ({' = '.join(roles)})" if roles else row["deployment"]
    return out


def aggregate(df: pd.DataFrame, by: Sequence[str], value: str = "throughput_tps") -> pd.DataFrame:
    """The repetitions of each ``by`` group summarized by :func:`islands.analysis.statistics.summarize`:
    ``n``, ``mean``, ``median``, ``min``, ``max``, ``sd`` and the 95% confidence interval of
    the mean (``ci_low``, ``ci_high``; NaN for a single repetition), plus ``values`` (the
    repetitions themselves, for :func:`ratio_of`); the group columns come back as columns."""
    records = []
    for key, group in df.groupby(list(by), sort=True)[value]:
        keys = key if isinstance(key, tuple) else (key,)
        values = tuple(float(v) for v in group)
        records.append({**dict(zip(by, keys)), **summarize(values).to_dict(), "values": values})
    columns = [*by, "n", "mean", "median", "min", "max", "sd", "ci_low", "ci_high", "values"]
    return pd.DataFrame.from_records(records, columns=columns)


def ratio_of(new: Any, old: Any) -> Ratio:
    """The ratio of two aggregated points (rows of :func:`aggregate`, or their ``values``)."""
    return ratio(_values(new), _values(old))


def _values(x: Any) -> Sequence[float]:
    if isinstance(x, pd.DataFrame):
        return list(x["values"].iloc[0])
    if isinstance(x, pd.Series):
        return list(x["values"])
    return list(x)


def change_text(new: Any, old: Any) -> str:
    """The change from ``old`` to ``new`` (aggregated points) with its interval:
    ``-86% (95% CI -88% to -84%)`` or ``… not distinguishable``; see :mod:`islands.analysis.verdicts`."""
    return change_words(_values(new), _values(old))


def ratio_text(new: Any, old: Any) -> str:
    """``new / old`` (aggregated points) as ``1.6× (95% CI 1.4–1.8)`` or ``… not
    distinguishable``; see :mod:`islands.analysis.verdicts`."""
    return ratio_words(_values(new), _values(old))


def topology_of(rows: pd.DataFrame) -> Topology | None:
    """The stored topology of the first row (its ``topology.*`` columns), or None."""
    cols = [c for c in rows.columns if c.startswith("topology.")]
    if not cols:
        return None
    first = rows.iloc[0]
    d: dict[str, Any] = {}
    for c in cols:
        value = first[c]
        if isinstance(value, str) and value[:1] in ("[", "{"):
            value = json.loads(value)
        elif isinstance(value, np.generic):
            value = value.item()
        d[c.split(".", 1)[1]] = value
    try:
        return Topology.from_dict(d)
    except ValueError:
        return None


def machine_note(rows: pd.DataFrame) -> str:
    """Where the rows were measured, for a figure's title and the summary:
    ``"Intel Xeon @ 2.80GHz: 1 socket × 2 cores (2 hardware threads) — 1 socket: per-socket
    coincides with 1ISL"``, plus the topology's source when it is not this machine's sysfs
    (a made-up topology must say so)."""
    topo = topology_of(rows)
    model = None
    if "metadata.cpu_model" in rows.columns:
        models = [m for m in dict.fromkeys(rows["metadata.cpu_model"].dropna().astype(str)) if m]
        model = " / ".join(models) if models else None
    parts = [model] if model else []
    if topo is None:
        parts.append("machine topology not recorded")
        return ": ".join(parts)
    threads = f" ({topo.n_cpus} hardware threads)" if topo.n_cpus != topo.n_cores else ""
    s = "socket" if topo.n_sockets == 1 else "sockets"
    cores = {len(sk.cores) for sk in topo.sockets}
    shape = (
        f"{topo.n_sockets} {s} × {cores.pop()} cores"
        if len(cores) == 1
        else f"{topo.n_sockets} {s}, {topo.n_cores} cores"
    )
    text = ": ".join(parts + [shape + threads])
    if topo.source not in ("/sys", "/sys/"):  # a made-up or another machine's tree: say so
        text += f", topology read from {PurePath(topo.source).name or topo.source}"
    if topo.virtual:
        text += f" — VIRTUAL sockets ({topo.virtual})"
    elif topo.n_sockets == 1:
        text += " — 1 socket: per-socket coincides with 1ISL"
    return text


def one_socket_note(rows: pd.DataFrame) -> str | None:
    """On a one-socket machine (not a virtual topology): that per-socket is the same deployment
    as 1ISL here, so the figure cannot tell them apart, and how to ask the question with
    virtual sockets (islands.machine.virtual_topology); None elsewhere."""
    topo = topology_of(rows)
    if topo is None or topo.virtual or topo.n_sockets != 1 or topo.n_cores < 2:
        return None
    return (
        "this machine has one socket, so per-socket coincides with 1ISL (one instance on every core) and "
        "the figure cannot compare socket-sized islands; to ask that question, run the sweep again on "
        "virtual sockets: islands sweep EXPERIMENT.toml --virtual-sockets 2 --out ANOTHER_DIR (the cores "
        "regrouped into 2 made-up sockets; --virtual-delay-us adds a delay to messages between them; "
        "docs/words.md)"
    )


def _numbers(df: pd.DataFrame, name: str) -> pd.Series:
    """A column's numbers (none where the column is missing)."""
    return pd.to_numeric(df[name], errors="coerce").dropna() if name in df.columns else pd.Series(dtype=float)


def run_note(df: pd.DataFrame) -> str:
    """Repetitions, warm-up and measured window, for a figure's title."""
    workload = str(df["config.workload"].iloc[0]) if "config.workload" in df.columns else DEFAULT_WORKLOAD
    section = f"config.{workload}."
    varied = [c for c in df.columns if c.startswith((section, "config.engine."))]
    sizes = ["n_cpus"] if "n_cpus" in df.columns else []
    reps = df.groupby(["deployment", *sizes, "via", *varied], dropna=False).size()
    lo, hi = int(reps.min()), int(reps.max())
    if hi == 1:
        what = "one run per point (no error bars)"
    else:
        what = (
            f"mean and {CONFIDENCE:.0%} confidence interval over {lo if lo == hi else f'{lo}-{hi}'} repetitions"
            " (interleaved)"
        )
    if "config.driver.duration_s" in df.columns and "config.driver.warmup_s" in df.columns:
        warmup, duration = _g(df["config.driver.warmup_s"]), _g(df["config.driver.duration_s"])
        end = _numbers(df, "noise.warmup_end_s")
        if "throughput_window_tps" in df.columns and df["throughput_window_tps"].notna().any() and len(end):
            # run.steady_warmup (islands.measure.steady_warmup): the warm-up ended where the
            # timeline became steady, or at its cap
            never = int((df["noise.steady"] == False).sum()) if "noise.steady" in df.columns else 0  # noqa: E712
            unsteady = f"; {never} never steady within it" if never else ""
            cap = _numbers(df, "noise.warmup_cap_s").max()
            what += (
                f"; warm-up until the throughput was steady (median {end.median():.1f} s, cap {cap:.1f} s"
                f"{unsteady}), measured from there to the end of {warmup} + {duration} s"
            )
        else:
            what += f"; {warmup} s warm-up + {duration} s measured"
    size = _size_note(df, workload)
    if size:
        what += f"; {size} (one site per core)"
    return what


def _size_note(df: pd.DataFrame, workload: str) -> str:
    """The data size the rows ran, in the words of :data:`islands.config.workload_words.SIZE_WORDS`
    ('' where a setting it names is not among the columns)."""
    words = SIZE_WORDS.get(workload)
    if words is None:
        words = size_words(workload, workload_of(workload).size_field)
    values = {}
    for _, name, spec, _ in string.Formatter().parse(words):
        if name is None:
            continue
        column = f"config.{workload}.{name}"
        if column not in df.columns:
            return ""
        values[name] = _g(df[column], ",.0f" if spec == "," else "g")
    return words.replace(":,}", "}").format(**values)


def _g(values: pd.Series, spec: str = "g") -> str:
    uniq = sorted({float(v) for v in values.dropna()})
    if not uniq:
        return "?"
    if len(uniq) == 1:
        return format(uniq[0], spec)
    return f"{format(uniq[0], spec)}-{format(uniq[-1], spec)}"


def new_grid(
    nrows: int,
    ncols: int,
    width: float,
    height: float,
    sharey: bool | Literal["none", "all", "row", "col"] = False,
) -> tuple[Figure, list[list[Axes]]]:
    """A figure on the Agg canvas (shown inline in a notebook) with an ``nrows`` × ``ncols``
    grid of axes."""
    fig = InlineFigure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=sharey)
    return fig, [list(r) for r in axes]


def axis_scale(ax: Axes, values: Iterable[float], axis: str = "y") -> bool:
    """Log scale when the positive values span more than :data:`LOG_RATIO` (a linear axis
    would flatten the small ones to zero); returns whether it chose log."""
    vs = [v for v in values if v == v and math.isfinite(v)]
    if not vs or min(vs) <= 0 or max(vs) / min(vs) <= LOG_RATIO:
        return False
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    log_ticks(ax.yaxis if axis == "y" else ax.xaxis)
    return True


def plain_ticks(axis: Any) -> None:
    """Linear-axis tick labels as plain numbers with thousands separators (``10,000``)."""
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if abs(v) >= 10 or v == 0 else f"{v:g}"))


def log_ticks(axis: Any) -> None:
    """Ticks at 1, 2, 5 × 10^k labelled as plain numbers (``20``, ``500``, ``1,000``)."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def draw_line(
    ax: Axes,
    xs: Sequence[float],
    agg: pd.DataFrame,
    *,
    color: str,
    marker: str,
    linestyle: Any,
    label: str | None,
    scale: float = 1.0,
) -> None:
    """One series: means joined by a line, their confidence intervals (``ci_low``–``ci_high``
    of :func:`aggregate`) as error bars where there are repetitions."""
    mean = agg["mean"].to_numpy() * scale
    yerr = error_bars(agg, scale)
    if ax.get_yscale() == "log" and "values" in agg.columns:  # the interval where it is drawn
        mean, yerr = log_error_bars(agg, scale)
    ax.errorbar(
        xs,
        mean,
        yerr=yerr,
        color=color,
        marker=marker,
        linestyle=linestyle,
        label=label,
        capsize=3,
        markersize=5,
        linewidth=1.6,
        elinewidth=1,
    )


def error_bars(agg: pd.DataFrame, scale: float = 1.0) -> np.ndarray | None:
    """The 2×n ``yerr`` of the confidence intervals of ``agg``'s rows (below, above the
    mean; 0 where there is no interval), kept above zero for log axes; None when no row has
    an interval."""
    mean = agg["mean"].to_numpy(dtype=float) * scale
    low = agg["ci_low"].to_numpy(dtype=float) * scale
    high = agg["ci_high"].to_numpy(dtype=float) * scale
    if not (np.isfinite(low).any() and np.isfinite(high).any()):
        return None
    below = np.where(np.isfinite(low), mean - low, 0.0)
    above = np.where(np.isfinite(high), high - mean, 0.0)
    return np.vstack([np.clip(below, 0.0, mean * 0.999), np.clip(above, 0.0, None)])


def log_error_bars(agg: pd.DataFrame, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray | None]:
    """For a log axis: each point's geometric mean and the 2×n ``yerr`` of its 95% interval
    computed on the logarithms of its repetitions (:func:`summarize` of the logs, then back), so
    that the interval is symmetric where it is drawn and never reaches zero; None for the
    ``yerr`` when no point has an interval. Points with a value ≤ 0 fall back to the mean."""
    centre, below, above = [], [], []
    for values, mean in zip(agg["values"], agg["mean"]):
        vs = np.asarray([v for v in values if v == v], dtype=float) * scale
        if len(vs) == 0 or (vs <= 0).any():
            centre.append(float(mean) * scale)
            below.append(0.0)
            above.append(0.0)
            continue
        s = summarize(np.log(vs))
        g = math.exp(s.mean)
        centre.append(g)
        has = math.isfinite(s.ci_low) and math.isfinite(s.ci_high)
        below.append(g - math.exp(s.ci_low) if has else 0.0)
        above.append(math.exp(s.ci_high) - g if has else 0.0)
    if not any(below) and not any(above):
        return np.asarray(centre), None
    return np.asarray(centre), np.vstack([below, above])


def fit_title(fig: Figure, text: str, fontsize: float) -> str:
    """``text`` with each line wrapped to the figure's width at ``fontsize`` (a one-panel
    figure is narrower than the machine and run notes), for ``fig.suptitle``."""
    import textwrap

    chars = max(40, int(fig.get_figwidth() * 72 / (0.56 * fontsize)))  # DejaVu Sans: ~0.56 em a character
    return "\n".join(textwrap.fill(line, chars) for line in text.splitlines())


def figure_legend(fig: Figure, axes: Iterable[Axes], max_cols: int = 4) -> None:
    """One legend for the whole figure, below the panels (every panel draws the same series,
    so a legend inside each would only hide data): each label once, in drawing order."""
    handles: dict[str, Any] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    if handles:
        fig.legend(
            list(handles.values()),
            list(handles),
            loc="outside lower center",
            ncols=min(max_cols, len(handles)),
            fontsize=8.5,
            frameon=False,
        )


def color_of(i: int) -> str:
    return COLORS[i % len(COLORS)]


def marker_of(i: int) -> str:
    return MARKERS[i % len(MARKERS)]


def fmt_tps(v: float) -> str:
    """``1.28 M``, ``36.8 K``, ``950``: transactions per second for people."""
    return human_number(v)


def fmt_us(v: float) -> str:
    """``0.42 µs``, ``31 µs``: a time for people."""
    if v != v:
        return "n/a"
    return f"{v:.2g} µs" if v < 10 else f"{v:,.0f} µs"


def series_trend(
    xs: Sequence[float],
    means: Sequence[float],
    fmt: Any,
    at: Any,
    *,
    short: Any = None,
    at_short: Any = None,
    flat: float = 0.10,
    falls: str = "falls",
    rises: str = "rises",
    samples: Sequence[Sequence[float]] | None = None,
) -> str:
    """``"1.28 M txn/s at 0% multisite, falls to 36.8 K at 100% (-97% (95% CI -98% to
    -96%))"`` or ``"flat within 6% around 880 K txn/s"`` (every mean within ``flat`` of the
    series mean), for a summary line; ``fmt`` formats a value and ``at`` an x
    (``short``/``at_short``: the second mention, default the same). ``samples``: each
    point's repetitions, aligned with ``means``; the change from the first point to the last
    is then stated with its interval (:func:`islands.analysis.verdicts.change_words`), also after a
    flat series, and a series whose ends are not distinguishable neither "falls" nor "rises";
    without samples, as a change of one value each (``-86%, one run: no interval``)."""
    short = short or fmt
    at_short = at_short or at
    reps = list(samples) if samples is not None else [()] * len(means)
    pairs = [(x, m) for x, m in zip(xs, means) if m == m]
    kept = [r for m, r in zip(means, reps) if m == m]
    if not pairs:
        return "no data"
    if len(pairs) == 1:
        return f"{fmt(pairs[0][1])} {at(pairs[0][0])}"
    values = [m for _, m in pairs]
    centre = float(np.mean(values))
    spread = max(abs(m - centre) for m in values) / centre if centre else float("inf")
    (x0, m0), (x1, m1) = pairs[0], pairs[-1]
    change = change_words(kept[-1], kept[0]) if samples is not None else change_words([m1], [m0])
    # flat only when no change from the first to the last point is established: within 5% of
    # their mean, but -7% from end to end with an interval that excludes 0, is a fall
    moved = samples is not None and bool(ratio(kept[-1], kept[0]).distinguishable)
    if spread <= flat and not moved:
        text = f"flat within {max(1, math.ceil(spread * 100))}% around {fmt(centre)}"
        return text + (f" ({at_short(x1)} vs {at_short(x0)}: {change})" if samples is not None else "")
    if samples is not None and ratio(kept[-1], kept[0]).distinguishable is False:
        return f"{fmt(m0)} {at(x0)}, {short(m1)} {at_short(x1)} ({change})"
    verb = falls if m1 < m0 else rises
    return f"{fmt(m0)} {at(x0)}, {verb} to {short(m1)} {at_short(x1)} ({change})"


_LOG_MODES = {"group_commit": "group commit", "async": "asynchronous flushes"}


def log_note(df: pd.DataFrame) -> str:
    """Whether and how the runs logged, for a figure's caption and summary: ``"updates logged
    (group commit with early lock release, log on tmpfs /dev/shm); reads unlogged"``, ``"not
    logged"``. Rows without a ``config.log.mode`` column (or with it empty) ran without a log;
    group-commit rows without ``config.log.early_lock_release`` held their locks to the flush."""
    modes = df["config.log.mode"] if "config.log.mode" in df.columns else pd.Series("off", index=df.index)
    modes = modes.fillna("off").astype(str)
    directories = df["config.log.directory"] if "config.log.directory" in df.columns else pd.Series("", index=df.index)
    # Runs from before the setting held their locks through the flush.
    early = (
        df["config.log.early_lock_release"].fillna(False).astype(bool)
        if "config.log.early_lock_release" in df.columns
        else pd.Series(False, index=df.index)
    )

    def name(mode: str, mask: pd.Series) -> str:
        if mode != "group_commit":
            return _LOG_MODES.get(mode, mode)
        released = early[mask & (modes == mode)]
        if released.all():
            return "group commit with early lock release"
        return "group commit, locks held to the flush" + (" in some runs" if released.any() else "")

    def how(mask: pd.Series) -> str:
        used = sorted(set(modes[mask]) - {"off"})
        if not used:
            return ""
        where = sorted({str(d) for d in directories[mask & (modes != "off")].dropna() if str(d)})
        place = ", ".join(f"tmpfs {d}" if d.startswith("/dev/shm") else d for d in where)
        unlogged = " (some runs unlogged)" if (modes[mask] == "off").any() else ""
        return ", ".join(name(m, mask) for m in used) + (f", log on {place}" if place else "") + unlogged

    if (modes == "off").all():
        return "not logged"
    # Reads and updates apart only where every row runs one workload with an `update` setting
    own = set(df["config.workload"].fillna(DEFAULT_WORKLOAD)) if "config.workload" in df.columns else {DEFAULT_WORKLOAD}
    one = len(own) == 1 and f"config.{next(iter(own))}.update" in df.columns
    if not one or "update" not in df.columns or not df["update"].any() or df["update"].all():
        logged = how(pd.Series(True, index=df.index))
        return f"logged ({logged})" if logged else "not logged"
    parts = []
    for kind, mask in (("updates", df["update"].astype(bool)), ("reads", ~df["update"].astype(bool))):
        logged = how(mask)
        parts.append(f"{kind} logged ({logged})" if logged else f"{kind} unlogged")
    return "; ".join(parts)
