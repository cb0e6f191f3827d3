"""What the component time breakdown costs: throughput with it off, timing every 32nd and
every 8th transaction, and timing every transaction.

One single-threaded instance (cc none) and, where there are two CPUs, a 2-thread 2pl instance;
read 10 and update 10 rows on cache-resident data. The settings alternate within each
repetition (off, every 32, every 8, every 1; every other repetition in reverse order) so that a
shared machine's noise hits them alike; the median of the repetitions is reported with the cost
relative to "off". Off is the engine as it runs without the breakdown (a null clock pointer
checked once per phase of a transaction). A benchmark, not a test: it prints, it asserts
nothing.

    python benchmarks/breakdown_overhead.py [--duration S] [--rounds N] [--json PATH]
"""

from __future__ import annotations

import argparse
import statistics

from _runner import Runner, round_order
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, ProfileConfig, RunConfig
from islands.execution.in_process import run
from islands.machine.topology import read_topology

SETTINGS = {"off": 0, "every 32": 32, "every 8": 8, "every 1": 1}

RUNNER = Runner(__file__, __doc__, rounds=5, duration=2.0, rounds_help="repetitions; each runs every setting once")


def main(args: argparse.Namespace) -> None:
    cpus = read_topology().cpus
    instances = [("1 thread, none", cpus[:1], "none")]
    if len(cpus) >= 2:
        instances.append(("2 threads, 2pl", cpus[:2], "2pl"))
    print(f"{'instance':15} {'txn':7} " + " ".join(f"{name + ' tps':>14} {'cost':>7}" for name in SETTINGS))
    for label, chosen, cc in instances:
        for update in (False, True):
            tps: dict[str, list[float]] = {name: [] for name in SETTINGS}
            for rep in range(args.rounds):
                for name in round_order(list(SETTINGS), rep):
                    every = SETTINGS[name]
                    config = RunConfig(
                        micro=MicroConfig(rows_per_txn=10, update=update),
                        engine=EngineConfig(cc=cc, lock_policy="no_wait"),
                        driver=DriverConfig(cpus=tuple(chosen), warmup_s=0.3, duration_s=args.duration),
                        profile=ProfileConfig(breakdown_every=every),
                    )
                    tps[name].append(run(config).throughput_tps)
            off = statistics.median(tps["off"])
            cells = []
            for name in SETTINGS:
                median = statistics.median(tps[name])
                RUNNER.record("throughput", tps[name], unit="txn/s", instance=label, update=update, breakdown=name)
                cells.append(f"{median:>14,.0f} {100 * (off - median) / off:>6.1f}%")
            print(f"{label:15} {'update' if update else 'read':7} " + " ".join(cells), flush=True)


if __name__ == "__main__":
    RUNNER.run(main)
