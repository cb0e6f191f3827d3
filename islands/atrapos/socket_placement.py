"""Algorithm 2 of paper 002, *Choose Placement*: place the partitions that Algorithm 1 formed
on sockets so that transactions synchronize across as few and as near sockets as possible.

The units that move are Algorithm 1's groups: all sub-partitions of one table on one core
(a "partition" in the paper's sense). The search

1. starts from the better (lower TS) of the given placement and one that deals every table's
   partitions round-robin over the sockets (the paper's "evenly distributes partitions of
   every table to different sockets");
2. takes the synchronization points with a cost, dearest first (skipping one already found
   without an improving switch until a switch changes the cores its members are on), and for
   each tries to bring
   its members together: every member to every core of a socket where another member runs,
   either by switching the whole contents of the two cores (load unchanged) or by switching
   the member with that core's partition of the same table, or moving it there when the core
   has none (taken only when RU does not rise);
3. keeps the switch that lowers the global TS most, if it lowers TS at all, and restarts;
   it stops when no switch lowers TS.

So TS never rises above the start's, RU never rises, and every sub-partition keeps exactly one
available core. With the draw term (``hop_cost`` > 0, islands.atrapos.cost_model), a start or
switch is taken only when it raises neither the hops' total (a whole core's contents switched
away from its drawers) nor RU over the loads with the hops.
"""

from __future__ import annotations

import numpy as np

from islands.atrapos.cost_model import SyncIndex, draw_loads, ru_of_loads
from islands.atrapos.hardware import Hardware
from islands.atrapos.scheme import Scheme, check_fits
from islands.atrapos.workload_stats import WorkloadStats

__all__ = ["choose_placement", "spread_placement"]

_RELATIVE_TOLERANCE = 1e-12
_MAX_SWITCHES = 100_000


def spread_placement(scheme: Scheme, hardware: Hardware) -> Scheme:
    """``scheme`` with the contents of its cores permuted so that each table's partitions go
    round-robin over the sockets (cores in the order of the first sub-partition they hold).
    Loads per core are only permuted, so RU is unchanged."""
    check_fits(scheme, hardware)
    owners = scheme.owners()
    first_sub = {int(c): i for i, c in reversed(list(enumerate(owners.tolist())))}
    used = sorted(first_sub, key=first_sub.__getitem__)
    avail = hardware.available_cores
    rank = np.array([np.sum(hardware.core_socket[avail[:i]] == hardware.core_socket[c]) for i, c in enumerate(avail)])
    slots = avail[np.lexsort((hardware.core_socket[avail], rank))].tolist()
    mapping = np.arange(scheme.n_cores)
    for core, slot in zip(used, slots, strict=False):
        mapping[core] = slot
    return scheme.with_owners(mapping[owners])


