"""ATraPos's cost model and search (islands.atrapos, paper 002 Sec V-B/C) on hand-made cases
whose optimum is known, on sysfs fixtures and virtual topologies, and property tests: the
search never makes RU or TS worse, keeps every sub-partition on exactly one available core."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from islands.atrapos import (
    SUB_PARTITIONS,
    Hardware,
    MonitoredPartition,
    Scheme,
    SyncPoint,
    TableLayout,
    WorkloadStats,
    choose_partitioning,
    choose_placement,
    choose_scheme,
    core_utilization,
    from_monitor,
    greedy_partitioning,
    improve_partitioning,
    resource_utilization,
    spread_placement,
    sync_costs,
    transaction_synchronization,
    ts_by_txn,
)
from islands.machine.topology import read_topology
from islands.machine.virtual_topology import virtual_sockets

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"


def one_table(loads, owners, name="A") -> tuple[Scheme, WorkloadStats]:
    loads = np.asarray(loads, dtype=float)
    layout = TableLayout(np.arange(loads.size + 1), np.asarray(owners))
    return Scheme({name: layout}, int(max(owners)) + 1), WorkloadStats({name: loads})


def brute_force_ru(loads, hardware) -> float:
    cores = hardware.available_cores
    best = np.inf
    for assign in itertools.product(cores.tolist(), repeat=len(loads)):
        per = np.bincount(assign, weights=loads, minlength=hardware.n_cores)[cores]
        best = min(best, float(np.abs(per - per.mean()).sum()))
    return best


# --- the cost model ---------------------------------------------------------------------


def test_ru_sums_each_cores_distance_from_the_mean():
    hw = Hardware.from_sockets([4])
    scheme, w = one_table([3, 1, 2, 1, 1], [0, 0, 1, 2, 3])
    assert core_utilization(scheme, w).tolist() == [4, 2, 1, 1]
    assert resource_utilization(scheme, w, hw) == pytest.approx(2 + 0 + 1 + 1)


def test_ru_counts_idle_available_cores_and_refuses_work_on_removed_ones():
    hw = Hardware.from_sockets([2, 2])
    scheme, w = one_table([2, 2], [0, 1])  # cores 2 and 3 idle: mean 1
    scheme = Scheme(scheme.tables, 4)
    assert resource_utilization(scheme, w, hw) == pytest.approx(4)
    with pytest.raises(ValueError, match=r"cores \[1\] hold sub-partitions but are not available"):
        resource_utilization(scheme, w, hw.without([1]))


def test_ts_is_sockets_minus_one_times_mean_distance_times_size():
    # Three sockets, distances 2 (0-1), 3 (0-2), 4 (1-2).
    d = np.array([[1, 2, 3], [2, 1, 4], [3, 4, 1]], dtype=float)
    hw = Hardware(np.array([0, 1, 2]), d, np.ones(3, bool))
    layout = TableLayout(np.arange(4), np.array([0, 1, 2]))
    scheme = Scheme({"A": layout}, 3)
    points = [
        SyncPoint((("A", 0), ("A", 1), ("A", 2)), count=2, size=5, txn="T1"),  # 2 * 5 * 2 * 3
        SyncPoint((("A", 0), ("A", 1)), count=1, size=7, txn="T2"),  # 7 * 1 * 2
        SyncPoint((("A", 1), ("A", 2)), count=3, size=1, txn="T2"),  # 3 * 1 * 4
        SyncPoint((("A", 0), ("A", 0)), count=9, size=9, txn="T3"),  # one socket: 0
    ]
    w = WorkloadStats({"A": np.ones(3)}, points)
    assert sync_costs(scheme, w, hw).tolist() == pytest.approx([60, 14, 12, 0])
    assert transaction_synchronization(scheme, w, hw) == pytest.approx(86)
    assert ts_by_txn(scheme, w, hw) == pytest.approx({"T1": 60, "T2": 26, "T3": 0})
    same_socket = Scheme({"A": TableLayout(np.arange(4), np.array([0, 0, 0]))}, 3)
    assert transaction_synchronization(same_socket, w, hw) == 0


def test_bad_statistics_are_refused_naming_the_field():
    with pytest.raises(ValueError, match=r"cost\[A\]"):
        WorkloadStats({"A": np.array([1.0, -1.0])})
    with pytest.raises(ValueError, match=r"\(A, 5\) is not a sub-partition"):
        WorkloadStats({"A": np.ones(3)}, [SyncPoint((("A", 0), ("A", 5)))])
    scheme, _ = one_table([1, 1], [0, 1])
    with pytest.raises(ValueError, match="table A has 3 costs for 2 sub-partitions"):
        resource_utilization(scheme, WorkloadStats({"A": np.ones(3)}), Hardware.from_sockets([2]))


# --- Algorithm 1 ------------------------------------------------------------------------


def test_skew_50_percent_of_requests_on_20_percent_of_the_data_balances_exactly():
    # Paper 002 Fig 11's skew over 4 cores: 8 hot sub-partitions of 40 carry half the load.
    hw = Hardware.from_sockets([2, 2])
    scheme = Scheme.naive({"A": (0, 4000)}, hw)
    loads = np.r_[np.full(8, 1 / 16), np.full(32, 1 / 64)]
    w = WorkloadStats({"A": loads})
    assert resource_utilization(scheme, w, hw) == pytest.approx(0.28125 + 3 * 0.09375)
    chosen = choose_partitioning(scheme, w, hw)
    assert resource_utilization(chosen, w, hw) == pytest.approx(0)
    assert [p.end_sub - p.first_sub for p in chosen.partitions()] == [4, 4, 16, 16]


def test_the_improvement_step_fixes_an_overshooting_greedy_start():
    # Four equal sub-partitions on three cores: greedy fills two cores with 6 each; the best
    # any assignment does is 3, 3, 6 (RU 4), and the search gets there.
    hw = Hardware.from_sockets([3])
    scheme, w = one_table([3, 3, 3, 3], [0, 0, 0, 0])
    scheme = Scheme(scheme.tables, 3)
    greedy = greedy_partitioning(scheme, w, hw)
    assert core_utilization(greedy, w).tolist() == [6, 6, 0]
    chosen = improve_partitioning(greedy, w, hw)
    assert resource_utilization(chosen, w, hw) == pytest.approx(4) == brute_force_ru([3, 3, 3, 3], hw)


def test_removed_cores_get_nothing_and_the_rest_share_the_load():
    hw = Hardware.from_sockets([2, 2])
    scheme = Scheme.naive({"A": (0, 400), "B": (0, 400)}, hw)
    w = WorkloadStats({"A": np.ones(40), "B": np.ones(40)})
    fewer = hw.without([2, 3])
    plan = choose_scheme(scheme, w, fewer)
    assert not plan.fits and plan.worth_it()
    assert set(plan.scheme.used_cores().tolist()) == {0, 1}
    assert core_utilization(plan.scheme, w).tolist() == [40, 40, 0, 0]
    back = choose_scheme(plan.scheme, w, fewer.with_cores([2, 3]))
    assert back.worth_it() and back.ru_after == pytest.approx(0) and back.ru_before == pytest.approx(80)


def test_a_core_holding_no_table_takes_a_sub_partition_of_another_table():
    hw = Hardware.from_sockets([2])
    layout = TableLayout(np.arange(5), np.array([0, 0, 0, 0]))
    scheme = Scheme({"A": layout, "B": TableLayout(np.arange(3), np.array([0, 0]))}, 2)
    w = WorkloadStats({"A": np.ones(4), "B": np.ones(2)})
    chosen = improve_partitioning(scheme, w, hw)
    assert core_utilization(chosen, w).tolist() == [3, 3]


def test_a_stable_balanced_workload_keeps_its_scheme():
    hw = Hardware.from_sockets([2, 2])
    scheme = Scheme.naive({"A": (0, 400), "B": (0, 400)}, hw)
    w = WorkloadStats(
        {"A": np.ones(40), "B": np.ones(40)}, [SyncPoint((("A", i), ("B", i)), count=3) for i in range(40)]
    )
    plan = choose_scheme(scheme, w, hw)
    assert plan.ru_before == plan.ru_after == 0 and plan.ts_before == plan.ts_after == 0
    assert not plan.changes and not plan.worth_it()
    assert plan.gain == 0


def test_weighing_synchronization_keeps_partners_together_while_balancing():
    # Two tables synchronizing key by key (TATP's GetNewDest), the first fifth of the keys hot.
    # The paper's Algorithm 1 balances by walking the tables one after the other, which puts
    # partners on different sockets (here Algorithm 2 can repair that; on 80 cores it cannot
    # fully); weighing synchronization in Algorithm 1 balances as well and never separates
    # them.
    hw = Hardware.from_sockets([2, 2])
    scheme = Scheme.naive({"A": (0, 400), "B": (0, 400)}, hw)
    hot = np.r_[np.full(8, 4.0), np.ones(32)]
    w = WorkloadStats({"A": hot, "B": hot}, [SyncPoint((("A", i), ("B", i)), count=1, size=8) for i in range(40)])
    assert transaction_synchronization(choose_partitioning(scheme, w, hw), w, hw) > 0
    plan = choose_scheme(scheme, w, hw)
    assert plan.ts_before == 0 and plan.ts_after == 0
    assert plan.ru_after < plan.ru_before / 4 and plan.worth_it()
    weighed = improve_partitioning(scheme, w, hw, sync_weight=1.0)
    assert transaction_synchronization(weighed, w, hw) == 0


# --- Algorithm 2 ------------------------------------------------------------------------


def test_placement_brings_partners_together_when_they_are_one_partition_apart():
    # A's partition i synchronizes with B's partition i+1 (mod 4); the naive placement puts
    # half of the pairs across sockets. Switching B's partitions makes every pair local.
    hw = Hardware.from_sockets([2, 2])
    scheme = Scheme.naive({"A": (0, 400), "B": (0, 400)}, hw)
    sync = [SyncPoint((("A", i), ("B", (i + 10) % 40)), count=1, size=8, txn="GetNewDest") for i in range(40)]
    w = WorkloadStats({"A": np.ones(40), "B": np.ones(40)}, sync)
    assert transaction_synchronization(scheme, w, hw) == pytest.approx(20 * 8 * 2)
    plan = choose_scheme(scheme, w, hw)
    assert plan.ts_after == 0 and plan.ru_after == 0 and plan.worth_it()
    assert plan.gain == pytest.approx(320 / 80)


def brute_force_ts(scheme, w, hw) -> float:
    """The lowest TS over every permutation of the cores' contents."""
    owners = scheme.owners()
    best = np.inf
    for perm in itertools.permutations(range(hw.n_cores)):
        s = scheme.with_owners(np.asarray(perm)[owners])
        best = min(best, transaction_synchronization(s, w, hw))
    return best


