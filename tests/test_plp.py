"""Physiological partitioning inside one instance (engine.execution = plp, issue 16 item 1):
each worker owns its site's partition, a transaction's operations on other partitions go to
their owners as actions, and the coordinator commits in one phase with one log record.

Every workload runs under PLP with its consistency checks; action routing delivers every action
exactly once (counted: each action sent is executed once, and each successful one gets one
decision); conflicting actions are serialized by the partitions' own locks (conflicts happen,
the history checker finds no cycle); the log records one commit per transaction and recovery
replays it; settings PLP cannot run are refused by name. Short here, long under slow."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import islands
from islands import _core
from islands.analysis.history_check import check_history
from islands.config.settings import (
    DriverConfig,
    EngineConfig,
    LogConfig,
    MicroConfig,
    RunConfig,
)
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from small_workloads import small_sections

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = pytest.mark.usefixtures("private_run_root")
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


def plp_config(workload, n_cpus, multisite=0.5, duration=0.2, update=True, rows_per_txn=4, history=False, **engine):
    """A small run of `workload` under PLP; half the transactions reach another partition."""
    sections = small_sections(workload, multisite, rows_per_txn, update)
    return RunConfig(
        workload=workload,
        **sections,
        engine=EngineConfig(execution="plp", record_history=history, **engine),
        driver=DriverConfig(cpus=tuple(CPUS[:n_cpus]), warmup_s=0.02, duration_s=duration),
    )


def run_plp(config):
    if len(config.driver.cpus) > len(CPUS):
        pytest.skip("needs two online CPUs")
    result = islands.run(config)
    assert result.config.engine.execution == "plp"
    assert result.check_failures == [], result.check_failures
    assert result.commits > 0
    return result


def routed(result):
    """(actions sent, decisions sent, messages sent, messages received) over the workers."""
    inst = result.instances[0]
    return inst["fragments_sent"], inst["decisions_sent"], inst["messages_sent"], inst["messages_received"]


@pytest.mark.parametrize("update", [False, True], ids=["read", "update"])
@pytest.mark.parametrize("n_cpus", [1, 2])
def test_micro_under_plp_keeps_its_consistency(n_cpus, update):
    result = run_plp(plp_config("micro", n_cpus, update=update, multisite=0.5 if n_cpus > 1 else 0.0))
    actions, decisions, sent, received = routed(result)
    if n_cpus == 1:
        assert actions == decisions == sent == received == 0  # one partition: nothing to route
    else:
        assert result.multisite_commits > 0 and actions > 0
    assert "execution=plp" in result.summary()


@two_cpus
def test_every_action_is_delivered_once_and_decided_once():
    # Read-1 and update-N: every message sent is received once (actions and decisions); every
    # action that ran got one decision, so decisions never outnumber actions, and every
    # multisite commit sent at least one action and one commit decision.
    for update in (False, True):
        result = run_plp(plp_config("micro", 2, update=update, multisite=1.0, rows_per_txn=3))
        actions, decisions, sent, received = routed(result)
        assert sent == received == actions + decisions
        assert result.multisite_commits > 0
        assert decisions <= actions
        assert decisions >= result.multisite_commits


@two_cpus
@pytest.mark.parametrize("workload", ["micro", "tpcb", "tatp", "tpcc"])
def test_every_workload_under_plp_is_consistent_and_serializable(workload):
    result = run_plp(plp_config(workload, 2, history=True, duration=0.1))
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary() + "\n" + "\n".join(report.examples)
    assert report.transactions >= result.commits
    if workload != "tatp":  # TATP's transactions stay on their subscriber's partition
        assert result.multisite_commits > 0


@two_cpus
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows_per_site=st.integers(4, 64),
    rows_per_txn=st.integers(1, 6),
    multisite=st.sampled_from([0.25, 0.5, 1.0]),
    read_share=st.sampled_from([0.0, 0.5]),
    seed=st.integers(1, 1 << 20),
)
def test_random_plp_runs_rendezvous_consistently(rows_per_site, rows_per_txn, multisite, read_share, seed):
    # Random shapes and seeds, so that actions, decisions and the rendezvous interleave
    # differently each time (two workers both coordinating and serving, small hot tables,
    # a read/update mix): every run must add up and be serializable.
    micro = MicroConfig(
        rows_per_site=max(rows_per_site, rows_per_txn),
        rows_per_txn=rows_per_txn,
        update=True,
        multisite=multisite,
        read_share=read_share,
    )
    # 0.05 s a shape: its history (checked in Python, the most of a case's time) holds thousands
    # of transactions meeting at the rendezvous; the shapes and seeds are what vary.
    config = dataclasses.replace(plp_config("micro", 2, history=True, duration=0.05), micro=micro)
    config = dataclasses.replace(config, driver=dataclasses.replace(config.driver, seed=seed))
    result = run_plp(config)
    actions, decisions, sent, received = routed(result)
    assert sent == received == actions + decisions and decisions <= actions
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary()


@two_cpus
def test_partition_locks_serialize_conflicting_actions():
    # Two partitions of 8 rows, every transaction updates 4 rows of both: actions of different
    # transactions meet on the same rows all the time. The owners' no-wait locks turn each
    # meeting into an abort and a retry (counted), and what commits is serializable and adds up.
    config = plp_config("micro", 2, multisite=1.0, history=True)
    config = dataclasses.replace(config, micro=dataclasses.replace(config.micro, rows_per_site=8))
    result = run_plp(config)
    assert result.aborts.get("lock_conflict", 0) > 0, result.aborts
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary()
    assert report.edges["ww"] > 0


@two_cpus
@pytest.mark.parametrize("early_lock_release", [True, False], ids=["elr", "no_elr"])
def test_plp_logs_one_commit_record_per_transaction_and_recovers(tmp_path, early_lock_release):
    log_dir = tmp_path / "log"
    log = LogConfig(
        mode="group_commit", directory=str(log_dir), early_lock_release=early_lock_release, checkpoint=False
    )
    config = dataclasses.replace(plp_config("micro", 2, multisite=1.0, history=True), log=log)
    deployment = plan_deployment(TOPOLOGY, 1, cpus=CPUS[:2])
    first = run_deployment(deployment, config, transport="none")
    assert first.check_failures == [] and first.multisite_commits > 0
    # Locks released at the append (early lock release) or at the flush: serializable either way.
    report = check_history(first.history, "serializable")
    assert report.violations == [], report.summary()
    records = _core.read_log(str(log_dir / "instance-0.log"))["records"]
    kinds = {r["type"] for r in records}
    assert kinds <= {"commit", "epoch"}, kinds  # one phase: no prepare, no decision records
    # Every micro transaction here updates 4 rows on both partitions: each record holds all 4.
    commits = [r for r in records if r["type"] == "commit"]
    assert commits and all(len(r["keys"]) == 4 for r in commits)
    sites = {frozenset(key // 200 for key in r["keys"]) for r in commits}
    assert frozenset({0, 1}) in sites  # the actions' redo joined the coordinator's record
    # A restart replays the log onto freshly loaded data (the run checkpointed at its end, or
    # replays the records): the payload sum it starts from is the one the run ended with.
    again = run_deployment(deployment, config, transport="none", recover=True)
    assert again.instances[0]["recovery"]["performed"]
    assert again.instances[0]["payload_sum_before"] == first.instances[0]["payload_sum_after"]
    assert again.check_failures == []


@pytest.mark.parametrize(
    ("engine", "message"),
    [({"cc": "none"}, "engine.execution"), ({"cc": "table_2pl"}, "engine.execution")],
)
def test_settings_plp_cannot_run_are_refused(engine, message):
    with pytest.raises(islands.ConfigError, match=message):
        islands.run(plp_config("micro", 1, multisite=0.0, **engine))


def test_shared_everything_stays_the_default():
    assert EngineConfig().execution == "shared_everything"
    with pytest.raises(islands.ConfigError, match="engine.execution"):
        islands.run(dataclasses.replace(plp_config("micro", 1, multisite=0.0), engine=EngineConfig(execution="dora")))


@pytest.mark.slow
@two_cpus
@pytest.mark.parametrize("workload", ["micro", "tpcb", "tatp", "tpcc"])
def test_every_workload_under_plp_long(workload):
    result = run_plp(plp_config(workload, 2, history=True, duration=1.0))
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary()


def test_an_experiment_grid_chooses_the_execution_and_auto_cc_runs_plp_under_2pl(tmp_path):
    import tomllib

    from islands.experiments.spec import ExperimentSpec

    text = """
name = "plp-grid"
figure = "none"
[run]
warmup_s = 0.0
duration_s = 0.05
[grid]
deployment = ["1"]
execution = ["shared_everything", "plp"]
[micro]
rows_per_txn = 1
"""
    spec = ExperimentSpec.from_dict(tomllib.loads(text), text=text)
    for execution, cc_one_cpu in (("shared_everything", "none"), ("plp", "2pl")):
        config = spec.run_config({"execution": execution}, cpus=(0,), sizes=(1,))
        assert config.engine.execution == execution and config.engine.cc == cc_one_cpu
        assert islands.run(config).commits > 0


def test_the_command_line_runs_plp_and_defaults_its_cc_to_2pl(cli_here):
    done = cli_here("run", "--execution", "plp", "--cores", str(CPUS[0]), "--duration", "0.05", "--warmup", "0")
    assert done.returncode == 0, done.stderr
    assert "cc=2pl" in done.stdout and "execution=plp" in done.stdout
    refused = cli_here("run", "--execution", "plp", "--cc", "none", "--cores", str(CPUS[0]), "--duration", "0.05")
    assert refused.returncode != 0 and "--execution: plp" in refused.stderr and "2pl only" in refused.stderr
