"""Crash faults: SIGKILL a random instance at a random moment of a logged update run
(microbenchmark, TPC-B, TPC-C in both row layouts, TATP), restart the deployment from its logs,
and check what a crash must keep. Deployments: one instance per core (2PC between them) and one
shared instance; early lock release on (the default) and off. The microbenchmark mixes in
read-only transactions (micro.read_share), so that the read-only rule of early lock release is
checked too.

Checked after every kill (tests/log_checks.py, computed from the raw records, independently of
the engine's recovery): every commit a worker acknowledged (its own acknowledgement record,
written after the acknowledgement) is in the logs; no distributed transaction is committed on
one instance and missing on another; every log still holds the LSN each acknowledged read-only
transaction of its instance waited for (what it may have read survived). Checked after the
restart: each instance holds exactly its initial data plus every committed row update (micro:
payload sums; TPC-B: the balance invariants, and one history row per committed transaction in
the logs; TPC-C: every consistency condition over the recovered data, and its Order, NewOrder
and History rows exactly the loaded ones plus the inserts less the deletes the logs committed;
TATP: referential integrity and the sub_nbr index; every workload: recovery applied exactly
the committed redo entries), and the restarted run keeps its own consistency check. TPC-C and
TATP run in one shared instance and in one instance per core (2PC), over both transports.
"""

from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

import pytest

import islands
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
from islands.machine.oversubscription import pack
from islands.machine.placement import plan_deployment
from log_checks import Outcome, acknowledged, check_durability, forget_logs, log_end, read_log, read_only_dependencies

TOPOLOGY = islands.read_topology()
SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
CPUS = TOPOLOGY.cpus
pytestmark = [
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
    pytest.mark.usefixtures("private_run_root"),
]
ROWS_PER_SITE = 500
PLP = {"execution": "plp"}  # engine settings of one PLP instance
READ_SHARE = 0.3  # micro: read-only transactions among the updates
TPCB_HISTORY_TABLE = 4  # the table number in the top 16 bits of a TPC-B key (TpcbWorkload::kHistory)
# TPC-C: a command's first word for a NewOrder and a Payment (TpccWorkload's operation codes).
TPCC_NEW_ORDER_OP, TPCC_PAYMENT_OP = 1, 3
# TPC-C: the table tags in the top byte of a key (tpcc_schema.hpp) and the loaded rows per district.
TPCC_ORDER, TPCC_NEW_ORDER, TPCC_HISTORY = 4, 5, 9
TPCC_CUSTOMERS = 30  # customers per district: as many loaded orders and History rows
TPCC_LOADED_NEW_ORDERS = TPCC_CUSTOMERS * 3 // 10  # the last 30% of the loaded orders
# Writes enough to crash in the middle of: Delivery deletes, remote Payments and items go through 2PC.
TPCC_MIX = "new_order:40,payment:40,order_status:4,delivery:12,stock_level:4"
TATP_MIX = (
    "get_subscriber_data:10,update_subscriber_data:20,update_location:30,"
    "insert_call_forwarding:20,delete_call_forwarding:20"
)


def config(
    log_dir: Path,
    cc: str,
    duration: float,
    seed: int,
    workload: str = "micro",
    layout: str = "spec",
    early: bool = True,
    engine: Mapping[str, object] = MappingProxyType({}),
    content: str = "redo",
) -> RunConfig:
    # TPC-B: one branch per instance and half the tellers remote, so that most transactions
    # are distributed and the teller, branch and history parts commit through 2PC.
    return RunConfig(
        workload=workload,
        micro=MicroConfig(update=True, multisite=0.3, rows_per_site=ROWS_PER_SITE, read_share=READ_SHARE),
        tpcb=TpcbConfig(branches_per_site=1, accounts_per_branch=ROWS_PER_SITE, tellers_per_branch=10, remote=0.5),
        tpcc=TpccConfig(
            warehouses_per_site=1,
            items=1000,
            customers_per_district=TPCC_CUSTOMERS,
            mix=TPCC_MIX,
            payment_remote=0.3,
            new_order_remote_item=0.1,
            layout=layout,
        ),
        tatp=TatpConfig(subscribers_per_site=200, mix=TATP_MIX),
        engine=EngineConfig(cc=cc, lock_policy="no_wait", **engine),
        driver=DriverConfig(warmup_s=0.05, duration_s=duration, seed=seed),
        log=LogConfig(
            mode="group_commit", directory=str(log_dir), record_acks=True, early_lock_release=early, content=content
        ),
    )


