"""The cost of re-partitioning a running PLP instance (paper 002 Fig 9; issue 17 item 3).

While a PLP instance runs (in this process), a thread beside it applies sequences of
re-partitioning actions through the run handle's ``apply`` and times each sequence end to end: for
each N of ``counts``, N actions one after another, each moving one routing unit (a tenth of a
site's keys) to the next worker. In this engine split, merge and move are one operation, a
change of the routing table (the rows stay where they are: one process, one shared index), so
a split (a range of a partition to another core), a merge (the range back) and a
rearrangement cost the same: freeze the unit, drain its in-flight actions, hand it over.
Recorded per N: the sequence's total time, the actions' summed pause (freeze to hand-over,
what the transactions needing the units wait) and the longest pause.

Used by ``benchmarks/atrapos_repartition.py`` and by experiment files with
``[probe] kind = "repartition_cost"`` (:mod:`islands.experiments.probes`; 002 Fig 9 from
``islands reproduce 002-fig9``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from islands import _core
from islands.config.settings import RunConfig
from islands.execution.run_result import RunResult
from islands.machine.topology import Topology

__all__ = ["COUNTS", "PAPER_ACTIONS", "PAPER_MS", "PAPER_ROWS", "apply_sequences", "measure_repartition_cost"]

#: The sequence lengths of paper 002's Fig 9.
COUNTS = (1, 10, 20, 40, 80)
#: Paper 002: 80 rearrangements take under 200 ms, at 800 K rows.
PAPER_ACTIONS = 80
PAPER_MS = 200.0
PAPER_ROWS = 800_000


def apply_sequences(
    handle: _core.RunningInstance, counts: Sequence[int], out: dict[str, Any], settle_s: float = 0.1
) -> None:
    """Beside the run ``handle``: waits for its PLP instance to attach, lets it run ``settle_s``, then for
    each N of ``counts`` applies N single-unit moves (unit i of the sequence to the next
    worker). Fills ``out``: ``total_ms``, ``pause_ms``, ``max_pause_us`` (one per count, NaN
    for a sequence the run's end cut short) and ``error`` (what cut it; empty when none)."""
    n_counts = len(counts)
    out.update(total_ms=[math.nan] * n_counts, pause_ms=[math.nan] * n_counts, max_pause_us=[math.nan] * n_counts)
    out["error"] = ""
    handle.wait_attached(timeout_s=float("inf"))
    time.sleep(settle_s)
    owners = handle.owners()
    workers = max(owners) + 1 if owners else 0
    if workers < 2:
        out["error"] = "re-partitioning needs at least two PLP workers" if owners else "the instance stopped early"
        return
    for k, n in enumerate(counts):
        pauses = []
        start = time.perf_counter()
        for i in range(n):
            unit = i % len(owners)
            owners[unit] = (owners[unit] + 1) % workers
            done = handle.apply(owners)
            if done is None:
                out["error"] = f"the instance stopped after {i} of {n} actions"
                return
            pauses.append(done["pause_ns"])
        out["total_ms"][k] = (time.perf_counter() - start) * 1e3
        out["pause_ms"][k] = sum(pauses) / 1e6
        out["max_pause_us"][k] = max(pauses) / 1e3


def measure_repartition_cost(
    config: RunConfig, counts: Sequence[int] = COUNTS, settle_s: float | None = None, topology: Topology | None = None
) -> tuple[RunResult, dict[str, Any]]:
    """Runs ``config`` (one PLP instance of at least two workers, in this process) with
    :func:`apply_sequences` beside it, starting once the warm-up is over (``settle_s``
    overrides that). Returns the run's result and the sequences' times (``counts`` with
    ``total_ms``, ``pause_ms``, ``max_pause_us`` and ``error``); ``topology`` is the
    machine's the run records (default: read). Raises ``ValueError`` for a config that is not
    PLP or has one worker."""
    from islands.execution.in_process import run_beside

    if config.engine.execution != "plp":
        raise ValueError(f"engine.execution: re-partitioning costs need plp, not {config.engine.execution}")
    if len(config.driver.cpus) < 2:
        raise ValueError(f"driver.cpus: re-partitioning needs two PLP workers or more, not {len(config.driver.cpus)}")
    out: dict[str, Any] = {"counts": [int(n) for n in counts]}
    settle = config.driver.warmup_s + 0.05 if settle_s is None else settle_s
    result = run_beside(config, lambda handle: apply_sequences(handle, tuple(counts), out, settle), topology)
    return result, out
