"""Measurements made beside a run, named in experiment files (``[probe]``): paper 002's Fig 9
and Table 2 from ``islands reproduce``.

Some of the papers' numbers are not a run's throughput but something done to a running
instance and timed: the cost of re-partitioning actions (002 Fig 9) and the cost of the
monitor's recording (002 Table 2). An experiment file names one such probe; every point of
the file then runs one PLP instance in this process with the probe's thread beside it, and
its row keeps the probe's numbers as ``probe.*`` beside the run's own::

    [probe]
    kind = "repartition_cost"       # 002 Fig 9: sequences of re-partitioning actions, each
    actions = [1, 10, 20, 40, 80]   # timed end to end (islands.atrapos.repartition_cost)

    [probe]
    kind = "monitor_overhead"       # 002 Table 2: the monitor's recording switched off and
    phase_s = 0.1                   # on every phase_s within the run
                                    # (islands.atrapos.monitor_overhead)

A probe's points must run one PLP instance (``engine.execution = "plp"``, ``deployment =
["1"]``), unlogged, without a [[schedule]] (the ATraPos controller would re-partition
beside it); ``repartition_cost`` needs two workers or more (judged per point).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from islands.config.settings import RunConfig
    from islands.machine.topology import Topology

__all__ = ["PROBE_KINDS", "Probe", "parse_probe"]

#: The probes an experiment file may name, and the keys each takes besides ``kind``.
PROBE_KINDS: dict[str, tuple[str, ...]] = {
    "repartition_cost": ("actions",),
    "monitor_overhead": ("phase_s",),
}


@dataclass(frozen=True)
class Probe:
    """A measurement beside each run of an experiment file: ``kind`` (one of
    :data:`PROBE_KINDS`), the sequence lengths ``actions`` (repartition_cost) or the
    switching period ``phase_s`` (monitor_overhead)."""

    kind: str
    actions: tuple[int, ...] = ()
    phase_s: float = 0.1

    def to_dict(self) -> dict[str, Any]:
        """The ``[probe]`` table (JSON-ready; for the spec's and the point's hashes)."""
        if self.kind == "repartition_cost":
            return {"kind": self.kind, "actions": list(self.actions)}
        return {"kind": self.kind, "phase_s": self.phase_s}

    def prepare(self, config: RunConfig) -> RunConfig:
        """``config`` as the probe's runs need it: monitor_overhead records with the monitor
        on and a timeline fine enough to cut into phases."""
        import dataclasses

        if self.kind != "monitor_overhead":
            return config
        from islands.atrapos.monitor_overhead import INTERVAL_S

        return dataclasses.replace(
            config,
            engine=dataclasses.replace(config.engine, plp_monitor=True),
            driver=dataclasses.replace(config.driver, timeline_interval_s=INTERVAL_S),
        )

    def run(self, config: RunConfig, repetition: int = 0, topology: Topology | None = None) -> dict[str, Any]:
        """Runs ``config`` with the probe beside it: the run's result as a row dict, with the
        probe's numbers under ``probe``; ``topology`` is the machine's the row records (the
        sweep's, virtual sockets included; default: read). A repetition rotates the order of
        the action counts (each count's sequence lands at another time of the run)."""
        if self.kind == "repartition_cost":
            from islands.atrapos.repartition_cost import measure_repartition_cost

            k = repetition % len(self.actions)
            order = self.actions[k:] + self.actions[:k]
            result, out = measure_repartition_cost(config, order, topology=topology)
            by_count = {n: i for i, n in enumerate(order)}  # stored in the file's order
            numbers = {
                key: [out[key][by_count[n]] for n in self.actions] for key in ("total_ms", "pause_ms", "max_pause_us")
            }
            probe = {**self.to_dict(), **numbers, "order": list(order), "error": out["error"]}
        else:
            from islands.atrapos.monitor_overhead import measure_monitor_overhead

            result, out = measure_monitor_overhead(config, self.phase_s, topology)
            probe = {**self.to_dict(), "off_tps": out["off_tps"], "on_tps": out["on_tps"], "error": out["error"]}
        return {**result.to_dict(), "probe": probe}


def parse_probe(table: Any, error: Callable[[str, str], ValueError]) -> Probe:
    """The ``[probe]`` table of an experiment file, checked; ``error(key, why)`` makes the
    one-line error (``probe.key: why``)."""
    if not isinstance(table, Mapping):
        raise error("probe", "must be a table ([probe])")
    kind = table.get("kind")
    if kind is None:
        raise error("probe.kind", f"missing (one of {', '.join(PROBE_KINDS)})")
    if kind not in PROBE_KINDS:
        raise error("probe.kind", f"{kind!r}: choose one of {', '.join(PROBE_KINDS)}")
    for key in table:
        if key != "kind" and key not in PROBE_KINDS[kind]:
            known = ", ".join(("kind", *PROBE_KINDS[kind]))
            raise error(f"probe.{key}", f"not a key of the {kind} probe (known: {known})")
    if kind == "repartition_cost":
        actions = table.get("actions", [1, 10, 20, 40, 80])
        if (
            not isinstance(actions, list)
            or not actions
            or any(isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 100_000 for n in actions)
        ):
            raise error("probe.actions", f"{actions!r} is not a list of action counts (whole numbers in [1, 100000])")
        if len(set(actions)) != len(actions):
            raise error("probe.actions", f"{actions!r} lists a count twice")
        return Probe(kind, actions=tuple(actions))
    phase = table.get("phase_s", 0.1)
    if isinstance(phase, bool) or not isinstance(phase, (int, float)) or not math.isfinite(phase) or not phase >= 0.05:
        raise error("probe.phase_s", f"{phase!r} is not a number of seconds >= 0.05 (five timeline intervals)")
    return Probe(kind, phase_s=float(phase))
