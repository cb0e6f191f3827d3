"""A partitioning and placement scheme S: tables -> sub-partitions -> cores.

Every table is range-partitioned on its routing key. The unit the model moves is the
*sub-partition*: a key range ``[bounds[i], bounds[i+1])``; the monitoring keeps one counter per
sub-partition (10 per partition, paper 002 Sec V-D). ``owner[i]`` is the core sub-partition
``i`` runs on. A *partition* is a maximal run of consecutive sub-partitions on one core, so
partitions stay key ranges (what split and merge act on), and a core may hold several
partitions, of one table or several. Cores are numbered as :class:`~islands.atrapos.hardware.Hardware`
numbers them; the socket of a partition is its core's.

Schemes are values: the ``with_*`` methods return new ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from islands.atrapos.hardware import Hardware

__all__ = ["SUB_PARTITIONS", "Partition", "Scheme", "TableLayout", "check_fits", "split_range"]

#: Sub-partitions per partition, as in paper 002 ("a good trade-off between the size of the
#: arrays and the number of repartitioning operations").
SUB_PARTITIONS = 10


def split_range(lo: int, hi: int, n: int) -> np.ndarray:
    """``n + 1`` integer bounds cutting ``[lo, hi)`` into ``n`` near-equal ranges; bound ``k``
    is ``lo + ceil(k * (hi - lo) / n)``, the cut the engine's monitor makes for its
    sub-partitions (``PartitionMonitor::bound``). Keys are int64 here."""
    width = hi - lo
    return np.array([lo + (k * width + n - 1) // n for k in range(n + 1)], dtype=np.int64)


@dataclass(frozen=True, eq=False)
class TableLayout:
    """One table's sub-partitions: key ``bounds`` (strictly increasing, one more than there
    are sub-partitions) and the ``owner`` core of each."""

    bounds: np.ndarray
    owner: np.ndarray

    def __post_init__(self) -> None:
        bounds = np.asarray(self.bounds, dtype=np.int64)
        owner = np.asarray(self.owner, dtype=np.int64)
        if bounds.ndim != 1 or bounds.size < 2 or np.any(np.diff(bounds) <= 0):
            raise ValueError("bounds: need at least two strictly increasing keys")
        if owner.shape != (bounds.size - 1,):
            raise ValueError(f"owner: {owner.size} cores for {bounds.size - 1} sub-partitions")
        for name, value in (("bounds", bounds), ("owner", owner)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @property
    def n_sub(self) -> int:
        """Number of sub-partitions."""
        return int(self.owner.size)


@dataclass(frozen=True)
class Partition:
    """A run of consecutive sub-partitions ``[first_sub, end_sub)`` of ``table`` on ``core``,
    covering keys ``[lo, hi)``."""

    table: str
    core: int
    first_sub: int
    end_sub: int
    lo: int
    hi: int


@dataclass(frozen=True, eq=False)
class Scheme:
    """Where every sub-partition of every table runs. ``n_cores`` is the machine's core
    count (every owner is below it). Raises ``ValueError`` naming the table that is wrong."""

    tables: Mapping[str, TableLayout]
    n_cores: int

    def __post_init__(self) -> None:
        if not self.tables:
            raise ValueError("tables: a scheme needs at least one table")
        for name, layout in self.tables.items():
            if layout.owner.min() < 0 or layout.owner.max() >= self.n_cores:
                raise ValueError(f"table {name}: owner cores must be in 0..{self.n_cores - 1}")
        object.__setattr__(self, "tables", dict(self.tables))

    @classmethod
    def naive(
        cls, key_ranges: Mapping[str, tuple[int, int]], hardware: Hardware, subs_per_partition: int = SUB_PARTITIONS
    ) -> Scheme:
        """The naive scheme (paper 002 Sec IV): every table cut into one equal key range per
        available core, each range ``subs_per_partition`` sub-partitions."""
        cores = hardware.available_cores
        tables: dict[str, TableLayout] = {}
        for name, (lo, hi) in key_ranges.items():
            n_sub = cores.size * subs_per_partition
            if hi - lo < n_sub:
                raise ValueError(f"table {name}: key range [{lo}, {hi}) is smaller than its {n_sub} sub-partitions")
            tables[name] = TableLayout(split_range(lo, hi, n_sub), np.repeat(cores, subs_per_partition))
        return cls(tables, hardware.n_cores)

    @property
    def names(self) -> tuple[str, ...]:
        """The table names, in scheme order."""
        return tuple(self.tables)

    def offsets(self) -> dict[str, int]:
        """Index of each table's first sub-partition in the concatenation of all tables."""
        out: dict[str, int] = {}
        at = 0
        for name, layout in self.tables.items():
            out[name] = at
            at += layout.n_sub
        return out

    @property
    def n_sub(self) -> int:
        """Sub-partitions of all tables together."""
        return sum(layout.n_sub for layout in self.tables.values())

    def owners(self) -> np.ndarray:
        """Every sub-partition's core, tables concatenated in scheme order (a new array)."""
        return np.concatenate([layout.owner for layout in self.tables.values()])

    def with_owners(self, owners: np.ndarray) -> Scheme:
        """The same tables and bounds with the concatenated owner array ``owners``."""
        owners = np.asarray(owners, dtype=np.int64)
        if owners.shape != (self.n_sub,):
            raise ValueError(f"owners: {owners.size} cores for {self.n_sub} sub-partitions")
        tables: dict[str, TableLayout] = {}
        at = 0
        for name, layout in self.tables.items():
            tables[name] = TableLayout(layout.bounds, owners[at : at + layout.n_sub].copy())
            at += layout.n_sub
        return Scheme(tables, self.n_cores)

    def partitions(self) -> Iterator[Partition]:
        """Every partition (maximal run of sub-partitions on one core), table by table in key
        order."""
        for name, layout in self.tables.items():
            owner = layout.owner
            starts = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
            ends = np.r_[starts[1:], owner.size]
            for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
                yield Partition(name, int(owner[s]), s, e, int(layout.bounds[s]), int(layout.bounds[e]))

    def partition_counts(self) -> np.ndarray:
        """Partitions per core (all tables)."""
        counts = np.zeros(self.n_cores, dtype=np.int64)
        for p in self.partitions():
            counts[p.core] += 1
        return counts

    def used_cores(self) -> np.ndarray:
        """The cores holding at least one sub-partition, ascending."""
        return np.unique(self.owners())

    def same_as(self, other: Scheme) -> bool:
        """Whether both schemes cut the same tables at the same keys onto the same cores."""
        return (
            self.names == other.names
            and self.n_cores == other.n_cores
            and all(
                np.array_equal(a.bounds, b.bounds) and np.array_equal(a.owner, b.owner)
                for a, b in zip(self.tables.values(), other.tables.values(), strict=True)
            )
        )

    def describe(self, hardware: Hardware | None = None) -> list[str]:
        """One line per partition: table, key range, core (and socket when ``hardware`` is
        given)."""
        lines = []
        for p in self.partitions():
            where = f"core {p.core}" + (f" socket {int(hardware.core_socket[p.core])}" if hardware else "")
            lines.append(f"{p.table} [{p.lo}, {p.hi}) subs {p.first_sub}-{p.end_sub - 1} on {where}")
        return lines


def check_fits(scheme: Scheme, hardware: Hardware) -> None:
    """Raises ``ValueError`` when ``scheme`` was planned for another core count or puts a
    sub-partition on a core the hardware has taken away."""
    if scheme.n_cores != hardware.n_cores:
        raise ValueError(f"scheme: planned for {scheme.n_cores} cores, the hardware has {hardware.n_cores}")
    busy = scheme.used_cores()
    off = busy[~hardware.available[busy]]
    if off.size:
        raise ValueError(f"scheme: cores {off.tolist()} hold sub-partitions but are not available")
