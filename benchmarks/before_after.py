"""Throughput of two builds of islands side by side: every workload on one shared instance
(in-process), per-core over unix sockets and shared memory, and one PLP instance (in-process),
repetitions interleaved
(A, B, B, A, A, B, ...: every other round in reverse order) so that a noisy machine affects both
alike. Prints the median of each, the ratio B / A with its 95% interval and "not
distinguishable" when the interval includes 1 (:mod:`islands.analysis.statistics`), and the
median and min-max of the per-repetition ratios. A benchmark, not a test: it prints, it asserts
nothing.

    python benchmarks/before_after.py --before /path/to/venv/bin/python [--duration S] [--rounds N]
        [--workloads ...] [--deployments ...] [--multisite F]

--multisite sets the share of distributed transactions of micro (multisite) and TPC-B
(remote); TATP and TPC-C keep their own.

"Before" is an interpreter whose environment holds an older revision (a virtual environment
with numpy, pandas, pyarrow, matplotlib, rich and psutil and a ``pip install`` of it); "after"
is the package this interpreter imports. Instance processes of a deployment run under the
interpreter that launched them, so each side is measured whole.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile

from _runner import Runner, round_order

CHILD = r"""
import json, sys
try:  # the package by layer (machine/, execution/)
    from islands.config.settings import (DriverConfig, EngineConfig, MicroConfig, RunConfig, TpcbConfig,
                                           TatpConfig, TpccConfig)
    from islands.machine.topology import read_topology
    from islands.machine.placement import plan_deployment
    from islands.execution.launcher import run_deployment
    from islands.execution.in_process import run
except ImportError:  # a revision before it (flat modules)
    from islands.config import (DriverConfig, EngineConfig, MicroConfig, RunConfig, TpcbConfig, TatpConfig,
                                TpccConfig)
    from islands.topology import read_topology
    from islands.placement import plan_deployment
    from islands.launch import run_deployment
    from islands.run import run
spec = json.loads(sys.argv[1])
cpus = tuple(read_topology().cpus[:2])
ms = spec["multisite"]
sections = {
    "micro-read": dict(workload="micro", micro=MicroConfig(rows_per_txn=10, multisite=ms)),
    "micro-update": dict(workload="micro", micro=MicroConfig(rows_per_txn=10, update=True, multisite=ms)),
    "tpcb": dict(workload="tpcb", tpcb=TpcbConfig(accounts_per_branch=10_000, remote=ms)),
    "tatp": dict(workload="tatp", tatp=TatpConfig(subscribers_per_site=10_000)),
    "tpcc": dict(workload="tpcc", tpcc=TpccConfig(mix="50-50", items=10_000, customers_per_district=300)),
}[spec["workload"]]
driver = DriverConfig(cpus=cpus, warmup_s=0.3, duration_s=spec["duration"])
if spec["deployment"] == "1ISL":
    result = run(RunConfig(engine=EngineConfig(cc="2pl"), driver=driver, **sections))
elif spec["deployment"] == "plp":  # one PLP instance: each worker owns its site's partition
    result = run(RunConfig(engine=EngineConfig(cc="2pl", execution="plp"), driver=driver, **sections))
else:
    cfg = RunConfig(engine=EngineConfig(cc="none", lock_policy="no_wait"), driver=driver, **sections)
    result = run_deployment(plan_deployment(read_topology(), "per-core", cpus=cpus), cfg, transport=spec["deployment"])
print(json.dumps({"tps": result.throughput_tps}))
"""

WORKLOADS = ("micro-read", "micro-update", "tpcb", "tatp", "tpcc")
DEPLOYMENTS = ("1ISL", "unix", "shm", "plp")


def measure(python: str, spec: dict[str, object]) -> float:
    """One run in a fresh `python`; transactions per second (NaN when it failed)."""
    # From a neutral directory: `python -c` puts the working directory first on sys.path.
    out = subprocess.run(
        [python, "-c", CHILD, json.dumps(spec)], capture_output=True, text=True, check=False, cwd=tempfile.gettempdir()
    )
    if out.returncode != 0:
        print(f"  {python} {spec}: {out.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
        return float("nan")
    return float(json.loads(out.stdout.strip().splitlines()[-1])["tps"])


RUNNER = Runner(__file__, __doc__, rounds=3, duration=1.0)
RUNNER.parser.add_argument("--before", required=True, help="interpreter of the older revision")
RUNNER.parser.add_argument("--workloads", nargs="+", choices=WORKLOADS, default=WORKLOADS)
RUNNER.parser.add_argument("--deployments", nargs="+", choices=DEPLOYMENTS, default=DEPLOYMENTS)
RUNNER.parser.add_argument(
    "--multisite", type=float, default=0.0, help="share of distributed transactions (micro multisite, TPC-B remote)"
)


def main(args: argparse.Namespace) -> None:
    from islands.analysis.verdicts import ratio_words

    print(
        f"{'workload':13} {'deployment':10} {'before txn/s':>13} {'after txn/s':>13}"
        f" {'paired ratios: median [min-max]':>32}  after/before"
    )
    for workload in args.workloads:
        for deployment in args.deployments:
            spec = {"workload": workload, "deployment": deployment, "duration": args.duration}
            spec["multisite"] = args.multisite
            runs: dict[str, list[float]] = {"before": [], "after": []}
            for rep in range(args.rounds):
                for side in round_order(("before", "after"), rep):
                    runs[side].append(measure(args.before if side == "before" else sys.executable, spec))
            before, after = runs["before"], runs["after"]
            RUNNER.record("throughput", before, unit="txn/s", workload=workload, deployment=deployment, build="before")
            RUNNER.record("throughput", after, unit="txn/s", workload=workload, deployment=deployment, build="after")
            b, a = statistics.median(before), statistics.median(after)
            change = ratio_words(after, before)
            # Each repetition's after / before (the two ran back to back): their spread says how
            # far the machine's noise reaches.
            paired = [y / x for x, y in zip(before, after, strict=True)]
            shown = f"{statistics.median(paired):.3f} [{min(paired):.3f}-{max(paired):.3f}]"
            print(f"{workload:13} {deployment:10} {b:13,.0f} {a:13,.0f} {shown:>32}  {change}", flush=True)


if __name__ == "__main__":
    RUNNER.run(main)
