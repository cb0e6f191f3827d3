"""Paper 004's figures (islands.plots.engines) from the shipped experiment files, planned on a
16-core fixture and "run" by a runner that makes the throughputs up (so the shapes are known)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from islands.experiments.sweep import Point, Sweep, load_spec
from islands.machine.topology import read_topology
from islands.plots import figure_function
from islands.plots.engines import plot_engines
from islands.plots.figure_rules import figure_words

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
FIXTURE = ROOT / "tests" / "fixtures" / "sysfs" / "xeon-e5-2640v2-2x8"


def made_up(point: Point, spread: bool = True) -> dict[str, Any]:
    """The shared engine is flat at 100 K latched and scales linearly latch-free; the
    aggregate scales linearly at 120 K per client. ``spread``: repetitions 0 and 1 at -1% and
    +1% of it (their mean on the line), else every run on it."""
    dep, engine = point.deployment, point.config.engine
    n = dep.n_cpus
    if dep.n_instances == n and n > 1:
        tps = 120e3 * n
    elif n == 1:
        tps = 100e3
    else:
        tps = 100e3 * (n if not engine.latching else 1)
    return {"throughput_tps": tps * ((1.01 if point.repetition else 0.99) if spread else 1.0), "commits": 1}


def rows_of(name: str, tmp_path: Path, repetitions: int = 2):
    """The rows of experiment file ``name`` planned on the fixture and run by ``made_up``:
    two repetitions (a spread about each line), or one (the lines alone: Figs 4 and 5-8 plan
    60 and 72 points, whose runs and rows the store takes seconds over)."""
    spec = load_spec(EXPERIMENTS / name).with_overrides(repetitions=repetitions)
    sweep = Sweep(spec, read_topology(FIXTURE), tmp_path / name)
    sweep.run(lambda point: made_up(point, spread=repetitions > 1), progress=False)
    return sweep.store.rows()


def lines_of(ax) -> dict[str, tuple[list[float], list[float]]]:
    out = {}
    for c in ax.containers:
        out[c.get_label()] = (list(c.lines[0].get_xdata()), list(np.round(c.lines[0].get_ydata(), 3)))
    return out


@pytest.fixture(scope="module")
def fig3_rows(tmp_path_factory: pytest.TempPathFactory):
    """Fig 3's rows, which two tests read."""
    return rows_of("004-fig3-read-only.toml", tmp_path_factory.mktemp("fig3"))


def test_fig3_shared_engine_against_the_aggregate(fig3_rows) -> None:
    rows = fig3_rows
    drawing = figure_function("004-fig3")(rows, "004-fig3")
    (ax,) = [a for a in drawing.figure.axes if a.get_visible()]
    assert ax.get_title() == "100-0 mix" and ax.get_xlabel() == "clients (cores)"
    lines = lines_of(ax)
    clients = [1.0, 2.0, 4.0, 6.0, 8.0, 12.0, 16.0]  # 24 and up skipped on 16 cores
    assert lines["shared engine"] == (clients, [100.0] * len(clients))
    # one client is one single-threaded instance: the aggregate's first point too
    assert lines["aggregate (one engine per client)"] == (clients, [100.0] + [120.0 * c for c in clients[1:]])
    assert "at 16 clients shared engine / aggregate (one engine per client): 0.05×" in drawing.summary
    assert "004 Fig 3" in figure_words(drawing.figure)
    assert "2 repetitions" in figure_words(drawing.figure)


def test_fig5_8_latch_free_against_latched_per_mix(tmp_path: Path) -> None:
    rows = rows_of("004-fig5-8-latch-free.toml", tmp_path, repetitions=1)
    drawing = plot_engines(rows, "004-fig5")
    visible = [a for a in drawing.figure.axes if a.get_visible()]
    assert [a.get_title() for a in visible] == ["standard mix", "50-50 mix", "80-20 mix", "100-0 mix"]
    lines = lines_of(visible[3])
    assert set(lines) == {
        "shared engine, latched",
        "shared engine, latch-free",
        "aggregate (one engine per client), latched",
        "aggregate (one engine per client), latch-free",
    }
    assert lines["shared engine, latch-free"][1] == [100.0, 200.0, 400.0, 800.0, 1600.0]
    assert "at 16 clients latch-free / latched: 16.0×" in drawing.summary


def test_fig4_lines_per_isolation_level(tmp_path: Path) -> None:
    rows = rows_of("004-fig4-isolation.toml", tmp_path, repetitions=1)
    drawing = plot_engines(rows, "004-fig4")
    visible = [a for a in drawing.figure.axes if a.get_visible()]
    assert len(visible) == 4
    # Snapshot runs the multi-version scheme, so the scheme varies too and names each line.
    assert set(lines_of(visible[0])) == {
        "shared engine, table_2pl, serializable",
        "shared engine, table_2pl, read committed",
        "shared engine, mvcc, snapshot",
    }


def test_rows_of_another_figure_are_refused(fig3_rows) -> None:
    with pytest.raises(ValueError, match="no column 'config.tpcc.mix'"):
        plot_engines(fig3_rows.drop(columns=["config.tpcc.mix"]))
