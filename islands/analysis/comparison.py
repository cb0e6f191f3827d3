"""Two results directories compared point by point, with significance (as ``pyperf
compare_to`` does): for every point both hold, each side's median, min–max and confidence
interval, the ratio B / A with its interval, and whether the two are distinguishable
(:mod:`islands.analysis.statistics`).

Points are matched on ``grid_id`` by default (the same deployment, config and transport;
e.g. one spec run at two git revisions); ``by`` names other columns to match on (say
``deployment.name,config.micro.multisite`` across machines or specs).

Runs made on a busy machine are left out by default, and counted: other processes kept it busy
(``system.busy``) or the hypervisor stole more than
:data:`~islands.analysis.verdicts.STEAL_LIMIT` of its CPU time (``system.steal_share``); a
verdict from them says more about the neighbours than about the two results. ``keep_busy``
keeps them (and the table warns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from islands.analysis.statistics import PointStats, Ratio, ratio, summarize
from islands.analysis.store import ResultStore, results_directory
from islands.analysis.tables import check_metric, human_number, point_axes
from islands.analysis.verdicts import NO_INTERVAL, NOT_DISTINGUISHABLE, STEAL_LIMIT, direction, words_of

__all__ = ["Comparison", "PointComparison", "busy_rows", "compare_dirs", "load_rows"]


@dataclass(frozen=True)
class PointComparison:
    """One point in both directories: its key, a label, each side's statistics and B / A."""

    key: tuple[Any, ...]
    label: str
    a: PointStats
    b: PointStats
    ratio: Ratio

    @property
    def verdict(self) -> str:
        """``B higher``, ``B lower``, ``not distinguishable`` or ``no interval``."""
        return direction(self.ratio, "B higher", "B lower")


