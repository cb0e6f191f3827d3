"""The ATraPos pieces together on a toy engine (no PLP yet): throughput is set by the busiest
core (1 / its load, plus a cost per byte synchronized across sockets); the adaptive loop
watches it second by second, reads the workload when it evaluates, and applies the plan's
actions. Skew appearing at 20 s (50% of the requests to 20% of the data) and a socket's
cores taken away at 20 s: the adaptive run recovers, the static one does not."""

from __future__ import annotations

import numpy as np
import pytest

from islands.atrapos import (
    AdaptiveLoop,
    Hardware,
    Scheme,
    SyncPoint,
    WorkloadStats,
    adaptation_time,
    core_utilization,
    repartition_actions,
    transaction_synchronization,
)


def toy_tps(scheme: Scheme, w: WorkloadStats, hw: Hardware, lost: set[int]) -> float:
    """Requests per second when every core serves its sub-partitions' share: the busiest core
    bounds the rate; a lost core's partitions run on the first available core (the static
    engine's fallback; TS is then left out: the model prices only schemes that fit)."""
    loads = core_utilization(scheme, w).copy()
    for c in sorted(lost):
        loads[hw.available_cores[0]] += loads[c]
        loads[c] = 0
    ts = transaction_synchronization(scheme, w, hw) if not lost else 0.0
    return 1e6 / (loads.max() + 0.01 * ts / hw.n_cores)


def run(seconds: int, workload_at, hardware_at, adaptive: bool) -> list[float]:
    hw0 = hardware_at(0)
    scheme = Scheme.naive({"A": (0, 8000), "B": (0, 8000)}, hw0)
    loop = AdaptiveLoop()
    timeline: list[float] = []
    since_check = 0
    for t in range(seconds):
        w, hw = workload_at(t), hardware_at(t)
        if hw is not hardware_at(t - 1) and t > 0 and adaptive:
            loop.hardware_changed()
        lost = set(np.flatnonzero(~hw.available).tolist()) & set(scheme.used_cores().tolist())
        timeline.append(toy_tps(scheme, w, hw, lost))
        since_check += 1
        if adaptive and since_check >= loop.controller.interval_s:
            tps = float(np.mean(timeline[-since_check:]))
            since_check = 0
            decision = loop.end_of_interval(tps, lambda scheme=scheme, w=w: (scheme, w), hw)
            if decision.repartition:
                assert decision.plan is not None
                assert list(decision.actions) == repartition_actions(scheme, decision.plan.scheme)
                scheme = decision.plan.scheme
    return timeline


def workloads(skew_at: int | None):
    n = 2 * 4 * 10  # 2 sockets x 4 cores, 10 sub-partitions each (naive)
    uniform = np.ones(n)
    skewed = np.r_[np.full(n // 5, 4.0), np.ones(n - n // 5)]  # 20% of the keys: half the load
    sync = [SyncPoint((("A", i), ("B", i)), count=1, size=8) for i in range(n)]

    def at(t: int) -> WorkloadStats:
        loads = skewed if skew_at is not None and t >= skew_at else uniform
        return WorkloadStats({"A": loads, "B": loads}, sync)

    return at


def test_skew_costs_the_static_scheme_and_the_adaptive_one_recovers():
    hw = Hardware.from_sockets([4, 4])
    at = workloads(20)
    static = run(60, at, lambda t: hw, adaptive=False)
    adaptive = run(60, at, lambda t: hw, adaptive=True)
    before = static[10]
    assert static[-1] < 0.5 * before  # skew hurts the naive partitioning
    # Skew raises the total work 1.6x; perfectly balanced again, the busiest core carries 1/8.
    assert adaptive[-1] == pytest.approx(before / 1.6)
    assert adaptive[-1] > 2 * static[-1]
    assert adaptation_time(adaptive, 1.0, 20) <= 9  # within the 8 s interval it had reached + 1 s
    assert adaptation_time(static, 1.0, 20) == 0  # nothing to adapt: it just stays low


def test_a_lost_socket_is_rebalanced_onto_the_rest():
    full = Hardware.from_sockets([4, 4])
    fewer = full.without([4, 5, 6, 7])
    at = workloads(None)

    def hardware_at(t: int) -> Hardware:
        return full if t < 20 else fewer

    static = run(40, at, hardware_at, adaptive=False)
    adaptive = run(40, at, hardware_at, adaptive=True)
    assert static[-1] < 0.25 * static[10]  # one core serves a whole socket's partitions
    assert adaptive[-1] > 0.45 * adaptive[10]  # half the cores: about half the throughput
    assert adaptation_time(adaptive, 1.0, 20) <= 8  # at the end of the interval running at 20 s
