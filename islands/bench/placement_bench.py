"""Placement of a small OLTP run's worker threads (paper 000, Fig 6).

The same short transaction workload (the engine's microbenchmark: each transaction updates
``rows_per_txn`` rows of its worker's site) runs through :func:`islands.run` with its worker
threads placed by :func:`islands.machine.placement.thread_placement`: ``spread`` (round-robin over
the sockets), ``grouped`` (fill one socket first), ``mixed`` (half grouped on the first
socket, half spread over the others) or ``os`` (not pinned), several times each; the figure
shows the mean and standard deviation of the throughput.

The paper ran 4 workers on a 4-socket, 24-core machine. By default islands runs as many
workers as one socket has cores (:func:`default_threads`): on a one-socket machine that is
every core; on a bigger one it is the most workers for which "grouped" still means one socket,
so that the four policies differ. With every core of a multi-socket machine busy, spread,
grouped and mixed would pin the same set of CPUs in different orders, and "mixed" (half of the
workers on the first socket) does not even fit beyond two sockets; ``--threads`` chooses
another count (the paper's: the number of sockets).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from islands.bench.common import config_hash
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, default_cc
from islands.execution.in_process import run
from islands.machine.placement import thread_placement
from islands.machine.topology import Topology

__all__ = ["POLICIES", "PlacementBenchConfig", "default_threads", "placement_run_config", "run_placement"]

#: Placement policies, in the figure's order.
POLICIES: tuple[str, ...] = ("spread", "grouped", "mixed", "os")


@dataclass(frozen=True)
class PlacementBenchConfig:
    """One point of the placement benchmark: a policy and the workload it runs."""

    policy: str = "grouped"  #: one of POLICIES
    threads: int = 0  #: worker threads; 0 = default_threads(topology)
    rows_per_txn: int = 10  #: rows each transaction updates
    rows_per_site: int = 10_000  #: rows in each worker's site
    update: bool = True  #: update the rows (False: read them)
    warmup_s: float = 0.5  #: seconds before the measured window
    duration_s: float = 1.0  #: seconds measured
    seed: int = 1  #: base random seed (repetition r uses seed + r)

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready)."""
        return dataclasses.asdict(self)

    def validate(self) -> None:
        """Raises ValueError naming the first bad field (the engine checks the workload)."""
        if self.policy not in POLICIES:
            raise ValueError(f"policy: unknown placement {self.policy!r} (choose {', '.join(POLICIES)})")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or self.threads < 0:
            raise ValueError(f"threads: {self.threads!r} is not a whole number >= 1 (0 = the default)")


def default_threads(topology: Topology) -> int:
    """Workers by default: the cores of the smallest socket (every core on one socket)."""
    return min(len(s.cores) for s in topology.sockets)


def placement_run_config(config: PlacementBenchConfig, topology: Topology, repetition: int = 0) -> RunConfig:
    """The engine run for ``config`` on ``topology``: the workers' CPUs from the placement
    (for ``os``, as many CPUs as workers, not pinned). Pure; raises ValueError when the
    threads do not fit."""
    config.validate()
    n = config.threads or default_threads(topology)
    placed = thread_placement(topology, n, config.policy)
    cpus = tuple(placed) if placed is not None else tuple(topology.cpus[:n])
    return RunConfig.of(
        MicroConfig(rows_per_site=config.rows_per_site, rows_per_txn=config.rows_per_txn, update=config.update),
        engine=EngineConfig(cc=default_cc([n])),
        driver=DriverConfig(
            cpus=cpus,
            pin=placed is not None,
            warmup_s=config.warmup_s,
            duration_s=config.duration_s,
            seed=config.seed + repetition,
        ),
    )


def run_placement(config: PlacementBenchConfig, topology: Topology, repetition: int = 0) -> dict[str, Any]:
    """Runs one repetition of one policy and returns its row (without topology and metadata,
    which the caller adds once per benchmark)."""
    run_config = placement_run_config(config, topology, repetition)
    result = run(run_config, topology)
    sockets = sorted({topology.socket_of(c) for c in run_config.driver.cpus}) if run_config.driver.pin else []
    return {
        "bench": "placement",
        "figure": "000-fig6",
        "policy": config.policy,
        "threads": len(run_config.driver.cpus),
        "repetition": repetition,
        "cpus": list(run_config.driver.cpus) if run_config.driver.pin else [],
        "sockets_used": sockets,
        "config": config.to_dict(),
        "config_hash": config_hash(config.to_dict()),
        "run_config": run_config.to_dict(),
        "run_config_hash": run_config.config_hash(),
        "throughput_tps": result.throughput_tps,
        "commits": result.commits,
        "aborts": sum(result.aborts.values()),
        "abort_rate": result.abort_rate,
        "latency_p50_us": result.latency.p50_us,
        "latency_p99_us": result.latency.p99_us,
        "measured_s": result.measured_s,
        "worker_cpus_seen": [w.cpu for w in result.workers],
        "run_warnings": list(result.warnings),
    }
