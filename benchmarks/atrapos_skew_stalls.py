"""Stalls after 002 Fig 11's skew, and whose they are: many short runs, ATraPos and static
interleaved, the instance's commits and each worker's CPU and run-queue time sampled every 20 ms
(issue 47).

TATP GetSubData on one PLP instance of two pinned workers (50 K subscribers a site, as
experiments/002-fig11-skew.toml); at 30% of the window half of the requests go to the first 20%
of the subscribers (worker 0's), so about 69% of the actions land on worker 0 and most of
worker 1's transactions wait at a rendezvous for worker 0. A sampler thread reads the commits
(the run's handle) and each worker thread's CPU time, run-queue delay and state
(/proc/self/task/<tid>/schedstat and stat; Linux). A 20-ms window after the skew below
--floor of the run's pre-skew rate is a stall. It is the machine's when a worker was runnable
('R' at either look, or a run-queue delay over half the window) but ran less than --starved
of it (other processes had its CPU, or the hypervisor); else the engine's (every worker
ran, or slept, and little committed: a spin, a cycle). A run stalled at its end committed
nothing in its last 0.3 s of samples. Prints per mode the runs, the post/pre throughput
(median, ratio with its interval), the stalled windows and whose. Asserts nothing; run it at
nice 10 on a shared machine.

    python benchmarks/atrapos_skew_stalls.py [--rounds N] [--duration S] [--handoff W]
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
from dataclasses import dataclass, field

import islands
from _runner import Runner, round_order
from islands.analysis.verdicts import ratio_words
from islands.atrapos.adaptive_loop import AdaptiveLoop
from islands.atrapos.controller import IntervalController
from islands.atrapos.hardware import Hardware
from islands.atrapos.live import Event, LiveController
from islands.config.sections import TatpConfig
from islands.config.settings import DriverConfig, EngineConfig, RunConfig
from islands.execution.in_process import start

RUNNER = Runner(__file__, __doc__, rounds=20, duration=2.5, warmup=0.2)
RUNNER.parser.add_argument("--handoff", type=int, default=0, help="engine.plp_handoff (default 0, the experiment's)")
RUNNER.parser.add_argument("--floor", type=float, default=0.01, help="a stall: below this share of the pre-skew rate")
RUNNER.parser.add_argument("--starved", type=float, default=0.2, help="a runnable worker that ran less: the machine's")

SKEW_AT = 0.3  # of the window
SAMPLE_S = 0.02


@dataclass
class Sample:
    """One look: seconds into the window, commits so far, per worker (CPU ns, run-queue ns, state)."""

    at: float
    commits: int
    workers: list[tuple[int, int, str]] = field(default_factory=list)


def worker_tids(n: int) -> list[str] | None:
    """The kernel ids of this process's PLP worker threads islands-w0..n-1 (None: not one each)."""
    named: dict[str, list[str]] = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/comm") as f:
                named.setdefault(f.read().strip(), []).append(tid)
        except OSError:
            continue
    tids = [named.get(f"islands-w{k}", []) for k in range(n)]
    return [t[0] for t in tids] if all(len(t) == 1 for t in tids) else None


