"""The draw term of ATraPos's cost model (islands.atrapos.cost_model, search): our workers draw
their own transactions, so a sub-partition owned away from the worker that draws it costs a
hop on both cores. Hand-made cases whose optimum is known: a balanced load drawn where it is
owned (moving anything costs more with the term), a skew drawn across the instance (moving
still wins: the hops stay as many), a skew drawn by its owner (moving wins only while the
imbalance outweighs the hops), the skew gone (moving back wins, which action costs alone do
not see), and the snapshot's draws reaching WorkloadStats."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from islands.atrapos import (
    SUB_PARTITIONS,
    AdaptiveLoop,
    Hardware,
    MonitoredPartition,
    Scheme,
    TableLayout,
    WorkloadStats,
    choose_scheme,
    core_loads,
    draw_loads,
    draw_overhead,
    from_monitor,
    home_partitioning,
    hop_cost_of,
    improve_partitioning,
    resource_utilization,
)
from islands.atrapos.cpu_share import equal_cpu_costs
from islands.atrapos.search import gain_of

HW2 = Hardware.from_sockets([1, 1])


def two_sites(per_sub, drawn, owners) -> tuple[Scheme, WorkloadStats]:
    """One table of 20 sub-partitions (two sites of 10) on 2 cores: per-sub action costs and
    drawn[w] (the cases below draw as many transactions as their costs add up to: a
    transaction's mean cost is 1)."""
    per_sub = np.asarray(per_sub, dtype=float)
    layout = TableLayout(np.arange(per_sub.size + 1), np.asarray(owners))
    w = WorkloadStats({"keys": per_sub}, actions={"keys": per_sub}, drawn={"keys": np.asarray(drawn, dtype=float)})
    return Scheme({"keys": layout}, 2), w


NAIVE = [0] * 10 + [1] * 10


def own_draws(site0, site1) -> np.ndarray:
    """Each worker draws its own site's sub-partitions only."""
    d = np.zeros((2, 20))
    d[0, :10], d[1, 10:] = site0, site1
    return d


# --- the term ---------------------------------------------------------------------------


def test_a_hop_costs_the_drawer_and_the_owner():
    drawn = np.zeros((2, 4))
    drawn[0] = [10, 0, 0, 5]  # 5 drawn by core 0 on sub 3, which core 1 owns
    drawn[1] = [2, 0, 0, 0]  # 2 drawn by core 1 on sub 0, which core 0 owns
    scheme = Scheme({"A": TableLayout(np.arange(5), np.array([0, 0, 1, 1]))}, 3)
    w = WorkloadStats({"A": np.ones(4)}, drawn={"A": drawn})
    assert draw_loads(scheme, w, 1.0).tolist() == [7, 7, 0]
    assert draw_overhead(scheme, w, 0.5) == pytest.approx(7)
    assert core_loads(scheme, w, 1.0).tolist() == [9, 9, 0]
    assert draw_loads(scheme, w, 0.0).tolist() == [0, 0, 0]
    home = scheme.with_owners(np.array([0, 0, 1, 0]))
    assert draw_loads(home, w, 1.0).tolist() == [2, 2, 0]  # only core 1's draw on sub 0 travels
    with pytest.raises(ValueError, match="hop_cost"):
        draw_loads(scheme, w, -1.0)


def test_workload_draws_are_checked_and_default_to_none():
    assert WorkloadStats({"A": np.ones(3)}).drawn_matrix().shape == (0, 3)
    with pytest.raises(ValueError, match=r"drawn\[A\]"):
        WorkloadStats({"A": np.ones(3)}, drawn={"A": np.ones((2, 4))})
    with pytest.raises(ValueError, match=r"drawn\[A\]"):
        WorkloadStats({"A": np.ones(3)}, drawn={"A": -np.ones((2, 3))})
    with pytest.raises(ValueError, match="no cost"):
        WorkloadStats({"A": np.ones(3)}, drawn={"B": np.ones((2, 3))})
    w = WorkloadStats({"A": np.full(3, 2.0), "B": np.ones(2)}, actions={"A": np.ones(3)}, drawn={"A": np.ones((2, 3))})
    assert w.drawn_matrix().shape == (2, 5) and w.drawn_matrix()[:, 3:].sum() == 0
    assert w.mean_drawn_cost == pytest.approx(8 / 6)
    assert hop_cost_of(w, 0.5) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="draw_weight"):
        hop_cost_of(w, float("nan"))


