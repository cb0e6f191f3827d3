"""ATraPos (paper 002), the parts that do not need the partitioned engine: the cost model
(RU and TS), the search (Algorithm 1 then Algorithm 2), the adaptive monitoring interval, and
the bridge from the engine's monitor snapshot to workload statistics.

One concept per module:

- :mod:`~islands.atrapos.hardware`: cores, sockets, distances (from a topology, real,
  fixture or virtual), cores taken away or given back;
- :mod:`~islands.atrapos.scheme`: the partitioning and placement scheme S;
- :mod:`~islands.atrapos.workload_stats`: the workload statistics W, and :func:`from_monitor`;
- :mod:`~islands.atrapos.cost_model`: ``RU(S, W)`` and ``TS(S, W)``;
- :mod:`~islands.atrapos.partitioning`: Algorithm 1;
- :mod:`~islands.atrapos.socket_placement`: Algorithm 2;
- :mod:`~islands.atrapos.search`: both, the plan and whether it is worth applying;
- :mod:`~islands.atrapos.actions`: the splits, moves and merges from one scheme to another;
- :mod:`~islands.atrapos.controller`: the adaptive interval;
- :mod:`~islands.atrapos.adaptive_loop`: controller, search and threshold, per interval;
- :mod:`~islands.atrapos.adaptation`: adaptation times from throughput timelines.

Wiring into the partitioned engine (what PLP provides):

1. a numbering of its partitions, each ``MonitoredPartition(table, lo, hi, core)`` with
   ``core`` numbered as :class:`Hardware` numbers the topology's cores (socket by socket);
2. a C++ ``islands::atrapos::WorkloadMonitor`` over those key ranges; per action the owner
   thread calls ``sub_of(key)`` and ``record_action(sub, cost)``, and at each rendezvous
   ``record_sync(sub, remote_partition, remote_sub, bytes)`` for the remote actions it meets;
3. a monitor thread that at the end of each interval passes the interval's throughput and a
   callable returning ``from_monitor(now - before, partitions, n_cores)`` to
   :meth:`AdaptiveLoop.end_of_interval`, and, when the decision says so, runs its
   ``actions`` (split at a key, move a key range to a core, merge at a key) with regular
   actions paused on the partitions involved, then builds a new monitor for the new
   partitions (:meth:`Scheme.partitions`);
4. for cores taken away or given back: ``Hardware.without`` / ``with_cores`` and
   :meth:`AdaptiveLoop.hardware_changed`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from islands.atrapos.actions import RepartitionAction, repartition_actions
    from islands.atrapos.adaptation import adaptation_time, steady_state
    from islands.atrapos.adaptive_loop import AdaptiveLoop, Decision
    from islands.atrapos.controller import Check, IntervalController, replay
    from islands.atrapos.cost_model import (
        SyncIndex,
        core_loads,
        core_utilization,
        draw_loads,
        draw_overhead,
        resource_utilization,
        sync_costs,
        transaction_synchronization,
        ts_by_txn,
    )
    from islands.atrapos.hardware import Hardware
    from islands.atrapos.partitioning import (
        choose_partitioning,
        greedy_partitioning,
        home_partitioning,
        improve_partitioning,
    )
    from islands.atrapos.scheme import SUB_PARTITIONS, Partition, Scheme, TableLayout, check_fits, split_range
    from islands.atrapos.search import DEFAULT_DRAW_WEIGHT, DEFAULT_MIN_GAIN, Plan, choose_scheme, hop_cost_of
    from islands.atrapos.socket_placement import choose_placement, spread_placement
    from islands.atrapos.workload_stats import MonitoredPartition, SyncPoint, WorkloadStats, from_monitor

#: Each public name and the module that defines it: loaded on first use (PEP 562), so that
#: importing one module of the package (atrapos.events for an experiment file) loads no other.
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("RepartitionAction", "repartition_actions"), "islands.atrapos.actions"),
    **dict.fromkeys(("adaptation_time", "steady_state"), "islands.atrapos.adaptation"),
    **dict.fromkeys(("AdaptiveLoop", "Decision"), "islands.atrapos.adaptive_loop"),
    **dict.fromkeys(("Check", "IntervalController", "replay"), "islands.atrapos.controller"),
    **dict.fromkeys(
        (
            "SyncIndex",
            "core_loads",
            "core_utilization",
            "draw_loads",
            "draw_overhead",
            "resource_utilization",
            "sync_costs",
            "transaction_synchronization",
            "ts_by_txn",
        ),
        "islands.atrapos.cost_model",
    ),
    "Hardware": "islands.atrapos.hardware",
    **dict.fromkeys(
        ("choose_partitioning", "greedy_partitioning", "home_partitioning", "improve_partitioning"),
        "islands.atrapos.partitioning",
    ),
    **dict.fromkeys(
        ("Partition", "SUB_PARTITIONS", "Scheme", "TableLayout", "check_fits", "split_range"), "islands.atrapos.scheme"
    ),
    **dict.fromkeys(
        ("DEFAULT_DRAW_WEIGHT", "DEFAULT_MIN_GAIN", "Plan", "choose_scheme", "hop_cost_of"), "islands.atrapos.search"
    ),
    **dict.fromkeys(("choose_placement", "spread_placement"), "islands.atrapos.socket_placement"),
    **dict.fromkeys(
        ("MonitoredPartition", "SyncPoint", "WorkloadStats", "from_monitor"), "islands.atrapos.workload_stats"
    ),
}

__all__ = [
    "DEFAULT_DRAW_WEIGHT",
    "DEFAULT_MIN_GAIN",
    "SUB_PARTITIONS",
    "AdaptiveLoop",
    "Check",
    "Decision",
    "Hardware",
    "IntervalController",
    "MonitoredPartition",
    "Partition",
    "Plan",
    "RepartitionAction",
    "Scheme",
    "SyncIndex",
    "SyncPoint",
    "TableLayout",
    "WorkloadStats",
    "adaptation_time",
    "check_fits",
    "choose_partitioning",
    "choose_placement",
    "choose_scheme",
    "core_loads",
    "core_utilization",
    "draw_loads",
    "draw_overhead",
    "from_monitor",
    "greedy_partitioning",
    "home_partitioning",
    "hop_cost_of",
    "improve_partitioning",
    "repartition_actions",
    "replay",
    "resource_utilization",
    "split_range",
    "steady_state",
    "spread_placement",
    "sync_costs",
    "transaction_synchronization",
    "ts_by_txn",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
