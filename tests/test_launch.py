"""Multi-instance deployments: 2PC correctness over both transports, supervision, cleanup."""

from __future__ import annotations

import os
import shutil
import signal
import threading
import time
from pathlib import Path

import psutil
import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.execution.launcher import InstanceFailed, run_deployment
from islands.machine.placement import Deployment, plan_deployment

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


def config(update=True, multisite=1.0, cc="none", duration=0.3, rows_per_site=200, **engine) -> RunConfig:
    return RunConfig(
        micro=MicroConfig(update=update, multisite=multisite, rows_per_site=rows_per_site),
        engine=EngineConfig(cc=cc, lock_policy="no_wait", **engine),
        driver=DriverConfig(warmup_s=0.05, duration_s=duration),
    )


#: Child processes that were there before the test (a helper an earlier test left for the
#: whole session, such as multiprocessing's resource tracker) are not the launcher's.
_EARLIER_CHILDREN: set[int] = set()


def _live_children() -> list[psutil.Process]:
    return [
        p for p in psutil.Process().children(recursive=True) if p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    ]


def children() -> list[psutil.Process]:
    """This test's live child processes."""
    return [p for p in _live_children() if p.pid not in _EARLIER_CHILDREN]


@pytest.fixture(autouse=True)
def earlier_children(private_run_root):
    """Run directories of this test only, and the child processes it found at its start."""
    _EARLIER_CHILDREN.clear()
    _EARLIER_CHILDREN.update(p.pid for p in _live_children())


def run_dirs() -> set[str]:
    return {p.name for p in Path(islands.execution.launcher.RUN_ROOT).glob("islands-run-*")}


# Updates over unix and reads over shm: each transport and each kind of 2PC once; the other two
# pairings, slow (test_atomicity_over_randomized_runs draws transports for updates too).
@pytest.mark.parametrize(
    "update, transport",
    [
        pytest.param(True, "unix", id="True-unix"),
        pytest.param(True, "shm", id="True-shm", marks=pytest.mark.slow),
        pytest.param(False, "unix", id="False-unix", marks=pytest.mark.slow),
        pytest.param(False, "shm", id="False-shm"),
    ],
)
def test_distributed_transactions_commit_everywhere_or_nowhere(transport, update):
    before = run_dirs()
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(deployment, config(update=update, multisite=0.5), transport=transport)
    assert result.deployment.n_instances == 2
    assert result.commits > 0 and 0 < result.multisite_commits < result.commits
    checks = result.checks
    # Every committed update changed its rows on whichever instance held them, exactly once;
    # an aborted one changed nothing anywhere.
    assert checks["payload_sum_after"] - checks["payload_sum_before"] == (
        checks["committed_row_updates"] if update else 0
    )
    for inst in result.instances:
        assert inst["messages_sent"] > 0 and inst["malformed_messages"] == 0
        assert inst["observed_cpus"] == inst["cpus"]
    assert result.latency.count == result.commits
    assert children() == [] and run_dirs() == before


def test_the_multisite_share_holds_under_skew():
    # 000 Fig 20's rule: skew decides which rows a multisite transaction touches, never whether
    # it spreads; with the hottest rows at site 0, instance 1's remote rows still go there.
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    skewed = RunConfig(
        micro=MicroConfig(update=False, multisite=0.2, rows_per_site=2000, zipf_s=1.5),
        engine=EngineConfig(cc="none", lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.3),
    )
    result = run_deployment(deployment, skewed, transport="shm")
    assert result.check_failures == []
    assert result.commits > 1000
    assert 0.17 < result.multisite_commits / result.commits < 0.23


def test_contended_2pl_instances_stay_consistent():
    # Two single-site instances, tiny tables: distributed updates collide all the time.
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(deployment, config(cc="2pl", rows_per_site=20), transport="shm")
    assert sum(result.aborts.values()) > 0
    checks = result.checks
    assert checks["payload_sum_after"] - checks["payload_sum_before"] == checks["committed_row_updates"]


def test_local_only_work_sends_nothing_but_shutdowns():
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(deployment, config(multisite=0.0, duration=0.2), transport="unix")
    assert result.multisite_commits == 0
    assert all(i["messages_sent"] == 1 for i in result.instances)  # the end-of-run handshake


