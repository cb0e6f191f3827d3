"""A deployment map, which none of the papers drew: for one machine and one workload, which
deployment the model predicts fastest as the engine's speed and the messaging round trip vary
over decades.

- x: what one local transaction of the workload costs a single-threaded instance (µs;
  :meth:`~islands.model.engine_costs.EngineCosts.local_us`): the engine's costs scaled
  together (execution, locks, logging, the two-phase commit's work), so an engine keeps its
  own proportions while it gets faster or slower;
- y: the round trip of the transport the instances talk over (µs; the machine's, replaced by
  :meth:`~islands.model.machine_costs.MachineCosts.with_round_trip`); the cross-socket penalty
  and the cores per socket stay the machine's.

Each cell holds the best deployment, the runner-up and the ratio of their throughputs over the
parameters' paired draws (10th-90th percentile): where that interval includes 1 the model
cannot tell them apart (:func:`islands.analysis.verdicts.model_winner`). :class:`Mark` places
today's engines (this one as calibrated, Shore-MT as paper 000 ran it) at their local cost on
this machine's clock and the mechanisms' round trips (unix sockets, shared memory; this
machine's and the paper machine's).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from islands.analysis.verdicts import model_winner
from islands.machine.placement import deployment_choices, plan_deployment
from islands.machine.topology import Topology
from islands.model.cost_composition import compose
from islands.model.engine_costs import EngineCosts
from islands.model.machine_costs import MachineCosts
from islands.model.predict import predict
from islands.model.workload_spec import ModelWorkload

__all__ = ["DEFAULT_AXIS", "DeploymentMap", "Mark", "MapCell", "deployment_map", "marks_for"]

#: Both axes by default: 0.1 µs to 1 ms, three points a decade.
DEFAULT_AXIS = tuple(float(x) for x in np.logspace(-1, 3, 13))
#: Parameter draws per prediction of a cell.
SAMPLES = 40


@dataclass(frozen=True)
class MapCell:
    """One point of the map: the best deployment, the runner-up, their throughput ratio with
    its 10-90% interval, and the verdict's words."""

    local_us: float
    round_trip_us: float
    best: str
    second: str
    ratio: float
    low: float
    high: float
    words: str

    @property
    def distinguishable(self) -> bool:
        """Whether the ratio's interval excludes 1."""
        return self.low > 1.0


@dataclass(frozen=True)
class Mark:
    """An engine over a mechanism, placed on the map: its label, local cost and round trip."""

    label: str
    local_us: float
    round_trip_us: float
    engine: str = ""


@dataclass(frozen=True)
class DeploymentMap:
    """The map (module docstring): its machine, workload, transport, the engine whose
    proportions it keeps, the axes, the cells (``cells[i][j]``: ``round_trip_us[i]``,
    ``local_us[j]``), the deployments it compared and the marks."""

    machine: str
    workload: ModelWorkload
    transport: str
    engine: str
    local_us: tuple[float, ...]
    round_trip_us: tuple[float, ...]
    cells: tuple[tuple[MapCell, ...], ...]
    deployments: tuple[str, ...]
    marks: tuple[Mark, ...] = ()

    def cell_at(self, local_us: float, round_trip_us: float) -> MapCell:
        """The cell nearest (in log scale) to a point."""
        j = int(np.argmin(np.abs(np.log(np.array(self.local_us)) - math.log(local_us))))
        i = int(np.argmin(np.abs(np.log(np.array(self.round_trip_us)) - math.log(round_trip_us))))
        return self.cells[i][j]

    def regions(self) -> dict[str, int]:
        """How many cells each deployment is best in (the ones the model cannot tell apart
        counted under ``"not distinguishable"``)."""
        from islands.analysis.verdicts import NOT_DISTINGUISHABLE

        out: dict[str, int] = {}
        for row in self.cells:
            for c in row:
                key = c.best if c.distinguishable else NOT_DISTINGUISHABLE
                out[key] = out.get(key, 0) + 1
        return out

    def lines(self) -> list[str]:
        """The map as text: what it is, each mark's cell, and the regions."""
        out = [
            f"deployment map: {self.workload.describe()} over {self.transport} on {self.machine}; "
            f"engine proportions: {self.engine}",
            f"x: local cost per transaction {self.local_us[0]:g}..{self.local_us[-1]:g} us; "
            f"y: round trip {self.round_trip_us[0]:g}..{self.round_trip_us[-1]:g} us",
        ]
        for m in self.marks:
            c = self.cell_at(m.local_us, m.round_trip_us)
            out.append(f"{m.label} (local {m.local_us:.3g} us, round trip {m.round_trip_us:.3g} us): {c.words}")
        if any(m.engine and m.engine != self.engine for m in self.marks):
            out.append(
                f"a mark of another engine sits at its local cost and round trip; its cell is {self.engine}'s "
                "proportions at that speed, not that engine's own (draw its map with its --engine)"
            )
        out.append("cells per deployment: " + ", ".join(f"{k} {v}" for k, v in sorted(self.regions().items())))
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "machine": self.machine,
            "workload": self.workload.describe(),
            "transport": self.transport,
            "engine": self.engine,
            "local_us": list(self.local_us),
            "round_trip_us": list(self.round_trip_us),
            "deployments": list(self.deployments),
            "cells": [
                [
                    {
                        "best": c.best,
                        "second": c.second,
                        "ratio": c.ratio,
                        "low": c.low,
                        "high": c.high,
                        "words": c.words,
                    }
                    for c in row
                ]
                for row in self.cells
            ],
            "marks": [m.__dict__ for m in self.marks],
            "regions": self.regions(),
        }


