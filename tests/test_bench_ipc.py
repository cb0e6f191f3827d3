"""The IPC benchmark: every mechanism moves messages intact (each receiver verifies each
message), a corrupted message is an error, the default CPU pairs follow the topology, and bad
input is a one-line ValueError. Short runs; no timing is asserted."""

from __future__ import annotations

from pathlib import Path

import pytest

import islands
from islands import _core
from islands.bench.ipc import MECHANISMS, IpcBenchConfig, cpu_relation, default_cpu_pairs, run_ipc

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
HERE = islands.read_topology()
A, B = HERE.cpus[0], HERE.cpus[-1]


def small(mechanism: str = "pipe", **fields) -> IpcBenchConfig:
    base = {
        "mechanism": mechanism,
        "client_cpu": A,
        "server_cpu": B,
        "warmup_s": 0.0,
        "round_trips": 150,
        "timeout_s": 20.0,
    }
    base.update(fields)
    return IpcBenchConfig(**base)


def test_every_mechanism_is_listed() -> None:
    assert set(MECHANISMS) == {"unix_stream", "unix_seqpacket", "pipe", "fifo", "tcp", "mqueue", "shm_ring"}


@pytest.mark.parametrize("mechanism", MECHANISMS)
@pytest.mark.parametrize("size", [1, 256, 5000])
def test_mechanism_moves_every_message_intact(mechanism: str, size: int) -> None:
    try:
        row = run_ipc(small(mechanism, message_bytes=size), topology=HERE)
    except _core.CapabilityMissing as error:
        pytest.skip(f"{mechanism} not available here: {error}")
    # Both sides verified every message: the server counted each request it checked.
    assert row["round_trips"] == 150
    assert row["total_round_trips"] == row["server_verified"] == 150
    assert row["available"] and row["warning"] == ""
    assert 0 < row["rtt_min_us"] <= row["rtt_p50_us"] <= row["rtt_p99_us"] <= row["rtt_p999_us"] <= row["rtt_max_us"]
    assert row["messages_per_s"] == pytest.approx(2 * row["round_trips_per_s"])
    assert (row["client_cpu_seen"], row["server_cpu_seen"]) == (A, B)
    assert row["config"]["message_bytes"] == size and len(row["config_hash"]) == 16


@pytest.mark.parametrize("mechanism", MECHANISMS)
def test_a_corrupted_reply_is_an_error_not_a_statistic(mechanism: str) -> None:
    try:
        with pytest.raises(_core.IntegrityError, match=r"reply 3 corrupted at byte 128"):
            run_ipc(small(mechanism, inject_corruption=3), topology=HERE)
    except _core.CapabilityMissing as error:
        pytest.skip(f"{mechanism} not available here: {error}")


def test_time_based_run_measures_after_the_warmup() -> None:
    row = run_ipc(small("pipe", round_trips=0, warmup_s=0.02, duration_s=0.05), topology=HERE)
    assert row["round_trips"] > 0 and row["total_round_trips"] >= row["round_trips"]
    assert row["server_verified"] == row["total_round_trips"]
    assert row["measured_s"] >= 0.05


def test_unpinned_run() -> None:
    row = run_ipc(small("unix_stream", client_cpu=-1, server_cpu=-1))
    assert row["server_verified"] == 150 and row["pair"] == "unknown"


@pytest.mark.parametrize(
    "fields,needle",
    [
        ({"message_bytes": 0}, "message_bytes: 0"),
        ({"message_bytes": -5}, "message_bytes: -5"),
        ({"server_cpu": 4096}, "server_cpu: CPU 4096"),
        ({"client_cpu": -7}, "client_cpu"),
        ({"mechanism": "carrier_pigeon"}, "unknown messaging mechanism 'carrier_pigeon'"),
        ({"round_trips": 0, "duration_s": 0.0}, "duration_s"),
    ],
)
def test_bad_config_is_a_value_error(fields: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        run_ipc(small(**fields))


def test_default_pairs_on_this_machine_share_a_socket() -> None:
    pairs = default_cpu_pairs(HERE)
    assert pairs[0].relation in {"same_socket", "smt_siblings", "same_cpu"}
    assert len(pairs) == (2 if HERE.n_sockets > 1 else 1)


@pytest.mark.parametrize(
    "machine,expected",
    [
        ("vm-1x2", [(0, 1, "same_socket")]),
        ("xeon-e5-2640v2-2x8", [(0, 1, "same_socket"), (0, 8, "cross_socket")]),
        ("xeon-e7530-4x6", [(0, 4, "same_socket"), (0, 1, "cross_socket")]),
        ("xeon-e7l8867-8x10", [(0, 1, "same_socket"), (0, 10, "cross_socket")]),
    ],
)
def test_default_pairs_on_fixtures(machine: str, expected: list) -> None:
    topo = islands.read_topology(SYSFS / machine)
    pairs = default_cpu_pairs(topo)
    assert [(p.client, p.server, p.relation) for p in pairs] == expected
    same = pairs[0]
    llc = topo.llc_of(same.client)
    if llc is not None:  # the same-socket pair shares the last-level cache
        assert same.server in llc.cpus and same.shared_cache == llc.name
    if len(pairs) > 1:
        assert topo.socket_of(pairs[1].client) != topo.socket_of(pairs[1].server)


def test_cpu_relation_on_a_fixture() -> None:
    topo = islands.read_topology(SYSFS / "xeon-e5-2640v2-2x8")
    assert (cpu_relation(topo, 0, 16).relation, cpu_relation(topo, 0, 16).shared_cache) == ("smt_siblings", "L1d")
    assert (cpu_relation(topo, 3, 3).relation, cpu_relation(topo, 3, 3).shared_cache) == ("same_cpu", "L1d")
    assert (cpu_relation(topo, 0, 1).relation, cpu_relation(topo, 0, 1).shared_cache) == ("same_socket", "L3")
    assert (cpu_relation(topo, 0, 9).relation, cpu_relation(topo, 0, 9).shared_cache) == ("cross_socket", "none")
    with pytest.raises(ValueError, match="CPU 99 does not exist or is offline"):
        cpu_relation(topo, 0, 99)