def test_placement_finds_the_best_permutation_on_three_sockets():
    d = np.array([[1, 2, 5], [2, 1, 2], [5, 2, 1]], dtype=float)  # a line: 0 - 1 - 2
    hw = Hardware(np.array([0, 0, 1, 1, 2, 2]), d, np.ones(6, bool))
    layout = TableLayout(np.arange(7), np.arange(6))
    scheme = Scheme({"A": layout}, 6)
    # Every pair starts across sockets, one of them across the far ends of the line.
    pairs = {(0, 3): 5, (1, 4): 4, (2, 5): 3}
    sync = [SyncPoint((("A", a), ("A", b)), count=c) for (a, b), c in pairs.items()]
    w = WorkloadStats({"A": np.ones(6)}, sync)
    assert transaction_synchronization(scheme, w, hw) == pytest.approx(5 * 2 + 4 * 5 + 3 * 2)
    chosen = choose_placement(scheme, w, hw)
    assert transaction_synchronization(chosen, w, hw) == brute_force_ts(scheme, w, hw) == 0
    assert core_utilization(chosen, w).tolist() == [1] * 6


def test_spread_placement_deals_each_tables_partitions_over_the_sockets():
    hw = Hardware.from_sockets([2, 2])
    scheme = Scheme.naive({"A": (0, 400)}, hw)
    spread = spread_placement(scheme, hw)
    sockets = [int(hw.core_socket[p.core]) for p in spread.partitions()]
    assert sockets == [0, 1, 0, 1]


