"""How long a sweep's run takes, estimated before it runs: what ``islands sweep --dry-run`` and
``islands reproduce --report``'s budget go by.

A run is its warm-up and measured window, plus what surrounds them: its instances' start and
stop, the load of its data (and the consistency checks that read it back after the window),
and, with ``[profile] simulate``, cachegrind's single-threaded copy. The constants are this
project's measurements on the 2-core VM (quick runs, 2026-12-06, under a load average of ~5, so
on the slow side): TPC-C and TATP 2.5-4.4 s a run of 0.2 s (load 1-3 s), 000 Fig 12's
simulated runs 12-20 s each, where the plain window-plus-0.5 s guess said 0.75 s.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from islands.experiments.point import Point

__all__ = ["INSTANCE_START_S", "LOAD_BYTES_PER_S", "RUN_OVERHEAD_S", "SIMULATE_S", "estimate_run_s", "estimate_runs_s"]

#: Seconds a run costs beside its window whatever it holds (planning, the result's row).
RUN_OVERHEAD_S = 0.5
#: CPU seconds an instance process takes to start and stop (interpreter, islands, the engine).
INSTANCE_START_S = 0.3
#: Bytes of rows and index one CPU loads, checks and frees a second (TPC-C and TATP measured
#: 100-250 MB/s of their estimated load size).
LOAD_BYTES_PER_S = 120e6
#: Seconds cachegrind's single-threaded copy takes (``profile.simulate``; 3-15 s measured for
#: 1,000 transactions, the valgrind start and the copy's own load included).
SIMULATE_S = 15.0


def _load_bytes(point: Point) -> int:
    """The point's estimated load size; 0 where the registry cannot size it."""
    from islands import _core
    from islands.config.workload_registry import load_bytes

    sites = len(point.config.driver.cpus)
    try:
        return load_bytes(point.config, sites, min(point.deployment.n_instances, sites))
    except (ValueError, _core.ConfigError):
        return 0


def estimate_run_s(point: Point, cpus: int | None = None) -> float:
    """The seconds ``point``'s run is expected to take on a machine with ``cpus`` CPUs (default:
    the CPUs this process may use): its window, the start of its instances and the load of its
    data spread over the CPUs they have, and cachegrind's copy when it simulates."""
    cpus = len(os.sched_getaffinity(0)) if cpus is None else cpus
    driver = point.config.driver
    instances = point.deployment.n_instances
    parallel = max(1, min(instances, cpus))
    seconds = driver.warmup_s + driver.duration_s + RUN_OVERHEAD_S
    seconds += (instances * INSTANCE_START_S + _load_bytes(point) / LOAD_BYTES_PER_S) / parallel
    if point.config.profile.simulate:
        seconds += SIMULATE_S
    return seconds


def estimate_runs_s(points: Iterable[Point], cpus: int | None = None) -> float:
    """The seconds these runs are expected to take one after the other (:func:`estimate_run_s`)."""
    return sum(estimate_run_s(p, cpus) for p in points)
