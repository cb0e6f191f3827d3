"""The deployment advisor (000's stated future work): for a topology and a workload, every
equal-size deployment (``1ISL`` .. ``NISL``, islands placement) predicted by the model, the
best first, with intervals and the cost that dominates each.

A deployment is called best when its predicted throughput is the highest; where the runner-up's
interval overlaps the best's, the advice says the two cannot be told apart by the model. With
``simulate``, every candidate is also simulated (:func:`islands.model.simulation.simulate_deployment`:
waiting for votes, lock conflicts, skew, the most-loaded instance) and the ranking follows the
simulated throughput.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from islands.machine.placement import deployment_choices, plan_deployment
from islands.machine.topology import Topology
from islands.model.machine_profile import MachineProfile, profile_for
from islands.model.parameters import Parameters
from islands.model.predict import COMPONENTS, Prediction, predict
from islands.model.workload_spec import ModelWorkload

__all__ = ["Advice", "advise"]


@dataclass(frozen=True)
class Advice:
    """The predictions of every candidate deployment, best first, and why the best wins."""

    workload: ModelWorkload
    transport: str
    topology: str
    profile: MachineProfile
    predictions: tuple[Prediction, ...]
    why: str
    parameters_from: str = ""
    simulated: bool = False

    @property
    def best(self) -> Prediction:
        """The deployment predicted fastest."""
        return self.predictions[0]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "topology": self.topology,
            "workload": self.workload.describe(),
            "transport": self.transport,
            "profile": self.profile.to_dict(),
            "parameters": self.parameters_from,
            "best": self.best.deployment,
            "ranked_by": "simulation" if self.simulated else "closed form",
            "why": self.why,
            "predictions": [p.to_dict() for p in self.predictions],
        }

    def describe(self) -> str:
        """The advice as text: the best deployment, why, and a table of the alternatives."""
        derived = ", derived" if self.profile.derived else ""
        lines = [
            f"advice for {self.workload.describe()} over {self.transport} on {self.topology}",
            f"  hardware costs: {self.profile.name}{derived}; parameters: {self.parameters_from}",
            "",
            f"best: {self.best.deployment}  {_tps(self.best.throughput)} "
            f"({_tps(self.best.low)} .. {_tps(self.best.high)})",
            f"why: {self.why}",
            "",
            f"{'deployment':<12} {'predicted':>12} {'interval':>25} "
            + (f"{'simulated':>12} " if self.simulated else "")
            + f"{'distributed':>12}  dominant cost",
        ]
        for p in self.predictions:
            interval = f"{_tps(p.low)} .. {_tps(p.high)}"
            simulated = f"{_tps(p.simulated):>12} " if self.simulated else ""
            lines.append(
                f"{p.deployment:<12} {_tps(p.throughput):>12} {interval:>25} {simulated}{p.distributed_share:>11.0%}  "
                f"{p.dominant_cost} ({p.breakdown[p.dominant_cost]:.2f} us of {sum(p.breakdown.values()):.2f})"
            )
        if self.simulated:
            lines.append("ranked by the simulated throughput")
        # What the prediction leaves out (skew in the closed form, derived line costs) is
        # part of the advice, not only of its JSON.
        for note in dict.fromkeys(n for p in self.predictions for n in p.notes):
            lines.append(f"note: {note}")
        return "\n".join(lines)


def _tps(x: float) -> str:
    if x != x:
        return "n/a"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M/s"
    if x >= 1e3:
        return f"{x / 1e3:.1f} K/s"
    return f"{x:.0f} /s"


def _why(ranked: list[Prediction], simulated: bool = False) -> str:
    best = ranked[0]
    total = sum(best.breakdown.values())
    parts = ", ".join(f"{c} {best.breakdown[c]:.2f}" for c in COMPONENTS if best.breakdown[c] > 0.005 * total)
    text = (
        f"{best.deployment} spends {total:.2f} us of worker time per transaction ({parts}); "
        f"{best.dominant_cost} dominates"
    )
    if len(ranked) > 1:
        second = ranked[1]
        value = (lambda p: p.simulated) if simulated else (lambda p: p.throughput)
        gap = 1 - value(second) / value(best)
        text += (
            f". Next, {second.deployment}, is {'simulated' if simulated else 'predicted'} {gap:.0%} slower, "
            f"dominated by {second.dominant_cost} "
            f"({second.breakdown[second.dominant_cost]:.2f} us)"
        )
        if not simulated and second.high >= best.low:
            text += "; their intervals overlap, so the model cannot tell them apart"
    worst = ranked[-1]
    if worst is not best and worst is not ranked[1 if len(ranked) > 1 else 0]:
        text += f". Slowest, {worst.deployment}: {worst.dominant_cost} ({worst.breakdown[worst.dominant_cost]:.2f} us)"
    return text


def advise(
    topology: Topology,
    workload: ModelWorkload,
    parameters: Parameters,
    *,
    transport: str = "unix",
    profile: MachineProfile | str | None = None,
    parameters_from: str = "",
    simulate: bool = False,
    simulated_us: float = 5_000.0,
) -> Advice:
    """Predicts every ``NISL`` deployment of ``topology`` (one instance per divisor of its
    cores, islands placement) for ``workload`` and ranks them; with ``simulate`` also
    simulates each for ``simulated_us`` (simulated microseconds) and ranks by that."""
    if not isinstance(profile, MachineProfile):
        profile = profile_for(topology, profile)
    ranked = []
    for label in deployment_choices(topology):
        deployment = plan_deployment(topology, label)
        prediction = predict(topology, deployment, workload, parameters, transport=transport, profile=profile)
        if simulate:
            from islands.model.simulation import simulate_deployment

            sim = simulate_deployment(
                topology,
                deployment,
                workload,
                parameters,
                transport=transport,
                profile=profile,
                duration_us=simulated_us,
            )
            prediction = dataclasses.replace(prediction, simulated=sim.throughput)
        ranked.append(prediction)
    ranked.sort(key=lambda p: -(p.simulated if simulate else p.throughput))
    shape = f"{topology.n_sockets} socket{'s' if topology.n_sockets != 1 else ''}, {topology.n_cores} cores"
    return Advice(
        workload=workload,
        transport=transport,
        topology=f"{topology.source} ({shape})",
        profile=profile,
        predictions=tuple(ranked),
        why=_why(ranked, simulate),
        parameters_from=parameters_from,
        simulated=simulate,
    )
