"""``islands plot``: draw the figure a sweep's results directory feeds.

Reads the manifest's figure id (``000-fig11``, ...), draws it from the stored rows with the
function :data:`islands.plots.FIGURES` registers for it, writes ``<figure>.png``,
``<figure>.pdf`` and ``summary.txt`` into the results directory (``--out`` to change) and
prints their paths and the summary. ``--model`` draws the figure through the Islands model
instead (:mod:`islands.plots.model_figures`): the measured points beside the model's
prediction, the projection onto the papers' machines and the paper's shape; given a figure id
rather than a results directory, the projection alone (nothing needs to have run). Bad input
(no such directory, not a results directory, no rows, an unknown figure id, an output
directory that cannot be written) raises ``ValueError``, which the dispatcher prints as one line with exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from islands.analysis.store import results_directory

__all__ = ["main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``plot`` subcommand (``func=main``)."""
    p = subparsers.add_parser(
        "plot",
        help="draw the figure of a sweep's results directory (PNG, PDF and a text summary)",
        description="Draw the figure a results directory feeds (its manifest names it) as PNG and "
        "PDF, and print and store a short summary of what it shows.",
    )
    p.add_argument(
        "results",
        metavar="RESULTS_DIR",
        help="a sweep's results directory (results/<experiment>); with --model also a figure id (000-fig11, ...): "
        "its projection without measurements",
    )
    p.add_argument(
        "--model",
        action="store_true",
        help="draw the figure through the Islands model instead: measured vs predicted here, projected onto the "
        "2x8, 4x6 and 8x10 machines, beside the paper's shape (<figure>-model.png/.pdf, <figure>-model-summary.txt)",
    )
    p.add_argument(
        "--params",
        metavar="FILE",
        default=None,
        help="with --model: the model's parameters (default: results/model/parameters.json where 'islands "
        "calibrate' wrote it, else the package's reference parameters)",
    )
    p.add_argument(
        "--out", metavar="DIR", default=None, help="where to write the figure and summary.txt (default: RESULTS_DIR)"
    )
    p.add_argument("--json", action="store_true", help="print the figure's files and summary as JSON")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Renders the figure; returns the exit status."""
    if args.params is not None and not args.model:
        raise ValueError("--params: only with --model")
    if args.model:
        return _model(args)
    results_directory(args.results)  # before matplotlib loads
    from islands.plots import render_results

    rendered = render_results(args.results, args.out)
    if args.json:
        from islands.cli.json_output import dumps

        print(
            dumps(
                {
                    "figure": rendered.figure_id,
                    "png": rendered.png,
                    "pdf": rendered.pdf,
                    "summary_path": rendered.summary_path,
                    "summary": rendered.summary,
                }
            )
        )
        return 0
    print(f"figure {rendered.figure_id}: {rendered.png}")
    print(f"figure {rendered.figure_id}: {rendered.pdf}")
    print(f"summary: {rendered.summary_path}")
    print()
    print(rendered.summary)
    return 0


def _model(args: argparse.Namespace) -> int:
    from islands.plots.model_figures import render_model_figures

    done = render_model_figures(args.results, args.out, args.params)
    if args.json:
        from islands.cli.json_output import dumps

        print(
            dumps(
                [
                    {
                        "figure": r.figure_id,
                        "png": r.png,
                        "pdf": r.pdf,
                        "summary_path": r.summary_path,
                        "summary": r.summary,
                    }
                    for r in done
                ]
            )
        )
        return 0
    for r in done:
        print(f"model figure {r.figure_id}: {r.png}")
        print(f"model figure {r.figure_id}: {r.pdf}")
        print(f"summary: {r.summary_path}")
        print()
        print(r.summary)
        print()
    return 0
