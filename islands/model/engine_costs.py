"""The engine's half of the model's parameters: what the database engine itself costs per
transaction, apart from the machine it runs on (:mod:`islands.model.machine_costs`).

A prediction is an engine on a machine (:func:`islands.model.cost_composition.compose`). The
engine's costs are microseconds of one worker at the clock ``ghz`` they were measured at:

- ``local.micro.<none|2pl>.txn_us`` and ``...<read|update>.row_us``: a local microbenchmark
  transaction, fixed part and per row, single-threaded without locks (``none``) or under row
  locks and latches (``2pl``: the lock manager's price);
- ``local.<tpcb|tpcc-payment|tpcc-new_order>.<cc>.txn_us``: the standard transactions;
- ``local.contention_per_thread``: what each further thread of an instance adds (latches,
  lock words, lines moving between its threads), before the machine's cross-socket penalty;
- ``log.update_us`` (``log.2pl.update_us``), ``log.flusher_us``, ``log.bytes_per_commit``:
  logging an update (group commit);
- ``distr.<transport>.<read|update>.work_us``: the two-phase commit's work per participant
  beyond the messages' bare round trips (the fragment's bookkeeping, the prepare record, locks
  held through the second round): calibrated as ``distr.<t>.<op>.participant_us`` less one
  round trip for a read and two for an update;
- ``memory.share``: the share of a row's cost that waits for memory (what remote memory
  scales).

Two engines: ``here`` (:func:`here_engine`: this engine, calibrated on this machine by
``islands calibrate``) and ``paper`` (:func:`paper_engine`: Shore-MT as paper 000 ran it,
derived from the papers' published numbers in ``paper_costs.json``, every value with its
source).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from islands.model.parameters import Parameters

__all__ = [
    "ENGINES",
    "MACHINE_KEYS",
    "EngineCosts",
    "engine_for",
    "here_engine",
    "paper_costs",
    "paper_engine",
    "round_trips_of",
]

#: The engines :func:`engine_for` knows.
ENGINES = ("here", "paper")
#: Keys of a calibration that belong to the machine, not the engine: the transports' bare
#: round trips and the log device (write bandwidth, one flush).
MACHINE_KEYS = ("message.", "log.write_mb_s", "log.flush_us")
#: Keys that are not CPU time (not scaled by clock): bytes, bandwidth, shares, ratios.
UNSCALED = ("log.bytes_per_commit", "log.write_mb_s", "memory.share", "local.contention_per_thread")


def round_trips_of(op: str) -> int:
    """Round trips a participant of a distributed ``op`` waits for: one for a read (the
    read-only vote ends it, 000 Sec 6.3), two for an update (prepare, then the decision)."""
    return 2 if op == "update" else 1


@dataclass(frozen=True)
class EngineCosts:
    """An engine's costs (module docstring): ``costs`` key -> µs (or a share), their relative
    ``spread``, the clock ``ghz`` they were measured at (NaN: unknown), where each value comes
    from (``sources``), the model's relative error with this engine and notes."""

    name: str
    costs: dict[str, float]
    spread: dict[str, float] = field(default_factory=dict)
    ghz: float = math.nan
    sources: dict[str, str] = field(default_factory=dict)
    model_error: float = 0.25
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for key, value in self.costs.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 0:
                raise ValueError(f"engine {self.name}: cost {key!r} is {value!r}, not a number >= 0")
            if any(key.startswith(m) for m in MACHINE_KEYS):
                raise ValueError(f"engine {self.name}: {key!r} is the machine's, not the engine's")

    def get(self, key: str, default: float = math.nan) -> float:
        """The cost ``key``, or ``default``."""
        return float(self.costs.get(key, default))

    def local_us(self, kind: str = "micro-read", rows: int = 10) -> float:
        """What one local transaction of ``kind`` costs a single-threaded instance (execution
        and, for updates, logging): the engine's speed on the deployment map's axis."""
        from islands.model.workload_spec import KINDS

        update, family = KINDS[kind].update, KINDS[kind].family
        if KINDS[kind].per_row:
            op = "update" if update else "read"
            t = self.get(f"local.{family}.none.txn_us") + rows * self.get(f"local.{family}.none.{op}.row_us")
        else:
            t = self.get(f"local.{family}.none.txn_us")
        if update:
            t += self.get("log.update_us", 0.0) + self.get("log.flusher_us", 0.0)
        return t

    def scaled(self, factor: float, name: str | None = None) -> EngineCosts:
        """The same engine ``factor`` times slower (every CPU cost, the two-phase commit's work
        included, times ``factor``; shares, bytes and ratios unchanged)."""
        if not factor > 0:
            raise ValueError(f"engine speed factor {factor!r} is not > 0")
        costs = {k: (v if k in UNSCALED else v * factor) for k, v in self.costs.items()}
        return EngineCosts(
            name or self.name, costs, dict(self.spread), self.ghz, dict(self.sources), self.model_error, self.notes
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: each cost with its spread and source."""
        return {
            "name": self.name,
            "ghz": self.ghz if self.ghz == self.ghz else None,
            "model_error": self.model_error,
            "costs": {
                k: {"value": v, "spread": self.spread.get(k, 0.0), "source": self.sources.get(k, "")}
                for k, v in sorted(self.costs.items())
            },
            "notes": list(self.notes),
        }


def here_engine(parameters: Parameters, source: str = "islands calibrate on this machine") -> EngineCosts:
    """This engine: the calibrated ``parameters`` less the machine's part (round trips, log
    device). A distributed transaction's per-participant cost becomes its work beyond the
    round trips, with its absolute error carried over."""
    costs: dict[str, float] = {}
    spread: dict[str, float] = {}
    notes = list(parameters.notes)
    for key, value in parameters.costs.items():
        if any(key.startswith(m) for m in MACHINE_KEYS):
            continue
        if key.startswith("distr.") and key.endswith(".participant_us"):
            _, transport, op, _ = key.split(".")
            rtt = parameters.get(f"message.{transport}.round_trip_us", 0.0)
            if rtt != rtt:
                rtt = 0.0
            work = value - round_trips_of(op) * rtt
            if work < 0:
                notes.append(f"{key} {value:.3g} us is below its {round_trips_of(op)} round trips: work taken as 0")
                work = 0.0
            new = f"distr.{transport}.{op}.work_us"
            costs[new] = work
            err = parameters.spread.get(key, 0.0) * value
            spread[new] = err / work if work > 0 else 0.0
            continue
        costs[key] = float(value)
        if key in parameters.spread:
            spread[key] = parameters.spread[key]
    return EngineCosts(
        name="islands (here)",
        costs=costs,
        spread=spread,
        ghz=float(parameters.machine.get("ghz", math.nan)),
        sources=dict.fromkeys(costs, source),
        model_error=parameters.model_error,
        notes=tuple(notes),
    )


def paper_costs() -> dict[str, Any]:
    """The published numbers as the model's parameters (``islands/model/paper_costs.json``):
    ``engine`` (Shore-MT as paper 000 ran it) and ``machines`` (the papers' machines, by
    profile name), each value with its spread, source and derivation."""
    text = resources.files("islands.model").joinpath("paper_costs.json").read_text()
    return dict(json.loads(text))


def paper_engine() -> EngineCosts:
    """Shore-MT as paper 000 ran it, from ``paper_costs.json``: every value's source is the
    paper, figure, table or section it is derived from (``sources``; the derivation is in
    ``notes``)."""
    data = paper_costs()["engine"]
    costs, spread, sources, notes = {}, {}, {}, []
    for key, entry in data["costs"].items():
        costs[key] = float(entry["value"])
        spread[key] = float(entry.get("spread", 0.0))
        sources[key] = str(entry["source"])
        if entry.get("derivation"):
            notes.append(f"{key}: {entry['derivation']}")
    return EngineCosts(
        name=str(data["name"]),
        costs=costs,
        spread=spread,
        ghz=float(data["ghz"]),
        sources=sources,
        model_error=float(data.get("model_error", 0.25)),
        notes=tuple(notes),
    )


def engine_for(name: str, parameters: Parameters, source: str = "islands calibrate on this machine") -> EngineCosts:
    """The engine called ``name`` (:data:`ENGINES`): ``here`` from the calibrated
    ``parameters``, ``paper`` from the papers' numbers; ``ValueError`` for another name."""
    if name == "here":
        return here_engine(parameters, source)
    if name == "paper":
        return paper_engine()
    raise ValueError(f"engine {name!r}: choose one of {', '.join(ENGINES)}")
