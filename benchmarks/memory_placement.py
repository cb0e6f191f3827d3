"""Paper 002, Table 1 on islands: one instance per socket reading 100 random rows per
transaction from data several times the last-level cache, with each instance's memory on its
own NUMA node (local), all on the first socket's node (central), or each on the next socket's
node (remote). All in one run, repetitions interleaved (every policy once per round, every other
round in reverse order).

Prints each instance's throughput per policy (median over the rounds, like Table 1), and per
policy the change of the mean instance against local with its 95% interval. A policy the
machine cannot give (remote on one NUMA node) is printed with its reason and NaN. On one
node, local and central allocate alike: their difference is noise. Asserts nothing.

    python benchmarks/memory_placement.py [--duration S] [--rounds N] [--rows-per-site N]
"""

from __future__ import annotations

import argparse
import math
import statistics

from _runner import Runner, round_order
from islands.analysis.verdicts import change_words
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.execution.launcher import run_deployment
from islands.machine.memory_placement import MEMORY_POLICIES, memory_nodes
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

RUNNER = Runner(
    __file__, __doc__, rounds=3, duration=2.0, warmup=0.5, rounds_help="rounds (each runs every policy once)"
)
RUNNER.parser.add_argument("--rows-per-site", type=int, default=None, help="default: 4x the LLC per instance")


def main(args: argparse.Namespace) -> None:
    topology = read_topology()
    deployment = plan_deployment(topology, "per-socket")
    sites = len(deployment.instances[0])
    llc = max((c.size_bytes for c in topology.caches), default=32 << 20)
    row_bytes = 16 + 10 * 4 + 24  # header, 10 columns, about an index entry
    rows = args.rows_per_site or max(100_000, 4 * llc // (sites * row_bytes))
    cc = "none" if sites == 1 else "2pl"
    config = RunConfig(
        micro=MicroConfig(rows_per_site=rows, rows_per_txn=100, update=False),
        engine=EngineConfig(cc=cc, lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=args.warmup, duration_s=args.duration),
    )
    usable: list[str] = []
    reasons: dict[str, str] = {}
    for policy in MEMORY_POLICIES:
        try:
            memory_nodes(topology, deployment, policy)
            usable.append(policy)
        except ValueError as e:
            reasons[policy] = str(e)
    print(
        f"{deployment.name}: {deployment.n_instances} instance(s) of {sites} worker(s), "
        f"{topology.n_numa_nodes} NUMA node(s); read 100 rows of {rows:,} per site "
        f"({rows * sites * row_bytes / 2**20:,.0f} MiB per instance, LLC {llc / 2**20:,.0f} MiB); "
        f"{args.rounds} rounds of {args.duration} s\n"
    )
    tps: dict[str, list[list[float]]] = {p: [] for p in usable}  # policy -> rounds -> per instance
    for rep in range(args.rounds):
        for policy in round_order(usable, rep):
            result = run_deployment(deployment, config, transport="unix", topology=topology, memory=policy)
            tps[policy].append([float(i["throughput_tps"]) for i in result.instances])
    for policy, rounds in tps.items():
        for i in range(deployment.n_instances):
            RUNNER.record("throughput", [r[i] for r in rounds], unit="txn/s", memory=policy, instance=i)
    header = "".join(f"{'instance ' + str(i):>13}" for i in range(deployment.n_instances))
    print(f"{'policy':8}{header}   mean vs local (95% CI)")
    local = [statistics.fmean(r) for r in tps.get("local", [])]
    for policy in MEMORY_POLICIES:
        if policy not in tps:
            print(f"{policy:8}{'NaN':>13}   {reasons[policy]}")
            continue
        medians = [statistics.median(r[i] for r in tps[policy]) for i in range(deployment.n_instances)]
        means = [statistics.fmean(r) for r in tps[policy]]
        change = "" if policy == "local" or not local else change_words(means, local)
        cells = "".join(f"{m:>13,.0f}" if math.isfinite(m) else f"{'NaN':>13}" for m in medians)
        print(f"{policy:8}{cells}   {change}")
    print("\n002 Table 1 (8 sockets): central -2.5 to -6.2%, remote -3.3 to -7% against local")


if __name__ == "__main__":
    RUNNER.run(main)
