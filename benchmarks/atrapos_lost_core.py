"""002 Fig 12 on this machine: a worker's core taken away while PLP runs, ATraPos against the
static configuration (issue 17 items 4-5).

Two workers, one virtual socket each (the machine has 2 cores). Micro updating 2 rows, half
of the transactions on both partitions, over 2 x 100 K rows; the ATraPos controller
(islands/atrapos/live.py: the paper's interval logic, here from 1 s doubling to 8 s) runs
beside the instance with the monitor on. At ``--at`` seconds worker 1's core is taken away
(parked: it draws nothing and serves its units only every 0.5 ms, as a thread sharing another
core would). Static keeps the units where they are; adaptive moves them away. Printed: each
run's median throughput before and after, the adaptive run's re-partitionings (when, units,
pause) and its adaptation time (seconds from the change to within 10% of the new steady state;
paper 002: at most 5 s). ``--png`` writes the figure. Phases are shorter than the paper's
(20 s + 40 s). Prints figures; asserts nothing.

    python benchmarks/atrapos_lost_core.py [--at S] [--duration S] [--png FILE]
"""

from __future__ import annotations

import argparse
import statistics

import islands
from _runner import Runner
from islands.analysis.verdicts import change_words
from islands.atrapos.adaptation import adaptation_time
from islands.atrapos.live import Event, run_live
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.plots.atrapos_timelines import Timeline, plot_cores_removed

INTERVAL_S = 0.25


RUNNER = Runner(__file__, __doc__, duration=14.0, duration_help="measured seconds")
RUNNER.parser.add_argument("--at", type=float, default=4.0, help="seconds into the window the core goes")
RUNNER.parser.add_argument("--png", default="", help="write the figure here")


def main(args: argparse.Namespace) -> None:
    cpus = tuple(islands.read_topology().cpus[:2])
    if len(cpus) < 2:
        raise SystemExit("needs two online CPUs")
    config = RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=100_000, rows_per_txn=2, multisite=0.5),
        engine=EngineConfig(execution="plp", plp_monitor=True),
        driver=DriverConfig(cpus=cpus, warmup_s=0.5, duration_s=args.duration, timeline_interval_s=INTERVAL_S),
    )
    lost = [Event(args.at, "park", (1,))]
    runs = {}
    for label, adaptive in (("ATraPos", True), ("static", False)):
        result, log = run_live(config, adaptive=adaptive, events=lost)
        if result.check_failures:
            raise SystemExit(f"{label}: {result.check_failures}")
        runs[label] = (result, log)
    print(f"002 Fig 12 (emulated): worker 1 of 2 parked at {args.at} s of {args.duration} s; 2 virtual sockets")
    for label, (result, log) in runs.items():
        tps = list(result.timeline_tps)
        RUNNER.record("throughput per interval", tps, unit="txn/s", run=label, interval_s=INTERVAL_S)
        k = int(args.at / INTERVAL_S)
        before, after = statistics.median(tps[:k]), statistics.median(tps[k + 1 :])
        change = change_words(tps[k + 1 :], tps[:k])  # the intervals after the event against those before
        print(
            f"{label:>8}: before {before:,.0f} txn/s, after {after:,.0f} txn/s ({change}, {INTERVAL_S:g} s intervals)"
        )
        for r in log.repartitions:
            pause_ms = r["pause_ns"] / 1e6
            print(f"          re-partitioned at {r['at_s']:.2f} s: {r['units_moved']} units, pause {pause_ms:.3f} ms")
        if log.repartitions:
            t = adaptation_time(tps, INTERVAL_S, args.at)
            print(f"          adaptation time: {t:.2f} s (paper 002: <= 5 s; resolution {INTERVAL_S} s)")
    if args.png:
        atrapos, alog = runs["ATraPos"]
        drawing = plot_cores_removed(
            Timeline.of_result("ATraPos", atrapos),
            Timeline.of_result("static", runs["static"][0]),
            args.at,
            what="worker 1's core taken away",
            repartitions=[r["at_s"] for r in alog.repartitions],
            note=f"2 virtual sockets over 2 cores; micro; {args.duration:g} s instead of 60 s",
        )
        drawing.figure.savefig(args.png, dpi=120)
        print(drawing.summary)


if __name__ == "__main__":
    RUNNER.run(main)
