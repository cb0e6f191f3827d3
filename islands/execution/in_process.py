"""One engine instance, end to end: validate, run on pinned workers in this process, return
a RunResult (the same result type as a deployment's: a single instance is a deployment of one)."""

from __future__ import annotations

from islands import _core
from islands.execution.memory_admission import LIVE_SYSFS, check_load_fits
from islands.execution.run_result import (
    NO_TRANSPORT,
    Latency,
    RunResult,
    WorkerResult,
    abort_rate,
    collect,
    commits_by_type,
    new_order_note,
    new_order_rate,
    profile_lines,
)
from islands.execution.settings import ProfileConfig, RunConfig
from islands.machine.placement import Deployment
from islands.machine.topology import Topology, format_cpulist, read_topology

__all__ = [
    "Latency",
    "RunResult",
    "WorkerResult",
    "abort_rate",
    "check_cpus",
    "commits_by_type",
    "new_order_note",
    "new_order_rate",
    "profile_events",
    "profile_lines",
    "run",
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


def run(config: RunConfig, topology: Topology | None = None) -> RunResult:
    """Runs one engine instance as configured and returns its result.

    The config is validated before any thread starts; the GIL is released for the whole run.
    """
    topology = topology or read_topology()
    check_cpus(config.driver.cpus, topology)
    core_config = config.to_core(events=profile_events(config.profile))
    if topology.source == LIVE_SYSFS:
        check_load_fits(config, len(config.driver.cpus))
    if config.profile.modules:
        from islands.measure.code_modules import sample_this_process

        with sample_this_process(fallback=config) as sampling:
            stats = _core.run(core_config)
        modules = sampling.profile()
    else:
        stats = _core.run(core_config)
        modules = None
    deployment = Deployment(
        label="1 instance", instances=(tuple(config.driver.cpus),), placement="explicit", pinned=config.driver.pin
    )
    result = collect(config, deployment, NO_TRANSPORT, topology, [{"stats": stats}])
    if config.profile.simulate:  # cachegrind's single-threaded copy, after this run's window
        from islands.measure.cachegrind import simulated_profile

        result.profile["simulated"] = simulated_profile(config)
    if modules is not None:
        result.profile["modules"] = modules.to_dict()
        if modules.reason:
            result.metadata.setdefault("counters_missing", {})["modules"] = modules.reason
    return result
