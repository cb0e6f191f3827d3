"""An engine on a machine: the model's parameters from its two halves
(:mod:`islands.model.engine_costs`, :mod:`islands.model.machine_costs`), which
:func:`islands.model.predict.predict` and the simulation take as they are.

- the engine's CPU costs are scaled by its clock over the machine's (an engine measured at
  2.6 GHz is 1.4x slower at 1.86 GHz); shares, bytes and ratios are not;
- a distributed transaction's cost per participant is the engine's two-phase-commit work plus
  one round trip of the machine's transport for a read, two for an update
  (:func:`~islands.model.engine_costs.round_trips_of`);
- the machine's round trips and log device complete the set, and the parameters' clock is the
  machine's, so that the prediction scales nothing further.

``compose(here_engine(p), here_machine(p, profile))`` gives back ``p``'s costs (a test holds it
to that).
"""

from __future__ import annotations

import math

from islands.machine.topology import Topology
from islands.model.engine_costs import UNSCALED, EngineCosts, engine_for, round_trips_of
from islands.model.machine_costs import MachineCosts, machine_for
from islands.model.machine_profile import MachineProfile
from islands.model.parameters import Parameters

__all__ = ["compose", "engine_on_machine"]


def compose(engine: EngineCosts, machine: MachineCosts) -> Parameters:
    """The parameters of ``engine`` running on ``machine`` (module docstring)."""
    factor = engine.ghz / machine.ghz if engine.ghz > 0 and machine.ghz > 0 else 1.0
    costs: dict[str, float] = {}
    spread: dict[str, float] = {}
    for key, value in engine.costs.items():
        if key.startswith("distr.") and key.endswith(".work_us"):
            _, transport, op, _ = key.split(".")
            rtt = machine.round_trip_us.get(transport)
            if rtt is None:
                continue  # the machine has no such transport
            work = value * factor
            new = f"distr.{transport}.{op}.participant_us"
            costs[new] = work + round_trips_of(op) * rtt
            err = math.hypot(
                engine.spread.get(key, 0.0) * work,
                round_trips_of(op) * rtt * machine.spread.get(f"message.{transport}.round_trip_us", 0.0),
            )
            spread[new] = err / costs[new] if costs[new] > 0 else 0.0
            continue
        costs[key] = value if key in UNSCALED else value * factor
        if key in engine.spread:
            spread[key] = engine.spread[key]
    for transport, rtt in machine.round_trip_us.items():
        key = f"message.{transport}.round_trip_us"
        costs[key] = rtt
        spread[key] = machine.spread.get(key, 0.0)
    costs.update(machine.log)
    notes = [f"engine: {engine.name}; machine: {machine.name}"]
    if factor != 1.0:
        notes.append(
            f"engine CPU costs x {factor:.3g} (its clock {engine.ghz:.3g} GHz over the machine's {machine.ghz:.3g})"
        )
    return Parameters(
        costs=costs,
        spread={k: v for k, v in spread.items() if k in costs},
        model_error=engine.model_error,
        machine={"ghz": machine.ghz, "engine": engine.name, "machine": machine.name},
        notes=tuple(notes),
    )


def engine_on_machine(
    engine: str | EngineCosts,
    topology: Topology,
    parameters: Parameters,
    profile: MachineProfile | str | None = None,
    parameters_from: str = "islands calibrate on this machine",
) -> tuple[Parameters, EngineCosts, MachineCosts]:
    """The parameters of ``engine`` (``"here"``, ``"paper"`` or an
    :class:`~islands.model.engine_costs.EngineCosts`) on the machine of ``topology``
    (:func:`~islands.model.machine_costs.machine_for`; ``parameters`` are this machine's
    calibration), with the two halves."""
    e = engine if isinstance(engine, EngineCosts) else engine_for(engine, parameters, parameters_from)
    m = machine_for(topology, parameters, profile)
    return compose(e, m), e, m