def initial_payload_sum(instance: int, sites_per_instance: int) -> int:
    """Column 0 summed over an instance's rows as the loader makes them: key % 1000."""
    first = instance * sites_per_instance * ROWS_PER_SITE
    return sum(k % 1000 for k in range(first, first + sites_per_instance * ROWS_PER_SITE))


def history_inserts(log_dir: Path, outcome: Outcome, n_instances: int) -> int:
    """TPC-B history rows the logs say committed (one per committed AccountUpdate)."""
    rows = 0
    for i in range(n_instances):
        for r in read_log(log_dir / f"instance-{i}.log")["records"]:
            if r["txn"] in outcome.committed[i] and r["type"] in ("commit", "decision_commit", "prepare"):
                rows += sum(1 for key in r["keys"] if key >> 48 == TPCB_HISTORY_TABLE)
    return rows


def tpcc_rows_from_logs(log_dir: Path, outcome: Outcome, n_instances: int) -> dict[str, int]:
    """TPC-C rows the committed records insert and delete: an Order and a NewOrder per
    NewOrder, a History row per Payment (after-images of keys no load made, or a command whose
    first operation is a NewOrder's or a Payment's), NewOrder deletes per Delivery."""
    count = {"orders": 0, "new_orders": 0, "history": 0, "deleted_new_orders": 0}
    for i in range(n_instances):
        for r in read_log(log_dir / f"instance-{i}.log")["records"]:
            if r["type"] == "command" and r["txn"] in outcome.committed[i]:
                count["new_orders"] += r["command"][0] == TPCC_NEW_ORDER_OP
                count["history"] += r["command"][0] == TPCC_PAYMENT_OP
                continue
            if r["txn"] not in outcome.committed[i] or r["type"] not in ("commit", "decision_commit", "prepare"):
                continue
            tags = [key >> 56 for key in r["keys"]]
            count["new_orders"] += tags.count(TPCC_NEW_ORDER)  # inserted: Delivery deletes, never updates, them
            count["history"] += tags.count(TPCC_HISTORY)
            count["deleted_new_orders"] += sum(1 for key in r["deleted"] if key >> 56 == TPCC_NEW_ORDER)
    count["orders"] = count["new_orders"]  # each NewOrder inserts its order with its new-order row
    return count


TATP_FORWARDING = 5  # Call_Forwarding's tag in the top byte of a TATP key
TATP_FORWARDING_COLUMNS = 6  # an insert logs the whole row; a delete logs the present column alone


def tatp_forwarding_change(log_dir: Path, outcome: Outcome, n_instances: int) -> int:
    """How many call-forwarding rows the committed records add (inserts less deletes), from
    each row's first and last committed entry: a row whose first entry is a delete was there
    before, one whose last entry is an insert is there after."""
    change = 0
    for i in range(n_instances):
        first: dict[int, bool] = {}  # key -> its first entry inserts
        last: dict[int, bool] = {}  # key -> its last entry inserts
        for r in read_log(log_dir / f"instance-{i}.log")["records"]:
            if r["txn"] not in outcome.committed[i] or r["type"] not in ("commit", "decision_commit", "prepare"):
                continue
            for key, columns in zip(r["keys"], r["columns"], strict=True):
                if key >> 56 == TATP_FORWARDING:
                    first.setdefault(key, columns == TATP_FORWARDING_COLUMNS)
                    last[key] = columns == TATP_FORWARDING_COLUMNS
        change += sum(int(last[key]) - int(not inserts) for key, inserts in first.items())
    return change


def loaded_tatp_forwarding(cfg: RunConfig) -> int:
    """Call-forwarding rows a fresh load of two sites makes (an unlogged run in this process)."""
    unlogged = dataclasses.replace(
        cfg,
        log=LogConfig(),
        engine=dataclasses.replace(cfg.engine, cc="2pl"),
        driver=dataclasses.replace(cfg.driver, cpus=tuple(CPUS[:2]), duration_s=0.01),
    )
    return islands.run(unlogged).instances[0]["checks_before"]["call_forwarding_rows"]


