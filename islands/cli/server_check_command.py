"""``islands server-check``: topology against lscpu, the PMU's counters, and paper 000 Fig 11 at
1ISL, per-socket and per-core with intervals, into one results directory with a summary of what
worked and what was missing (islands.experiments.server_check). For a real server, in about 10
minutes; ``make server-check`` runs it into results/server-check."""

from __future__ import annotations

import argparse
from typing import Any

from islands.cli.json_output import dumps

__all__ = ["main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Adds the ``server-check`` subcommand."""
    p = subparsers.add_parser(
        "server-check",
        help="check a server in one go: topology, counters, Fig 11 with intervals",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("--out", default="results/server-check", help="results directory (default: %(default)s)")
    p.add_argument("--quick", action="store_true", help="the quick Fig 11 (short runs, fewer points)")
    p.add_argument("--no-runs", action="store_true", help="leave out the Fig 11 runs")
    p.add_argument("--sysfs", default=None, metavar="DIR", help="check a recorded machine's sysfs tree instead")
    p.add_argument("--lscpu", default=None, metavar="FILE", help="lscpu -p=CPU,CORE,SOCKET,NODE output to compare")
    p.add_argument("--pmu-sysfs", default=None, metavar="DIR", help="a recorded machine's sysfs root for its PMUs")
    p.add_argument("--cpuinfo", default=None, metavar="FILE", help="that machine's /proc/cpuinfo")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Runs the check; exit status 1 when a part failed (a missing capability is not a failure)."""
    from islands.experiments.server_check import run_server_check

    for flag in ("sysfs", "lscpu", "pmu_sysfs", "cpuinfo"):
        value = getattr(args, flag)
        if value is not None:
            from pathlib import Path

            if not Path(value).exists():
                raise ValueError(f"--{flag.replace('_', '-')} {value}: no such file or directory")
    check = run_server_check(
        args.out,
        sysfs=args.sysfs,
        lscpu=args.lscpu,
        pmu_sysfs=args.pmu_sysfs,
        cpuinfo=args.cpuinfo,
        runs=not args.no_runs,
        quick=args.quick,
    )
    if args.json:
        print(dumps(check.to_dict()))
    else:
        print(check.markdown())
        print(f"written: {args.out}/summary.md, {args.out}/summary.json")
    return 1 if any(part["status"] == "failed" for part in check.parts.values()) else 0
