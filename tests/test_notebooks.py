"""The notebooks run headless in a real Jupyter kernel (nbclient + ipykernel), with small settings,
and show their figures: a cell that errors fails the test, and so does a cell tagged ``figure``
whose outputs hold no ``image/png`` (a figure that printed as ``<Figure size ...>`` text)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from islands.__main__ import main as cli_main

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
EXPERIMENTS = NOTEBOOKS.parent / "experiments"

#: Settings that keep each notebook short, injected after its ``parameters`` cell (as
#: papermill does): every notebook in notebooks/ has an entry.
SMALL = {
    "quickstart.ipynb": "DURATION_S = 0.05\nWARMUP_S = 0.02",
    "multisite.ipynb": (
        "DURATION_S = 0.05\nWARMUP_S = 0.02\nDEPLOYMENTS = ['1', 'per-core']\nMULTISITE = [0.0, 1.0]\nUPDATE = [True]"
    ),
    "breakdowns.ipynb": "DURATION_S = 0.05\nWARMUP_S = 0.02\nMULTISITE = [0.0, 1.0]\nUPDATE = [True]",
    "simulated_counters.ipynb": "TRANSACTIONS = 50\nROWS_PER_SITE = [20_000]",
    "standard_workloads.ipynb": "DURATION_S = 0.05\nWARMUP_S = 0.02",
    "explore_results.ipynb": "",  # reads ../results/default, which the test fills with a smoke sweep
}
#: Names a notebook may not use: the public API only.
_PRIVATE = re.compile(r"\bislands(\.\w+)*\._\w|from islands[\w.]* import[^\n]*\b_\w")


def test_every_notebook_is_run_here():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(SMALL)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_notebook_is_well_formed(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    ids = [c.get("id") for c in nb.cells]
    assert all(ids) and len(set(ids)) == len(ids), "every cell has a unique id"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(not c.outputs and c.execution_count is None for c in code), "stored without outputs"
    assert sum("parameters" in c.metadata.get("tags", []) for c in code) == 1
    assert any("figure" in c.metadata.get("tags", []) for c in code), "no cell shows a figure"
    for c in code:
        assert not _PRIVATE.search(c.source), f"cell {c.id} uses a private name: {c.source}"


def execute(name: str, workdir: Path) -> nbformat.NotebookNode:
    """Runs a notebook from ``workdir`` (as if it lay there) with its small settings."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    if SMALL[name]:
        at = next(i for i, c in enumerate(nb.cells) if "parameters" in c.metadata.get("tags", []))
        injected = nbformat.v4.new_code_cell(SMALL[name])
        injected.metadata["tags"] = ["injected-parameters"]
        nb.cells.insert(at + 1, injected)
    client = NotebookClient(
        nb,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(workdir)}},
    )
    client.execute()
    return nb


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``<tmp>/notebooks``, with ``<tmp>/results/default`` holding a smoke sweep's rows."""
    root = tmp_path_factory.mktemp("nb")
    out = root / "results" / "default"
    assert cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(out), "--no-progress"]) == 0
    (root / "notebooks").mkdir()
    return root / "notebooks"


#: Notebooks run under slow only: simulated_counters' two cachegrind runs (~10 s; what it calls,
#: islands.measure.cachegrind.simulate, runs for real in tests/test_simulate.py).
SLOW_NOTEBOOKS = {"simulated_counters.ipynb"}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW_NOTEBOOKS else n for n in sorted(SMALL)]
)
def test_notebook_runs_and_shows_its_figures(name, workdir):
    nb = execute(name, workdir)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"cell {cell.id}: {errors[0].ename}: {errors[0].evalue}"
        if "figure" in cell.metadata.get("tags", []):
            images = [o for o in cell.outputs if "image/png" in o.get("data", {})]
            texts = [o.get("data", {}).get("text/plain", "") for o in cell.outputs]
            assert images, f"cell {cell.id} shows no image: {texts}"
            assert all(len(o["data"]["image/png"]) > 1000 for o in images)