def test_the_term_is_the_busiest_cores_load_on_two_cores():
    """With two cores RU_h + H = 2 max_c load(c) - A: the objective is the bottleneck's load."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        costs = rng.uniform(0, 5, 20)
        drawn = rng.uniform(0, 3, (2, 20))
        owners = rng.integers(0, 2, 20)
        scheme, w = two_sites(costs, drawn, owners)
        hop = 0.7
        loads = core_loads(scheme, w, hop)
        j = resource_utilization(scheme, w, HW2, hop) + draw_overhead(scheme, w, hop)
        assert j == pytest.approx(2 * loads.max() - costs.sum())


# --- the search on known cases ----------------------------------------------------------


def test_a_balanced_load_drawn_where_it_is_owned_stays_and_moving_costs_more():
    scheme, w = two_sites(np.ones(20), own_draws(1, 1), NAIVE)
    plan = choose_scheme(scheme, w, HW2, draw_weight=1.0)
    assert not plan.changes and plan.draw_before == 0
    moved = scheme.with_owners(np.array([1] + NAIVE[1:]))
    assert gain_of(scheme, moved, w, HW2, draw_weight=0.0) == pytest.approx(-2 / 20)  # RU 0 -> 2
    assert gain_of(scheme, moved, w, HW2, draw_weight=1.0) == pytest.approx(-4 / 20)  # and a hop on each core


def test_a_skew_drawn_across_the_instance_still_moves():
    """Fig 11/13's skew: every worker draws the hot sub-partitions (on core 0) as often. Moving
    a hot one only changes which worker's draws travel: the hops stay, the imbalance goes."""
    costs = np.r_[np.full(4, 10.0), np.ones(16)]
    drawn = np.tile(costs / 2, (2, 1))
    scheme, w = two_sites(costs, drawn, NAIVE)
    plan = choose_scheme(scheme, w, HW2, draw_weight=1.0)
    assert plan.worth_it() and plan.gain > 0.3
    assert plan.draw_after == pytest.approx(plan.draw_before) == pytest.approx(costs.sum())
    # the same scheme as the search without the term (every layout pays the same hops)
    assert plan.scheme.same_as(choose_scheme(scheme, w, HW2, draw_weight=0.0).scheme)


def test_a_skew_drawn_by_its_owner_moves_only_while_the_imbalance_outweighs_the_hops():
    """Core 0 draws and owns the hot sub-partitions (3 each, drawn 3 times: the mean action
    costs 1). Moving one to core 1 saves 3 of core 0's action load but costs it 3 hops."""
    scheme, w = two_sites(np.r_[np.full(10, 3.0), np.ones(10)], own_draws(3, 1), NAIVE)
    cheap = choose_scheme(scheme, w, HW2, draw_weight=0.2)
    assert cheap.worth_it() and cheap.changes
    assert cheap.ru_after < cheap.ru_before
    dear = choose_scheme(scheme, w, HW2, draw_weight=2.0)
    assert not dear.worth_it() and not dear.changes


def test_moving_back_after_the_skew_wins_where_action_costs_alone_do_not_see_it():
    """Four of site 0's sub-partitions moved to core 1 under a skew; the skew is gone and each
    worker draws its own site again. Worker 0 is slowed by its hops (draws 2 per sub, worker 1
    0.5), so the action loads look balanced within the threshold (12 against 13: the best
    move gains 1/25 < 5%); with the term, worker 0's 8 hops load both cores (20 and 21) and
    moving back gains: J drops from 2 * 21 - 25 to 2 * 20 - 25 (core 0's 20 is the least it can
    have: each of its draws costs it 1, as an action or as a hop)."""
    owners = [1] * 4 + [0] * 6 + [1] * 10
    scheme, w = two_sites(np.r_[np.full(10, 2.0), np.full(10, 0.5)], own_draws(2, 0.5), owners)
    blind = choose_scheme(scheme, w, HW2, draw_weight=0.0)
    assert not blind.worth_it() and blind.gain == pytest.approx(1 / 25)
    plan = choose_scheme(scheme, w, HW2, draw_weight=1.0)
    assert plan.worth_it()
    assert plan.gain == pytest.approx(2 / 25)
    assert plan.draw_after < plan.draw_before == pytest.approx(16)
    assert gain_of(scheme, scheme.with_owners(np.array(NAIVE)), w, HW2, draw_weight=1.0) == pytest.approx(2 / 25)
    # the hops dearer than the actions: all the way back
    dear = choose_scheme(scheme, w, HW2, draw_weight=3.0)
    assert dear.worth_it() and dear.scheme.owners().tolist() == NAIVE and dear.draw_after == 0
    # and the loop applies it once a second interval confirms (hysteresis)
    loop = AdaptiveLoop(draw_weight=1.0)
    first = loop.end_of_interval(1.0, lambda: (scheme, w), HW2)
    second = loop.end_of_interval(1.0, lambda: (scheme, w), HW2)
    assert first.evaluated and not first.repartition
    assert second.repartition and second.plan is not None and second.plan.draw_after < 16
    # the new scheme's first interval ends with an evaluation, its throughput as steady as before
    new = second.plan.scheme
    third = loop.end_of_interval(1.0, lambda: (new, w), HW2)
    assert third.evaluated and not third.repartition
    fourth = loop.end_of_interval(1.0, lambda: (new, w), HW2)
    assert not fourth.evaluated  # then the paper's rule again: the throughput stayed in its band


