"""The counter benchmark: no lock kind loses an update at any granularity and placement, and
the plans (which CPU, which counter) follow the topology fixtures. Short runs; no timing is
asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

import islands
from islands.bench.counters import GRANULARITIES, LOCK_KINDS, PLACEMENTS, CounterBenchConfig, counter_plan, run_counters

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
HERE = islands.read_topology()


def test_lock_kinds_are_the_four_of_the_issue() -> None:
    assert LOCK_KINDS == ("mutex", "ttas", "mcs", "atomic")


@pytest.mark.parametrize("lock", LOCK_KINDS)
@pytest.mark.parametrize("granularity", GRANULARITIES)
@pytest.mark.parametrize("placement", PLACEMENTS)
def test_final_values_equal_increments(lock: str, granularity: str, placement: str) -> None:
    # Every CPU busy (hyperthreads too), so that coarse counters are contended.
    threads = HERE.n_cpus
    config = CounterBenchConfig(
        lock=lock, granularity=granularity, placement=placement, threads=threads, increments_per_thread=3000
    )
    row = run_counters(config, HERE)
    assert row["consistent"]
    assert row["counter_values"] == row["expected_values"]
    assert sum(row["counter_values"]) == row["threads"] * 3000 == row["total_increments"]
    assert row["increments"] == row["threads"] * 3000


@pytest.mark.parametrize("lock", LOCK_KINDS)
def test_time_based_run_loses_nothing(lock: str) -> None:
    row = run_counters(
        CounterBenchConfig(lock=lock, granularity="machine", placement="grouped", warmup_s=0.01, duration_s=0.03), HERE
    )
    assert row["consistent"] and sum(row["counter_values"]) == row["total_increments"]
    assert 0 < row["increments"] <= row["total_increments"]
    assert 0 < row["cpu_share"] <= 1.1 and len(row["per_thread_cpu_s"]) == row["threads"]
    assert row["threads"] == HERE.n_cores  # every core by default
    assert len(row["config_hash"]) == 16 and row["config"]["cpus"] == row["cpu_seen"]


def test_more_threads_than_cpus_left_to_the_os() -> None:
    row = run_counters(
        CounterBenchConfig(
            lock="mcs", granularity="machine", placement="os", threads=HERE.n_cpus, increments_per_thread=2000
        ),
        HERE,
    )
    assert row["consistent"] and row["counter_values"] == [HERE.n_cpus * 2000]


def load(name: str) -> islands.Topology:
    return islands.read_topology(SYSFS / name)


def test_socket_counters_grouped_sit_on_their_socket() -> None:
    topo = load("xeon-e7l8867-8x10")
    cpus, counter_of = counter_plan(CounterBenchConfig(granularity="socket", placement="grouped"), topo)
    assert len(cpus) == 80 and len(set(cpus)) == 80  # every core, one thread each
    assert sorted(set(counter_of)) == list(range(8))
    for cpu, counter in zip(cpus, counter_of):  # group g runs on socket g
        assert topo.socket_of(cpu) == topo.sockets[counter].id


def test_socket_counters_spread_span_every_socket() -> None:
    topo = load("xeon-e7l8867-8x10")
    cpus, counter_of = counter_plan(CounterBenchConfig(granularity="socket", placement="spread"), topo)
    for counter in range(8):
        sockets = {topo.socket_of(c) for c, k in zip(cpus, counter_of) if k == counter}
        assert len(sockets) == 8  # each group of 10 threads spans all 8 sockets


@pytest.mark.parametrize("machine", ["vm-1x2", "xeon-e5-2640v2-2x8", "xeon-e7530-4x6", "xeon-e7l8867-8x10"])
def test_plans_on_fixtures(machine: str) -> None:
    topo = load(machine)
    for granularity, n_counters in (("machine", 1), ("socket", topo.n_sockets), ("core", topo.n_cores)):
        for placement in PLACEMENTS:
            cpus, counter_of = counter_plan(CounterBenchConfig(granularity=granularity, placement=placement), topo)
            assert len(cpus) == len(counter_of) == topo.n_cores
            assert len(set(counter_of)) == n_counters
            if placement == "os":
                assert cpus == [-1] * topo.n_cores
            else:  # one thread per physical core
                assert len({topo.core_of(c) for c in cpus}) == topo.n_cores


@pytest.mark.parametrize(
    "fields,needle",
    [
        ({"lock": "spinny"}, "lock: unknown lock 'spinny'"),
        ({"granularity": "rack"}, "granularity: unknown granularity 'rack'"),
        ({"placement": "random"}, "placement: unknown placement 'random'"),
        ({"threads": -1}, "threads: -1"),
        ({"threads": 10_000, "placement": "grouped"}, "do not fit"),
    ],
)
def test_bad_config_is_a_value_error(fields: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        run_counters(CounterBenchConfig(increments_per_thread=10, **fields), HERE)
