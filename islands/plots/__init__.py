"""Figures, one module per figure family; each draws from stored result rows into a PNG.

:data:`FIGURES` is the one registry of the figures ``islands plot`` draws from a sweep's
results directory: the figure id (docs/figures.md) a manifest names → the function that draws it. A
figure function takes the rows (``ResultStore.rows()``) and the figure id and returns a
:class:`~islands.plots._common.Drawing` (figure, text summary, file stem);
:func:`render_results` saves it as PNG and PDF with the summary beside them. The hardware
microbenchmark figures (``bench_*``) are drawn by ``islands bench`` after its run, through
:func:`islands.plots.bench_figures.draw_bench`.
"""

from __future__ import annotations

import importlib
import io
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from islands.analysis.guarded_files import make_directory, write_by_rename
from islands.analysis.verdicts import precision_words, steal_words
from islands.figures.catalog import DRAWN
from islands.plots._common import Drawing

__all__ = ["FIGURES", "Drawing", "Rendered", "draw_results", "figure_function", "render_results"]

#: Figure id (docs/figures.md) → the function that draws it from a sweep's rows (the table is
#: :data:`islands.figures.catalog.DRAWN`, which names them without importing them).
FIGURES: dict[str, Callable[[pd.DataFrame, str], Drawing]] = {
    figure_id: getattr(importlib.import_module(where.split(":")[0]), where.split(":")[1])
    for figure_id, where in DRAWN.items()
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


def draw_results(results: str | Path) -> Drawing:
    """The figure a sweep's results directory feeds, drawn in memory from its stored rows
    (nothing is written); in a notebook the returned drawing displays as the figure. Raises
    ValueError (one line) as :func:`render_results` does."""
    return _draw(Path(results))[0]


def _draw(directory: Path) -> tuple[Drawing, dict[str, Any], pd.DataFrame]:
    from islands.analysis.store import ResultStore, results_directory

    results_directory(directory)
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
    # The sweep's own verdicts (run.precision: its stopping rule's intervals), for a figure
    # whose summary names winners: it words them as the sweep decided them.
    rows.attrs["precision"] = manifest.get("precision") or {}
    drawing = draw(rows, figure_id)  # draws in memory only: a refusal leaves nothing behind
    status = manifest.get("status")
    if status and status != "complete":  # an interrupted sweep's figure must not pass for the whole one
        from islands.plots.figure_rules import stamp_partial

        stamp_partial(
            drawing.figure,
            f"sweep {status}, {manifest.get('runs_done', '?')} of {manifest.get('runs_total', '?')} runs stored",
        )
    return drawing, manifest, rows


def render_results(results: str | Path, out: str | Path | None = None) -> Rendered:
    """Draws the figure a sweep's results directory feeds (its manifest's ``figure``) into
    ``out`` (default: the results directory) as ``<stem>.png``, ``<stem>.pdf`` and
    ``summary.txt``. Raises ValueError (one line) for a missing directory, one that is not a
    results directory, no rows, an unknown figure id or an output directory that cannot be
    written; nothing is written then."""
    directory = Path(results)
    drawing, manifest, rows = _draw(directory)
    target = Path(out) if out is not None else directory
    _check_writable(target)
    summary = drawing.summary
    functional = functional_summary(rows)
    if functional is not None:  # oversubscribed runs: their throughputs are not the planned machine's
        from islands.plots.figure_rules import stamp

        summary = functional
        stamp(drawing.figure, "FUNCTIONAL runs: planned on another machine, run oversubscribed here; not comparable")
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
    summary += "".join(f"\nnote: {line}" for line in noise_notes(rows))
    if "system.steal_share" in rows.columns:
        stolen = steal_words(rows["system.steal_share"], left_out=bool(manifest.get("precision")))
        summary += f"\nnote: {stolen}" if stolen else ""
    summary += "".join(f"\nnote: {line}" for line in precision_words(manifest.get("precision") or {}))
    png, pdf, text = (target / f"{drawing.stem}.png", target / f"{drawing.stem}.pdf", target / "summary.txt")
    try:  # each file written by rename: a link planted in the directory is replaced, not followed
        for path, dpi in ((png, 130), (pdf, None)):
            image = io.BytesIO()
            drawing.figure.savefig(image, format=path.suffix[1:], dpi=dpi)
            write_by_rename(path, image.getvalue())
        write_by_rename(text, summary + "\n")
    except OSError as e:
        for path in (png, pdf, text):
            path.unlink(missing_ok=True)
        raise ValueError(f"{target}: cannot write the figure ({e.strerror or e})") from None
    return Rendered(figure_id=manifest["figure"], png=png, pdf=pdf, summary=summary, summary_path=text)


def functional_summary(rows: pd.DataFrame) -> str | None:
    """The summary of a sweep of functional runs ([run] oversubscribe: planned on another machine,
    run packed onto this one's CPUs): what they checked and counted, and no verdict on their
    throughputs, which are not the planned machine's; None when no row is functional."""
    if "functional" not in rows.columns or not rows["functional"].fillna(False).astype(bool).any():
        return None
    planned = sorted({str(p) for p in rows.get("oversubscription.planned_on", pd.Series(dtype=str)).dropna()})
    hosts = pd.to_numeric(rows.get("oversubscription.factor", pd.Series(dtype=float)), errors="coerce")

    def total(column: str) -> int:
        return int(pd.to_numeric(rows[column], errors="coerce").fillna(0).sum()) if column in rows.columns else 0

    def failed(value: object) -> bool:  # stored as JSON text ("[]": none)
        return bool(json.loads(value)) if isinstance(value, str) and value else bool(value)

    failures = sum(failed(v) for v in rows["check_failures"]) if "check_failures" in rows.columns else 0
    return "\n".join(
        [
            f"FUNCTIONAL RUNS: {len(rows)} runs planned on {', '.join(planned) or 'another machine'} and packed onto "
            f"this machine's cpus (up to {hosts.max():.0f} workers a cpu): their throughputs are drawn, not compared "
            "(no winner, no ratio)",
            f"commits {total('commits'):,}, of them distributed {total('multisite_commits'):,}; "
            f"runs whose consistency checks failed: {failures}",
        ]
    )


def noise_notes(rows: pd.DataFrame) -> list[str]:
    """The summary's lines on the runs' noise (``noise.*`` and ``system.*`` columns, issue 30):
    the within-run drift, the runs that never reached a steady state, steal time and the
    clock; empty for rows that recorded none of it."""
    out = []

    def column(name: str) -> pd.Series:
        return pd.to_numeric(rows[name], errors="coerce").dropna() if name in rows.columns else pd.Series(dtype=float)

    cv = column("noise.timeline_cv")
    if len(cv):
        out.append(
            f"within-run noise: throughput timeline CV median {cv.median():.0%}, max {cv.max():.0%} "
            f"over {len(cv)} runs (noise.timeline_cv)"
        )
    if "noise.steady" in rows.columns:
        never = int((rows["noise.steady"] == False).sum())  # noqa: E712 (None: too short to tell)
        if never:
            from islands.analysis.verdicts import never_steady_words

            unsteady = rows[rows["noise.steady"] == False]  # noqa: E712
            caps = column("noise.warmup_cap_s").reindex(unsteady.index).dropna().tolist()
            words = f"{never} of {len(rows)} runs {never_steady_words(caps)}"
            if "throughput_window_tps" in rows.columns:  # measured from the steady state (run.steady_warmup)
                where = ", the warm-up's cap (run.warmup_s + half the window; " if caps else " ("
                out.append(f"{words}{where}noise.steady = false): their throughput is measured from the cap on")
            else:
                out.append(f"{words} (noise.steady = false): their throughput averages over a transient")
    steal = column("system.steal_share")
    if len(steal) and steal.max() >= 0.01:
        out.append(f"the hypervisor stole up to {steal.max():.0%} of the CPU time (system.steal_share)")
    start, end = column("system.cpu_mhz"), column("system.cpu_mhz_end")
    if len(start) and len(end) and end.min() < 0.9 * start.max():
        out.append(f"the CPU clock varied: {end.min():.0f}-{start.max():.0f} MHz (system.cpu_mhz, cpu_mhz_end)")
    return out


def _check_writable(target: Path) -> None:
    """The output directory: made (whatever the umask) or checked as the results directories
    are (islands.analysis.guarded_files: not a link, this user's, not writable by others)."""
    if target.exists() and not target.is_dir():
        raise ValueError(f"--out {target}: exists and is not a directory")
    if target.is_dir() and not target.is_symlink() and not os.access(target, os.W_OK | os.X_OK):
        raise ValueError(f"{target}: not writable")
    make_directory(target, what="--out")
    if not os.access(target, os.W_OK | os.X_OK):
        raise ValueError(f"{target}: not writable")
