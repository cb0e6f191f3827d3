"""What handing transactions to their home's owner buys (issue 17, "our workers are also the
clients"; engine.plp_handoff): TATP GetSubData on 2 PLP workers, each drawing its own site's
subscribers uniformly.

  moved: as the run warms up, a plan moves `--move` of site 0's 10 routing units to worker 1
         (the run handle's ``apply``, as the ATraPos controller applies one). Worker 0 still draws on
         them: with W = 0 each such transaction is a round trip (an action to worker 1, the
         rendezvous, a decision); with W > 0 it is handed to worker 1 whole and runs there.
  calm:  no move: nothing to hand, so W > 0 costs only its check per draw.

Each configuration runs with W = 0 and each W of ``--windows``, all runs of a repetition in
turn, every other repetition in reverse order (one run set, repetitions interleaved). Prints the
throughput of each configuration relative to its W = 0 runs (geometric mean over the
repetitions, 95% interval) and its commits per CPU-second of its workers relative likewise
(what a shared, loaded machine disturbs least; a worker asleep waiting for a slot uses none), the
median txn/s for scale, and the share of transactions handed (whole run, the warm-up's before
the plan included) or spread over both workers. Asserts nothing; fails on a consistency failure or a plan
that did not apply.

    python benchmarks/plp_handoff.py [--rounds N] [--duration S] [--windows 4,8] [--move 5] [--subscribers N]
"""

from __future__ import annotations

import argparse
import statistics

import islands
from _runner import Runner, round_order
from islands import _core
from islands.analysis.statistics import ratio
from islands.analysis.verdicts import words_of
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TatpConfig


def move_units(handle: _core.RunningInstance, units: int) -> None:
    """Once the instance attaches (its warm-up), moves site 0's units 0..units-1 to worker 1."""
    if not handle.wait_attached(timeout_s=120):
        raise SystemExit("the run never attached")
    owners = handle.owners()
    for u in range(units):
        owners[u] = 1
    done = handle.apply(owners)
    if done is None or not done["completed"] or done["units_moved"] != units:
        raise SystemExit(f"the plan did not apply: {done}")


def one(moved: bool, window: int, args: argparse.Namespace, cpus: tuple[int, ...]) -> dict:
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=args.subscribers, mix="get_subscriber_data", id_draw="uniform"),
        engine=EngineConfig(execution="plp", plp_handoff=window),
        driver=DriverConfig(cpus=cpus, warmup_s=args.warmup, duration_s=args.duration),
    )
    result = islands.run_beside(config, lambda handle: move_units(handle, args.move)) if moved else islands.run(config)
    if result.check_failures:
        raise SystemExit(f"consistency: {result.check_failures}")
    inst = result.instances[0]
    commits = max(1, result.commits)
    return {
        "tps": result.throughput_tps,
        "per_cpu": result.commits / (inst["cpu_ns"] / 1e9) if inst["cpu_ns"] > 0 else float("nan"),
        "handed": inst["handoffs_run"] / max(1, result.checks["committed_txns"]),  # both whole run
        "spread": result.multisite_commits / commits,
    }


RUNNER = Runner(
    __file__,
    __doc__,
    rounds=5,
    duration=1.0,
    warmup=0.3,
    rounds_help="repetitions of each run (interleaved)",
    warmup_help="warm-up seconds (the plan applies in it)",
)
RUNNER.parser.add_argument("--windows", default="4,8", help="W values to compare with 0")
RUNNER.parser.add_argument("--move", type=int, default=5, help="site 0's units moved to worker 1 (1-10)")
RUNNER.parser.add_argument("--subscribers", type=int, default=100_000, help="subscribers per site")


def main(args: argparse.Namespace) -> None:
    windows = [int(w) for w in args.windows.split(",")]
    cpus = tuple(islands.read_topology().cpus[:2])
    if len(cpus) < 2:
        raise SystemExit("needs two online CPUs")
    if not 1 <= args.move <= 10:
        raise SystemExit(f"--move: 1 to 10 units of site 0, not {args.move}")
    runs = [(moved, w) for moved in (True, False) for w in [0, *windows]]
    results: dict[tuple[bool, int], list[dict]] = {r: [] for r in runs}
    for rep in range(args.rounds):
        for moved, w in round_order(runs, rep):
            results[(moved, w)].append(one(moved, w, args, cpus))
    print(
        f"PLP TATP GetSubData, 2 workers, {args.subscribers:,} subscribers per site, {args.duration} s measured,"
        f" {args.rounds} interleaved repetitions"
    )
    for key, unit in (("tps", "txn/s"), ("per_cpu", "txn/CPU-s"), ("handed", "fraction"), ("spread", "fraction")):
        table = {run: [r[key] for r in rs] for run, rs in results.items()}
        RUNNER.record_runs(key, table, unit=unit, labels=("moved", "window"))
    for moved in (True, False):
        label = f"moved ({args.move} of site 0's units on worker 1)" if moved else "calm (nothing moved)"
        base = results[(moved, 0)]
        print(
            f"{label}: W = 0 median {statistics.median(r['tps'] for r in base):,.0f} txn/s,"
            f" spread {statistics.median(r['spread'] for r in base):.0%}"
        )
        for w in windows:
            rs = results[(moved, w)]
            r = ratio([x["tps"] for x in rs], [x["tps"] for x in base])
            per_cpu = ratio([x["per_cpu"] for x in rs], [x["per_cpu"] for x in base])
            print(
                f"  W = {w:<2} / W = 0: {words_of(r)}; median {statistics.median(x['tps'] for x in rs):,.0f} txn/s,"
                f" handed {statistics.median(x['handed'] for x in rs):.0%},"
                f" spread {statistics.median(x['spread'] for x in rs):.0%}"
            )
            print(f"           per worker CPU-second: {words_of(per_cpu)}")


if __name__ == "__main__":
    RUNNER.run(main)