# --- the hardware -----------------------------------------------------------------------


@pytest.mark.parametrize("fixture", sorted(p.name for p in SYSFS.iterdir()))
def test_hardware_from_every_fixture_and_its_virtual_sockets(fixture):
    topology = read_topology(SYSFS / fixture)
    hw = Hardware.from_topology(topology)
    assert hw.n_cores == topology.n_cores and hw.n_sockets == topology.n_sockets
    for i, s in enumerate(topology.sockets):
        for j, t in enumerate(topology.sockets):
            node_i, node_j = topology.numa_node_of(s.cpus[0]), topology.numa_node_of(t.cpus[0])
            assert hw.distance[i, j] == topology.distance(node_i, node_j) / 10
    if topology.n_cores >= 2:
        virtual = Hardware.from_topology(virtual_sockets(topology, 2, remote_distance=30))
        assert virtual.n_sockets == 2 and virtual.distance[0, 1] == 3.0
        assert np.bincount(virtual.core_socket).tolist() == [len(s.cores) for s in virtual_sockets(topology, 2).sockets]


def test_the_paper_machine_places_a_two_table_workload_without_crossing_sockets():
    # 8 sockets x 10 cores (paper 002's machine, a twisted cube of distances).
    hw = Hardware.from_topology(read_topology(SYSFS / "xeon-e7l8867-8x10"))
    scheme = Scheme.naive({"A": (0, 80_000), "B": (0, 80_000)}, hw)
    n = scheme.tables["A"].n_sub
    sync = [SyncPoint((("A", i), ("B", (i + 50) % n)), count=1, size=16) for i in range(0, n, 5)]
    w = WorkloadStats({"A": np.ones(n), "B": np.ones(n)}, sync)
    plan = choose_scheme(scheme, w, hw)
    assert plan.ts_before > 0 and plan.ts_after == 0 and plan.ru_after == pytest.approx(0)


