"""``islands system``: the machine's measurement state and what a user could change, as
``pyperf system show`` does: virtualization, isolated CPUs, governor, turbo, frequency, load,
steal time and other processes' CPU (sampled over ``--sample`` seconds), ASLR and the perf
counters' permission. ``--json`` prints the state and the suggestions
(:func:`islands.measure.system_state.machine_state`, :func:`~islands.measure.system_state.suggestions`).
"""

from __future__ import annotations

import argparse
from typing import Any

from islands.cli.json_output import dumps

__all__ = ["main", "register"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``system`` subcommand (``func=main``); returns the subparser."""
    parser = subparsers.add_parser(
        "system",
        help="show the machine's measurement state (governor, turbo, load, steal, isolation) and what to change",
        description="Show the machine's measurement state (virtualization, isolated CPUs, governor, turbo, "
        "frequency, load, steal time, other processes' CPU) and what could be changed for steadier numbers.",
    )
    parser.add_argument(
        "--sample",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="seconds over which steal time and other processes' CPU are sampled (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print the state and the suggestions as JSON")
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    """Print the state; exit status 0."""
    from islands.measure.system_state import describe_state, machine_state, suggestions

    if not args.sample >= 0:
        raise ValueError(f"--sample {args.sample}: must be 0 or more seconds")
    state = machine_state(args.sample)
    print(dumps({"state": state, "suggestions": suggestions(state)}) if args.json else describe_state(state))
    return 0
