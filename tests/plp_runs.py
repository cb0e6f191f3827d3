"""Running a PLP instance on more workers than this machine has cores (shared by PLP tests)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import islands
from islands.execution.launcher import run_deployment
from islands.machine.placement import Deployment

#: A 16-cpu topology fixture: unpinned workers are labelled from it.
MANY_CPUS = islands.read_topology(Path(__file__).parent / "fixtures" / "sysfs" / "xeon-e5-2640v2-2x8")


def run_on(config, workers):
    """2 workers: the run pinned on this machine's cores; more: unpinned on its cores (labelled
    from a 16-cpu fixture), so that the OS preempts them anywhere."""
    if workers == 2:
        return islands.run(config)
    cpus = tuple(MANY_CPUS.cpus[:workers])
    config = dataclasses.replace(config, driver=dataclasses.replace(config.driver, cpus=cpus, pin=False))
    deployment = Deployment(label="1ISL", instances=(cpus,), placement="os", pinned=False)
    return run_deployment(deployment, config, transport="none", topology=MANY_CPUS)
