"""What early lock release buys: logged TPC-B (group commit) with log.early_lock_release on and
off, in one shared-everything instance (1ISL: one worker per CPU, 2PL wait-die) and one
single-threaded instance per core (per-core: cc none, 2PC between instances over --transport)
at 0% and 15% remote (the specification's share; a remote transaction takes a teller of
another branch, paper 000's choice).

Without early lock release a commit keeps its locks until its record is durable, so the hot
branch row of a shared instance admits one commit per flush; a distributed transaction's
coordinator keeps its branch row through its decision's flush. With it the locks go once the
record is appended and only the acknowledgement waits (exec/commit_pipeline.hpp). Per-core at
0% remote holds no locks in either case (cc none): the two should not be distinguishable.

Repetitions are interleaved (every configuration once per round, every other round in reverse
order). Prints, per setup, the geometric mean throughput with ELR off and on and their ratio
on/off (of those geometric means) with its 95% interval (islands.analysis.statistics, Welch's t on the
logarithms), the mean records per flush (group size) and whether every run's consistency check
held. Asserts nothing.

    python benchmarks/early_lock_release.py [--duration S] [--rounds N] [--log-dir DIR] [--transport unix|shm]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile

from _runner import Runner, round_order
from islands.analysis.verdicts import ratio_words
from islands.config.settings import DriverConfig, EngineConfig, LogConfig, RunConfig, TpcbConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

# (label, deployment spec, remote share)
SETUPS = (("1ISL", 1, 0.0), ("per-core", "per-core", 0.0), ("per-core", "per-core", 0.15))


def measure(
    spec: int | str, remote: float, early: bool, args: argparse.Namespace, seed: int
) -> tuple[float, float, bool]:
    """One run: throughput, records per flush, whether the consistency check held."""
    topology = read_topology()
    cpus = topology.cpus[:2]
    deployment = plan_deployment(topology, spec, cpus=cpus)
    single = deployment.n_instances == 1
    directory = tempfile.mkdtemp(prefix="islands-elr-", dir=args.log_dir)
    try:
        config = RunConfig(
            workload="tpcb",
            tpcb=TpcbConfig(accounts_per_branch=10_000, remote=remote),
            engine=EngineConfig(cc="2pl" if single else "none", lock_policy="wait_die" if single else "no_wait"),
            driver=DriverConfig(warmup_s=args.warmup, duration_s=args.duration, seed=seed),
            log=LogConfig(mode="group_commit", directory=directory, early_lock_release=early),
        )
        result = run_deployment(deployment, config, transport="none" if single else args.transport, topology=topology)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    records = sum(i["log"]["records"] for i in result.instances)
    flushes = sum(i["log"]["flushes"] for i in result.instances)
    return result.throughput_tps, (records / flushes if flushes else float("nan")), not result.check_failures


RUNNER = Runner(__file__, __doc__, rounds=5, duration=1.0, warmup=0.2)
RUNNER.parser.add_argument("--log-dir", default="/dev/shm", help="where the runs' logs go (tmpfs by default)")
RUNNER.parser.add_argument("--transport", choices=("unix", "shm"), default="unix", help="per-core messaging")


def main(args: argparse.Namespace) -> None:
    configs = [(setup, early) for setup in SETUPS for early in (False, True)]
    tps: dict[tuple, list[float]] = {c: [] for c in configs}
    groups: dict[tuple, list[float]] = {c: [] for c in configs}
    held = dict.fromkeys(configs, True)
    for rep in range(args.rounds):
        for setup, early in round_order(configs, rep):
            _, spec, remote = setup
            t, g, ok = measure(spec, remote, early, args, seed=1 + rep)
            tps[(setup, early)].append(t)
            groups[(setup, early)].append(g)
            held[(setup, early)] = held[(setup, early)] and ok
    print(
        f"logged TPC-B (group commit, log in {args.log_dir}), 2 cpus, {args.duration:g} s measured, "
        f"{args.rounds} interleaved rounds; per-core over {args.transport}"
    )
    print(
        f"{'deployment':<10} {'remote':>6} {'ELR off txn/s':>14} {'ELR on txn/s':>13} "  # geometric means
        f"{'rec/flush off':>13} {'on':>6}  {'ELR on / off':<40} check"
    )
    for setup in SETUPS:
        label, _, remote = setup
        off, on = (setup, False), (setup, True)
        for early in (False, True):
            labels = {"deployment": label, "remote": remote, "early_lock_release": early}
            RUNNER.record("throughput", tps[(setup, early)], unit="txn/s", **labels)
            RUNNER.record("records per flush", groups[(setup, early)], unit="records", **labels)
        ok = "ok" if held[off] and held[on] else "FAILED"
        print(
            f"{label:<10} {remote:>6.0%} {statistics.geometric_mean(tps[off]):>14,.0f} "
            f"{statistics.geometric_mean(tps[on]):>13,.0f} "
            f"{statistics.mean(groups[off]):>13.1f} {statistics.mean(groups[on]):>6.1f}  "
            f"{ratio_words(tps[on], tps[off]):<40} {ok}"
        )


if __name__ == "__main__":
    RUNNER.run(main)
