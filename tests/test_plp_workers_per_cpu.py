"""Several PLP workers pinned to each CPU (engine.plp_workers_per_cpu; 002 Fig 6's naive as it
ran there, "oversaturated"): k workers on each CPU of driver.cpus, each with its own site and
client; with tables routed apart and the naive placement, each table's partition of a CPU on a
worker of its own, so a two-table transaction meets both workers of its CPU."""

from __future__ import annotations

import numpy as np
import pytest

import islands
from islands import _core
from islands.atrapos.live import run_live
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig
from islands.config.workload_registry import workload
from islands.figures.designs import DESIGNS, design_of
from test_plp_park import affinity_of, wait_for, worker_tids
from test_plp_per_table import consistent, syncs_between_tables

TATP_ROUTED_TABLES = workload("tatp").tables  # the tables TATP routes apart, in its order

CPUS = islands.read_topology().cpus
pytestmark = pytest.mark.usefixtures("private_run_root")
TABLES = len(TATP_ROUTED_TABLES)
SUB, SF = TATP_ROUTED_TABLES.index("subscriber"), TATP_ROUTED_TABLES.index("special_facility")


def oversaturated(cpus=1, mix="update_subscriber_data", per_cpu=2, duration=0.3, **engine):
    """TATP with every table routed apart, placed naive, `per_cpu` workers on each of `cpus` CPUs,
    in test mode (history recorded, ownership checked) with the monitor on."""
    settings = {"plp_units": "per_table", "plp_placement": "naive", "plp_monitor": True, **engine}
    return RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=300, id_draw="uniform", mix=mix),
        engine=EngineConfig(execution="plp", record_history=True, plp_workers_per_cpu=per_cpu, **settings),
        driver=DriverConfig(cpus=tuple(CPUS[:cpus]), warmup_s=0.02, duration_s=duration),
    )


def test_nonsense_is_refused_by_name():
    base = oversaturated()
    shared = RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=1000),
        engine=EngineConfig(plp_workers_per_cpu=2),
        driver=DriverConfig(cpus=tuple(CPUS[:1]), warmup_s=0.0, duration_s=0.01),
    )
    with pytest.raises(islands.ConfigError, match="engine.plp_workers_per_cpu: several workers per CPU are PLP's"):
        islands.run(shared)
    unpinned = RunConfig(workload="tatp", tatp=base.tatp, engine=base.engine, driver=DriverConfig(cpus=(0,), pin=False))
    with pytest.raises(islands.ConfigError, match="engine.plp_workers_per_cpu: workers share a CPU only when pinned"):
        islands.run(unpinned)
    aware = RunConfig(
        workload="tatp",
        tatp=base.tatp,
        engine=EngineConfig(
            execution="plp", plp_units="per_table", plp_placement="workload_aware", plp_workers_per_cpu=2
        ),
        driver=base.driver,
    )
    with pytest.raises(islands.ConfigError, match="engine.plp_workers_per_cpu: workload_aware places one partition"):
        islands.run(aware)
    with pytest.raises(islands.ConfigError, match="engine.plp_workers_per_cpu"):
        islands.run(oversaturated(per_cpu=0))
    with pytest.raises(ValueError, match="engine.plp_workers_per_cpu: the ATraPos controller"):
        run_live(oversaturated(), adaptive=False)


def test_the_naive_placement_gives_each_table_of_a_cpu_its_own_worker():
    # 2 CPUs x 2 workers = 4 sites; tables A (0) and B (2) used, of 4. Sites 0 and 1 are CPU 0's.
    owners = np.asarray(_core.plp_placement("naive", 4, 4, 4, 0b0101, [], 2)).reshape(4, 4, 10)  # site, table, sub
    assert (owners[:, 0, :].max(axis=1) == owners[:, 0, :].min(axis=1)).all()
    assert owners[:, 0, 0].tolist() == [0, 0, 2, 2]  # A: CPU c's first worker
    assert owners[:, 2, 0].tolist() == [1, 1, 3, 3]  # B: its second
    assert owners[:, 1, 0].tolist() == [0, 1, 2, 3] and owners[:, 3, 0].tolist() == [0, 1, 2, 3]  # unused: site s's
    # one worker per CPU: naive as before
    assert _core.plp_placement("naive", 4, 4, 4, 0b0101, [], 1) == _core.plp_placement("naive", 4, 4, 4, 0b0101)


def watch_affinities(handle: _core.RunningInstance, workers: int, seen: dict) -> None:
    if not handle.wait_attached(timeout_s=60):
        seen["error"] = "the run never attached"
        return
    wait_for(lambda: len(worker_tids()) >= workers)
    seen["affinity"] = {w: affinity_of(w) for w in range(workers)}


@pytest.mark.parametrize("cpus", [1, pytest.param(2, marks=pytest.mark.skipif(len(CPUS) < 2, reason="two CPUs"))])
def test_workers_share_cpus_and_every_transaction_meets_both_workers_of_its_cpu(cpus):
    seen: dict = {}
    result = consistent(islands.run_beside(oversaturated(cpus), lambda h: watch_affinities(h, 2 * cpus, seen)))
    assert "error" not in seen, seen
    assert seen["affinity"] == {w: {CPUS[w // 2]} for w in range(2 * cpus)}
    assert len(result.workers) == 2 * cpus
    assert all(w.commits > 0 for w in result.workers)  # each worker is a client of its own
    # UpdateSubscriberData only: its Subscriber action and its SpecialFacility action run on
    # the two workers of one CPU, never on one worker, never on another CPU's
    assert result.multisite_commits == result.commits > 0
    assert syncs_between_tables(result) > 0
    monitor = result.instances[0]["monitor"]
    assert monitor["partitions"] == 2 * cpus * TABLES  # a site per worker
    assert result.checks["index_roots"] == 2 * cpus * TABLES * 10


def test_the_standard_mix_runs_consistently_oversaturated_while_units_move():
    result = consistent(islands.run(oversaturated(1, mix="standard", plp_reshuffle_s=0.002, plp_monitor=False)))
    moves = result.instances[0]["repartitioning"]
    assert moves["repartitions"] > 0 and moves["incomplete"] == 0, moves
    assert all(n > 0 for n in result.commits_by_type.values()), result.commits_by_type


def test_the_oversaturated_design():
    engine = DESIGNS["naive-oversaturated"].engine
    assert engine["plp_workers_per_cpu"] == 2 and engine["plp_placement"] == "naive"
    assert design_of(1, engine) == "naive-oversaturated"
    assert design_of(1, DESIGNS["naive"].engine) == "naive"
    assert design_of(1, {**DESIGNS["naive"].engine, "plp_workers_per_cpu": 1}) == "naive"
