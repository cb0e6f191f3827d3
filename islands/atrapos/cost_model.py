"""The ATraPos cost model (paper 002 Sec V-B) as pure functions of a scheme S, workload
statistics W and the hardware.

- Resource utilization: ``RU(S, W) = sum_c |RU(c) - RU_avg|`` over the available cores, where
  ``RU(c)`` sums the cost of the actions on the sub-partitions placed on core ``c`` and
  ``RU_avg`` is the mean over the available cores. 0 is perfect balance.
- Transaction synchronization: ``TS(S, W) = sum_T sum_s C(s)`` with
  ``C(s) = (n_socket(s) - 1) * Distance(s) * Size(s)`` per occurrence: ``n_socket(s)`` is the
  number of distinct sockets the actions of synchronization point ``s`` run on, ``Distance(s)``
  the mean distance between those sockets (pairs of distinct sockets), ``Size(s)`` the bytes
  exchanged. Actions on one socket cost nothing.
- Draws (ours; paper 002's clients are apart from its partitions, ours are not): every worker
  draws transactions, and one whose home sub-partition (its first operation's) another core
  owns costs a hop: a spread transaction (its actions travel there and back) or a hand-off
  (``engine.plp_handoff``: two messages). The monitor's action costs do not see it (it is
  spent between actions). ``hop_cost`` per such transaction is added to the load of the
  drawing core *and* of the owning core (each handles the messages): :func:`draw_loads`. RU
  is taken over the loads with these added, and :func:`draw_overhead` (their sum) is the
  total work the hops add. With two cores, ``RU + draw_overhead`` is ``2 * max_c load(c) - A``
  (``A`` the summed action cost, the same for every scheme): the busiest core's load, which
  bounds the closed loop's throughput. So a move that balances the actions but sends a
  drawer's transactions away pays for it, and a layout whose draws went home again gains.

:class:`SyncIndex` compiles W's synchronization points once so that the search evaluates TS
for many placements quickly (numpy over all points, or over the points a move touches).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from islands.atrapos.hardware import Hardware
from islands.atrapos.scheme import Scheme, check_fits
from islands.atrapos.workload_stats import WorkloadStats

__all__ = [
    "SyncIndex",
    "core_loads",
    "core_utilization",
    "draw_loads",
    "draw_overhead",
    "resource_utilization",
    "ru_of_loads",
    "sync_costs",
    "transaction_synchronization",
    "ts_by_txn",
]


def core_utilization(scheme: Scheme, workload: WorkloadStats) -> np.ndarray:
    """``RU(c)`` for every core: the summed cost of the actions on its sub-partitions."""
    workload.check_matches(scheme)
    return np.bincount(scheme.owners(), weights=workload.costs(), minlength=scheme.n_cores)


def draw_loads(scheme: Scheme, workload: WorkloadStats, hop_cost: float) -> np.ndarray:
    """Per core: ``hop_cost`` for every transaction it drew whose home sub-partition another
    core owns, and for every transaction another core drew whose home sub-partition it owns
    (the draw term, see the module docstring). Zeros without recorded draws or with
    ``hop_cost`` 0. Raises ``ValueError`` for a negative or non-finite ``hop_cost`` or more
    drawing workers than cores."""
    workload.check_matches(scheme)
    if not (np.isfinite(hop_cost) and hop_cost >= 0):
        raise ValueError(f"hop_cost: {hop_cost} must be finite and non-negative")
    drawn = workload.drawn_matrix()
    if drawn.shape[0] > scheme.n_cores:
        raise ValueError(f"drawn: {drawn.shape[0]} drawing workers for {scheme.n_cores} cores")
    out = np.zeros(scheme.n_cores)
    if hop_cost == 0 or drawn.size == 0:
        return out
    owners = scheme.owners()
    away = drawn.copy()
    home = owners < drawn.shape[0]
    away[owners[home], np.flatnonzero(home)] = 0.0  # drawn where it is owned: no hop
    out[: drawn.shape[0]] += away.sum(axis=1)
    out += np.bincount(owners, weights=away.sum(axis=0), minlength=scheme.n_cores)
    return hop_cost * out


def draw_overhead(scheme: Scheme, workload: WorkloadStats, hop_cost: float) -> float:
    """The total load the hops add (the sum of :func:`draw_loads`)."""
    return float(draw_loads(scheme, workload, hop_cost).sum())


def core_loads(scheme: Scheme, workload: WorkloadStats, hop_cost: float = 0.0) -> np.ndarray:
    """Every core's load: its actions (:func:`core_utilization`) and its hops (:func:`draw_loads`)."""
    return core_utilization(scheme, workload) + draw_loads(scheme, workload, hop_cost)


def ru_of_loads(loads: np.ndarray, available: np.ndarray) -> float:
    """``sum_c |loads[c] - mean|`` over the available cores."""
    on = loads[available]
    return float(np.abs(on - on.mean()).sum())


