"""002 Fig 6's placements with 2 and 4 workers (issue 16 item 5): TATP UpdateSubscriberData, a
transaction over Subscriber and SpecialFacility keyed alike, under PLP with every table's rows
of a unit owned together ("plp", engine.plp_units = shared_key) and with tables routed apart
(per_table) placed naive, workload-aware and ATraPos static (engine.plp_placement), all on the
hardware-aware system structures; and, with 2 pinned workers, 002's naive as it ran there,
oversaturated: two workers pinned to each core (engine.plp_workers_per_cpu = 2), the core's
Subscriber units on one and its SpecialFacility units on the other, each worker with its own
site and client (so a core's offered load is two closed-loop clients), every transaction
meeting both threads of its core. Its sites hold half the subscribers (--subscribers / 2), so
that the data is the same as the other designs'.

- 2 workers, pinned on this machine's two cores, one per socket (site_sockets 0, 1): the
  workload-aware and ATraPos placements coincide (Subscriber on worker 0, SpecialFacility on 1).
- 4 workers, unpinned on this machine's cores, labelled as two cores of each of two sockets of a
  2x8-core fixture (site_sockets 0, 0, 1, 1): workload-aware puts Subscriber's two partitions on
  socket 0 and SpecialFacility's on socket 1, ATraPos one of each pair on each socket. The OS
  schedules the 4 workers on 2 cores (oversubscribed), and sockets are labels: they share the
  caches, so only an injected delay (--delay-us, on every PLP message between workers of two
  sockets) makes a socket crossing cost anything.

All in one run, repetitions interleaved (every configuration once per round, every other round
in reverse order). Prints each configuration's median throughput [min-max], its share of commits
that met two owners, and its throughput over naive's and over oversaturated naive's (2 workers)
in the same round. Asserts nothing; fails on a consistency failure.

    python benchmarks/plp_two_table.py [--duration S] [--warmup S] [--rounds N] [--delay-us US]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
from pathlib import Path

import islands
from _runner import Runner, round_order
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TatpConfig
from islands.execution.launcher import run_deployment
from islands.execution.run_result import RunResult
from islands.figures.designs import DESIGNS
from islands.machine.placement import Deployment
from islands.machine.virtual_topology import virtual_sockets

DESIGN_NAMES = ("plp-hw", "naive", "naive-oversaturated", "workload-aware", "atrapos-static")
#: Designs with several workers per core: pinned only (2 workers here).
PINNED_ONLY = ("naive-oversaturated",)
FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "sysfs" / "xeon-e5-2640v2-2x8"


def run_config(design: str, workers: int, args: argparse.Namespace) -> RunConfig:
    """TATP UpdateSubscriberData under `design` (islands.figures.designs) on `workers` CPUs (one worker
    each; two with plp_workers_per_cpu 2)."""
    engine = EngineConfig(**DESIGNS[design].engine)
    driver = DriverConfig(cpus=tuple(range(workers)), warmup_s=args.warmup, duration_s=args.duration)
    subscribers = args.subscribers // engine.plp_workers_per_cpu  # the same data: a site per worker
    tatp = TatpConfig(subscribers_per_site=subscribers, id_draw="uniform", mix="update_subscriber_data")
    return RunConfig(workload="tatp", tatp=tatp, engine=engine, driver=driver)


def measure(design: str, workers: int, args: argparse.Namespace) -> RunResult:
    """One run: 2 workers pinned on this machine's cores (one virtual socket each), 4 unpinned,
    labelled two per socket of the fixture."""
    config = run_config(design, workers, args)
    if workers == 2:
        here = virtual_sockets(islands.read_topology(), 2, message_delay_us=args.delay_us)
        cpus = tuple(here.cpus[:2])
        deployment = Deployment(label="1ISL", instances=(cpus,), placement="islands", pinned=True)
        topology = here
    else:
        fixture = islands.read_topology(FIXTURE)
        topology = dataclasses.replace(fixture, message_delay_us=args.delay_us) if args.delay_us else fixture
        by_socket: dict[int, list[int]] = {}
        for cpu in topology.cpus:
            by_socket.setdefault(topology.socket_of(cpu), []).append(cpu)
        first, second = sorted(by_socket)[:2]
        cpus = (*by_socket[first][:2], *by_socket[second][:2])
        deployment = Deployment(label="1ISL", instances=(cpus,), placement="os", pinned=False)
    config = dataclasses.replace(config, driver=dataclasses.replace(config.driver, cpus=cpus, pin=workers == 2))
    result = run_deployment(deployment, config, transport="none", topology=topology)
    if result.check_failures:
        raise RuntimeError(f"{design}, {workers} workers: {result.check_failures}")
    return result


RUNNER = Runner(__file__, __doc__, rounds=3, duration=0.5, warmup=0.2)
RUNNER.parser.add_argument("--subscribers", type=int, default=100000, help="tatp.subscribers_per_site")
RUNNER.parser.add_argument("--delay-us", type=float, default=0.0, help="injected delay per message between sockets")


def main(args: argparse.Namespace) -> None:
    runs = [(w, d) for w in (2, 4) for d in DESIGN_NAMES if w == 2 or d not in PINNED_ONLY]
    tps: dict[tuple[int, str], list[float]] = {run: [] for run in runs}
    met: dict[tuple[int, str], list[float]] = {run: [] for run in runs}
    print(f"TATP UpdateSubscriberData, {args.subscribers:,} subscribers per site, delay {args.delay_us:g} us")
    print(f"{args.rounds} rounds x {len(runs)} runs of {args.duration} s (warm-up {args.warmup} s)\n")
    for rep in range(args.rounds):
        for run in round_order(runs, rep):
            result = measure(run[1], run[0], args)
            tps[run].append(result.throughput_tps)
            met[run].append(result.multisite_commits / result.commits if result.commits else float("nan"))
    RUNNER.record_runs("throughput", tps, unit="txn/s", labels=("workers", "design"))
    RUNNER.record_runs("met two owners", met, unit="fraction", labels=("workers", "design"))
    print(
        f"{'CPUs':>10}  {'design':28} {'txn/s median [min-max]':>34} {'met two owners':>15} "
        f"{'/ naive':>20} {'/ naive 2 per core':>20}"
    )
    for run in runs:
        workers, design = run
        values = tps[run]
        print(
            f"{workers:2d} {'pinned' if workers == 2 else 'unpinned':>8}  {DESIGNS[design].label:28} "
            f"{statistics.median(values):13,.0f} "
            f"[{min(values):,.0f}-{max(values):,.0f}] {statistics.median(met[run]):15.0%} "
            f"{_ratios(values, tps.get((workers, 'naive'))):>20} "
            f"{_ratios(values, tps.get((workers, 'naive-oversaturated'))):>20}"
        )


def _ratios(values: list[float], reference: list[float] | None) -> str:
    """Median [min-max] of the round-by-round ratios of `values` over `reference` ("-": none)."""
    if not reference:
        return "-"
    ratios = [a / b for a, b in zip(values, reference, strict=True)]
    return f"{statistics.median(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}]"


if __name__ == "__main__":
    RUNNER.run(main)
