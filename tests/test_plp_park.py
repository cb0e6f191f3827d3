"""A PLP worker whose core is taken away (the run handle's ``park``; 002 Fig 12's static
configuration): it draws no more transactions, and in a pinned run its thread re-pins itself to
the CPUs of the unparked workers, where it goes on serving its units as any worker does (the OS
sharing those cores between it and their workers); given back, it runs on its own CPU again and
draws. Unpinned, parking only stops its drawing. Worker threads are found by name
(``islands-w<i>``, /proc/self/task/*/comm) and their CPUs read with os.sched_getaffinity."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import islands
from islands import _core
from islands.analysis.history_check import check_history
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig

CPUS = islands.read_topology().cpus
pytestmark = [
    pytest.mark.usefixtures("private_run_root"),
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
]


def micro(duration=0.6, history=False, pin=True):
    """Micro, read 2 rows (written with history on), half of the transactions on both
    workers' partitions: worker 0's spread ones meet worker 1 wherever it runs."""
    return RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=2000, rows_per_txn=2, multisite=0.5, update=history),
        engine=EngineConfig(execution="plp", record_history=history),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.05, duration_s=duration, pin=pin),
    )


def worker_tids() -> dict[int, int]:
    """This process's engine worker threads now: worker number -> thread id."""
    out = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
        except OSError:  # the thread ended meanwhile
            continue
        if name.startswith("islands-w"):
            out[int(name.removeprefix("islands-w"))] = int(task.name)
    return out


def affinity_of(worker: int) -> frozenset[int] | None:
    """The CPUs worker `worker`'s thread may run on now (None: no such thread)."""
    tid = worker_tids().get(worker)
    if tid is None:
        return None
    try:
        return frozenset(os.sched_getaffinity(tid))
    except OSError:
        return None


def wait_for(predicate, seconds=5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.002)
    return False


def park_then_unpark(handle: _core.RunningInstance, seen: dict) -> None:
    """Beside a run: parks worker 1 once attached, notes where its thread may run, gives it
    back, notes it again (every wait bounded; what it saw goes into `seen`)."""
    if not handle.wait_attached(timeout_s=60):
        seen["error"] = "the run never attached"
        return
    wait_for(lambda: affinity_of(1) is not None)
    seen["before"] = affinity_of(1)
    seen["parked"] = handle.park(1, True)
    wait_for(lambda: affinity_of(1) == frozenset({CPUS[0]}))
    seen["while_parked"] = affinity_of(1)
    seen["worker0"] = affinity_of(0)
    seen["unparked"] = handle.park(1, False)
    wait_for(lambda: affinity_of(1) == frozenset({CPUS[1]}))
    seen["after"] = affinity_of(1)


def test_a_parked_worker_runs_on_the_unparked_worker_s_cpu_and_goes_back_when_given_back():
    seen: dict = {}
    result = islands.run_beside(micro(duration=1.0), lambda h: park_then_unpark(h, seen))
    assert result.check_failures == []
    assert "error" not in seen, seen
    assert seen["parked"] is True and seen["unparked"] is True
    assert seen["before"] == {CPUS[1]}
    assert seen["while_parked"] == {CPUS[0]}  # worker 0's CPU, shared with worker 0
    assert seen["worker0"] == {CPUS[0]}
    assert seen["after"] == {CPUS[1]}
    assert result.workers[1].commits > 0  # it drew again once given back (or before the park)


def park_at_attach(handle: _core.RunningInstance, worker: int, seen: dict, moves: bool = True) -> None:
    """Beside a run: parks `worker` once attached; notes where its thread may run then (once it
    moved, when it `moves`: a pinned run)."""
    if not handle.wait_attached(timeout_s=60):
        seen["error"] = "the run never attached"
        return
    seen["parked"] = handle.park(worker, True)
    if moves:
        wait_for(lambda: affinity_of(worker) == frozenset({CPUS[0]}), 2)
    else:
        time.sleep(0.02)  # a few of its loops
    seen["affinity"] = affinity_of(worker)


def test_a_parked_worker_s_units_are_still_served_and_every_transaction_stays_consistent():
    # Worker 1 parked from the start of the warm-up: it commits nothing of its own, and worker
    # 0's transactions spread to worker 1's partition commit (served on worker 0's CPU, by
    # worker 1's thread), with the history serializable and the ownership check silent.
    seen: dict = {}
    result = islands.run_beside(micro(duration=0.4, history=True), lambda h: park_at_attach(h, 1, seen))
    assert seen.get("parked") is True, seen
    assert seen["affinity"] == {CPUS[0]}
    assert result.check_failures == [], result.check_failures
    assert result.workers[1].commits == 0
    assert result.multisite_commits > 0
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary()


def test_a_parked_worker_serves_at_a_thread_s_rate_not_now_and_then():
    # The emulation this replaced served a parked worker's units once per 500 us pause, so
    # worker 0 committed at most 2,000 spread transactions a second. Sharing a CPU, each one
    # costs a switch between the two threads (microseconds), so many more commit.
    seen: dict = {}
    result = islands.run_beside(micro(duration=0.5), lambda h: park_at_attach(h, 1, seen))
    assert seen.get("parked") is True, seen
    assert result.check_failures == []
    assert result.workers[1].commits == 0
    rate = result.multisite_commits / result.measured_s
    assert rate > 6_000, (rate, result.multisite_commits, result.measured_s)


def test_an_unpinned_parked_worker_only_stops_drawing():
    seen: dict = {}
    result = islands.run_beside(micro(duration=0.3, pin=False), lambda h: park_at_attach(h, 1, seen, False))
    assert seen.get("parked") is True, seen
    assert result.check_failures == []
    assert len(seen["affinity"] or ()) >= 2  # left to the OS: every CPU this process may use
    assert result.workers[1].commits == 0 and result.multisite_commits > 0
