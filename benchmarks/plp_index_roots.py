"""PLP's index layout (issue 16 item 1, engine.plp_index): one shared, latched primary index for
the whole instance ("shared") against one latch-free root per routing unit, touched only by the
unit's owner ("per_unit", paper 002's multi-rooted B+tree / per-partition hash), on micro
update-1 and TATP with 1 and 2 workers, plus shared-everything micro update-1 as a reference
(it always has one latched root).

All in one run, repetitions interleaved (every configuration once per round, every other round
in reverse order). Prints each configuration's median throughput [min-max] and its commits per
CPU-second of its workers (what a shared, loaded machine disturbs least), the index layout the
run reported (roots, latched roots), and, per round, per_unit over shared in both. Asserts
nothing; fails on a consistency failure.

    python benchmarks/plp_index_roots.py [--duration S] [--warmup S] [--rounds N] [--cpus 0,1] [--index hash|btree]
"""

from __future__ import annotations

import argparse
import statistics

import islands
from _runner import Runner
from islands.bench.rounds import interleaved, round_ratios, spread
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig

WORKLOADS = ("micro update-1", "tatp")
LAYOUTS = ("shared", "per_unit")
REFERENCE = "shared-everything"


def run_config(workload: str, layout: str, cpus: tuple[int, ...], args: argparse.Namespace) -> RunConfig:
    """One configuration: `layout` is a plp_index value, or REFERENCE (no PLP)."""
    if layout == REFERENCE:
        engine = EngineConfig(index=args.index)
    else:
        engine = EngineConfig(index=args.index, execution="plp", plp_index=layout)
    driver = DriverConfig(cpus=cpus, warmup_s=args.warmup, duration_s=args.duration)
    if workload == "tatp":
        return RunConfig(workload="tatp", tatp=TatpConfig(subscribers_per_site=100000), engine=engine, driver=driver)
    return RunConfig(workload="micro", micro=MicroConfig(rows_per_txn=1, update=True), engine=engine, driver=driver)


def measure(config: RunConfig) -> tuple[float, float, tuple[int, int]]:
    """Throughput, commits per CPU-second of the workers (NaN when none was measured) and the
    index layout the run reported (roots, latched roots)."""
    result = islands.run(config)
    if result.check_failures:
        raise RuntimeError(f"{config.workload} {config.engine.plp_index}: {result.check_failures}")
    cpu_s = sum(inst["cpu_ns"] for inst in result.instances) / 1e9
    per_cpu = result.commits / cpu_s if cpu_s > 0 else float("nan")
    return result.throughput_tps, per_cpu, (result.checks["index_roots"], result.checks["index_latched_roots"])


RUNNER = Runner(__file__, __doc__, rounds=5, duration=0.5, warmup=0.2)
RUNNER.parser.add_argument("--cpus", default=None, help="two CPUs, e.g. 0,1 (default: the first two)")
RUNNER.parser.add_argument("--index", default="hash", choices=("hash", "btree"), help="engine.index")


def main(args: argparse.Namespace) -> None:
    all_cpus = tuple(int(c) for c in args.cpus.split(",")) if args.cpus else tuple(islands.read_topology().cpus[:2])
    counts = sorted({1, len(all_cpus)})
    runs = [(w, n, layout) for w in WORKLOADS for n in counts for layout in LAYOUTS]
    runs += [("micro update-1", n, REFERENCE) for n in counts]
    print(f"cpus {all_cpus}, engine.index {args.index}")
    print(f"{args.rounds} rounds x {len(runs)} runs of {args.duration} s (warm-up {args.warmup} s)\n")
    results = interleaved(
        runs,
        args.rounds,
        lambda run: measure(run_config(run[0], run[2], all_cpus[: run[1]], args)),
    )
    tps = {run: [r[0] for r in rs] for run, rs in results.items()}
    per_cpu = {run: [r[1] for r in rs] for run, rs in results.items()}
    layout_seen = {run: rs[-1][2] for run, rs in results.items()}
    RUNNER.record_runs("throughput", tps, unit="txn/s", labels=("workload", "workers", "layout"))
    RUNNER.record_runs("throughput per CPU-second", per_cpu, unit="txn/CPU-s", labels=("workload", "workers", "layout"))
    header = f"{'workload':16} {'workers':>7}  {'index':18} {'roots':>5} {'latched':>7}"
    print(f"{header} {'txn/s median [min-max]':>36} {'txn per CPU-s':>14}")
    for run in runs:
        workload, workers, layout = run
        values = tps[run]
        roots, latched = layout_seen[run]
        print(
            f"{workload:16} {workers:7d}  {layout:18} {roots:5d} {latched:7d} "
            f"{statistics.median(values):13,.0f} [{min(values):,.0f}-{max(values):,.0f}] "
            f"{statistics.median(per_cpu[run]):14,.0f}"
        )
    for label, table in (("throughput", tps), ("per CPU-second", per_cpu)):
        print(f"\nper_unit over shared, {label}, per round (median [min-max]):")
        for workload in WORKLOADS:
            for workers in counts:
                per_unit, shared = table[(workload, workers, "per_unit")], table[(workload, workers, "shared")]
                print(f"  {workload:16} {workers} worker(s) {spread(round_ratios(per_unit, shared))}")


if __name__ == "__main__":
    RUNNER.run(main)
