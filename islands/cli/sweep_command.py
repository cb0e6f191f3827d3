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
import dataclasses
from typing import TYPE_CHECKING, Any

from islands.cli.json_output import dumps
from islands.cli.topology_args import add_topology_arguments, topology_from_args

if TYPE_CHECKING:
    from islands.experiments.sweep import Sweep

__all__ = ["main", "plan", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``sweep`` subcommand (``func=main``)."""
    p = subparsers.add_parser(
        "sweep",
        help="run an experiment file's grid of deployments x workloads x transports",
        description="Run the points of an experiment file (experiments/*.toml), one result row "
        "per point and repetition; run again to resume an interrupted sweep.",
    )
    p.add_argument(
        "spec",
        metavar="EXPERIMENT.toml",
        help="the experiment file; a name not found here (default, experiments/000-fig11-multisite.toml) is looked up "
        "in experiments/ of the checkout, then the one the installed package ships",
    )
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
        "--wait",
        action="store_true",
        help="when another sweep is writing --out, wait for it to finish (default: refuse, naming its pid), "
        "then run what it left",
    )
    p.add_argument(
        "--sysfs", metavar="ROOT", default=None, help="plan for another machine's sysfs tree (only with --dry-run)"
    )
    add_topology_arguments(p)
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress on stderr (default: a bar on a terminal, else one line per finished run)",
    )
    p.add_argument(
        "--cluster",
        metavar="ADDRESS",
        default=None,
        help="run the points on the workers of the Dask cluster whose scheduler is at ADDRESS "
        "(tcp://host:8786; each worker started with --resources islands-node=1 runs one point at a time); "
        "the rows are stored here",
    )
    p.add_argument(
        "--cluster-timeout",
        metavar="SECONDS",
        type=float,
        default=10.0,
        help="with --cluster: how long to wait for the scheduler to answer (default 10)",
    )
    p.add_argument(
        "--json", action="store_true", help="print the points (with --dry-run) or what the sweep did as JSON"
    )
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Lists or runs the sweep; returns the exit status."""
    if args.sysfs is not None and not args.dry_run:
        raise ValueError("--sysfs: only with --dry-run (runs happen on this machine)")
    if args.wait and args.dry_run:
        raise ValueError("--wait: not with --dry-run (a dry run writes nothing, so it waits for no one)")
    from islands.experiments.packaged import experiment_file
    from islands.experiments.sweep import Sweep, load_spec  # pandas: only once a sweep runs

    path = experiment_file(args.spec)
    if str(path) != str(args.spec) and not args.json:
        print(f"note: {args.spec}: not in the working directory; running {path}")
    spec = load_spec(path).with_overrides(duration_s=args.duration, warmup_s=args.warmup, repetitions=args.repetitions)
    topology = topology_from_args(args, args.sysfs)
    sweep = Sweep(spec, topology, args.out)
    if args.dry_run:
        print(dumps(plan(sweep)) if args.json else sweep.table())
        return 0
    if not args.json:
        for note in sweep.notes:
            print(f"note: {note}")
    progress = False if args.no_progress else None
    executor = None
    if args.cluster is not None:
        from islands.experiments.executors import DaskExecutor

        executor = DaskExecutor(args.cluster, topology, connect_timeout_s=args.cluster_timeout)
    try:
        outcome = sweep.run(fresh=args.fresh, force=args.force, progress=progress, executor=executor, wait=args.wait)
    finally:
        if executor is not None:
            executor.close()
    if args.json:
        print(
            dumps(
                {
                    "experiment": spec.name,
                    "figure": spec.figure,
                    "directory": outcome.directory,
                    "ran": outcome.ran,
                    "skipped": outcome.skipped,
                    "total": outcome.total,
                    "notes": list(outcome.notes),
                }
            )
        )
        return 0
    print(
        f"{spec.name}: {outcome.ran} runs made, {outcome.skipped} already done, "
        f"{outcome.total} in all; rows in {outcome.directory}"
    )
    return 0


def plan(sweep: Sweep) -> dict[str, Any]:
    """The dry-run listing as data: the experiment, the machine, and per grid point its
    deployment, instances' CPUs, transport, grid values and repetitions already stored."""
    spec, done = sweep.spec, sweep.done_ids()
    runs = sweep.points()
    points = []
    for p in sweep.grid_points:
        reps = [dataclasses.replace(p, repetition=r).point_id for r in range(spec.repetitions)]
        points.append(
            {
                "index": p.index + 1,
                "grid_id": p.grid_id,
                "deployment": p.deployment.name,
                "instances": [list(c) for c in p.deployment.instances],
                "transport": p.transport,
                "params": dict(p.params),
                "repetitions_done": sum(1 for i in reps if i in done),
            }
        )
    return {
        "experiment": spec.name,
        "figure": spec.figure,
        "source": spec.source,
        "spec_hash": spec.spec_hash(),
        "directory": sweep.directory,
        "machine": sweep.topology.source,
        "repetitions": spec.repetitions,
        "runs": len(runs),
        "runs_done": sum(1 for p in runs if p.point_id in done),
        "estimate_s": sweep.estimate_s(sweep.left(done)),
        "notes": list(sweep.notes),
        "points": points,
    }
