"""Paper 002's baseline figures (islands.plots.design_comparison: Fig 1/2, 5, 6, 8) from the shipped
experiment files: planned on a 16-core fixture (regrouped into the files' virtual sockets)
and "run" by a runner that makes the throughputs up, so that the shapes are known; and one
file really run here, shrunk, and drawn."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from islands.experiments.reproduce import quick_spec
from islands.experiments.sweep import Point, Sweep, load_spec
from islands.figures.designs import DESIGNS, design_of
from islands.machine.topology import read_topology
from islands.plots import figure_function
from islands.plots.figure_rules import figure_words

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
FIXTURE = ROOT / "tests" / "fixtures" / "sysfs" / "xeon-e5-2640v2-2x8"
#: made-up throughput per core of each design
PER_CORE = {
    "shared-nothing": 100e3,
    "coarse-sn": 90e3,
    "centralized": 50e3,
    "plp": 60e3,
    "plp-hw": 80e3,
    "naive": 85e3,
    "naive-oversaturated": 65e3,
    "workload-aware": 70e3,
    "atrapos-static": 75e3,
}


def made_up(point: Point, spread: bool = True) -> dict[str, Any]:
    """PER_CORE's throughput; ``spread``: repetitions 0 and 1 at -1% and +1% of it."""
    dep, engine = point.deployment, point.config.engine
    design = design_of(dep.n_instances, dataclasses.asdict(engine))
    tps = PER_CORE[design] * dep.n_cpus
    return {"throughput_tps": tps * ((1.01 if point.repetition else 0.99) if spread else 1.0), "commits": 1}


def rows_of(name: str, tmp_path: Path, repetitions: int = 1):
    """The rows of experiment file ``name`` planned on the fixture and run by ``made_up``: one
    repetition (the lines and bars alone), or two (a spread about each: Fig 1 draws from two)."""
    spec = load_spec(EXPERIMENTS / name).with_overrides(repetitions=repetitions)
    sweep = Sweep(spec, read_topology(FIXTURE), tmp_path / name)
    sweep.run(lambda point: made_up(point, spread=repetitions > 1), progress=False)
    return sweep, sweep.store.rows()


def lines_of(ax) -> dict[str, tuple[list[float], list[float]]]:
    out = {}
    for c in ax.containers:
        if c.lines[0] is not None:
            out[c.get_label()] = (list(c.lines[0].get_xdata()), list(np.round(c.lines[0].get_ydata(), 3)))
    return out


@pytest.mark.parametrize(
    ("name", "figure", "designs"),
    [
        ("002-fig1-2-sockets.toml", "002-fig1", ("shared-nothing", "centralized", "plp")),
        # coarse SN: one instance per virtual socket of 8 cores, so on up to 8 cores the
        # centralized point (run once, with a note; see below)
        ("002-fig5-hw-aware.toml", "002-fig5", ("shared-nothing", "centralized", "plp", "plp-hw")),
        (
            "002-fig6-two-table.toml",
            "002-fig6",
            ("centralized", "plp", "naive-oversaturated", "workload-aware", "atrapos-static"),
        ),
    ],
)
def test_throughput_vs_sockets_one_line_per_design(name, figure, designs, tmp_path: Path) -> None:
    sweep, rows = rows_of(name, tmp_path, repetitions=2 if figure == "002-fig1" else 1)
    drawing = figure_function(figure)(rows, figure)
    (ax,) = drawing.figure.axes
    lines = lines_of(ax)
    assert set(lines) == {DESIGNS[d].label for d in designs}
    for design in designs:
        xs, ys = lines[DESIGNS[design].label]
        assert xs == [1.0, 2.0, 4.0, 8.0]
        assert ys == [round(PER_CORE[design] * x / 1e3, 3) for x in xs]
    assert "VIRTUAL sockets" in figure_words(drawing.figure) or "VIRTUAL" in drawing.summary
    assert "the machine has 16 cores" in figure_words(drawing.figure)
    if "centralized" in designs:
        assert f"{DESIGNS['plp'].label} / centralized SE: 1.20×" in drawing.summary
    if figure == "002-fig6":  # the placements, and that one core per socket makes two of them alike
        assert "place alike" in drawing.summary and "Per table" in figure_words(drawing.figure)


def test_a_design_grid_skips_nothing_and_names_its_deployment(tmp_path: Path) -> None:
    spec = load_spec(EXPERIMENTS / "002-fig5-hw-aware.toml")
    sweep = Sweep(spec, read_topology(FIXTURE), tmp_path / "x")
    # 5 designs x 4 core counts; coarse SN is one instance per virtual socket (2 x 8 cores here):
    # on up to 8 cores, one instance, the same point as centralized SE: run once, with a note.
    seen = {
        (p.deployment.n_instances, p.config.engine.execution, p.config.engine.system_structures)
        for p in sweep.grid_points
    }
    assert (1, "plp", "per_socket") in seen and (1, "plp", "centralized") in seen
    assert any("listed more than once" in n for n in sweep.notes)


def test_fig8_bars_over_plp(tmp_path: Path) -> None:
    for name in ("002-fig8-tatp.toml", "002-fig8-tpcc.toml"):
        _, rows = rows_of(name, tmp_path)
        drawing = figure_function("002-fig8")(rows, "002-fig8")
        (ax,) = drawing.figure.axes
        bars = {c.get_label(): [round(b.get_height(), 3) for b in c] for c in ax.containers if hasattr(c, "patches")}
        for design in ("shared-nothing", "centralized", "plp", "plp-hw"):
            heights = bars[DESIGNS[design].label]
            assert heights and all(h == round(PER_CORE[design] / PER_CORE["plp"], 3) for h in heights)
        assert ax.get_ylabel() == "throughput / PLP's"


def test_a_design_grid_refuses_what_a_design_sets(tmp_path: Path) -> None:
    from islands.experiments.spec import ExperimentSpec

    base = {"name": "x", "figure": "none", "grid": {"design": ["plp"]}}
    with pytest.raises(ValueError, match="grid.deployment: not with grid.design"):
        ExperimentSpec.from_dict({**base, "grid": {"design": ["plp"], "deployment": ["1"]}})
    with pytest.raises(ValueError, match="grid.execution: not with grid.design"):
        ExperimentSpec.from_dict({**base, "grid": {"design": ["plp"], "execution": ["plp"]}})
    with pytest.raises(ValueError, match="grid.design: 'mesh': choose one of shared-nothing"):
        ExperimentSpec.from_dict({**base, "grid": {"design": ["mesh"]}})


def test_fig5_really_runs_here_and_draws(tmp_path: Path, private_run_root) -> None:
    spec = quick_spec(load_spec(EXPERIMENTS / "002-fig5-hw-aware.toml"))
    spec = dataclasses.replace(spec, warmup_s=0.05, duration_s=0.1)
    sweep = Sweep(spec, read_topology(), tmp_path / "real")
    sweep.run(progress=False)
    rows = sweep.store.rows()
    drawing = figure_function("002-fig5")(rows, "002-fig5")
    labels = set(lines_of(drawing.figure.axes[0]))
    assert {DESIGNS[d].label for d in ("centralized", "plp", "plp-hw")} <= labels
    assert "VIRTUAL" in figure_words(drawing.figure)
