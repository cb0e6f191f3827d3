"""Tables routed apart under PLP (engine.plp_units = per_table; issue 16 item 5, 002 Fig 6): each
TATP table's rows of a key range are a routing unit of their own, so a transaction over two
tables meets two owners when their units are placed apart (engine.plp_placement), and the
monitor and the controller's scheme see one partition per (site, table).

Every run checks consistency and, where it records one, a serializable history, with the
ownership check of test mode on; units also move every 2 ms while transactions run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import islands
from islands.analysis.history_check import check_history
from islands.atrapos.live import engine_scheme, routed_tables, scheme_order
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig
from islands.config.workload_registry import workload
from islands.figures.designs import DESIGNS, design_of

TATP_ROUTED_TABLES = workload("tatp").tables  # the tables TATP routes apart, in its order

CPUS = islands.read_topology().cpus
pytestmark = pytest.mark.usefixtures("private_run_root")
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")
TABLES = len(TATP_ROUTED_TABLES)


def tatp(mix="standard", placement="naive", units="per_table", duration=0.3, workers=2, **engine):
    """A small TATP PLP run in test mode (history recorded, ownership checked)."""
    return RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=300, id_draw="uniform", mix=mix),
        engine=EngineConfig(execution="plp", plp_units=units, plp_placement=placement, record_history=True, **engine),
        driver=DriverConfig(cpus=tuple(CPUS[:workers]), warmup_s=0.02, duration_s=duration),
    )


def consistent(result):
    assert result.check_failures == [], result.check_failures
    assert result.commits > 0
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary()
    return result


def test_settings_are_checked_by_name():
    micro = RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=1000),
        engine=EngineConfig(execution="plp", plp_units="per_table"),
        driver=DriverConfig(cpus=tuple(CPUS[:1]), warmup_s=0.0, duration_s=0.01),
    )
    with pytest.raises(islands.ConfigError, match="engine.plp_units"):
        islands.run(micro)
    with pytest.raises(islands.ConfigError, match="engine.plp_units"):
        islands.run(dataclasses.replace(tatp(), engine=EngineConfig(plp_units="per_table")))
    with pytest.raises(islands.ConfigError, match="engine.plp_placement"):
        islands.run(tatp(units="shared_key", placement="atrapos"))
    with pytest.raises(islands.ConfigError, match="engine.plp_units"):
        islands.run(tatp(units="per_tables"))


@pytest.mark.parametrize("placement", ["naive", pytest.param("workload_aware", marks=two_cpus)])
def test_every_tatp_transaction_runs_per_table_consistently_while_units_move(placement):
    workers = 2 if len(CPUS) >= 2 else 1
    result = consistent(islands.run(tatp(placement=placement, workers=workers, plp_reshuffle_s=0.002)))
    if workers == 2:
        moves = result.instances[0]["repartitioning"]
        assert moves["repartitions"] > 0 and moves["incomplete"] == 0, moves
    # one latch-free root per (site, table, unit)
    assert result.checks["index_roots"] == workers * TABLES * 10
    assert result.checks["index_latched_roots"] == 0
    assert all(n > 0 for n in result.commits_by_type.values()), result.commits_by_type


def monitored_update(placement):
    return islands.run(tatp(mix="update_subscriber_data", placement=placement, plp_monitor=True))


def syncs_between_tables(result):
    """Synchronizations the monitor saw between a Subscriber and a Special_Facility partition."""
    monitor = result.instances[0]["monitor"]
    n = monitor["partitions"]
    sync = np.asarray(monitor["sync_count"]).reshape(n, 10, n, 10).sum(axis=(1, 3))
    table = np.arange(n) % TABLES
    sub, sf = TATP_ROUTED_TABLES.index("subscriber"), TATP_ROUTED_TABLES.index("special_facility")
    return int(sync[np.ix_(table == sub, table == sf)].sum() + sync[np.ix_(table == sf, table == sub)].sum())


@two_cpus
def test_two_tables_placed_apart_synchronize_and_placed_together_do_not():
    together = consistent(monitored_update("naive"))
    apart = consistent(monitored_update("workload_aware"))
    assert together.instances[0]["monitor"]["partitions"] == 2 * TABLES
    assert together.multisite_commits == 0 and syncs_between_tables(together) == 0
    # Subscriber on worker 0, Special_Facility on worker 1: every committed UpdateSubscriberData
    # (the mix's only type) met both owners
    assert apart.multisite_commits == apart.commits > 0
    assert syncs_between_tables(apart) > 0
    actions = np.asarray(apart.instances[0]["monitor"]["actions"]).reshape(-1, 10).sum(axis=1)
    used = [i for i in range(len(actions)) if i % TABLES in (0, 2)]
    assert all(actions[i] > 0 for i in used) and actions.sum() == actions[used].sum()


def test_routed_tables_and_scheme_order():
    assert routed_tables(tatp()) == TATP_ROUTED_TABLES
    assert routed_tables(tatp(units="shared_key")) == ("keys",)
    order = scheme_order(2, 2)
    # scheme: table 0 of sites 0, 1, then table 1; engine: (site * 2 + table) * 10 + sub
    assert order.tolist() == [*range(0, 10), *range(20, 30), *range(10, 20), *range(30, 40)]
    assert scheme_order(3, 1).tolist() == list(range(30))


def test_engine_scheme_has_one_table_per_engine_table_and_their_synchronizations():
    # A hand-made snapshot of 2 sites x 2 tables (A, B): site s, table t is partition s * 2 + t.
    # Each of A's sub-partitions synchronized with the same sub-partition of B on its site.
    n, k = 4, 10
    actions = np.zeros((n, k), dtype=np.int64)
    actions[[0, 1, 2, 3]] = 100
    cost = actions * 50
    sync = np.zeros((n, k, n, k), dtype=np.int64)
    for site in range(2):
        for sub in range(k):
            sync[site * 2 + 1, sub, site * 2, sub] = 100  # B after A
    snapshot = {"actions": actions, "cost": cost, "sync_count": sync, "sync_bytes": sync * 8}
    # owners (engine order): A of site 0 on core 0, B of site 0 on core 2, A of site 1 on 1, B on 3
    owners = [0] * 10 + [2] * 10 + [1] * 10 + [3] * 10
    scheme, stats = engine_scheme(snapshot, owners, 4, ("A", "B"))
    assert scheme.names == ("A", "B")
    assert scheme.tables["A"].owner.tolist() == [0] * 10 + [1] * 10
    assert scheme.tables["B"].owner.tolist() == [2] * 10 + [3] * 10
    assert stats.cost["A"].tolist() == [5000] * 20 and stats.cost["B"].tolist() == [5000] * 20
    members = {p.members for p in stats.sync}
    assert len(stats.sync) == 20
    assert (("B", 0), ("A", 0)) in members and (("B", 13), ("A", 13)) in members
    assert all(p.count == 100 and p.size == 8 for p in stats.sync)
    # back to the engine's order: the scheme's owners scattered by scheme_order
    target = np.empty(40, dtype=np.int64)
    target[scheme_order(2, 2)] = scheme.owners()
    assert target.tolist() == owners
    with pytest.raises(ValueError, match="owners"):
        engine_scheme(snapshot, owners[:30], 4, ("A", "B"))


def test_fig6_designs_name_their_placements():
    for name, placement in (("naive", "naive"), ("workload-aware", "workload_aware"), ("atrapos-static", "atrapos")):
        engine = DESIGNS[name].engine
        assert engine["plp_units"] == "per_table" and engine["plp_placement"] == placement
        assert design_of(1, engine) == name
    assert design_of(1, DESIGNS["plp-hw"].engine) == "plp-hw"
    assert design_of(1, {**DESIGNS["plp-hw"].engine, "plp_units": "shared_key"}) == "plp-hw"


@two_cpus
def test_an_injected_delay_holds_back_only_messages_between_sockets():
    # Two virtual sockets of one core each, 20 us per message between them: the workload-aware
    # placement (Subscriber on socket 0, Special_Facility on socket 1) sends every action and
    # decision across; naive sends nothing.
    from islands.execution.launcher import run_deployment
    from islands.machine.placement import Deployment
    from islands.machine.virtual_topology import virtual_sockets

    topology = virtual_sockets(islands.read_topology(), 2, message_delay_us=20.0)
    cpus = tuple(topology.cpus[:2])
    deployment = Deployment(label="1ISL", instances=(cpus,), placement="islands", pinned=True)
    delayed = {}
    for placement in ("naive", "workload_aware"):
        config = tatp(mix="update_subscriber_data", placement=placement, system_structures="per_socket")
        config = dataclasses.replace(config, driver=dataclasses.replace(config.driver, cpus=cpus))
        result = consistent(run_deployment(deployment, config, transport="none", topology=topology))
        inst = result.instances[0]
        delayed[placement] = (inst["messages_delayed"], inst["messages_sent"], result.multisite_commits)
    assert delayed["naive"] == (0, 0, 0)
    sent_delayed, sent, multisite = delayed["workload_aware"]
    assert multisite > 0 and sent_delayed == sent > 0


@two_cpus
def test_the_controller_adapts_tables_routed_apart():
    # Subscriber on worker 0, Special_Facility on worker 1 (workload_aware); worker 1's core is
    # taken away 0.3 s into the window: the controller, seeing one scheme table per engine
    # table, moves every unit of every table to worker 0 (its plan mapped back to the engine's
    # unit order), and the run stays consistent (its history is not recorded: 1.6 s of it takes
    # the checker longer than the run; re-partitioning under a recorded history is
    # test_plp_repartition's).
    from islands.atrapos.adaptive_loop import AdaptiveLoop
    from islands.atrapos.controller import IntervalController
    from islands.atrapos.live import Event, run_live

    config = tatp(mix="update_subscriber_data", placement="workload_aware", duration=1.6, plp_monitor=True)
    config = dataclasses.replace(config, engine=dataclasses.replace(config.engine, record_history=False))
    loop = AdaptiveLoop(IntervalController(min_interval_s=0.2, max_interval_s=0.8))
    result, log = run_live(config, adaptive=True, events=[Event(0.3, "park", (1,))], loop=loop)
    assert result.check_failures == [] and result.commits > 0
    after = [r for r in log.repartitions if r["at_s"] >= log.events[0][0]]
    assert after, log
    assert len(after[-1]["owners"]) == 2 * TABLES * 10 and set(after[-1]["owners"]) == {0}


def test_the_atrapos_placement_is_what_the_cost_model_prefers():
    # UpdateSubscriberData on 4 sites, 4 workers on 2 sockets of 2 cores: a hand-made interval
    # where every Subscriber unit and its Special_Facility unit ran 100 actions each and
    # synchronized 100 times. Both one-partition-per-core placements balance the cores (RU 0);
    # only the engine's atrapos placement keeps every synchronization on one socket (TS 0).
    from islands import _core
    from islands.atrapos.cost_model import resource_utilization, transaction_synchronization
    from islands.atrapos.hardware import Hardware

    sites, k = 4, 10
    sub, sf = TATP_ROUTED_TABLES.index("subscriber"), TATP_ROUTED_TABLES.index("special_facility")
    n = sites * TABLES
    actions = np.zeros((n, k), dtype=np.int64)
    sync = np.zeros((n, k, n, k), dtype=np.int64)
    for site in range(sites):
        actions[[site * TABLES + sub, site * TABLES + sf]] = 100
        for s in range(k):
            sync[site * TABLES + sub, s, site * TABLES + sf, s] = 100
    snapshot = {"actions": actions, "cost": actions * 40, "sync_count": sync, "sync_bytes": sync * 16}
    hardware = Hardware.from_sockets([2, 2])
    used = (1 << sub) | (1 << sf)
    figures = {}
    for kind in ("workload_aware", "atrapos"):
        owners = _core.plp_placement(kind, 4, sites, TABLES, used, [0, 0, 1, 1])
        assert len(owners) == sites * TABLES * k
        scheme, stats = engine_scheme(snapshot, owners, 4, TATP_ROUTED_TABLES)
        figures[kind] = (
            resource_utilization(scheme, stats, hardware),
            transaction_synchronization(scheme, stats, hardware),
        )
    assert figures["workload_aware"][0] == figures["atrapos"][0] == 0
    assert figures["atrapos"][1] == 0 < figures["workload_aware"][1]
    with pytest.raises(islands.ConfigError, match="engine.plp_placement"):
        _core.plp_placement("spread", 4, sites, TABLES, used)
