"""ATraPos monitoring overhead measured in the engine (paper 002 Table 2; issue 17 item 1).

TATP under PLP (100 K subscribers per site), each transaction type alone and the standard mix,
with the monitor recording (engine.plp_monitor: every committed transaction records its actions
per unit, a cost and its synchronizations in the workers' own arrays) and not. Both are
measured within one run: the monitor is on, and a thread beside the run switches its recording
off and on every --phase seconds (the run handle's ``monitor_recording``); the run's throughput
timeline (10 ms intervals) gives each phase's rate, leaving out the intervals next to a
switch. Within one run the tables, their memory and the worker's placement are the same for
both, which runs of their own are not (separate runs of the same configuration differ by up to
10% here). Printed per transaction type: the median rate of the phases with recording off and
on, and the overhead off/on - 1 (the extra time per transaction recording costs) with its
confidence interval over the phases (islands.analysis.statistics.ratio). Paper 002 Table 2: at most 3.32%;
issue 17's target: 2%. Prints figures; asserts nothing. The measurement is
islands.atrapos.monitor_overhead's; ``islands reproduce 002-table2`` draws Table 2 from an
experiment file (experiments/002-table2-monitoring.toml).

    python benchmarks/plp_monitoring.py [--workers N] [--duration S] [--phase S] [--types MIX ...]
"""

from __future__ import annotations

import argparse
import statistics

import islands
from _runner import Runner
from islands.analysis.statistics import CONFIDENCE
from islands.analysis.verdicts import change_words
from islands.atrapos.monitor_overhead import measure_monitor_overhead
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TatpConfig

MIXES = (
    "get_subscriber_data",
    "get_new_destination",
    "get_access_data",
    "update_subscriber_data",
    "update_location",
    "standard",
)
WARMUP_S = 0.2


def phases_tps(mix: str, duration: float, phase_s: float, cpus: tuple[int, ...]) -> tuple[list[float], list[float]]:
    """One run of ``mix`` with recording switched off and on (islands.atrapos.monitor_overhead):
    the mean rate of each phase with recording off, and of each with it on."""
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(mix=mix),
        engine=EngineConfig(execution="plp", plp_monitor=True),
        driver=DriverConfig(cpus=cpus, warmup_s=WARMUP_S, duration_s=duration),
    )
    result, out = measure_monitor_overhead(config, phase_s)
    if result.check_failures:
        raise SystemExit(f"{mix}: {result.check_failures}")
    if out["error"]:
        raise SystemExit(f"{mix}: {out['error']}")
    return out["off_tps"], out["on_tps"]


RUNNER = Runner(__file__, __doc__, duration=4.0, duration_help="measured seconds per transaction type")
RUNNER.parser.add_argument("--workers", type=int, default=2, help="PLP workers (one per CPU; default 2)")
RUNNER.parser.add_argument("--phase", type=float, default=0.1, help="seconds between switches of the recording")
RUNNER.parser.add_argument(
    "--types", nargs="+", choices=MIXES, default=list(MIXES), help="the mixes to run (default all)"
)


def main(args: argparse.Namespace) -> None:
    cpus = tuple(islands.read_topology().cpus[: args.workers])
    what = f"{args.duration:g} s per type, recording switched every {args.phase:g} s"
    print(f"TATP under PLP, {len(cpus)} worker(s), monitor recording off vs on within one run, {what}")
    head = f"overhead (off / on rate - 1, {CONFIDENCE:.0%} interval over the phases)"
    print(f"{'transaction':<24} {'off txn/s':>11} {'on txn/s':>11}  {head}")
    for mix in args.types:
        off, on = phases_tps(mix, args.duration, args.phase, cpus)
        change = change_words(off, on)
        RUNNER.record("throughput per phase", off, unit="txn/s", transaction=mix, recording=False)
        RUNNER.record("throughput per phase", on, unit="txn/s", transaction=mix, recording=True)
        print(f"{mix:<24} {statistics.median(off):>11,.0f} {statistics.median(on):>11,.0f}  {change}")
    print("paper 002 Table 2: <= 3.32%; issue 17 target: <= 2%")


if __name__ == "__main__":
    RUNNER.run(main)
