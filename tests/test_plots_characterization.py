"""Characterization figures (000 Fig 12, 13, 15; 003 Fig 1, 5, 6) on synthetic sweep rows:
the stacked parts are the stored values, missing hardware counters are explained on the
panel (never drawn as zeros), and the simulated panel fills in."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from islands.plots import FIGURES, figure_function
from islands.plots.characterization import plot_breakdown, plot_cycles, plot_microarch, plot_modules
from islands.plots.figure_rules import figure_words
from test_plots import make_rows, save_both

NO_PMU = "no core PMU ('cpu') in sysfs: a virtual machine without PMU passthrough"


def _with(rows: pd.DataFrame, columns: dict) -> pd.DataFrame:
    rows = rows.copy()
    for name, value in columns.items():
        rows[name] = [value(r) if callable(value) else value for _, r in rows.iterrows()]
    return rows


def _bar_heights(ax) -> list[list[float]]:
    return [[p.get_height() for p in c.patches] for c in ax.containers]


def test_registry_has_the_characterization_figures():
    for fid in ("000-fig12", "000-fig13", "000-fig15", "003-fig1", "003-fig5", "003-fig6"):
        assert fid in FIGURES and figure_function(fid)


def test_breakdown_stacks_the_components(tmp_path: Path):
    rows = make_rows("vm-1x2", lambda *a: 1e5, deployments=("per-core",), repetitions=1, figure="000-fig13")
    rows = _with(
        rows,
        {
            "breakdown.management_us": 0.5,
            "breakdown.execution_us": 1.0,
            "breakdown.communication_us": lambda r: 10.0 * r["config.micro.multisite"],
            "breakdown.locking_us": 0.25,
            "breakdown.logging_us": 0.0,
            "breakdown.total_us": lambda r: 1.75 + 10.0 * r["config.micro.multisite"],
        },
    )
    drawing = plot_breakdown(rows, "000-fig13")
    ax = drawing.figure.axes[0]
    heights = _bar_heights(ax)
    assert heights[0] == [0.5, 0.5, 0.5] and heights[1] == [1.0, 1.0, 1.0]
    assert heights[2] == [0.0, 5.0, 10.0]  # communication grows with % multisite
    assert "unix sockets" in figure_words(drawing.figure)
    assert "100% multisite: 11.75 µs/txn" in drawing.summary
    save_both(drawing, tmp_path)


def test_microarch_says_why_hardware_panels_are_empty_and_shows_simulated(tmp_path: Path):
    rows = make_rows("vm-1x2", lambda *a: 1e5, updates=(False,), multisite=(0.0,), repetitions=1, figure="000-fig12")
    rows = _with(
        rows,
        {
            "metrics.ipc": math.nan,
            "metrics.stalled_pct": math.nan,
            "metrics.llc_miss_pct": math.nan,
            "metadata.counters_missing.cycles": NO_PMU,
            "metadata.counters_missing.instructions": NO_PMU,
            "simulated.instructions": 2700.0,
            "simulated.l1i_mpki": 0.1,
            "simulated.l1d_mpki": 10.0,
            "simulated.ll_mpki": 0.05,
            "simulated.branch_mpki": 6.5,
            "simulated.reason": "",
            "simulated.cache_model": "xeon-e7530 (4 x Xeon E7530 (Nehalem-EX), paper 000): LL 12 MiB 12-way",
        },
    )
    drawing = plot_microarch(rows, "000-fig12")
    assert "simulated cache model: xeon-e7530 (4 x Xeon E7530" in drawing.summary
    assert any("caches: xeon-e7530" in ax.get_title() for ax in drawing.figure.axes)
    texts = [t.get_text() for ax in drawing.figure.axes for t in ax.texts]
    assert any("IPC: not measured" in t and "virtual machine" in t for t in texts)
    assert "IPC: not measured (" + NO_PMU in drawing.summary
    assert "simulated 10,000 rows/site: 2,700 instructions/txn" in drawing.summary
    assert not any(h for ax in drawing.figure.axes[:3] for c in ax.containers for h in c.patches)  # no zero bars
    save_both(drawing, tmp_path)


def test_simulated_counts_below_zero_are_drawn_at_zero_and_named():
    rows = make_rows("vm-1x2", lambda *a: 1e5, updates=(False,), multisite=(0.0,), repetitions=1, figure="000-fig12")
    simulated = {"simulated.instructions": 450.0, "simulated.l1d_mpki": 6.5, "simulated.ll_mpki": 0.4}
    simulated |= {"simulated.branch_mpki": 1.2, "simulated.reason": "", "simulated.cache_model": "xeon-e5-2680v4"}
    for l1i, floored in ((-0.9, ""), (0.0, "l1i_misses")):  # an older row's negative rate; a floored one
        drawing = plot_microarch(_with(rows, {**simulated, "simulated.l1i_mpki": l1i, "simulated.floored": floored}))
        panel = next(ax for ax in drawing.figure.axes if "SIMULATED" in ax.get_title())
        assert all(bar.get_height() >= 0 for c in panel.containers for bar in c.patches)
        assert "below the simulation's resolution, drawn at 0: L1i" in panel.get_title()
        assert "caches: xeon-e5-2680v4" in panel.get_title()
        assert "simulated misses below the simulation's resolution (drawn at 0): L1i" in drawing.summary


def test_microarch_draws_measured_counters():
    rows = make_rows(
        "xeon-e5-2640v2-2x8", lambda *a: 1e5, updates=(False,), multisite=(0.0,), repetitions=1, figure="000-fig12"
    )
    rows = _with(
        rows,
        {
            "metrics.ipc": lambda r: 2.0 / r["deployment.n_instances"] ** 0 + 0.1 * r["deployment.n_instances"],
            "metrics.stalled_pct": 40.0,
            "metrics.llc_miss_pct": 5.0,
        },
    )
    drawing = plot_microarch(rows, "000-fig12")
    assert "IPC, 10,000 rows/site: 1ISL 2.10" in drawing.summary
    assert "simulated counters: none" in drawing.summary


def test_cycles_figure_by_rows_with_categories():
    rows = make_rows(
        "vm-1x2",
        lambda *a: 1e5,
        deployments=("1",),
        updates=(False,),
        multisite=(0.0,),
        rows_per_txn=(1, 10, 100),
        repetitions=1,
        figure="003-fig5",
    )
    cats = {
        "metrics.cat_retiring": 0.3,
        "metrics.cat_branch_misprediction": 0.05,
        "metrics.cat_icache": 0.15,
        "metrics.cat_decoding": 0.1,
        "metrics.cat_dcache": 0.3,
        "metrics.cat_resource": 0.1,
    }
    drawing = plot_cycles(_with(rows, cats), "003-fig5")
    heights = _bar_heights(drawing.figure.axes[0])
    assert heights[0] == pytest.approx([30.0, 30.0, 30.0]) and heights[4] == pytest.approx([30.0, 30.0, 30.0])
    assert "100 rows/txn: retiring 30.0%" in drawing.summary


def test_cycles_figure_without_counters_explains():
    rows = make_rows(
        "vm-1x2",
        lambda *a: 1e5,
        deployments=("1",),
        updates=(False,),
        multisite=(0.0,),
        repetitions=1,
        figure="003-fig1",
    )
    rows = _with(rows, {"metrics.cat_retiring": math.nan, "metadata.counters_missing.slots": NO_PMU})
    drawing = plot_cycles(rows, "003-fig1")
    assert "cycle breakdown: not measured (" + NO_PMU in drawing.summary


def test_modules_figure(tmp_path: Path):
    rows = make_rows("vm-1x2", lambda *a: 1e5, deployments=("1",), multisite=(0.0,), repetitions=1, figure="003-fig6")
    shares = {"index": 0.3, "cc": 0.1, "log": 0.0, "transaction": 0.4, "transport": 0.0, "driver": 0.1, "other": 0.1}
    rows = _with(rows, {f"modules.shares.{m}": v for m, v in shares.items()} | {"modules.samples.index": 30})
    drawing = plot_modules(rows, "003-fig6")
    assert "read 10 rows: index 30.0%, cc 10.0%" in drawing.summary
    heights = np.array(_bar_heights(drawing.figure.axes[0]))
    assert heights.sum(axis=0) == pytest.approx([100.0, 100.0])
    save_both(drawing, tmp_path)
