"""``islands advise``: the best deployment of a workload on a machine, by the Islands model.

Predicts every ``NISL`` deployment of the machine (``--sysfs`` for another one: a fixture, a
copy of another machine's /sys) with the calibrated parameters (``--params``; default
``results/model/parameters.json`` when ``islands calibrate`` has written it, else the
package's reference parameters) and prints the best, the alternatives' predicted throughput
with intervals, and which cost dominates each. ``--workload`` is a spec such as
``micro-update:rows=10,multisite=0.2``, ``tpcb``, ``tpcc-payment:multisite=0`` (see
:mod:`islands.model.workload_spec`).
"""

from __future__ import annotations

import argparse

from islands.cli.json_output import dumps
from islands.model.parameters import CALIBRATED_PARAMETERS
from islands.model.predict import TRANSPORTS


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``advise`` subcommand."""
    from islands.model.machine_profile import PROFILES

    p = subparsers.add_parser(
        "advise",
        help="the best deployment of a workload on a machine, predicted by the Islands model",
        description=__doc__.splitlines()[0],
    )
    p.add_argument(
        "--workload",
        required=True,
        metavar="SPEC",
        help="kind[:key=value,...]: micro-read, micro-update, tpcb, tpcc-payment, tpcc-new_order; "
        "keys rows, multisite, zipf, rows_per_site (e.g. micro-update:rows=10,multisite=0.2)",
    )
    p.add_argument("--sysfs", metavar="ROOT", default="/sys", help="sysfs tree of the machine (default: %(default)s)")
    p.add_argument("--transport", default="unix", choices=TRANSPORTS, help="how instances talk (default: unix)")
    p.add_argument(
        "--profile",
        metavar="NAME",
        default=None,
        choices=("here", *PROFILES),
        help="hardware costs of the target (default: the papers' machine of the same shape, else this one)",
    )
    p.add_argument(
        "--params",
        metavar="FILE",
        default=None,
        help=f"parameters file (default: {CALIBRATED_PARAMETERS} where 'islands calibrate' wrote it, "
        "else the package's reference parameters)",
    )
    p.add_argument(
        "--simulate",
        action="store_true",
        help="also simulate every deployment (waiting, lock conflicts, skew) and rank by that",
    )
    p.add_argument("--json", action="store_true", help="print the advice as JSON")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Prints the advice."""
    from islands.machine.topology import read_topology
    from islands.model.advisor import advise
    from islands.model.parameters import chosen_parameters
    from islands.model.workload_spec import parse_workload

    workload = parse_workload(args.workload)
    parameters, source = chosen_parameters(args.params)
    topology = read_topology(args.sysfs)
    advice = advise(
        topology,
        workload,
        parameters,
        transport=args.transport,
        profile=args.profile,
        parameters_from=source,
        simulate=args.simulate,
    )
    print(dumps(advice.to_dict()) if args.json else advice.describe())
    return 0
