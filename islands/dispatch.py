"""Where one point of a sweep runs: in this process (one instance, no log) or as a deployment
of instance processes (several instances, or any run with a log, which gets a fresh log
directory made for it and removed after it)."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from islands.sweep import Point
    from islands.topology import Topology

__all__ = ["default_log_root", "run_point"]


def run_point(point: Point, topology: Topology | None = None) -> dict[str, Any]:
    """The default runner: one instance runs in this process through :func:`islands.run`
    on the instance's cpus (pinned as the deployment says); several instances run through
    ``islands.launch.run_deployment(deployment, config, transport=...)``. A point with a
    schedule or grid.adaptive runs in this process beside the ATraPos controller
    (:func:`islands.atrapos.live.run_live`); its row adds the controller's log as ``atrapos``.
    A point with a [probe] runs in this process with the probe beside it
    (:meth:`islands.probe.Probe.run`); its row adds the probe's numbers as ``probe``."""
    if point.live is not None:
        return _run_live(point, topology)
    if point.probe is not None:  # a measurement beside one PLP instance here (islands.probe)
        return point.probe.run(point.config, point.repetition, topology)
    if point.config.log.mode != "off":
        return _run_logged(point, topology)
    if point.deployment.n_instances == 1:
        from islands.run import run

        return run(point.config, topology).to_dict()
    try:
        from islands.launch import run_deployment
    except ImportError as e:
        raise RuntimeError(f"multi-instance deployments need islands.launch ({point.deployment.label}: {e})") from None
    return run_deployment(point.deployment, point.config, transport=point.transport, topology=topology).to_dict()


def _run_live(point: Point, topology: Topology | None) -> dict[str, Any]:
    """One PLP instance with the controller beside it: adaptive or static, the point's events,
    the paper's interval logic from the spec's first interval up to 8 times it."""
    from islands.atrapos.adaptive_loop import AdaptiveLoop
    from islands.atrapos.controller import IntervalController
    from islands.atrapos.live import run_live

    live = point.live
    assert live is not None
    loop = AdaptiveLoop(IntervalController(min_interval_s=live.interval_s, max_interval_s=8 * live.interval_s))
    result, log = run_live(point.config, live.adaptive, live.schedule, loop=loop, topology=topology)
    return {**result.to_dict(), "atrapos": live.record(log)}


def _run_logged(point: Point, topology: Topology | None) -> dict[str, Any]:
    """A run with a log (deployment runs only, one instance included) in a fresh directory
    under the configured one, removed afterwards (each run starts a new log)."""
    from islands.launch import run_deployment

    directory = tempfile.mkdtemp(prefix="islands-log-", dir=point.config.log.directory)
    try:
        config = dataclasses.replace(point.config, log=dataclasses.replace(point.config.log, directory=directory))
        result = run_deployment(point.deployment, config, transport=point.transport, topology=topology)
        # The row keeps the point's config (the directory the run's own was made in), so that
        # repetitions of a point share its config hash.
        return dataclasses.replace(result, config=point.config, config_hash=point.config.config_hash()).to_dict()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def default_log_root() -> str:
    """Where a sweep's runs make their log directories unless [log] names one: tmpfs
    (/dev/shm) where there is one, else the temp directory."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
