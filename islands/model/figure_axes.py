"""Paper 000's figures as the model sees them: for each figure that runs here (an
``experiments/000-fig*`` file feeds it), what varies along its x axis, its panels (each a
workload with that one setting left to vary), whether it plots throughput or time per
transaction, its transport and the deployments the paper compared; and the measured points of
a sweep's rows, turned into :class:`~islands.model.validation.Point` objects the model can
predict.

What the model cannot express is said per figure (:attr:`FigureAxes.unmodelled`) and, for the
figures it cannot draw at all, in :data:`NOT_EXPRESSED`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from islands.config.settings import DEFAULT_WORKLOAD
from islands.model.validation import Point
from islands.model.workload_spec import NEW_ORDER, PAYMENT, READ, TPCB, UPDATE, ModelWorkload, from_run

__all__ = ["FIGURE_AXES", "NOT_EXPRESSED", "FigureAxes", "Panel", "figure_axes", "points_from_rows"]

#: What varies along a figure's x axis: the :class:`ModelWorkload` field, and its axis label.
X_LABELS = {
    "multisite": "multisite transactions (%)",
    "rows": "rows per transaction",
    "zipf_s": "Zipf skew s",
    "remote": "remote transactions (%)",
}
#: Deployments the paper compared (000 Sec 6-8: shared-everything, coarse per-socket and
#: fine per-core shared-nothing), as :func:`~islands.machine.placement.plan_deployment` specs.
PAPER_DEPLOYMENTS = ("shared-everything", "per-socket", "per-core")


@dataclass(frozen=True)
class Panel:
    """One panel: its title and its workload, whose :attr:`FigureAxes.field` the x axis
    varies, and the x values it draws where they are its own (else the figure's)."""

    title: str
    workload: ModelWorkload
    xs: tuple[float, ...] = ()


@dataclass(frozen=True)
class FigureAxes:
    """A figure of paper 000 for the model (module docstring). ``field`` is the
    :class:`ModelWorkload` field the x axis varies (``remote`` figures vary ``multisite``,
    which is the remote share of TPC-B and TPC-C), ``xs`` the values the model draws, ``y``
    ``"throughput"`` (txn/s) or ``"time"`` (CPU-µs per transaction: cpus x 1e6 / throughput,
    as :mod:`islands.plots.txn_size`)."""

    figure: str
    title: str
    x: str
    xs: tuple[float, ...]
    panels: tuple[Panel, ...]
    y: str = "throughput"
    transport: str = "unix"
    deployments: tuple[str, ...] = PAPER_DEPLOYMENTS
    unmodelled: str = ""

    @property
    def field(self) -> str:
        """The workload field the x axis varies."""
        return "multisite" if self.x == "remote" else self.x

    def xs_of(self, panel: Panel) -> tuple[float, ...]:
        """The x values (workload field values, shares as fractions) the panel draws."""
        return panel.xs or self.xs

    def workload_at(self, panel: Panel, x: float) -> ModelWorkload:
        """The panel's workload at ``x``."""
        value: Any = int(x) if self.field == "rows" else float(x)
        return dataclasses.replace(panel.workload, **{self.field: value})

    def panel_of(self, workload: ModelWorkload) -> Panel | None:
        """The panel a measured workload belongs to (equal once the x field is set to the
        panel's, logged or not), or ``None``."""
        for panel in self.panels:
            base = dataclasses.replace(workload, **{self.field: getattr(panel.workload, self.field)})
            if _same(base, panel.workload):
                return panel
        return None

    def x_of(self, workload: ModelWorkload) -> float:
        """The x value of a workload (percent for shares)."""
        value = float(getattr(workload, self.field))
        return 100 * value if self.x in ("multisite", "remote") else value


def _same(a: ModelWorkload, b: ModelWorkload) -> bool:
    return (
        a.kind == b.kind
        and (not a.per_row or a.rows == b.rows)
        and math.isclose(a.multisite, b.multisite, abs_tol=1e-9)
        and math.isclose(a.zipf_s, b.zipf_s, abs_tol=1e-9)
        and a.rows_per_site == b.rows_per_site
    )


_SHARES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
_ROWS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 100.0)
_ZIPF = (0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5)
_READ, _UPDATE = ModelWorkload(READ), ModelWorkload(UPDATE)


def _micro_panels(rows_per_site: Sequence[int] = (10_000,)) -> tuple[Panel, ...]:
    out = []
    for size in rows_per_site:
        suffix = "" if len(rows_per_site) == 1 else f", {size:,} rows/site"
        out.append(Panel(f"read 10 rows{suffix}", dataclasses.replace(_READ, rows_per_site=size)))
        out.append(Panel(f"update 10 rows{suffix}", dataclasses.replace(_UPDATE, rows_per_site=size)))
    return tuple(out)


_NO_SKEW = "the closed form has no skew: its lines are flat in s (islands.model.simulation models skew)"