def test_bad_hardware_is_refused_naming_the_field():
    with pytest.raises(ValueError, match="distance: shape"):
        Hardware(np.array([0, 1]), np.ones((3, 3)), np.ones(2, bool))
    with pytest.raises(ValueError, match="available: no core"):
        Hardware.from_sockets([2]).without([0, 1])
    with pytest.raises(ValueError, match="core 5 is not one of the 2 cores"):
        Hardware.from_sockets([2]).without([5])


# --- from the engine's monitor ----------------------------------------------------------


def test_a_monitor_snapshot_becomes_the_scheme_and_its_statistics():
    k = SUB_PARTITIONS
    parts = [
        MonitoredPartition("A", 100, 200, 1),
        MonitoredPartition("A", 0, 100, 0),
        MonitoredPartition("B", 0, 35, 1),
    ]
    actions = np.zeros((3, k))
    cost = np.zeros((3, k))
    actions[0, 9] = 4  # A [190, 200): the last sub-partition of A
    cost[0, 9] = 40.0
    cost[2, 0] = 7.0
    sync_count = np.zeros((3, k, 3, k))
    sync_bytes = np.zeros((3, k, 3, k))
    sync_count[1, 2, 2, 3] = 5  # A sub 2 with B sub 3, 5 times, 60 bytes in all
    sync_bytes[1, 2, 2, 3] = 60
    snapshot = {"actions": actions, "cost": cost, "sync_count": sync_count, "sync_bytes": sync_bytes}
    scheme, w = from_monitor(snapshot, parts, n_cores=2)
    a, b = scheme.tables["A"], scheme.tables["B"]
    assert a.bounds.tolist() == list(range(0, 201, 10)) and a.owner.tolist() == [0] * 10 + [1] * 10
    assert b.bounds.tolist() == [0, 4, 7, 11, 14, 18, 21, 25, 28, 32, 35]
    assert w.cost["A"][19] == 40 and w.actions["A"][19] == 4 and w.cost["B"][0] == 7
    assert w.sync == (SyncPoint((("A", 2), ("B", 3)), count=5, size=12),)
    with pytest.raises(ValueError, match=r"snapshot\[cost\]: shape"):
        from_monitor({**snapshot, "cost": np.zeros((2, k))}, parts, 2)


# --- properties -------------------------------------------------------------------------


@st.composite
def cases(draw):
    sockets = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    hw = Hardware.from_sockets(sockets, remote_distance=draw(st.sampled_from([1.5, 2.0, 3.0])))
    removed = draw(st.sets(st.integers(0, hw.n_cores - 1), max_size=hw.n_cores - 1))
    hw = hw.without(removed)
    avail = hw.available_cores
    tables: dict[str, TableLayout] = {}
    loads: dict[str, np.ndarray] = {}
    for t in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 12))
        owners = draw(st.lists(st.sampled_from(avail.tolist()), min_size=n, max_size=n))
        tables[f"T{t}"] = TableLayout(np.arange(n + 1) * 10, np.array(owners))
        loads[f"T{t}"] = np.array(draw(st.lists(st.integers(0, 20), min_size=n, max_size=n)), dtype=float)
    subs = [(t, s) for t, lay in tables.items() for s in range(lay.n_sub)]
    sync = []
    for _ in range(draw(st.integers(0, 8))):
        members = draw(st.lists(st.sampled_from(subs), min_size=2, max_size=4))
        sync.append(SyncPoint(tuple(members), count=draw(st.integers(1, 5)), size=draw(st.integers(1, 4))))
    return Scheme(tables, hw.n_cores), WorkloadStats(loads, sync), hw


