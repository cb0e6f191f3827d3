"""The hardware the ATraPos cost model plans for: cores, the socket of each, which cores are
available, and the distance between sockets.

The model numbers cores 0..n-1 (socket by socket, as :attr:`islands.machine.topology.Topology.cores`
lists them) and keeps that numbering when cores are taken away, so that a scheme planned
before the change still names valid cores: a removed core is only marked unavailable.
Distances come from the NUMA distance matrix of each socket's node, in units of the local
distance (the kernel's 10), so two sockets one hop apart are 2.0 apart and a core's own
socket 1.0; a real machine, a sysfs fixture or a virtual topology
(:func:`islands.machine.virtual_topology.virtual_sockets`) all work.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from islands.machine.topology import LOCAL_DISTANCE, Topology

__all__ = ["Hardware"]


@dataclass(frozen=True, eq=False)
class Hardware:
    """Cores grouped into sockets, with socket distances.

    ``core_socket[c]`` is the socket index (0..n_sockets-1) of core ``c``;
    ``distance[i, j]`` the communication cost between sockets ``i`` and ``j`` (only
    ``i != j`` is used); ``available[c]`` whether core ``c`` may hold partitions. Raises
    ``ValueError`` naming the field when the pieces disagree.
    """

    core_socket: np.ndarray
    distance: np.ndarray
    available: np.ndarray

    def __post_init__(self) -> None:
        core_socket = np.asarray(self.core_socket, dtype=np.int64)
        distance = np.asarray(self.distance, dtype=np.float64)
        available = np.asarray(self.available, dtype=bool)
        if core_socket.ndim != 1 or core_socket.size == 0:
            raise ValueError("core_socket: needs one socket index per core, at least one core")
        n_sockets = int(core_socket.max()) + 1
        if core_socket.min() < 0 or set(core_socket.tolist()) != set(range(n_sockets)):
            raise ValueError(f"core_socket: socket indices must cover 0..{n_sockets - 1} without gaps")
        if distance.shape != (n_sockets, n_sockets):
            raise ValueError(f"distance: shape {distance.shape} is not {n_sockets}x{n_sockets}")
        if not np.all(np.isfinite(distance)) or np.any(distance < 0) or not np.allclose(distance, distance.T):
            raise ValueError("distance: must be finite, non-negative and symmetric")
        if available.shape != core_socket.shape:
            raise ValueError(f"available: {available.size} flags for {core_socket.size} cores")
        if not available.any():
            raise ValueError("available: no core is available")
        for name, value in (("core_socket", core_socket), ("distance", distance), ("available", available)):
            value.setflags(write=False)
            object.__setattr__(self, name, value)

    @classmethod
    def from_sockets(cls, cores_per_socket: Sequence[int], remote_distance: float = 2.0) -> Hardware:
        """Sockets of the given sizes, every pair of sockets ``remote_distance`` apart."""
        if not cores_per_socket or any(n < 1 for n in cores_per_socket):
            raise ValueError(f"cores_per_socket: {list(cores_per_socket)} needs at least one core per socket")
        core_socket = np.repeat(np.arange(len(cores_per_socket)), cores_per_socket)
        n = len(cores_per_socket)
        distance = np.full((n, n), float(remote_distance))
        np.fill_diagonal(distance, 1.0)
        return cls(core_socket, distance, np.ones(core_socket.size, dtype=bool))

    @classmethod
    def from_topology(cls, topology: Topology) -> Hardware:
        """The topology's cores (socket by socket) with distances from its NUMA matrix: each
        socket is at the node of its first cpu."""
        socket_index = {s.id: i for i, s in enumerate(topology.sockets)}
        core_socket = np.array([socket_index[core.socket] for core in topology.cores], dtype=np.int64)
        nodes = [topology.numa_node_of(s.cpus[0]) for s in topology.sockets]
        distance = np.array([[topology.distance(a, b) / LOCAL_DISTANCE for b in nodes] for a in nodes], dtype=float)
        return cls(core_socket, distance, np.ones(core_socket.size, dtype=bool))

    @property
    def n_cores(self) -> int:
        """Number of cores, available or not."""
        return int(self.core_socket.size)

    @property
    def n_sockets(self) -> int:
        """Number of sockets."""
        return int(self.distance.shape[0])

    @property
    def available_cores(self) -> np.ndarray:
        """Indices of the available cores, ascending."""
        return np.flatnonzero(self.available)

    def cores_of_socket(self, socket: int) -> np.ndarray:
        """The cores of socket ``socket``, available or not."""
        return np.flatnonzero(self.core_socket == socket)

    def without(self, cores: Iterable[int]) -> Hardware:
        """The same machine with ``cores`` taken away (no partition may stay on them)."""
        available = self.available.copy()
        for c in cores:
            if not 0 <= c < self.n_cores:
                raise ValueError(f"core {c} is not one of the {self.n_cores} cores")
            available[c] = False
        return Hardware(self.core_socket, self.distance, available)

    def with_cores(self, cores: Iterable[int]) -> Hardware:
        """The same machine with ``cores`` given back."""
        available = self.available.copy()
        for c in cores:
            if not 0 <= c < self.n_cores:
                raise ValueError(f"core {c} is not one of the {self.n_cores} cores")
            available[c] = True
        return Hardware(self.core_socket, self.distance, available)
