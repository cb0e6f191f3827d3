"""Per-unit index roots under PLP (issue 16 item 1, index/rooted_index.hpp): with
engine.plp_index = per_unit (the default) each workload's primary index (and TPC-C's ordered
by-customer index) has one root per routing unit in use, latch-free, touched only by the unit's
owner; engine.plp_index = shared keeps one latched root, and so does every run outside PLP.

Every workload runs under PLP with 2 workers, its consistency checks passing, also while
engine.plp_reshuffle_s moves units (and so the ownership of their roots) between the workers;
the run reports its layout in its check figures (index_roots, index_latched_roots), so a user
can see roots = units and latching off. TPC-C's spec layout, where NewOrder reads the supplying
stock's text and a remote Payment the warehouse's and district's names, runs with another unit's
rows recomputed from their keys, not looked up in that unit's root."""

from __future__ import annotations

import dataclasses

import pytest

import islands
from islands.analysis.history_check import check_history
from islands.config.settings import DriverConfig, EngineConfig, RunConfig
from small_workloads import small_sections

CPUS = islands.read_topology().cpus
pytestmark = [
    pytest.mark.usefixtures("private_run_root"),
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
]

# Roots of the primary index of a 2-site PLP instance with per-unit roots: micro and TATP cut
# each site into 10 units; TPC-B and TPC-C route a whole site as one unit (TPC-C has one more
# root, Item's, which only the load writes).
PER_UNIT_ROOTS = {"micro": 20, "tatp": 20, "tpcb": 2, "tpcc": 3}


def config(workload, plp_index="per_unit", reshuffle_s=0.0, execution="plp", duration=0.1, **sections):
    """A small 2-worker run of `workload`, half its transactions reaching the other site: 0.1 s,
    tens of moves of its units at plp_reshuffle_s = 0.002 and a history whose check (the most
    of a case's time: TATP's took 2 s at 0.3 s) still holds thousands of transactions."""
    section = small_sections(workload, 0.5)
    if sections:
        section = {workload: dataclasses.replace(section[workload], **sections)}
    engine = {"execution": execution}
    if execution == "plp":
        engine.update(plp_index=plp_index, plp_reshuffle_s=reshuffle_s, record_history=True)
    return RunConfig(
        workload=workload,
        **section,
        engine=EngineConfig(**engine),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.02, duration_s=duration),
    )


def consistent(run_config, tries=3):
    """Runs `run_config` until a run commits (at most `tries` runs; a 0.1 s window on a machine
    whose CPUs the suite's other process shares once committed nothing): every run must pass
    its checks and its history check, and one must commit."""
    for _ in range(tries):
        result = islands.run(run_config)
        assert result.check_failures == [], result.check_failures
        if result.history is not None and result.config.engine.record_history:
            report = check_history(result.history, "serializable")
            assert report.violations == [], report.summary()
        if result.commits > 0:
            return result
    raise AssertionError(f"no commit in {tries} runs")


@pytest.mark.parametrize("workload", ["micro", "tpcb", "tatp", "tpcc"])
def test_every_workload_runs_on_per_unit_latch_free_roots(workload):
    result = consistent(config(workload))
    assert result.checks["index_roots"] == PER_UNIT_ROOTS[workload]
    assert result.checks["index_latched_roots"] == 0


@pytest.mark.parametrize("workload", ["micro", "tpcb", "tatp", "tpcc"])
def test_roots_change_owner_while_transactions_run(workload):
    result = consistent(config(workload, reshuffle_s=0.002))
    moves = result.instances[0]["repartitioning"]
    assert moves["repartitions"] > 0 and moves["incomplete"] == 0, moves
    assert result.checks["index_roots"] == PER_UNIT_ROOTS[workload]
    assert result.checks["index_latched_roots"] == 0


def test_tpcc_spec_layout_reads_only_its_own_roots():
    # Remote suppliers and remote payments on every transaction that can have them: the home
    # NewOrder action recomputes another unit's stock text, the customer's Payment action the
    # paid warehouse's and district's names; nothing is looked up in a root it does not own.
    result = consistent(config("tpcc", reshuffle_s=0.002, layout="spec", new_order_remote_item=0.5, payment_remote=1.0))
    assert result.checks["index_roots"] == 3 and result.checks["index_latched_roots"] == 0


@pytest.mark.parametrize("workload", ["micro", "tatp"])
def test_shared_layout_and_shared_everything_keep_one_latched_root(workload):
    shared = consistent(config(workload, plp_index="shared"))
    assert shared.checks["index_roots"] == 1 and shared.checks["index_latched_roots"] == 1
    everything = consistent(config(workload, execution="shared_everything"))
    assert everything.checks["index_roots"] == 1 and everything.checks["index_latched_roots"] == 1


def test_plp_index_names_are_checked():
    with pytest.raises(islands.ConfigError, match="engine.plp_index"):
        islands.run(config("micro", plp_index="per_site"))
