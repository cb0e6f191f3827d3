"""Workload statistics W: what the monitoring saw during one interval.

- per table and sub-partition, the number of actions and their summed cost C(a) (cycles or
  nanoseconds; any unit, as long as all tables use the same);
- the synchronization points: which sub-partitions' actions exchanged data, how often, how
  many bytes each time, and for which transaction type.

The sub-partitions are the scheme's (:class:`~islands.atrapos.scheme.Scheme`): the arrays of
table ``t`` have one entry per sub-partition of ``t``. :func:`from_monitor` builds a scheme and
its statistics from the engine's monitor snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from islands.atrapos.scheme import SUB_PARTITIONS, Scheme, TableLayout, split_range

__all__ = ["MonitoredPartition", "SyncPoint", "WorkloadStats", "from_monitor"]


@dataclass(frozen=True)
class SyncPoint:
    """A synchronization point: the actions on the sub-partitions ``members`` (``(table,
    sub)`` pairs) exchanged ``size`` bytes, ``count`` times, in transactions of type ``txn``."""

    members: tuple[tuple[str, int], ...]
    count: float = 1.0
    size: float = 1.0
    txn: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "members", tuple((str(t), int(s)) for t, s in self.members))
        if len(self.members) < 2:
            raise ValueError(f"sync point {self.members}: needs at least two members")
        if not (self.count >= 0 and self.size >= 0):
            raise ValueError(f"sync point {self.members}: count and size must be non-negative")


@dataclass(frozen=True, eq=False)
class WorkloadStats:
    """Per-sub-partition action costs (and counts) and the synchronization points of one
    monitoring interval. ``actions`` defaults to no counts (zeros)."""

    cost: Mapping[str, np.ndarray]
    sync: Sequence[SyncPoint] = ()
    actions: Mapping[str, np.ndarray] = field(default_factory=dict)
    #: Per table, transactions drawn by each worker (core) ``w`` whose home sub-partition is
    #: ``s``: ``drawn[t][w, s]`` (our workers are their own clients; the cost model's draw
    #: term). Defaults to none recorded (no rows).
    drawn: Mapping[str, np.ndarray] = field(default_factory=dict)

    def __post_init__(self) -> None:
        cost = {t: np.asarray(c, dtype=np.float64) for t, c in self.cost.items()}
        for t, c in cost.items():
            if c.ndim != 1 or not np.all(np.isfinite(c)) or np.any(c < 0):
                raise ValueError(f"cost[{t}]: needs one finite, non-negative cost per sub-partition")
        actions = {t: np.asarray(self.actions.get(t, np.zeros(c.size)), dtype=np.float64) for t, c in cost.items()}
        for t, a in actions.items():
            if a.shape != cost[t].shape:
                raise ValueError(f"actions[{t}]: {a.size} counts for {cost[t].size} sub-partitions")
        unknown = set(self.actions) - set(cost)
        if unknown:
            raise ValueError(f"actions: tables {sorted(unknown)} have no cost")
        for p in self.sync:
            for t, s in p.members:
                if t not in cost or not 0 <= s < cost[t].size:
                    raise ValueError(f"sync point {p.members}: ({t}, {s}) is not a sub-partition")
        unknown = set(self.drawn) - set(cost)
        if unknown:
            raise ValueError(f"drawn: tables {sorted(unknown)} have no cost")
        given = {t: np.asarray(d, dtype=np.float64) for t, d in self.drawn.items()}
        n_drawers = next(iter(given.values())).shape[0] if given and next(iter(given.values())).ndim == 2 else 0
        drawn = {t: given.get(t, np.zeros((n_drawers, c.size))) for t, c in cost.items()}
        for t, d in drawn.items():
            if d.shape != (n_drawers, cost[t].size) or not np.all(np.isfinite(d)) or np.any(d < 0):
                raise ValueError(f"drawn[{t}]: needs a finite, non-negative count per (worker, sub-partition)")
        object.__setattr__(self, "cost", cost)
        object.__setattr__(self, "actions", actions)
        object.__setattr__(self, "drawn", drawn)
        object.__setattr__(self, "sync", tuple(self.sync))

    def check_matches(self, scheme: Scheme) -> None:
        """Raises ``ValueError`` unless the statistics have exactly the scheme's tables and
        sub-partition counts."""
        if tuple(self.cost) != scheme.names:
            raise ValueError(f"workload: tables {list(self.cost)} are not the scheme's {list(scheme.names)}")
        for t, layout in scheme.tables.items():
            if self.cost[t].size != layout.n_sub:
                raise ValueError(f"workload: table {t} has {self.cost[t].size} costs for {layout.n_sub} sub-partitions")

    def costs(self) -> np.ndarray:
        """Every sub-partition's cost, tables concatenated in order."""
        return np.concatenate(list(self.cost.values()))

    def drawn_matrix(self) -> np.ndarray:
        """``drawn`` with the tables concatenated in order, [worker, sub-partition] (no rows
        when no draws were recorded), as if every worker that drew drew at the same rate: each
        sub-partition's draws are split among the workers in proportion to the share of its
        own draws each worker sent there.

        Why: our workers are their own clients, so a worker's draw rate follows the layout it
        ran under (the busier worker draws less). Taken as measured, the draws would favour the
        layout's idler worker and the search would chase its own tail, moving units to
        whichever worker drew more last interval. A worker's *mix* of homes is the workload's
        and not the layout's: under a skew every worker draws alike, so each hot
        sub-partition is half away whoever owns it (the term is the same for every layout),
        while workers drawing their own sites keep them home. Each sub-partition's total, and
        so :attr:`mean_drawn_cost`, is as measured."""
        got = np.concatenate(list(self.drawn.values()), axis=1)
        rows = got.sum(axis=1, keepdims=True)
        mix = np.divide(got, rows, out=np.zeros_like(got), where=rows > 0)
        columns = mix.sum(axis=0, keepdims=True)
        share = np.divide(mix, columns, out=np.zeros_like(mix), where=columns > 0)
        return share * got.sum(axis=0, keepdims=True)

    @property
    def mean_drawn_cost(self) -> float:
        """The interval's action cost per drawn transaction (total cost over recorded draws);
        0 when no draw was recorded."""
        n = float(sum(d.sum() for d in self.drawn.values()))
        return self.total_cost / n if n > 0 else 0.0

    @property
    def total_cost(self) -> float:
        """The summed cost of every action."""
        return float(sum(c.sum() for c in self.cost.values()))

    def txn_types(self) -> tuple[str, ...]:
        """The transaction types of the synchronization points, in first-seen order."""
        return tuple(dict.fromkeys(p.txn for p in self.sync))


