"""ATraPos monitoring overhead measured in the engine (paper 002 Table 2; issue 17 item 1).

TATP under PLP with the monitor on (engine.plp_monitor: every committed transaction records
its actions per unit, a cost and its synchronizations in the workers' own arrays), its
recording switched off and on within one run: a thread beside the run switches it every
``phase_s`` seconds (the run handle's ``monitor_recording``), off first; the run's throughput
timeline (:data:`INTERVAL_S` intervals) gives each phase's rate, leaving out the intervals
next to a switch. Within one run the tables, their memory and the workers' placement are the
same for both, which runs of their own are not (separate runs of the same configuration
differ by up to 10% here). The overhead is off / on - 1 (the extra time per transaction that
recording costs), over the phases' rates (:func:`islands.analysis.statistics.ratio`).

Used by ``benchmarks/plp_monitoring.py`` and by experiment files with
``[probe] kind = "monitor_overhead"`` (:mod:`islands.experiments.probes`; 002 Table 2 from
``islands reproduce 002-table2``).
"""

from __future__ import annotations

import dataclasses
import statistics
import time
from typing import Any

from islands import _core
from islands.config.settings import RunConfig
from islands.execution.run_result import RunResult
from islands.machine.topology import Topology

__all__ = ["INTERVAL_S", "PAPER_WORST", "measure_monitor_overhead", "phase_rates", "switch_recording"]

#: The timeline's resolution during a measurement (seconds).
INTERVAL_S = 0.01
#: Paper 002 Table 2's largest overhead (GetSubData).
PAPER_WORST = 0.0332


def switch_recording(
    handle: _core.RunningInstance, phase_s: float, phases: int, warmup_s: float, out: dict[str, Any]
) -> None:
    """Beside the run ``handle``: once its instance runs and its window opens (``warmup_s``
    after it attaches), recording goes off and on every ``phase_s`` (off first), ``phases``
    times; ``out["edges"]`` gets the switch times (s into the window) and ``out["error"]`` what
    went wrong (empty: nothing)."""
    out["error"] = ""
    if not handle.wait_attached(timeout_s=float("inf")):
        out["error"] = "the instance stopped before it ran"
        out["edges"] = []
        return
    t0 = time.perf_counter() + warmup_s  # the window opens a warm-up after the instance attaches
    time.sleep(warmup_s)
    edges = []
    for k in range(phases):
        if not handle.monitor_recording(k % 2 == 1):
            out["error"] = "the instance stopped early"
            break
        edges.append(time.perf_counter() - t0)
        time.sleep(max(0.0, t0 + (k + 1) * phase_s - time.perf_counter()))
    handle.monitor_recording(True)
    out["edges"] = edges


def phase_rates(
    timeline_tps: list[float], edges: list[float], duration_s: float, interval_s: float = INTERVAL_S
) -> tuple[list[float], list[float]]:
    """The mean rate of each phase with recording off, and of each with it on, from a run's
    timeline (``interval_s`` per entry) and the switch times ``edges`` (off first); the two
    intervals next to each switch and the last (possibly partial) interval are left out."""
    bounds = [*edges, duration_s]
    rates: dict[bool, list[float]] = {False: [], True: []}
    for k in range(len(bounds) - 1):
        lo, hi = bounds[k] + 2 * interval_s, bounds[k + 1] - 2 * interval_s  # clear of the switches
        inside = [tps for i, tps in enumerate(timeline_tps[:-1]) if lo <= i * interval_s and (i + 1) * interval_s <= hi]
        if inside:
            rates[k % 2 == 1].append(statistics.fmean(inside))
    return rates[False], rates[True]


def measure_monitor_overhead(
    config: RunConfig, phase_s: float = 0.1, topology: Topology | None = None
) -> tuple[RunResult, dict[str, Any]]:
    """Runs ``config`` (PLP, in this process) with the monitor on, its recording switched off
    and on every ``phase_s`` through the measured window, the timeline at :data:`INTERVAL_S`.
    Returns the run's result and ``{"phase_s", "off_tps", "on_tps", "error"}``: the rate of
    each phase with recording off and on (``error`` says why phases are missing);
    ``topology`` is the machine's the run records (default: read). Raises
    ``ValueError`` for a config that is not PLP or a phase too short to measure."""
    from islands.execution.in_process import run_beside

    if config.engine.execution != "plp":
        raise ValueError(f"engine.execution: the monitor is PLP's, not {config.engine.execution}'s")
    if not phase_s >= 5 * INTERVAL_S:
        raise ValueError(f"phase_s: {phase_s!r} s is too short (at least {5 * INTERVAL_S:g} s: five intervals)")
    run = dataclasses.replace(
        config,
        engine=dataclasses.replace(config.engine, plp_monitor=True),
        driver=dataclasses.replace(config.driver, timeline_interval_s=INTERVAL_S),
    )
    out: dict[str, Any] = {}
    phases = int(run.driver.duration_s / phase_s)
    result = run_beside(
        run, lambda handle: switch_recording(handle, phase_s, phases, run.driver.warmup_s, out), topology
    )
    off, on = phase_rates(result.timeline_tps, out.get("edges", []), run.driver.duration_s)
    return result, {"phase_s": phase_s, "off_tps": off, "on_tps": on, "error": out.get("error", "")}
