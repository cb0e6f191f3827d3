"""islands: how should an OLTP engine be deployed on this hardware, for this workload?

A real in-memory transactional engine (C++, ``islands._core``) run on pinned workers, driven
and measured from Python. The public API:

>>> import islands
>>> cfg = islands.RunConfig(driver=islands.DriverConfig(cpus=(0,), duration_s=1))
>>> result = islands.run(cfg)            # doctest: +SKIP
>>> print(result.summary())              # doctest: +SKIP

``islands.start(cfg)`` returns at once with the run in progress; its ``handle`` controls a PLP
instance while it runs (re-partition, monitor, park a worker, change the workload) and
``.result()`` waits for the end; ``islands.run_beside(cfg, fn)`` calls ``fn(handle)`` on a
thread next to the run.

The names below load on first use (PEP 562): ``import islands`` alone starts neither the
compiled engine nor pandas, so the pure layers (topology, placement, results, config) stay
cheap to import, and so does the CLI's ``--help``.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from islands._core import ConfigError
    from islands.analysis.store import ResultStore
    from islands.config.settings import (
        DriverConfig,
        EngineConfig,
        LogConfig,
        MicroConfig,
        ProfileConfig,
        RunConfig,
        TatpConfig,
        TpcbConfig,
        TpccConfig,
    )
    from islands.execution.in_process import Latency, RunResult, WorkerResult, run, run_beside, start
    from islands.execution.launcher import DeploymentResult, InstanceFailed, run_deployment
    from islands.experiments.sweep import Sweep, load_spec
    from islands.machine.placement import Deployment, expand_relative, plan_deployment, thread_placement
    from islands.machine.topology import Topology, TopologyError, parse_cpulist, read_topology
    from islands.measure.host_metadata import collect_metadata

#: Each public name and the module that defines it.
_EXPORTS = {
    "ConfigError": "islands._core",
    **dict.fromkeys(
        (
            "DriverConfig",
            "EngineConfig",
            "LogConfig",
            "MicroConfig",
            "ProfileConfig",
            "RunConfig",
            "TatpConfig",
            "TpcbConfig",
            "TpccConfig",
        ),
        "islands.config.settings",
    ),
    **dict.fromkeys(("DeploymentResult", "InstanceFailed", "run_deployment"), "islands.execution.launcher"),
    "collect_metadata": "islands.measure.host_metadata",
    **dict.fromkeys(
        ("Deployment", "expand_relative", "plan_deployment", "thread_placement"), "islands.machine.placement"
    ),
    "ResultStore": "islands.analysis.store",
    **dict.fromkeys(
        ("Latency", "RunResult", "WorkerResult", "run", "run_beside", "start"), "islands.execution.in_process"
    ),
    **dict.fromkeys(("Sweep", "load_spec"), "islands.experiments.sweep"),
    **dict.fromkeys(("Topology", "TopologyError", "parse_cpulist", "read_topology"), "islands.machine.topology"),
}

__all__ = [
    "ConfigError",
    "Deployment",
    "DeploymentResult",
    "DriverConfig",
    "EngineConfig",
    "InstanceFailed",
    "Latency",
    "LogConfig",
    "MicroConfig",
    "ProfileConfig",
    "TatpConfig",
    "TpcbConfig",
    "TpccConfig",
    "ResultStore",
    "RunConfig",
    "RunResult",
    "Sweep",
    "Topology",
    "TopologyError",
    "WorkerResult",
    "collect_metadata",
    "expand_relative",
    "load_spec",
    "parse_cpulist",
    "plan_deployment",
    "read_topology",
    "run",
    "run_beside",
    "run_deployment",
    "start",
    "thread_placement",
]


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use; or a submodule (``islands.experiments``)."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
