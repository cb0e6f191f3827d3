"""What an idle transport costs: per-core instances (NISL, one single-threaded instance per
core) at 0% multisite over unix sockets, over shared memory and with no transport at all
(transport "none"), and one shared instance (1ISL, one thread per core) against per-core
over unix sockets, for micro read, micro update and TPC-B, all in one run with repetitions
interleaved (every configuration once per round, in an order rotated round by round).

Prints the ratios of throughput within each round, as their median and min-max over the
rounds; asserts nothing. Target: unix and shm each within 3% of no transport (ratio >= 0.97).

    python benchmarks/idle_transport.py [--duration S] [--reps N] [--cpus 0,1]
"""

from __future__ import annotations

import argparse
import statistics

from islands.config import DriverConfig, EngineConfig, MicroConfig, RunConfig, TpcbConfig
from islands.launch import run_deployment
from islands.placement import plan_deployment
from islands.topology import read_topology

WORKLOADS: dict[str, dict[str, object]] = {
    "micro read": {"workload": "micro", "micro": MicroConfig(rows_per_txn=10)},
    "micro update": {"workload": "micro", "micro": MicroConfig(rows_per_txn=10, update=True)},
    "TPC-B": {"workload": "tpcb", "tpcb": TpcbConfig(accounts_per_branch=10_000, remote=0.0)},
}
# Per-core over each transport, and 1ISL (its one instance needs no transport).
SETUPS = ("none", "unix", "shm", "1ISL")


def measure(workload: str, setup: str, cpus: tuple[int, ...], warmup: float, duration: float) -> float:
    """Throughput (txn/s) of one run of `workload` on `setup`."""
    topology = read_topology()
    driver = DriverConfig(warmup_s=warmup, duration_s=duration)
    if setup == "1ISL":
        config = RunConfig(engine=EngineConfig(cc="2pl"), driver=driver, **WORKLOADS[workload])  # type: ignore[arg-type]
        deployment = plan_deployment(topology, 1, cpus=cpus)
        return run_deployment(deployment, config, transport="none", topology=topology).throughput_tps
    config = RunConfig(engine=EngineConfig(cc="none", lock_policy="no_wait"), driver=driver, **WORKLOADS[workload])  # type: ignore[arg-type]
    deployment = plan_deployment(topology, "per-core", cpus=cpus)
    result = run_deployment(deployment, config, transport=setup, topology=topology)
    if result.multisite_commits:
        raise RuntimeError(f"{workload} over {setup}: {result.multisite_commits} distributed commits at 0% multisite")
    return result.throughput_tps


def spread(ratios: list[float]) -> str:
    """Median [min-max] of per-round ratios."""
    return f"{statistics.median(ratios):6.3f} [{min(ratios):.3f}-{max(ratios):.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=1.0, help="measured seconds per run")
    parser.add_argument("--warmup", type=float, default=0.3)
    parser.add_argument("--reps", type=int, default=5, help="rounds (each runs every configuration once)")
    parser.add_argument("--cpus", default=None, help="two or more CPUs, e.g. 0,1 (default: the first two)")
    args = parser.parse_args()
    topology = read_topology()
    cpus = tuple(int(c) for c in args.cpus.split(",")) if args.cpus else tuple(topology.cpus[:2])
    runs = [(w, s) for w in WORKLOADS for s in SETUPS]
    tps: dict[tuple[str, str], list[float]] = {run: [] for run in runs}
    print(f"cpus {cpus}: per-core = {len(cpus)} single-threaded instances; 1ISL = 1 instance of {len(cpus)} threads")
    print(f"{args.reps} rounds x {len(runs)} runs of {args.duration} s, interleaved\n")
    for rep in range(args.reps):
        shift = rep % len(runs)
        for workload, setup in runs[shift:] + runs[:shift]:
            tps[(workload, setup)].append(measure(workload, setup, cpus, args.warmup, args.duration))
        print(f"  round {rep + 1}/{args.reps} done", flush=True)

    def ratios(workload: str, top: str, bottom: str) -> list[float]:
        return [a / b for a, b in zip(tps[(workload, top)], tps[(workload, bottom)], strict=True)]

    print("\nmedian throughput (txn/s)")
    print(f"  {'workload':13}" + "".join(f"{s:>14}" for s in SETUPS))
    for workload in WORKLOADS:
        print(f"  {workload:13}" + "".join(f"{statistics.median(tps[(workload, s)]):14,.0f}" for s in SETUPS))
    pairs = [("unix", "none"), ("shm", "none"), ("unix", "1ISL"), ("none", "1ISL")]
    print("\nratios of throughput within a round: median [min-max] over the rounds (target: unix, shm >= 0.97 of none)")
    print(f"  {'':22}" + "".join(f"{w:>25}" for w in WORKLOADS))
    for top, bottom in pairs:
        label = f"{'per-core ' + top} / {bottom}"
        print(f"  {label:22}" + "".join(f"{spread(ratios(w, top, bottom)):>25}" for w in WORKLOADS))


if __name__ == "__main__":
    main()
