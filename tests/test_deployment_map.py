"""The deployment map: which deployment the model predicts fastest as engine speed and round
trip vary, with today's engines marked; its figure and ``islands advise --map``."""

from __future__ import annotations

import dataclasses

import pytest

from islands.model import ModelWorkload
from islands.model.deployment_map import Mark, deployment_map, marks_for
from islands.model.engine_costs import here_engine, paper_engine
from islands.model.machine_costs import here_machine, paper_machine
from islands.model.machine_profile import profile_for
from model_cases import SYSFS, fixture, hand_parameters

QUAD = fixture("xeon-e7530-4x6")


def _map(workload, local=(0.1, 1000.0), rtt=(0.1, 1000.0), marks=()):
    return deployment_map(
        QUAD,
        workload,
        paper_engine(),
        paper_machine("xeon-e7530-4x6"),
        local_us=local,
        round_trip_us=rtt,
        marks=marks,
        samples=20,
    )


def test_cheap_messages_favour_per_core_and_dear_ones_shared_everything():
    m = _map(ModelWorkload("micro-read", multisite=0.2))
    slow_engine_fast_messages = m.cell_at(1000.0, 0.1)
    fast_engine_slow_messages = m.cell_at(0.1, 1000.0)
    assert slow_engine_fast_messages.best == "24ISL"
    assert fast_engine_slow_messages.best == "1ISL" and fast_engine_slow_messages.distinguishable
    assert fast_engine_slow_messages.words.startswith("the model predicts 1ISL ")
    assert " faster than 2ISL (model " in fast_engine_slow_messages.words
    assert sum(m.regions().values()) == 4
    # local-only: no message is ever sent, so the round trip changes nothing
    local = _map(ModelWorkload("micro-read", multisite=0.0))
    assert {c.best for row in local.cells for c in row} == {"24ISL"}


def test_todays_engines_are_marked_where_they_are():
    params = hand_parameters()
    w = ModelWorkload("micro-update", multisite=0.2)
    quad_costs = paper_machine("xeon-e7530-4x6")
    here = dataclasses.replace(profile_for(QUAD, "here", here_ghz=2.13), shape=None)
    marks = marks_for(w, [here_engine(params), paper_engine()], [here_machine(params, here), quad_costs], quad_costs)
    assert len(marks) == 8  # two engines, two machines, two mechanisms each
    shore = [mk for mk in marks if mk.engine == "Shore-MT (paper 000)" and "unix (quad" in mk.label]
    assert len(shore) == 1
    assert shore[0].round_trip_us == quad_costs.round_trip_us["unix"]
    assert shore[0].local_us == pytest.approx(paper_engine().local_us("micro-update"))  # measured at 1.86 GHz
    m = _map(w, local=(1.0, 100.0), rtt=(1.0, 30.0), marks=marks)
    lines = m.lines()
    assert any(line.startswith(shore[0].label) for line in lines)
    assert any("another engine" in line for line in lines)  # the hand engine's marks sit on Shore-MT's proportions
    assert m.to_dict()["marks"][0]["label"] == marks[0].label


def test_the_map_refuses_what_it_cannot_draw():
    with pytest.raises(ValueError, match="skewed"):
        _map(ModelWorkload("micro-read", zipf_s=1.0))
    with pytest.raises(ValueError, match="positive"):
        _map(ModelWorkload("micro-read"), local=(0.0, 1.0))
    with pytest.raises(ValueError, match="positive"):
        _map(ModelWorkload("micro-read"), rtt=())


def test_the_map_figure_names_its_regions():
    from islands.plots.map_figure import plot_map

    m = _map(ModelWorkload("micro-read", multisite=0.2), marks=(Mark("made-up", 1.0, 1.0),))
    drawing = plot_map(m)
    assert drawing.summary.startswith("deployment map: micro-read")
    assert "made-up" in drawing.summary and "cells per deployment" in drawing.summary


def test_advise_map_writes_the_figure(cli, cli_here, tmp_path):
    done = cli(
        "advise",
        "--map",
        "--workload",
        "micro-read:multisite=0.2",
        "--sysfs",
        str(SYSFS / "xeon-e7530-4x6"),
        "--engine",
        "paper",
        "--out",
        str(tmp_path / "out"),
        "--grid",
        "3",
    )
    assert done.returncode == 0, done.stderr
    stem = tmp_path / "out" / "deployment-map-micro-read-unix"
    assert stem.with_suffix(".png").exists() and stem.with_suffix(".pdf").exists()
    assert "Shore-MT (paper 000) / unix (quad-socket Xeon E7530)" in done.stdout
    assert "x: local cost per transaction 0.1..1000 us" in done.stdout
    grid = cli_here("advise", "--map", "--workload", "micro-read", "--grid", "1")  # refused: in-process
    assert grid.returncode == 2 and "--grid 1" in grid.stderr and len(grid.stderr.strip().splitlines()) == 1
