"""The reproduction report (``islands reproduce --report``): the quick version of every paper
figure islands draws here, within a time budget, judged against the papers' claims on one page.

For each figure (:data:`islands.figures.catalog.DRAWN`, in order, or those asked for), every
experiment file that feeds it runs as :func:`islands.experiments.reproduce.quick_spec` makes it,
with :data:`REPORT_REPETITIONS` repetitions (a ratio needs two runs a side for an interval; a
quick spec's one is none) into ``<results>/<name>-quick`` (resuming what is there: repetitions
do not change a spec's hash). A file two figures share runs once. Before each file the report
compares its estimate (:meth:`Sweep.estimate_s`, scaled by how far the files run so far overran
theirs) with the budget left and skips, with a line saying so, a figure that does not fit.
The figures' claims are checked on the rows (:mod:`islands.analysis.reproduction`), the model
projects them onto the papers' machines (:func:`islands.plots.report_page.projections`), and the
page goes to ``<out>`` (default ``<results>/report``): ``report.md`` and ``index.html``.
The figures of the papers that islands does not draw are listed as not measured here, with why.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from islands.analysis.reproduction import figure_verdict, run_checks
from islands.analysis.store import ResultStore
from islands.analysis.verdicts import NOT_MEASURED_HERE
from islands.figures.catalog import BENCH_COMMANDS, CATALOG, DRAWN
from islands.plots.report_page import ReportFigure, projections, write_report

__all__ = ["DEFAULT_BUDGET_MIN", "REPORT_REPETITIONS", "Report", "report"]

#: The default budget, in minutes of runs (what 2 cores give every figure's quick version).
DEFAULT_BUDGET_MIN = 20.0
#: Repetitions of each quick point: the fewest that give every ratio an interval, and one more.
REPORT_REPETITIONS = 3


@dataclass
class Report:
    """What :func:`report` did: the figures on the page, the lines it printed and the pages."""

    figures: list[ReportFigure]
    lines: list[str] = field(default_factory=list)
    markdown: Path | None = None
    html: Path | None = None
    spent_s: float = 0.0


def _catalog_entry(figure: str) -> tuple[str, str, str]:
    for f in CATALOG:
        if figure in f.ids:
            return f.paper, f.shape, f.parameters
    return figure[:3], "", ""


def report(
    figures: Sequence[str] | None = None,
    budget_s: float = DEFAULT_BUDGET_MIN * 60,
    results: str | Path = "results",
    out: str | Path | None = None,
    experiments: str | Path | None = None,
    repetitions: int = REPORT_REPETITIONS,
    progress: bool | None = False,
    model: bool = True,
    echo: Callable[[str], None] | None = None,
) -> Report:
    """Runs the quick version of ``figures`` (default: every figure islands draws) within
    ``budget_s`` seconds of runs and writes the report (module docstring). ``echo`` receives
    each line as it is decided (the command prints them). ValueError (one line) for a figure
    islands does not draw."""
    from islands.experiments.reproduce import experiments_for, quick_spec
    from islands.experiments.sweep import Sweep, load_spec
    from islands.machine.topology import read_topology
    from islands.plots import render_results

    chosen = list(figures) if figures else sorted(DRAWN)
    unknown = [f for f in chosen if f not in DRAWN]
    if unknown:
        raise ValueError(f"figure {unknown[0]!r}: not one islands draws (known: {', '.join(sorted(DRAWN))})")
    if not isinstance(repetitions, int) or repetitions < 1:
        raise ValueError(f"repetitions {repetitions!r}: a whole number >= 1")
    if not budget_s > 0:
        raise ValueError(f"budget {budget_s!r}: seconds > 0")
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        if echo is not None:
            echo(line)

    topology = read_topology()
    machine = (
        f"{topology.n_sockets} socket(s), {topology.n_cores} cores, {topology.n_cpus} hardware threads "
        f"({topology.source})"
    )
    started = time.monotonic()
    estimated_done = 0.0  # estimates of the files run so far, against the time they took
    ran: dict[Path, tuple[Path, str, list[str]]] = {}  # spec file -> directory, summary, images
    entries: list[ReportFigure] = []
    say(f"budget {budget_s / 60:.1f} min of runs on {machine}; quick runs, {repetitions} repetitions each")
    for figure in chosen:
        paper, claim, parameters = _catalog_entry(figure)
        entry = ReportFigure(figure, paper, claim, parameters)
        entries.append(entry)
        try:
            paths = experiments_for(figure, experiments)
        except ValueError as e:
            entry.verdict, entry.line = NOT_MEASURED_HERE, str(e)
            say(f"{figure}: {NOT_MEASURED_HERE}: {e}")
            continue
        frames: list[pd.DataFrame] = []
        notes: list[str] = []
        for path in paths:
            if path in ran:
                directory, summary, images = ran[path]
            else:
                spec = dataclasses.replace(quick_spec(load_spec(path)), repetitions=repetitions)
                directory = Path(results) / spec.name
                try:
                    sweep = Sweep(spec, topology, directory)
                except ValueError as e:  # the spec does not fit this machine
                    notes.append(f"{path.name}: not run: this machine: {e}")
                    continue
                to_run = sweep.left()
                left = len(to_run)
                estimate = sweep.estimate_s(to_run)
                spent = time.monotonic() - started
                overrun = max(1.0, spent / estimated_done) if estimated_done > 0 else 1.0
                remaining = budget_s - spent
                if estimate * overrun > remaining:
                    notes.append(
                        f"{path.name}: skipped: its {left} runs are estimated at {estimate * overrun:.0f} s "
                        f"({estimate:.0f} s × {overrun:.2f}, the overrun so far) and {max(remaining, 0):.0f} s "
                        "of the budget are left"
                    )
                    continue
                t0 = time.monotonic()
                try:
                    sweep.run(progress=progress)
                    rendered = render_results(directory)
                except (ValueError, RuntimeError) as e:
                    notes.append(f"{path.name}: failed: {e}")
                    continue
                finally:
                    estimated_done += estimate if left else 0.0
                took = time.monotonic() - t0
                summary, images = rendered.summary, [str(rendered.png)]
                ran[path] = (directory, summary, images)
                notes.append(f"{path.name}: {left} runs in {took:.0f} s (estimated {estimate:.0f} s) into {directory}")
            frames.append(ResultStore(directory).rows())
            entry.directories.append(directory)
            entry.summary += ("\n\n" if entry.summary else "") + summary
            entry.images += [Path(p) for p in images]
        entry.checks = run_checks(figure, frames) if frames else []
        if not frames:
            entry.verdict = NOT_MEASURED_HERE
        elif not entry.checks:
            entry.verdict = NOT_MEASURED_HERE
            notes.append("the report has no check of this figure's claim yet: its summary is shown")
        else:
            entry.verdict = figure_verdict(entry.checks)
        entry.line = "; ".join(notes)
        say(f"{figure}: {entry.verdict}" + (f" ({entry.line})" if entry.line else ""))
        for c in entry.checks:
            say(f"  {c.check.claim}: {c.words}" + (f"; cause: {c.cause}" if c.cause else ""))
    drawn_ids = set(DRAWN)
    for f in CATALOG:
        if any(i in drawn_ids for i in f.ids) or figures:
            continue
        tool = next((BENCH_COMMANDS[i] for i in f.ids if i in BENCH_COMMANDS), "")
        why = f"drawn by '{tool}', not a sweep: not part of this report" if tool else "islands does not draw it yet"
        entries.append(ReportFigure(f.label, f.paper, f.shape, f.parameters, NOT_MEASURED_HERE, why))
    spent = time.monotonic() - started
    model_source = ""
    if model:
        lines_by_figure, model_source = projections(entry.figure for entry in entries)
        for entry in entries:
            entry.model = lines_by_figure.get(entry.figure, [])
    target = Path(out) if out is not None else Path(results) / "report"
    header = [
        f"machine: {machine}",
        f"budget {budget_s / 60:.1f} min of runs, {spent / 60:.1f} min spent; each point {repetitions} "
        "repetitions of a quick run (islands reproduce --quick)",
    ]
    md, page = write_report(entries, target, header, model_source)
    say(f"report: {md} and {page}")
    return Report(entries, lines, md, page, spent)
