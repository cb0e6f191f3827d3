"""Messaging mechanisms between two pinned processes (paper 000, Fig 2; paper 001, Fig 6).

The C++ side forks a server process and times a ping-pong of fixed-size messages over one
mechanism; each receiver checks every message's contents (a mismatch raises
``islands._core.IntegrityError``, never a statistic). Python picks the CPU pairs from the
topology (one pair on one socket sharing a cache, one pair on different sockets where the
machine has them), runs each mechanism on each pair, and keeps the rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from islands import _core
from islands.bench.common import check_online, config_hash
from islands.machine.topology import Topology

__all__ = [
    "CpuPair",
    "IpcBenchConfig",
    "MECHANISMS",
    "cpu_relation",
    "default_cpu_pairs",
    "ipc_points",
    "run_ipc",
    "unavailable_row",
]

#: Every mechanism, in the figure's order.
MECHANISMS: tuple[str, ...] = tuple(_core.ipc_mechanisms())

_NAN = float("nan")


@dataclass(frozen=True)
class IpcBenchConfig:
    """One ping-pong run; mirrors the C++ ``IpcBenchConfig`` field for field."""

    mechanism: str = "unix_stream"  #: one of MECHANISMS
    client_cpu: int = 0  #: CPU of the client (this process's calling thread); -1 = OS
    server_cpu: int = 1  #: CPU of the forked server; -1 = OS
    message_bytes: int = 256  #: bytes per message, each direction
    warmup_s: float = 0.2  #: seconds of round trips before measuring
    duration_s: float = 1.0  #: seconds measured (when round_trips is 0)
    round_trips: int = 0  #: > 0: measure exactly this many round trips instead
    seed: int = 1  #: seed of the message contents
    timeout_s: float = 30.0  #: seconds past the planned end before the server is declared hung
    inject_corruption: int = -1  #: tests only: the server corrupts its reply to this message

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready)."""
        return dataclasses.asdict(self)

    def config_hash(self) -> str:
        """Stable 16-hex-digit hash of the canonical JSON form."""
        return config_hash(self.to_dict())

    def to_core(self) -> _core.IpcBenchConfig:
        """The C++ struct, validated there (ValueError naming the field)."""
        if self.message_bytes <= 0:
            raise ValueError(f"message_bytes: {self.message_bytes} is not a size in bytes >= 1")
        core = _core.IpcBenchConfig()
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            try:
                setattr(core, f.name, value)
            except TypeError:
                raise ValueError(f"{f.name}: {value!r} is not a valid value") from None
        core.validate()
        return core


@dataclass(frozen=True)
class CpuPair:
    """Two CPUs and how they relate: ``same_cpu``, ``smt_siblings`` (one core),
    ``same_socket`` (two cores of one socket) or ``cross_socket``."""

    client: int
    server: int
    relation: str
    shared_cache: str  #: the nearest (lowest-level) data cache both use ("L1d", "L3", ...) or "none"

    @property
    def label(self) -> str:
        """For tables and legends: ``same socket (shared L3): cpus 0,1``."""
        words = self.relation.replace("_", " ")
        shared = f", shared {self.shared_cache}" if self.shared_cache != "none" else ""
        return f"{words}{shared}: cpus {self.client},{self.server}"


def cpu_relation(topology: Topology, a: int, b: int) -> CpuPair:
    """How CPUs ``a`` and ``b`` relate on ``topology`` (both must be online)."""
    check_online((a, b), topology, "cpus")
    if a == b:
        relation = "same_cpu"
    elif topology.core_of(a) == topology.core_of(b):
        relation = "smt_siblings"
    elif topology.socket_of(a) == topology.socket_of(b):
        relation = "same_socket"
    else:
        relation = "cross_socket"
    shared = [c for c in topology.caches_of(a) if b in c.cpus and c.type != "Instruction"]
    nearest = min(shared, key=lambda c: c.level).name if shared else "none"
    return CpuPair(a, b, relation, nearest)


def default_cpu_pairs(topology: Topology) -> list[CpuPair]:
    """The pairs the figure compares: two cores of the first socket that share its last-level
    cache (falling back to hyperthread siblings, then to one CPU, on smaller machines), and
    where the machine has more than one socket, the first cores of the first two sockets."""
    first = topology.sockets[0]
    a = first.cores[0].cpus[0]
    llc = topology.llc_of(a)
    others = [core.cpus[0] for core in first.cores[1:]]
    sharing = [c for c in others if llc is None or c in llc.cpus]
    if sharing or others:
        b = (sharing or others)[0]
    elif len(first.cores[0].cpus) > 1:
        b = first.cores[0].cpus[1]
    else:
        b = a
    pairs = [cpu_relation(topology, a, b)]
    if topology.n_sockets > 1:
        pairs.append(cpu_relation(topology, a, topology.sockets[1].cores[0].cpus[0]))
    return pairs


