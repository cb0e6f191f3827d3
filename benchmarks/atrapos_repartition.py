"""The cost of re-partitioning a running PLP instance (paper 002 Fig 9; issue 17 item 3).
The measurement is islands.atrapos.repartition_cost's; ``islands reproduce 002-fig9`` draws the
figure from an experiment file (experiments/002-fig9-repartition-cost.toml, all counts in one
run); this benchmark runs each count in a run of its own.

A 2-worker PLP instance runs micro (update 4 rows, half the transactions on both partitions)
over ``--rows`` rows in all (800 K by default, the issue's size) while a controller thread
applies N re-partitioning actions one after another, for N in 1, 10, 20, 40, 80. Each action
moves one routing unit (a tenth of a site's keys) to the other worker: in this engine split,
merge and move are one operation, a change of the routing table (the rows stay where they are:
one process, one shared index), so a split (a range of a partition to another core), a merge
(the range back) and a rearrangement cost the same: freeze the unit, drain its in-flight
actions, hand it over. Printed per N: the total time (the N actions end to end) and the
actions' pause (freeze to hand-over, what the transactions needing the units wait), median
over ``--rounds`` runs of each N, and the throughput of the run.

Paper 002: 80 rearrangements take under 200 ms; issue 17's goal: 80 in 20 ms or less at 800 K
rows. Prints figures; asserts nothing.

    python benchmarks/atrapos_repartition.py [--rows N] [--rounds N] [--duration S] [--png FILE]
"""

from __future__ import annotations

import argparse
import statistics

import islands
from _runner import Runner, round_order
from islands.atrapos.repartition_cost import COUNTS, measure_repartition_cost
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig


def one(n: int, rows: int, duration: float, cpus: tuple[int, ...]) -> dict:
    """One run of `n` actions (islands.atrapos.repartition_cost, 0.1 s after the start)."""
    config = RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=rows // 2, rows_per_txn=4, multisite=0.5),
        engine=EngineConfig(execution="plp"),
        driver=DriverConfig(cpus=cpus, warmup_s=0.0, duration_s=duration),
    )
    result, measured = measure_repartition_cost(config, (n,), settle_s=0.1)
    if result.check_failures:
        raise SystemExit(f"consistency: {result.check_failures}")
    out: dict = {"tps": result.throughput_tps, "moved": result.instances[0]["repartitioning"]["units_moved"]}
    if measured["error"]:
        out["error"] = measured["error"]
    else:
        out.update({k: measured[k][0] for k in ("total_ms", "pause_ms", "max_pause_us")})
    return out


RUNNER = Runner(
    __file__,
    __doc__,
    rounds=3,
    duration=1.0,
    rounds_help="runs per action count (interleaved)",
    duration_help="seconds per run",
)
RUNNER.parser.add_argument("--rows", type=int, default=800_000, help="rows in all (two sites)")
RUNNER.parser.add_argument("--png", default="", help="write the figure (002 Fig 9) here")


def main(args: argparse.Namespace) -> None:
    cpus = tuple(islands.read_topology().cpus[:2])
    if len(cpus) < 2:
        raise SystemExit("needs two online CPUs")
    runs: dict[int, list[dict]] = {n: [] for n in COUNTS}
    for rep in range(args.rounds):
        for n in round_order(COUNTS, rep):
            runs[n].append(one(n, args.rows, args.duration, cpus))
    print(f"PLP micro, 2 workers, {args.rows:,} rows, re-partitioning under load (median of {args.rounds})")
    print(f"{'actions':>8} {'total ms':>9} {'pause ms':>9} {'max pause us':>13} {'units moved':>12} {'txn/s':>10}")
    for n in COUNTS:
        ok = [r for r in runs[n] if "error" not in r]
        if not ok:
            print(f"{n:>8} NaN: {runs[n][0]['error']}")
            continue
        med = {k: statistics.median(r[k] for r in ok) for k in ("total_ms", "pause_ms", "max_pause_us", "moved", "tps")}
        for key, unit in (
            ("total_ms", "ms"),
            ("pause_ms", "ms"),
            ("max_pause_us", "us"),
            ("moved", "units"),
            ("tps", "txn/s"),
        ):
            RUNNER.record(key, [r[key] for r in ok], unit=unit, actions=n)
        print(
            f"{n:>8} {med['total_ms']:>9.2f} {med['pause_ms']:>9.2f} {med['max_pause_us']:>13.1f}"
            f" {med['moved']:>12.0f} {med['tps']:>10,.0f}"
        )
    print("paper 002: 80 rearrangements < 200 ms; issue 17 goal: 80 in <= 20 ms at 800 K rows")
    if args.png:
        from islands.plots.atrapos_timelines import plot_repartition_cost

        costs = {
            "move (= split, merge, rearrange here)": {
                n: [r["total_ms"] for r in runs[n] if "error" not in r] for n in COUNTS
            }
        }
        note = f"PLP micro under load, 2 workers (2 virtual sockets over 2 cores), {args.rows:,} rows"
        plot_repartition_cost(costs, note=note).figure.savefig(args.png, dpi=120)


if __name__ == "__main__":
    RUNNER.run(main)
