"""The model's two parameter sets: the engine's costs apart from the machine's, composed back
into the parameters a prediction takes; the paper engine's values and their sources."""

from __future__ import annotations

import dataclasses
import re

import pytest

from islands.model import ModelWorkload, predict
from islands.model.cost_composition import compose, engine_on_machine
from islands.model.engine_costs import EngineCosts, engine_for, here_engine, paper_costs, paper_engine
from islands.model.machine_costs import here_machine, machine_for, paper_machine
from islands.model.machine_profile import PROFILES, profile_for
from islands.model.parameters import default_parameters
from model_cases import fixture, hand_parameters

#: A source names a paper (000, 001 or 002) and a section, figure or table of it.
SOURCE = re.compile(r"\b00[0-2] (Sec|Fig|Table)")


def test_the_calibration_splits_into_engine_and_machine_and_composes_back():
    params = hand_parameters(spread=0.1)
    vm = fixture("vm-1x2")
    profile = dataclasses.replace(profile_for(vm, "here", here_ghz=2.13), shape=None)
    engine, machine = here_engine(params), here_machine(params, profile)
    # the engine holds no round trip; a participant's cost became its work beyond them
    assert not any(k.startswith("message.") for k in engine.costs)
    assert engine.costs["distr.unix.read.work_us"] == pytest.approx(8.0 - 6.0)
    assert engine.costs["distr.unix.update.work_us"] == pytest.approx(16.0 - 2 * 6.0)
    assert machine.round_trip_us == {"unix": 6.0, "shm": 1.0}
    back = compose(engine, machine)
    assert back.costs == pytest.approx(params.costs)
    w = ModelWorkload("micro-update", multisite=0.5)
    assert predict(vm, "per-core", w, back).throughput == pytest.approx(predict(vm, "per-core", w, params).throughput)


def test_an_engine_on_another_machine_pays_that_machines_round_trips_at_its_clock():
    params = hand_parameters()
    quad = fixture("xeon-e7530-4x6")
    composed, engine, machine = engine_on_machine("here", quad, params)
    assert (
        machine.shape == (4, 6)
        and machine.round_trip_us["unix"] == paper_machine("xeon-e7530-4x6").round_trip_us["unix"]
    )
    factor = 2.13 / 1.86  # the hand parameters' clock over the quad-socket's
    assert composed.costs["local.micro.none.txn_us"] == pytest.approx(1.0 * factor)
    assert composed.costs["distr.unix.read.participant_us"] == pytest.approx(
        2.0 * factor + machine.round_trip_us["unix"]
    )
    # the machine's clock: the prediction scales nothing further
    assert composed.machine["ghz"] == machine.ghz


def test_the_paper_engine_names_a_source_for_every_value():
    engine = paper_engine()
    assert engine.costs and engine.ghz == 1.86
    for key, value in engine.costs.items():
        assert value >= 0, key
        assert SOURCE.search(engine.sources[key]), f"{key}: {engine.sources[key]!r}"
    data = paper_costs()
    assert set(data["machines"]) == set(PROFILES)
    for name in PROFILES:
        m = paper_machine(name)
        assert set(m.round_trip_us) == {"unix", "shm"}
        assert all(SOURCE.search(s) for s in m.sources.values()), name
    # what was fitted to one of paper 000's numbers says so
    fitted = [k for k, e in data["engine"]["costs"].items() if e["derivation"].startswith("fitted")]
    assert fitted and all("Fig 14" in engine.sources[k] or "Sec 6.5" in engine.sources[k] for k in fitted)


def test_the_two_engines_give_different_answers_for_the_same_machine():
    quad = fixture("xeon-e7530-4x6")
    params = default_parameters()  # this engine as calibrated (the package's reference)
    w = ModelWorkload("micro-read", multisite=0.2)
    here, _, _ = engine_on_machine("here", quad, params)
    paper, _, _ = engine_on_machine("paper", quad, params)
    ratio = {
        name: predict(quad, "24ISL", w, p, samples=1).throughput / predict(quad, "1ISL", w, p, samples=1).throughput
        for name, p in (("here", here), ("paper", paper))
    }
    # this engine's local transaction is ~500 times cheaper than Shore-MT's, the round trip the
    # same: per-core loses to shared-everything with it, wins with Shore-MT
    assert ratio["here"] < 0.5 and ratio["paper"] > 1.0


def test_engine_and_machine_costs_reject_what_is_not_theirs():
    with pytest.raises(ValueError, match="machine's, not the engine's"):
        EngineCosts("x", {"message.unix.round_trip_us": 1.0})
    with pytest.raises(ValueError, match="not a number"):
        EngineCosts("x", {"local.micro.none.txn_us": -1.0})
    with pytest.raises(ValueError, match="engine 'silo'"):
        engine_for("silo", hand_parameters())
    with pytest.raises(ValueError, match="paper machine 'cray'"):
        paper_machine("cray")
    with pytest.raises(ValueError, match="speed factor"):
        paper_engine().scaled(0.0)
    # this machine's shape is no paper machine's: its own costs
    assert machine_for(fixture("vm-1x2"), hand_parameters()).shape is None
    slower = paper_engine().scaled(2.0)
    assert slower.local_us("micro-read") == pytest.approx(2 * paper_engine().local_us("micro-read"))
    assert slower.costs["memory.share"] == paper_engine().costs["memory.share"]
