"""``islands sweep``: run an experiment file's grid, or list its points with ``--dry-run``.

Rows go to ``results/<experiment name>/`` (``--out`` to change), one per point and
repetition, each appended as its run ends; running the same command again resumes. Progress
is a bar on a terminal and one line per finished run otherwise; a busy machine is reported
in one line on stderr at the end. Bad input
(the experiment file, a deployment that does not fit, a results directory made from another
spec or not writable) raises ``ValueError``, which the dispatcher prints as one line with
exit status 2; Ctrl-C keeps the finished rows and exits 130.
"""

from __future__ import annotations

import argparse
from typing import Any

from islands.sweep import Sweep, load_spec

__all__ = ["main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``sweep`` subcommand (``func=main``)."""
    p = subparsers.add_parser(
        "sweep",
        help="run an experiment file's grid of deployments x workloads x transports",
        description="Run the points of an experiment file (experiments/*.toml), one result row "
        "per point and repetition; run again to resume an interrupted sweep.",
    )
    p.add_argument("spec", metavar="EXPERIMENT.toml", help="the experiment file")
    p.add_argument("--out", metavar="DIR", default=None, help="results directory (default: results/<experiment name>)")
    p.add_argument("--dry-run", action="store_true", help="list the points and exit without running")
    p.add_argument(
        "--duration", type=float, default=None, metavar="S", help="measured seconds per run (overrides the file)"
    )
    p.add_argument(
        "--warmup", type=float, default=None, metavar="S", help="warm-up seconds per run (overrides the file)"
    )
    p.add_argument(
        "--repetitions",
        type=int,
        default=None,
        metavar="N",
        help="runs of every point (overrides the file; raising it later adds runs)",
    )
    again = p.add_mutually_exclusive_group()
    again.add_argument("--fresh", action="store_true", help="delete the directory's rows and manifest and start over")
    again.add_argument("--force", action="store_true", help="add to a directory made from a different spec or machine")
    p.add_argument(
        "--sysfs", metavar="ROOT", default=None, help="plan for another machine's sysfs tree (only with --dry-run)"
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress on stderr (default: a bar on a terminal, else one line per finished run)",
    )
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Lists or runs the sweep; returns the exit status."""
    from islands.topology import read_topology

    if args.sysfs is not None and not args.dry_run:
        raise ValueError("--sysfs: only with --dry-run (runs happen on this machine)")
    spec = load_spec(args.spec).with_overrides(
        duration_s=args.duration, warmup_s=args.warmup, repetitions=args.repetitions
    )
    topology = read_topology(args.sysfs) if args.sysfs is not None else read_topology()
    sweep = Sweep(spec, topology, args.out)
    if args.dry_run:
        print(sweep.table())
        return 0
    for note in sweep.notes:
        print(f"note: {note}")
    outcome = sweep.run(fresh=args.fresh, force=args.force, progress=False if args.no_progress else None)
    print(
        f"{spec.name}: {outcome.ran} runs made, {outcome.skipped} already done, "
        f"{outcome.total} in all; rows in {outcome.directory}"
    )
    return 0