def look(tid: str) -> tuple[int, int, str]:
    """A thread's CPU time and run-queue delay so far (ns) and its state now."""
    try:
        with open(f"/proc/self/task/{tid}/schedstat") as f:
            ran, waited = (int(x) for x in f.read().split()[:2])
        with open(f"/proc/self/task/{tid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return 0, 0, "?"
    return ran, waited, state


def sample(handle, window_start: float, n: int, out: list[Sample], halt: threading.Event) -> None:
    """Every SAMPLE_S until `halt`: the commits and each worker's kernel figures."""
    tids = None
    while not halt.is_set() and tids is None:
        tids = worker_tids(n)
        halt.wait(0.005)
    while tids is not None and not halt.wait(SAMPLE_S):
        commits = handle.commits()
        if commits is None:
            continue
        out.append(Sample(time.monotonic() - window_start, commits, [look(t) for t in tids]))


def classify(samples: list[Sample], skew_s: float, floor: float, starved: float) -> tuple[float, int, int, bool]:
    """Post/pre throughput of one run (medians of its windows), its stalled windows after the
    skew, those of them with a runnable worker starved, and whether it committed nothing in
    its last 0.3 s."""
    rates, stalls = [], []
    for a, b in zip(samples, samples[1:]):
        dt = b.at - a.at
        if dt <= 0:
            continue
        ran = [(y[0] - x[0]) / 1e9 / dt for x, y in zip(a.workers, b.workers)]
        # runnable at either look, or its run-queue delay (counted when it next runs) over half the window
        runnable_starved = any(
            r < starved and ("R" in (x[2], y[2]) or (y[1] - x[1]) / 1e9 / dt > 0.5)
            for r, x, y in zip(ran, a.workers, b.workers)
        )
        rates.append((b.at, (b.commits - a.commits) / dt, runnable_starved))
    pre = [r for at, r, _ in rates if 0 < at < skew_s]
    post = [(at, r, s) for at, r, s in rates if at > skew_s + 0.05]
    if not pre or not post:
        return float("nan"), 0, 0, False
    base = statistics.median(pre)
    stalls = [s for _, r, s in post if r < floor * base]
    last = [r for at, r, _ in post if at > post[-1][0] - 0.3]
    return statistics.median(r for _, r, _ in post) / base, len(stalls), sum(stalls), max(last) == 0


def one_run(config: RunConfig, adaptive: bool, skew: list[Event]) -> list[Sample]:
    """One run beside the ATraPos controller (adaptive or static) and the sampler."""
    running = start(config)
    loop = AdaptiveLoop(IntervalController(min_interval_s=0.25, max_interval_s=2.0))
    n = len(config.driver.cpus)
    controller = LiveController(
        running.handle, Hardware.from_sockets([1] * n), adaptive, skew, config.driver.warmup_s, loop, workload="tatp"
    )
    controller.start()
    samples: list[Sample] = []
    halt = threading.Event()
    sampler = None
    if running.handle.wait_attached(timeout_s=600):
        window_start = time.monotonic() + config.driver.warmup_s
        sampler = threading.Thread(target=sample, args=(running.handle, window_start, n, samples, halt), daemon=True)
        sampler.start()
    try:
        result = running.result()
    finally:
        halt.set()
        controller.stop()
        controller.join()
        if sampler is not None:
            sampler.join()
    if controller.error is not None:
        raise controller.error
    if result.check_failures:
        raise SystemExit(f"{'ATraPos' if adaptive else 'static'}: {result.check_failures}")
    return samples


def main(args: argparse.Namespace) -> None:
    cpus = tuple(islands.read_topology().cpus[:2])
    if len(cpus) < 2:
        raise SystemExit("needs two online CPUs")
    if not os.path.isdir("/proc/self/task"):
        raise SystemExit("needs Linux's /proc (the workers' run-queue delay)")
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=50_000, mix="get_subscriber_data"),
        engine=EngineConfig(execution="plp", plp_monitor=True, plp_handoff=args.handoff),
        driver=DriverConfig(cpus=cpus, warmup_s=args.warmup, duration_s=args.duration, timeline_interval_s=0.1),
    )
    skew_s = SKEW_AT * args.duration
    skew = [Event(skew_s, "skew", settings=(("hot_fraction", 0.2), ("hot_share", 0.5)))]
    kept: dict[str, list[float]] = {"ATraPos": [], "static": []}
    counts = {label: [0, 0, 0] for label in kept}  # stalled windows, the machine's, runs stalled at the end
    for rep in range(args.rounds):
        for label, adaptive in round_order((("ATraPos", True), ("static", False)), rep):
            share, stalled, machine, at_end = classify(
                one_run(config, adaptive, skew), skew_s, args.floor, args.starved
            )
            kept[label].append(share)
            counts[label][0] += stalled
            counts[label][1] += machine
            counts[label][2] += at_end
    print(f"002 Fig 11's skew at {skew_s:g} s of {args.duration:g} s, {args.rounds} rounds, plp_handoff {args.handoff}")
    for label, shares in kept.items():
        stalled, machine, at_end = counts[label]
        RUNNER.record("post/pre throughput", shares, unit="ratio", mode=label, handoff=args.handoff)
        RUNNER.record("stalled windows", stalled, unit="count", mode=label, handoff=args.handoff)
        RUNNER.record("stalled windows with a runnable worker starved", machine, unit="count", mode=label)
        RUNNER.record("runs stalled at the end", at_end, unit="count", mode=label, handoff=args.handoff)
        print(
            f"{label:>8}: post/pre median {statistics.median(shares):.3f} "
            f"(range {min(shares):.3f}-{max(shares):.3f}); stalled {SAMPLE_S * 1e3:g}-ms windows {stalled} "
            f"(a runnable worker starved in {machine}, the engine's in {stalled - machine}); "
            f"runs stalled at the end {at_end} of {len(shares)}"
        )
    print(f"ATraPos / static post/pre: {ratio_words(kept['ATraPos'], kept['static'])}")


if __name__ == "__main__":
    RUNNER.run(main)
