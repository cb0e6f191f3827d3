"""``islands calibrate`` and ``islands advise``: output on the fixture machines, calibration
files, and bad input (one line, exit status 2)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from islands.bench.calibration_runs import Measurement, _measure, plan_measurements
from islands.machine.placement import Deployment
from islands.machine.topology import read_topology
from islands.model import ModelWorkload, load_parameters
from islands.model.advisor import advise
from islands.model.calibration import derive
from islands.model.parameters import default_parameters
from model_cases import SYSFS, fixture, hand_parameters

QUAD = str(SYSFS / "xeon-e7530-4x6")


@pytest.fixture
def params_file(tmp_path):
    return str(hand_parameters(spread=0.05, model_error=0.1).save(tmp_path / "params.json"))


def test_advise_ranks_every_deployment_of_the_fixture(cli_here, params_file):
    done = cli_here("advise", "--workload", "micro-read:multisite=0", "--sysfs", QUAD, "--params", params_file)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "best: 24ISL" in out
    assert "quad-socket Xeon E7530, derived" in out
    for label in ("1ISL", "2ISL", "3ISL", "4ISL", "6ISL", "8ISL", "12ISL", "24ISL"):
        assert f"\n{label} " in out
    assert "why: 24ISL spends" in out and "execution dominates" in out


def test_advise_json_is_sorted_and_explains(cli_here, params_file):
    done = cli_here(
        "advise", "--workload", "micro-read:multisite=1", "--sysfs", QUAD, "--params", params_file, "--json"
    )
    assert done.returncode == 0, done.stderr
    advice = json.loads(done.stdout)
    predictions = advice["predictions"]
    assert len(predictions) == 8
    throughputs = [p["throughput"] for p in predictions]
    assert throughputs == sorted(throughputs, reverse=True)
    # "best" only where the recommendation is one deployment; the highest prediction always
    assert advice["highest"] == predictions[0]["deployment"]
    assert advice["best"] == (advice["highest"] if len(advice["recommendation"] or []) == 1 else None)
    assert advice["level"].startswith("95%, with the model's error")
    for p in predictions:
        assert p["low"] <= p["throughput"] <= p["high"]
        assert p["dominant_cost"] == max(p["breakdown"], key=p["breakdown"].get)
    # Every transaction distributed: one instance per core pays for messages to ~7 others,
    # one instance of 24 threads for its threads' contention.
    by_label = {p["deployment"]: p for p in predictions}
    assert by_label["24ISL"]["dominant_cost"] == "communication"
    assert by_label["1ISL"]["dominant_cost"] == "contention"
    assert by_label["1ISL"]["distributed_share"] == 0.0


def test_advisor_says_when_the_model_cannot_tell(params_file):
    params = hand_parameters(spread=0.3, model_error=0.3)
    advice = advise(fixture("xeon-e5-2640v2-2x8"), ModelWorkload("micro-read", multisite=0.05), params)
    best, second = advice.predictions[0], advice.predictions[1]
    # over the parameters' paired draws (the costs both deployments share cancel), 95%, with
    # the model's error on each of the two
    from islands.model.advisor import _interval, model_sigma

    logs = np.log(best.samples) - np.log(second.samples)
    overlap = _interval(logs, model_sigma(0.3) * 2**0.5)[0] <= 1.0
    assert ("cannot tell them apart" in advice.why) == overlap
    assert ("not distinguishable" in advice.verdict) == overlap
    # its stated error (30%) is above the refusal threshold: no recommendation
    assert advice.recommendation is None and "30%" in advice.refused[0]


def test_advise_uses_the_reference_parameters_without_a_calibration(cli_here):
    done = cli_here("advise", "--workload", "tpcb", "--sysfs", str(SYSFS / "vm-1x2"))
    assert done.returncode == 0, done.stderr
    assert "parameters: reference parameters (measured on" in done.stdout
    reference = default_parameters()
    assert reference.machine["topology"]["cores"] >= 1
    assert "local.micro.none.txn_us" in reference.costs


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workload", "tpcd"], "workload 'tpcd': choose one of"),
        (["--workload", "micro-read:rows=x"], "is not a whole number"),
        # Issue 48: each of these hung the simulation's row draw, or took a unicode digit.
        (["--workload", "micro-update:rows=10,zipf=inf"], "'inf' is not a finite number"),
        (["--workload", "micro-update:zipf=60"], "workload zipf: 60.0 is not in [0, 10]"),
        (["--workload", "micro-update:rows=20,rows_per_site=10,zipf=0.5"], "cannot come from a site of 10"),
        (["--workload", "micro-update:rows=\u0663"], "is not a whole number"),
        (["--workload", "micro-read:rows_per_site=10000000000000"], "workload rows_per_site: 10000000000000 is not in"),
        (["--workload", "micro-read", "--sysfs", "/nonexistent-sysfs"], "/nonexistent-sysfs"),
        (["--workload", "micro-read", "--params", "/nonexistent.json"], "parameters file /nonexistent.json"),
        (["--workload", "micro-read", "--profile", "cray"], "invalid choice: 'cray'"),
        ([], "--workload"),
    ],
)
def test_advise_bad_input(cli_here, args, message):
    done = cli_here("advise", *args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_advise_names_a_cost_the_parameters_lack(cli_here, params_file):
    done = cli_here("advise", "--workload", "tpcc-payment", "--sysfs", QUAD, "--params", params_file)
    assert done.returncode == 2
    assert "local.tpcc-payment" in done.stderr and "islands calibrate" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--out", "p.yaml"], "name the parameters file .json or .toml"),
        (["--repetitions", "0"], "--repetitions 0"),
        (["--duration", "-1"], "--duration -1"),
        (["--sysfs", "/nonexistent-sysfs"], "/nonexistent-sysfs"),
    ],
)
def test_calibrate_bad_input(cli_here, args, message):
    done = cli_here("calibrate", "--quick", *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_derive_turns_runs_into_costs():
    vm = fixture("vm-1x2")
    samples = {
        # cost = txn + rows x row: none 1 + 0.1/row read, 0.2/row update; 2pl 2 + 0.2 / 0.3
        "local.none.read.1": [1.1, 1.1],
        "local.none.read.10": [2.0, 2.0],
        "local.none.update.1": [1.2, 1.2],
        "local.none.update.10": [3.0, 3.0],
        "local.2pl.read.1": [2.2, 2.2],
        "local.2pl.read.10": [4.0, 4.0],
        "local.2pl.update.1": [2.3, 2.3],
        "local.2pl.update.10": [5.0, 5.0],
        "se2.read": [6.0, 7.0],  # a second thread: +50% (the least disturbed run), with a spread
        "se2.update": [7.5, 7.5],
        "log.none.update.10": [4.0, 4.0],
        "distr.unix.read.0": [2.0, 2.0],
        "distr.unix.read.1": [10.0, 10.0],
        "ping.unix": [6.0, 6.0],
        "std.tpcb.none": [3.0, math.nan],
    }
    costs, spread, notes = derive(samples, vm)
    assert costs["local.micro.none.txn_us"] == pytest.approx(1.0)
    assert costs["local.micro.none.read.row_us"] == pytest.approx(0.1)
    assert costs["local.micro.none.update.row_us"] == pytest.approx(0.2)
    assert costs["local.micro.2pl.txn_us"] == pytest.approx(2.0)
    assert costs["local.micro.2pl.update.row_us"] == pytest.approx(0.3)
    assert costs["local.contention_per_thread"] == pytest.approx(0.5)
    assert spread["local.contention_per_thread"] > 0
    assert spread["local.micro.none.txn_us"] == 0.0
    assert costs["log.update_us"] == pytest.approx(1.0)
    assert costs["distr.unix.read.participant_us"] == pytest.approx(8.0 / (1 - 0.5**9))
    assert costs["message.unix.round_trip_us"] == pytest.approx(6.0)
    assert costs["local.tpcb.none.txn_us"] == pytest.approx(3.0)
    assert "distr.shm.read.participant_us" not in costs  # not measured: absent, not 0
    assert any("memory.share" in n for n in notes)
    # the round trip says what it measures, beside bench ipc's blocking one
    trip = next(n for n in notes if n.startswith("message.unix.round_trip_us: "))
    assert "polling without sleeping" in trip and "'islands bench ipc' times a blocking ping-pong" in trip
    assert not any(n.startswith("message.shm.round_trip_us") for n in notes)  # not measured: no note


def test_calibration_plan_and_one_real_measurement():
    vm = fixture("vm-1x2")
    names = [m.name for m in plan_measurements(vm, quick=True)]
    assert "distr.shm.update.1" in names and "ping.unix" in names
    assert not any(n.startswith("std.") for n in names)
    assert any(n.startswith("std.tpcc") for n in (m.name for m in plan_measurements(vm)))
    quad = fixture("xeon-e7530-4x6")  # planning only: two of its cores would run
    assert [m.name for m in plan_measurements(quad, quick=True)] == names
    local = next(m for m in plan_measurements(vm, quick=True, duration_s=0.05) if m.name == "local.none.read.10")
    here = Measurement(local.name, Deployment(label="1ISL", instances=((0,),), placement="explicit"), local.config)
    cost, result = _measure(here, read_topology())
    assert cost > 0 and result["commits"] > 0
    cpu_ns = result["instances"][0]["cpu_ns"]
    assert cost == pytest.approx(cpu_ns / result["commits"] / 1e3)
    assert cost <= 1.1e6 / result["throughput_tps"]  # CPU time never exceeds wall time


@pytest.mark.slow
def test_calibrate_quick_writes_a_file_that_round_trips(cli, tmp_path):
    done = cli("calibrate", "--quick", "--quiet", "--out", str(tmp_path / "p.toml"), timeout=600)
    assert done.returncode == 0, done.stderr
    params = load_parameters(tmp_path / "p.toml")
    for key in ("local.micro.none.txn_us", "local.micro.2pl.read.row_us", "log.update_us"):
        assert params.costs[key] > 0
    assert params.machine["hostname"]
    assert load_parameters(params.save(tmp_path / "q.json")) == params


def test_advise_can_rank_by_simulation(cli_here, params_file):
    done = cli_here(
        "advise",
        "--workload",
        "micro-read:multisite=0.1",
        "--sysfs",
        str(SYSFS / "vm-1x2"),
        "--params",
        params_file,
        "--simulate",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    advice = json.loads(done.stdout)
    assert advice["ranked_by"] == "simulation"
    simulated = [p["simulated"] for p in advice["predictions"]]
    assert all(s > 0 for s in simulated) and simulated == sorted(simulated, reverse=True)
    assert "simulated" in advice["why"]


def test_flush_time_comes_from_the_log_statistics():
    from islands.model.calibration import flush_us as _flush_us

    logged = {"instances": [{"log": {"flushes": 4, "flush_ns": 40_000}}, {"log": {"flushes": 6, "flush_ns": 60_000}}]}
    assert _flush_us(logged) == pytest.approx(10.0)
    assert math.isnan(_flush_us({"instances": [{"log": {"flushes": 0, "flush_ns": 0}}]}))
    assert math.isnan(_flush_us({}))


def test_derive_measures_the_flusher_and_the_log_limit():
    vm = fixture("vm-1x2")
    samples = {
        "local.none.update.1": [1.2],
        "local.none.update.10": [3.0],
        # alone, the flusher had the other core: logging adds 1 us to the worker's 3
        "log.none.update.10": [4.0, 4.5],
        # per-core, every core runs a worker: the flusher's 1.5 us (mean of the transports) on top
        "distr.unix.update.0": [5.5],
        "distr.shm.update.0": [5.5, 6.0],
        "log.bytes": [600.0],
        "log.write": [500.0, 600.0],  # us per MiB: the least, 500, is 2097 MB/s
    }
    costs, spread, notes = derive(samples, vm)
    assert costs["log.update_us"] == pytest.approx(1.0)
    assert costs["log.flusher_us"] == pytest.approx(1.5)
    assert costs["log.bytes_per_commit"] == pytest.approx(600.0)
    assert costs["log.write_mb_s"] == pytest.approx((1 << 20) / 500.0)
    assert spread["log.write_mb_s"] > 0
    # Noise that makes the flusher look free is clamped to 0 and said so.
    samples["distr.unix.update.0"] = samples["distr.shm.update.0"] = [3.5]
    costs, _, notes = derive(samples, vm)
    assert costs["log.flusher_us"] == 0.0 and any("log.flusher_us" in n and "clamped" in n for n in notes)


def test_log_write_bandwidth_is_measured_on_the_log_directory(tmp_path):
    from islands.bench.calibration_runs import _write_us_per_mib

    us = _write_us_per_mib(str(tmp_path), blocks=4)
    assert us > 0
    assert list(tmp_path.iterdir()) == []  # the test file is gone
