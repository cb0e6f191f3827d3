"""Table-level 2PL (engine.cc table_2pl, paper 004's H2 and HSQLDB) and isolation levels as run
settings: results carry the scheme and the level; snapshot is refused with the reason; and
004's "modified" engine: with table locks no index is read while it is written, so TPC-C and
TATP (which insert and delete index keys while they run) run on two workers with every index
latch off, their histories serializable and their consistency conditions kept, while latches
off under row-level 2PL are refused."""

from __future__ import annotations

import pytest

import islands
from islands import _core
from islands.analysis.history_check import check_history
from islands.analysis.store import flatten
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig, TpccConfig
from islands.execution.launcher import validate
from islands.machine.placement import plan_deployment

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")

#: Every TPC-C transaction: index inserts (NewOrder), deletes (Delivery) and read-only scans.
FULL_MIX = "new_order:35,payment:35,order_status:10,delivery:10,stock_level:10"
#: 004's read-only TPC-C.
READ_ONLY_MIX = "order_status:50,stock_level:50"


def tpcc(cpus, cc="table_2pl", latching=True, isolation="serializable", mix=FULL_MIX, duration=0.3, history=True):
    return RunConfig(
        workload="tpcc",
        tpcc=TpccConfig(warehouses_per_site=1, items=2000, customers_per_district=60, mix=mix),
        engine=EngineConfig(
            cc=cc, isolation=isolation, latching=latching, record_history=history, lock_policy="wait_die"
        ),
        driver=DriverConfig(cpus=tuple(cpus), warmup_s=0.02, duration_s=duration),
    )


def test_snapshot_is_refused_with_the_reason():
    config = RunConfig(engine=EngineConfig(isolation="snapshot"), driver=DriverConfig(cpus=(CPUS[0],)))
    with pytest.raises(_core.ConfigError, match="multi-version") as error:
        islands.run(config)
    assert error.value.field == "engine.isolation"


def test_an_unknown_level_is_refused():
    config = RunConfig(engine=EngineConfig(isolation="repeatable_read"), driver=DriverConfig(cpus=(CPUS[0],)))
    with pytest.raises(ValueError, match="engine.isolation"):
        islands.run(config)


@pytest.mark.parametrize("isolation", ["serializable", "read_committed"])
def test_results_carry_the_scheme_and_the_level(isolation):
    config = RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=1000),
        engine=EngineConfig(cc="table_2pl", isolation=isolation),
        driver=DriverConfig(cpus=(CPUS[0],), warmup_s=0.0, duration_s=0.05),
    )
    result = islands.run(config)
    assert result.commits > 0
    row = flatten(result.to_dict())
    assert row["config.engine.cc"] == "table_2pl" and row["config.engine.isolation"] == isolation
    assert f"cc=table_2pl (wait_die, {isolation})" in result.summary()


@two_cpus
def test_latches_off_under_row_level_2pl_are_refused():
    with pytest.raises(_core.ConfigError, match="needs index latching") as error:
        islands.run(tpcc(CPUS[:2], cc="2pl", latching=False))
    assert error.value.field == "engine.latching"
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=1000),
        engine=EngineConfig(cc="2pl", latching=False),
        driver=DriverConfig(cpus=tuple(CPUS[:2])),
    )
    with pytest.raises(_core.ConfigError, match="table_2pl, whose locks exclude them"):
        islands.run(config)


@two_cpus
def test_wait_die_cannot_span_instances_under_table_locks_either():
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    config = RunConfig(engine=EngineConfig(cc="table_2pl", lock_policy="wait_die"), driver=DriverConfig(cpus=CPUS[:2]))
    with pytest.raises(ValueError, match="wait_die cannot span instances"):
        validate(deployment, config, "unix", TOPOLOGY)


def assert_checked(result, isolation="serializable"):
    assert result.commits > 0
    assert result.check_failures == [], result.check_failures
    report = check_history(result.history or [], isolation)
    assert report.violations == [], report.summary()
    return report


@two_cpus
@pytest.mark.parametrize("isolation", ["serializable", "read_committed"])
@pytest.mark.parametrize("mix", [FULL_MIX, READ_ONLY_MIX])
def test_tpcc_runs_latch_free_under_table_locks(mix, isolation):
    # 0.1 s: thousands of transactions of every type in a history whose check is most of the
    # time (the long variant runs 3 s).
    result = islands.run(tpcc(CPUS[:2], latching=False, isolation=isolation, mix=mix, duration=0.1))
    report = assert_checked(result, isolation)
    if mix == FULL_MIX:  # writers and readers met: their order is in the graph
        assert report.edges["wr"] + report.edges["rw"] > 0
        assert result.commits_by_type["delivery"] > 0 and result.commits_by_type["stock_level"] > 0


@two_cpus
def test_tatp_runs_latch_free_under_table_locks():
    config = RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=500, id_draw="uniform"),
        engine=EngineConfig(cc="table_2pl", latching=False, record_history=True),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.02, duration_s=0.1),
    )
    assert_checked(islands.run(config))


@two_cpus
@pytest.mark.slow
@pytest.mark.parametrize("index", ["hash", "btree"])
@pytest.mark.parametrize("isolation", ["serializable", "read_committed"])
def test_tpcc_runs_latch_free_under_table_locks_long(index, isolation):
    config = tpcc(CPUS[:2], latching=False, isolation=isolation, duration=3.0)
    config = RunConfig.from_dict({**config.to_dict(), "engine": {**config.to_dict()["engine"], "index": index}})
    assert_checked(islands.run(config), isolation)
