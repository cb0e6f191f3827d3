"""The Islands model's closed forms, parameters files, workloads and predictions, on hand-made
costs and the made-up machines of tests/fixtures/sysfs."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from islands.model import (
    ModelWorkload,
    Parameters,
    cost_weighted_throughput,
    fit_cost_weighted,
    linear_throughput,
    load_parameters,
    parse_workload,
    predict,
)
from islands.model.fragment_overlap import overlap
from islands.model.machine_profile import PROFILES, MachineProfile, host_ghz, profile_for
from islands.model.workload_spec import participants
from model_cases import fixture, hand_parameters

P_DIST_2 = 1 - 0.5**9  # a 10-row multisite transaction on two equal instances leaves home


def test_closed_forms_on_hand_made_cases():
    assert linear_throughput(0.5, 100.0, 10.0) == pytest.approx(55.0)
    assert cost_weighted_throughput(0.5, 100.0, 10.0) == pytest.approx(1 / (0.5 / 100 + 0.5 / 10))
    for form in (linear_throughput, cost_weighted_throughput):
        assert form(0.0, 100.0, 10.0) == pytest.approx(100.0)
        assert form(1.0, 100.0, 10.0) == pytest.approx(10.0)
    # A fifth of the transactions ten times dearer: time mixes, so throughput falls to a third.
    assert cost_weighted_throughput(0.2, 1.0, 0.1) == pytest.approx(1 / 2.8)
    with pytest.raises(ValueError, match="p: 1.5"):
        linear_throughput(1.5, 1.0, 1.0)
    with pytest.raises(ValueError, match="t_distr"):
        cost_weighted_throughput(0.5, 1.0, 0.0)


def test_fit_recovers_the_cost_weighted_curve():
    ps = [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    tps = [cost_weighted_throughput(p, 1e6, 2e5) for p in ps]
    t_local, t_distr = fit_cost_weighted(ps, tps)
    assert t_local == pytest.approx(1e6)
    assert t_distr == pytest.approx(2e5)
    flat_local, flat_distr = fit_cost_weighted([0.4], [5.0])
    assert flat_local == flat_distr == pytest.approx(5.0)


def test_participants_follow_the_microbenchmark_draw():
    read10 = ModelWorkload("micro-read", rows=10, multisite=1.0)
    assert participants(read10, [2], 0) == (0.0, 0.0)
    p_dist, m = participants(read10, [1, 1], 0)
    assert p_dist == pytest.approx(P_DIST_2)
    assert m == pytest.approx(1.0)
    # 24 instances: 9 draws land on 1 - (23/24)^9 of each other instance.
    p_dist, m = participants(read10, [1] * 24, 0)
    assert p_dist == pytest.approx(1 - (1 / 24) ** 9)
    assert m * p_dist == pytest.approx(23 * (1 - (23 / 24) ** 9))
    one_row = ModelWorkload("micro-read", rows=1, multisite=1.0)
    assert participants(one_row, [1, 1], 0) == (0.0, 0.0)
    tpcb = ModelWorkload("tpcb", multisite=0.15)
    assert participants(tpcb, [6, 6, 6, 6], 0) == (pytest.approx(18 / 23), 1.0)


def test_parse_workload():
    w = parse_workload("micro-update:rows=4, multisite=0.2,zipf=0.9")
    assert (w.kind, w.rows, w.multisite, w.zipf_s, w.update) == ("micro-update", 4, 0.2, 0.9, True)
    assert parse_workload("tpcc-payment").multisite == pytest.approx(0.15)
    assert parse_workload("tpcc-new_order").multisite_share == pytest.approx(1 - 0.99**10)
    for bad, match in (
        ("tpcd", "choose one of"),
        ("micro-read:rows=ten", "'ten' is not a whole number"),
        ("micro-read:lines=3", "key one of"),
        ("micro-read:multisite=2", "not a fraction"),
        ("micro-read:rows=0", "rows"),
    ):
        with pytest.raises(ValueError, match=match):
            parse_workload(bad)


def test_prediction_on_one_socket_matches_hand_arithmetic():
    vm = fixture("vm-1x2")
    params = hand_parameters()
    read = ModelWorkload("micro-read", rows=10)
    # Per-core: two single-threaded instances at 2 us per transaction.
    per_core = predict(vm, "per-core", read, params)
    assert per_core.throughput == pytest.approx(2 / 2e-6)
    assert per_core.dominant_cost == "execution"
    # Shared-everything: one 2PL instance of two threads: 4 us + 50% contention.
    se = predict(vm, "1ISL", read, params)
    assert se.throughput == pytest.approx(2 / 6e-6)
    assert se.breakdown["contention"] == pytest.approx(2.0)
    # All multisite: every distributed read adds 8 us of the one other instance (with every
    # cost charged to the coordinator; by default the participant's half of it hides in the
    # worker's own waits, islands.model.fragment_overlap).
    dist = predict(vm, "per-core", read.with_multisite(1.0), params, coordinator_share=1.0)
    assert dist.throughput == pytest.approx(2 / (2 + 8 * P_DIST_2) * 1e6)
    hidden = float(overlap(2.0, 8 * P_DIST_2))
    overlapped = predict(vm, "per-core", read.with_multisite(1.0), params)
    assert overlapped.throughput == pytest.approx(2 / (2 + 8 * P_DIST_2 * (1 - hidden)) * 1e6)
    assert dist.dominant_cost == "communication"
    assert dist.distributed_share == pytest.approx(P_DIST_2)
    # The paper's linear form at 20% multisite says more than the cost-weighted one.
    twenty = predict(vm, "per-core", read.with_multisite(0.2), params, coordinator_share=1.0)
    t_local, t_distr = 2 / 2e-6, 2 / (2 + 8) * 1e6
    q = 0.2 * P_DIST_2
    assert twenty.throughput == pytest.approx(2 / (2 + q * 8) * 1e6)
    assert twenty.linear_throughput == pytest.approx((1 - q) * t_local + q * t_distr)
    assert twenty.linear_throughput > twenty.throughput
    # Shared-everything never distributes.
    assert predict(vm, "1ISL", read.with_multisite(1.0), params).throughput == pytest.approx(se.throughput)
    # Updates add logging; over shm distribution costs less.
    update = ModelWorkload("micro-update", rows=10)
    assert predict(vm, "per-core", update, params).breakdown["logging"] == pytest.approx(1.0)
    shm = predict(vm, "per-core", read.with_multisite(1.0), params, transport="shm")
    assert shm.throughput > dist.throughput


def test_interval_brackets_the_prediction():
    vm = fixture("vm-1x2")
    read = ModelWorkload("micro-read", rows=10, multisite=0.5)
    exact = predict(vm, "per-core", read, hand_parameters())
    assert exact.low == exact.high == pytest.approx(exact.throughput)
    wide = predict(vm, "per-core", read, hand_parameters(spread=0.2, model_error=0.1))
    assert wide.throughput == pytest.approx(exact.throughput)
    assert wide.low < 0.9 * wide.throughput < wide.throughput < 1.1 * wide.throughput < wide.high


def test_topology_distances_enter_the_prediction():
    quad = fixture("xeon-e7530-4x6")
    params = hand_parameters()
    read = ModelWorkload("micro-read", rows=10)
    se = predict(quad, "1ISL", read, params)
    island = predict(quad, "4ISL", read, params)
    # One instance over four sockets: 3/4 of its data on nodes at distance 20.
    assert se.breakdown["remote memory"] == pytest.approx(
        se.breakdown["execution"] * 0.5 * ((10 + 3 * 20) / 4 / 10 - 1)
    )
    assert island.breakdown["remote memory"] == pytest.approx(0.0)
    assert se.breakdown["contention"] > island.breakdown["contention"] * 4
    # Messages between sockets cost more than between cores of one socket.
    dist = read.with_multisite(1.0)
    flat = MachineProfile("flat", ghz=1.86, line_core_ns=1, line_socket_ns=30, distance_slope=0.0, shape=(4, 6))
    far = predict(quad, "24ISL", dist, params, profile=PROFILES["xeon-e7530-4x6"])
    near = predict(quad, "24ISL", dist, params, profile=flat)
    assert far.throughput < near.throughput
    # Clock: the calibrated machine (2.13 GHz) is faster than the E7530 (1.86 GHz).
    assert predict(quad, "24ISL", read, params).throughput == pytest.approx(24 / (2e-6 * 2.13 / 1.86))


def test_prediction_errors_name_what_is_missing():
    vm = fixture("vm-1x2")
    no_tpcc = ModelWorkload("tpcc-payment", multisite=0.0)
    with pytest.raises(ValueError, match="local.tpcc-payment.none.txn_us"):
        predict(vm, "per-core", no_tpcc, hand_parameters())
    with pytest.raises(ValueError, match="3ISL does not fit"):
        predict(vm, "3ISL", ModelWorkload(), hand_parameters())


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_parameters_round_trip(tmp_path, suffix):
    params = Parameters(
        costs={"local.micro.none.txn_us": 1.25, "distr.unix.read.participant_us": 7.5, "odd": math.nan},
        spread={"local.micro.none.txn_us": 0.05},
        model_error=0.15,
        machine={"hostname": "h", "ghz": 2.5, "topology": {"distances": [[10, 20], [20, 10]]}, "none": None},
        notes=("a note",),
    )
    path = params.save(tmp_path / f"p{suffix}")
    back = load_parameters(path)
    assert back.to_dict() == params.to_dict()
    assert "odd" not in back.costs  # a missing number is absent, not 0
    assert back.machine["topology"]["distances"] == [[10, 20], [20, 10]]
    assert load_parameters(back.save(tmp_path / f"q{suffix}")) == back


def test_parameters_files_that_do_not_load(tmp_path):
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "old.json").write_text(json.dumps({"version": 99, "costs": {}}))
    (tmp_path / "nan.json").write_text(json.dumps({"version": 1, "costs": {"a": "x"}}))
    for name, match in (
        ("bad.json", "not valid json"),
        ("old.json", "version 99"),
        ("nan.json", "malformed"),
        ("missing.json", "No such file"),
    ):
        with pytest.raises(ValueError, match=match) as err:
            load_parameters(tmp_path / name)
        assert "\n" not in str(err.value)
    with pytest.raises(ValueError, match=".json or .toml"):
        hand_parameters().save(tmp_path / "p.yaml")


def test_machine_profiles(tmp_path):
    octo = PROFILES["xeon-e7l8867-8x10"]
    assert octo.line_socket_ns == pytest.approx(1e3 / (341.7 / 8))
    # The published single counter (54.3 ns) is the mean cross-socket transfer of the machine.
    mean_remote = (3 * octo.line_ns(21) + 4 * octo.line_ns(31)) / 7
    assert mean_remote == pytest.approx(1e3 / 18.4, rel=1e-6)
    assert profile_for(fixture("xeon-e5-2640v2-2x8")) is PROFILES["xeon-e5-2640v2-2x8"]
    assert profile_for(fixture("vm-1x2"), here_ghz=3.0).shape is None
    with pytest.raises(ValueError, match="choose one of"):
        profile_for(fixture("vm-1x2"), "cray")
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("model name\t: Intel(R) Xeon(R) CPU E7- L8867  @ 2.13GHz\ncpu MHz\t\t: 1064.0\n")
    assert host_ghz(cpuinfo) == pytest.approx(2.13)
    cpuinfo.write_text("model name\t: AMD EPYC\ncpu MHz\t\t: 2000.0\ncpu MHz\t\t: 3000.0\n")
    assert host_ghz(cpuinfo) == pytest.approx(2.5)
    assert math.isnan(host_ghz(tmp_path / "none"))


def test_model_figures_draw_on_the_fixtures():
    from islands.plots.model_vs_measured import plot_predicted_vs_measured, plot_projection

    machines = {"2x8": fixture("xeon-e5-2640v2-2x8"), "4x6": fixture("xeon-e7530-4x6")}
    projection = plot_projection(machines, hand_parameters(spread=0.1, model_error=0.1))
    assert len(projection.figure.axes) == 4
    assert "4x6 micro-update 24ISL" in projection.summary
    assert projection.stem == "model-projection-unix"
    scatter = plot_predicted_vs_measured([("000-fig11", 100.0, 110.0), ("000-fig14", 200.0, 150.0)])
    assert "median relative error 17.5%" in scatter.summary
    with pytest.raises(ValueError, match="no points"):
        plot_predicted_vs_measured([])
    with pytest.raises(ValueError, match="no machines"):
        plot_projection({}, hand_parameters())


def test_two_phase_locking_instances_pay_their_own_logging_cost():
    vm = fixture("vm-1x2")
    update = ModelWorkload("micro-update", rows=10)
    plain = hand_parameters()
    held = hand_parameters(log__2pl__update_us=5.0)
    # Without a 2PL figure, every instance pays log.update_us.
    assert predict(vm, "1ISL", update, plain).breakdown["logging"] == pytest.approx(1.0)
    # With one, the 2PL instance (locks held until the flush) pays it; single-threaded ones not.
    assert predict(vm, "1ISL", update, held).breakdown["logging"] == pytest.approx(5.0)
    assert predict(vm, "per-core", update, held).breakdown["logging"] == pytest.approx(1.0)
    # The engine logs TPC-C too (issue 14); a workload can say it runs unlogged.
    assert ModelWorkload("tpcc-payment", multisite=0.0).logs and ModelWorkload("tpcb").logs
    assert not ModelWorkload("tpcc-payment", logged=False).logs and not ModelWorkload("micro-read").logs
    assert parse_workload("tpcb:logged=false") == ModelWorkload("tpcb", multisite=0.15, logged=False)


def test_the_log_flusher_takes_its_cpu_from_the_workers():
    vm = fixture("vm-1x2")
    update = ModelWorkload("micro-update", rows=10)
    # Per-core: one worker per instance pays 1 + 10 x 0.2 = 3 us + logging 1 + flusher 2 = 6 us.
    params = hand_parameters(log__flusher_us=2.0)
    p = predict(vm, "per-core", update, params, samples=1)
    assert p.breakdown["logging"] == pytest.approx(3.0)
    assert p.throughput == pytest.approx(2 / 6e-6)
    # Reads do not log: no flusher.
    assert predict(vm, "per-core", ModelWorkload("micro-read"), params, samples=1).breakdown["logging"] == 0.0


def test_an_instance_commits_no_faster_than_its_log_writes():
    from islands.model.predict import log_limit

    vm = fixture("vm-1x2")
    update = ModelWorkload("micro-update", rows=10)
    # 1,000 bytes per 10-row commit at 100 MB/s: 100,000 commits/s per instance.
    params = hand_parameters(log__bytes_per_commit=1000.0, log__write_mb_s=100.0)
    assert log_limit(dict(params.costs), update) == pytest.approx(1e5)
    assert log_limit(dict(params.costs), ModelWorkload("micro-update", rows=20)) == pytest.approx(5e4)
    assert log_limit(dict(params.costs), ModelWorkload("micro-read")) == math.inf
    assert log_limit(dict(hand_parameters().costs), update) == math.inf  # an older calibration: no limit
    shared = predict(vm, "1ISL", update, params, samples=1)
    per_core = predict(vm, "per-core", update, params, samples=1)
    assert shared.throughput == pytest.approx(1e5)
    assert per_core.throughput == pytest.approx(2e5)
    assert any("log-bound: 1 of 1" in n for n in shared.notes)
    # The time the limit adds is logging: 2 workers / 100,000 per s = 20 us per transaction.
    assert sum(shared.breakdown.values()) == pytest.approx(20.0)
    assert shared.dominant_cost == "logging"
    # A generous log does not bind.
    roomy = hand_parameters(log__bytes_per_commit=10.0, log__write_mb_s=1e4)
    assert not any("log-bound" in n for n in predict(vm, "1ISL", update, roomy, samples=1).notes)


@settings(max_examples=40, deadline=None)
@given(
    machine=st.sampled_from(["vm-1x2", "xeon-e5-2640v2-2x8", "xeon-e7530-4x6", "xeon-e7l8867-8x10"]),
    index=st.integers(min_value=0, max_value=20),
    kind=st.sampled_from(["micro-read", "micro-update", "tpcb"]),
    transport=st.sampled_from(["unix", "shm"]),
    ps=st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=2, max_size=2),
)
def test_more_multisite_never_predicts_more_throughput(machine, index, kind, transport, ps):
    from islands.machine.placement import deployment_choices

    topology = _FIXTURES.setdefault(machine, fixture(machine))
    labels = deployment_choices(topology)
    label = labels[index % len(labels)]
    low, high = sorted(ps)
    params = hand_parameters()
    few = predict(topology, label, ModelWorkload(kind, multisite=low), params, transport=transport, samples=1)
    many = predict(topology, label, ModelWorkload(kind, multisite=high), params, transport=transport, samples=1)
    assert many.throughput <= few.throughput * (1 + 1e-12)
    assert many.distributed_share >= few.distributed_share - 1e-12
    assert few.low <= few.throughput <= few.high


_FIXTURES: dict = {}
