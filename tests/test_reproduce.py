"""``islands reproduce FIGURE-ID [--quick]``: every drawn figure has its experiment; a quick run
shrinks it; the command sweeps and draws."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from islands.experiments.reproduce import (
    QUICK_DURATION_S,
    QUICK_LIVE_DURATION_S,
    QUICK_PROBE_DURATION_S,
    QUICK_WARMUP_S,
    experiments_for,
    quick_spec,
)
from islands.experiments.sweep import load_spec
from islands.figures.catalog import DRAWN
from islands.plots import FIGURES

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"


def test_the_light_table_names_every_drawn_figure():
    assert set(DRAWN) == set(FIGURES)


@pytest.mark.parametrize("figure", sorted(FIGURES))
def test_every_drawn_figure_has_an_experiment_and_a_quick_version(figure):
    paths = experiments_for(figure, EXPERIMENTS)
    assert paths
    for path in paths:
        spec = load_spec(path)
        assert spec.figure == figure or figure.split("-fig")[1] in path.stem.split("-")
        quick = quick_spec(spec)
        assert quick.name == f"{spec.name}-quick" and quick.repetitions == 1
        # a schedule keeps its shape; a probe needs room for its measurement
        longest = QUICK_LIVE_DURATION_S if spec.live else QUICK_PROBE_DURATION_S if spec.probe else QUICK_DURATION_S
        assert quick.duration_s <= longest and quick.warmup_s <= QUICK_WARMUP_S
        for (key, values), (_, full) in zip(quick.grid, spec.grid):
            if key in ("deployment", "placement", "transport"):
                assert values == full
            else:
                assert values == full or (len(values) == 3 and values[0] == full[0] and values[-1] == full[-1])


def test_unknown_figures_are_one_line(cli_here):
    out = cli_here("reproduce", "000-fig99")
    assert out.returncode == 2 and "invalid choice: '000-fig99'" in out.stderr
    with pytest.raises(ValueError, match="no experiment file in .* feeds it"):
        experiments_for("000-fig11", Path(__file__).parent)  # tests/ holds no experiment file


def test_reproduce_quick_sweeps_and_draws(cli_here, tmp_path):
    experiments = tmp_path / "experiments"
    experiments.mkdir()
    (experiments / "000-fig11-tiny.toml").write_text(
        """
name = "000-fig11-tiny"
figure = "000-fig11"
[run]
warmup_s = 1.0
duration_s = 5.0
repetitions = 3
[grid]
deployment = ["1"]
update = [true]
multisite = { from = 0.0, to = 1.0, step = 0.2 }
[micro]
rows_per_txn = 2
rows_per_site = 1000
"""
    )
    results = tmp_path / "results"
    out = cli_here(
        "reproduce",
        "000-fig11",
        "--quick",
        "--experiments",
        str(experiments),
        "--results",
        str(results),
        "--no-progress",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    [done] = json.loads(out.stdout)
    assert done["experiment"] == "000-fig11-tiny-quick" and done["ran"] == 3
    directory = results / "000-fig11-tiny-quick"
    manifest = json.loads((directory / "manifest.json").read_text())
    assert manifest["spec"]["run"]["duration_s"] == QUICK_DURATION_S
    assert Path(done["png"]).is_file() and Path(done["pdf"]).is_file()
    assert "1ISL" in done["summary"]
    again = cli_here("reproduce", "000-fig11", "--quick", "--experiments", str(experiments), "--results", str(results))
    assert again.returncode == 0, again.stderr
    assert "0 runs made, 3 already done" in again.stdout


@pytest.mark.slow
def test_reproduce_a_real_figure_quick(cli, tmp_path):
    out = cli("reproduce", "000-fig11", "--quick", "--results", str(tmp_path), "--no-progress", timeout=600)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "000-fig11-multisite-quick" / "000-fig11.png").is_file()
