"""One engine instance, end to end: validate, run on pinned workers in this process, return
a RunResult (the same result type as a deployment's: a single instance is a deployment of one)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from islands import _core
from islands.config.settings import ProfileConfig, RunConfig
from islands.execution.log_files import prepare_log_directory
from islands.execution.memory_admission import LIVE_SYSFS, check_load_fits
from islands.execution.run_result import (
    NO_TRANSPORT,
    Latency,
    RunResult,
    WorkerResult,
    abort_rate,
    collect,
    new_order_note,
    new_order_rate,
    profile_lines,
)
from islands.machine.placement import Deployment
from islands.machine.topology import Topology, format_cpulist, read_topology

if TYPE_CHECKING:
    from islands.measure.code_modules import sample_this_process

__all__ = [
    "InProcessRun",
    "Latency",
    "RunResult",
    "WorkerResult",
    "abort_rate",
    "check_cpus",
    "new_order_note",
    "new_order_rate",
    "profile_events",
    "profile_lines",
    "run",
    "run_beside",
    "start",
]


def check_cpus(cpus: tuple[int, ...], topology: Topology) -> None:
    """Raises ConfigError (a ValueError) naming a CPU that this machine does not have online."""
    online = set(topology.cpus)
    for cpu in cpus:
        if cpu not in online:
            raise _core.ConfigError(
                "driver.cpus", f"CPU {cpu} does not exist or is offline (online: {format_cpulist(topology.cpus)})"
            )


def profile_events(profile: ProfileConfig) -> list[_core.PerfEventSpec]:
    """The counters a run with this profile opens: its event sets resolved on this machine
    (what cannot be counted is left out; :func:`islands.measure.pmu.resolve_here` says why). Raises
    ``ValueError`` for an unknown event set."""
    if not profile.counters:
        return []
    from islands.measure.pmu import resolve_here

    return [c.to_core() for c in resolve_here(profile.counters).counters]


class InProcessRun:
    """One engine instance running in this process (:func:`start`): ``handle`` is the engine's
    :class:`islands._core.RunningInstance`, whose controls (a PLP instance's routing, monitor,
    parking and workload changes; ``wait_attached``) act on this run while it goes on, from any
    thread; :meth:`result` waits for its end."""

    def __init__(self, config: RunConfig, topology: Topology) -> None:
        self.config, self.topology = config, topology
        core_config = config.to_core(events=profile_events(config.profile))
        if topology.source == LIVE_SYSFS:  # the load must fit this machine's memory
            check_load_fits(config, len(config.driver.cpus), instances=1)
        if config.log.mode != "off":
            prepare_log_directory(config.log.directory, [len(config.driver.cpus)], recover=False)
        self._sampling: sample_this_process | None = None
        if config.profile.modules:
            from islands.measure.code_modules import sample_this_process

            self._sampling = sample_this_process(fallback=config)
            self._sampler = self._sampling.__enter__()
        try:
            self.handle = _core.start(core_config)
        except BaseException:
            if self._sampling is not None:
                self._sampling.__exit__(None, None, None)
            raise

    def result(self) -> RunResult:
        """Waits for the run's end and returns its result (raises what the run raised)."""
        try:
            stats = self.handle.join()
        finally:
            if self._sampling is not None:
                self._sampling.__exit__(None, None, None)
        config = self.config
        deployment = Deployment(
            label="1 instance", instances=(tuple(config.driver.cpus),), placement="explicit", pinned=config.driver.pin
        )
        result = collect(config, deployment, NO_TRANSPORT, self.topology, [{"stats": stats}])
        if config.profile.simulate:  # cachegrind's single-threaded copy, after this run's window
            from islands.measure.cachegrind import simulated_profile

            result.profile["simulated"] = simulated_profile(config)
        if self._sampling is not None:
            modules = self._sampler.profile()
            result.profile["modules"] = modules.to_dict()
            if modules.reason:
                result.metadata.setdefault("counters_missing", {})["modules"] = modules.reason
        return result


def start(config: RunConfig, topology: Topology | None = None) -> InProcessRun:
    """Starts one engine instance as configured, in this process, and returns at once; the
    config is validated (``ConfigError``) before any thread starts and the engine runs without
    the GIL. ``start(config).result()`` is :func:`run`."""
    topology = topology or read_topology()
    check_cpus(config.driver.cpus, topology)
    return InProcessRun(config, topology)


def run_beside(
    config: RunConfig, beside: Callable[[_core.RunningInstance], object], topology: Topology | None = None
) -> RunResult:
    """Runs ``config`` in this process with ``beside(handle)`` on a thread next to it (a
    controller, a benchmark's actions, a test's checks: see :class:`InProcessRun`); returns the
    run's result once both are done, or raises what ``beside`` raised."""
    running = start(config, topology)
    failed: list[BaseException] = []

    def call() -> None:
        try:
            beside(running.handle)
        except BaseException as e:  # raised here once the run is over
            failed.append(e)

    thread = threading.Thread(target=call, name="beside-the-run", daemon=True)
    thread.start()
    try:
        result = running.result()
    finally:
        thread.join()
    if failed:
        raise failed[0]
    return result


def run(config: RunConfig, topology: Topology | None = None) -> RunResult:
    """Runs one engine instance as configured and returns its result.

    The config is validated before any thread starts; the GIL is released for the whole run.
    """
    return start(config, topology).result()
