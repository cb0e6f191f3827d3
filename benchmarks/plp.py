"""Paper 002's designs on islands (Fig 2, 5 and 8's baselines; issue 16): on micro read-1 and
TATP, with 1 and 2 workers, the four baselines of one binary, chosen at run time:

- centralized SE: one instance, N workers, row-level 2PL, centralized system structures
  (today's 1ISL);
- PLP naive: one instance, each worker owning its partition (engine.execution = plp), with the
  centralized system structures (one active-transaction list and system-state lock for all);
- PLP HW-aware: the same with the structures per socket (engine.system_structures =
  per_socket: each worker uses its own socket's part);
- per-core SN: N single-threaded instances (cc none), every transaction local.

The run is planned on the machine's cores regrouped into --virtual-sockets sockets (default 2:
with 2 workers, one per socket), so that the per-socket structures have two parts; a virtual
socket shares the real caches, so --cross-socket-delay-ns can inject a delay on each access to
another socket's structures (default 0: none). --multisite adds micro update-4 with half the
transactions reaching the other worker's partition, where PLP routes actions and shared-nothing
runs 2PC.

All in one run, repetitions interleaved (every configuration once per round, every other round
in reverse order). Prints each configuration's median throughput [min-max] and its commits per
CPU-second of its workers (what a shared, loaded machine disturbs least), and, per round, each
design over centralized SE in both. Asserts nothing; fails on a consistency failure.

    python benchmarks/plp.py [--duration S] [--rounds N] [--cpus 0,1] [--virtual-sockets N]
        [--cross-socket-delay-ns NS] [--multisite]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics

from _runner import Runner
from islands.bench.rounds import interleaved, round_ratios, spread
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import Topology, read_topology
from islands.machine.virtual_topology import virtual_sockets

#: design label: (deployment of N workers, engine settings, transport)
DESIGNS = {
    "centralized SE": (1, EngineConfig(cc="2pl", system_structures="centralized"), "none"),
    "PLP naive": (1, EngineConfig(cc="2pl", execution="plp", system_structures="centralized"), "none"),
    "PLP HW-aware": (1, EngineConfig(cc="2pl", execution="plp", system_structures="per_socket"), "none"),
    "per-core SN": (
        "per-core",
        EngineConfig(cc="none", lock_policy="no_wait", system_structures="centralized"),
        "none",
    ),
}
WORKLOADS = ("micro read-1", "tatp")
MULTISITE = "micro update-4 50% multisite"


def workload_config(name: str, driver: DriverConfig, engine: EngineConfig, workers: int) -> RunConfig:
    if name == "micro read-1":
        return RunConfig(workload="micro", micro=MicroConfig(rows_per_txn=1), engine=engine, driver=driver)
    if name == "tatp":
        return RunConfig(workload="tatp", tatp=TatpConfig(subscribers_per_site=100000), engine=engine, driver=driver)
    multisite = 0.5 if workers > 1 else 0.0
    micro = MicroConfig(rows_per_txn=4, update=True, multisite=multisite)
    return RunConfig(workload="micro", micro=micro, engine=engine, driver=driver)


def measure(
    run: tuple[str, int, str], cpus: tuple[int, ...], warmup: float, duration: float, topology: Topology, delay: float
) -> tuple[float, float]:
    """Throughput (transactions per second) of one configuration, and its commits per second of
    its workers' CPU time (NaN when none was measured)."""
    workload, workers, design = run
    plan, engine, transport = DESIGNS[design]
    engine = dataclasses.replace(engine, cross_socket_delay_ns=delay)
    mine = cpus[:workers]
    if design == "per-core SN" and workload.endswith("multisite") and workers > 1:
        transport = "shm"  # its multisite transactions are 2PC between the instances
    driver = DriverConfig(warmup_s=warmup, duration_s=duration)
    config = workload_config(workload, driver, engine, workers)
    deployment = plan_deployment(topology, plan, cpus=mine)
    result = run_deployment(deployment, config, transport=transport, topology=topology)
    if result.check_failures:
        raise RuntimeError(f"{run}: {result.check_failures}")
    cpu_s = sum(inst["cpu_ns"] for inst in result.instances) / 1e9
    return result.throughput_tps, result.commits / cpu_s if cpu_s > 0 else float("nan")


RUNNER = Runner(__file__, __doc__, rounds=3, duration=0.5, warmup=0.2)
RUNNER.parser.add_argument("--cpus", default=None, help="two CPUs, e.g. 0,1 (default: the first two)")
RUNNER.parser.add_argument("--virtual-sockets", type=int, default=2, help="plan on this many made-up sockets (0: real)")
RUNNER.parser.add_argument(
    "--cross-socket-delay-ns", type=float, default=0.0, help="delay per access to another socket's structures"
)
RUNNER.parser.add_argument("--multisite", action="store_true", help=f"also {MULTISITE}".replace("%", "%%"))


def main(args: argparse.Namespace) -> None:
    topology = read_topology()
    if args.virtual_sockets:
        topology = virtual_sockets(topology, args.virtual_sockets)
    workloads = (*WORKLOADS, MULTISITE) if args.multisite else WORKLOADS
    cpus = tuple(int(c) for c in args.cpus.split(",")) if args.cpus else tuple(topology.cpus[:2])
    counts = sorted({1, len(cpus)})
    runs = [(w, n, d) for w in workloads for n in counts for d in DESIGNS]
    sockets = [topology.socket_of(c) for c in cpus]
    print(f"cpus {cpus} on sockets {sockets} ({topology.virtual or 'real sockets'})")
    print(f"cross-socket delay {args.cross_socket_delay_ns:g} ns per access to another socket's structures")
    print(f"{args.rounds} rounds x {len(runs)} runs of {args.duration} s (warm-up {args.warmup} s)\n")
    delay = args.cross_socket_delay_ns
    results = interleaved(
        runs,
        args.rounds,
        lambda run: measure(run, cpus, args.warmup, args.duration, topology, delay),
    )
    tps = {run: [r[0] for r in rs] for run, rs in results.items()}
    per_cpu = {run: [r[1] for r in rs] for run, rs in results.items()}
    RUNNER.record_runs("throughput", tps, unit="txn/s", labels=("workload", "workers", "design"))
    RUNNER.record_runs("throughput per CPU-second", per_cpu, unit="txn/CPU-s", labels=("workload", "workers", "design"))
    print(f"{'workload':30} {'workers':>7}  {'design':15} {'txn/s median [min-max]':>34} {'txn per CPU-s median':>22}")
    for run in runs:
        values = tps[run]
        workload, workers, design = run
        print(
            f"{workload:30} {workers:7d}  {design:15} "
            f"{statistics.median(values):12,.0f} [{min(values):,.0f}-{max(values):,.0f}] "
            f"{statistics.median(per_cpu[run]):14,.0f}"
        )
    for label, table in (("throughput", tps), ("per CPU-second", per_cpu)):
        print(f"\nover centralized SE, {label}, per round (median [min-max]):")
        for workload in workloads:
            for workers in counts:
                base = table[(workload, workers, "centralized SE")]
                for design in DESIGNS:
                    if design == "centralized SE":
                        continue
                    ratios = round_ratios(table[(workload, workers, design)], base)
                    print(f"  {workload:30} {workers} worker(s) {design:15} {spread(ratios)}")


if __name__ == "__main__":
    RUNNER.run(main)
