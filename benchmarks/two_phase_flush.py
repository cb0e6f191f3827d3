"""What a distributed update waits on: paper 000's Fig 13/15 breakdown (time per transaction by
component) of per-core micro update at 100% multisite, logged in group commit, over unix
sockets and over shared memory, with the 2PC prepare record and decision flushed on demand by
the worker that appended it (log.flush_on_demand, the default) and by the flusher thread as
before (flush_on_demand off: the flusher is woken, a thread hand-off on the message's path).

Every configuration once per round, rounds interleaved (every other round in reverse order), so
that a shared machine's noise hits them alike. Prints, per configuration, the mean over the
rounds with its 95% interval (Student t) of the communication time and of the whole time per
transaction and of the communication share (communication / total), the throughput, and the
ratios shm / unix of the communication share within each round (geometric mean, 95% interval
of the rounds' log-ratios: islands.analysis.statistics.block_ratio). Asserts nothing.

    python benchmarks/two_phase_flush.py [--duration S] [--rounds N] [--cpus 0,1]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from _runner import Runner
from islands.analysis.statistics import block_ratio, summarize
from islands.analysis.verdicts import words_of
from islands.bench.rounds import interleaved
from islands.config.settings import DriverConfig, EngineConfig, LogConfig, MicroConfig, ProfileConfig, RunConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

TRANSPORTS = ("unix", "shm")
FLUSH = {"flusher (before)": False, "on demand (after)": True}


def measure(transport: str, on_demand: bool, cpus: tuple[int, ...], warmup: float, duration: float) -> dict[str, float]:
    """One per-core run: the breakdown's communication and total microseconds per transaction,
    the communication share and the throughput."""
    topology = read_topology()
    root = "/dev/shm" if Path("/dev/shm").is_dir() else None
    directory = tempfile.mkdtemp(prefix="islands-2pc-flush-", dir=root)
    try:
        config = RunConfig(
            micro=MicroConfig(rows_per_txn=10, update=True, multisite=1.0),
            engine=EngineConfig(cc="none", lock_policy="no_wait"),
            driver=DriverConfig(warmup_s=warmup, duration_s=duration),
            profile=ProfileConfig(breakdown_every=1),
            log=LogConfig(mode="group_commit", directory=directory, flush_on_demand=on_demand),
        )
        deployment = plan_deployment(topology, "per-core", cpus=cpus)
        result = run_deployment(deployment, config, transport=transport, topology=topology)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    b = (result.profile or {}).get("breakdown") or {}
    comm, total = float(b.get("communication_us", "nan")), float(b.get("total_us", "nan"))
    return {
        "comm_us": comm,
        "total_us": total,
        "share": comm / total if total > 0 else float("nan"),
        "tps": result.throughput_tps,
    }


def interval(values: list[float], fmt: str) -> str:
    s = summarize(values)
    return f"{s.mean:{fmt}} ({s.ci_low:{fmt}}-{s.ci_high:{fmt}})"


RUNNER = Runner(__file__, __doc__, rounds=6, duration=1.0, warmup=0.3)
RUNNER.parser.add_argument("--cpus", default=None, help="two or more CPUs, e.g. 0,1 (default: the first two)")


def main(args: argparse.Namespace) -> None:
    topology = read_topology()
    cpus = tuple(int(c) for c in args.cpus.split(",")) if args.cpus else tuple(topology.cpus[:2])
    runs = [(t, f) for f in FLUSH for t in TRANSPORTS]
    print(f"per-core on cpus {cpus}, micro update 10 rows, 100% multisite, group commit on /dev/shm, every txn timed")
    print(f"{args.rounds} rounds x {len(runs)} runs of {args.duration} s, interleaved")
    print("(on a shared machine other sessions' load is in every run: read the intervals, not one figure)\n")
    results = interleaved(
        runs,
        args.rounds,
        lambda run: measure(run[0], FLUSH[run[1]], cpus, args.warmup, args.duration),
        on_round=lambda i: print(f"  round {i + 1}/{args.rounds} done", flush=True),
    )
    for key, unit in (("comm_us", "us"), ("total_us", "us"), ("share", "fraction"), ("tps", "txn/s")):
        table = {run: [r[key] for r in rs] for run, rs in results.items()}
        RUNNER.record_runs(key, table, unit=unit, labels=("transport", "flush"))
    print("\nmean over the rounds (95% interval)")
    print(f"  {'flush':18} {'transport':9} {'communication us':>24} {'total us':>24} {'comm share':>22} {'txn/s':>26}")
    for flush in FLUSH:
        for transport in TRANSPORTS:
            rs = results[(transport, flush)]
            print(
                f"  {flush:18} {transport:9} {interval([r['comm_us'] for r in rs], '.1f'):>24} "
                f"{interval([r['total_us'] for r in rs], '.1f'):>24} {interval([r['share'] for r in rs], '.3f'):>22} "
                f"{interval([r['tps'] for r in rs], ',.0f'):>26}"
            )
    print("\nwithin each round, geometric mean (95% interval)")
    for flush in FLUSH:
        shm = {i: r["share"] for i, r in enumerate(results[("shm", flush)])}
        unix = {i: r["share"] for i, r in enumerate(results[("unix", flush)])}
        print(f"  {flush:18} communication share shm / unix: {words_of(block_ratio(shm, unix))}")
    for transport in TRANSPORTS:
        after = {i: r["comm_us"] for i, r in enumerate(results[(transport, "on demand (after)")])}
        before = {i: r["comm_us"] for i, r in enumerate(results[(transport, "flusher (before)")])}
        print(f"  {transport:4} communication us, after / before: {words_of(block_ratio(after, before))}")
        after_t = {i: r["tps"] for i, r in enumerate(results[(transport, "on demand (after)")])}
        before_t = {i: r["tps"] for i, r in enumerate(results[(transport, "flusher (before)")])}
        print(f"  {transport:4} throughput, after / before: {words_of(block_ratio(after_t, before_t))}")


if __name__ == "__main__":
    RUNNER.run(main)
