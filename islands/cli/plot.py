"""``islands plot``: draw the figure a sweep's results directory feeds.

Reads the manifest's figure id (``000-fig11``, ...), draws it from the stored rows with the
function :data:`islands.plots.FIGURES` registers for it, writes ``<figure>.png``,
``<figure>.pdf`` and ``summary.txt`` into the results directory (``--out`` to change) and
prints their paths and the summary. Bad input (no such directory, not a results directory,
no rows, an unknown figure id, an output directory that cannot be written) raises
``ValueError``, which the dispatcher prints as one line with exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``plot`` subcommand (``func=main``)."""
    p = subparsers.add_parser(
        "plot",
        help="draw the figure of a sweep's results directory (PNG, PDF and a text summary)",
        description="Draw the figure a results directory feeds (its manifest names it) as PNG and "
        "PDF, and print and store a short summary of what it shows.",
    )
    p.add_argument("results", metavar="RESULTS_DIR", help="a sweep's results directory (results/<experiment>)")
    p.add_argument(
        "--out", metavar="DIR", default=None, help="where to write the figure and summary.txt (default: RESULTS_DIR)"
    )
    p.add_argument("--json", action="store_true", help="print the figure's files and summary as JSON")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Renders the figure; returns the exit status."""
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
