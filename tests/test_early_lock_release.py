"""Early lock release (log.early_lock_release, group commit): a commit's locks go once its record
is appended, its acknowledgement waits for the flush.

The observable: every transaction of these runs updates the same row (micro, one site of one
row, one worker under 2PL whose pipelined commits hold their locks like any other
transaction's). Without early lock release the next writer of the row can append its record
only after the previous writer's record is durable, which is after the flush that carried it
ended: no flush ever carries two records (records == flushes, exactly). With it the next
writers append while the flusher waits for its group to grow (group_delay_us), so flushes carry
several records. Nothing here depends on how fast the
machine is: the bound without early lock release holds whatever the timing, and with it the
flusher waits a whole group delay after each first record.

Half the transactions only read the row (micro.read_share). With early lock release they read
it while its last commit is not durable, so the read-only rule makes them wait for the log's
appended LSN before their acknowledgement (recorded in the acknowledgement file with that LSN);
without it (2PL) they cannot read a row whose commit is not durable, and none waits.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, LogConfig, MicroConfig, RunConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from log_checks import acknowledged, check_durability, log_end, read_only_dependencies

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = [
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
    pytest.mark.usefixtures("private_run_root"),
]


def slow_flushes(log_dir: Path, early: bool) -> LogConfig:
    """Group commit with a 2 ms group delay (commits wait long enough to be overtaken), with
    the acknowledgement record and no checkpoint."""
    return LogConfig(
        mode="group_commit",
        directory=str(log_dir),
        group_delay_us=2000,
        early_lock_release=early,
        record_acks=True,
        checkpoint=False,
    )


def hot_row(log_dir: Path, early: bool, lock_policy: str) -> RunConfig:
    """One row, every transaction updates it or (half of them) reads it."""
    return RunConfig(
        micro=MicroConfig(update=True, rows_per_site=1, rows_per_txn=1, columns=2, read_share=0.5),
        engine=EngineConfig(cc="2pl", lock_policy=lock_policy),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.3),
        log=slow_flushes(log_dir, early),
    )


@pytest.mark.parametrize("lock_policy", ["wait_die", "no_wait"])
@pytest.mark.parametrize("early", [True, False])
def test_locks_released_before_the_flush_only_with_elr(tmp_path, early, lock_policy):
    log_dir = tmp_path / "log"
    deployment = plan_deployment(TOPOLOGY, 1, cpus=CPUS[:1])
    result = run_deployment(deployment, hot_row(log_dir, early, lock_policy), transport="none")
    log = result.instances[0]["log"]
    records, flushes = log["records"], log["flushes"]
    assert result.commits > 0 and records > 0
    assert result.check_failures == []
    if early:
        # The next writers of the rows appended before the first writer's record was durable.
        assert records > flushes, f"{records} records in {flushes} flushes: no flush carried two commits"
    else:
        # Each writer waited for the previous one's flush to end: one record per flush.
        assert records == flushes, f"{records} records in {flushes} flushes: a writer did not wait for the flush"
    # Either way every acknowledged commit is in the log (a clean run: all of them).
    check_durability(log_dir, 1)
    assert len(acknowledged(log_dir)) == records
    assert result.commits > records  # read-only ones too
    waited = read_only_dependencies(log_dir)
    if early:
        assert waited, "no read-only transaction waited for the commit it may have read"
        assert waited[0] <= log_end(log_dir, 0)
        assert result.instances[0]["read_only_waits"] > 0
    else:
        assert not waited, f"read-only transactions waited without early lock release: {waited}"
        assert result.instances[0]["read_only_waits"] == 0


@pytest.mark.parametrize("early", [True, False])
def test_read_only_votes_wait_for_what_they_read_only_with_elr(tmp_path, early):
    """Per-core (2PC): a read-only fragment reads rows whose commit at its instance may not be
    durable (early lock release), so its read-only vote waits for its log's appended LSN;
    without early lock release (2PL) it cannot read such rows and votes at once."""
    log_dir = tmp_path / "log"
    config = RunConfig(
        micro=MicroConfig(update=True, multisite=1.0, rows_per_site=4, rows_per_txn=2, columns=2, read_share=0.5),
        engine=EngineConfig(cc="2pl", lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.3),
        log=slow_flushes(log_dir, early),
    )
    result = run_deployment(plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2]), config, transport="shm")
    assert result.multisite_commits > 0 and result.check_failures == []
    check_durability(log_dir, 2)
    votes = sum(inst["read_only_vote_waits"] for inst in result.instances)
    if early:
        assert votes > 0, "no read-only vote waited for the commits its fragment may have read"
    else:
        assert votes == 0