def assert_valid(before: Scheme, after: Scheme, hw: Hardware) -> None:
    assert after.names == before.names
    for t, lay in before.tables.items():
        assert np.array_equal(after.tables[t].bounds, lay.bounds)
        assert after.tables[t].owner.shape == lay.owner.shape  # every sub-partition exactly once
    assert hw.available[after.owners()].all()


@settings(max_examples=150, deadline=None)
@given(cases())
def test_algorithm_1_never_raises_ru_and_stops_at_a_local_optimum(case):
    scheme, w, hw = case
    improved = improve_partitioning(scheme, w, hw)
    assert_valid(scheme, improved, hw)
    ru = resource_utilization(improved, w, hw)
    assert ru <= resource_utilization(scheme, w, hw) + 1e-9
    chosen = choose_partitioning(scheme, w, hw)
    assert_valid(scheme, chosen, hw)
    # No single move of a sub-partition to an under-utilized core lowers RU any further.
    loads = core_utilization(improved, w)
    avg = loads[hw.available].mean()
    owners, costs = improved.owners(), w.costs()
    for c in hw.available_cores[loads[hw.available_cores] < avg - 1e-9]:
        for i in np.flatnonzero(owners != c):
            moved = owners.copy()
            moved[i] = c
            assert resource_utilization(improved.with_owners(moved), w, hw) >= ru - 1e-9 * max(1, costs.sum())


@settings(max_examples=100, deadline=None)
@given(cases(), st.sampled_from([0.5, 1.0, 4.0]))
def test_weighing_synchronization_never_raises_ru_plus_ts(case, sync_weight):
    scheme, w, hw = case
    improved = improve_partitioning(scheme, w, hw, sync_weight=sync_weight)
    assert_valid(scheme, improved, hw)

    def j(s: Scheme) -> float:
        return resource_utilization(s, w, hw) + sync_weight * transaction_synchronization(s, w, hw)

    assert j(improved) <= j(scheme) + 1e-9 * max(1.0, j(scheme))


@settings(max_examples=100, deadline=None)
@given(cases())
def test_the_sync_tracker_estimates_pairs_exactly(case):
    from islands.atrapos.cost_model import SyncIndex
    from islands.atrapos.sync_tracker import SyncTracker

    scheme, w, hw = case
    index = SyncIndex.of_subpartitions(scheme, w)
    sockets = hw.core_socket[scheme.owners()]
    tracker = SyncTracker(index, sockets, hw.distance)
    pairs_only = all(np.diff(index.ptr) <= 2)
    for unit in range(scheme.n_sub):
        for socket in range(hw.n_sockets):
            exact = tracker.exact_delta(unit, socket)
            if pairs_only:
                assert tracker.delta(np.array([unit]), socket)[0] == pytest.approx(exact, abs=1e-9)
    if scheme.n_sub and hw.n_sockets > 1:  # after a move the estimates follow
        tracker.move(0, (int(sockets[0]) + 1) % hw.n_sockets)
        fresh = SyncTracker(index, tracker.socket, hw.distance)
        assert np.allclose(tracker.on_socket, fresh.on_socket)


@settings(max_examples=150, deadline=None)
@given(cases())
def test_algorithm_2_never_raises_ts_or_ru(case):
    scheme, w, hw = case
    placed = choose_placement(scheme, w, hw)
    assert_valid(scheme, placed, hw)
    assert transaction_synchronization(placed, w, hw) <= transaction_synchronization(scheme, w, hw) + 1e-9
    assert resource_utilization(placed, w, hw) <= resource_utilization(scheme, w, hw) + 1e-9


@settings(max_examples=60, deadline=None)
@given(cases())
def test_the_search_never_plans_a_higher_ru_plus_ts_than_the_current_scheme(case):
    scheme, w, hw = case
    plan = choose_scheme(scheme, w, hw)
    assert_valid(scheme, plan.scheme, hw)
    assert plan.fits  # the cases only use available cores
    assert plan.gain >= -1e-9
    assert plan.worth_it() == (plan.changes and plan.gain >= 0.05)
