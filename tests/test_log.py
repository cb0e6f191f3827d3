"""The write-ahead log: group commit, recovery on restart, torn and corrupt logs, full disk."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import islands
from islands import _core
from islands.config.settings import (
    DriverConfig,
    EngineConfig,
    LogConfig,
    MicroConfig,
    RunConfig,
    TatpConfig,
    TpcbConfig,
    TpccConfig,
)
from islands.execution.consistency import verify
from islands.execution.launcher import InstanceFailed, run_deployment
from islands.machine.placement import plan_deployment
from log_checks import acknowledged, check_durability, read_outcome

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = [
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
    pytest.mark.usefixtures("private_run_root"),
]


@pytest.fixture
def log_dir(tmp_path):
    """A log directory on tmpfs (/dev/shm) where there is one, as a sweep's runs log (the
    experiments' [log] sections): on a VM's disk a synced write can take milliseconds, and while
    another job wrote to it a group-committed run of 0.3 s acknowledged nothing (twice in a
    loaded make test). Removed afterwards."""
    import shutil

    base = Path(tempfile.mkdtemp(dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else tmp_path))
    yield base / "log"
    shutil.rmtree(base, ignore_errors=True)


def config(
    log_dir: Path, mode="group_commit", cc="none", multisite=0.3, duration=0.1, checkpoint=False, **log
) -> RunConfig:
    return RunConfig(
        micro=MicroConfig(update=True, multisite=multisite, rows_per_site=500),
        engine=EngineConfig(cc=cc, lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=0.05, duration_s=duration),
        log=LogConfig(mode=mode, directory=str(log_dir), record_acks=True, checkpoint=checkpoint, **log),
    )


def per_core():
    return plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])


def assert_recovered(first, restarted, outcome) -> None:
    """The restarted instances hold exactly the initial data plus every committed row update
    (outcome: the logs as they were before the restart)."""
    for i, inst in enumerate(restarted.instances):
        initial = first.instances[i]["payload_sum_before"]
        assert inst["payload_sum_before"] == initial + outcome.committed_rows[i]
        assert inst["recovery"]["performed"]


@pytest.mark.parametrize("mode", ["group_commit", "async"])
def test_restart_recovers_what_committed(log_dir, mode):
    # Async does not wait for its syncs and logs several times as many records a second as group
    # commit (the checks of 0.3 s of them took seconds): 0.05 s of it, thousands all the same.
    duration = 0.1 if mode == "group_commit" else 0.05
    first = run_deployment(per_core(), config(log_dir, mode=mode, duration=duration), transport="shm")
    assert first.multisite_commits > 0
    assert all(inst["log"]["records"] > 0 and inst["log"]["flushes"] > 0 for inst in first.instances)
    assert acknowledged(log_dir)  # the workers recorded what they acknowledged
    outcome = check_durability(log_dir, 2)
    again = run_deployment(per_core(), config(log_dir, mode=mode, duration=duration), transport="shm", recover=True)
    # A clean run ends with everything durable: the restart starts where the run stopped.
    for a, b in zip(first.instances, again.instances):
        assert b["payload_sum_before"] == a["payload_sum_after"]
        assert b["recovery"]["in_doubt"] == 0 and not b["recovery"]["tail_note"]
    assert_recovered(first, again, outcome)
    # The second run logged after the first: a third start recovers both.
    third = run_deployment(per_core(), config(log_dir, mode=mode, duration=0.1), transport="unix", recover=True)
    for b, c in zip(again.instances, third.instances):
        assert c["payload_sum_before"] == b["payload_sum_after"]


def test_checkpoint_bounds_recovery(log_dir):
    first = run_deployment(per_core(), config(log_dir, checkpoint=True), transport="shm")
    for i in range(2):
        assert (log_dir / f"instance-{i}.snapshot").exists()
        log = _core.read_log(str(log_dir / f"instance-{i}.log"))
        assert [r["type"] for r in log["records"]] == ["epoch"]  # the log starts afresh after the snapshot
        assert log["base_lsn"] == first.instances[i]["log"]["durable_lsn"]
    again = run_deployment(per_core(), config(log_dir, checkpoint=True), transport="shm", recover=True)
    for a, b in zip(first.instances, again.instances):
        assert b["payload_sum_before"] == a["payload_sum_after"]
        assert b["recovery"]["snapshot_rows"] == 500 and b["recovery"]["records"] == 1
    # A crash between the snapshot and the new log leaves an older log: the snapshot covers it.
    third = run_deployment(per_core(), config(log_dir, checkpoint=False), transport="shm", recover=True)
    older = {i: (log_dir / f"instance-{i}.log").read_bytes() for i in range(2)}
    fourth = run_deployment(per_core(), config(log_dir, checkpoint=True), transport="shm", recover=True)
    for i in range(2):
        (log_dir / f"instance-{i}.log").write_bytes(older[i])
    fifth = run_deployment(per_core(), config(log_dir, duration=0.05), transport="shm", recover=True)
    for c, d in zip(fourth.instances, fifth.instances):
        assert d["payload_sum_before"] == c["payload_sum_after"]
    sixth = run_deployment(per_core(), config(log_dir, duration=0.05), transport="shm", recover=True)
    for d, e in zip(fifth.instances, sixth.instances):  # and what was logged after it counts
        assert e["payload_sum_before"] == d["payload_sum_after"]
    assert third.commits > 0
    # A corrupt snapshot is refused.
    data = bytearray((log_dir / "instance-0.snapshot").read_bytes())
    data[100] ^= 0x10
    (log_dir / "instance-0.snapshot").write_bytes(bytes(data))
    with pytest.raises(InstanceFailed, match="snapshot is corrupt"):
        run_deployment(per_core(), config(log_dir, duration=0.05), transport="shm", recover=True)


@pytest.mark.parametrize("checkpoint", [False, True])
def test_tpcb_restarts_with_its_history_and_balances(log_dir, checkpoint):
    """TPC-B logs account, teller and branch after-images and history inserts: a restart (from
    the log, or from a snapshot that holds the inserted history rows) resumes the balances."""
    cfg = RunConfig(
        workload="tpcb",
        tpcb=TpcbConfig(branches_per_site=1, accounts_per_branch=500, tellers_per_branch=10, remote=0.5),
        engine=EngineConfig(cc="2pl", lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.2),
        log=LogConfig(mode="group_commit", directory=str(log_dir), checkpoint=checkpoint),
    )
    first = run_deployment(per_core(), cfg, transport="shm")
    assert first.multisite_commits > 0 and first.check_failures == []
    again = run_deployment(per_core(), cfg, transport="unix", recover=True)
    assert again.check_failures == [], again.check_failures
    assert again.checks["history_rows_at_start"] == first.checks["history_rows"] > 0
    assert again.checks["history_rows"] == first.checks["history_rows"] + again.checks["committed_txns"]
    recovery = [inst["recovery"] for inst in again.instances]
    if checkpoint:
        assert sum(r["snapshot_rows"] for r in recovery) == 2 * (1 + 10 + 500) + first.checks["history_rows"]
    else:
        assert sum(r["rows_redone"] for r in recovery) == 4 * first.checks["committed_txns"]


def checks_at_start(result) -> dict[str, int]:
    """The consistency figures of a deployment as its run started (after load and recovery)."""
    out: dict[str, int] = {}
    for inst in result.instances:
        for name, value in inst["checks_before"].items():
            out[name] = out.get(name, 0) + value
    return out


def assert_resumed(first, again, workload: str) -> None:
    """The restart holds exactly what the first (clean) run left: every figure of every table
    (rows, sums, fingerprints; not the bytes its chunks hold, nor those of the rows that
    aborted inserts left behind, which no log holds), and every condition."""
    before = checks_at_start(again)
    assert verify(workload, before) == [], verify(workload, before)
    bytes_figures = ("table_bytes", "row_bytes")
    left = {name: value for name, value in first.checks.items() if name in before and name not in bytes_figures}
    assert {name: before[name] for name in left} == left


# Delivery deletes new-order rows, OrderStatus reads the by-customer index, remote Payments'
#: TPC-C whose transactions all stay at their home warehouse (one instance of one site).
LOCAL_TPCC = TpccConfig(warehouses_per_site=1, payment_remote=0, new_order_remote_item=0)

# History rows and remote items' stock commit through 2PC.
TPCC_LOG_MIX = "new_order:35,payment:30,order_status:10,delivery:25"


# From the log and from a checkpoint, each layout once: the checkpoint of the spec layout, slow;
# and from a log of commands (log.content = command), each layout.
@pytest.mark.parametrize(
    "checkpoint, layout, content",
    [
        (False, "spec", "redo"),
        pytest.param(True, "spec", "redo", marks=pytest.mark.slow),
        (True, "narrow", "redo"),
        (False, "spec", "command"),
        (False, "narrow", "command"),
    ],
)
def test_tpcc_restarts_with_deliveries_history_and_indexes(log_dir, checkpoint, layout, content):
    """TPC-C logs its updates, inserts (Order with its by-customer entry, NewOrder, OrderLine,
    History) and Delivery's deletes: a restart from the log, or from a checkpoint whose
    snapshot no longer holds the new orders delivered before it (they stay deleted, though a
    fresh load makes them), resumes exactly where the run stopped. With command logging, local
    NewOrders and Payments are executed again in log order, between the after-images of the
    Deliveries and of the distributed transactions' parts, and the restart is just as exact."""
    cfg = RunConfig(
        workload="tpcc",
        tpcc=TpccConfig(
            warehouses_per_site=1,
            items=1000,
            customers_per_district=30,
            mix=TPCC_LOG_MIX,
            payment_remote=0.3,
            new_order_remote_item=0.1,
            layout=layout,
        ),
        engine=EngineConfig(cc="2pl", lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.2),
        log=LogConfig(mode="group_commit", directory=str(log_dir), checkpoint=checkpoint, content=content),
    )
    first = run_deployment(per_core(), cfg, transport="shm")
    assert first.check_failures == [] and first.multisite_commits > 0
    # Delivery takes each district's oldest new order, a loaded one first: rows a fresh load makes.
    loaded = checks_at_start(first)
    assert (
        first.commits_by_type["delivery"] > 0
        and first.checks["new_order_rows"] < loaded["new_order_rows"] + (first.commits_by_type["new_order"])
    )
    deleted = [
        key
        for i in range(2)
        for r in _core.read_log(str(log_dir / f"instance-{i}.log"))["records"]
        for key in r["deleted"]
    ]
    assert bool(deleted) != checkpoint  # a checkpoint starts the log afresh
    commands = sum(
        r["type"] == "command" for i in range(2) for r in _core.read_log(str(log_dir / f"instance-{i}.log"))["records"]
    )
    again = run_deployment(per_core(), cfg, transport="unix", recover=True)
    assert_resumed(first, again, "tpcc")
    assert again.check_failures == [], again.check_failures
    recovery = [inst["recovery"] for inst in again.instances]
    if checkpoint:
        rows = first.checks
        held = sum(
            rows[f"{t}_rows"]
            for t in ("warehouse", "district", "customer", "history", "order", "new_order", "order_line", "stock")
        )
        assert sum(r["snapshot_rows"] for r in recovery) == held + rows["item_rows"]  # Item: a copy each
        assert all(r["records"] == 1 for r in recovery)
    else:
        assert sum(r["rows_redone"] for r in recovery) > len(deleted) > 0
    replayed = sum(r["commands_replayed"] for r in recovery)
    if content == "command":
        # The local NewOrders and Payments were commands, and the restart executed each again.
        assert replayed == commands > 0
    else:
        assert replayed == commands == 0
    # And again: a log after the recovery and the one before it (or its snapshot) add up.
    third = run_deployment(per_core(), cfg, transport="shm", recover=True)
    assert_resumed(again, third, "tpcc")


