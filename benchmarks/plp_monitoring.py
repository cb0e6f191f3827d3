"""ATraPos monitoring overhead measured in the engine (paper 002 Table 2; issue 17 item 1).

TATP under PLP (100 K subscribers per site), each transaction type alone and the standard mix,
with the monitor off and on (engine.plp_monitor: every committed transaction records its
actions per unit, a cost and its synchronizations in the workers' own arrays). Repetitions
interleaved (off and on in each round, the order alternating). The cost is the workers' CPU
time per committed transaction (thread CPU clocks over the measured window), which time the
workers lose to other processes on a shared machine does not inflate the way it does
wall-clock throughput; printed per transaction type: the median CPU µs per transaction off and
on and the overhead on/off - 1 per round (median and the middle half of the rounds, which
--reps widens or narrows). Paper 002 Table 2: at most 3.32%; issue 17's target: 2%. Prints
figures; asserts nothing.

    python benchmarks/plp_monitoring.py [--workers N] [--reps N] [--duration S]
"""

from __future__ import annotations

import argparse
import math
import statistics

import islands
from islands.config import DriverConfig, EngineConfig, RunConfig, TatpConfig

MIXES = (
    "get_subscriber_data",
    "get_new_destination",
    "get_access_data",
    "update_subscriber_data",
    "update_location",
    "standard",
)


def cpu_us_per_txn(mix: str, monitor: bool, duration: float, cpus: tuple[int, ...]) -> float:
    """The workers' CPU µs per committed transaction of one run."""
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(mix=mix),
        engine=EngineConfig(execution="plp", plp_monitor=monitor),
        driver=DriverConfig(cpus=cpus, warmup_s=0.1, duration_s=duration),
    )
    result = islands.run(config)
    if result.check_failures:
        raise SystemExit(f"{mix}: {result.check_failures}")
    commits = result.instances[0]["commits"]
    return result.instances[0]["cpu_ns"] / 1e3 / commits if commits else math.nan


def quartiles(values: list[float]) -> tuple[float, float]:
    """The first and third quartiles (the middle half of the rounds)."""
    q = statistics.quantiles(values, n=4) if len(values) > 1 else [values[0]] * 3
    return q[0], q[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="PLP workers (one per CPU; default 2)")
    parser.add_argument("--reps", type=int, default=9, help="interleaved rounds (default 9)")
    parser.add_argument("--duration", type=float, default=0.5, help="measured seconds per run")
    args = parser.parse_args()
    cpus = tuple(islands.read_topology().cpus[: args.workers])
    rounds = f"{args.reps} interleaved rounds of {args.duration} s"
    print(f"TATP under PLP, {len(cpus)} worker(s), monitor off vs on, CPU time per transaction, {rounds}")
    print(f"{'transaction':<24} {'off us/txn':>10} {'on us/txn':>10} {'overhead':>9} {'middle half':>18}")
    for mix in MIXES:
        off, on, overhead = [], [], []
        for rep in range(args.reps):
            first = rep % 2 == 0
            a = cpu_us_per_txn(mix, not first, args.duration, cpus)
            b = cpu_us_per_txn(mix, first, args.duration, cpus)
            o, m = (b, a) if first else (a, b)
            off.append(o)
            on.append(m)
            overhead.append(m / o - 1)
        lo, hi = quartiles(overhead)
        print(
            f"{mix:<24} {statistics.median(off):>10.3f} {statistics.median(on):>10.3f}"
            f" {statistics.median(overhead):>8.1%} {lo:>8.1%} to {hi:>6.1%}"
        )
    print("paper 002 Table 2: <= 3.32%; issue 17 target: <= 2%")


if __name__ == "__main__":
    main()
