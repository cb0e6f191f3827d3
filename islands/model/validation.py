"""How good the model is: errors on points measured here, and the papers' trends on the papers'
machines, each stated as reproduced or not.

Measured points (:class:`Point`): a figure id, the deployment label on this machine, the
workload, the transport and the measured throughput. Two errors per figure:

- ``calibrated``: :func:`~islands.model.predict.predict` with parameters from the calibration
  runs (none of these points took part), relative error |predicted - measured| / measured;
- ``loo-cost-weighted`` / ``loo-linear``: leave-one-out along each curve (one deployment,
  workload kind, transport, varying multisite share): the form is fitted to the curve's other
  points and predicts the one left out (a curve with one other point is flat);
- ``loo-components``: leave-one-out of the component model fitted to all other points at
  once (:func:`leave_one_out_components`).

Trends (:func:`paper_trends`): each names the paper's figure and claim, the predicted
numbers on the fixture machine, the criterion and the verdict.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from islands.analysis.verdicts import model_ratio_words
from islands.machine.placement import Deployment, plan_deployment
from islands.machine.topology import Topology
from islands.model.closed_form import cost_weighted_throughput, fit_cost_weighted, linear_throughput
from islands.model.leave_one_out import loo_predictions
from islands.model.measured_point import Point
from islands.model.parameters import Parameters
from islands.model.predict import predict
from islands.model.workload_spec import KINDS, NEW_ORDER, PAYMENT, TPCB, ModelWorkload

__all__ = [
    "Point",
    "errors_by_kind",
    "load_points",
    "Trend",
    "leave_one_out",
    "leave_one_out_components",
    "paper_trends",
    "prediction_errors",
    "ratio_interval",
    "skew_trends",
]


def _linear_fit(ps: Sequence[float], ts: Sequence[float]) -> tuple[float, float]:
    n = len(ps)
    mp, mt = sum(ps) / n, sum(ts) / n
    var = sum((p - mp) ** 2 for p in ps)
    slope = 0.0 if var == 0 else sum((p - mp) * (t - mt) for p, t in zip(ps, ts)) / var
    return mt - slope * mp, mt - slope * mp + slope


def leave_one_out(points: Sequence[Point]) -> dict[str, dict[str, float]]:
    """Median relative leave-one-out error per figure, for each form:
    ``{figure: {"loo-cost-weighted": e, "loo-linear": e, "n": count}}``."""
    curves: dict[tuple, list[Point]] = {}
    for pt in points:
        curves.setdefault(pt.curve, []).append(pt)
    errors: dict[str, dict[str, list[float]]] = {}
    for curve, pts in curves.items():
        if len(pts) < 2:
            continue
        for i, out in enumerate(pts):
            rest = [p for j, p in enumerate(pts) if j != i]
            ps = [p.workload.multisite_share for p in rest]
            ts = [p.measured for p in rest]
            p = out.workload.multisite_share
            per = errors.setdefault(curve[0], {"loo-cost-weighted": [], "loo-linear": []})
            t_local, t_distr = fit_cost_weighted(ps, ts)
            if t_local == t_local:
                predicted = cost_weighted_throughput(p, t_local, t_distr)
                per["loo-cost-weighted"].append(abs(predicted - out.measured) / out.measured)
            a, b = _linear_fit(ps, ts)
            if a > 0 and b > 0:
                predicted = linear_throughput(p, a, b)
                per["loo-linear"].append(abs(predicted - out.measured) / out.measured)
    return {
        fig: {
            **{k: (statistics.median(v) if v else float("nan")) for k, v in per.items()},
            "n": float(len(per["loo-cost-weighted"])),
        }
        for fig, per in errors.items()
    }


def leave_one_out_components(points: Sequence[Point], topology: Topology) -> dict[str, dict[str, float]]:
    """Leave-one-out of the component model fitted to the measured points themselves: each
    point's worker time per transaction (workers / throughput) is ``L[kind, deployment] +
    rows * R[kind, deployment] + q * m * D[transport, op]`` (``R`` for the microbenchmark
    only; ``q``, ``m`` from :func:`~islands.model.workload_spec.participants`). Like the closed
    form, it has no term for skew or data size: points of Fig 20 and 21 share their unknowns
    with the uniform, cache-resident ones, so their error is what the model misses there. The
    unknowns ``L``, ``R`` and ``D`` are fitted by least squares on relative error to every other
    point (across figures: a TPC-B point borrows ``D`` from the microbenchmark's curves) and
    predict the one left out (:func:`islands.model.leave_one_out.loo_predictions`). A point
    whose unknown no other point constrains is skipped. Returns ``{figure: {"loo-components":
    median error, "n": predicted, "skipped": count}}``."""
    errors: dict[str, list[float]] = {}
    skipped: dict[str, int] = {}
    for pt, predicted in zip(points, loo_predictions(points, topology)):
        if predicted != predicted:
            skipped[pt.figure] = skipped.get(pt.figure, 0) + 1
            continue
        errors.setdefault(pt.figure, []).append(abs(predicted - pt.measured) / pt.measured)
    figures = dict.fromkeys(pt.figure for pt in points)
    return {
        fig: {
            "loo-components": statistics.median(errors[fig]) if errors.get(fig) else float("nan"),
            "n": float(len(errors.get(fig, []))),
            "skipped": float(skipped.get(fig, 0)),
        }
        for fig in figures
    }


def prediction_errors(
    points: Sequence[Point], topology: Topology, parameters: Parameters
) -> tuple[dict[str, float], list[tuple[Point, float]], dict[str, float]]:
    """Median relative error of the calibrated model per figure against wall-clock
    throughput, each point with its prediction, and the median error per figure against
    the CPU-time throughput of the points where workers never wait (no multisite
    transactions, no log): the calibration's own basis."""
    rows: list[tuple[Point, float]] = []
    per: dict[str, list[float]] = {}
    per_cpu: dict[str, list[float]] = {}
    for pt in points:
        predicted = predict(topology, pt.deployment, pt.workload, parameters, transport=pt.transport).throughput
        rows.append((pt, predicted))
        per.setdefault(pt.figure, []).append(abs(predicted - pt.measured) / pt.measured)
        if pt.workload.multisite_share == 0 and not pt.workload.logs and pt.cpu_measured == pt.cpu_measured:
            per_cpu.setdefault(pt.figure, []).append(abs(predicted - pt.cpu_measured) / pt.cpu_measured)
    return (
        {fig: statistics.median(v) for fig, v in per.items()},
        rows,
        {fig: statistics.median(v) for fig, v in per_cpu.items()},
    )


def errors_by_kind(points: Sequence[Point], topology: Topology, parameters: Parameters) -> dict[str, tuple[float, int]]:
    """The calibrated model's median relative error and point count per workload kind (over
    every transport and figure): the advisor's comparable points for this engine. Points of
    skewed or larger-than-cache workloads are left out (what the closed form does not model is
    the advisor's refusal, not an error)."""
    per: dict[str, list[float]] = {}
    for pt in points:
        if pt.workload.zipf_s > 0 or pt.workload.rows_per_site > 10_000 or not pt.measured > 0:
            continue
        predicted = predict(topology, pt.deployment, pt.workload, parameters, transport=pt.transport, samples=1)
        per.setdefault(pt.workload.kind, []).append(abs(predicted.throughput - pt.measured) / pt.measured)
    return {kind: (statistics.median(v), len(v)) for kind, v in per.items()}


def load_points(path: str) -> list[Point]:
    """Measured points from a JSON file: a list of ``{figure, deployment, workload: {...},
    transport, measured, ...}`` (``benchmarks/model_validation.py --points``) or a points file
    with its machine (``{"machine": {...}, "points": [...]}``, :mod:`islands.model.loo_points`);
    ``ValueError`` naming the file and what is wrong."""
    import json
    from pathlib import Path

    try:
        data = json.loads(Path(path).read_text())
        if isinstance(data, dict):
            data = data["points"]
        return [
            Point(
                d["figure"],
                d["deployment"],
                ModelWorkload(**d["workload"]),
                d["transport"],
                float(d["measured"]),
                float(d.get("cpu_measured", float("nan"))),
                float(d.get("other_cpu_share", float("nan"))),
                tuple(float(r) for r in d.get("repetitions", ())),
            )
            for d in data
        ]
    except OSError as e:
        raise ValueError(f"points file {path}: {e.strerror}") from None
    except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
        raise ValueError(f"points file {path}: not a list of measured points ({e})") from None


@dataclass(frozen=True)
class Trend:
    """One claim of the paper checked on a projected machine."""

    figure: str
    machine: str
    claim: str
    predicted: str
    criterion: str
    reproduced: bool


def paper_trends(machines: dict[str, Topology], parameters: Parameters) -> list[Trend]:
    """The paper-000 trends (Fig 8, 11, 14, 16, 17, 18, 19, 22, 23, 24) predicted on the fixtures
    ``machines`` (keys ``2x8``, ``4x6``, ``8x10``)."""
    out: list[Trend] = []

    def tp(machine: str, deployment: str | Deployment, workload: ModelWorkload, transport: str = "unix") -> float:
        return predict(machines[machine], deployment, workload, parameters, transport=transport, samples=1).throughput

    def add(fig: str, machine: str, claim: str, predicted: str, criterion: str, ok: bool) -> None:
        out.append(Trend(fig, machine, claim, predicted, criterion, bool(ok)))

    read, update = ModelWorkload("micro-read"), ModelWorkload("micro-update")
    if "4x6" in machines:
        payment = ModelWorkload("tpcc-payment", multisite=0.0)
        if "local.tpcc-payment.none.txn_us" in parameters.costs:
            ratio, low, high = ratio_interval(machines["4x6"], "24ISL", "1ISL", payment, parameters)
            add(
                "000-fig8",
                "4x6",
                "per-core 4.5x shared-everything, local TPC-C Payment, 24 cores",
                f"{model_ratio_words(ratio, low, high)} over the parameters' spread",
                "ratio within 3.0x..6.0x (4.5x +-33%)",
                3.0 <= ratio <= 6.0,
            )
        t = {
            (d, op, p): tp("4x6", d, w.with_multisite(p))
            for d in ("1ISL", "4ISL", "24ISL")
            for op, w in (("read", read), ("update", update))
            for p in (0.0, 1.0)
        }
        flat = t[("1ISL", "read", 1.0)] / t[("1ISL", "read", 0.0)]
        add(
            "000-fig11",
            "4x6",
            "1ISL flat as multisite grows",
            f"1ISL 100%/0% = {flat:.2f}",
            "ratio 1.00 +- 0.01",
            abs(flat - 1) <= 0.01,
        )
        for op in ("read", "update"):
            order = [t[(d, op, 0.0)] for d in ("24ISL", "4ISL", "1ISL")]
            add(
                "000-fig11",
                "4x6",
                f"{op}: per-core highest at 0% multisite",
                " > ".join(f"{d} {x / 1e6:.2f}M" for d, x in zip(("24ISL", "4ISL", "1ISL"), order)),
                "24ISL > 4ISL and 24ISL > 1ISL",
                order[0] > order[1] and order[0] > order[2],
            )
            drop24 = 1 - t[("24ISL", op, 1.0)] / t[("24ISL", op, 0.0)]
            drop4 = 1 - t[("4ISL", op, 1.0)] / t[("4ISL", op, 0.0)]
            add(
                "000-fig11",
                "4x6",
                f"{op}: per-core falls fastest",
                f"drop 0->100%: 24ISL {drop24:.0%}, 4ISL {drop4:.0%}",
                "24ISL's drop > 4ISL's",
                drop24 > drop4,
            )
        dr = 1 - t[("24ISL", "read", 1.0)] / t[("24ISL", "read", 0.0)]
        du = 1 - t[("24ISL", "update", 1.0)] / t[("24ISL", "update", 0.0)]
        add(
            "000-fig11",
            "4x6",
            "update falls faster than read (24ISL)",
            f"drop read {dr:.0%}, update {du:.0%}",
            "update's drop > read's",
            du > dr,
        )
        if "distr.shm.read.participant_us" in parameters.costs:
            gains = {}
            for op, w in (("read", read), ("update", update)):
                for d in ("24ISL", "4ISL"):
                    gains[(op, d)] = (
                        tp("4x6", d, w.with_multisite(1.0), "shm") / tp("4x6", d, w.with_multisite(1.0)) - 1
                    )
            paper = {
                ("read", "24ISL"): 0.60,
                ("read", "4ISL"): 0.25,
                ("update", "24ISL"): 0.22,
                ("update", "4ISL"): 0.12,
            }
            text = ", ".join(f"{op} {d} +{gains[(op, d)]:.0%} (paper +{paper[(op, d)]:.0%})" for op, d in paper)
            ok = (
                gains[("read", "24ISL")] > gains[("read", "4ISL")]
                and gains[("update", "24ISL")] > gains[("update", "4ISL")]
            )
            ok = ok and gains[("read", "24ISL")] > gains[("update", "24ISL")]
            add(
                "000-fig14",
                "4x6",
                "shm over unix at 100% multisite: read per-core +60%, per-socket +25%; update +22%, +12%",
                text,
                "orderings hold: per-core gains more than per-socket, read more than update",
                ok,
            )
        cores = (1, 6, 12, 24)
        for label, spec in (
            ("fine (per-core)", "per-core"),
            ("coarse (per-socket)", "per-socket"),
            ("SE", "shared-everything"),
        ):
            w = read.with_multisite(0.2)
            xs = []
            for n in cores:
                cpus = _first_cores(machines["4x6"], n)
                dep = plan_deployment(
                    machines["4x6"], spec if not (spec == "per-socket" and n == 1) else "1", cpus=cpus
                )
                xs.append(tp("4x6", dep, w))
            eff = xs[-1] / (xs[0] * cores[-1])
            eff6 = xs[-1] / (xs[1] * cores[-1] / cores[1])
            linear = label != "SE"
            add(
                "000-fig19",
                "4x6",
                f"{label}: {'scales near-linearly' if linear else 'flattens'} with cores (20% multisite read)",
                f"{cores[-1]}-core / (24 x 1-core) = {eff:.2f} (from 6 cores: {eff6:.2f})",
                "efficiency >= 0.7" if linear else "efficiency < 0.5",
                eff >= 0.7 if linear else eff < 0.5,
            )
        for kind in (TPCB, PAYMENT, NEW_ORDER):
            spec_share = KINDS[kind].standard_share
            if f"local.{kind}.none.txn_us" not in parameters.costs:
                continue
            w = ModelWorkload(kind, multisite=0.0)
            drops = {d: 1 - tp("4x6", d, w.with_multisite(spec_share)) / tp("4x6", d, w) for d in ("24ISL", "4ISL")}
            text = f"drop with {spec_share:.0%} remote: 24ISL {drops['24ISL']:.0%}, 4ISL {drops['4ISL']:.0%}"
            if kind == TPCB:
                add(
                    "000-fig22",
                    "4x6",
                    "TPC-B: SN drops ~22% with 15% remote",
                    text,
                    "drops within 11%..33%",
                    all(0.11 <= x <= 0.33 for x in drops.values()),
                )
            else:
                add(
                    "000-fig22",
                    "4x6",
                    f"{kind}: SN drops with the spec's remote share",
                    text,
                    "drops > 0",
                    all(x > 0 for x in drops.values()),
                )
        if all(f"local.{k}.none.txn_us" in parameters.costs for k in ("tpcc-payment", "tpcc-new_order")):
            pay = ModelWorkload("tpcc-payment", multisite=0.0)
            new = ModelWorkload("tpcc-new_order", multisite=0.0)
            dp = 1 - tp("4x6", "24ISL", pay.with_multisite(0.15)) / tp("4x6", "24ISL", pay)
            dn = 1 - tp("4x6", "24ISL", new.with_multisite(0.01)) / tp("4x6", "24ISL", new)
            add(
                "000-fig22",
                "4x6",
                "Payment drops more than NewOrder (24ISL)",
                f"Payment {dp:.0%}, NewOrder {dn:.0%}",
                "Payment's drop > NewOrder's",
                dp > dn,
            )
    if "4x6" in machines:
        out += _size_and_remote_trends(machines["4x6"], parameters)
    if "2x8" in machines:
        t16, t2, t1 = (tp("2x8", d, read) for d in ("16ISL", "2ISL", "1ISL"))
        add(
            "000-fig16",
            "2x8",
            "16ISL almost 2x the others, local read",
            f"16ISL/2ISL {model_ratio_words(t16 / t2)}, 16ISL/1ISL {model_ratio_words(t16 / t1)}",
            "both within 1.5x..2.5x",
            1.5 <= t16 / t2 <= 2.5 and 1.5 <= t16 / t1 <= 2.5,
        )
        add(
            "000-fig16",
            "2x8",
            "2ISL slightly better than 1ISL, local read",
            f"2ISL/1ISL {model_ratio_words(t2 / t1)}",
            "within 1.0x..1.3x",
            1.0 < t2 / t1 <= 1.3,
        )
    if "8x10" in machines:
        t8 = {(d, p): tp("8x10", d, read.with_multisite(p)) for d in ("80ISL", "8ISL", "1ISL") for p in (0.0, 1.0)}
        add(
            "000-fig16",
            "8x10",
            "SE much lower than partitioned, local read",
            f"8ISL/1ISL {model_ratio_words(t8[('8ISL', 0.0)] / t8[('1ISL', 0.0)])}, "
            f"80ISL/1ISL {model_ratio_words(t8[('80ISL', 0.0)] / t8[('1ISL', 0.0)])}",
            "both > 2x",
            t8[("8ISL", 0.0)] > 2 * t8[("1ISL", 0.0)] and t8[("80ISL", 0.0)] > 2 * t8[("1ISL", 0.0)],
        )
        d80 = 1 - t8[("80ISL", 1.0)] / t8[("80ISL", 0.0)]
        d8 = 1 - t8[("8ISL", 1.0)] / t8[("8ISL", 0.0)]
        add(
            "000-fig16",
            "8x10",
            "80ISL falls more than 8ISL with multisite reads",
            f"drop 80ISL {d80:.0%}, 8ISL {d8:.0%}",
            "80ISL's drop > 8ISL's",
            d80 > d8,
        )
    return out


def _size_and_remote_trends(topology: Topology, parameters: Parameters) -> list[Trend]:
    """000 Fig 17, 18 (cost vs rows), 23 (TPC-B vs % remote) and 24 (Payment vs % remote) on
    the quad-socket fixture, as :func:`paper_trends` states them."""
    out: list[Trend] = []
    deployments = ("1ISL", "4ISL", "24ISL")

    def cost(d: str, w: ModelWorkload) -> float:
        return 24 * 1e6 / predict(topology, d, w, parameters, samples=1).throughput

    def add(fig: str, claim: str, predicted: str, criterion: str, ok: bool) -> None:
        out.append(Trend(fig, "4x6", claim, predicted, criterion, bool(ok)))

    rows = (1, 4, 8, 16, 64, 100)
    read = {
        (d, p, r): cost(d, ModelWorkload("micro-read", rows=r, multisite=p))
        for d in deployments
        for p in (0.0, 1.0)
        for r in rows
    }
    mid = 16
    nxt = min(read[(d, 0.0, mid)] for d in deployments if d != "24ISL")
    ratio = read[("24ISL", 0.0, mid)] / nxt
    add(
        "000-fig17",
        "local read: per-core ~40% cheaper than the next best configuration",
        f"24ISL / next best at {mid} rows: {model_ratio_words(ratio)}",
        "within 0.4..0.8 (0.6 +- 0.2)",
        0.4 <= ratio <= 0.8,
    )
    small = (read[("24ISL", 1.0, 8)] - read[("24ISL", 1.0, 4)]) / 4
    large = (read[("24ISL", 1.0, 100)] - read[("24ISL", 1.0, 64)]) / 36
    add(
        "000-fig17",
        "multisite read (24ISL): cost rises steeply while more instances join, then flattens",
        f"cost per added row: {small:.2f} us (4->8 rows), {large:.2f} us (64->100 rows)",
        "the added cost per row at 64->100 rows is below half of that at 4->8",
        large < 0.5 * small,
    )
    se, sn = read[("1ISL", 1.0, 100)], min(read[(d, 1.0, 100)] for d in ("4ISL", "24ISL"))
    add(
        "000-fig17",
        "shared-everything worst for large multisite reads (100 rows)",
        f"1ISL {se:.2f} us, best shared-nothing {sn:.2f} us",
        "1ISL costlier than every shared-nothing configuration",
        se > sn,
    )
    upd = {(d, r): cost(d, ModelWorkload("micro-update", rows=r, multisite=1.0)) for d in deployments for r in rows}
    costlier = all(upd[(d, r)] > upd[("1ISL", r)] for d in ("4ISL", "24ISL") for r in rows if r > 1)
    add(
        "000-fig18",
        "multisite updates: shared-nothing costlier than shared-everything at every size",
        ", ".join(
            f"{r} rows: 1ISL {upd[('1ISL', r)]:.1f}, 4ISL {upd[('4ISL', r)]:.1f}, 24ISL {upd[('24ISL', r)]:.1f} us"
            for r in (4, 100)
        ),
        "4ISL and 24ISL above 1ISL for every size > 1 row",
        costlier,
    )
    import numpy as np

    ys = np.array([upd[("1ISL", r)] for r in rows])
    fit = np.polyfit(np.array(rows, dtype=float), ys, 1)
    residual = float(np.max(np.abs(np.polyval(fit, np.array(rows, dtype=float)) - ys) / ys))
    add(
        "000-fig18",
        "shared-everything's update cost rises linearly with rows",
        f"largest deviation from a straight line {residual:.1%}",
        "within 5%",
        residual <= 0.05,
    )
    if "local.tpcb.none.txn_us" in parameters.costs:
        tb = {
            (d, p): predict(topology, d, ModelWorkload(TPCB, multisite=p), parameters, samples=1).throughput
            for d in deployments
            for p in (0.0, 1.0)
        }
        flat = tb[("1ISL", 1.0)] / tb[("1ISL", 0.0)]
        d4, d24 = 1 - tb[("4ISL", 1.0)] / tb[("4ISL", 0.0)], 1 - tb[("24ISL", 1.0)] / tb[("24ISL", 0.0)]
        add(
            "000-fig23",
            "TPC-B: shared-everything flat as remote grows",
            f"1ISL 100%/0% = {flat:.2f}",
            "1.00 +- 0.01",
            abs(flat - 1) <= 0.01,
        )
        add(
            "000-fig23",
            "TPC-B: coarse and fine shared-nothing fall alike (one participant each)",
            f"drop 0->100%: 4ISL {d4:.0%}, 24ISL {d24:.0%}",
            "drops within 25% of each other",
            min(d4, d24) > 0 and max(d4, d24) / min(d4, d24) <= 1.25,
        )
    if "local.tpcc-payment.none.txn_us" in parameters.costs:
        tp = {
            (d, p): predict(topology, d, ModelWorkload("tpcc-payment", multisite=p), parameters, samples=1).throughput
            for d in deployments
            for p in (0.0, 1.0)
        }
        flat = tp[("1ISL", 1.0)] / tp[("1ISL", 0.0)]
        d4, d24 = 1 - tp[("4ISL", 1.0)] / tp[("4ISL", 0.0)], 1 - tp[("24ISL", 1.0)] / tp[("24ISL", 0.0)]
        add(
            "000-fig24",
            "Payment: shared-everything stable as remote grows",
            f"1ISL 100%/0% = {flat:.2f}",
            "1.00 +- 0.01",
            abs(flat - 1) <= 0.01,
        )
        add(
            "000-fig24",
            "Payment: shared-nothing falls sharply with remote payments",
            f"drop 0->100%: 4ISL {d4:.0%}, 24ISL {d24:.0%}",
            "both drop by more than half",
            d4 > 0.5 and d24 > 0.5,
        )
    return out


def skew_trends(
    machines: dict[str, Topology],
    parameters: Parameters,
    zipf_s: float = 1.0,
    multisite: float = 0.2,
    duration_us: float = 5_000.0,
) -> list[Trend]:
    """000 Fig 20 by simulation (the closed form has no skew) on the 4x6 fixture: updates of 2
    rows at ``multisite``, uniform against Zipf ``zipf_s``: shared-everything suffers from
    contention, per-core from its most-loaded instance, and the coarse islands cope best."""
    from islands.model.simulation import simulate_deployment

    if "4x6" not in machines:
        return []
    topology = machines["4x6"]
    drops: dict[str, float] = {}
    aborts: dict[str, float] = {}
    for label in ("1ISL", "4ISL", "24ISL"):
        runs = {}
        for s in (0.0, zipf_s):
            w = ModelWorkload("micro-update", rows=2, multisite=multisite, zipf_s=s)
            runs[s] = simulate_deployment(topology, label, w, parameters, duration_us=duration_us)
        drops[label] = 1 - runs[zipf_s].throughput / runs[0.0].throughput
        aborts[label] = runs[zipf_s].abort_rate
    text = ", ".join(f"{d} {drops[d]:.0%} (aborts {aborts[d]:.0%})" for d in drops)
    return [
        Trend(
            "000-fig20",
            "4x6",
            f"update 2 rows, {multisite:.0%} multisite, Zipf {zipf_s:g} vs uniform (simulated): coarse copes best",
            f"drop: {text}",
            "4ISL's drop smaller than 1ISL's and 24ISL's",
            drops["4ISL"] < drops["1ISL"] and drops["4ISL"] < drops["24ISL"],
        )
    ]


def ratio_interval(
    topology: Topology,
    a: str | Deployment,
    b: str | Deployment,
    workload: ModelWorkload,
    parameters: Parameters,
    transport: str = "unix",
) -> tuple[float, float, float]:
    """Throughput of ``a`` over ``b`` and its 10th-90th percentile over the parameters'
    spread (paired draws; the model error, common to both, is left out)."""
    import numpy as np

    pa = predict(topology, a, workload, parameters, transport=transport)
    pb = predict(topology, b, workload, parameters, transport=transport)
    ratios = np.array(pa.samples) / np.array(pb.samples)
    low, high = np.percentile(ratios, [10, 90])
    return pa.throughput / pb.throughput, float(low), float(high)


def _first_cores(topology: Topology, n: int) -> tuple[int, ...]:
    """The first hardware thread of the first ``n`` cores, socket by socket."""
    return tuple(core.cpus[0] for core in topology.cores)[:n]


def summarize(errors: dict[str, dict[str, float]], fmt: Callable[[float], str] = lambda x: f"{x:.1%}") -> list[str]:
    """Lines of a per-figure error table."""
    return [
        f"{fig}: " + ", ".join(f"{k} {fmt(v)}" for k, v in sorted(e.items()) if k != "n") for fig, e in errors.items()
    ]
