"""The mvcc scheme (snapshot isolation) from Python: its settings refused where they mean
nothing, results that carry the scheme and the level, aborts counted by its reasons on a
contended run, TPC-C over 2PC consistent, and the version store's garbage collection keeping
memory bounded while the run writes many more versions than there are rows. Histories under
mvcc are checked in tests/test_history.py; the version chain, visibility, first-committer-wins
and GC one by one in csrc/tests/test_multi_version_cc.cpp."""

from __future__ import annotations

import dataclasses

import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TpccConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = pytest.mark.usefixtures("private_run_root")
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")
SNAPSHOT = EngineConfig(cc="mvcc", isolation="snapshot")


def micro(
    engine: EngineConfig, cpus: tuple[int, ...], rows: int = 10_000, multisite: float = 0.0, duration: float = 0.2
) -> RunConfig:
    return RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=rows, rows_per_txn=4, update=True, multisite=multisite),
        engine=engine,
        driver=DriverConfig(cpus=cpus, warmup_s=0.02, duration_s=duration),
    )


@pytest.mark.parametrize(
    ("engine", "message"),
    [
        (EngineConfig(cc="mvcc"), "engine.isolation: mvcc runs snapshot isolation only .* not serializable"),
        (EngineConfig(cc="mvcc", isolation="read_committed"), "engine.isolation: mvcc runs snapshot isolation only"),
        (EngineConfig(cc="2pl", isolation="snapshot"), "engine.isolation: snapshot needs multi-version .* 2pl runs"),
        (EngineConfig(cc="occ", isolation="snapshot"), "engine.isolation: snapshot needs multi-version"),
        (
            EngineConfig(cc="2pl", test_skip_write_conflict=True),
            "engine.test_skip_write_conflict: only mvcc checks write conflicts at commit; engine.cc is 2pl",
        ),
    ],
)
def test_snapshot_and_mvcc_go_together(engine, message):
    with pytest.raises(islands.ConfigError, match=message):
        islands.run(micro(engine, (CPUS[0],)))


def test_results_carry_the_scheme_and_the_level():
    result = islands.run(micro(SNAPSHOT, (CPUS[0],), rows=1000))
    assert result.check_failures == [] and result.commits > 0
    assert (result.config.engine.cc, result.config.engine.isolation) == ("mvcc", "snapshot")
    assert "mvcc" in result.summary() and "snapshot" in result.summary()


@two_cpus
def test_contended_updates_abort_by_si_reasons_and_stay_consistent():
    # Two workers conflict only while their transactions overlap: on a machine whose other
    # processes keep one CPU busy they may take turns for a whole 0.2 s run (one CI run saw no
    # abort). Up to three runs, each consistent and aborting by SI's reasons alone; one must abort.
    seen = []
    for _ in range(3):
        result = islands.run(micro(SNAPSHOT, tuple(CPUS[:2]), rows=20, multisite=0.5))
        assert result.check_failures == []
        assert result.commits > 0
        si = result.aborts["si_write_conflict"] + result.aborts["si_locked"]
        assert si == sum(result.aborts.values()), result.aborts
        seen.append(si)
        if si > 0:
            break
    assert seen[-1] > 0, f"no run of two contending workers aborted: {seen}"


@two_cpus
@pytest.mark.parametrize("transport", ["unix", "shm"])
def test_tpcc_over_2pc_under_mvcc_is_consistent(transport):
    config = RunConfig(
        workload="tpcc",
        tpcc=TpccConfig(warehouses_per_site=1, items=2000, customers_per_district=60, payment_remote=0.5),
        engine=dataclasses.replace(SNAPSHOT, lock_policy="no_wait"),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.05, duration_s=0.3),
    )
    result = run_deployment(plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2]), config, transport=transport)
    assert result.check_failures == []
    assert result.multisite_commits > 0


def gc_bounded(cpus: tuple[int, ...], duration: float) -> None:
    """A run over few rows writes versions by the hundred thousand; the store holds at most a
    few per row at any time (the stripes' peaks summed bound the most held at once)."""
    rows = 50
    result = islands.run(micro(SNAPSHOT, cpus, rows=rows, multisite=0.5 if len(cpus) > 1 else 0.0, duration=duration))
    assert result.check_failures == []
    checks = result.checks
    total_rows = rows * len(cpus)
    created, peak = checks["mvcc_versions_created"], checks["mvcc_versions_peak"]
    # Count, not time: the run made far more versions than there are rows...
    assert created >= 100 * total_rows, checks
    # ...and every one was pushed, reclaimed or is still live.
    assert created == checks["mvcc_versions_reclaimed"] + checks["mvcc_versions_live"]
    # A row keeps the versions written since the oldest open snapshot (a transaction's length
    # here) plus one per open snapshot, and those written since its cached horizon: a handful,
    # never a share of what was created.
    assert peak <= 16 * total_rows, checks
    assert checks["mvcc_versions_live"] <= peak
    # Each version is its header and one row's payload.
    per_version = 64 + 4 * MicroConfig().columns
    assert checks["mvcc_versions_bytes"] <= checks["mvcc_versions_live"] * per_version, checks


def test_old_versions_are_reclaimed_and_memory_stays_bounded():
    gc_bounded((CPUS[0],), duration=0.2)


@two_cpus
def test_old_versions_are_reclaimed_under_contention():
    gc_bounded(tuple(CPUS[:2]), duration=0.2)


@two_cpus
@pytest.mark.slow
def test_old_versions_are_reclaimed_in_a_long_run():
    gc_bounded(tuple(CPUS[:2]), duration=3.0)