def check_tpcc_recovered(restarted, from_logs: dict[str, int] | None, n_warehouses: int) -> None:
    """Every consistency condition over the recovered data, and (from_logs: the logs hold
    every change since the load, no snapshot) its growing tables exactly the loaded rows plus
    what the logs inserted less what they deleted."""
    at_start: dict[str, int] = {}
    for inst in restarted.instances:
        for name, value in inst["checks_before"].items():
            at_start[name] = at_start.get(name, 0) + value
    assert verify("tpcc", at_start) == [], verify("tpcc", at_start)
    if from_logs is None:
        return
    districts = 10 * n_warehouses
    assert at_start["order_rows"] == districts * TPCC_CUSTOMERS + from_logs["orders"]
    assert at_start["new_order_rows"] == (
        districts * TPCC_LOADED_NEW_ORDERS + from_logs["new_orders"] - from_logs["deleted_new_orders"]
    )
    assert at_start["history_rows"] == districts * TPCC_CUSTOMERS + from_logs["history"]


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
    instances: str | int = "per-core",
    layout: str = "spec",
    early: bool = True,
    engine: Mapping[str, object] = MappingProxyType({}),
    planned_on: str | None = None,
    content: str = "redo",
) -> str:
    """One trial; returns what happened, for the failure message of the next one. ``engine``:
    EngineConfig settings beside cc and lock_policy (e.g. execution). ``planned_on``: a fixture
    machine (tests/fixtures/sysfs) the deployment is planned on, run packed onto this machine's
    CPUs (islands.machine.oversubscription). ``content``: log.content."""
    try:
        return _crash_and_recover(
            log_dir, transport, cc, rng, workload, instances, layout, early, engine, planned_on, content
        )
    finally:
        forget_logs()  # the decoded logs of this trial


def _crash_and_recover(
    log_dir: Path,
    transport: str,
    cc: str,
    rng: random.Random,
    workload: str,
    instances: str | int,
    layout: str,
    early: bool,
    engine: Mapping[str, object],
    planned_on: str | None = None,
    content: str = "redo",
) -> str:
    packing, planned = None, TOPOLOGY
    if planned_on is None:
        deployment = plan_deployment(TOPOLOGY, instances, cpus=CPUS[:2])
    else:
        planned = islands.read_topology(SYSFS / planned_on)
        deployment = plan_deployment(planned, instances)
        packing = pack(deployment, CPUS, pinned=True, planned_on=planned_on)
    sites_per_instance = len(deployment.instances[0])
    duration = 0.4
    victim, when = rng.randrange(deployment.n_instances), rng.uniform(0.0, 0.05 + duration)
    cfg = config(
        log_dir,
        cc,
        duration,
        seed=rng.randrange(1 << 30),
        workload=workload,
        layout=layout,
        early=early,
        engine=engine,
        content=content,
    )
    try:
        run_deployment(deployment, cfg, transport=transport, kill=(victim, when), topology=planned, packing=packing)
        outcome_of_run = "finished before the kill"
    except InstanceFailed as error:
        outcome_of_run = f"killed: {error}"
    acks = acknowledged(log_dir)
    outcome = check_durability(log_dir, deployment.n_instances)
    check_read_only_dependencies(log_dir, deployment)
    history = history_inserts(log_dir, outcome, deployment.n_instances) if workload == "tpcb" else 0
    from_logs = tpcc_rows_from_logs(log_dir, outcome, deployment.n_instances) if workload == "tpcc" else {}
    forwarding = tatp_forwarding_change(log_dir, outcome, deployment.n_instances) if workload == "tatp" else 0
    commands = [
        sum(r["type"] == "command" for r in read_log(log_dir / f"instance-{i}.log")["records"])
        for i in range(deployment.n_instances)
    ]
    restarted = run_deployment(deployment, cfg, transport=transport, recover=True, topology=planned, packing=packing)
    checks = restarted.checks
    for i, inst in enumerate(restarted.instances):  # every committed entry (after-image or delete) applied
        if not inst["recovery"]["snapshot_rows"]:
            assert inst["recovery"]["rows_redone"] == outcome.committed_rows[i], (i, inst["recovery"])
            assert inst["recovery"]["commands_replayed"] == commands[i], (i, commands[i], inst["recovery"])
            assert (commands[i] > 0) == (content == "command"), (i, commands[i])
    if workload == "micro":
        for i, inst in enumerate(restarted.instances):
            expected = initial_payload_sum(i, sites_per_instance) + outcome.committed_rows[i]
            assert inst["payload_sum_before"] == expected, (
                f"instance {i} recovered to payload sum {inst['payload_sum_before']}, the logs say {expected}"
            )
        assert checks["payload_sum_after"] - checks["payload_sum_before"] == checks["committed_row_updates"]
    elif workload == "tpcb":
        # The balance invariants hold over the recovered data and again after the restarted run
        # (a part of a distributed transaction lost on one instance would unbalance the sums).
        assert restarted.check_failures == [], restarted.check_failures
        assert checks["history_rows_at_start"] == history, "recovered history rows differ from the logs"
    else:
        if workload == "tpcc":  # a run that finished checkpointed: its snapshot holds what the log held
            killed = outcome_of_run != "finished before the kill"
            check_tpcc_recovered(restarted, from_logs if killed else None, deployment.n_cpus)
        else:
            at_start: dict[str, int] = {}
            for inst in restarted.instances:
                for name, value in inst["checks_before"].items():
                    at_start[name] = at_start.get(name, 0) + value
            assert verify("tatp", at_start) == [], verify("tatp", at_start)
            if outcome_of_run != "finished before the kill":  # else a snapshot holds what the log held
                loaded = loaded_tatp_forwarding(cfg)
                assert at_start["call_forwarding_rows"] == loaded + forwarding, (loaded, forwarding)
        assert restarted.check_failures == [], restarted.check_failures
    return (
        f"victim {victim} at {when:.3f}s ({workload}, {layout}, {deployment.label}, {transport}, {cc}, {dict(engine)}, "
        f"log {content}, "
        f"early lock release {'on' if early else 'off'}): {outcome_of_run}; "
        f"{len(acks)} acknowledged, {sum(len(c) for c in outcome.committed)} committed parts"
    )


