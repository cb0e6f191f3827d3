"""Crash faults: SIGKILL a random instance at a random moment of a logged update run
(microbenchmark or TPC-B), restart the deployment from its logs, and check what a crash must
keep. Deployments: one instance per core (2PC between them) and one shared instance of two
workers; early lock release on (the default) and off. The microbenchmark mixes in read-only
transactions (micro.read_share), so that the read-only rule of early lock release is checked
too.

Checked after every kill (tests/log_checks.py, computed from the raw records, independently of
the engine's recovery): every commit a worker acknowledged (its own acknowledgement record,
written after the acknowledgement) is in the logs; no distributed transaction is committed on
one instance and missing on another; every log still holds the LSN each acknowledged read-only
transaction of its instance waited for (what it may have read survived). Checked after the
restart: each instance holds exactly its initial data plus every committed row update (micro:
payload sums; TPC-B: the balance invariants, and one history row per committed transaction in
the logs), and the restarted run
keeps its own consistency check.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

import islands
from islands import _core
from islands.config import DriverConfig, EngineConfig, LogConfig, MicroConfig, RunConfig, TpcbConfig
from islands.launch import InstanceFailed, run_deployment
from islands.placement import plan_deployment
from log_checks import Outcome, acknowledged, check_durability, log_end, read_only_dependencies

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = [
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
    pytest.mark.usefixtures("private_run_root"),
]
ROWS_PER_SITE = 500
READ_SHARE = 0.3  # micro: read-only transactions among the updates
TPCB_HISTORY_TABLE = 4  # the table number in the top 16 bits of a TPC-B key (TpcbWorkload::kHistory)


def config(
    log_dir: Path, cc: str, duration: float, seed: int, workload: str = "micro", early: bool = True
) -> RunConfig:
    # TPC-B: one branch per site and half the tellers remote, so that most transactions of a
    # per-core deployment are distributed and the teller, branch and history parts commit
    # through 2PC.
    return RunConfig(
        workload=workload,
        micro=MicroConfig(update=True, multisite=0.3, rows_per_site=ROWS_PER_SITE, read_share=READ_SHARE),
        tpcb=TpcbConfig(branches_per_site=1, accounts_per_branch=ROWS_PER_SITE, tellers_per_branch=10, remote=0.5),
        engine=EngineConfig(cc=cc, lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=0.05, duration_s=duration, seed=seed),
        log=LogConfig(mode="group_commit", directory=str(log_dir), record_acks=True, early_lock_release=early),
    )


def initial_payload_sum(instance: int, sites_per_instance: int) -> int:
    """Column 0 summed over an instance's rows as the loader makes them: key % 1000."""
    first = instance * sites_per_instance * ROWS_PER_SITE
    return sum(k % 1000 for k in range(first, first + sites_per_instance * ROWS_PER_SITE))


def history_inserts(log_dir: Path, outcome: Outcome, n_instances: int) -> int:
    """TPC-B history rows the logs say committed (one per committed AccountUpdate)."""
    rows = 0
    for i in range(n_instances):
        for r in _core.read_log(str(log_dir / f"instance-{i}.log"))["records"]:
            if r["txn"] in outcome.committed[i] and r["type"] in ("commit", "decision_commit", "prepare"):
                rows += sum(1 for key in r["keys"] if key >> 48 == TPCB_HISTORY_TABLE)
    return rows


def check_read_only_dependencies(log_dir: Path, deployment) -> None:
    """Every acknowledged read-only transaction's dependency (the log's appended LSN it waited
    for) is within what its instance's log kept."""
    instance_of_site = [i for i, cpus in enumerate(deployment.instances) for _ in cpus]
    for site, lsn in read_only_dependencies(log_dir).items():
        kept = log_end(log_dir, instance_of_site[site])
        assert lsn <= kept, (
            f"site {site} acknowledged a read-only transaction that waited for LSN {lsn}, "
            f"but instance {instance_of_site[site]}'s log ends at {kept}"
        )