@dataclass(frozen=True)
class Comparison:
    """The points of directories ``a`` and ``b`` compared on ``metric``."""

    a: Path
    b: Path
    metric: str
    by: tuple[str, ...]
    points: list[PointComparison]
    only_a: list[str] = field(default_factory=list)
    only_b: list[str] = field(default_factory=list)
    busy_a: int = 0
    busy_b: int = 0
    #: the busy runs left out of each side (0 with ``keep_busy``)
    dropped_a: int = 0
    dropped_b: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Everything, as plain data (NaN stays NaN: write it with a null-for-NaN writer)."""
        return {
            "a": str(self.a),
            "b": str(self.b),
            "metric": self.metric,
            "by": list(self.by),
            "points": [
                {
                    "key": list(p.key),
                    "label": p.label,
                    "a": p.a.to_dict(),
                    "b": p.b.to_dict(),
                    **p.ratio.to_dict(),
                    "verdict": p.verdict,
                }
                for p in self.points
            ],
            "only_in_a": self.only_a,
            "only_in_b": self.only_b,
            "busy_runs_a": self.busy_a,
            "busy_runs_b": self.busy_b,
            "busy_runs_left_out_a": self.dropped_a,
            "busy_runs_left_out_b": self.dropped_b,
        }

    def table(self, width: int | None = None) -> str:
        """The comparison for people: one line per point and a closing count. Where that line
        is wider than ``width`` (default: no limit), each point takes two: its label and the
        medians, then, indented, B / A and the verdict."""
        header = ["point", "A median", "A min-max", "B median", "B min-max", "B / A", "verdict"]
        rows = [
            [
                p.label,
                _num(p.a.median),
                f"{_num(p.a.min)}-{_num(p.a.max)}",
                _num(p.b.median),
                f"{_num(p.b.min)}-{_num(p.b.max)}",
                words_of(p.ratio),
                p.verdict,
            ]
            for p in self.points
        ]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        lines = [f"A: {self.a}", f"B: {self.b}", f"{self.metric}, points matched on {', '.join(self.by)}", ""]
        if width is None or sum(widths) + 2 * (len(widths) - 1) <= width:
            lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
        else:
            for r in [header, *rows]:
                lines.append("  ".join(c.ljust(w) for c, w in zip(r[:5], widths)).rstrip())
                lines.append(("    " + "  ".join(c.ljust(w) for c, w in zip(r[5:], widths[5:]))).rstrip())
        verdicts = [p.verdict for p in self.points]
        lines.append("")
        lines.append(
            f"{len(self.points)} points in both: {verdicts.count('B higher')} B higher, "
            f"{verdicts.count('B lower')} B lower, {verdicts.count(NOT_DISTINGUISHABLE)} {NOT_DISTINGUISHABLE}"
            + (f", {verdicts.count(NO_INTERVAL)} without an interval (one run)" if NO_INTERVAL in verdicts else "")
        )
        if self.only_a or self.only_b:
            lines.append(f"{len(self.only_a)} points only in A, {len(self.only_b)} only in B")
        for side, n, dropped in (("A", self.busy_a, self.dropped_a), ("B", self.busy_b, self.dropped_b)):
            if dropped:
                lines.append(
                    f"left out: {dropped} runs of {side} made on a busy machine (system.busy, or steal above "
                    f"{STEAL_LIMIT:.0%}); --keep-busy keeps them"
                )
            elif n:
                lines.append(f"warning: {n} runs of {side} ran on a busy machine (kept: --keep-busy)")
        return "\n".join(lines)


def load_rows(directory: str | Path) -> pd.DataFrame:
    """The rows of a results directory; ValueError (one line) when it is missing or empty."""
    d = results_directory(directory)
    store = ResultStore(d)
    if not store.has_rows():
        raise ValueError(f"{d}: holds no result rows")
    return store.rows()


def compare_dirs(
    a: str | Path,
    b: str | Path,
    metric: str = "throughput_tps",
    by: tuple[str, ...] = ("grid_id",),
    keep_busy: bool = False,
) -> Comparison:
    """Compares directory ``b`` against ``a`` (ratios are B / A), leaving out the runs made on
    a busy machine unless ``keep_busy`` (:func:`busy_rows`). Raises ValueError when a directory
    has no rows, lacks ``metric`` or a ``by`` column, or the two share no point."""
    ra, rb = load_rows(a), load_rows(b)
    busy_a, busy_b = int(busy_rows(ra).sum()), int(busy_rows(rb).sum())
    if not keep_busy:
        ra, rb = ra[~busy_rows(ra)], rb[~busy_rows(rb)]
        for name, directory, rows, n in (("A", a, ra, busy_a), ("B", b, rb, busy_b)):
            if rows.empty:
                raise ValueError(
                    f"{name} ({directory}): all {n} runs were made on a busy machine; --keep-busy keeps them"
                )
    for name, rows in (("A", ra), ("B", rb)):
        for column in (metric, *by):
            if column not in rows.columns:
                raise ValueError(f"{name} ({a if name == 'A' else b}): the rows have no column {column!r}")
        check_metric(rows, metric, f"the rows of {name} ({a if name == 'A' else b})")
    for name, directory, rows in (("A", a, ra), ("B", b, rb)):
        refuse_functional(rows, metric, f"{name} ({directory})")
    by = tuple(by)
    ga = {_key(k): g for k, g in ra.groupby(list(by), sort=False, dropna=False)}
    gb = {_key(k): g for k, g in rb.groupby(list(by), sort=False, dropna=False)}
    both = [k for k in ga if k in gb]
    if not both:
        left_out = (
            f" after leaving out busy runs ({busy_a} of A, {busy_b} of B)" if busy_a + busy_b and not keep_busy else ""
        )
        raise ValueError(
            f"{a} and {b} share no point (matched on {', '.join(by)}){left_out}; "
            "match on other columns with --by, e.g. --by deployment.name,transport,config.micro.multisite"
        )
    union = pd.concat([ra, rb], ignore_index=True)
    params = point_axes(union, skip=by)
    points = []
    for k in both:
        va = pd.to_numeric(ga[k][metric], errors="coerce").to_list()
        vb = pd.to_numeric(gb[k][metric], errors="coerce").to_list()
        points.append(
            PointComparison(k, _label(ga[k].iloc[0], by, params), summarize(va), summarize(vb), ratio(vb, va))
        )
    return Comparison(
        a=Path(a),
        b=Path(b),
        metric=metric,
        by=by,
        points=points,
        only_a=[_label(g.iloc[0], by, params) for k, g in ga.items() if k not in gb],
        only_b=[_label(g.iloc[0], by, params) for k, g in gb.items() if k not in ga],
        busy_a=busy_a,
        busy_b=busy_b,
        dropped_a=0 if keep_busy else busy_a,
        dropped_b=0 if keep_busy else busy_b,
    )


#: Metrics that are speeds: a functional (oversubscribed) run's say nothing of the planned machine.
SPEED_METRICS = ("throughput_tps", "throughput_per_core", "new_order_per_min")


def refuse_functional(rows: pd.DataFrame, metric: str, name: str) -> None:
    """Raises ValueError (one line) when ``rows`` hold functional runs (planned on another machine,
    run packed onto this one's CPUs: islands.machine.oversubscription) and ``metric`` is a speed:
    their counts and checks hold, their throughput is not the planned machine's."""
    if metric not in SPEED_METRICS or "functional" not in rows.columns:
        return
    functional = int(rows["functional"].fillna(False).astype(bool).sum())
    if functional:
        raise ValueError(
            f"{name}: {functional} of {len(rows)} rows are functional runs (planned on another machine, run "
            f"oversubscribed here): their {metric} is not comparable; compare a count instead (e.g. --metric commits)"
        )


def _key(k: Any) -> tuple[Any, ...]:
    return k if isinstance(k, tuple) else (k,)


def busy_rows(rows: pd.DataFrame) -> pd.Series:
    """Which ``rows`` were made on a busy machine: other processes kept it busy
    (``system.busy``) or the hypervisor stole more than
    :data:`~islands.analysis.verdicts.STEAL_LIMIT` of its CPU time (``system.steal_share``)."""
    busy = pd.Series(False, index=rows.index)
    if "system.busy" in rows.columns:
        busy |= rows["system.busy"].fillna(False).astype(bool)
    if "system.steal_share" in rows.columns:
        busy |= pd.to_numeric(rows["system.steal_share"], errors="coerce").fillna(0.0) > STEAL_LIMIT
    return busy


def _label(row: pd.Series, by: tuple[str, ...], params: list[str]) -> str:
    if by != ("grid_id",):
        return " ".join(f"{c.rsplit('.', 1)[-1]}={_plain(row[c])}" for c in by)
    parts = [str(row.get("deployment.name", "?")), str(row.get("transport", ""))]
    parts += [f"{c.rsplit('.', 1)[-1]}={_plain(row[c])}" for c in params]
    return " ".join(p for p in parts if p)


def _plain(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _num(v: float) -> str:
    return human_number(v, k_digits=2, small=".3g")
