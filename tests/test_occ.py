"""The occ scheme (Silo's optimistic concurrency control) from Python: its settings refused
where they mean nothing, its aborts counted by reason on a contended run, and a TPC-C run
over 2PC consistent. Histories under occ are checked in tests/test_history.py."""

from __future__ import annotations

import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TpccConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = pytest.mark.usefixtures("private_run_root")
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


def micro(engine: EngineConfig, cpus: tuple[int, ...], rows: int = 10_000, multisite: float = 0.0) -> RunConfig:
    return RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=rows, rows_per_txn=4, update=True, multisite=multisite),
        engine=engine,
        driver=DriverConfig(cpus=cpus, warmup_s=0.02, duration_s=0.2),
    )


def test_occ_runs_serializable_only():
    with pytest.raises(islands.ConfigError, match="engine.isolation: occ validates every read"):
        islands.run(micro(EngineConfig(cc="occ", isolation="read_committed"), (CPUS[0],)))


def test_skipping_validation_needs_occ():
    with pytest.raises(islands.ConfigError, match="engine.test_skip_validation: only occ validates; engine.cc is 2pl"):
        islands.run(micro(EngineConfig(cc="2pl", test_skip_validation=True), (CPUS[0],)))


@two_cpus
def test_contended_updates_abort_by_occ_reasons_and_stay_consistent():
    result = islands.run(micro(EngineConfig(cc="occ"), tuple(CPUS[:2]), rows=20, multisite=0.5))
    assert result.check_failures == []
    assert result.commits > 0
    occ = result.aborts["occ_validation"] + result.aborts["occ_locked"]
    assert occ > 0 and occ == sum(result.aborts.values()), result.aborts


@two_cpus
@pytest.mark.parametrize("transport", ["unix", "shm"])
def test_tpcc_over_2pc_under_occ_is_consistent(transport):
    config = RunConfig(
        workload="tpcc",
        tpcc=TpccConfig(warehouses_per_site=1, items=2000, customers_per_district=60, payment_remote=0.5),
        engine=EngineConfig(cc="occ"),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=0.05, duration_s=0.3),
    )
    result = run_deployment(plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2]), config, transport=transport)
    assert result.check_failures == []
    assert result.multisite_commits > 0
