"""``islands calibrate``: measure the Islands model's parameters on this machine.

Short dedicated runs (local transactions by CC mode and size, a two-thread instance, logging,
distributed transactions over each transport, the transports' bare round trips, the standard
workloads' local transactions; see :mod:`islands.bench.calibration_runs`), a progress bar on
stderr, and the parameters written with the machine's metadata to ``--out`` (default
``results/model/parameters.json``; ``.toml`` writes TOML). ``--quick`` runs a short version
(one repetition, no standard workloads) for tests. Prints the parameters (``--json``: the
file's content).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from islands.cli.json_output import dumps
from islands.model.parameters import CALIBRATED_PARAMETERS


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``calibrate`` subcommand."""
    p = subparsers.add_parser(
        "calibrate",
        help="measure the Islands model's parameters on this machine",
        description=__doc__.splitlines()[0],
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        default=str(CALIBRATED_PARAMETERS),
        help="parameters file (.json or .toml; default: %(default)s)",
    )
    p.add_argument("--quick", action="store_true", help="short runs, one repetition, no standard workloads")
    p.add_argument(
        "--repetitions", type=int, default=None, metavar="N", help="repetitions of each run (default 3, quick 1)"
    )
    p.add_argument("--duration", type=float, default=None, metavar="S", help="measured seconds per run")
    p.add_argument("--sysfs", metavar="ROOT", default="/sys", help="sysfs tree of this machine (default: %(default)s)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--json", action="store_true", help="print the parameters as JSON")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Calibrates, writes the file and prints the parameters."""
    from islands.bench.calibration_runs import calibrate
    from islands.machine.topology import read_topology

    out = Path(args.out)
    if out.suffix not in (".json", ".toml"):
        raise ValueError(f"--out {out}: name the parameters file .json or .toml")
    if args.repetitions is not None and args.repetitions < 1:
        raise ValueError(f"--repetitions {args.repetitions}: needs at least 1")
    if args.duration is not None and not args.duration > 0:
        raise ValueError(f"--duration {args.duration}: needs a positive number of seconds")
    topology = read_topology(args.sysfs)
    parameters = calibrate(
        topology,
        quick=args.quick,
        repetitions=args.repetitions,
        duration_s=args.duration,
        progress="none" if args.quiet else None,
    )
    parameters.save(out)
    if args.json:
        print(dumps(parameters.to_dict()))
        return 0
    print(f"parameters of {parameters.machine.get('hostname', '?')} written to {out}")
    for key, value in sorted(parameters.costs.items()):
        spread = parameters.spread.get(key)
        print(f"  {key:42} {value:10.4g}" + (f"  ±{spread:.0%}" if spread else ""))
    for note in parameters.notes:
        print(f"note: {note}")
    return 0
