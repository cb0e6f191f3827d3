"""The machine's half of the model's parameters: what the hardware and its operating system
charge, whatever engine runs on them (the engine's half: :mod:`islands.model.engine_costs`).

- ``round_trip_us[transport]``: a bare round trip between two cores of one socket over each
  messaging mechanism (unix sockets, shared memory), what a ping-pong measures;
- the cross-socket penalty: the :class:`~islands.model.machine_profile.MachineProfile`'s
  cache-line costs by NUMA distance (a message moves
  :data:`~islands.model.predict.LINES_PER_MESSAGE` lines at the extra cost of the distance
  between the two instances; contention and remote memory scale the same way);
- cores per socket and sockets: the profile's ``shape`` (the topology's, for this machine);
- the log device: ``log.write_mb_s`` (its write bandwidth) and ``log.flush_us`` (one flush).

Two kinds of machine: this one (:func:`here_machine`, from ``islands calibrate``) and the
papers' (:func:`paper_machine`, from ``paper_costs.json``: 000 Table 1 and the published
messaging and cache-line figures, each with its source).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from islands.machine.topology import Topology
from islands.model.machine_profile import MachineProfile, profile_for
from islands.model.parameters import Parameters

__all__ = ["MachineCosts", "here_machine", "machine_for", "paper_machine"]


@dataclass(frozen=True)
class MachineCosts:
    """One machine's costs (module docstring): its ``profile``, the same-socket round trip of
    each transport (µs) with its relative spread, its log device (``log``: ``log.write_mb_s``,
    ``log.flush_us``; absent: no limit, no delay) and each value's source."""

    name: str
    profile: MachineProfile
    round_trip_us: dict[str, float]
    spread: dict[str, float] = field(default_factory=dict)
    log: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for transport, value in self.round_trip_us.items():
            if not value > 0:
                raise ValueError(f"machine {self.name}: round trip over {transport} is {value!r}, not > 0")

    @property
    def ghz(self) -> float:
        """The machine's clock."""
        return self.profile.ghz

    @property
    def shape(self) -> tuple[int, int] | None:
        """(sockets, cores per socket), ``None`` where the profile is this machine's."""
        return self.profile.shape

    def cross_socket_ratio(self, distance: float) -> float:
        """How much dearer a cache line is from a socket at SLIT ``distance`` than from the
        same socket (the cross-socket penalty)."""
        return self.profile.line_ratio(distance)

    def with_round_trip(self, transport: str, us: float) -> MachineCosts:
        """The same machine with another round trip over ``transport`` (the deployment map's
        axis)."""
        trips = dict(self.round_trip_us)
        trips[transport] = us
        return MachineCosts(self.name, self.profile, trips, dict(self.spread), dict(self.log), dict(self.sources))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: each value with its source."""
        return {
            "name": self.name,
            "profile": self.profile.to_dict(),
            "round_trip_us": {
                t: {
                    "value": v,
                    "spread": self.spread.get(f"message.{t}.round_trip_us", 0.0),
                    "source": self.sources.get(f"message.{t}.round_trip_us", ""),
                }
                for t, v in sorted(self.round_trip_us.items())
            },
            "log": {k: {"value": v, "source": self.sources.get(k, "")} for k, v in sorted(self.log.items())},
        }


def here_machine(parameters: Parameters, profile: MachineProfile, source: str = "islands calibrate") -> MachineCosts:
    """This machine: the round trips and log device ``islands calibrate`` measured (in
    ``parameters``) with ``profile``'s cache-line costs."""
    trips, spread, log, sources = {}, {}, {}, {}
    for key, value in parameters.costs.items():
        if key.startswith("message.") and key.endswith(".round_trip_us") and value > 0:
            trips[key.split(".")[1]] = float(value)
            spread[key] = parameters.spread.get(key, 0.0)
            sources[key] = source
        elif key in ("log.write_mb_s", "log.flush_us"):
            log[key] = float(value)
            sources[key] = source
    host = str(parameters.machine.get("hostname", "this machine"))
    return MachineCosts(f"this machine ({host})", profile, trips, spread, log, sources)


def paper_machine(profile: MachineProfile | str) -> MachineCosts:
    """One of the papers' machines (a :data:`~islands.model.machine_profile.PROFILES` name or
    profile) with the round trips of ``paper_costs.json``; ``ValueError`` for a machine the
    papers did not use."""
    from islands.model.engine_costs import paper_costs
    from islands.model.machine_profile import PROFILES

    if isinstance(profile, str):
        if profile not in PROFILES:
            raise ValueError(f"paper machine {profile!r}: choose one of {', '.join(PROFILES)}")
        name, profile = profile, PROFILES[profile]
    else:
        name = next((n for n, p in PROFILES.items() if p == profile), profile.name)
    machines = paper_costs()["machines"]
    if name not in machines:
        raise ValueError(f"paper machine {name!r}: paper_costs.json has none (it has {', '.join(machines)})")
    trips, spread, sources = {}, {}, {}
    for key, entry in machines[name]["costs"].items():
        trips[key.split(".")[1]] = float(entry["value"])
        spread[key] = float(entry.get("spread", 0.0))
        sources[key] = str(entry["source"])
    return MachineCosts(profile.name, profile, trips, spread, {}, sources)


def machine_for(
    topology: Topology, parameters: Parameters, profile: MachineProfile | str | None = None
) -> MachineCosts:
    """The machine a prediction on ``topology`` runs on: a paper's machine where the profile
    (``profile``, else the one whose shape matches the topology) is one of the papers', else
    this machine as calibrated (``parameters``)."""
    if not isinstance(profile, MachineProfile):
        profile = profile_for(topology, profile)
    if profile.shape is not None:
        return paper_machine(profile)
    return here_machine(parameters, profile)
