"""ATraPos adapting a running PLP instance: a Python thread beside an in-process run.

Design (issue 17 item 4). The controller runs in a Python thread next to ``islands.run``, which
releases the GIL while the engine runs. At the end of each interval it reads the instance's
commit count and monitor (the run's handle, ``_core.RunningInstance``: ``commits`` / ``snapshot``,
summed over the workers' thread-local arrays) and its workers' CPU times (``worker_cpu_ns``: the costs are put
on an equal footing across workers the machine gave unequal CPU, islands.atrapos.cpu_share),
feeds the interval's throughput to :class:`AdaptiveLoop` (the paper's
interval logic and search) and applies a plan through the handle's ``apply`` (freeze, drain, hand
over: exec/plp/plp_routing.hpp). Why not a C++ monitor thread calling Python: the search is Python
and runs once per interval (1 to 8 s), so calling it from C++ would only add a GIL hand-off and
a second owner of the loop; the engine side stays a handle (exec/plp/plp_control.hpp) that any
thread may call, and the controller is testable on its own.

Run-time events (:class:`Event`): a worker's core taken away (``park``: it draws no more
transactions; in a pinned run its thread moves onto the unparked workers' CPUs and serves its
units there, sharing them) or given back (``unpark``: back on its own CPU, drawing). The adaptive
controller then ends its current interval at most one shortest interval after the event
(the interval may have doubled to 8 s) and evaluates the model there: a core change is
something the system is told. A change of the workload's draw (``mix``, ``skew``:
the handle's ``change``, which the generators see from their next transaction) is not told to
the controller: as in the paper it finds out through its own measurements (the throughput
leaves the band and the interval resets; the monitor's per-unit counts move), so its
adaptation time includes the interval then running. Static mode (``adaptive=False``) applies
the events and never re-partitions, so a figure shows both. :func:`run_live` checks every
change with the engine's own parsers before the run starts (a ``ConfigError`` naming the
setting), so a bad value never reaches a running instance.

The snapshot's ``drawn`` (each worker's draws by home unit) becomes the statistics' draws
(scaled with the CPU share, as the costs): the cost model's draw term
(islands.atrapos.cost_model) prices a unit owned away from the worker that draws it.

The engine's partitions here are its sites, each cut into 10 routing units (its
sub-partitions). With every table's rows of a unit owned together (``engine.plp_units =
shared_key``) every unit is one sub-partition of one table ``keys`` in the scheme the search
sees, its owner the worker (core) that runs it. With tables routed apart (``per_table``:
TATP's four tables) the scheme has one table per engine table, each with every site's 10
units, so Algorithms 1 and 2 see the synchronizations between a Subscriber partition and its
Special_Facility partition, and may place them on one socket. The engine numbers a unit
(site, table, sub) as ``(site * tables + table) * 10 + sub``; the scheme lists tables one
after the other (:func:`scheme_order` maps between them).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from islands import _core
from islands.atrapos.adaptive_loop import AdaptiveLoop
from islands.atrapos.cpu_share import equal_cpu_costs
from islands.atrapos.events import CHANGE_KINDS, EVENT_KINDS, Event, LiveLog, check_changes, check_events
from islands.atrapos.hardware import Hardware
from islands.atrapos.scheme import SUB_PARTITIONS, Scheme
from islands.atrapos.workload_stats import MonitoredPartition, WorkloadStats, from_monitor
from islands.config.settings import RunConfig
from islands.config.workload_registry import workload, workloads
from islands.execution.run_result import RunResult
from islands.machine.topology import Topology

__all__ = [
    "EVENT_KINDS",
    "Event",
    "LiveController",
    "LiveLog",
    "check_events",
    "cpu_shares",
    "engine_scheme",
    "routed_tables",
    "run_live",
    "scheme_order",
]


def routed_tables(config: RunConfig) -> tuple[str, ...]:
    """The tables the engine routes apart for ``config``: under ``engine.plp_units = per_table``
    the workload's tables (one that routes them apart, as the engine's registry says, in its
    order), else the one table ``keys`` (every table's rows of a unit owned together)."""
    if config.engine.plp_units == "per_table":
        own = workload(config.workload)
        if not own.routes_tables:
            able = ", ".join(name for name, w in workloads().items() if w.routes_tables)
            raise ValueError(f"engine.plp_units: per_table is {able}'s, not {config.workload}'s")
        return own.tables
    return ("keys",)


def scheme_order(n_sites: int, n_tables: int) -> np.ndarray:
    """The engine's unit number of each of the scheme's sub-partitions, tables one after the
    other (the engine's unit of (site, table, sub) is ``(site * n_tables + table) * 10 + sub``):
    ``owners[scheme_order(...)]`` is a scheme's owner array, and a scheme's owners ``o`` go
    back as ``target[scheme_order(...)] = o``."""
    site, sub = np.divmod(np.arange(n_sites * SUB_PARTITIONS), SUB_PARTITIONS)
    return np.concatenate([(site * n_tables + t) * SUB_PARTITIONS + sub for t in range(n_tables)]).astype(np.int64)


def engine_scheme(
    snapshot: dict[str, Any] | None, owners: Sequence[int], n_cores: int, tables: Sequence[str] = ("keys",)
) -> tuple[Scheme, WorkloadStats] | None:
    """The scheme the engine runs and the statistics of ``snapshot`` (a difference of two
    the run handle's ``snapshot``); None for no snapshot (an interval whose costs are unusable:
    islands.atrapos.cpu_share). ``owners`` is the handle's ``owners()`` (engine order); ``tables`` the
    tables the engine routes apart (:func:`routed_tables`): one scheme table each, every site's
    10 units, the snapshot's partition ``site * len(tables) + table`` its partition of that
    site. Raises ``ValueError`` when the owners do not fit the tables."""
    if snapshot is None:
        return None
    n_tables = len(tables)
    if n_tables == 0 or len(owners) % (n_tables * SUB_PARTITIONS):
        raise ValueError(f"owners: {len(owners)} units do not cut into {n_tables} table(s) of 10 per site")
    n_sites = len(owners) // (n_tables * SUB_PARTITIONS)
    k = SUB_PARTITIONS
    parts = [
        MonitoredPartition(tables[p % n_tables], p // n_tables * k, (p // n_tables + 1) * k, 0)
        for p in range(n_sites * n_tables)
    ]
    scheme, stats = from_monitor(snapshot, parts, n_cores)
    order = scheme_order(n_sites, n_tables)
    return scheme.with_owners(np.asarray(owners, dtype=np.int64)[order]), stats


def cpu_shares(cpu_ns: np.ndarray, wall_s: float) -> tuple[float, ...]:
    """Each worker's CPU time ``cpu_ns`` (ns, over ``wall_s`` seconds of wall time) as its share
    of that time, 0..1 (rounded to 0.001; a controller descheduled between reading the CPU
    clocks and its own clock may show a little over 1); NaN without wall time."""
    if not wall_s > 0:
        return tuple(float("nan") for _ in cpu_ns)
    return tuple(round(float(c) / 1e9 / wall_s, 3) for c in cpu_ns)


def _difference(now: dict[str, Any], before: dict[str, Any]) -> dict[str, Any]:
    return {k: np.asarray(now[k], dtype=np.int64) - np.asarray(before[k], dtype=np.int64) for k in now}


class LiveController(threading.Thread):
    """The controller thread of the run ``handle`` (:func:`islands.execution.in_process.start`):
    waits for its instance to attach, then runs intervals until it detaches (or :meth:`stop`).
    ``warmup_s`` is the run's warm-up (events count from the window's start); ``adaptive``
    False: events only. The run needs ``engine.plp_monitor``."""

    def __init__(
        self,
        handle: _core.RunningInstance,
        hardware: Hardware,
        adaptive: bool,
        events: Sequence[Event] = (),
        warmup_s: float = 0.0,
        loop: AdaptiveLoop | None = None,
        poll_s: float = 0.005,
        workload: str | None = None,
        tables: Sequence[str] = ("keys",),
    ) -> None:
        super().__init__(name="atrapos-controller", daemon=True)
        check_events(events, hardware.n_cores, workload)
        self.handle = handle
        self.hardware = hardware
        self.adaptive = adaptive
        self.events = sorted(events, key=lambda e: e.at_s)
        self.warmup_s = float(warmup_s)
        self.loop = loop or AdaptiveLoop()
        self.poll_s = float(poll_s)
        self.tables = tuple(tables)
        self.log = LiveLog()
        self.error: BaseException | None = None
        self._halt = threading.Event()

    def stop(self) -> None:
        """Ends the loop at its next poll."""
        self._halt.set()

    def run(self) -> None:
        try:
            self._run()
        except BaseException as e:  # reported by whoever joins (run_live)
            self.error = e

    def _run(self) -> None:
        handle = self.handle
        if not handle.wait_attached(timeout_s=float("inf")) or self._halt.is_set():
            return  # the run ended before its instance attached
        t0 = time.monotonic() + self.warmup_s  # the window's start
        hardware = self.hardware
        pending = list(self.events)
        commits = handle.commits()
        snapshot = handle.snapshot()
        cpu = handle.worker_cpu_ns()
        cpu_at = time.monotonic()  # when `cpu` was read: the CPU shares' wall time runs from here
        if commits is None or snapshot is None or cpu is None:
            raise RuntimeError("the ATraPos controller needs engine.plp_monitor = true")
        start = time.monotonic()
        while handle.attached and not self._halt.is_set():
            end = start + self.loop.controller.interval_s
            while time.monotonic() < end and handle.attached and not self._halt.is_set():
                now = time.monotonic() - t0
                while pending and pending[0].at_s <= now:
                    event = pending.pop(0)
                    hardware = self._fire(event, hardware, now)
                    if self.adaptive and event.kind not in CHANGE_KINDS:
                        # a core change: evaluate one shortest interval later, not up to 8 s
                        end = min(end, time.monotonic() + self.loop.controller.min_interval_s)
                self._halt.wait(self.poll_s)
            now_commits, now_snapshot, now_cpu = handle.commits(), handle.snapshot(), handle.worker_cpu_ns()
            now_cpu_at = time.monotonic()
            if now_commits is None or now_snapshot is None or now_cpu is None:
                return  # detached meanwhile
            length = time.monotonic() - start
            at = time.monotonic() - t0
            tps = (now_commits - commits) / length
            interval = _difference(now_snapshot, snapshot)
            cpu_ns = np.asarray(now_cpu, dtype=np.float64) - np.asarray(cpu, dtype=np.float64)
            self.log.cpu_shares.append(cpu_shares(cpu_ns, now_cpu_at - cpu_at))
            commits, snapshot, cpu, cpu_at, start = now_commits, now_snapshot, now_cpu, now_cpu_at, time.monotonic()
            if not self.adaptive:
                self.log.intervals.append((at, length, tps, False, False, length))
                continue
            owners = handle.owners()
            if not owners:
                self.log.cpu_shares.pop()  # no interval recorded for them
                return
            # the costs as if every worker had had the same CPU time (None: one had almost none)
            fair = equal_cpu_costs(interval, owners, cpu_ns, hardware.available)
            decision = self.loop.end_of_interval(
                tps, partial(engine_scheme, fair, owners, hardware.n_cores, self.tables), hardware
            )
            # (end, length, throughput, model evaluated, re-partitioned, next interval's length):
            # islands.atrapos.controller.Check, drawn under 002 Fig 13
            self.log.intervals.append(
                (at, length, tps, decision.evaluated, decision.repartition, self.loop.controller.interval_s)
            )
            if decision.repartition and decision.plan is not None:
                target_array = np.empty(len(owners), dtype=np.int64)  # back to the engine's order
                target_array[scheme_order(len(owners) // (len(self.tables) * SUB_PARTITIONS), len(self.tables))] = (
                    decision.plan.scheme.owners()
                )
                target = [int(c) for c in target_array]
                done = handle.apply(target)
                if done is not None:
                    self.log.repartitions.append(
                        {
                            "at_s": time.monotonic() - t0,
                            "units_moved": done["units_moved"],
                            "pause_ns": done["pause_ns"],
                            "actions": len(decision.actions),
                            "owners": target,
                            # the drain watchdog's dump (exec/plp/plp_drain_watch.hpp), empty normally
                            "stall": done.get("stall", ""),
                        }
                    )
                start = time.monotonic()  # the next interval starts after the hand-over

    def _fire(self, event: Event, hardware: Hardware, now: float) -> Hardware:
        if event.kind in CHANGE_KINDS:  # the workload's draw: the controller is not told
            self.handle.change(**dict(event.settings))
            self.log.events.append((now, event.kind, event.what()))
            return hardware
        for w in event.workers:
            self.handle.park(w, event.kind == "park")
        self.log.events.append((now, event.kind, event.workers))
        hardware = hardware.without(event.workers) if event.kind == "park" else hardware.with_cores(event.workers)
        if self.adaptive:
            self.loop.hardware_changed()
        return hardware


def run_live(
    config: RunConfig,
    adaptive: bool,
    events: Sequence[Event] = (),
    hardware: Hardware | None = None,
    loop: AdaptiveLoop | None = None,
    topology: Topology | None = None,
) -> tuple[RunResult, LiveLog]:
    """Runs ``config`` (engine.execution plp with engine.plp_monitor) in this process with a
    :class:`LiveController` beside it; ``hardware`` defaults to one virtual socket per worker.
    ``topology`` is the machine's the run records (default: read). Raises ``ValueError``
    naming a setting the controller cannot work with, or what the controller raised."""
    from islands.execution.in_process import start

    if config.engine.execution != "plp":
        raise ValueError(f"engine.execution: the ATraPos controller adapts plp, not {config.engine.execution}")
    if not config.engine.plp_monitor:
        raise ValueError("engine.plp_monitor: the ATraPos controller reads the monitor; set it to true")
    if config.engine.plp_workers_per_cpu != 1:
        raise ValueError(
            "engine.plp_workers_per_cpu: the ATraPos controller sees one worker per core, "
            f"not {config.engine.plp_workers_per_cpu}"
        )
    n = len(config.driver.cpus)
    hardware = hardware or Hardware.from_sockets([1] * n)
    if hardware.n_cores != n:
        raise ValueError(f"hardware: {hardware.n_cores} cores for {n} workers")
    check_events(events, n, config.workload)
    check_changes(config, events)  # the engine's parsers, before anything runs
    running = start(config, topology)
    controller = LiveController(
        running.handle,
        hardware,
        adaptive,
        events,
        config.driver.warmup_s,
        loop,
        workload=config.workload,
        tables=routed_tables(config),
    )
    controller.start()
    try:
        result = running.result()
    finally:
        controller.stop()
        controller.join()
    if controller.error is not None:
        raise controller.error
    return result, controller.log
