"""What the write-ahead log costs: update throughput (microbenchmark, or TPC-B with --workload
tpcb) with the log off, asynchronous and group commit, in one shared-everything instance
(1ISL, 2PL) and one single-threaded instance per core (2PC between them), local-only and with
multisite transactions (TPC-B: remote tellers), with the log on tmpfs (/dev/shm) and on this
machine's disk.

Every run goes through islands.execution.launcher (the only runner with a log), so the off column is the
same code path. Prints the median of --rounds runs per point, the logging share of the
component breakdown (every 16th transaction timed), and the mean records per flush (group
size); asserts nothing.

    python benchmarks/log_modes.py [--workload micro|tpcb] [--duration S] [--rounds N] [--disk DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile

from _runner import Runner
from islands.analysis.verdicts import ratio_label
from islands.config.settings import (
    DriverConfig,
    EngineConfig,
    LogConfig,
    MicroConfig,
    ProfileConfig,
    RunConfig,
    TpcbConfig,
)
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology


def measure(deployment, config, transport, topology):
    """One run: throughput, logging share of the breakdown, records per flush, check held."""
    result = run_deployment(deployment, config, transport=transport, topology=topology)
    breakdown = result.profile.get("breakdown", {})
    total = breakdown.get("total_us", float("nan"))
    share = breakdown.get("logging_us", float("nan")) / total if total else float("nan")
    records = sum(i["log"]["records"] for i in result.instances)
    flushes = sum(i["log"]["flushes"] for i in result.instances)
    return result.throughput_tps, share, (records / flushes if flushes else float("nan")), not result.check_failures


RUNNER = Runner(__file__, __doc__, rounds=1, duration=2.0, rounds_help="runs per point (median shown)")
RUNNER.parser.add_argument(
    "--workload",
    choices=("micro", "tpcb"),
    default="micro",
    help="micro: update 10 rows; tpcb: AccountUpdate, one branch per core",
)
RUNNER.parser.add_argument("--disk", default="/var/tmp", help="a directory on a disk (not tmpfs)")


def main(args: argparse.Namespace) -> None:
    topology = read_topology()
    cpus = topology.cpus[:2]
    places = {"shm": "/dev/shm", "disk": args.disk}
    what = (
        "micro update, 10 rows of 10 columns"
        if args.workload == "micro"
        else "TPC-B AccountUpdate, one branch per core, 100,000 accounts each"
    )
    print(f"{len(cpus)} cpus; {what}, {args.duration:g} s measured, median of {args.rounds}; log directories: {places}")
    share_name = "multisite" if args.workload == "micro" else "remote"
    print(
        f"{'deployment':<10} {share_name:>9} {'log':<18} {'txn/s':>12} {'vs off [95% CI]':>24} "
        f"{'logging':>8} {'rec/flush':>9}  check"
    )
    for label, spec in (("1ISL", "1"), ("per-core", "per-core")):
        deployment = plan_deployment(topology, spec, cpus=cpus)
        single = deployment.n_instances == 1
        for multisite in (0.0,) if single else (0.0, 0.2 if args.workload == "micro" else 0.15):
            base = None
            for mode, place in (
                ("off", None),
                ("async", "shm"),
                ("group_commit", "shm"),
                ("async", "disk"),
                ("group_commit", "disk"),
            ):
                samples, shares, groups, held = [], [], [], True
                for rep in range(args.rounds):
                    directory = tempfile.mkdtemp(prefix="islands-log-", dir=places[place]) if place else ""
                    try:
                        config = RunConfig(
                            workload=args.workload,
                            micro=MicroConfig(update=True, multisite=multisite, rows_per_site=10_000),
                            tpcb=TpcbConfig(remote=multisite),
                            engine=EngineConfig(
                                cc="2pl" if single else "none", lock_policy="wait_die" if single else "no_wait"
                            ),
                            driver=DriverConfig(warmup_s=0.3, duration_s=args.duration, seed=1 + rep),
                            profile=ProfileConfig(breakdown_every=16),
                            log=LogConfig(mode=mode, directory=directory),
                        )
                        tps, share, group, ok = measure(deployment, config, "shm", topology)
                    finally:
                        if directory:
                            shutil.rmtree(directory, ignore_errors=True)
                    samples.append(tps)
                    shares.append(share)
                    groups.append(group)
                    held = held and ok
                labels = {"deployment": label, "multisite": multisite, "log": mode, "place": place}
                RUNNER.record("throughput", samples, unit="txn/s", **labels)
                RUNNER.record("logging share", shares, unit="fraction", **labels)
                RUNNER.record("records per flush", groups, unit="records", **labels)
                tps = statistics.median(samples)
                base = samples if mode == "off" else base
                name = mode if place is None else f"{mode} ({place})"
                versus = ratio_label(samples, base, digits=2)  # the ratio, its 95% interval, "n.d." or "(1 run)"
                print(
                    f"{label:<10} {multisite:>9.0%} {name:<18} {tps:>12,.0f} {versus:>24} "
                    f"{statistics.median(shares):>8.1%} {statistics.median(groups):>9.1f}  "
                    f"{'ok' if held else 'FAILED'}"
                )


if __name__ == "__main__":
    RUNNER.run(main)