def slow_unless(kept: bool) -> tuple:
    """The marks of a variant the default suite does not keep (make test-slow runs it)."""
    return () if kept else (pytest.mark.slow,)


# Each workload, scheme and transport once, in two of the eight (the shared-instance, PLP and
# TPC-C/TATP cases below cross them again); the other six repeat those paths (and
# test_many_random_kills draws them all), under slow.
KEPT = {("micro", "none", "unix"), ("tpcb", "2pl", "shm")}


@pytest.mark.parametrize(
    "workload, cc, transport",
    [
        pytest.param(w, c, t, id=f"{w}-{c}-{t}", marks=slow_unless((w, c, t) in KEPT))
        for w in ("micro", "tpcb")
        for c in ("none", "2pl")
        for t in ("unix", "shm")
    ],
)
def test_killed_instance_loses_nothing_acknowledged(tmp_path, transport, cc, workload):
    rng = random.Random(f"{workload}-{transport}-{cc}")
    crash_and_recover(tmp_path / "log", transport, cc, rng, workload)


# micro: its read-only transactions are what may read a commit not yet durable; TPC-B's
# commit pipeline is the per-core cases' above.
@pytest.mark.parametrize("workload", ["micro", pytest.param("tpcb", marks=pytest.mark.slow)])
def test_killed_shared_instance_loses_nothing_acknowledged(tmp_path, workload):
    """One instance of two workers (2PL, early lock release): the commit pipeline of a shared
    instance, where another worker may read a row whose commit is not durable yet."""
    rng = random.Random(f"shared-{workload}")
    crash_and_recover(tmp_path / "log", "none", "2pl", rng, workload, instances=1)


@pytest.mark.parametrize("workload", ["micro", pytest.param("tpcb", marks=pytest.mark.slow)])
def test_killed_instance_without_early_lock_release(tmp_path, workload):
    """Early lock release off: locks held until the flush, as before it."""
    rng = random.Random(f"no-elr-{workload}")
    crash_and_recover(tmp_path / "log", "shm", "2pl", rng, workload, early=False)


# micro with early lock release on and off, and TPC-C (inserts and deletes in one commit record);
# TPC-B's and TATP's PLP records (TATP's twice more below) under slow.
@pytest.mark.parametrize(
    "workload, early",
    [
        ("micro", True),
        ("micro", False),
        pytest.param("tpcb", True, marks=pytest.mark.slow),
        pytest.param("tatp", True, marks=pytest.mark.slow),
        ("tpcc", True),
    ],
)
def test_killed_plp_instance_loses_nothing_acknowledged(tmp_path, workload, early):
    """One PLP instance of two workers (engine.execution = plp): actions routed between the
    partitions' owners, one commit record per transaction with every action's redo."""
    rng = random.Random(f"plp-{workload}-{early}")
    crash_and_recover(tmp_path / "log", "none", "2pl", rng, workload, instances=1, early=early, engine=PLP)


