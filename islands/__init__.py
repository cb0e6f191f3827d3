"""islands: how should an OLTP engine be deployed on this hardware, for this workload?

A real in-memory transactional engine (C++, ``islands._core``) run on pinned workers, driven
and measured from Python. The public API:

>>> import islands
>>> cfg = islands.RunConfig(driver=islands.DriverConfig(cpus=(0,), duration_s=1))
>>> result = islands.run(cfg)            # doctest: +SKIP
>>> print(result.summary())              # doctest: +SKIP
"""

from islands.config import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig, TpcbConfig, TpccConfig
from islands.launch import DeploymentResult, InstanceFailed, run_deployment
from islands.metadata import collect_metadata
from islands.placement import Deployment, expand_relative, plan_deployment, thread_placement
from islands.run import Latency, RunResult, WorkerResult, run
from islands.sweep import Sweep, load_spec
from islands.topology import Topology, TopologyError, parse_cpulist, read_topology

__all__ = [
    "Deployment",
    "DeploymentResult",
    "DriverConfig",
    "EngineConfig",
    "InstanceFailed",
    "Latency",
    "MicroConfig",
    "TatpConfig",
    "TpcbConfig",
    "TpccConfig",
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
    "run_deployment",
    "thread_placement",
]
