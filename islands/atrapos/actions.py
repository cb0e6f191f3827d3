"""The repartitioning actions that turn one scheme into another (paper 002 Sec V-D): split a
partition at a key, move a key range to another core, merge two neighbouring partitions.

For each table: split at every key where the new scheme has a partition boundary and the old
one has none; move every resulting range whose core changes; then merge at every old
boundary the new scheme does not have (both sides are on one core by then). The engine runs
them in this order, pausing regular actions only on the partitions involved. A *rearrangement*
in the paper's Fig 9 is one split and one merge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from islands.atrapos.scheme import Scheme

__all__ = ["RepartitionAction", "repartition_actions"]


@dataclass(frozen=True)
class RepartitionAction:
    """``kind`` "split" (at ``key``: the partition holding it becomes ``[.., key)`` and
    ``[key, ..)``), "move" (keys ``[lo, hi)`` from core ``source`` to core ``target``) or
    "merge" (the partitions ending and starting at ``key`` become one) of ``table``."""

    kind: str
    table: str
    key: int = 0
    lo: int = 0
    hi: int = 0
    source: int = -1
    target: int = -1

    def __str__(self) -> str:
        if self.kind == "move":
            return f"move {self.table} [{self.lo}, {self.hi}) core {self.source} -> {self.target}"
        return f"{self.kind} {self.table} at {self.key}"


def _boundaries(owner: np.ndarray) -> np.ndarray:
    """Indices i (1..n-1) where sub-partition i starts a new partition."""
    return np.flatnonzero(owner[1:] != owner[:-1]) + 1


def repartition_actions(old: Scheme, new: Scheme) -> list[RepartitionAction]:
    """The splits, moves and merges (in that order) from ``old`` to ``new``, which must cut
    the same tables into the same sub-partitions. Raises ``ValueError`` naming the table that
    differs."""
    if old.names != new.names:
        raise ValueError(f"schemes: tables {list(old.names)} and {list(new.names)} differ")
    splits: list[RepartitionAction] = []
    moves: list[RepartitionAction] = []
    merges: list[RepartitionAction] = []
    for name, before in old.tables.items():
        after = new.tables[name]
        if not np.array_equal(before.bounds, after.bounds):
            raise ValueError(f"schemes: table {name} is cut into other sub-partitions")
        b_old, b_new = set(_boundaries(before.owner).tolist()), set(_boundaries(after.owner).tolist())
        cuts = sorted(b_old | b_new)
        splits += [RepartitionAction("split", name, key=int(before.bounds[i])) for i in sorted(b_new - b_old)]
        for start, end in zip([0, *cuts], [*cuts, before.n_sub], strict=True):
            source, target = int(before.owner[start]), int(after.owner[start])
            if source != target:
                lo, hi = int(before.bounds[start]), int(before.bounds[end])
                moves.append(RepartitionAction("move", name, lo=lo, hi=hi, source=source, target=target))
        merges += [RepartitionAction("merge", name, key=int(before.bounds[i])) for i in sorted(b_old - b_new)]
    return splits + moves + merges
