"""ATraPos monitoring overhead (paper 002 Sec V-D, Table 2; issue 17 item 1).

Two measurements, each with repetitions interleaved (the modes once per round, every other
round in reverse order):

1. the monitor's cost per recorded action, from a C++ loop of small actions (read and update
   one 8-byte row of a 64 K-row table) run with no monitoring ("off"), with counting
   ("counts": sub-partition lookup + action count + a constant cost; every 4th action also a
   synchronization record) and with timing ("timed": as counts, the cost being one cycle-clock
   read per action). Overhead = mode - off, in the same round;
2. the engine's time per TATP transaction (one worker, GetSubData alone and the standard mix),
   to put that overhead in proportion: estimated share = overhead per action x actions per
   transaction / time per transaction (GetSubData: 1 action; the standard mix: 1.14 actions
   and 0.14 synchronizations on average). The monitor is not wired into a partitioned engine
   yet (PLP is being built), so this share is an estimate, not a measured TATP slowdown.

Paper 002 Table 2: at most 3.32% (GetSubData); issue 17's target: 2%. Prints figures; asserts
nothing.

    python benchmarks/atrapos_monitoring.py [--actions N] [--rounds N] [--duration S] [--cpu C]
"""

from __future__ import annotations

import argparse
import statistics

from _runner import Runner, round_order
from islands import _core
from islands.bench.rounds import spread
from islands.config.settings import DriverConfig, RunConfig, TatpConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

MODES = ("off", "counts", "timed")
#: TATP transaction: (mix share %, actions = tables touched, synchronization points)
TATP = {
    "get_subscriber_data": (35, 1, 0),
    "get_new_destination": (10, 2, 1),
    "get_access_data": (35, 1, 0),
    "update_subscriber_data": (2, 2, 1),
    "update_location": (14, 1, 0),
    "insert_call_forwarding": (2, 2, 1),
    "delete_call_forwarding": (2, 1, 0),
}
MIX_ACTIONS = sum(share * actions for share, actions, _ in TATP.values()) / 100


def tatp_ns_per_txn(mix: str, cpu: int, warmup: float, duration: float) -> float:
    topology = read_topology()
    config = RunConfig(
        workload="tatp", tatp=TatpConfig(mix=mix), driver=DriverConfig(warmup_s=warmup, duration_s=duration)
    )
    result = run_deployment(plan_deployment(topology, 1, cpus=(cpu,)), config, transport="none", topology=topology)
    if result.check_failures:
        raise RuntimeError(f"TATP {mix}: {result.check_failures}")
    return 1e9 / result.throughput_tps


RUNNER = Runner(
    __file__,
    __doc__,
    rounds=7,
    duration=1.0,
    rounds_help="rounds of the loop (every mode once per round)",
    duration_help="measured seconds per TATP run",
)
RUNNER.parser.add_argument("--actions", type=int, default=20_000_000, help="loop iterations per run")
RUNNER.parser.add_argument("--tatp-reps", type=int, default=3, help="rounds of the TATP runs")
RUNNER.parser.add_argument("--cpu", type=int, default=None, help="the CPU of the TATP worker (default: the first)")


def main(args: argparse.Namespace) -> None:
    if args.actions < 1 or args.tatp_reps < 1:
        RUNNER.parser.error("--actions and --tatp-reps must be positive")
    cpu = args.cpu if args.cpu is not None else read_topology().cpus[0]

    ns: dict[str, list[float]] = {m: [] for m in MODES}
    over: dict[str, list[float]] = {m: [] for m in MODES[1:]}
    for rep in range(args.rounds):
        this_round = {}
        for mode in round_order(MODES, rep):
            this_round[mode] = _core.atrapos_monitoring_bench(mode, args.actions)["ns_per_action"]
            ns[mode].append(this_round[mode])
        for mode in over:
            over[mode].append(this_round[mode] - this_round["off"])
    print(f"monitoring loop: {args.actions:,} actions per run, {args.rounds} rounds; ns per action median [min-max]")
    for mode in MODES:
        extra = f"   overhead {spread(over[mode], '.2f')} ns per recorded action" if mode in over else ""
        print(f"  {mode:7} {spread(ns[mode], '.2f')}{extra}")

    RUNNER.record_runs("loop time per action", ns, unit="ns", labels=("mode",))
    RUNNER.record_runs("overhead per recorded action", over, unit="ns", labels=("mode",))
    mixes = ("get_subscriber_data", "standard")
    per_txn: dict[str, list[float]] = {m: [] for m in mixes}
    for rep in range(args.tatp_reps):
        for mix in round_order(mixes, rep):
            per_txn[mix].append(tatp_ns_per_txn(mix, cpu, 0.3, args.duration))
    print(f"\nTATP on one worker (cpu {cpu}), {args.tatp_reps} rounds of {args.duration} s; ns per transaction")
    for mix in mixes:
        actions = 1.0 if mix == "get_subscriber_data" else MIX_ACTIONS
        txn = statistics.median(per_txn[mix])
        shares = "  ".join(f"{mode} {100 * statistics.median(over[mode]) * actions / txn:.2f}%" for mode in over)
        print(f"  {mix:20} {spread(per_txn[mix], '.0f')} ns ({actions:.2f} actions): estimated overhead {shares}")
    RUNNER.record_runs("TATP time per transaction", per_txn, unit="ns", labels=("mix",))
    print("\npaper 002 Table 2: at most 3.32% (GetSubData); issue 17 target: 2%")


if __name__ == "__main__":
    RUNNER.run(main)
