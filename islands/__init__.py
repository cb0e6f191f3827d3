"""islands: how should an OLTP engine be deployed on this hardware, for this workload?

A real in-memory transactional engine (C++, ``islands._core``) run on pinned workers, driven
and measured from Python. The public API:

>>> import islands
>>> cfg = islands.RunConfig(driver=islands.DriverConfig(cpus=(0,), duration_s=1))
>>> result = islands.run(cfg)            # doctest: +SKIP
>>> print(result.summary())              # doctest: +SKIP
"""

from islands.config import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.metadata import collect_metadata
from islands.run import Latency, RunResult, WorkerResult, run
from islands.topology import Topology, TopologyError, parse_cpulist, read_topology

__all__ = [
    "DriverConfig",
    "EngineConfig",
    "Latency",
    "MicroConfig",
    "RunConfig",
    "RunResult",
    "Topology",
    "TopologyError",
    "WorkerResult",
    "collect_metadata",
    "parse_cpulist",
    "read_topology",
    "run",
]