def test_home_partitioning_gives_each_sub_partition_to_its_main_drawer():
    drawn = np.zeros((3, 5))
    drawn[0] = [5, 0, 1, 0, 5]
    drawn[2] = [1, 0, 4, 0, 4]
    drawn[1] = [0, 0, 0, 9, 0]
    scheme = Scheme({"A": TableLayout(np.arange(6), np.array([1, 1, 0, 0, 1]))}, 3)
    w = WorkloadStats({"A": np.ones(5)}, drawn={"A": drawn})
    hw = Hardware.from_sockets([1, 1, 1])
    # sub 4 is drawn alike by cores 0 and 2 (5 of 9 is no home): it stays
    assert home_partitioning(scheme, w, hw).owners().tolist() == [0, 1, 2, 1, 1]
    # core 1 taken away: its draws do not count, its sub-partitions go to core 0
    assert home_partitioning(scheme, w, hw.without([1])).owners().tolist() == [0, 0, 2, 0, 0]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0, 10), min_size=20, max_size=20),
    st.lists(st.floats(0, 5), min_size=40, max_size=40),
    st.lists(st.integers(0, 1), min_size=20, max_size=20),
    st.floats(0, 3),
)
def test_the_search_never_raises_the_objective_with_draws(costs, drawn, owners, weight):
    scheme, w = two_sites(costs, np.reshape(drawn, (2, 20)), owners)
    hop = hop_cost_of(w, weight)
    before = resource_utilization(scheme, w, HW2, hop) + draw_overhead(scheme, w, hop)
    improved = improve_partitioning(scheme, w, HW2, hop_cost=hop)
    after = resource_utilization(improved, w, HW2, hop) + draw_overhead(improved, w, hop)
    assert after <= before + 1e-9 * max(1.0, before)
    plan = choose_scheme(scheme, w, HW2, draw_weight=weight)
    assert plan.gain >= -1e-9


# --- the monitor's draws into the statistics --------------------------------------------


def test_the_snapshots_draws_reach_the_statistics_and_follow_the_cpu_share():
    k = SUB_PARTITIONS
    snap = {
        "actions": np.ones((2, k)),
        "cost": np.ones((2, k)),
        "sync_count": np.zeros((2, k, 2, k)),
        "sync_bytes": np.zeros((2, k, 2, k)),
        "drawn": np.zeros((2, 2, k)),
    }
    snap["drawn"][0, 1, 3] = 16  # worker 0 drew on site 1's unit 3
    snap["drawn"][1, 1, :] = 32
    parts = [MonitoredPartition("keys", 0, k, 0), MonitoredPartition("keys", k, 2 * k, 1)]
    scheme, w = from_monitor(snap, parts, 2)
    d = w.drawn_matrix()
    assert d.shape == (2, 2 * k) and d[0, k + 3] == 16 and d[1, k:].tolist() == [32] * k and d[:, :k].sum() == 0
    # a worker given half the mean CPU draws half what it would have: its draws count double
    fair = equal_cpu_costs(snap, [0] * k + [1] * k, [3e9, 1e9], np.array([True, True]))
    assert fair is not None
    assert fair["drawn"][0, 1, 3] == pytest.approx(16 * 2 / 3) and fair["drawn"][1, 1, 0] == pytest.approx(64)
    with pytest.raises(ValueError, match="drawn"):
        from_monitor({**snap, "drawn": np.zeros((2, 3, k))}, parts, 2)
