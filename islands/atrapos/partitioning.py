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

With the draw term (``hop_cost`` > 0, islands.atrapos.cost_model): the loads include the
hops, and a move must lower ``RU + draw_overhead`` (exact over the available cores: a hop
moved changes the mean load). :func:`home_partitioning` (ours) gives every sub-partition to
the worker that draws most (two thirds or more) of its transactions, a start for the search that the moves toward
under-utilized cores might not reach (a drawer can be the busier core).

All only ever assign sub-partitions to available cores.
"""

from __future__ import annotations

import numpy as np

from islands.atrapos.cost_model import SyncIndex, draw_loads
from islands.atrapos.hardware import Hardware
from islands.atrapos.scheme import Scheme, check_fits
from islands.atrapos.sync_tracker import SyncTracker
from islands.atrapos.workload_stats import WorkloadStats

__all__ = ["choose_partitioning", "greedy_partitioning", "home_partitioning", "improve_partitioning"]

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


#: home_partitioning moves a sub-partition to a core that draws at least this share of it.
HOME_SHARE = 2 / 3


def home_partitioning(scheme: Scheme, workload: WorkloadStats, hardware: Hardware) -> Scheme:
    """``scheme`` with every sub-partition on the available core that drew most of its
    transactions, when that core drew at least :data:`HOME_SHARE` of them (a sub-partition
    every worker draws alike, as under a skew drawn across the instance, has no home: sending
    it to the noise's favourite would scatter the scheme); any other keeps its core if
    available, else goes to the first available core."""
    workload.check_matches(scheme)
    owners = scheme.owners()
    cores = hardware.available_cores
    drawn = np.zeros((scheme.n_cores, scheme.n_sub))
    got = workload.drawn_matrix()
    drawn[: got.shape[0]] = got
    drawn[~hardware.available] = 0.0
    top = np.argmax(drawn, axis=0)
    homed = drawn[top, np.arange(scheme.n_sub)] >= HOME_SHARE * drawn.sum(axis=0)
    homed &= drawn.sum(axis=0) > 0
    fallback = np.where(hardware.available[owners], owners, cores[0])
    return scheme.with_owners(np.where(homed, top, fallback))


def improve_partitioning(
    scheme: Scheme, workload: WorkloadStats, hardware: Hardware, sync_weight: float = 0.0, hop_cost: float = 0.0
) -> Scheme:
    """``scheme`` after step 2 above: RU is never higher than ``scheme``'s. With a positive
    ``sync_weight`` (an addition of ours; the paper's Algorithm 1 looks at RU alone) a move
    must lower ``RU + sync_weight * TS`` instead, TS measured exactly, so that balancing does
    not scatter sub-partitions that synchronize; then that sum never rises. With a positive
    ``hop_cost`` and recorded draws, RU is over the loads with the hops and a move must lower
    ``RU + draw_overhead (+ sync_weight * TS)``: that sum never rises."""
    check_fits(scheme, hardware)
    workload.check_matches(scheme)
    if not sync_weight >= 0:
        raise ValueError(f"sync_weight: {sync_weight} must be non-negative")
    costs = workload.costs()
    owners = scheme.owners()
    hop_loads = draw_loads(scheme, workload, hop_cost)
    got = workload.drawn_matrix()
    hops = hop_cost > 0 and bool(got.any())  # a move may add hops even where none travel now
    drawn = np.zeros((scheme.n_cores, scheme.n_sub))
    if hops:
        drawn[: got.shape[0]] = got * hop_cost
    drawn_total = drawn.sum(axis=0)  # hop_cost * transactions drawn on each sub-partition
    table_of = np.repeat(np.arange(len(scheme.tables)), [t.n_sub for t in scheme.tables.values()])
    first = np.r_[True, table_of[1:] != table_of[:-1]]  # sub-partition opens its table
    last = np.r_[table_of[1:] != table_of[:-1], True]
    available = hardware.available
    socket_of = hardware.core_socket
    loads = np.bincount(owners, weights=costs, minlength=scheme.n_cores) + hop_loads
    avg = loads[available].mean()
    tolerance = _RELATIVE_TOLERANCE * max(costs.sum() + hop_loads.sum(), 1.0)
    tracker = None
    if sync_weight > 0 and workload.sync and hardware.n_sockets > 1:
        tracker = SyncTracker(SyncIndex.of_subpartitions(scheme, workload), socket_of[owners], hardware.distance)
    for _ in range(_MAX_MOVES):
        under = [int(c) for c in np.argsort(loads, kind="stable") if available[c] and loads[c] < avg - tolerance]
        moved = False
        for c in under:
            candidates = np.flatnonzero((owners != c) & ((costs > 0) | (drawn_total > 0)))
            if candidates.size == 0:
                continue
            w = costs[candidates]
            src = loads[owners[candidates]]
            if hops:  # the source's and the target's loads change by more than the cost, and so does the mean
                d_src = -w + 2 * drawn[owners[candidates], candidates] - drawn_total[candidates]
                d_dst = w + drawn_total[candidates] - 2 * drawn[c, candidates]
                gain = _hop_move_gains(loads, available, owners[candidates], c, d_src, d_dst)
            else:
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
                    if hops:
                        loads[owners[best]] += 2 * drawn[owners[best], best] - drawn_total[best] - costs[best]
                        loads[c] += costs[best] + drawn_total[best] - 2 * drawn[c, best]
                    else:
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
        if hops:
            avg = loads[available].mean()  # a move moves hops: the mean may change
    return scheme.with_owners(owners)


def _hop_move_gains(
    loads: np.ndarray, available: np.ndarray, sources: np.ndarray, target: int, d_src: np.ndarray, d_dst: np.ndarray
) -> np.ndarray:
    """How much ``RU + draw_overhead`` drops for each candidate move (source core
    ``sources[i]`` changes by ``d_src[i]``, ``target`` by ``d_dst[i]``), RU exact over the
    available cores."""
    rows = np.arange(sources.size)
    after = np.repeat(loads[None, :], sources.size, axis=0)
    after[rows, sources] += d_src
    after[rows, target] += d_dst
    on = after[:, available]
    ru_after = np.abs(on - on.mean(axis=1, keepdims=True)).sum(axis=1)
    before = loads[available]
    ru_before = float(np.abs(before - before.mean()).sum())
    return ru_before - ru_after - (d_src + d_dst)


def choose_partitioning(scheme: Scheme, workload: WorkloadStats, hardware: Hardware) -> Scheme:
    """Algorithm 1: the greedy partitioning of ``scheme``'s sub-partitions, improved."""
    return improve_partitioning(greedy_partitioning(scheme, workload, hardware), workload, hardware)
