"""Threads incrementing lock-protected counters (paper 000, Fig 5 and 7; paper 001, Table 1).

T threads (every core by default) each increment one counter in a tight loop, the counter
protected by a lock of the chosen kind. How many counters there are is the *granularity*:

- ``machine``: one counter for all threads;
- ``socket``: one counter per socket; the threads are cut into as many contiguous groups as
  the machine has sockets (thread ``i`` is in group ``i * sockets // T``), each group
  incrementing its own counter, as in Fig 5;
- ``core``: one counter per thread (each thread on its own core), as Fig 7's right bar.

Where the threads run is the *placement*, from :func:`islands.machine.placement.thread_placement`:
``grouped`` fills one socket's cores before the next (so each group of the ``socket``
granularity sits on the socket its counter's memory is on), ``spread`` deals the threads
round-robin over the sockets (each group spans every socket), ``os`` leaves them unpinned.
Each counter's memory is first touched by the first thread that increments it.

Every run checks that each counter's final value equals the increments its threads made; a
lost update raises RuntimeError (it is a broken lock, not a data point).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from islands import _core
from islands.bench.common import config_hash
from islands.machine.placement import thread_placement
from islands.machine.topology import Topology

__all__ = [
    "CounterBenchConfig",
    "GRANULARITIES",
    "LOCK_KINDS",
    "PLACEMENTS",
    "counter_plan",
    "run_counters",
]

#: Lock kinds, in the figures' order.
LOCK_KINDS: tuple[str, ...] = tuple(_core.lock_kinds())
#: Counter granularities, coarse to fine.
GRANULARITIES: tuple[str, ...] = ("machine", "socket", "core")
#: Thread placements (000 Fig 5's three bars).
PLACEMENTS: tuple[str, ...] = ("spread", "grouped", "os")


@dataclass(frozen=True)
class CounterBenchConfig:
    """One counter-benchmark point. It is the layer above the C++ ``CounterBenchConfig``:
    :func:`counter_plan` turns ``threads``, ``granularity`` and ``placement`` into its
    per-thread ``cpus`` and ``counter_of`` lists on a given topology."""

    lock: str = "mutex"  #: one of LOCK_KINDS
    granularity: str = "socket"  #: one of GRANULARITIES
    placement: str = "grouped"  #: one of PLACEMENTS
    threads: int = 0  #: number of threads; 0 = one per core of the machine
    warmup_s: float = 0.1  #: seconds of increments before the measured window
    duration_s: float = 1.0  #: seconds measured (when increments_per_thread is 0)
    increments_per_thread: int = 0  #: > 0: each thread makes exactly this many instead

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON-ready)."""
        return dataclasses.asdict(self)

    def validate(self) -> None:
        """Raises ValueError naming the first bad field (the C++ side checks the rest)."""
        for name, value, choices in (
            ("lock", self.lock, LOCK_KINDS),
            ("granularity", self.granularity, GRANULARITIES),
            ("placement", self.placement, PLACEMENTS),
        ):
            if value not in choices:
                raise ValueError(f"{name}: unknown {name} {value!r} (choose {', '.join(choices)})")
        if isinstance(self.threads, bool) or not isinstance(self.threads, int) or self.threads < 0:
            raise ValueError(f"threads: {self.threads!r} is not a whole number >= 1 (0 = one per core)")
        if (
            isinstance(self.increments_per_thread, bool)
            or not isinstance(self.increments_per_thread, int)
            or self.increments_per_thread < 0
        ):
            raise ValueError(f"increments_per_thread: {self.increments_per_thread!r} is not a whole number >= 0")


def counter_plan(config: CounterBenchConfig, topology: Topology) -> tuple[list[int], list[int]]:
    """``(cpus, counter_of)``: the CPU each thread is pinned to (-1 = left to the OS) and the
    counter it increments, for ``config`` on ``topology``. Pure; raises ValueError when the
    threads do not fit the placement."""
    config.validate()
    n = config.threads or topology.n_cores
    placed = thread_placement(topology, n, config.placement)
    cpus = list(placed) if placed is not None else [-1] * n
    if config.granularity == "machine":
        counter_of = [0] * n
    elif config.granularity == "socket":
        groups = min(topology.n_sockets, n)
        counter_of = [i * groups // n for i in range(n)]
    else:
        counter_of = list(range(n))
    return cpus, counter_of


def run_counters(config: CounterBenchConfig, topology: Topology, repetition: int = 0) -> dict[str, Any]:
    """Runs one point and returns its row (without topology and metadata, which the caller
    adds once per benchmark). Raises ValueError for bad input and RuntimeError when a counter
    lost an update."""
    cpus, counter_of = counter_plan(config, topology)
    core = _core.CounterBenchConfig()
    core.lock = config.lock
    core.cpus = cpus
    core.counter_of = counter_of
    core.warmup_s = config.warmup_s
    core.duration_s = config.duration_s
    core.increments_per_thread = config.increments_per_thread
    core.validate()
    stats = _core.run_counter_bench(core)
    if not stats["consistent"]:
        bad = [(k, v, e) for k, (v, e) in enumerate(zip(stats["counter_values"], stats["expected_values"])) if v != e]
        k, value, expected = bad[0]
        raise RuntimeError(
            f"counters: lost update under {config.lock}: counter {k} ended at {value:,} "
            f"but its threads made {expected:,} increments ({len(bad)} counters wrong)"
        )
    full = dict(config.to_dict(), threads=len(cpus), cpus=cpus, counter_of=counter_of)
    return {
        "bench": "counters",
        "figure": "000-fig5/fig7",
        "lock": config.lock,
        "granularity": config.granularity,
        "placement": config.placement,
        "threads": len(cpus),
        "counters": max(counter_of) + 1,
        "repetition": repetition,
        "config": full,
        "config_hash": config_hash(full),
        "increments": stats["increments"],
        "increments_per_s": stats["increments_per_s"],
        "measured_s": stats["measured_s"],
        "total_increments": sum(stats["total_increments"]),
        "counter_values": stats["counter_values"],
        "expected_values": stats["expected_values"],
        "per_thread_increments": stats["measured_increments"],
        "cpu_seen": stats["cpu_seen"],
        # Share of the window the threads ran (1 = never preempted): a shared machine shows here.
        "cpu_share": stats["cpu_share"],
        "per_thread_cpu_s": stats["cpu_s"],
        "consistent": stats["consistent"],
    }
