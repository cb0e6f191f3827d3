"""engine.interleave (memory-level parallelism across transactions, csrc/include/islands/exec/
txn_lookahead.hpp): a worker draws its transactions ahead and prefetches their index slots and
rows a stage at a time, but executes, checks, counts and records every transaction as without
it. Checked here by what the runs record (engine.record_history): on the same seed a worker
interleaving at any depth commits the same transactions, reading the same rows in the same
order, as one that does not; under 2PL, occ and 2PC the history checker and the consistency
conditions pass. The C++ test test_txn_lookahead checks the pipeline's stages and depths.
Behaviour only: the speed is benchmarks/memory_parallelism.py's."""

from __future__ import annotations

import numpy as np
import pytest

import islands
from islands.analysis.history_check import check_history, parse_history
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = pytest.mark.usefixtures("private_run_root")
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


def micro_run(
    interleave: int,
    cpus,
    cc: str = "none",
    update: bool = False,
    multisite: float = 0.0,
    isolation: str = "serializable",
    **micro,
):
    """A short recorded micro run at engine.interleave `interleave`."""
    return RunConfig(
        micro=MicroConfig(
            rows_per_site=micro.pop("rows_per_site", 1000), rows_per_txn=10, update=update, multisite=multisite, **micro
        ),
        engine=EngineConfig(
            cc=cc,
            isolation=isolation,
            lock_policy="wait_die" if len(cpus) > 1 and cc != "none" else "no_wait",
            record_history=True,
            interleave=interleave,
        ),
        driver=DriverConfig(cpus=tuple(cpus), warmup_s=0.02, duration_s=0.1, seed=7),
    )


def checked(result, isolation: str = "serializable"):
    """The run's history report, after the checks every run must pass."""
    assert result.check_failures == []
    assert result.commits > 0
    report = check_history(result.history, isolation)
    assert report.transactions >= result.commits, report.summary()
    assert report.violations == [], report.summary() + "\n" + "\n".join(report.examples)
    return report


def key_sequence(result) -> list[tuple[int, ...]]:
    """Each committed transaction's rows (those it read, or those it wrote) as key offsets, in
    commit order. A site's rows lie in one chunk in key order (storage/table.cpp), so a row's
    offset from the lowest row touched over the row stride is its key's offset from that row's
    key (the same in both runs compared: their common prefix touches the lowest key of 1,000
    many times over)."""
    history = parse_history(result.history)
    parts = history.part_table.sort_values("number")
    touched = [(history.reads.txn.to_numpy(), history.reads.row.to_numpy(dtype=np.uint64))]
    touched.append((history.writes.txn.to_numpy(), history.writes.row.to_numpy(dtype=np.uint64)))
    every = np.concatenate([rows for _, rows in touched])
    base = every.min()
    stride = np.uint64(np.diff(np.unique(every)).min())
    by_txn: dict[int, list[int]] = {}
    for txns, rows in touched:
        for txn, row in zip(txns, rows, strict=True):
            by_txn.setdefault(int(txn), []).append(int((row - base) // stride))
    return [tuple(by_txn[int(t)]) for t in parts.txn.to_numpy()]


@pytest.mark.parametrize("depth", [1, 3, 8])
def test_interleaving_commits_the_same_transactions_in_the_same_order(depth):
    off = islands.run(micro_run(0, CPUS[:1]))
    on = islands.run(micro_run(depth, CPUS[:1]))
    checked(off)
    checked(on)
    a, b = key_sequence(off), key_sequence(on)
    n = min(len(a), len(b))
    assert n > 1000
    assert all(len(keys) == 10 for keys in a[:n])
    # The same draws, none skipped, none repeated, none reordered: read in the same key order.
    assert a[:n] == b[:n]


def test_each_run_reports_the_depth_its_workers_resolved():
    """interleave_depths: what engine.interleave became in each worker. A depth given is taken as
    is; -1 (the default) stays off where the data fits the last-level cache, as 1,000 rows do on
    any machine with a cache (with none read, -1 stays off too)."""
    assert islands.run(micro_run(3, CPUS[:1])).instances[0]["interleave_depths"] == [3]
    assert islands.run(micro_run(0, CPUS[:1])).instances[0]["interleave_depths"] == [0]
    assert islands.run(micro_run(-1, CPUS[:1])).instances[0]["interleave_depths"] == [0]


def test_interleaving_updates_keeps_the_payload_and_the_order():
    """Updates too (the rows are prefetched for writing): every committed update is counted in
    the payload sum's growth (the consistency condition), in the same order as without."""
    off = islands.run(micro_run(0, CPUS[:1], update=True, read_share=0.3))
    on = islands.run(micro_run(4, CPUS[:1], update=True, read_share=0.3))
    for result in (off, on):
        checked(result)
        assert result.checks["committed_row_updates"] > 0
    a, b = key_sequence(off), key_sequence(on)
    n = min(len(a), len(b))
    assert n > 1000 and a[:n] == b[:n]


@two_cpus
@pytest.mark.parametrize("cc, isolation", [("2pl", "serializable"), ("occ", "serializable"), ("mvcc", "snapshot")])
def test_contending_interleaved_workers_keep_their_isolation(cc, isolation):
    """Two workers on rows they share (half the transactions reach the other's site) with
    updates, each interleaving 4 deep: its locks are taken when it executes, as without."""
    result = islands.run(
        micro_run(
            4, CPUS[:2], cc=cc, update=True, multisite=0.5, isolation=isolation, rows_per_site=200, read_share=0.5
        )
    )
    checked(result, isolation)
    assert result.checks["committed_row_updates"] > 0


@two_cpus
def test_interleaved_per_core_instances_run_2pc_as_without():
    """Per-core instances: a drawn transaction's keys at another instance are not prefetched
    (not in this index); its distributed commit runs as without interleaving."""
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    base = micro_run(4, CPUS[:2], update=True, multisite=0.3, rows_per_site=200)
    result = run_deployment(deployment, base, transport="unix")
    report = checked(result)
    assert result.multisite_commits > 0
    assert report.parts > report.transactions
