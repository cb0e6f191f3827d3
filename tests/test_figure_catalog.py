"""The figure catalog in the repository (docs/figures.md) is what the figure registry writes,
and the registry covers every figure the toolkit draws and every figure an experiment file
names."""

from __future__ import annotations

import tomllib
from pathlib import Path

from islands.experiments.figure_catalog import CATALOG_PATH, catalog_markdown
from islands.figures.catalog import BENCH_COMMANDS, CATALOG, DRAWN, PAPERS

REPO = Path(__file__).resolve().parents[1]


def test_docs_figures_md_is_current():
    assert CATALOG_PATH == REPO / "docs" / "figures.md"
    assert CATALOG_PATH.read_text() == catalog_markdown(), (
        "docs/figures.md is stale: run `make catalog` (python -m islands.experiments.figure_catalog)"
    )


def test_the_catalog_covers_every_figure_drawn_or_named():
    ids = [i for f in CATALOG for i in f.ids]
    assert len(ids) == len(set(ids)), "a figure id in two catalog entries"
    assert set(DRAWN) <= set(ids) and set(BENCH_COMMANDS) <= set(ids)
    for path in sorted((REPO / "experiments").glob("*.toml")):
        figure = tomllib.loads(path.read_text())["figure"]
        assert figure == "none" or figure in ids, f"{path.name}: {figure} is not in the catalog"
    assert {f.paper for f in CATALOG} <= set(PAPERS)
    assert all(f.what and f.parameters and f.shape for f in CATALOG)


def test_the_catalog_names_papers_and_commands():
    text = catalog_markdown()
    for paper in PAPERS.values():
        assert f"*{paper.title}*. {paper.venue}, {paper.year}." in text
    (fig11,) = [line for line in text.splitlines() if line.startswith("| 000-fig11 |")]
    assert "`islands reproduce 000-fig11` (`experiments/000-fig11-multisite.toml`)" in fig11
    assert "1ISL flat" in fig11  # the shape the paper reported
    (fig2,) = [line for line in text.splitlines() if line.startswith("| 000-fig2 ")]
    assert fig2.endswith("| `islands bench ipc` |")
    assert "../shared" not in (REPO / "README.md").read_text()