def deployment_map(
    topology: Topology,
    workload: ModelWorkload,
    engine: EngineCosts,
    machine: MachineCosts,
    *,
    transport: str = "unix",
    local_us: Sequence[float] = DEFAULT_AXIS,
    round_trip_us: Sequence[float] = DEFAULT_AXIS,
    marks: Sequence[Mark] = (),
    samples: int = SAMPLES,
) -> DeploymentMap:
    """The map of ``topology`` (with ``machine``'s costs) for ``workload``, keeping
    ``engine``'s proportions (module docstring). ``ValueError`` for an empty or non-positive
    axis, a skewed workload (the closed form does not apply) or an engine without the
    workload's costs."""
    for name, axis in (("local_us", local_us), ("round_trip_us", round_trip_us)):
        if not axis or any(not x > 0 for x in axis):
            raise ValueError(f"deployment map: {name} must be positive numbers, got {list(axis)!r}")
    if workload.zipf_s > 0:
        raise ValueError("deployment map: the closed form does not apply to a skewed workload (zipf > 0)")
    base = engine.local_us(workload.kind, workload.rows) * _clock(engine, machine)
    if not base > 0:
        raise ValueError(f"deployment map: engine {engine.name} has no local cost for {workload.kind}")
    labels = deployment_choices(topology)
    plans = [plan_deployment(topology, d) for d in labels]
    cells = []
    for rtt in round_trip_us:
        m = machine.with_round_trip(transport, float(rtt))
        row = []
        for x in local_us:
            params = compose(engine.scaled(float(x) / base), m)
            draws = {
                d.label: np.array(
                    predict(
                        topology, d, workload, params, transport=transport, profile=m.profile, samples=samples
                    ).samples
                )
                for d in plans
            }
            ranked = sorted(draws, key=lambda k: -draws[k][0])
            best, second = ranked[0], ranked[1] if len(ranked) > 1 else ranked[0]
            ratios = draws[best] / draws[second]
            lo, hi = (float(v) for v in np.percentile(ratios, [10, 90]))
            words = model_winner(best, second, float(ratios[0]), lo, hi).text
            row.append(MapCell(float(x), float(rtt), best, second, float(ratios[0]), lo, hi, words))
        cells.append(tuple(row))
    return DeploymentMap(
        machine=machine.name,
        workload=workload,
        transport=transport,
        engine=engine.name,
        local_us=tuple(float(x) for x in local_us),
        round_trip_us=tuple(float(x) for x in round_trip_us),
        cells=tuple(cells),
        deployments=tuple(labels),
        marks=tuple(marks),
    )


def marks_for(
    workload: ModelWorkload, engines: Sequence[EngineCosts], machines: Sequence[MachineCosts], target: MachineCosts
) -> list[Mark]:
    """Each engine (at its local cost for ``workload`` on ``target``'s clock) over each
    mechanism of each machine (at its round trip)."""
    out = []
    seen: set[tuple[str, float]] = set()
    for e in engines:
        x = e.local_us(workload.kind, workload.rows) * _clock(e, target)
        if not x > 0:
            continue
        for m in machines:
            for transport, rtt in sorted(m.round_trip_us.items()):
                key = (f"{e.name}|{transport}", round(rtt, 6))
                if key in seen:
                    continue
                seen.add(key)
                out.append(Mark(f"{e.name} / {transport} ({m.name})", x, rtt, e.name))
    return out


def _clock(engine: EngineCosts, machine: MachineCosts) -> float:
    return engine.ghz / machine.ghz if engine.ghz > 0 and machine.ghz > 0 else 1.0