def test_no_transport_runs_local_work_and_refuses_distributed_work():
    # Transport "none": the baseline of what an idle transport costs. Local work runs and stays
    # consistent with no message at all; a distributed transaction fails the run, saying why.
    before = run_dirs()
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(deployment, config(multisite=0.0, duration=0.2), transport="none")
    assert result.commits > 0 and result.multisite_commits == 0
    assert all(i["messages_sent"] == 0 and i["messages_received"] == 0 for i in result.instances)
    checks = result.checks
    assert checks["payload_sum_after"] - checks["payload_sum_before"] == checks["committed_row_updates"] > 0
    with pytest.raises(InstanceFailed, match="transport: 'none' runs local work only, but a micro transaction"):
        run_deployment(deployment, config(multisite=0.5, duration=0.2), transport="none")
    assert children() == [] and run_dirs() == before


def test_a_killed_instance_ends_the_run_naming_it_and_leaves_nothing(monkeypatch):
    before = run_dirs()
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    # The launcher's start commands say when the measured window opens and closes, on the
    # monotonic clock every instance runs by: the kill waits for both to be sent, then for
    # the window to open, and records when it struck.
    starts: list[dict] = []
    all_started = threading.Event()
    send = islands.execution.launcher._Instances.send

    def spy(self, i, message):
        send(self, i, message)
        if message.get("cmd") == "start":
            starts.append({"pid": self.procs[i].pid, **message})
            if len(starts) == len(self.procs):
                all_started.set()

    monkeypatch.setattr(islands.execution.launcher._Instances, "send", spy)
    kill: dict[str, int] = {}

    def kill_one():
        if not all_started.wait(timeout=120):
            return
        start = starts[1]
        opens = start["start_at_ns"] + round(start["warmup_s"] * 1e9)
        closes = opens + round(start["duration_s"] * 1e9)
        while (now := time.monotonic_ns()) < opens:
            time.sleep((opens - now) / 1e9)
        kill.update(pid=start["pid"], opens=opens, closes=closes, before=time.monotonic_ns())
        os.kill(start["pid"], signal.SIGKILL)
        kill["after"] = time.monotonic_ns()

    killer = threading.Thread(target=kill_one)
    killer.start()
    with pytest.raises(InstanceFailed, match=r"instance 1 \(pid \d+, cpus \d+\) was killed by SIGKILL") as failed:
        run_deployment(deployment, config(duration=5.0), transport="shm")
    killer.join()
    assert kill, "the run never started"
    assert f"pid {kill['pid']}," in str(failed.value)
    assert kill["opens"] <= kill["before"] and kill["after"] < kill["closes"], "the kill missed the measured window"
    assert children() == [] and run_dirs() == before


@pytest.mark.parametrize("victim", [0, 1])
def test_an_instance_killed_as_it_starts_ends_the_run_naming_it(monkeypatch, victim):
    """Killed before it read its first line: the launcher's write finds a broken pipe, which
    becomes InstanceFailed naming the instance; the ones already started are reaped."""
    before = run_dirs()
    real_popen = islands.execution.launcher.subprocess.Popen
    started: list = []

    def popen(*args, **kwargs):
        proc = real_popen(*args, **kwargs)
        started.append(proc)
        if len(started) == victim + 1:
            proc.kill()
            proc.wait()
        return proc

    monkeypatch.setattr(islands.execution.launcher.subprocess, "Popen", popen)
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    with pytest.raises(InstanceFailed, match=rf"instance {victim} \(pid \d+, cpus \d+\) was killed by SIGKILL"):
        run_deployment(deployment, config(), transport="shm")
    assert all(p.poll() is not None for p in started)
    assert children() == [] and run_dirs() == before


def test_only_our_own_stale_run_directories_are_swept(private_run_root, tmp_path):
    """A dead launcher's directory is removed; what another user planted under the same name
    pattern in the shared root (a link to elsewhere, a directory of theirs) is left alone."""
    dead = psutil.Popen(["true"])
    dead.wait()
    ours = private_run_root / f"islands-run-{dead.pid}-abc"
    ours.mkdir(mode=0o700)
    (ours / "ring").write_text("x")
    target = tmp_path / "precious"
    target.mkdir()
    (target / "keep").write_text("x")
    link = private_run_root / f"islands-run-{dead.pid}-link"
    link.symlink_to(target)
    theirs = private_run_root / f"islands-run-{dead.pid}-theirs"
    theirs.mkdir()
    if os.geteuid() == 0:
        os.chown(theirs, 65534, 65534)
    fresh = islands.execution.launcher._run_directory()
    assert not ours.exists()
    assert link.is_symlink() and (target / "keep").exists()
    assert theirs.exists() == (os.geteuid() == 0)  # root can make it another user's; others cannot
    assert fresh.stat().st_mode & 0o777 == 0o700
    shutil.rmtree(fresh)  # it holds its launcher's start time (islands.execution.launcher.LAUNCHER_FILE)


