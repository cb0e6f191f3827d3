"""ATraPos (paper 002), the parts that do not need the partitioned engine: the cost model
(RU and TS), the search (Algorithm 1 then Algorithm 2), the adaptive monitoring interval, and
the bridge from the engine's monitor snapshot to workload statistics.

One concept per module:

- :mod:`~islands.atrapos.hardware`: cores, sockets, distances (from a topology, real,
  fixture or virtual), cores taken away or given back;
- :mod:`~islands.atrapos.scheme`: the partitioning and placement scheme S;
- :mod:`~islands.atrapos.workload`: the workload statistics W, and :func:`from_monitor`;
- :mod:`~islands.atrapos.cost_model`: ``RU(S, W)`` and ``TS(S, W)``;
- :mod:`~islands.atrapos.partitioning`: Algorithm 1;
- :mod:`~islands.atrapos.placement`: Algorithm 2;
- :mod:`~islands.atrapos.search`: both, the plan and whether it is worth applying;
- :mod:`~islands.atrapos.actions`: the splits, moves and merges from one scheme to another;
- :mod:`~islands.atrapos.controller`: the adaptive interval;
- :mod:`~islands.atrapos.adaptive_loop`: controller, search and threshold, per interval;
- :mod:`~islands.atrapos.adaptation`: adaptation times from throughput timelines.
"""

from islands.atrapos.actions import RepartitionAction, repartition_actions
from islands.atrapos.adaptation import adaptation_time, steady_state
from islands.atrapos.adaptive_loop import AdaptiveLoop, Decision
from islands.atrapos.controller import Check, IntervalController, replay
from islands.atrapos.cost_model import (
    SyncIndex,
    core_utilization,
    resource_utilization,
    sync_costs,
    transaction_synchronization,
    ts_by_txn,
)
from islands.atrapos.hardware import Hardware
from islands.atrapos.partitioning import choose_partitioning, greedy_partitioning, improve_partitioning
from islands.atrapos.placement import choose_placement, spread_placement
from islands.atrapos.scheme import SUB_PARTITIONS, Partition, Scheme, TableLayout, check_fits, split_range
from islands.atrapos.search import DEFAULT_MIN_GAIN, Plan, choose_scheme
from islands.atrapos.workload import MonitoredPartition, SyncPoint, WorkloadStats, from_monitor

__all__ = [
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
    "core_utilization",
    "from_monitor",
    "greedy_partitioning",
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
