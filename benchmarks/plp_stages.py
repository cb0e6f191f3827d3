"""What PLP's data rendezvous costs (issue 16 item 1, 002 Fig 7): TPC-C on 2 PLP workers, where a
NewOrder spread over both partitions runs in two stages (its stock actions and its home step's
inserts, a rendezvous returning each line's S_DIST_xx and S_DATA test, then its lines step, which
writes them), against the same runs of
another build (--against: a source tree whose islands/ holds a built _core, e.g. the branch
point's), the two builds' runs interleaved round by round (every other round in reverse order).

Configurations: the standard mix and NewOrder alone at the specification's 1% remote lines, and
NewOrder alone with 30% remote lines (nearly every NewOrder staged). Each run is a process of its
own (the other build's package put first on its path). Prints each build's median throughput
[min-max] and commits per CPU-second of its workers (what a shared, loaded machine disturbs
least), per round this build over the other in both, and the share of committed NewOrders that
needed a second stage. Asserts nothing; fails on a consistency failure.

    python benchmarks/plp_stages.py [--against DIR] [--duration S] [--rounds N] [--cpus 0,1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from _runner import Runner
from islands.bench.rounds import interleaved, round_ratios, spread

#: label: TPC-C settings
CONFIGS = {
    "standard mix": {"mix": "standard"},
    "new_order": {"mix": "new_order"},
    "new_order 30% remote lines": {"mix": "new_order", "new_order_remote_item": 0.3},
}

# One run, in a process of its own: argv[1] a source tree to import islands from ("" for this
# one), argv[2] the run as JSON; prints the figures as JSON.
RUN = """
import json, sys
if sys.argv[1]:  # the other build: its package first, this checkout's editable finder gone
    sys.meta_path[:] = [f for f in sys.meta_path if "ScikitBuild" not in type(f).__name__]
    sys.path.insert(0, sys.argv[1])
import islands
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TpccConfig
spec = json.loads(sys.argv[2])
config = RunConfig(
    workload="tpcc",
    tpcc=TpccConfig(**spec["tpcc"]),
    engine=EngineConfig(cc="2pl", execution="plp"),
    driver=DriverConfig(cpus=tuple(spec["cpus"]), warmup_s=spec["warmup"], duration_s=spec["duration"]),
)
result = islands.run(config)
inst = result.instances[0]
print(json.dumps({
    "package": islands.__file__,
    "failures": result.check_failures,
    "tps": result.throughput_tps,
    "commits": result.commits,
    "cpu_ns": inst["cpu_ns"],
    "new_orders": result.commits_by_type.get("new_order", 0),
    "staged": inst.get("staged_commits", float("nan")),
}))
"""


def measure(tree: str, tpcc: dict, cpus: tuple[int, ...], warmup: float, duration: float) -> dict:
    """One run of TPC-C under PLP with the build of `tree` ("" for this one): its figures."""
    spec = {"tpcc": tpcc, "cpus": list(cpus), "warmup": warmup, "duration": duration}
    out = subprocess.run(
        [sys.executable, "-c", RUN, tree, json.dumps(spec)], check=True, capture_output=True, text=True
    ).stdout
    figures = json.loads(out.strip().splitlines()[-1])
    if tree and not figures["package"].startswith(tree):
        raise RuntimeError(f"--against {tree}: the run imported islands from {figures['package']}")
    if figures["failures"]:
        raise RuntimeError(f"{tree or 'this build'} {tpcc}: {figures['failures']}")
    cpu_s = figures["cpu_ns"] / 1e9
    figures["per_cpu"] = figures["commits"] / cpu_s if cpu_s > 0 else float("nan")
    return figures


RUNNER = Runner(
    __file__,
    __doc__,
    rounds=5,
    duration=1.0,
    warmup=0.3,
    rounds_help="rounds (each runs every configuration on each build)",
)
RUNNER.parser.add_argument("--against", default="", help="a source tree with a built islands/_core to compare with")
RUNNER.parser.add_argument("--cpus", default="0,1", help="the two workers' CPUs")


def main(args: argparse.Namespace) -> None:
    cpus = tuple(int(c) for c in args.cpus.split(","))
    against = str(Path(args.against).resolve()) if args.against else ""
    if against and not list(Path(against, "islands").glob("_core*.so")):
        sys.exit(f"--against {args.against}: no islands/_core*.so there (build it first)")
    builds = ["this", "other"] if against else ["this"]
    runs = [(config, build) for config in CONFIGS for build in builds]
    print(f"TPC-C under PLP on cpus {cpus}; {args.rounds} rounds x {len(runs)} runs of {args.duration} s")
    print(f"this build vs {against or '(none)'}\n")

    def measure_run(run: tuple[str, str]) -> dict:
        config, build = run
        return measure(against if build == "other" else "", CONFIGS[config], cpus, args.warmup, args.duration)

    figures = interleaved(runs, args.rounds, measure_run)
    for key, unit in (("tps", "txn/s"), ("per_cpu", "txn/CPU-s"), ("staged", "NewOrders"), ("new_orders", "NewOrders")):
        table = {run: [r[key] for r in rows] for run, rows in figures.items()}
        RUNNER.record_runs(key, table, unit=unit, labels=("configuration", "build"))
    print(f"{'configuration':28} {'build':6} {'txn/s median [min-max]':>32} {'txn per CPU-s median [min-max]':>34}")
    for config, build in runs:
        rows = figures[(config, build)]
        print(
            f"{config:28} {build:6} {spread([r['tps'] for r in rows], ',.0f'):>32} "
            f"{spread([r['per_cpu'] for r in rows], ',.0f'):>34}"
        )
    print("\nNewOrders committed in two stages (this build), median [min-max]:")
    for config in CONFIGS:
        rows = figures[(config, "this")]
        print(f"  {config:28} {spread([r['staged'] / max(r['new_orders'], 1) for r in rows], '.3f')}")
    if not against:
        return
    for label, key in (("throughput", "tps"), ("per CPU-second", "per_cpu")):
        print(f"\nthis build over the other, {label}, per round (median [min-max]):")
        for config in CONFIGS:
            this, other = figures[(config, "this")], figures[(config, "other")]
            print(f"  {config:28} {spread(round_ratios([t[key] for t in this], [o[key] for o in other]))}")


if __name__ == "__main__":
    RUNNER.run(main)
