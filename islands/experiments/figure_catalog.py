"""The figure catalog in the repository, ``docs/figures.md``, written from the figure registry
(:mod:`islands.figures.catalog`): for every figure of the papers, the paper (by
title and venue), what it shows, the parameters the paper used, the shape it reported, and the
command and experiment files that draw it here.

``python -m islands.experiments.figure_catalog`` writes it again (``make catalog``);
tests/test_figure_catalog.py fails while the file in the repository differs from what this
writes."""

from __future__ import annotations

import sys
from pathlib import Path

from islands.figures.catalog import BENCH_COMMANDS, CATALOG, DRAWN, LOADS, PAPERS, Figure

__all__ = ["CATALOG_PATH", "LOAD_MODELS", "STANDARD", "catalog_markdown", "main"]

_REPO = Path(__file__).resolve().parents[2]
#: Where the catalog lives in a source checkout.
CATALOG_PATH = _REPO / "docs" / "figures.md"


#: The figure standard every figure the toolkit draws meets (islands/plots/figure_rules.py applies
#: it; tests/test_figure_standard.py renders each family of figure from made-up rows and checks it).
STANDARD = (
    "## The figure standard",
    "",
    "Every figure islands draws (`islands plot`, `reproduce`, `bench`, the gallery) follows these rules;",
    "`islands/plots/figure_rules.py` applies them and `tests/test_figure_standard.py` renders every",
    "family of figure the registry draws from made-up rows and checks what can be checked on the image.",
    "",
    "- **Title**: at most two lines, in one size (10 pt): the figure and what it shows, then the",
    "  machine. Everything else a title used to carry (runs, warm-up, logging, notes) is a caption",
    "  under the panels.",
    "- **The paper beside the measurement**: where the table below has the shape the paper reported,",
    "  the caption's first line gives it (`paper (000-fig11): 1ISL flat; per-core best at 0% ...`),",
    "  so that the reader compares the image with the paper's claim without leaving it.",
    "- **Labels never overlap**: no two texts of a figure (title, caption, legend, axis and tick labels,",
    "  annotations) overlap by their rendered extents. A legend outside the panels sits between the",
    "  panels and the caption, never on either.",
    "- **Intervals where they are drawn**: on a linear axis, the mean and its 95% t-interval; on a log",
    "  axis, the geometric mean and the interval computed on the logarithms (symmetric where drawn,",
    "  never reaching zero), which the caption says.",
    "- **Log axes fit their data**: the y-range spans the means drawn and reaches beyond them only for",
    "  an interval's end, at most half a decade (one wide interval cannot hide the gap a figure is",
    "  about). No bars on a log axis (a bar's length means nothing there): markers with whiskers.",
    "- **Sizes named from the machine**: a data size is called memory-resident only where it exceeds the",
    "  last-level cache that `islands topology` reports; a figure none of whose sizes does says so.",
    "- **What the reader must know first is stamped on the image**: PARTIAL on a figure from an",
    "  interrupted sweep (with how many runs were stored), FUNCTIONAL on one from packed functional",
    "  runs, and a note where the machine cannot answer the figure's question (one socket:",
    "  per-socket coincides with 1ISL).",
)


#: What the load column of the tables means (islands.figures.catalog.LOADS).
LOAD_MODELS = (
    "## Load models",
    "",
    "The load column names the `driver.clients` value the figure's experiment files use, and why it is",
    "the paper's:",
    "",
    "- `instance_wide`: every worker is its own closed-loop client and draws each transaction's home",
    "  uniformly over its instance's sites, so any worker of an instance serves any of its requests, as",
    "  in the papers' Shore-MT runs: one shared-everything instance draws over the whole database, one",
    "  instance per socket over its socket's sites, one single-threaded instance per core at its site.",
    "- `workers`: each worker draws at its own site (per-site locality): the workers of a",
    "  shared-everything instance never meet on a site. Kept as a named option (islands before issue 47",
    "  ran every figure so).",
    "- `closed` (and `open`): clients apart from the workers draw homes over the whole database, with",
    "  the workload's skew, and submit each to the queue of the instance that owns it (the client layer,",
    "  `exec/client_driver.hpp`).",
    "",
    "The load is a setting of the experiment file (`[clients] clients = ...`); `tests/test_load_model.py`",
    "checks that every file uses the load its figure names here and that a 1ISL run's workers serve",
    "homes of every site.",
)


def _load(figure: Figure) -> str:
    load = LOADS.get(figure.label)
    if load is None:
        return ""
    names = " or ".join(f"`{c}`" for c in load.clients) or "none"
    return f"{names}: {load.why}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _how(figure: Figure, experiments: Path) -> str:
    from islands.experiments.reproduce import experiments_for

    parts = []
    for fid in figure.ids:
        if fid in DRAWN:
            try:
                files = [p.name for p in experiments_for(fid, experiments)]
            except ValueError:
                files = []
            where = f" ({', '.join(f'`experiments/{f}`' for f in files)})" if files else ""
            parts.append(f"`islands reproduce {fid}`{where}")
        elif fid in BENCH_COMMANDS:
            parts.append(f"`{BENCH_COMMANDS[fid]}`")
    seen: list[str] = []
    for p in parts:  # one command for ids drawn together (000-fig5 and fig7: one benchmark)
        if p not in seen:
            seen.append(p)
    return "<br>".join(seen) if seen else "not drawn yet"


def catalog_markdown(experiments: Path | None = None) -> str:
    """The text of ``docs/figures.md``."""
    experiments = experiments or _REPO / "experiments"
    lines = [
        "# The papers' figures",
        "",
        "<!-- Written by `python -m islands.experiments.figure_catalog` (make catalog) from",
        "     islands/figures/catalog.py; edit the catalog, not this file. -->",
        "",
        "Every figure and table of the papers that islands mirrors: what it shows, the parameters",
        "the paper used, the shape the paper reported, and the command that draws it on this",
        "machine (`islands reproduce ID` runs the experiment files named beside it, then draws the",
        "figure; `--quick` runs a shrunken copy). Parameters scale with the machine: per-core is",
        "one single-threaded instance per core, per-socket one instance per socket, 1ISL one",
        "instance on every core; on a one-socket machine per-socket and 1ISL coincide, and a",
        "virtual topology (`--virtual-sockets`) may stand in, which the figure then says.",
        "",
        *STANDARD,
        "",
        *LOAD_MODELS,
        "",
        "## Papers",
        "",
    ]
    lines += [f"- **{number}**: *{p.title}*. {p.venue}, {p.year}." for number, p in PAPERS.items()]
    for number, paper in PAPERS.items():
        figures = [f for f in CATALOG if f.paper == number]
        if not figures:
            continue
        lines += [
            "",
            f"## {number}: {paper.title} ({paper.venue}, {paper.year})",
            "",
            "| figure | what | parameters | shape the paper reported | load | draw it |",
            "|---|---|---|---|---|---|",
        ]
        for f in figures:
            cells = (
                _cell(f.label),
                _cell(f.what),
                _cell(f.parameters),
                _cell(f.shape),
                _cell(_load(f)),
                _how(f, experiments),
            )
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Writes ``docs/figures.md`` (or the path given) and says where."""
    args = sys.argv[1:] if argv is None else argv
    target = Path(args[0]) if args else CATALOG_PATH
    target.write_text(catalog_markdown())
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
