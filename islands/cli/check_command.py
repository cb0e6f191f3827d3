"""``islands check``: run a workload on a deployment and check its consistency conditions.

The deployment is started, loaded and run as ``islands run`` would (same options), and at the
end every instance reports its figures; the conditions are checked over the whole deployment
(the TPC-C clause 3.3.2 conditions the mix makes meaningful, per warehouse, district and
customer, and stock against the order lines; TPC-B balance sums and per-branch balances against
the history; TATP referential integrity, the microbenchmark's payload sums). Prints
each figure and condition; exit status 0 when all hold, 1 when one fails, 2 for bad input.
"""

from __future__ import annotations

import argparse

from islands.cli.json_output import dumps
from islands.cli.run_command import add_run_arguments, run_from_args


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``check`` subcommand."""
    p = subparsers.add_parser(
        "check", help="run a workload on a deployment and check its consistency", description=__doc__.splitlines()[0]
    )
    add_run_arguments(p, duration=1.0, warmup=0.2)
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Runs, prints the figures and the verdict; 1 when a condition failed."""
    result = run_from_args(args)
    if args.json:
        print(
            dumps(
                {
                    "config": result.config.to_dict(),
                    "checks": result.checks,
                    "check_failures": result.check_failures,
                    "commits": result.commits,
                    "user_rollbacks": result.user_rollbacks,
                }
            )
        )
    else:
        print(
            f"{result.config.workload}: {result.commits:,} commits, "
            f"{result.user_rollbacks:,} user rollbacks, {result.checks.get('committed_txns', 0):,} "
            f"committed in all phases"
        )
        for name, value in result.checks.items():
            print(f"  {name:32} {value:,}")
        if result.check_failures:
            for failure in result.check_failures:
                print(f"FAILED  {failure}")
        else:
            print("consistent: every condition holds")
    return 1 if result.check_failures else 0
