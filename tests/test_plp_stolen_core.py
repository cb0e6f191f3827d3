"""PLP with one worker's CPU taken by a busy process (a hypervisor's steal, another tenant): the
descheduled worker's partition answers late, but the other workers go on at a share of their
rate, never stop (issue 47: after 002's skew, runs with 41-51% steal fell to a tenth).

A spinning child process pinned to worker 1's CPU takes about half of it from worker 1. Worker 0
(its CPU its own) runs half of its transactions on both partitions, so it waits on worker 1 for
those; its local half needs nobody. Runs with and without the spinner alternate within the test,
and the test compares worker 0's rate between them (a ratio within one test, never a time):
worker 0 must keep at least KEPT_SHARE of its rate. A collapse (every worker held up by the
descheduled one) leaves it a few percent. The spinner's CPU time is checked too, so that a
run where it did not compete (the scheduler moved it) cannot pass for one where it did."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig

CPUS = islands.read_topology().cpus
pytestmark = [
    pytest.mark.usefixtures("private_run_root"),
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
]

#: The share of its rate without the spinner that worker 0 keeps with it. Worker 1 keeps about
#: half of its CPU, and worker 0 waits on it for half of its transactions: about 0.5-0.7 is
#: expected (measured 0.49-0.79 on the shared 2-core VM, read and update, with and without
#: hand-off); a quarter leaves room for a noisy machine, and a collapse lies far below it.
KEPT_SHARE = 0.25

SPINNER = "import os, sys\nos.sched_setaffinity(0, {int(sys.argv[1])})\nwhile True:\n    pass\n"


def config(duration: float, update: bool = False, handoff: int = 0) -> RunConfig:
    """PLP micro on two pinned workers, half of the transactions on both partitions."""
    return RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=2000, rows_per_txn=4, multisite=0.5, update=update),
        engine=EngineConfig(execution="plp", plp_handoff=handoff),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.1, duration_s=duration),
    )


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_stolen(cfg: RunConfig) -> tuple[islands.RunResult, float]:
    """The run with a spinner pinned to worker 1's CPU; the spinner's share of one CPU over the run."""
    spinner = subprocess.Popen([sys.executable, "-c", SPINNER, str(CPUS[1])])
    try:
        time.sleep(0.05)  # pinned and spinning before the workers start
        c0, t0 = cpu_seconds(spinner.pid), time.monotonic()
        result = islands.run(cfg)
        share = (cpu_seconds(spinner.pid) - c0) / (time.monotonic() - t0)
    finally:
        spinner.kill()
        spinner.wait()
    return result, share


def kept(cfg: RunConfig, pairs: int) -> tuple[list[float], list[float]]:
    """Worker 0's rate with the spinner over its rate without, per pair of runs (alternating);
    and the spinner's CPU share in each."""
    ratios, shares = [], []
    for _ in range(pairs):
        free = islands.run(cfg)
        stolen, share = run_stolen(cfg)
        assert free.workers[0].throughput_tps > 0
        ratios.append(stolen.workers[0].throughput_tps / free.workers[0].throughput_tps)
        shares.append(share)
        assert stolen.check_failures == [] and free.check_failures == []
    return ratios, shares


def test_the_other_worker_keeps_a_share_when_one_core_is_taken():
    ratios, shares = kept(config(0.5), pairs=2)
    assert max(shares) > 0.2, f"the spinner did not compete for worker 1's CPU: {shares}"
    # The better pair: a machine busy with other work can only lower a ratio, in either run.
    assert max(ratios) >= KEPT_SHARE, f"worker 0 kept {ratios} of its rate with worker 1's CPU taken"


@pytest.mark.slow
@pytest.mark.parametrize("update,handoff", [(False, 0), (True, 0), (True, 4)])
def test_a_taken_core_degrades_updates_and_handoffs_too(update, handoff):
    ratios, shares = kept(config(2.0, update=update, handoff=handoff), pairs=3)
    assert max(shares) > 0.2, f"the spinner did not compete for worker 1's CPU: {shares}"
    assert sorted(ratios)[1] >= KEPT_SHARE, f"worker 0 kept {ratios} of its rate with worker 1's CPU taken"