def _base_row(config: IpcBenchConfig, pair: CpuPair, repetition: int) -> dict[str, Any]:
    return {
        "bench": "ipc",
        "figure": "000-fig2",
        "mechanism": config.mechanism,
        "pair": pair.relation,
        "pair_label": pair.label,
        "shared_cache": pair.shared_cache,
        "client_cpu": config.client_cpu,
        "server_cpu": config.server_cpu,
        "message_bytes": config.message_bytes,
        "repetition": repetition,
        "config": config.to_dict(),
        "config_hash": config.config_hash(),
    }


def run_ipc(
    config: IpcBenchConfig, pair: CpuPair | None = None, repetition: int = 0, topology: Topology | None = None
) -> dict[str, Any]:
    """Runs one ping-pong and returns its result row (without topology and metadata, which
    the caller adds once per benchmark). Round-trip figures are in microseconds;
    ``messages_per_s`` counts both directions (two messages per round trip).

    Raises ValueError for a bad config or CPU, ``_core.IntegrityError`` when a message
    arrives corrupted, ``_core.CapabilityMissing`` when the mechanism is not available here.
    """
    if config.mechanism not in MECHANISMS:
        raise ValueError(
            f"mechanism: unknown messaging mechanism {config.mechanism!r} (choose {', '.join(MECHANISMS)})"
        )
    if topology is not None:
        pair = pair or cpu_relation(topology, config.client_cpu, config.server_cpu)
    pair = pair or CpuPair(config.client_cpu, config.server_cpu, "unknown", "none")
    stats = _core.run_ipc_bench(config.to_core())
    rt = stats["round_trip"]
    row = _base_row(config, pair, repetition)
    row.update(
        {
            "available": True,
            "round_trips": stats["round_trips"],
            "total_round_trips": stats["total_round_trips"],
            "server_verified": stats["server_verified"],
            "measured_s": stats["measured_s"],
            "round_trips_per_s": stats["round_trips_per_s"],
            "messages_per_s": stats["messages_per_s"],
            "rtt_mean_us": rt["mean_ns"] / 1e3,
            "rtt_min_us": rt["min_ns"] / 1e3,
            "rtt_p50_us": rt["p50_ns"] / 1e3,
            "rtt_p99_us": rt["p99_ns"] / 1e3,
            "rtt_p999_us": rt["p999_ns"] / 1e3,
            "rtt_max_us": rt["max_ns"] / 1e3,
            "client_cpu_seen": stats["client_cpu_seen"],
            "server_cpu_seen": stats["server_cpu_seen"],
            "warning": "",
        }
    )
    return row


def unavailable_row(config: IpcBenchConfig, pair: CpuPair, repetition: int, why: str) -> dict[str, Any]:
    """The row of a mechanism this machine cannot run: NaN figures and the reason."""
    row = _base_row(config, pair, repetition)
    row.update(
        {
            "available": False,
            "round_trips": 0,
            "total_round_trips": 0,
            "server_verified": 0,
            "measured_s": _NAN,
            "round_trips_per_s": _NAN,
            "messages_per_s": _NAN,
            "rtt_mean_us": _NAN,
            "rtt_min_us": _NAN,
            "rtt_p50_us": _NAN,
            "rtt_p99_us": _NAN,
            "rtt_p999_us": _NAN,
            "rtt_max_us": _NAN,
            "client_cpu_seen": -1,
            "server_cpu_seen": -1,
            "warning": why,
        }
    )
    return row


def ipc_points(
    mechanisms: Sequence[str], pairs: Sequence[CpuPair], repetitions: int, **fields: Any
) -> list[tuple[IpcBenchConfig, CpuPair, int]]:
    """Every (config, pair, repetition) to run: pairs outermost, then mechanisms."""
    return [
        (IpcBenchConfig(mechanism=m, client_cpu=p.client, server_cpu=p.server, **fields), p, r)
        for p in pairs
        for m in mechanisms
        for r in range(repetitions)
    ]