@pytest.mark.parametrize(
    "workload, engine",
    [
        pytest.param("tatp", {"plp_units": "per_table", "plp_placement": "workload_aware"}, id="tatp-per-table"),
        pytest.param("micro", {"plp_handoff": 4}, id="micro-handoff"),
        # handoff's path again: slow
        pytest.param("tatp", {"plp_handoff": 4}, id="tatp-handoff", marks=pytest.mark.slow),
    ],
)
def test_killed_plp_instance_with_tables_apart_or_handed_transactions(tmp_path, workload, engine):
    """PLP with each table's units on their own worker (every TATP transaction that touches
    two tables meets two owners) or with drawn transactions handed whole to their home's owner
    (engine.plp_handoff): still nothing acknowledged is lost."""
    rng = random.Random(f"plp-{workload}-{sorted(engine.items())}")
    crash_and_recover(tmp_path / "log", "none", "2pl", rng, workload, instances=1, engine={**PLP, **engine})


# One shared instance (no 2PC; the transport is unused) and one instance per core (2PC over
# the transport): TPC-C in both layouts, TATP.
DEPLOYMENTS = [
    pytest.param(1, "unix", "2pl", id="1-instance"),
    pytest.param("per-core", "unix", "none", id="per-core-unix"),
    pytest.param("per-core", "shm", "2pl", id="per-core-shm"),
]


WORKLOADS = [("tpcc", "spec"), ("tpcc", "narrow"), ("tatp", "spec")]


# The default suite runs each deployment once and each workload and layout once (a Latin
# square's diagonal); the other six pairs, slow (test_many_random_tpcc_and_tatp_kills draws
# them all again).
@pytest.mark.parametrize(
    "workload, layout, instances, transport, cc",
    [
        pytest.param(
            *workload, *deployment.values, id=f"{'-'.join(workload)}-{deployment.id}", marks=slow_unless(i == j)
        )
        for i, workload in enumerate(WORKLOADS)
        for j, deployment in enumerate(DEPLOYMENTS)
    ],
)
def test_killed_tpcc_and_tatp_lose_nothing_acknowledged(tmp_path, instances, transport, cc, workload, layout):
    rng = random.Random(f"{workload}-{layout}-{instances}-{transport}-{cc}")
    crash_and_recover(tmp_path / "log", transport, cc, rng, workload, instances, layout)


@pytest.mark.parametrize(
    "instances, transport, layout",
    [(1, "unix", "spec"), pytest.param("per-core", "shm", "narrow", marks=pytest.mark.slow)],
)
def test_killed_tpcc_with_a_command_log_loses_nothing_acknowledged(tmp_path, instances, transport, layout):
    """Command logging (log.content = command): NewOrders and Payments logged as their words,
    Deliveries and 2PC's parts as after-images; killed at a random moment, the restart
    executes the commands again and holds every acknowledged transaction, with every
    condition and the rows the logs insert and delete."""
    rng = random.Random(f"command-{instances}-{transport}-{layout}")
    crash_and_recover(tmp_path / "log", transport, "2pl", rng, "tpcc", instances, layout, content="command")


@pytest.mark.slow
def test_many_random_tpcc_and_tatp_kills(tmp_path):
    """Many trials (bounded: at most 120 or 15 minutes), each a fresh log: every deployment,
    transport, scheme and layout at random moments."""
    rng = random.Random(14)
    deadline = time.monotonic() + 15 * 60
    trials = 0
    last = ""
    while trials < 120 and time.monotonic() < deadline:
        instances, transport = rng.choice([(1, "unix"), ("per-core", "unix"), ("per-core", "shm")])
        cc = "2pl" if instances == 1 else rng.choice(["none", "2pl"])
        workload, layout = rng.choice([("tpcc", "spec"), ("tpcc", "narrow"), ("tatp", "spec")])
        try:
            last = crash_and_recover(tmp_path / f"log-{trials}", transport, cc, rng, workload, instances, layout)
        except AssertionError as error:
            raise AssertionError(f"trial {trials} (after: {last}): {error}") from error
        trials += 1
    assert trials >= 20


