"""Hardware microbenchmarks (paper 000, Sec 3-4; paper 001, Table 1): small programs that show
a machine's islands before any database runs.

- :mod:`islands.bench.ipc`: messaging mechanisms between two pinned processes (000 Fig 2);
- :mod:`islands.bench.counters`: lock-protected counters by lock kind, number of counters and
  thread placement (000 Fig 5 and 7, 001 Table 1);
- :mod:`islands.bench.placement_bench`: a short OLTP run with its workers placed spread,
  grouped, mixed or by the OS (000 Fig 6).

``python -m islands bench ipc|counters|placement`` runs them, stores the rows and draws the
figures; from Python, :mod:`islands.bench.suite` runs and stores, and
:func:`islands.plots.bench_figures.draw_bench` draws.
"""

from islands.bench.counters import CounterBenchConfig, counter_plan, run_counters
from islands.bench.ipc import CpuPair, IpcBenchConfig, cpu_relation, default_cpu_pairs, run_ipc
from islands.bench.placement_bench import PlacementBenchConfig, placement_run_config, run_placement

__all__ = [
    "CounterBenchConfig",
    "CpuPair",
    "IpcBenchConfig",
    "PlacementBenchConfig",
    "counter_plan",
    "cpu_relation",
    "default_cpu_pairs",
    "placement_run_config",
    "run_counters",
    "run_ipc",
    "run_placement",
]
