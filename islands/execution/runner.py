"""The one way a run config becomes a result row: in this process (one instance, no log) or as
a deployment of instance processes (several instances, or any run with a log, which gets a
fresh log directory made for it and removed after it)."""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from typing import TYPE_CHECKING, Any

from islands.execution.in_process import run
from islands.execution.launcher import run_deployment

if TYPE_CHECKING:
    from islands.execution.settings import RunConfig
    from islands.machine.placement import Deployment
    from islands.machine.topology import Topology

__all__ = ["run_config"]


def run_config(
    deployment: Deployment, config: RunConfig, transport: str, topology: Topology | None = None
) -> dict[str, Any]:
    """Runs ``config`` on ``deployment`` and returns its row: one unlogged instance in this
    process through :func:`islands.run` on the instance's cpus (pinned as the deployment says);
    anything else through :func:`islands.execution.launcher.run_deployment` with ``transport``,
    a logged run in a fresh log directory (:func:`_run_logged`)."""
    if config.log.mode != "off":
        return _run_logged(deployment, config, transport, topology)
    if deployment.n_instances == 1:
        return run(config, topology).to_dict()
    return run_deployment(deployment, config, transport=transport, topology=topology).to_dict()


def _run_logged(deployment: Deployment, config: RunConfig, transport: str, topology: Topology | None) -> dict[str, Any]:
    """A run with a log (deployment runs only, one instance included) in a fresh directory
    under the configured one, removed afterwards (each run starts a new log)."""
    directory = tempfile.mkdtemp(prefix="islands-log-", dir=config.log.directory)
    try:
        fresh = dataclasses.replace(config, log=dataclasses.replace(config.log, directory=directory))
        result = run_deployment(deployment, fresh, transport=transport, topology=topology)
        # The row keeps the point's config (the directory the run's own was made in), so that
        # repetitions of a point share its config hash.
        return dataclasses.replace(result, config=config, config_hash=config.config_hash()).to_dict()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
