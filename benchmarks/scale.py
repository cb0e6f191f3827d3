"""What a deployment costs as it grows: n = 2, 8, 24, 80 and 192 single-worker instances, planned
per-core on the 8x24 fixture's first n cores and run packed onto this machine's CPUs (functional
runs: islands.machine.oversubscription).

Per n it prints: start-up until every instance is ready (spawn, load and attach), the run directory's
shared memory (rings, doorbells), file descriptors and resident memory per instance, the idle cost
of an instance (CPU per second of an instance whose workers have nothing to do: open-loop clients at
a rate of one transaction a second per instance, no multisite work), the busy run's window and
commits, teardown, and the islands files left behind (none expected). The ratio columns show what
grows faster than n. Prints; asserts nothing.

    python benchmarks/scale.py [--sizes 2,8,24,80,192] [--transport shm|unix] [--duration S] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from _runner import Runner
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.execution.runner import execute, plan
from islands.machine.topology import read_topology

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "sysfs" / "xeon-platinum-8160-8x24"


def leftovers() -> set[str]:
    """This process's run directories in /dev/shm and the temp directory (islands-run-<pid>-*:
    other users' files do not count)."""
    found = set()
    for root in {"/dev/shm", tempfile.gettempdir()}:
        if os.path.isdir(root):
            found |= {f"{root}/{n}" for n in os.listdir(root) if n.startswith(f"islands-run-{os.getpid()}-")}
    return found


def one(n: int, transport: str, duration: float, idle: bool) -> dict:
    """One functional run of n instances: its launch figures, and the wall time around it."""
    topology = read_topology(FIXTURE)
    driver = (
        DriverConfig(warmup_s=0.1, duration_s=duration, clients="open", offered_rate=float(n))
        if idle
        else DriverConfig(warmup_s=0.1, duration_s=duration)
    )
    config = RunConfig(
        micro=MicroConfig(rows_per_site=1000, multisite=0.0 if idle else 0.2),
        engine=EngineConfig(cc="auto", lock_policy="auto"),
        driver=driver,
    )
    planned = plan(
        config, "per-core", topology=topology, cpus=topology.cpus[:n], oversubscribe=True, transport=transport
    )
    before = leftovers()
    began = time.monotonic()
    result = execute(planned)
    wall = time.monotonic() - began
    launch = result.launch
    cpu = [c for c in launch["cpu_s_after_ready"] if c is not None]
    return {
        "wall_s": wall,
        "ready_s": launch["ready_s"],
        "spawn_s": launch["spawn_s"],
        "load_s": result.load_s,
        "window_s": launch["window_s"],
        "teardown_s": launch["teardown_s"],
        "shm_mib": launch["run_directory_bytes"] / 2**20,
        "fds": max(f for f in launch["fds"] if f is not None),
        "rss_mib": statistics.mean(r for r in launch["rss_bytes"] if r is not None) / 2**20,
        "cpu_per_instance_s": statistics.mean(cpu) / launch["window_s"] if cpu else float("nan"),
        "commits": result.commits,
        "left": sorted(leftovers() - before),
        "checks": "ok" if not result.check_failures else "FAILED",
    }


RUNNER = Runner(__file__, __doc__, duration=1.0, duration_help="seconds of each run's window (idle and busy)")
RUNNER.parser.add_argument("--sizes", default="2,8,24,80,192", help="instance counts, comma-separated")
RUNNER.parser.add_argument("--transport", default="shm", choices=("shm", "unix"), help="messaging between instances")


def main(args: argparse.Namespace) -> None:
    sizes = [int(s) for s in args.sizes.split(",")]
    print(f"{len(os.sched_getaffinity(0))} cpus here; transport {args.transport}; window {args.duration:g} s")
    head = (
        f"{'n':>4} {'ready s':>8} {'spawn s':>8} {'load s':>7} {'teardown':>8} {'shm MiB':>8} {'fds':>4} "
        f"{'RSS MiB':>8} {'idle CPU':>9} {'busy s':>7} {'commits':>8} {'left':>4} checks"
    )
    print(head)
    for n in sizes:
        idle = one(n, args.transport, args.duration, idle=True)
        busy = one(n, args.transport, args.duration, idle=False)
        for key, unit in (
            ("ready_s", "s"),
            ("teardown_s", "s"),
            ("shm_mib", "MiB"),
            ("fds", "fds"),
            ("rss_mib", "MiB"),
        ):
            RUNNER.record(key, busy[key], unit=unit, instances=n, transport=args.transport)
        RUNNER.record("idle CPU per instance", idle["cpu_per_instance_s"], unit="CPU s/s", instances=n)
        print(
            f"{n:>4} {busy['ready_s']:>8.2f} {busy['spawn_s']:>8.2f} {busy['load_s']:>7.2f} {busy['teardown_s']:>8.2f} "
            f"{busy['shm_mib']:>8.1f} {busy['fds']:>4} {busy['rss_mib']:>8.1f} {idle['cpu_per_instance_s']:>8.1%} "
            f"{busy['wall_s']:>7.1f} {busy['commits']:>8,} {len(busy['left']) + len(idle['left']):>4} "
            f"{busy['checks']}/{idle['checks']}",
            flush=True,
        )
    print("idle CPU: CPU seconds an idle instance used per second of its window (1 worker, 1 txn/s offered)")


if __name__ == "__main__":
    RUNNER.run(main)
