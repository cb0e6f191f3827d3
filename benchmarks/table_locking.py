"""Paper 004 on islands: TPC-C read-only (100-0) and 50-50 on 1 and 2 workers of one shared
instance, under row-level 2PL, table-level 2PL with index latches and table-level 2PL without
them (004's "modified" engine), each serializable and read committed, Silo's OCC
(serializable only: it validates every read) and multi-version snapshot isolation (mvcc, at
snapshot only; its indexes keep their latches: writers change them while snapshots read them,
so latch-free is not meaningful there); and per-core instances
(one single-threaded instance per worker, all transactions local: 004's "aggregate" ceiling).
All in one run, repetitions interleaved (every configuration once per round, every other
round in reverse order).

Prints each configuration's median throughput [min-max] over the rounds, and within each round
the ratio of table_2pl latch-free to table_2pl latched (004 reports ~10x on read-only TPC-C for
H2 and HSQLDB, whose readers take real index locks). Asserts nothing.

    python benchmarks/table_locking.py [--duration S] [--rounds N] [--cpus 0,1]
"""

from __future__ import annotations

import argparse
import statistics

from _runner import Runner
from islands.bench.rounds import interleaved, round_ratios, spread
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TpccConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

MIXES = {
    "100-0": "order_status:50,stock_level:50",
    "50-50": "new_order:25,payment:25,order_status:25,stock_level:25",
}
#: label: (cc, latching)
SCHEMES = {
    "2pl": ("2pl", True),
    "table": ("table_2pl", True),
    "table latch-free": ("table_2pl", False),
    "occ": ("occ", True),
    "mvcc": ("mvcc", True),
}
LEVELS = ("serializable", "read_committed")


def levels(scheme: str) -> tuple[str, ...]:
    """The isolation levels a scheme runs at (occ: serializable only; mvcc: snapshot only)."""
    if scheme == "mvcc":
        return ("snapshot",)
    return ("serializable",) if scheme == "occ" else LEVELS


def tpcc(mix: str, remote: bool) -> TpccConfig:
    share = 0.15 if remote else 0.0
    return TpccConfig(warehouses_per_site=1, mix=MIXES[mix], payment_remote=share, new_order_remote_item=share / 15)


def measure(run: tuple[str, int, str, str], cpus: tuple[int, ...], warmup: float, duration: float) -> float:
    """Throughput (transactions per second) of one configuration."""
    mix, workers, scheme, level = run
    topology = read_topology()
    driver = DriverConfig(warmup_s=warmup, duration_s=duration)
    mine = cpus[:workers]
    if scheme == "aggregate":
        config = RunConfig(workload="tpcc", tpcc=tpcc(mix, False), engine=EngineConfig(cc="none"), driver=driver)
        deployment = plan_deployment(topology, "per-core", cpus=mine)
        return run_deployment(deployment, config, transport="none", topology=topology).throughput_tps
    cc, latching = SCHEMES[scheme]
    engine = EngineConfig(cc=cc, latching=latching, isolation=level, lock_policy="wait_die")
    config = RunConfig(workload="tpcc", tpcc=tpcc(mix, workers > 1), engine=engine, driver=driver)
    deployment = plan_deployment(topology, 1, cpus=mine)
    result = run_deployment(deployment, config, transport="none", topology=topology)
    if result.check_failures:
        raise RuntimeError(f"{run}: {result.check_failures}")
    return result.throughput_tps


RUNNER = Runner(__file__, __doc__, rounds=3, duration=0.5, warmup=0.2)
RUNNER.parser.add_argument("--cpus", default=None, help="two CPUs, e.g. 0,1 (default: the first two)")


def main(args: argparse.Namespace) -> None:
    topology = read_topology()
    cpus = tuple(int(c) for c in args.cpus.split(",")) if args.cpus else tuple(topology.cpus[:2])
    runs = [(m, w, s, lv) for m in MIXES for w in (1, len(cpus)) for s in SCHEMES for lv in levels(s)]
    runs += [(m, len(cpus), "aggregate", "serializable") for m in MIXES]
    print(f"TPC-C, 1 warehouse per worker, cpus {cpus}; {args.rounds} rounds x {len(runs)} runs of {args.duration} s\n")
    tps = interleaved(runs, args.rounds, lambda run: measure(run, cpus, args.warmup, args.duration))
    RUNNER.record_runs("throughput", tps, unit="txn/s", labels=("mix", "workers", "scheme", "isolation"))
    print(f"{'mix':6} {'workers':>7}  {'scheme':17} {'isolation':15} {'txn/s median [min-max]':>30}")
    for run in runs:
        values = tps[run]
        mix, workers, scheme, level = run
        print(
            f"{mix:6} {workers:7d}  {scheme:17} {level:15} "
            f"{statistics.median(values):12,.0f} [{min(values):,.0f}-{max(values):,.0f}]"
        )
    print("\nlatch-free / latched under table_2pl, per round (median [min-max]):")
    for mix in MIXES:
        for workers in (1, len(cpus)):
            for level in LEVELS:
                free, latched = tps[(mix, workers, "table latch-free", level)], tps[(mix, workers, "table", level)]
                print(f"  {mix:6} {workers} worker(s) {level:15} {spread(round_ratios(free, latched))}")

    print("\nocc / 2pl (serializable), per round (median [min-max]):")
    for mix in MIXES:
        for workers in (1, len(cpus)):
            occ, twopl = tps[(mix, workers, "occ", "serializable")], tps[(mix, workers, "2pl", "serializable")]
            print(f"  {mix:6} {workers} worker(s) {spread(round_ratios(occ, twopl))}")

    print("\nmvcc (snapshot) / 2pl (serializable), per round (median [min-max]):")
    for mix in MIXES:
        for workers in (1, len(cpus)):
            mvcc, twopl = tps[(mix, workers, "mvcc", "snapshot")], tps[(mix, workers, "2pl", "serializable")]
            print(f"  {mix:6} {workers} worker(s) {spread(round_ratios(mvcc, twopl))}")


if __name__ == "__main__":
    RUNNER.run(main)