@pytest.mark.slow
def test_many_random_kills(tmp_path):
    """Hundreds of trials (bounded: at most 200 or 15 minutes), each a fresh log: per-core and
    shared deployments, both transports, early lock release mostly on."""
    rng = random.Random(6)
    deadline = time.monotonic() + 15 * 60
    trials = 0
    while trials < 200 and time.monotonic() < deadline:
        instances = rng.choice([1, "per-core", "per-core"])
        transport, cc, workload, early = (
            rng.choice(["unix", "shm"]),
            "2pl" if instances == 1 else rng.choice(["none", "2pl"]),
            rng.choice(["micro", "tpcb"]),
            rng.random() < 0.75,
        )
        crash_and_recover(tmp_path / f"log-{trials}", transport, cc, rng, workload, instances, early=early)
        trials += 1
    assert trials >= 20


def test_killed_instance_of_24_loses_nothing_acknowledged(tmp_path):
    """Per-core on the 4x6 Xeon (24 instances, 2PC fan-out to every peer), run packed onto this
    machine's CPUs: one instance killed at a random moment, every instance recovered from its log
    (each reading its peers' logs for its in-doubt transactions), nothing acknowledged lost."""
    rng = random.Random("24-instances")
    crash_and_recover(tmp_path / "log", "shm", "none", rng, "micro", planned_on="xeon-e7530-4x6")


def _holders(directory: Path) -> list[int]:
    """Processes with a file under ``directory`` open."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if any(str(directory) in os.readlink(fd) for fd in (proc / "fd").iterdir()):
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


@pytest.mark.parametrize(
    "planned_on, n",
    [
        # per-core here (2 instances): the same kill and restart in the default suite
        pytest.param(None, 2, id="per-core-here"),
        pytest.param("xeon-e7530-4x6", 24, id="24-instances", marks=pytest.mark.slow),
    ],
)
def test_killed_launcher_of_24_instances_loses_nothing_acknowledged(tmp_path, planned_on, n):
    """SIGKILL of the launcher of 24 logged instances (per-core on the 4x6, packed here) mid-run:
    the instances die with it (PR_SET_PDEATHSIG), and a restart recovers every instance from its
    log, nothing acknowledged lost and every distributed commit on all its participants. (The
    24-instance case is slow; by default per-core on this machine's first two CPUs.)"""
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    if planned_on is None:
        plan_it = """
planned = islands.read_topology()
deployment = plan_deployment(planned, "per-core", cpus=planned.cpus[:2])
packing = None
"""
    else:
        plan_it = f"""
planned = islands.read_topology({str(SYSFS / planned_on)!r})
deployment = plan_deployment(planned, "per-core")
packing = pack(deployment, islands.read_topology().cpus, True, {planned_on!r})
"""
    script = f"""
import dataclasses, islands
from islands.execution.launcher import run_deployment
from islands.machine.oversubscription import pack
from islands.machine.placement import plan_deployment
import test_log_faults as t
{plan_it}
run_deployment(deployment, t.config({str(log_dir)!r}, "none", 30.0, seed=5), "shm", planned, packing=packing)
"""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    launcher = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not any(log_dir.glob("instance-*.log")) or len(_holders(log_dir)) < n:
            assert launcher.poll() is None, launcher.stderr.read() if launcher.stderr else ""
            assert time.monotonic() < deadline, f"the {n} instances did not open their logs in time"
            time.sleep(0.1)
        time.sleep(1.0)  # into the run
    finally:
        launcher.kill()
        launcher.communicate()
    deadline = time.monotonic() + 30
    while _holders(log_dir):
        assert time.monotonic() < deadline, f"instances outlived their launcher: {_holders(log_dir)}"
        time.sleep(0.1)
    acks = acknowledged(log_dir)
    assert acks, "nothing was acknowledged before the kill"
    outcome = check_durability(log_dir, n)
    if planned_on is None:
        planned = TOPOLOGY
        deployment = plan_deployment(planned, "per-core", cpus=CPUS[:2])
        packing = None
    else:
        planned = islands.read_topology(SYSFS / planned_on)
        deployment = plan_deployment(planned, "per-core")
        packing = pack(deployment, CPUS, pinned=True, planned_on=planned_on)
    cfg = config(log_dir, "none", 0.2, seed=6)
    restarted = run_deployment(deployment, cfg, "shm", planned, recover=True, packing=packing)
    assert len(restarted.instances) == n
    for i, inst in enumerate(restarted.instances):
        expected = initial_payload_sum(i, 1) + outcome.committed_rows[i]
        assert inst["payload_sum_before"] == expected, (i, inst["payload_sum_before"], expected)
    assert restarted.check_failures == []
