"""The placement benchmark: each policy pins the workers where thread_placement says (checked
on the topology fixtures), and a short engine run per policy produces its row."""

from __future__ import annotations

from pathlib import Path

import pytest

import islands
from islands.bench.placement_bench import (
    POLICIES,
    PlacementBenchConfig,
    default_threads,
    placement_run_config,
    run_placement,
)

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
HERE = islands.read_topology()


def load(name: str) -> islands.Topology:
    return islands.read_topology(SYSFS / name)


def sockets_of(topo: islands.Topology, cpus) -> list[int]:
    return [topo.socket_of(c) for c in cpus]


def test_four_workers_on_four_sockets_as_in_fig6() -> None:
    topo = load("xeon-e7530-4x6")
    plan = {p: placement_run_config(PlacementBenchConfig(policy=p, threads=4), topo) for p in POLICIES}
    assert sorted(sockets_of(topo, plan["spread"].driver.cpus)) == [0, 1, 2, 3]  # one per socket
    assert set(sockets_of(topo, plan["grouped"].driver.cpus)) == {0}  # all on one socket
    mixed = sockets_of(topo, plan["mixed"].driver.cpus)
    assert mixed.count(0) == 2 and len(set(mixed)) == 3  # half grouped, half spread over the others
    assert not plan["os"].driver.pin and len(plan["os"].driver.cpus) == 4
    assert all(plan[p].driver.pin for p in ("spread", "grouped", "mixed"))
    for p in ("spread", "grouped", "mixed"):  # distinct physical cores
        assert len({topo.core_of(c) for c in plan[p].driver.cpus}) == 4


@pytest.mark.parametrize(
    "machine,threads",
    [
        ("vm-1x2", 2),
        ("xeon-e5-2640v2-2x8", 8),
        ("xeon-e7530-4x6", 6),
        ("xeon-e7l8867-8x10", 10),
        ("xeon-e5-2640v2-2x8-offline", 7),
    ],
)
def test_default_is_one_socket_of_workers(machine: str, threads: int) -> None:
    topo = load(machine)
    assert default_threads(topo) == threads
    for policy in POLICIES:
        rc = placement_run_config(PlacementBenchConfig(policy=policy), topo)
        assert len(rc.driver.cpus) == threads
        assert rc.engine.cc == "2pl" and rc.micro.update
        if policy != "os":  # distinct physical cores
            assert len({topo.core_of(c) for c in rc.driver.cpus}) == threads
    grouped = placement_run_config(PlacementBenchConfig(policy="grouped"), topo).driver.cpus
    assert len(set(sockets_of(topo, grouped))) == 1  # grouped is one socket
    if topo.n_sockets > 1:
        spread = placement_run_config(PlacementBenchConfig(policy="spread"), topo).driver.cpus
        assert len(set(sockets_of(topo, spread))) == min(topo.n_sockets, threads)


def test_every_core_on_two_sockets() -> None:
    topo = load("xeon-e5-2640v2-2x8")
    for policy in POLICIES:
        rc = placement_run_config(PlacementBenchConfig(policy=policy, threads=16), topo)
        assert len(rc.driver.cpus) == 16


def test_grouped_on_two_sockets_fills_socket_zero_first() -> None:
    topo = load("xeon-e5-2640v2-2x8")
    rc = placement_run_config(PlacementBenchConfig(policy="grouped", threads=8), topo)
    assert set(sockets_of(topo, rc.driver.cpus)) == {0}
    rc = placement_run_config(PlacementBenchConfig(policy="spread", threads=8), topo)
    assert sockets_of(topo, rc.driver.cpus).count(0) == 4


@pytest.mark.parametrize("policy", POLICIES)
def test_short_run_per_policy(policy: str) -> None:
    config = PlacementBenchConfig(policy=policy, rows_per_site=1000, warmup_s=0.0, duration_s=0.05)
    row = run_placement(config, HERE, repetition=1)
    assert row["throughput_tps"] > 0 and row["commits"] > 0
    assert row["threads"] == default_threads(HERE)
    assert row["run_config"]["driver"]["seed"] == 2  # seed + repetition
    assert row["run_config"]["driver"]["pin"] == (policy != "os")
    if policy != "os":
        assert row["worker_cpus_seen"] == row["cpus"]
    assert len(row["config_hash"]) == 16 and len(row["run_config_hash"]) == 16


@pytest.mark.parametrize(
    "fields,needle",
    [
        ({"policy": "random"}, "policy: unknown placement 'random'"),
        ({"threads": -2}, "threads: -2"),
        ({"threads": 10_000}, "do not fit"),
    ],
)
def test_bad_config_is_a_value_error(fields: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        placement_run_config(PlacementBenchConfig(**fields), HERE)