def test_bad_deployments_are_refused_before_anything_starts():
    before = run_dirs()
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    with pytest.raises(ValueError, match="lock_policy: wait_die cannot span instances"):
        run_deployment(deployment, RunConfig(engine=EngineConfig(cc="2pl", lock_policy="wait_die")))
    with pytest.raises(ValueError, match="transport: unknown transport 'pigeon'"):
        run_deployment(deployment, config(), transport="pigeon")
    with pytest.raises(ValueError, match="cpus: CPU 4096 does not exist"):
        run_deployment(Deployment(label="x", instances=((CPUS[0],), (4096,)), placement="explicit"), config())
    assert children() == [] and run_dirs() == before


def test_read_only_participants_get_no_phase_two_message():
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(deployment, config(update=False, multisite=1.0, duration=0.2), transport="shm")
    workers = deployment.n_cpus
    assert sum(result.aborts.values()) == 0  # readers never conflict
    fragments = sum(i["fragments_sent"] for i in result.instances)
    assert fragments >= result.multisite_commits > 0
    assert sum(i["decisions_sent"] for i in result.instances) == 0
    # Exactly one fragment and one vote per distributed read, plus the end-of-run handshake.
    sent = sum(i["messages_sent"] for i in result.instances)
    assert sent == 2 * fragments + workers * (workers - 1)
    received = sum(i["messages_received"] for i in result.instances)
    assert received == sent


@pytest.mark.parametrize("seed", [3, *(pytest.param(s, marks=pytest.mark.slow) for s in (17, 2024, *range(100, 160)))])
def test_atomicity_over_randomized_runs(seed):
    import random

    rng = random.Random(seed)
    transport = rng.choice(["unix", "shm"])
    cc = rng.choice(["none", "2pl"])
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    cfg = RunConfig(
        micro=MicroConfig(
            update=True,
            multisite=rng.choice([0.3, 0.7, 1.0]),
            rows_per_site=rng.choice([10, 50, 500]),
            rows_per_txn=rng.choice([2, 5, 10]),
            zipf_s=rng.choice([0.0, 0.8]),
        ),
        engine=EngineConfig(cc=cc, lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=0.0, duration_s=0.25, seed=seed),
    )
    result = run_deployment(deployment, cfg, transport=transport)
    decisions = sum(i["decisions_sent"] for i in result.instances)
    assert 0 < decisions <= sum(i["fragments_sent"] for i in result.instances)
    checks = result.checks
    assert checks["payload_sum_after"] - checks["payload_sum_before"] == checks["committed_row_updates"], (
        transport,
        cc,
        cfg.micro,
    )


LAUNCHER = """
import sys
import islands.execution.launcher as launch
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology
launch.RUN_ROOT = sys.argv[1]
topology = read_topology()
deployment = plan_deployment(topology, "per-core", cpus=topology.cpus[:2])
config = RunConfig(
    micro=MicroConfig(multisite=0.5),
    engine=EngineConfig(lock_policy="no_wait"),
    driver=DriverConfig(warmup_s=0.0, duration_s=60.0),
)
launch.run_deployment(deployment, config)
"""


def test_a_killed_launcher_leaves_no_instances_and_no_run_directory(private_run_root):
    import os
    import subprocess
    import sys

    launcher = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(private_run_root)])
    try:
        deadline = time.monotonic() + 60
        while not run_dirs() or len(psutil.Process(launcher.pid).children()) < 2:
            assert time.monotonic() < deadline and launcher.poll() is None, "the launcher never started its run"
            time.sleep(0.05)
        instances = psutil.Process(launcher.pid).children()
    finally:
        launcher.kill()
        launcher.wait()
    # The instances follow their launcher (parent-death signal) ...
    gone, alive = psutil.wait_procs(instances, timeout=10)
    assert alive == []
    # ... and its janitor removes its run directory (issue 33: no wait for the next launch).
    deadline = time.monotonic() + 30
    while run_dirs() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert run_dirs() == set()
    # Where no janitor could run, the next launch sweeps the dead launcher's directory up.
    (private_run_root / f"islands-run-{launcher.pid}-left").mkdir(mode=0o700)
    live = private_run_root / f"islands-run-{os.getppid()}-keep"  # a launcher still alive
    live.mkdir()
    run_deployment(plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2]), config(duration=0.1))
    assert run_dirs() == {live.name}
