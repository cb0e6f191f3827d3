"""ATraPos monitoring overhead measured in the engine (paper 002 Table 2; issue 17 item 1).

TATP under PLP (2 workers, 100 K subscribers per site), each transaction type alone and the
standard mix, with the monitor off and on (engine.plp_monitor: every committed transaction
records its actions per unit, a cost and its synchronizations in the workers' own arrays).
Repetitions interleaved (off and on in each round, the order alternating); printed: median
throughput of each and the overhead 1 - on/off per round (median, min, max). Paper 002
Table 2: at most 3.32%; issue 17's target: 2%. Prints figures; asserts nothing.

    python benchmarks/plp_monitoring.py [--reps N] [--duration S]
"""

from __future__ import annotations

import argparse
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


def tps(mix: str, monitor: bool, duration: float, cpus: tuple[int, ...]) -> float:
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(mix=mix),
        engine=EngineConfig(execution="plp", plp_monitor=monitor),
        driver=DriverConfig(cpus=cpus, warmup_s=0.1, duration_s=duration),
    )
    result = islands.run(config)
    if result.check_failures:
        raise SystemExit(f"{mix}: {result.check_failures}")
    return result.throughput_tps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--duration", type=float, default=0.5)
    args = parser.parse_args()
    cpus = tuple(islands.read_topology().cpus[:2])
    rounds = f"{args.reps} interleaved rounds of {args.duration} s"
    print(f"TATP under PLP, {len(cpus)} workers, monitor off vs on, {rounds}")
    print(f"{'transaction':<24} {'off txn/s':>10} {'on txn/s':>10} {'overhead':>9} {'min':>7} {'max':>7}")
    for mix in MIXES:
        off, on, overhead = [], [], []
        for rep in range(args.reps):
            first = rep % 2 == 0
            a = tps(mix, not first, args.duration, cpus)
            b = tps(mix, first, args.duration, cpus)
            o, m = (b, a) if first else (a, b)
            off.append(o)
            on.append(m)
            overhead.append(1 - m / o)
        print(
            f"{mix:<24} {statistics.median(off):>10,.0f} {statistics.median(on):>10,.0f}"
            f" {statistics.median(overhead):>8.1%} {min(overhead):>7.1%} {max(overhead):>7.1%}"
        )
    print("paper 002 Table 2: <= 3.32%; issue 17 target: <= 2%")


if __name__ == "__main__":
    main()
