"""``islands gallery RESULTS``: a static HTML page of the latest figures under a results root.

See :mod:`islands.plots.gallery`. Prints the page's path (``--json``: the page and its entries).
Bad input (no such directory, no results directories in it, an output directory that
cannot be written) is one line with exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from islands.analysis.store import results_directory

__all__ = ["main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``gallery`` subcommand (``func=main``)."""
    p = subparsers.add_parser(
        "gallery",
        help="write a static HTML page of the figures under a results directory",
        description="Draw the figure of every results directory under RESULTS from its latest rows and "
        "write one static HTML page with the figures, their summaries, configs and machines.",
    )
    p.add_argument("results", metavar="RESULTS", help="a results root (results/) or one results directory")
    p.add_argument("--out", metavar="DIR", default=None, help="where to write the page (default: RESULTS/gallery)")
    p.add_argument("--json", action="store_true", help="print the page's path and its entries as JSON")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Writes the page; returns the exit status."""
    results_directory(args.results)  # before matplotlib loads
    from islands.plots.gallery import build_gallery

    problems: list[str] = []
    page = build_gallery(args.results, args.out, problems)
    for line in problems:  # a directory left without its figure (a damaged part: the file named)
        print(f"warning: {line}", file=sys.stderr)
    if args.json:
        from islands.cli.json_output import dumps

        print(dumps({"page": page}))
    else:
        print(f"gallery: {page}")
    return 0
