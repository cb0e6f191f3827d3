"""The notebooks run: every code cell of each, in order, against real results."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import pytest

from islands.__main__ import main as cli_main

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
EXPERIMENTS = NOTEBOOKS.parent / "experiments"


def code_cells(notebook: Path) -> list[str]:
    """The source of each code cell, in order."""
    cells = json.loads(notebook.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def test_explore_results_runs_on_a_real_sweep(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    matplotlib.use("Agg")
    # The notebook reads ../results/default, as it would from notebooks/ after `make run`.
    assert (
        cli_main(
            ["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(tmp_path / "results" / "default"), "--no-progress"]
        )
        == 0
    )
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")
    namespace: dict = {}
    cells = code_cells(NOTEBOOKS / "explore_results.ipynb")
    assert cells
    for source in cells:
        exec(compile(source, "explore_results.ipynb", "exec"), namespace)
    assert namespace["manifest"]["figure"] == "000-fig11" and len(namespace["rows"]) == 2
    assert "1ISL" in namespace["drawing"].summary
    assert namespace["result"].commits > 0
