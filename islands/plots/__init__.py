"""Figures, one module per figure family; each draws from stored result rows into a PNG.

:data:`FIGURES` is the one registry of the figures ``islands plot`` draws from a sweep's
results directory: the FIGURES.md id a manifest names → the function that draws it. A
figure function takes the rows (``ResultStore.rows()``) and the figure id and returns a
:class:`~islands.plots._common.Drawing` (figure, text summary, file stem);
:func:`render_results` saves it as PNG and PDF with the summary beside them. The hardware
microbenchmark figures (``bench_*``) are drawn by ``islands bench`` after its run, through
:func:`islands.plots.bench.draw_bench`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from islands.plots._common import Drawing
from islands.plots.characterization import plot_breakdown, plot_cycles, plot_microarch, plot_modules
from islands.plots.multisite import plot_multisite
from islands.plots.skew import plot_skew
from islands.plots.standard import plot_remote_share, plot_standard
from islands.plots.txn_size import plot_txn_size

__all__ = ["FIGURES", "Drawing", "Rendered", "figure_function", "render_results"]

#: FIGURES.md id → the function that draws it from a sweep's rows.
FIGURES: dict[str, Callable[[pd.DataFrame, str], Drawing]] = {
    "000-fig11": plot_multisite,  # throughput vs % multisite, unix sockets
    "000-fig12": plot_microarch,  # IPC, stalls, LLC misses per deployment (+ simulated counters)
    "000-fig13": plot_breakdown,  # time per transaction by component vs % multisite, unix sockets
    "000-fig15": plot_breakdown,  # the same over shared memory
    "003-fig1": plot_cycles,  # cycle breakdown vs data size (+ simulated counters)
    "003-fig5": plot_cycles,  # cycle breakdown vs rows per transaction
    "003-fig6": plot_modules,  # code-module breakdown
    "000-fig14": plot_multisite,  # the same over shared memory (vs unix sockets)
    "000-fig17": plot_txn_size,  # time per transaction vs rows, read (and update: Fig 18)
    "000-fig18": plot_txn_size,  # time per transaction vs rows, update
    "000-fig20": plot_skew,  # throughput vs Zipf skew
    "000-fig22": plot_standard,  # standard workloads, local-only vs the specification's remote share
    "000-fig23": plot_remote_share,  # TPC-B vs % remote
    "000-fig24": plot_remote_share,  # TPC-C Payment vs % remote
}

#: Figure ids of other tools' results, to say where they are drawn.
_ELSEWHERE = {
    "000-fig2": "islands bench ipc",
    "000-fig5/fig7": "islands bench counters",
    "000-fig6": "islands bench placement",
}


def figure_function(figure_id: str) -> Callable[[pd.DataFrame, str], Drawing]:
    """The registered function for ``figure_id``; ValueError (one line) naming the known ids."""
    try:
        return FIGURES[figure_id]
    except (KeyError, TypeError):
        where = f"; its figure is drawn by '{_ELSEWHERE[figure_id]}'" if figure_id in _ELSEWHERE else ""
        raise ValueError(
            f"figure {figure_id!r} has no plot here (known: {', '.join(sorted(FIGURES))}){where}"
        ) from None


@dataclass(frozen=True)
class Rendered:
    """What :func:`render_results` wrote: the figure files, the summary text and its file."""

    figure_id: str
    png: Path
    pdf: Path
    summary: str
    summary_path: Path


def render_results(results: str | Path, out: str | Path | None = None) -> Rendered:
    """Draws the figure a sweep's results directory feeds (its manifest's ``figure``) into
    ``out`` (default: the results directory) as ``<stem>.png``, ``<stem>.pdf`` and
    ``summary.txt``. Raises ValueError (one line) for a missing directory, one that is not a
    results directory, no rows, an unknown figure id or an output directory that cannot be
    written; nothing is written then."""
    from islands.results import ResultStore

    directory = Path(results)
    if not directory.exists():
        raise ValueError(f"{directory}: no such results directory")
    if not directory.is_dir():
        raise ValueError(f"{directory}: not a directory")
    store = ResultStore(directory)
    try:
        manifest = store.manifest()
    except (OSError, ValueError) as e:
        raise ValueError(f"{directory}: cannot read {store.manifest_path.name} ({e})") from None
    if not manifest:
        raise ValueError(
            f"{directory}: not a results directory (no {store.manifest_path.name}; made by 'islands sweep')"
        )
    if not isinstance(manifest, dict) or not manifest.get("figure"):
        raise ValueError(f"{store.manifest_path}: names no figure")
    figure_id = manifest["figure"]
    draw = figure_function(figure_id)
    try:
        rows = store.rows()
    except ValueError:
        raise
    except Exception as e:
        raise ValueError(f"{directory}: cannot read the rows ({e})") from None
    if rows.empty:
        status = manifest.get("status", "?")
        raise ValueError(f"{directory}: no result rows yet (sweep status {status!r}); run the sweep first")
    drawing = draw(rows, figure_id)  # draws in memory only: a refusal leaves nothing behind
    target = Path(out) if out is not None else directory
    _check_writable(target)
    summary = drawing.summary
    status = manifest.get("status")
    if status and status != "complete":
        summary += (
            f"\nnote: the sweep is {status}: {manifest.get('runs_done', '?')} of "
            f"{manifest.get('runs_total', '?')} runs stored"
        )
    if "system.busy" in rows.columns:
        busy = int(rows["system.busy"].fillna(False).astype(bool).sum())
        if busy:
            summary += (
                f"\nnote: {busy} of {len(rows)} runs ran while other processes kept the machine busy "
                "(system.busy); their numbers may be low"
            )
    png, pdf, text = (target / f"{drawing.stem}.png", target / f"{drawing.stem}.pdf", target / "summary.txt")
    try:
        drawing.figure.savefig(png, dpi=130)
        drawing.figure.savefig(pdf)
        text.write_text(summary + "\n")
    except OSError as e:
        for path in (png, pdf, text):
            path.unlink(missing_ok=True)
        raise ValueError(f"{target}: cannot write the figure ({e.strerror or e})") from None
    return Rendered(figure_id=figure_id, png=png, pdf=pdf, summary=summary, summary_path=text)


def _check_writable(target: Path) -> None:
    if target.exists() and not target.is_dir():
        raise ValueError(f"--out {target}: exists and is not a directory")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ValueError(f"--out {target}: cannot create it ({e.strerror})") from None
    if not os.access(target, os.W_OK | os.X_OK):
        raise ValueError(f"{target}: not writable")
