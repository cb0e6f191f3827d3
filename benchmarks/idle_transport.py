"""What an idle transport costs: per-core instances (NISL, one single-threaded instance per
core) at 0% multisite over unix sockets, over shared memory and with no transport at all
(transport "none"), and one shared instance (1ISL, one thread per core) against per-core
over unix sockets, for micro read, micro update and TPC-B, all in one run with repetitions
interleaved (every configuration once per round, every other round in reverse order).

Prints two ratios within each round, as their median and min-max over the rounds: of
throughput (transactions per second of wall-clock time), and of transactions per second of the
workers' own CPU time (what a transaction costs, however often the workers were descheduled:
on a shared machine the wall-clock ratio mixes in other people's load). Asserts nothing.
Target: unix and shm each within 3% of no transport (ratio >= 0.97).

    python benchmarks/idle_transport.py [--duration S] [--rounds N] [--cpus 0,1]
"""

from __future__ import annotations

import argparse
import statistics

from _runner import Runner
from islands.bench.rounds import interleaved, round_ratios, spread
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TpcbConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

WORKLOADS: dict[str, dict[str, object]] = {
    "micro read": {"workload": "micro", "micro": MicroConfig(rows_per_txn=10)},
    "micro update": {"workload": "micro", "micro": MicroConfig(rows_per_txn=10, update=True)},
    "TPC-B": {"workload": "tpcb", "tpcb": TpcbConfig(accounts_per_branch=10_000, remote=0.0)},
}
# Per-core over each transport, and 1ISL (its one instance needs no transport).
SETUPS = ("none", "unix", "shm", "1ISL")


def measure(workload: str, setup: str, cpus: tuple[int, ...], warmup: float, duration: float) -> tuple[float, float]:
    """Throughput of one run of `workload` on `setup`: per wall-clock second, and per second of
    the workers' CPU time (per CPU: both per core)."""
    topology = read_topology()
    driver = DriverConfig(warmup_s=warmup, duration_s=duration)
    if setup == "1ISL":
        config = RunConfig(engine=EngineConfig(cc="2pl"), driver=driver, **WORKLOADS[workload])  # type: ignore[arg-type]
        deployment = plan_deployment(topology, 1, cpus=cpus)
        result = run_deployment(deployment, config, transport="none", topology=topology)
    else:
        config = RunConfig(engine=EngineConfig(cc="none", lock_policy="no_wait"), driver=driver, **WORKLOADS[workload])  # type: ignore[arg-type]
        deployment = plan_deployment(topology, "per-core", cpus=cpus)
        result = run_deployment(deployment, config, transport=setup, topology=topology)
        if result.multisite_commits:
            raise RuntimeError(
                f"{workload} over {setup}: {result.multisite_commits} distributed commits at 0% multisite"
            )
    cpu_s = sum(i["cpu_ns"] for i in result.instances) / 1e9
    per_cpu_s = result.commits / cpu_s * len(cpus) if cpu_s > 0 else float("nan")
    return result.throughput_tps, per_cpu_s


RUNNER = Runner(__file__, __doc__, rounds=5, duration=1.0, warmup=0.3)
RUNNER.parser.add_argument("--cpus", default=None, help="two or more CPUs, e.g. 0,1 (default: the first two)")


def main(args: argparse.Namespace) -> None:
    topology = read_topology()
    cpus = tuple(int(c) for c in args.cpus.split(",")) if args.cpus else tuple(topology.cpus[:2])
    runs = [(w, s) for w in WORKLOADS for s in SETUPS]
    print(f"cpus {cpus}: per-core = {len(cpus)} single-threaded instances; 1ISL = 1 instance of {len(cpus)} threads")
    print(f"{args.rounds} rounds x {len(runs)} runs of {args.duration} s, interleaved\n")
    results = interleaved(
        runs,
        args.rounds,
        lambda run: measure(run[0], run[1], cpus, args.warmup, args.duration),
        on_round=lambda i: print(f"  round {i + 1}/{args.rounds} done", flush=True),
    )
    tps = {run: [r[0] for r in rs] for run, rs in results.items()}
    cpu = {run: [r[1] for r in rs] for run, rs in results.items()}
    RUNNER.record_runs("throughput", tps, unit="txn/s", labels=("workload", "setup"))
    RUNNER.record_runs("throughput per CPU-second", cpu, unit="txn/CPU-s", labels=("workload", "setup"))

    pairs = [("unix", "none"), ("shm", "none"), ("unix", "1ISL"), ("none", "1ISL")]
    for title, table in (("wall-clock", tps), ("own CPU time", cpu)):

        def ratios(
            workload: str, top: str, bottom: str, table: dict[tuple[str, str], list[float]] = table
        ) -> list[float]:
            return round_ratios(table[(workload, top)], table[(workload, bottom)])

        print(f"\nmedian throughput, txn per second of {title}")
        print(f"  {'workload':13}" + "".join(f"{s:>14}" for s in SETUPS))
        for workload in WORKLOADS:
            print(f"  {workload:13}" + "".join(f"{statistics.median(table[(workload, s)]):14,.0f}" for s in SETUPS))
        print(f"ratios within a round ({title}): median [min-max] over the rounds (target: unix, shm >= 0.97 of none)")
        print(f"  {'':22}" + "".join(f"{w:>25}" for w in WORKLOADS))
        for top, bottom in pairs:
            label = f"{'per-core ' + top} / {bottom}"
            print(f"  {label:22}" + "".join(f"{spread(ratios(w, top, bottom)):>25}" for w in WORKLOADS))


if __name__ == "__main__":
    RUNNER.run(main)
