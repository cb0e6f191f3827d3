"""``islands compare A B``: two results directories compared point by point, with
significance, like ``pyperf compare_to``.

For every point both directories hold (matched on ``grid_id``, or on the columns of
``--by``): each side's median and min–max, the ratio B / A of their geometric means with its
95% confidence interval, and a verdict (``B higher``, ``B lower``, ``not distinguishable``
when the interval includes 1, ``no interval`` with one run a side); runs made on a busy
machine (``system.busy``, or hypervisor steal above 10%) are left out and counted unless
``--keep-busy``; see
:mod:`islands.analysis.comparison` and :mod:`islands.analysis.statistics`. ``--json`` prints the same as JSON (null
for a missing number). Bad input (a missing directory, one without rows, an unknown column,
no point in common) raises ``ValueError``: one line, exit status 2.
"""

from __future__ import annotations

import argparse
from typing import Any

from islands.analysis.store import results_directory

__all__ = ["main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``compare`` subcommand (``func=main``)."""
    p = subparsers.add_parser(
        "compare",
        help="compare two results directories point by point, with confidence intervals",
        description="Compare results directory B against A point by point: medians, min-max, the ratio "
        "B / A with its 95% confidence interval, and whether the two are distinguishable.",
    )
    p.add_argument("a", metavar="A", help="the baseline results directory")
    p.add_argument("b", metavar="B", help="the results directory compared against A")
    p.add_argument("--metric", default="throughput_tps", help="the column compared (default: %(default)s)")
    p.add_argument(
        "--by",
        default="grid_id",
        metavar="COLUMNS",
        help="comma-separated columns that identify a point in both (default: %(default)s)",
    )
    p.add_argument(
        "--keep-busy",
        action="store_true",
        help="keep the runs made on a busy machine (other processes, or steal above 10%%); by default they are "
        "left out and counted",
    )
    p.add_argument("--json", action="store_true", help="print the comparison as JSON (null for missing numbers)")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Prints the comparison; returns the exit status."""
    results_directory(args.a), results_directory(args.b)  # before pandas loads
    from islands.analysis.comparison import compare_dirs
    from islands.analysis.tables import terminal_width
    from islands.cli.json_output import dumps

    by = tuple(c.strip() for c in args.by.split(",") if c.strip())
    if not by:
        raise ValueError("--by: name at least one column")
    comparison = compare_dirs(args.a, args.b, metric=args.metric, by=by, keep_busy=args.keep_busy)
    print(dumps(comparison.to_dict()) if args.json else comparison.table(width=terminal_width()))
    return 0