def crash_and_recover(
    log_dir: Path,
    transport: str,
    cc: str,
    rng: random.Random,
    workload: str = "micro",
    spec: int | str = "per-core",
    early: bool = True,
) -> str:
    """One trial; returns what happened, for the failure message of the next one."""
    deployment = plan_deployment(TOPOLOGY, spec, cpus=CPUS[:2])
    sites_per_instance = len(deployment.instances[0])
    duration = 0.4
    victim, when = rng.randrange(deployment.n_instances), rng.uniform(0.0, 0.05 + duration)
    cfg = config(log_dir, cc, duration, seed=rng.randrange(1 << 30), workload=workload, early=early)
    try:
        run_deployment(deployment, cfg, transport=transport, kill=(victim, when))
        outcome_of_run = "finished before the kill"
    except InstanceFailed as error:
        outcome_of_run = f"killed: {error}"
    acks = acknowledged(log_dir)
    outcome = check_durability(log_dir, deployment.n_instances)
    check_read_only_dependencies(log_dir, deployment)
    history = history_inserts(log_dir, outcome, deployment.n_instances) if workload == "tpcb" else 0
    restarted = run_deployment(deployment, cfg, transport=transport, recover=True)
    checks = restarted.checks
    if workload == "micro":
        for i, inst in enumerate(restarted.instances):
            expected = initial_payload_sum(i, sites_per_instance) + outcome.committed_rows[i]
            assert inst["payload_sum_before"] == expected, (
                f"instance {i} recovered to payload sum {inst['payload_sum_before']}, the logs say {expected}"
            )
        assert checks["payload_sum_after"] - checks["payload_sum_before"] == checks["committed_row_updates"]
    else:
        # The balance invariants hold over the recovered data and again after the restarted run
        # (a part of a distributed transaction lost on one instance would unbalance the sums).
        assert restarted.check_failures == [], restarted.check_failures
        assert checks["history_rows_at_start"] == history, "recovered history rows differ from the logs"
    return (
        f"victim {victim} at {when:.3f}s ({workload}, {deployment.label}, {transport}, {cc}, "
        f"early lock release {'on' if early else 'off'}): {outcome_of_run}; "
        f"{len(acks)} acknowledged, {sum(len(c) for c in outcome.committed)} committed parts"
    )


@pytest.mark.parametrize("transport", ["unix", "shm"])
@pytest.mark.parametrize("cc", ["none", "2pl"])
@pytest.mark.parametrize("workload", ["micro", "tpcb"])
def test_killed_instance_loses_nothing_acknowledged(tmp_path, transport, cc, workload):
    rng = random.Random(f"{workload}-{transport}-{cc}")
    crash_and_recover(tmp_path / "log", transport, cc, rng, workload)


@pytest.mark.parametrize("workload", ["micro", "tpcb"])
def test_killed_shared_instance_loses_nothing_acknowledged(tmp_path, workload):
    """One instance of two workers (2PL, early lock release): the commit pipeline of a shared
    instance, where another worker may read a row whose commit is not durable yet."""
    rng = random.Random(f"shared-{workload}")
    crash_and_recover(tmp_path / "log", "none", "2pl", rng, workload, spec=1)


@pytest.mark.parametrize("workload", ["micro", "tpcb"])
def test_killed_instance_without_early_lock_release(tmp_path, workload):
    """Early lock release off: locks held until the flush, as before it."""
    rng = random.Random(f"no-elr-{workload}")
    crash_and_recover(tmp_path / "log", "shm", "2pl", rng, workload, early=False)


@pytest.mark.slow
def test_many_random_kills(tmp_path):
    """Hundreds of trials (bounded: at most 200 or 15 minutes), each a fresh log: per-core and
    shared deployments, both transports, early lock release mostly on."""
    rng = random.Random(6)
    deadline = time.monotonic() + 15 * 60
    trials = 0
    while trials < 200 and time.monotonic() < deadline:
        spec = rng.choice([1, "per-core", "per-core"])
        transport, cc, workload, early = (
            rng.choice(["unix", "shm"]),
            "2pl" if spec == 1 else rng.choice(["none", "2pl"]),
            rng.choice(["micro", "tpcb"]),
            rng.random() < 0.75,
        )
        crash_and_recover(tmp_path / f"log-{trials}", transport, cc, rng, workload, spec=spec, early=early)
        trials += 1
    assert trials >= 20