#: The figures of paper 000 that run here (experiments/000-fig*.toml) and the model can draw.
FIGURE_AXES: dict[str, FigureAxes] = {
    a.figure: a
    for a in (
        FigureAxes(
            "000-fig11",
            "throughput vs % multisite, unix sockets",
            "multisite",
            _SHARES,
            _micro_panels((10_000, 100_000)),
            unmodelled="data size: the model has no cache term, so the 100,000-rows/site panels predict what the "
            "10,000 ones do",
        ),
        FigureAxes(
            "000-fig13",
            "time per transaction vs % multisite, unix sockets (per-socket; per-core where one socket)",
            "multisite",
            (0.0, 0.5, 1.0),
            _micro_panels(),
            y="time",
            deployments=("per-socket",),
            unmodelled="the model's components (execution, contention, remote memory, logging, communication) are "
            "not the engine's breakdown categories; totals only",
        ),
        FigureAxes(
            "000-fig14",
            "throughput vs % multisite, shared memory",
            "multisite",
            _SHARES,
            _micro_panels(),
            transport="shm",
        ),
        FigureAxes(
            "000-fig15",
            "time per transaction vs % multisite, shared memory (per-socket; per-core where one socket)",
            "multisite",
            (0.0, 0.5, 1.0),
            _micro_panels(),
            y="time",
            transport="shm",
            deployments=("per-socket",),
            unmodelled="totals only, as Fig 13",
        ),
        FigureAxes(
            "000-fig17",
            "time per transaction vs rows, read",
            "rows",
            _ROWS,
            (Panel("local read", _READ.with_multisite(0.0)), Panel("multisite read", _READ.with_multisite(1.0))),
            y="time",
        ),
        FigureAxes(
            "000-fig18",
            "time per transaction vs rows, update",
            "rows",
            _ROWS,
            (
                Panel("local update", _UPDATE.with_multisite(0.0)),
                Panel("multisite update", _UPDATE.with_multisite(1.0)),
            ),
            y="time",
            unmodelled="locks held longer by larger distributed updates (the closed form has no conflicts)",
        ),
        FigureAxes(
            "000-fig20",
            "throughput vs Zipf skew, 2 rows",
            "zipf_s",
            _ZIPF,
            tuple(
                Panel(f"{op} 2 rows, {p:.0%} multisite", ModelWorkload(f"micro-{op}", rows=2, multisite=p))
                for op in ("read", "update")
                for p in (0.0, 0.2, 0.5)
            ),
            unmodelled=_NO_SKEW,
        ),
        FigureAxes(
            "000-fig22",
            "standard workloads, local-only vs the specification's remote share",
            "remote",
            (0.0, 0.15),
            (
                Panel("TPC-B AccountUpdate", ModelWorkload(TPCB, multisite=0.0)),
                Panel("TPC-C Payment", ModelWorkload(PAYMENT, multisite=0.0)),
                Panel("TPC-C NewOrder (remote items)", ModelWorkload(NEW_ORDER, multisite=0.0), (0.0, 0.01)),
            ),
            unmodelled="lock conflicts on hot rows (branch, warehouse) held through 2PC",
        ),
        FigureAxes(
            "000-fig23",
            "TPC-B vs % remote",
            "remote",
            _SHARES,
            (Panel("TPC-B AccountUpdate", ModelWorkload(TPCB, multisite=0.0)),),
            unmodelled="lock conflicts on the hot branch row held through 2PC",
        ),
        FigureAxes(
            "000-fig24",
            "TPC-C Payment vs % remote",
            "remote",
            _SHARES,
            (Panel("TPC-C Payment", ModelWorkload(PAYMENT, multisite=0.0)),),
            unmodelled="lock conflicts on the hot warehouse row held through 2PC (the paper's sharp drop)",
        ),
    )
}

#: Figures of paper 000 with an experiment file here that the model does not draw, and why.
NOT_EXPRESSED: dict[str, str] = {
    "000-fig12": "IPC, stalled cycles and LLC misses: the model has no micro-architectural terms",
    "000-fig21": "database size: the model has no cache or buffer-pool term (and no experiment file runs it "
    "here; benchmarks/model_validation.py measures a few points of it)",
    **dict.fromkeys(
        ("000-fig25", "000-fig26", "000-fig27", "000-fig28"),
        "Silo OCC: the model is calibrated on locking (no OCC copies, validation or its aborts)",
    ),
}


def figure_axes(figure: str) -> FigureAxes:
    """The model's view of ``figure``; ``ValueError`` (one line) naming why it has none."""
    if figure in FIGURE_AXES:
        return FIGURE_AXES[figure]
    if figure in NOT_EXPRESSED:
        raise ValueError(f"figure {figure}: the model cannot draw it ({NOT_EXPRESSED[figure]})")
    raise ValueError(f"figure {figure!r}: the model draws {', '.join(FIGURE_AXES)}")


def _workload_of(row: Any) -> ModelWorkload | None:
    """The model workload of one sweep row (a pandas row of ``ResultStore.rows()``), or None
    for a workload the model does not know (TATP)."""
    return from_run(row, DEFAULT_WORKLOAD)


def points_from_rows(rows: Any, figure: str) -> list[Point]:
    """The measured points of a sweep's rows (``ResultStore.rows()``, a DataFrame): the mean
    throughput over repetitions of each deployment, workload and transport, with each
    repetition's throughput and the median share of CPU time other processes took (a single
    instance's transport is ``unix``: it sends no messages). Rows of workloads the model does
    not know, or without a positive throughput, are left out."""
    groups: dict[tuple[str, ModelWorkload, str], list[tuple[float, float]]] = {}
    for _, row in rows.iterrows():
        workload = _workload_of(row)
        tps = float(row.get("throughput_tps", math.nan))
        if workload is None or not tps > 0:
            continue
        label = str(row["deployment.label"])
        transport = str(row["transport"]) if int(row["deployment.n_instances"]) > 1 else "unix"
        other = row.get("system.other_cpu_share", math.nan)
        groups.setdefault((label, workload, transport), []).append((tps, math.nan if other is None else float(other)))
    out = []
    for (label, workload, transport), runs in sorted(
        groups.items(), key=lambda kv: (kv[0][0], kv[0][2], repr(kv[0][1]))
    ):
        ts = tuple(t for t, _ in runs)
        others = sorted(o for _, o in runs if o == o)
        other = others[len(others) // 2] if others else math.nan
        out.append(Point(figure, label, workload, transport, sum(ts) / len(ts), math.nan, other, ts))
    return out
