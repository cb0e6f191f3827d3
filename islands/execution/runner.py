"""The one way a run request becomes a result: :func:`plan` decides everything once, :func:`execute`
runs what was decided.

Every caller builds a request or a plan: ``islands run`` (:func:`plan` from its options), a sweep's
point (:func:`plan_point`, its deployment already planned by the sweep), benchmarks and probes. A
plan fixes:

- the deployment, planned on a topology (this machine's, a virtual one, or another machine's sysfs
  tree) and, where that is another machine (``oversubscribe``), how its workers are packed onto this
  machine's CPUs (:mod:`islands.machine.oversubscription`): a *functional* run;
- the engine's defaults that depend on the deployment (:func:`~islands.config.settings.default_cc`,
  :func:`~islands.config.settings.default_lock_policy`), where the request left them ``"auto"``;
- the process shape: one instance with local memory runs in this process
  (:func:`islands.execution.in_process.run`), logged or not; anything else is a deployment of
  instance processes (:func:`islands.execution.launcher.run_deployment`);
- the log directory: the one the user named (kept after the run), or a fresh one made under
  ``config.log.directory`` for this run alone and removed after it; the row keeps the request's
  config either way, so that repetitions of one point share a config hash.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from islands.config.settings import RunConfig, default_cc, default_lock_policy, default_log_root
from islands.execution.in_process import check_cpus
from islands.execution.stop_signals import signals_held
from islands.machine.memory_placement import MEMORY_POLICIES
from islands.machine.oversubscription import Packing, pack
from islands.machine.placement import Deployment, plan_deployment
from islands.machine.topology import Topology, read_topology

if TYPE_CHECKING:
    from islands.execution.run_result import RunResult

__all__ = ["AUTO", "RunPlan", "execute", "plan", "plan_point", "run_config"]

#: An engine setting left for the plan to decide from the deployment (``cc``, ``lock_policy``).
AUTO = "auto"
#: The transport a deployment of several instances uses unless told.
DEFAULT_TRANSPORT = "unix"
#: How a single instance run in this process reports its transport.
NO_TRANSPORT = "none"


@dataclass(frozen=True)
class RunPlan:
    """Everything decided about one run before it starts.

    ``deployment`` is planned on ``topology``; ``config`` is resolved (its CPUs are the
    deployment's, its ``cc`` and ``lock_policy`` decided); ``packing`` is set when the deployment
    was planned on another machine and runs packed onto this one's CPUs; ``keep_log`` says that
    ``config.log.directory`` is the run's own log directory, kept after it (else the run logs into a
    fresh directory made under it and removed after it)."""

    deployment: Deployment
    config: RunConfig
    transport: str
    topology: Topology
    memory: str = "local"
    packing: Packing | None = None
    keep_log: bool = False

    @property
    def in_process(self) -> bool:
        """Whether the run is one instance in this process (local memory: another policy binds
        an instance process's memory)."""
        return self.deployment.n_instances == 1 and self.memory == "local"

    @property
    def functional(self) -> bool:
        """Whether the run is functional only (planned on another machine, run packed here): its
        correctness checks and counts mean something, its throughput does not."""
        return self.packing is not None

    def instance_cpus(self) -> tuple[tuple[int, ...], ...]:
        """The CPUs of this machine each instance's workers are dealt."""
        return self.packing.instances if self.packing is not None else self.deployment.instances

    def describe(self) -> str:
        """One line: the deployment and, for a functional run, where it really ran."""
        text = self.deployment.describe()
        return text if self.packing is None else f"{text}; FUNCTIONAL RUN, {self.packing.describe()}"


def _resolve_engine(config: RunConfig, deployment: Deployment) -> RunConfig:
    """``config`` with its ``auto`` engine settings decided by the deployment's shape."""
    engine = config.engine
    changes: dict[str, Any] = {}
    if engine.cc == AUTO:
        changes["cc"] = default_cc([len(c) for c in deployment.instances], engine.execution)
    if engine.lock_policy == AUTO:
        changes["lock_policy"] = default_lock_policy(deployment.n_instances)
    return dataclasses.replace(config, engine=dataclasses.replace(engine, **changes)) if changes else config


def plan(
    config: RunConfig,
    deployment: int | str | Sequence[Sequence[int]] = "1",
    *,
    topology: Topology | None = None,
    placement: str = "islands",
    cpus: Sequence[int] | None = None,
    pin: bool = True,
    transport: str | None = None,
    memory: str = "local",
    oversubscribe: bool = False,
    host: Topology | None = None,
    log_directory: str | None = None,
) -> RunPlan:
    """Decides one run: ``deployment`` (a spec of :func:`~islands.machine.placement.plan_deployment`)
    over ``cpus`` (default: every core of ``topology``; an explicit deployment lists its own) of
    ``topology`` (default: this machine).

    ``oversubscribe``: ``topology`` is another machine's (a sysfs tree), and the workers run packed
    onto ``host``'s online CPUs (default: this machine), dealt round-robin, each instance process
    bound to its CPUs (``pin``) or left to the scheduler.
    ``log_directory``: with ``config.log.mode`` on, log there and keep it (default: a fresh
    directory under ``config.log.directory``, or under /dev/shm, removed after the run). Raises
    ``ValueError`` naming what does not fit."""
    topology = topology or read_topology()
    if memory not in MEMORY_POLICIES:
        raise ValueError(f"memory: {memory!r} is not one of {', '.join(MEMORY_POLICIES)}")
    if cpus is not None:
        check_cpus(tuple(cpus), topology)
    dep = plan_deployment(topology, deployment, placement=placement, cpus=None if cpus is None else tuple(cpus))
    if not pin:
        dep = dataclasses.replace(dep, pinned=False)
    packing = None
    if oversubscribe:
        host = host or read_topology()
        if memory != "local":
            raise ValueError(f"--memory {memory}: an oversubscribed run binds no memory (its nodes are the plan's)")
        # One instance runs in this process, whose CPUs are not its to bind: it runs unpinned.
        packing = pack(dep, host.cpus, pinned=pin and dep.n_instances > 1, planned_on=topology_name(topology))
    else:
        check_cpus(dep.cpus, topology)
    if dep.n_instances == 1 and transport is not None:
        raise ValueError(f"--transport: only a deployment of several instances takes it; {dep.label} is one instance")
    config = _resolve_engine(config, dep)
    config = dataclasses.replace(config, driver=dataclasses.replace(config.driver, cpus=dep.cpus, pin=dep.pinned))
    keep = False
    if log_directory is not None:
        if config.log.mode == "off":
            raise ValueError("--log-dir: the run does not log (add --log)")
        config = dataclasses.replace(config, log=dataclasses.replace(config.log, directory=log_directory))
        keep = True
    transport = NO_TRANSPORT if dep.n_instances == 1 else transport or DEFAULT_TRANSPORT
    return RunPlan(dep, config, transport, topology, memory=memory, packing=packing, keep_log=keep)


def topology_name(topology: Topology) -> str:
    """A machine's short name: the sysfs tree's directory name, or "this machine"."""
    source = str(topology.source)
    return Path(source).name if source not in ("", "/sys", "<memory>") else "this machine"


def plan_point(
    deployment: Deployment,
    config: RunConfig,
    transport: str,
    topology: Topology | None = None,
    packing: Packing | None = None,
) -> RunPlan:
    """The plan of a sweep's point, whose deployment and config the sweep resolved already
    (:mod:`islands.experiments.sweep`): a logged point logs into a fresh directory under its
    ``[log]`` directory."""
    topology = topology or read_topology()
    transport = NO_TRANSPORT if deployment.n_instances == 1 else transport
    return RunPlan(deployment, _resolve_engine(config, deployment), transport, topology, packing=packing)


def execute(plan: RunPlan) -> RunResult:
    """Runs ``plan`` and returns its result (the plan's config in it, whatever directory the run
    logged into). Raises what the run raised; a fresh log directory is removed either way."""
    config = plan.config
    directory = None
    try:
        if config.log.mode != "off" and not plan.keep_log:
            root = config.log.directory or default_log_root()
            # The pid in the name lets a later start-up remove it at once if this process is
            # killed (islands.execution.stale_files); a stop signal waits until it is named.
            with signals_held():
                directory = tempfile.mkdtemp(prefix=f"islands-log-{os.getpid()}-", dir=root)
            config = dataclasses.replace(config, log=dataclasses.replace(config.log, directory=directory))
        result = _run(plan, config)
    finally:
        if directory is not None:
            shutil.rmtree(directory, ignore_errors=True)
    if directory is not None:
        result = dataclasses.replace(result, config=plan.config, config_hash=plan.config.config_hash())
    return result


def _run(plan: RunPlan, config: RunConfig) -> RunResult:
    if plan.in_process:
        from islands.execution.in_process import run

        if plan.packing is None:
            result = run(config, plan.topology)
        else:
            # Packed in this process: the workers keep the planned CPU ids, unpinned, on this
            # process's CPUs; the load must fit this machine's memory.
            from islands.execution.memory_admission import check_load_fits

            check_load_fits(config, plan.deployment.n_cpus, instances=plan.deployment.n_instances)
            unpinned = dataclasses.replace(config, driver=dataclasses.replace(config.driver, pin=False))
            result = _functional(dataclasses.replace(run(unpinned, plan.topology), deployment=plan.deployment), plan)
        return dataclasses.replace(result, config=config, config_hash=config.config_hash())
    from islands.execution.launcher import run_deployment

    result = run_deployment(
        plan.deployment,
        config,
        transport=plan.transport,
        topology=plan.topology,
        memory=plan.memory,
        packing=plan.packing,
    )
    return _functional(result, plan) if plan.packing is not None else result


def _functional(result: RunResult, plan: RunPlan) -> RunResult:
    """Marks a result functional: where it ran, and a warning that its throughput is not the planned machine's."""
    assert plan.packing is not None
    packing = plan.packing
    return dataclasses.replace(
        result,
        oversubscription=packing.to_dict(),
        warnings=[
            f"functional run: {packing.describe()}; its throughput says nothing about {packing.planned_on}",
            *result.warnings,
        ],
    )


def run_config(
    deployment: Deployment,
    config: RunConfig,
    transport: str,
    topology: Topology | None = None,
    oversubscribe: bool = False,
) -> dict[str, Any]:
    """A sweep point's row: :func:`execute` of :func:`plan_point`; ``oversubscribe``: the deployment
    was planned on ``topology``, another machine's, and runs packed onto this one's CPUs."""
    packing = None
    if oversubscribe:
        if topology is None:
            raise ValueError("oversubscribe: needs the topology the deployment was planned on")
        several = deployment.n_instances > 1
        packing = pack(deployment, read_topology().cpus, deployment.pinned and several, topology_name(topology))
    return execute(plan_point(deployment, config, transport, topology, packing)).to_dict()