def choose_placement(scheme: Scheme, workload: WorkloadStats, hardware: Hardware, hop_cost: float = 0.0) -> Scheme:
    """Algorithm 2 on ``scheme`` (see the module docstring)."""
    check_fits(scheme, hardware)
    workload.check_matches(scheme)
    fine = SyncIndex.of_subpartitions(scheme, workload)
    socket_of = hardware.core_socket
    spread = spread_placement(scheme, hardware)
    hops = hop_cost > 0 and bool(workload.drawn_matrix().any())
    starts: tuple[Scheme, ...] = (scheme, spread)
    if hops and draw_loads(spread, workload, hop_cost).sum() > draw_loads(scheme, workload, hop_cost).sum():
        starts = (scheme,)
    start = min(starts, key=lambda s: float(fine.costs(socket_of[s.owners()], hardware.distance).sum()))
    owners = start.owners()
    costs = workload.costs()
    table_of_sub = np.repeat(np.arange(len(scheme.tables)), [t.n_sub for t in scheme.tables.values()])
    # Units: (table, core) groups of the start.
    keys = table_of_sub * scheme.n_cores + owners
    unique_keys, unit_of = np.unique(keys, return_inverse=True)
    n_units = unique_keys.size
    unit_table = unique_keys // scheme.n_cores
    unit_core = unique_keys % scheme.n_cores
    unit_load = np.bincount(unit_of, weights=costs, minlength=n_units)
    index = fine.regrouped(unit_of, n_units)
    points_of = index.points_of_units()
    available = hardware.available
    avail_cores = hardware.available_cores
    distance = hardware.distance

    def hop_loads_of(core_of_unit: np.ndarray) -> np.ndarray:
        if not hops:
            return np.zeros(scheme.n_cores)
        return draw_loads(scheme.with_owners(core_of_unit[unit_of]), workload, hop_cost)

    def loads_of(core_of_unit: np.ndarray) -> np.ndarray:
        return np.bincount(core_of_unit, weights=unit_load, minlength=scheme.n_cores) + hop_loads_of(core_of_unit)

    point_cost = index.costs(socket_of[unit_core], distance)
    tolerance = _RELATIVE_TOLERANCE * max(float(point_cost.sum()), 1.0)
    ru_now = ru_of_loads(loads_of(unit_core), available)
    ru_tolerance = _RELATIVE_TOLERANCE * max(float(costs.sum()), 1.0)
    hops_now = float(np.sum(hop_loads_of(unit_core)))

    def delta_of(new_core: np.ndarray, changed: np.ndarray) -> tuple[float, np.ndarray]:
        points = np.unique(np.concatenate([points_of[u] for u in changed.tolist()] + [np.zeros(0, np.int64)]))
        return float(index.costs(socket_of[new_core], distance, points).sum() - point_cost[points].sum()), points

    # Points found without an improving switch; one is tried again only after a switch moved
    # units on or off the cores its members are on (otherwise its options are mostly the same).
    stuck: set[int] = set()
    for _ in range(_MAX_SWITCHES):
        switched = False
        for p in np.argsort(-point_cost, kind="stable").tolist():
            if point_cost[p] <= tolerance:
                break
            if p in stuck:
                continue
            members = index.members[index.ptr[p] : index.ptr[p + 1]]
            sockets = set(socket_of[unit_core[members]].tolist())
            best: tuple[float, np.ndarray] | None = None
            for u in members.tolist():
                a = int(unit_core[u])
                for sigma in sockets - {int(socket_of[a])}:
                    for b in avail_cores[socket_of[avail_cores] == sigma].tolist():
                        on_a = np.flatnonzero(unit_core == a)
                        on_b = np.flatnonzero(unit_core == b)
                        same = on_b[unit_table[on_b] == unit_table[u]]
                        options = []
                        whole = unit_core.copy()
                        whole[on_a], whole[on_b] = b, a
                        options.append((whole, np.r_[on_a, on_b], False))
                        one = unit_core.copy()
                        one[u] = b
                        one[same] = a
                        options.append((one, np.r_[u, same].astype(np.int64), True))
                        for new_core, changed, check_ru in options:
                            delta, _ = delta_of(new_core, changed)
                            if delta >= -tolerance or (best is not None and delta >= best[0]):
                                continue
                            ru_checked = check_ru or hops  # a whole switch moves hops too
                            if ru_checked and ru_of_loads(loads_of(new_core), available) > ru_now + ru_tolerance:
                                continue
                            if hops and float(np.sum(hop_loads_of(new_core))) > hops_now + ru_tolerance:
                                continue
                            best = (delta, new_core)
            if best is None:
                stuck.add(p)
            else:
                moved_cores = set(unit_core[best[1] != unit_core].tolist()) | set(
                    best[1][best[1] != unit_core].tolist()
                )
                touched = np.flatnonzero(np.isin(unit_core, list(moved_cores)))
                for u in touched.tolist():
                    stuck.difference_update(points_of[u].tolist())
                unit_core = best[1]
                point_cost = index.costs(socket_of[unit_core], distance)
                ru_now = ru_of_loads(loads_of(unit_core), available)
                hops_now = float(np.sum(hop_loads_of(unit_core)))
                switched = True
                break
        if not switched:
            break
    return scheme.with_owners(unit_core[unit_of])
