"""How a single sub-partition's move changes TS, for all sub-partitions at once, kept up to
date while the search moves them (used by Algorithm 1 when it weighs synchronization too).

Synchronization points are split into pairs: a point of ``n`` members and weight ``w`` gives
each pair of members weight ``w / (n - 1)``, which is exact for two members (``C(s) = w *
distance`` across sockets, 0 within one); for more it is an estimate, and the search checks
every move it takes against the exact TS (:meth:`SyncTracker.exact_delta`).
``on_socket[i, s]`` is the pairwise TS sub-partition ``i`` takes part in were it on socket
``s`` (its partners staying put).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from islands.atrapos.cost_model import SyncIndex

__all__ = ["SyncTracker"]


class SyncTracker:
    """Per-socket pairwise TS of every sub-partition (see the module docstring)."""

    def __init__(self, index: SyncIndex, unit_socket: np.ndarray, distance: np.ndarray) -> None:
        self.index = index
        self.points_of = index.points_of_units()
        self.distance = distance
        self.off_diagonal = distance * (1 - np.eye(distance.shape[0]))
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        for p in range(index.n_points):
            m = index.members[index.ptr[p] : index.ptr[p + 1]]
            if m.size < 2:
                continue
            a, b = np.meshgrid(m, m, indexing="ij")
            keep = a != b
            rows.append(a[keep])
            cols.append(b[keep])
            vals.append(np.full(int(keep.sum()), index.weight[p] / (m.size - 1)))
        n = index.n_units
        if rows:
            self.pairs = sparse.csr_matrix(
                (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
            )
        else:
            self.pairs = sparse.csr_matrix((n, n))
        self.socket = np.asarray(unit_socket, dtype=np.int64).copy()
        onehot = sparse.csr_matrix((np.ones(n), (np.arange(n), self.socket)), shape=(n, distance.shape[0]))
        self.on_socket = np.asarray((self.pairs @ onehot).toarray() @ self.off_diagonal)

    def delta(self, units: np.ndarray, socket: int) -> np.ndarray:
        """Estimated TS change if each of ``units`` alone moved to ``socket``."""
        return self.on_socket[units, socket] - self.on_socket[units, self.socket[units]]

    def exact_delta(self, unit: int, socket: int) -> float:
        """The exact TS change if ``unit`` moved to ``socket``."""
        points = self.points_of[unit]
        if points.size == 0 or socket == self.socket[unit]:
            return 0.0
        after = self.socket.copy()
        after[unit] = socket
        return float(
            self.index.costs(after, self.distance, points).sum()
            - self.index.costs(self.socket, self.distance, points).sum()
        )

    def move(self, unit: int, socket: int) -> None:
        """Record that ``unit`` moved to ``socket``."""
        old = int(self.socket[unit])
        if old == socket:
            return
        row = self.pairs.getrow(unit)
        partners, weights = row.indices, row.data
        self.on_socket[partners] += np.outer(weights, self.off_diagonal[socket] - self.off_diagonal[old])
        self.socket[unit] = socket