@pytest.mark.parametrize("checkpoint", [False, True])
def test_tatp_restarts_with_its_call_forwarding(log_dir, checkpoint):
    """TATP logs its updates and call-forwarding inserts and deletes (the row's `present`
    column): a restart, from the log or from a snapshot, keeps deleted rows deleted and
    inserted rows there, with the sub_nbr index and referential integrity."""
    cfg = RunConfig(
        workload="tatp",
        tatp=TatpConfig(
            subscribers_per_site=200,
            mix="update_subscriber_data:20,update_location:20,insert_call_forwarding:30,delete_call_forwarding:30",
        ),
        engine=EngineConfig(cc="2pl", lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.2),
        log=LogConfig(mode="group_commit", directory=str(log_dir), checkpoint=checkpoint),
    )
    first = run_deployment(plan_deployment(TOPOLOGY, 1, cpus=CPUS[:2]), cfg)
    assert first.check_failures == []
    assert first.commits_by_type["delete_call_forwarding"] > 0 and first.commits_by_type["insert_call_forwarding"] > 0
    again = run_deployment(plan_deployment(TOPOLOGY, 1, cpus=CPUS[:2]), cfg, recover=True)
    assert_resumed(first, again, "tatp")
    assert again.check_failures == []


def test_torn_tail_is_cut_and_reported(log_dir):
    first = run_deployment(per_core(), config(log_dir), transport="unix")
    path = log_dir / "instance-0.log"
    records = _core.read_log(str(path))["records"]
    last = records[-1]
    with open(path, "r+b") as f:  # a crash in the middle of writing the last record
        f.truncate(last["offset"] + last["length"] - 5)
    (log_dir / "acks-0.bin").unlink()  # that record's acknowledgement could not have happened
    log = _core.read_log(str(path))
    assert len(log["records"]) == len(records) - 1
    assert f"LSN {last['lsn']}" in log["tail_note"] and f"offset {last['offset']}" in log["tail_note"]
    again = run_deployment(per_core(), config(log_dir, duration=0.1), transport="unix", recover=True)
    assert any("log tail cut" in w for w in again.warnings)
    assert "log tail cut" in again.instances[0]["recovery"]["tail_note"]
    assert again.instances[0]["recovery"]["records"] == len(records) - 1
    outcome = read_outcome(log_dir, 2)
    assert not outcome.tail_notes[0]  # the restart cut the torn bytes and logged after them
    assert again.instances[0]["payload_sum_before"] == first.instances[0]["payload_sum_before"] + sum(
        r["rows"] for r in records[:-1] if r["type"] in ("commit", "decision_commit")
    ) + sum(r["rows"] for r in records[:-1] if r["type"] == "prepare" and r["txn"] in outcome.committed[0])


