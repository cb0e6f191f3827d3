"""Algorithm 1 of paper 002, *Choose Partitioning*: group sub-partitions into partitions that
balance the load over the available cores.

1. :func:`greedy_partitioning`: target the average load per core; walk the sub-partitions
   (table by table, in key order) and keep adding them to the current core until its load
   reaches the target, then move to the next core (or, an addition of ours, walk each table
   over all the cores on its own: ``per_table``).
2. :func:`improve_partitioning`: repeatedly take the most under-utilized core and move to it
   the sub-partition (from another core) that lowers ``RU(S, W)`` most, preferring a
   sub-partition of a table the core already holds, and among those one next to a partition
   of the core (so partitions stay few, long key ranges); only when no such move helps, one of
   another table. Restart after every move; stop when no move to an under-utilized core
   lowers RU. Every accepted move lowers RU strictly, so the search ends and never makes RU
   worse than where it started.

Both only ever assign sub-partitions to available cores.
"""

from __future__ import annotations

import numpy as np

from islands.atrapos.cost_model import SyncIndex
from islands.atrapos.hardware import Hardware
from islands.atrapos.scheme import Scheme, check_fits
from islands.atrapos.sync_tracker import SyncTracker
from islands.atrapos.workload import WorkloadStats

__all__ = ["choose_partitioning", "greedy_partitioning", "improve_partitioning"]

# Moves that gain less than this share of the total cost count as no gain (float noise).
_RELATIVE_TOLERANCE = 1e-12
# With synchronization weighed in: how many of the best estimated moves are checked exactly.
_MAX_CHECKED = 8
# A safety net far above what a search needs (each move strictly lowers RU).
_MAX_MOVES = 1_000_000


def _greedy(weights: np.ndarray, cores: np.ndarray) -> np.ndarray:
    target = weights.sum() / cores.size
    owners = np.empty(weights.size, dtype=np.int64)
    k, load = 0, 0.0
    for i, w in enumerate(weights.tolist()):
        owners[i] = cores[k]
        load += w
        if load >= target and k < cores.size - 1:
            k, load = k + 1, 0.0
    return owners


def greedy_partitioning(scheme: Scheme, workload: WorkloadStats, hardware: Hardware, per_table: bool = False) -> Scheme:
    """``scheme``'s sub-partitions reassigned greedily (step 1 above). With ``per_table``,
    every table is walked over all the available cores on its own (target: the table's load
    per core), so that the same key ranges of different tables tend to share a core, as in
    the naive scheme; this is not in the paper, see :func:`islands.atrapos.choose_scheme`. A
    table (or all of them) with no recorded cost weighs the same per sub-partition."""
    workload.check_matches(scheme)
    cores = hardware.available_cores
    if not per_table:
        costs = workload.costs()
        return scheme.with_owners(_greedy(costs if costs.sum() > 0 else np.ones_like(costs), cores))
    parts = []
    for cost in workload.cost.values():
        parts.append(_greedy(cost if cost.sum() > 0 else np.ones_like(cost), cores))
    return scheme.with_owners(np.concatenate(parts))


def improve_partitioning(
    scheme: Scheme, workload: WorkloadStats, hardware: Hardware, sync_weight: float = 0.0
) -> Scheme:
    """``scheme`` after step 2 above: RU is never higher than ``scheme``'s. With a positive
    ``sync_weight`` (an addition of ours; the paper's Algorithm 1 looks at RU alone) a move
    must lower ``RU + sync_weight * TS`` instead, TS measured exactly, so that balancing does
    not scatter sub-partitions that synchronize; then that sum never rises."""
    check_fits(scheme, hardware)
    workload.check_matches(scheme)
    if not sync_weight >= 0:
        raise ValueError(f"sync_weight: {sync_weight} must be non-negative")
    costs = workload.costs()
    owners = scheme.owners()
    table_of = np.repeat(np.arange(len(scheme.tables)), [t.n_sub for t in scheme.tables.values()])
    first = np.r_[True, table_of[1:] != table_of[:-1]]  # sub-partition opens its table
    last = np.r_[table_of[1:] != table_of[:-1], True]
    available = hardware.available
    socket_of = hardware.core_socket
    loads = np.bincount(owners, weights=costs, minlength=scheme.n_cores)
    avg = loads[available].mean()
    tolerance = _RELATIVE_TOLERANCE * max(costs.sum(), 1.0)
    tracker = None
    if sync_weight > 0 and workload.sync and hardware.n_sockets > 1:
        tracker = SyncTracker(SyncIndex.of_subpartitions(scheme, workload), socket_of[owners], hardware.distance)
    for _ in range(_MAX_MOVES):
        under = [int(c) for c in np.argsort(loads, kind="stable") if available[c] and loads[c] < avg - tolerance]
        moved = False
        for c in under:
            candidates = np.flatnonzero((owners != c) & (costs > 0))
            if candidates.size == 0:
                continue
            w = costs[candidates]
            src = loads[owners[candidates]]
            gain = (
                np.abs(src - avg) - np.abs(src - w - avg) + abs(loads[c] - avg) - np.abs(loads[c] + w - avg)
            )  # how much RU drops
            if tracker is not None:
                gain = gain - sync_weight * tracker.delta(candidates, int(socket_of[c]))
            held = np.isin(table_of[candidates], table_of[owners == c])
            prev_on_c = ~first[candidates] & (owners[np.maximum(candidates - 1, 0)] == c)
            next_on_c = ~last[candidates] & (owners[np.minimum(candidates + 1, owners.size - 1)] == c)
            adjacent = prev_on_c | next_on_c
            for group in (held & adjacent, held, np.ones_like(held)):
                ok = np.flatnonzero(group & (gain > tolerance))
                for j in ok[np.argsort(-gain[ok], kind="stable")][:_MAX_CHECKED].tolist():
                    best = int(candidates[j])
                    if tracker is not None:
                        exact = gain[j] + sync_weight * (
                            tracker.delta(np.array([best]), int(socket_of[c]))[0]
                            - tracker.exact_delta(best, int(socket_of[c]))
                        )
                        if exact <= tolerance:
                            continue
                        tracker.move(best, int(socket_of[c]))
                    loads[owners[best]] -= costs[best]
                    loads[c] += costs[best]
                    owners[best] = c
                    moved = True
                    break
                if moved:
                    break
            if moved:
                break
        if not moved:
            break
    return scheme.with_owners(owners)


def choose_partitioning(scheme: Scheme, workload: WorkloadStats, hardware: Hardware) -> Scheme:
    """Algorithm 1: the greedy partitioning of ``scheme``'s sub-partitions, improved."""
    return improve_partitioning(greedy_partitioning(scheme, workload, hardware), workload, hardware)