@dataclass(frozen=True)
class MonitoredPartition:
    """A partition as the engine runs it: ``table`` keys ``[lo, hi)`` on ``core``; its
    monitor cuts it into :data:`SUB_PARTITIONS` sub-partitions."""

    table: str
    lo: int
    hi: int
    core: int


def from_monitor(
    snapshot: Mapping[str, Any], partitions: Sequence[MonitoredPartition], n_cores: int
) -> tuple[Scheme, WorkloadStats]:
    """The current scheme and the interval's statistics from a monitor snapshot (the engine's
    ``AtraposMonitor.snapshot()``, or a difference of two) whose partition ``i`` is
    ``partitions[i]``.

    The snapshot holds arrays ``actions`` and ``cost`` (partitions x sub-partitions) and
    ``sync_count`` and ``sync_bytes`` (partition x sub x partition x sub), and optionally
    ``drawn`` (worker x partition x sub: transactions each worker drew by home unit). A table's
    sub-partitions are its partitions' in key order; every pair of sub-partitions that
    synchronized becomes a two-member :class:`SyncPoint` whose size is the mean bytes.
    """
    actions = np.asarray(snapshot["actions"], dtype=np.float64)
    cost = np.asarray(snapshot["cost"], dtype=np.float64)
    sync_count = np.asarray(snapshot["sync_count"], dtype=np.float64)
    sync_bytes = np.asarray(snapshot["sync_bytes"], dtype=np.float64)
    n, k = len(partitions), SUB_PARTITIONS
    for name, arr, shape in (
        ("actions", actions, (n, k)),
        ("cost", cost, (n, k)),
        ("sync_count", sync_count, (n, k, n, k)),
        ("sync_bytes", sync_bytes, (n, k, n, k)),
    ):
        if arr.shape != shape:
            raise ValueError(f"snapshot[{name}]: shape {arr.shape}, expected {shape} for {n} partitions")
    drawn = np.asarray(snapshot["drawn"], dtype=np.float64) if "drawn" in snapshot else np.zeros((0, n, k))
    if drawn.ndim != 3 or drawn.shape[1:] != (n, k):
        raise ValueError(f"snapshot[drawn]: shape {drawn.shape}, expected (workers, {n}, {k})")
    by_table: dict[str, list[int]] = {}
    for i, p in enumerate(partitions):
        if p.hi - p.lo < k:
            raise ValueError(f"partition {i} ({p.table} [{p.lo}, {p.hi})): fewer keys than {k} sub-partitions")
        by_table.setdefault(p.table, []).append(i)
    tables: dict[str, TableLayout] = {}
    costs: dict[str, np.ndarray] = {}
    counts: dict[str, np.ndarray] = {}
    draws: dict[str, np.ndarray] = {}
    where: dict[int, tuple[str, int]] = {}  # partition index -> (table, its first sub-partition)
    for table, members in by_table.items():
        members.sort(key=lambda i: partitions[i].lo)
        bounds: list[int] = []
        for j, i in enumerate(members):
            p = partitions[i]
            if j and p.lo != partitions[members[j - 1]].hi:
                raise ValueError(f"partitions of {table}: [{p.lo}, ...) does not start where the previous one ends")
            where[i] = (table, j * k)
            bounds.extend(split_range(p.lo, p.hi, k)[: k if j < len(members) - 1 else k + 1].tolist())
        owner = np.repeat([partitions[i].core for i in members], k)
        tables[table] = TableLayout(np.array(bounds, dtype=np.int64), owner)
        costs[table] = cost[members].ravel()
        counts[table] = actions[members].ravel()
        draws[table] = drawn[:, members].reshape(drawn.shape[0], len(members) * k)
    sync: list[SyncPoint] = []
    for a, sa, b, sb in zip(*np.nonzero(sync_count), strict=True):
        ta, oa = where[int(a)]
        tb, ob = where[int(b)]
        c = float(sync_count[a, sa, b, sb])
        sync.append(
            SyncPoint(((ta, oa + int(sa)), (tb, ob + int(sb))), count=c, size=float(sync_bytes[a, sa, b, sb]) / c)
        )
    return Scheme(tables, n_cores), WorkloadStats(costs, sync, counts, draws)
