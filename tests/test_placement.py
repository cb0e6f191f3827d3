"""Tests for islands.machine.placement on every sysfs fixture (tests/fixtures/sysfs/) and on the
machine the tests run on."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from islands.machine.placement import (
    DEPLOYMENT_PLACEMENTS,
    THREAD_POLICIES,
    Deployment,
    default_cpus,
    deployment_choices,
    expand_relative,
    plan_deployment,
    roles_of,
    thread_placement,
)
from islands.machine.topology import Topology, read_topology

SYSFS = Path(__file__).resolve().parent / "fixtures" / "sysfs"
FIXTURES = sorted(p.name for p in SYSFS.iterdir() if p.is_dir())


@pytest.fixture(params=FIXTURES)
def topo(request: pytest.FixtureRequest) -> Topology:
    return read_topology(SYSFS / request.param)


def load(name: str) -> Topology:
    return read_topology(SYSFS / name)


def test_fixture_set_is_the_expected_one() -> None:
    # The tests below claim "every fixture"; make sure a renamed tree is not silently lost.
    assert set(FIXTURES) >= {
        "vm-1x2",
        "xeon-e5-2640v2-2x8",
        "xeon-e5-2640v2-2x8-offline",
        "xeon-e7530-4x6",
        "xeon-e7l8867-8x10",
    }


def first_threads(t: Topology) -> set[int]:
    return {core.cpus[0] for core in t.cores}


# thread_placement -----------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["spread", "grouped", "mixed"])
def test_threads_distinct_online_and_physical_cores_first(topo: Topology, policy: str) -> None:
    physical = first_threads(topo)
    fit = topo.n_cpus
    if policy == "mixed" and topo.n_sockets > 1:
        s0 = len(topo.sockets[0].cpus)
        fit = min(2 * s0, 2 * (topo.n_cpus - s0) + 1)
    for n in range(1, fit + 1):
        cpus = thread_placement(topo, n, policy)
        assert cpus is not None and len(cpus) == n
        assert len(set(cpus)) == n
        assert set(cpus) <= set(topo.cpus)
        if policy != "mixed":
            # all physical cores are used before the first hyperthread sibling
            k = min(n, len(physical))
            assert set(cpus[:k]) <= physical, (n, cpus)


def test_spread_round_robins_across_sockets(topo: Topology) -> None:
    for n in range(1, topo.n_cores + 1):
        cpus = thread_placement(topo, n, "spread")
        assert cpus is not None
        per_socket = Counter(topo.socket_of(c) for c in cpus)
        sizes = [len(s.cores) for s in topo.sockets]
        if len(set(sizes)) == 1:
            # equal sockets: counts differ by at most one, and the lowest sockets get more
            counts = [per_socket.get(s.id, 0) for s in topo.sockets]
            assert max(counts) - min(counts) <= 1
            assert counts == sorted(counts, reverse=True)
        # one core each: never two threads of one core while cores are left
        assert len({topo.core_of(c) for c in cpus}) == n
    first = thread_placement(topo, topo.n_sockets, "spread")
    assert first is not None
    assert [topo.socket_of(c) for c in first] == [s.id for s in topo.sockets]


def test_grouped_fills_one_socket_first(topo: Topology) -> None:
    for n in range(1, topo.n_cores + 1):
        cpus = thread_placement(topo, n, "grouped")
        assert cpus is not None
        sockets = [topo.socket_of(c) for c in cpus]
        assert sockets == sorted(sockets)  # socket by socket
        # as few sockets as the physical cores allow
        needed, left = 0, n
        for s in topo.sockets:
            if left <= 0:
                break
            needed += 1
            left -= len(s.cores)
        assert len(set(sockets)) == needed


def test_mixed_is_half_grouped_half_spread(topo: Topology) -> None:
    if topo.n_sockets == 1:
        for n in range(1, topo.n_cpus + 1):
            assert thread_placement(topo, n, "mixed") == thread_placement(topo, n, "grouped")
        return
    s0 = topo.sockets[0].id
    for n in range(1, 2 * (topo.n_sockets - 1) + 1):
        cpus = thread_placement(topo, n, "mixed")
        assert cpus is not None
        grouped, spread = cpus[: math.ceil(n / 2)], cpus[math.ceil(n / 2) :]
        assert all(topo.socket_of(c) == s0 for c in grouped)
        others = [topo.socket_of(c) for c in spread]
        assert s0 not in others
        if len(spread) <= topo.n_sockets - 1:
            assert len(set(others)) == len(spread)  # one per other socket


def test_mixed_on_four_sockets_matches_fig6() -> None:
    # 000 Fig 6, 4 workers: two on one socket, the other two on two other sockets.
    t = load("xeon-e7530-4x6")
    cpus = thread_placement(t, 4, "mixed")
    assert cpus == [0, 4, 1, 2]
    assert [t.socket_of(c) for c in cpus] == [0, 0, 1, 2]


def test_round_robin_numbered_machine_is_placed_by_structure() -> None:
    t = load("xeon-e7530-4x6")  # cpu n sits on socket n % 4
    assert thread_placement(t, 4, "spread") == [0, 1, 2, 3]
    assert thread_placement(t, 6, "grouped") == [0, 4, 8, 12, 16, 20]
    assert thread_placement(t, 25, "grouped")[-1] == 24  # first sibling after 24 cores
    assert thread_placement(t, 48, "grouped")[24:30] == [24, 28, 32, 36, 40, 44]


def test_hyperthread_siblings_come_last() -> None:
    t = load("xeon-e5-2640v2-2x8")
    for policy in ("spread", "grouped"):
        cpus = thread_placement(t, 32, policy)
        assert cpus is not None
        assert set(cpus[:16]) == set(range(16))
        assert set(cpus[16:]) == set(range(16, 32))
    assert thread_placement(t, 17, "grouped")[16] == 16
    assert thread_placement(t, 18, "spread")[16:] == [16, 24]


def test_os_policy_is_no_pinning(topo: Topology) -> None:
    assert thread_placement(topo, 1, "os") is None
    assert thread_placement(topo, topo.n_cpus, "os") is None


@pytest.mark.parametrize("policy", THREAD_POLICIES)
def test_too_many_threads_says_how_many_fit(topo: Topology, policy: str) -> None:
    with pytest.raises(ValueError, match=r"at most \d+ fit") as info:
        thread_placement(topo, topo.n_cpus + 1, policy)
    fit = int(str(info.value).split("at most ")[1].split()[0])
    if policy == "mixed" and topo.n_sockets > 1:
        assert thread_placement(topo, fit, policy) is not None
        with pytest.raises(ValueError):
            thread_placement(topo, fit + 1, policy)
    else:
        assert fit == topo.n_cpus


def test_thread_placement_bad_arguments() -> None:
    t = load("vm-1x2")
    with pytest.raises(ValueError, match="unknown thread placement 'packed'.*spread, grouped"):
        thread_placement(t, 1, "packed")
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="n_threads"):
            thread_placement(t, bad, "spread")  # type: ignore[arg-type]


# plan_deployment ------------------------------------------------------------------------


def check_partition(t: Topology, dep: Deployment, cpus: tuple[int, ...] | None = None) -> None:
    used = [c for inst in dep.instances for c in inst]
    assert len(used) == len(set(used)), "a cpu is used twice"
    assert sorted(used) == sorted(cpus if cpus is not None else default_cpus(t))
    assert dep.n_cpus == len(used)
    assert dep.sockets == tuple(tuple(sorted({t.socket_of(c) for c in inst})) for inst in dep.instances)
    assert dep.numa_nodes == tuple(tuple(sorted({t.numa_node_of(c) for c in inst})) for inst in dep.instances)
    assert [len(dep.sites_of(i)) for i in range(dep.n_instances)] == [len(i) for i in dep.instances]
    assert dep.sites_of(dep.n_instances - 1).stop == dep.n_cpus


def test_every_choice_islands_vs_spread(topo: Topology) -> None:
    cores_per_socket = {len(s.cores) for s in topo.sockets}
    for label in deployment_choices(topo):
        n = int(label[:-3])
        size = topo.n_cores // n
        isl = plan_deployment(topo, label)
        spr = plan_deployment(topo, label, "spread")
        for dep in (isl, spr):
            check_partition(topo, dep)
            assert dep.label == label and dep.n_instances == n and dep.pinned
            assert {len(i) for i in dep.instances} == {size}
        assert isl.placement == "islands" and spr.placement == "spread"
        if len(cores_per_socket) == 1:
            (per,) = cores_per_socket
            if per % size == 0:
                assert isl.max_sockets_spanned() == 1  # an island fits in one socket
            if size % per == 0:
                assert all(len(s) == size // per for s in isl.sockets)  # whole sockets
            for span in isl.sockets:  # never more than the size forces, plus one boundary
                assert len(span) <= math.ceil(size / per) + 1
        # spread: every instance on as many sockets as it has cores, up to all of them
        assert all(len(s) == min(size, topo.n_sockets) for s in spr.sockets)
        # islands keep each instance's cores contiguous within the shared LLC
        for inst in isl.instances:
            for sock in {topo.socket_of(c) for c in inst}:
                llcs = {topo.llc_of(c) for c in inst if topo.socket_of(c) == sock}
                assert len(llcs) == 1


def test_four_socket_islands_are_sockets() -> None:
    t = load("xeon-e7530-4x6")
    dep = plan_deployment(t, "4ISL")
    assert dep.instances == tuple(tuple(c for c in t.cpus_of_socket(s) if c < 24) for s in range(4))
    assert dep.instances[0] == (0, 4, 8, 12, 16, 20)
    assert dep.sockets == ((0,), (1,), (2,), (3,))
    spread = plan_deployment(t, "4ISL", "spread")  # 000 Fig 9 "4 Spread"
    assert spread.sockets == ((0, 1, 2, 3),) * 4
    assert spread.instances[0] == (0, 1, 2, 3, 4, 5)
    eight = plan_deployment(t, "8ISL")
    assert eight.sockets == ((0,), (0,), (1,), (1,), (2,), (2,), (3,), (3,))
    assert eight.instances[:2] == ((0, 4, 8), (12, 16, 20))
    assert plan_deployment(t, "24ISL").max_sockets_spanned() == 1
    assert plan_deployment(t, "2ISL").sockets == ((0, 1), (2, 3))


def test_relative_words_and_labels(topo: Topology) -> None:
    se = plan_deployment(topo, "shared-everything")
    assert se.n_instances == 1 and se == plan_deployment(topo, 1) == plan_deployment(topo, "1ISL")
    assert plan_deployment(topo, "1isl") == se and plan_deployment(topo, "1") == se
    pc = plan_deployment(topo, "per-core")
    assert pc.n_instances == topo.n_cores and all(len(i) == 1 for i in pc.instances)
    ps = plan_deployment(topo, "per-socket")
    assert ps.n_instances == topo.n_sockets
    assert ps.sockets == tuple((s.id,) for s in topo.sockets)
    assert "per-socket" in roles_of(topo, ps)
    assert "per-core" in roles_of(topo, pc)
    assert "shared-everything" in roles_of(topo, se)


def test_os_placement_is_the_islands_partition_unpinned(topo: Topology) -> None:
    for label in deployment_choices(topo):
        os_dep = plan_deployment(topo, label, "os")
        assert not os_dep.pinned and os_dep.placement == "os"
        assert os_dep.instances == plan_deployment(topo, label).instances
        assert os_dep.name == f"{label} os"


def test_hyperthreads_stay_with_their_core_in_islands() -> None:
    t = load("xeon-e5-2640v2-2x8")
    dep = plan_deployment(t, "16ISL", cpus=t.cpus)  # 32 cpus, 2 per instance
    check_partition(t, dep, t.cpus)
    for inst in dep.instances:
        assert len({t.core_of(c) for c in inst}) == 1
    assert dep.instances[0] == (0, 16)
    spread = plan_deployment(t, "2ISL", "spread", cpus=t.cpus)
    for inst in spread.instances:
        cores = Counter(t.core_of(c) for c in inst)
        assert set(cores.values()) == {2}  # whole cores, both threads


def test_subset_of_cpus() -> None:
    t = load("xeon-e7530-4x6")
    dep = plan_deployment(t, 2, cpus="0-3")
    assert dep.instances == ((0, 1), (2, 3))  # cpus 0-3 are one core on each socket
    assert dep.sockets == ((0, 1), (2, 3))
    with pytest.raises(ValueError, match="deployment 3ISL does not fit 4 cpus: choose one of 1ISL, 2ISL, 4ISL"):
        plan_deployment(t, 3, cpus="0-3")
    with pytest.raises(ValueError, match="cpu 99 is not an online cpu"):
        plan_deployment(t, 1, cpus=[99])


def test_offline_cpus_and_unequal_sockets() -> None:
    t = load("xeon-e5-2640v2-2x8-offline")  # cpus 5, 7, 23 offline: 7 + 8 cores
    assert deployment_choices(t) == ["1ISL", "3ISL", "5ISL", "15ISL"]
    pc = plan_deployment(t, "per-core")
    check_partition(t, pc)
    assert 21 in pc.cpus and 5 not in pc.cpus  # core 5's only online thread is 21
    ps = plan_deployment(t, "per-socket")
    assert [len(i) for i in ps.instances] == [7, 8]
    assert ps.sockets == ((0,), (1,))
    assert any("differ in size" in n for n in ps.notes)
    with pytest.raises(ValueError, match="deployment 2ISL does not fit 15 cores"):
        plan_deployment(t, "2ISL")
    with pytest.raises(ValueError, match="cpu 5 is not an online cpu"):
        plan_deployment(t, "0-5;8-13")


def test_does_not_fit_lists_the_choices() -> None:
    t = load("xeon-e7530-4x6")
    with pytest.raises(ValueError) as info:
        plan_deployment(t, "5ISL")
    assert str(info.value) == (
        "deployment 5ISL does not fit 24 cores: choose one of 1ISL, 2ISL, 3ISL, 4ISL, 6ISL, 8ISL, 12ISL, 24ISL"
    )
    with pytest.raises(ValueError, match="deployment 48ISL does not fit 24 cores"):
        plan_deployment(t, 48)
    with pytest.raises(ValueError, match="unknown deployment 'per-node': choose one of 1ISL, .*per-socket"):
        plan_deployment(t, "per-node")
    with pytest.raises(ValueError, match="at least 1 instance"):
        plan_deployment(t, 0)
    with pytest.raises(ValueError, match="unknown placement 'packed'"):
        plan_deployment(t, 1, "packed")
    with pytest.raises(ValueError, match="explicit placement needs cpu lists"):
        plan_deployment(t, 4, "explicit")


def test_explicit_deployments() -> None:
    t = load("xeon-e5-2640v2-2x8")
    dep = plan_deployment(t, "0-3;4-7,16")
    assert dep.placement == "explicit" and dep.pinned
    assert dep.instances == ((0, 1, 2, 3), (4, 5, 6, 7, 16))  # sizes may differ
    assert dep.label == "2ISL"
    assert plan_deployment(t, [[0, 8], [1]], "explicit").sockets == ((0, 1), (0,))
    assert plan_deployment(t, "0,1").instances == ((0, 1),)
    with pytest.raises(ValueError, match="cpu 3 is used twice"):
        plan_deployment(t, "0-3;3-7")
    with pytest.raises(ValueError, match="cpu 40 is not an online cpu"):
        plan_deployment(t, "0-3;40")
    with pytest.raises(ValueError, match="has no cpus"):
        plan_deployment(t, "0-3;;4")
    with pytest.raises(ValueError, match="not allowed with an explicit"):
        plan_deployment(t, "0-3", cpus=[0, 1])


def test_deployment_round_trips_through_json(topo: Topology) -> None:
    for spec, placement in (("per-socket", "islands"), ("per-core", "spread"), (1, "os")):
        dep = plan_deployment(topo, spec, placement)
        d = json.loads(json.dumps(dep.to_dict()))
        assert Deployment.from_dict(d) == dep
        assert Deployment.from_dict(d).to_dict() == d


def test_deployment_checks_itself() -> None:
    with pytest.raises(ValueError, match="cpu 1 is used twice"):
        Deployment("2ISL", ((0, 1), (1, 2)))
    with pytest.raises(ValueError, match="at least one cpu"):
        Deployment("2ISL", ((0,), ()))
    with pytest.raises(ValueError, match="choose one of"):
        Deployment("1ISL", ((0,),), placement="packed")
    with pytest.raises(ValueError, match="sockets lists 1 instances, not 2"):
        Deployment("2ISL", ((0,), (1,)), sockets=((0,),))
    with pytest.raises(ValueError, match="missing field 'instances'"):
        Deployment.from_dict({"version": 1, "label": "1ISL", "placement": "os", "pinned": False})
    with pytest.raises(ValueError, match="version"):
        Deployment.from_dict({"version": 99})
    assert set(DEPLOYMENT_PLACEMENTS) == {"islands", "spread", "os", "explicit"}


# expand_relative --------------------------------------------------------------------------


def test_expand_relative_on_every_fixture(topo: Topology) -> None:
    specs, notes = expand_relative(topo, ["1", "per-socket", "per-core"])
    deps = [plan_deployment(topo, s) for s in specs]
    assert deps[0].n_instances == 1
    assert deps[-1].n_instances == topo.n_cores
    assert len({d.instances for d in deps}) == len(deps)  # no duplicates
    if topo.n_sockets == 1:
        assert len(specs) == 2
        assert any("per-socket is 1ISL" in n for n in notes)
    else:
        assert len(specs) == 3
        assert deps[1].sockets == tuple((s.id,) for s in topo.sockets)
    every, _ = expand_relative(topo, "all")
    assert every == deployment_choices(topo)
    assert expand_relative(topo, ["all", "per-core", "1"])[0] == every


def test_expand_relative_examples() -> None:
    assert expand_relative(load("xeon-e7530-4x6"), ["1", "per-socket", "per-core"]) == (
        ["1ISL", "4ISL", "24ISL"],
        [],
    )
    assert expand_relative(load("xeon-e7l8867-8x10"), ["shared-everything", "per-socket", "per-core"])[0] == [
        "1ISL",
        "8ISL",
        "80ISL",
    ]
    specs, notes = expand_relative(load("vm-1x2"), ["1", "per-socket", "per-core"])
    assert specs == ["1ISL", "2ISL"]
    assert notes == ["per-socket is 1ISL on this machine (1 socket, 2 cores): listed once"]
    specs, _ = expand_relative(load("xeon-e5-2640v2-2x8-offline"), ["1", "per-socket", "per-core"])
    assert specs == ["1ISL", "per-socket", "15ISL"]
    specs, _ = expand_relative(load("xeon-e5-2640v2-2x8"), ["4ISL", 4, "0-3;4-7"])
    assert specs == ["4ISL", "0-3;4-7"]
    with pytest.raises(ValueError, match="deployment 3ISL does not fit 16 cores"):
        expand_relative(load("xeon-e5-2640v2-2x8"), ["1", "3ISL"])


def test_this_machine() -> None:
    t = read_topology()
    assert deployment_choices(t)[0] == "1ISL"
    for spec in expand_relative(t, "all")[0]:
        check_partition(t, plan_deployment(t, spec))
    cpus = thread_placement(t, t.n_cpus, "spread")
    assert cpus is not None and sorted(cpus) == list(t.cpus)