def test_corrupt_record_in_the_middle_is_refused(log_dir):
    run_deployment(per_core(), config(log_dir), transport="unix")
    path = log_dir / "instance-1.log"
    records = _core.read_log(str(path))["records"]
    victim = records[len(records) // 2]
    data = bytearray(path.read_bytes())
    data[victim["offset"] + 16] ^= 0x01  # one flipped bit in its transaction id
    path.write_bytes(bytes(data))
    with pytest.raises(RuntimeError, match=f"LSN {victim['lsn']} \\(file offset {victim['offset']}\\)"):
        _core.read_log(str(path))
    # Instance 1 refuses its own log, or instance 0 refuses it first when it reads its peer's
    # log (recovery's check of the 2PC decisions); either names the file.
    corrupt = f"instance [01] .*instance-1.log is corrupt in the middle.*LSN {victim['lsn']}"
    with pytest.raises(InstanceFailed, match=corrupt):
        run_deployment(per_core(), config(log_dir, duration=0.1), transport="unix", recover=True)


def test_bad_log_settings_are_refused(tmp_path):
    with pytest.raises(ValueError, match="log.mode"):
        config(tmp_path, mode="sometimes").to_core()
    with pytest.raises(ValueError, match="log.directory"):
        RunConfig(log=LogConfig(mode="async")).to_core()
    with pytest.raises(ValueError, match="log.buffer_bytes"):
        config(tmp_path, buffer_bytes=10).to_core()
    # Command logging where replay in log order would not repeat the run, or cannot run.
    with pytest.raises(ValueError, match="log.content: command: micro cannot execute its transactions again"):
        config(tmp_path, content="command").to_core()
    commands = LogConfig(mode="group_commit", directory=str(tmp_path), content="command")
    for engine, words in (
        (EngineConfig(cc="occ"), "not occ's"),
        (EngineConfig(cc="mvcc", isolation="snapshot"), "not mvcc's"),
        (EngineConfig(cc="2pl", isolation="read_committed"), "serializable runs only, not read_committed"),
        (EngineConfig(cc="2pl", execution="plp"), "plp workers log their partitions' after-images"),
    ):
        with pytest.raises(ValueError, match=f"log.content: command: .*{words}"):
            RunConfig(workload="tpcc", tpcc=LOCAL_TPCC, engine=engine, log=commands).to_core()
    with pytest.raises(ValueError, match="log.content"):
        config(tmp_path, content="words").to_core()
    # A single instance in this process is a deployment of one: it logs as any instance does.
    in_process = tmp_path / "in-process"
    in_process.mkdir()
    result = islands.run(config(in_process, multisite=0.0, duration=0.05))
    records = _core.read_log(str(in_process / "instance-0.log"))["records"]
    assert result.instances[0]["log"]["records"] == sum(r["type"] != "epoch" for r in records) > 0
    assert sum(r["rows"] for r in records if r["type"] == "commit") == result.checks["committed_row_updates"]
    with pytest.raises(ValueError, match="recover"):
        run_deployment(per_core(), config(tmp_path, mode="off"), recover=True)
    log_dir = tmp_path / "log"
    run_deployment(per_core(), config(log_dir, duration=0.05), transport="unix")
    with pytest.raises(ValueError, match="log.directory: .*instance-0.log holds the log of an earlier run"):
        run_deployment(per_core(), config(log_dir), transport="unix")


FULL_DISK_SCRIPT = """
import resource, sys
import islands
from islands.execution.launcher import InstanceFailed, run_deployment
from islands.config.settings import *
from islands.machine.placement import plan_deployment
islands.execution.launcher.RUN_ROOT = sys.argv[2]
resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))
t = islands.read_topology()
cfg = RunConfig(micro=MicroConfig(update=True, multisite=0.3, rows_per_site=500),
                engine=EngineConfig(cc="none", lock_policy="no_wait"),
                driver=DriverConfig(warmup_s=0.05, duration_s=2.0),
                log=LogConfig(mode="group_commit", directory=sys.argv[1], record_acks=True))
try:
    r = run_deployment(plan_deployment(t, "per-core", cpus=t.cpus[:2]), cfg, transport="unix")
    print("no failure:", r.commits, [i["log"] for i in r.instances])
except InstanceFailed as e:
    print(e)
"""


def test_full_disk_stops_commits_and_loses_nothing_acknowledged(tmp_path, short_tmp_path, request):
    """A file-size limit stands in for a full disk: the write fails with EFBIG as with ENOSPC."""
    # On tmpfs when there is one: a synced disk write can take milliseconds on a VM.
    log_dir = Path(tempfile.mkdtemp(dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else tmp_path)) / "log"
    request.addfinalizer(lambda: shutil.rmtree(log_dir.parent, ignore_errors=True))
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK_SCRIPT, str(log_dir), str(short_tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "log: writing" in done.stdout and "File too large" in done.stdout, done.stdout + done.stderr
    assert "stops taking commits" in done.stdout
    assert max(p.stat().st_size for p in log_dir.glob("instance-*.log")) <= 60_000
    check_durability(log_dir, 2)  # every acknowledged commit is in what reached the file
    again = run_deployment(per_core(), config(log_dir, duration=0.1), transport="unix", recover=True)
    assert again.commits > 0


#: A small TPC-C on the command line: two warehouses, so that remote Payments stay in the site.
SMALL_TPCC = ("--items", "1000", "--customers-per-district", "30", "--warehouses-per-site", "2")


@pytest.mark.parametrize(
    "workload, sizes",
    [
        ("tpcc", SMALL_TPCC),
        ("tpcc", (*SMALL_TPCC, "--log-content", "command")),
        ("tatp", ("--subscribers-per-site", "200")),
    ],
)
def test_islands_run_logs_tpcc_and_tatp(cli_here, tmp_path, workload, sizes):
    """``islands run --log`` logs a single run (one instance, in the command's own process, as
    an unlogged run is) into --log-dir, which a clean run leaves checkpointed; with
    ``--log-content command``, TPC-C's NewOrders and Payments as their words."""
    log_dir = tmp_path / "log"
    out = cli_here(
        "run",
        "--workload",
        workload,
        *sizes,
        "--cores",
        str(CPUS[0]),
        "--warmup",
        "0",
        "--duration",
        "0.2",
        "--log",
        "group_commit",
        "--log-dir",
        str(log_dir),
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["check_failures"] == [] and result["commits"] > 0
    assert result["instances"][0]["log"]["records"] > 0
    assert (log_dir / "instance-0.log").exists() and (log_dir / "instance-0.snapshot").exists()
    assert result["deployment"]["label"] == "1 instance" and result["transport"] == "none"  # in process
    assert result["config"]["log"]["content"] == ("command" if "--log-content" in sizes else "redo")


def test_islands_run_refuses_a_command_log_it_cannot_keep(cli_here):
    """--log-content names itself when refused: without --log, and for a workload that cannot
    replay its transactions."""
    alone = cli_here("run", "--workload", "tpcc", "--log-content", "command")
    assert alone.returncode != 0 and "--log-content: only with --log" in alone.stderr
    micro = cli_here("run", "--workload", "micro", "--log", "group_commit", "--log-content", "command")
    assert micro.returncode != 0 and "--log-content: command: micro cannot execute its transactions" in micro.stderr