def resource_utilization(scheme: Scheme, workload: WorkloadStats, hardware: Hardware, hop_cost: float = 0.0) -> float:
    """``RU(S, W)`` over the cores' loads, their hops included at ``hop_cost`` each (0: the
    paper's RU, actions alone). Raises ``ValueError`` when the scheme puts work on a core the
    hardware has taken away (such a scheme has no utilization to compare: it must change)."""
    check_fits(scheme, hardware)
    return ru_of_loads(core_loads(scheme, workload, hop_cost), hardware.available)


@dataclass(frozen=True, eq=False)
class SyncIndex:
    """W's synchronization points over abstract *units* (sub-partitions, or groups of them
    that move together): point ``p``'s members are ``members[ptr[p]:ptr[p+1]]`` (distinct
    units) and it weighs ``weight[p] = count * size``. Points that touch the same units are
    kept apart so that their transaction types stay known (``txn[p]``)."""

    ptr: np.ndarray
    members: np.ndarray
    weight: np.ndarray
    txn: tuple[str, ...]
    n_units: int

    @classmethod
    def of_subpartitions(cls, scheme: Scheme, workload: WorkloadStats) -> SyncIndex:
        """The points with every sub-partition its own unit (numbered as ``scheme.owners()``)."""
        workload.check_matches(scheme)
        offsets = scheme.offsets()
        groups = [sorted({offsets[t] + s for t, s in p.members}) for p in workload.sync]
        weight = np.array([p.count * p.size for p in workload.sync], dtype=np.float64)
        return cls.build(groups, weight, tuple(p.txn for p in workload.sync), scheme.n_sub)

    @classmethod
    def build(cls, groups: list[list[int]], weight: np.ndarray, txn: tuple[str, ...], n_units: int) -> SyncIndex:
        """From explicit member lists (each sorted and distinct)."""
        lengths = np.array([len(g) for g in groups], dtype=np.int64)
        ptr = np.r_[0, np.cumsum(lengths)].astype(np.int64)
        members = np.array([u for g in groups for u in g], dtype=np.int64)
        return cls(ptr, members, np.asarray(weight, dtype=np.float64), txn, n_units)

    def regrouped(self, unit_of: np.ndarray, n_units: int) -> SyncIndex:
        """The same points over coarser units (``unit_of[old] = new``); a point whose members
        all fall in one unit stays, with one member (it costs nothing wherever it runs)."""
        groups = [
            sorted(set(unit_of[self.members[a:b]].tolist())) for a, b in zip(self.ptr[:-1], self.ptr[1:], strict=True)
        ]
        return SyncIndex.build(groups, self.weight, self.txn, n_units)

    @property
    def n_points(self) -> int:
        """Number of synchronization points."""
        return int(self.weight.size)

    def points_of_units(self) -> list[np.ndarray]:
        """For every unit, the points it takes part in."""
        point = np.repeat(np.arange(self.n_points), np.diff(self.ptr))
        order = np.argsort(self.members, kind="stable")
        cuts = np.searchsorted(self.members[order], np.arange(self.n_units + 1))
        return [point[order[a:b]] for a, b in zip(cuts[:-1], cuts[1:], strict=True)]

    def costs(self, unit_socket: np.ndarray, distance: np.ndarray, points: np.ndarray | None = None) -> np.ndarray:
        """``C(s)`` of the given points (all by default) with unit ``u`` on socket
        ``unit_socket[u]``."""
        if points is None:
            points = np.arange(self.n_points)
        points = np.asarray(points, dtype=np.int64)
        if points.size == 0:
            return np.zeros(0)
        starts, ends = self.ptr[points], self.ptr[points + 1]
        lengths = ends - starts
        row = np.repeat(np.arange(points.size), lengths)
        at = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths) + np.repeat(starts, lengths)
        on = np.zeros((points.size, distance.shape[0]), dtype=np.float64)
        on[row, unit_socket[self.members[at]]] = 1.0
        n = on.sum(axis=1)
        pair_sum = ((on @ distance) * on).sum(axis=1) - on @ np.diag(distance)
        pairs = n * (n - 1)
        mean_distance = np.divide(pair_sum, pairs, out=np.zeros_like(pair_sum), where=pairs > 0)
        return self.weight[points] * np.maximum(n - 1, 0) * mean_distance


def sync_costs(scheme: Scheme, workload: WorkloadStats, hardware: Hardware) -> np.ndarray:
    """``C(s)`` (times its count) for every synchronization point of ``workload.sync``."""
    check_fits(scheme, hardware)
    index = SyncIndex.of_subpartitions(scheme, workload)
    return index.costs(hardware.core_socket[scheme.owners()], hardware.distance)


def transaction_synchronization(scheme: Scheme, workload: WorkloadStats, hardware: Hardware) -> float:
    """``TS(S, W)``: the summed synchronization cost of every transaction."""
    return float(sync_costs(scheme, workload, hardware).sum())


def ts_by_txn(scheme: Scheme, workload: WorkloadStats, hardware: Hardware) -> dict[str, float]:
    """``TS`` split by transaction type (the synchronization points' ``txn``)."""
    out = dict.fromkeys(workload.txn_types(), 0.0)
    for p, c in zip(workload.sync, sync_costs(scheme, workload, hardware).tolist(), strict=True):
        out[p.txn] += c
    return out
