"""Rendezvous points where PLP actions exchange data (issue 16 item 1; 002 Fig 7): TPC-C
NewOrder's stock steps, run by the owners of the supplying warehouses, hand its lines step each
line's S_DIST_xx and S_DATA test (and its home step the order's number), so that no step reads
another partition's stock row (exec/plp/plp_stages.hpp).

A NewOrder spread over partitions runs in two stages: the stock actions and the home step's
inserts, a rendezvous returning their records, the lines action with them as its input (remote
when re-partitioning moved the home warehouse away from the coordinator: then in the context
the home step's action left there), a second rendezvous, one decision. Counted: every record
the first stage produced of a committed transaction was consumed by the second. Checked:
the run's order lines' OL_DIST_INFO equals the stock's S_DIST_xx (a consistency figure), and in
test mode (engine.record_history) each record used equals the text the direct read would have
found. Under random interleavings (seeds, shares of remote items and user rollbacks, units
moving while transactions run, more workers than cores and unpinned, so that they are
preempted at any point) every run stays consistent and serializable, with every committed
transaction in the history exactly once. Transactions that exchange nothing (the narrow layout,
local NewOrders, the other procedures, other workloads) take the one-stage path."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import islands
from islands import _core
from islands.analysis.history_check import check_history
from islands.config.settings import DriverConfig, EngineConfig, LogConfig, RunConfig, TpccConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from plp_runs import run_on

CPUS = islands.read_topology().cpus
# A made-up 16-cpu machine: labels for more workers than this machine has cores (unpinned).
pytestmark = [
    pytest.mark.usefixtures("private_run_root"),
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
]


def new_orders(remote_item=0.5, rollback=0.05, layout="spec", mix="new_order", duration=0.3, seed=1, **engine):
    """A small 2-worker PLP run of TPC-C NewOrders, `remote_item` of their lines supplied by the
    other warehouse, with history recording."""
    tpcc = TpccConfig(
        warehouses_per_site=1,
        items=2000,
        customers_per_district=60,
        mix=mix,
        new_order_remote_item=remote_item,
        new_order_rollback=rollback,
        payment_remote=0.5,
        layout=layout,
    )
    return RunConfig(
        workload="tpcc",
        tpcc=tpcc,
        engine=EngineConfig(execution="plp", record_history=True, **engine),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.02, duration_s=duration, seed=seed),
    )


def checked(result):
    """Consistent, serializable, every committed transaction in the history exactly once;
    returns the instance's figures."""
    assert result.check_failures == [], result.check_failures
    assert result.commits > 0
    assert result.checks.get("order_line_dist_info", 0) == 0
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary() + "\n" + "\n".join(report.examples)
    assert report.transactions == result.checks["committed_txns"] >= result.commits
    return result.instances[0]


def assert_handed_over(inst):
    """Every record the first stages of committed transactions produced was consumed; each
    staged NewOrder has its order's record and at least 5 lines, each with its stock record."""
    assert inst["staged_commits"] > 0
    assert inst["rendezvous_produced"] == inst["rendezvous_consumed"] > 0
    assert inst["rendezvous_produced"] >= 6 * inst["staged_commits"]


def test_remote_stock_steps_hand_their_lines_to_the_lines_step():
    result = islands.run(new_orders())
    inst = checked(result)
    assert_handed_over(inst)
    assert result.user_rollbacks > 0  # the unused item: the home step rolls back, the stock steps with it
    # Half the lines remote: nearly every NewOrder reaches the other partition, and each that
    # does needs the second stage.
    assert inst["staged_commits"] == result.multisite_commits
    assert inst["staged_commits"] > result.commits_by_type["new_order"] // 2


