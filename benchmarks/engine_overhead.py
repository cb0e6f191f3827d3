"""Engine throughput per core and its overhead factor against a bare probe loop.

Prints read-10 and update-10 rows throughput per core for a single-threaded `none` instance
and a 2-thread `2pl` instance, hash and B+tree, on cache-resident data (10,000 rows per site)
and memory-resident data (1,000,000 rows of 112 bytes per site), each beside a bare C++ loop
doing the same probes and row accesses with no transaction, lock or statistic around them
(same table, index, key choice and prefetch setting; one thread). Overhead factor = bare /
engine per core. A benchmark, not a test: it prints, it asserts nothing.

    python benchmarks/engine_overhead.py [--duration S] [--quick]
"""

from __future__ import annotations

import argparse
import dataclasses

from _runner import Runner
from islands import _core
from islands.analysis.verdicts import ratio_label
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.execution.in_process import run
from islands.machine.topology import read_topology

DATASETS = {
    "cache-resident": {"rows_per_site": 10_000, "columns": 10},
    "memory-resident": {"rows_per_site": 1_000_000, "columns": 24},
}


RUNNER = Runner(__file__, __doc__, duration=2.0)
RUNNER.parser.add_argument("--quick", action="store_true", help="hash only, prefetch on only")


def main(args: argparse.Namespace) -> None:
    cpus = read_topology().cpus
    deployments = [("1 thread, none", cpus[:1], "none")]
    if len(cpus) >= 2:
        deployments.append(("2 threads, 2pl", cpus[:2], "2pl"))
    indexes = ["hash"] if args.quick else ["hash", "btree"]
    prefetches = [True] if args.quick else [True, False]
    print(
        f"{'data':16} {'instance':15} {'index':6} {'pf':3} {'txn':7} "
        f"{'engine/core':>12} {'bare':>12} {'bare/engine':>14} {'p50 us':>7}"
    )
    for data_name, data in DATASETS.items():
        for label, run_cpus, cc in deployments:
            for index in indexes:
                for prefetch in prefetches:
                    for update in (False, True):
                        cfg = RunConfig(
                            micro=MicroConfig(rows_per_txn=10, update=update, **data),
                            engine=EngineConfig(index=index, cc=cc, prefetch=prefetch),
                            driver=DriverConfig(cpus=tuple(run_cpus), warmup_s=0.5, duration_s=args.duration),
                        )
                        result = run(cfg)
                        bare_cfg = dataclasses.replace(
                            cfg,
                            engine=dataclasses.replace(cfg.engine, cc="none"),
                            driver=dataclasses.replace(cfg.driver, cpus=tuple(run_cpus[:1])),
                        )
                        # The bare loop holds the same total rows as the engine run.
                        bare_cfg = dataclasses.replace(
                            bare_cfg,
                            micro=dataclasses.replace(
                                bare_cfg.micro, rows_per_site=data["rows_per_site"] * len(run_cpus)
                            ),
                        )
                        bare = _core.bare_loop(bare_cfg.to_core())["throughput_tps"]
                        per_core = result.throughput_per_core
                        labels = {"data": data_name, "instance": label, "index": index, "prefetch": prefetch}
                        labels["update"] = update
                        RUNNER.record("engine throughput per core", per_core, unit="txn/s", **labels)
                        RUNNER.record("bare loop throughput", bare, unit="txn/s", **labels)
                        print(
                            f"{data_name:16} {label:15} {index:6} {'on' if prefetch else 'off':3} "
                            f"{'update' if update else 'read':7} {per_core:12,.0f} {bare:12,.0f} "
                            f"{ratio_label([bare], [per_core], digits=2):>14} {result.latency.p50_us:7.2f}",
                            flush=True,
                        )


if __name__ == "__main__":
    RUNNER.run(main)