def test_transactions_that_exchange_nothing_take_one_stage():
    # The narrow layout has no text to hand over; local NewOrders hold every row they read;
    # Payments consume nothing. All spread ones still run as actions, in one stage.
    narrow = checked(islands.run(new_orders(layout="narrow")))
    local = checked(islands.run(new_orders(remote_item=0.0, mix="new_order:50,payment:50")))
    for inst, result in ((narrow, "narrow"), (local, "local")):
        assert inst["fragments_sent"] > 0, result
        assert inst["staged_commits"] == inst["rendezvous_produced"] == inst["rendezvous_consumed"] == 0, result
        assert inst["stage1_actions_sent"] == 0, result
    # Shared-everything: no actions at all.
    config = new_orders()
    config = dataclasses.replace(config, engine=dataclasses.replace(config.engine, execution="shared_everything"))
    inst = checked(islands.run(config))
    assert inst["staged_commits"] == inst["fragments_sent"] == 0


def test_a_home_moved_away_from_its_coordinator_runs_its_stage_remotely():
    # Units move every 2 ms: a NewOrder whose home warehouse now belongs to the other worker
    # sends its lines step there as a stage-1 action, which takes its input from the
    # coordinator's memory and runs in the context the home step's stage-0 action left there.
    result = islands.run(new_orders(plp_reshuffle_s=0.002))
    inst = checked(result)
    assert_handed_over(inst)
    assert inst["repartitioning"]["repartitions"] > 0
    assert inst["stage1_actions_sent"] > 0


STOCK_TAG = 8  # TPC-C's key layout (tpcc_schema.hpp): tag << 56 | warehouse << 40 | district << 32 | id


@pytest.mark.parametrize("early_lock_release", [True, False], ids=["elr", "no_elr"])
def test_a_staged_new_order_logs_one_record_with_every_action_once_and_recovers(tmp_path, early_lock_release):
    # Every NewOrder is one commit record holding each row it wrote once: a partition that ran
    # a stage-0 and a stage-1 action returns its context's redo once, not each stage's.
    log_dir = tmp_path / "log"
    log = LogConfig(
        mode="group_commit", directory=str(log_dir), early_lock_release=early_lock_release, checkpoint=False
    )
    config = dataclasses.replace(new_orders(rollback=0.0, plp_reshuffle_s=0.002), log=log)
    deployment = plan_deployment(islands.read_topology(), 1, cpus=CPUS[:2])
    first = run_deployment(deployment, config, transport="none")
    inst = checked(first)
    assert_handed_over(inst)
    commits = [r for r in _core.read_log(str(log_dir / "instance-0.log"))["records"] if r["type"] == "commit"]
    assert commits and all(len(set(r["keys"])) == len(r["keys"]) for r in commits)
    stock_sites = [{(k >> 40) & 0xFFFF for k in r["keys"] if k >> 56 == STOCK_TAG} for r in commits]
    assert any(len(sites) == 2 for sites in stock_sites)  # the stock actions' redo joined the record
    again = run_deployment(deployment, config, transport="none", recover=True)
    assert again.instances[0]["recovery"]["performed"]
    assert again.check_failures == [], again.check_failures


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    remote_item=st.sampled_from([0.2, 0.5, 1.0]),
    rollback=st.sampled_from([0.0, 0.05, 0.3]),
    reshuffle_s=st.sampled_from([0.0, 0.001, 0.003]),
    workers=st.sampled_from([2, 4]),
    mix=st.sampled_from(["new_order", "standard"]),
    seed=st.integers(1, 1 << 20),
)
def test_random_staged_runs_rendezvous_consistently(remote_item, rollback, reshuffle_s, workers, mix, seed):
    # Random shapes and seeds; 4 workers run unpinned on this machine's cores (labelled from a
    # 16-cpu fixture), so the OS preempts them anywhere: between a stage's actions, at either
    # rendezvous, between the stages while the first stage's locks are held.
    config = new_orders(remote_item, rollback, mix=mix, duration=0.25, seed=seed, plp_reshuffle_s=reshuffle_s)
    inst = checked(run_on(config, workers))
    assert inst["rendezvous_produced"] == inst["rendezvous_consumed"]
    if mix == "new_order":
        assert_handed_over(inst)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [2, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_staged_runs_under_repartitioning_long(workers, seed):
    config = new_orders(0.5, 0.05, mix="standard", duration=2.0, seed=seed, plp_reshuffle_s=0.001)
    inst = checked(run_on(config, workers))
    assert_handed_over(inst)
    assert inst["stage1_actions_sent"] > 0
