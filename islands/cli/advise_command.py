"""``islands advise``: the best deployment of a workload on a machine, by the Islands model.

Predicts every ``NISL`` deployment of the machine (``--sysfs`` for another one: a fixture, a
copy of another machine's /sys) with an engine on that machine's costs: ``--engine here`` (the
default) is this engine as calibrated (``--params``; default ``results/model/parameters.json``
when ``islands calibrate`` has written it, else the package's reference parameters),
``--engine paper`` Shore-MT as paper 000 ran it, derived from the papers' published numbers
(each value's source is printed). It prints the recommendation or why it is refused, the
alternatives' predicted throughput with intervals, which cost dominates each, what paper 000
concluded for the workload's class and the costs that explain where the engines differ.
``--workload`` is a spec such as ``micro-update:rows=10,multisite=0.2``, ``tpcb``,
``tpcc-payment:multisite=0`` (see :mod:`islands.model.workload_spec`); a skewed one
(``zipf=1.5``) is simulated, since the closed form does not apply.

``--map`` writes the deployment map of the workload instead (which deployment is predicted
fastest as the engine's local cost and the round trip vary over decades, today's engines
marked; ``deployment-map-<kind>-<transport>.png``/``.pdf``/``-summary.txt`` in ``--out``,
default ``results/model``). ``--claims`` prints paper 000's numbers beside the model's with
the engine on the papers' machines and writes the figure (``000-claims-model.png``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from islands.cli.json_output import dumps
from islands.model.parameters import CALIBRATED_PARAMETERS
from islands.model.predict import TRANSPORTS

#: Where --map and --claims write unless --out says otherwise.
DEFAULT_OUT = Path("results") / "model"


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Adds the ``advise`` subcommand."""
    from islands.model.engine_costs import ENGINES
    from islands.model.machine_profile import PROFILES

    p = subparsers.add_parser(
        "advise",
        help="the best deployment of a workload on a machine, predicted by the Islands model",
        description=__doc__.splitlines()[0],
    )
    p.add_argument(
        "--workload",
        metavar="SPEC",
        default=None,
        help="kind[:key=value,...]: micro-read, micro-update, tpcb, tpcc-payment, tpcc-new_order; "
        "keys rows, multisite, zipf, rows_per_site (e.g. micro-update:rows=10,multisite=0.2); "
        "required except with --claims",
    )
    p.add_argument("--sysfs", metavar="ROOT", default="/sys", help="sysfs tree of the machine (default: %(default)s)")
    p.add_argument("--transport", default="unix", choices=TRANSPORTS, help="how instances talk (default: unix)")
    p.add_argument(
        "--engine",
        default="here",
        choices=ENGINES,
        help="whose costs: here (this engine as calibrated) or paper (Shore-MT, from the papers' numbers) "
        "(default: here)",
    )
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
        "--points",
        metavar="FILE",
        default=None,
        help="points measured on this machine (JSON of benchmarks/model_validation.py --points): the model's error on "
        "those of the same workload decides whether --engine here recommends",
    )
    p.add_argument(
        "--simulate",
        action="store_true",
        help="also simulate every deployment (waiting, lock conflicts, routed clients) and rank by that",
    )
    p.add_argument("--map", action="store_true", help="write the deployment map of the workload (figure and summary)")
    p.add_argument(
        "--grid",
        metavar="N",
        type=int,
        default=13,
        help="with --map: points per axis, 0.1 us to 1 ms on both (default: %(default)s)",
    )
    p.add_argument(
        "--claims",
        action="store_true",
        help="paper 000's numbers (Figs 8, 11, 14, 17-24) beside the model's with the engine on the papers' machines",
    )
    p.add_argument(
        "--out", metavar="DIR", default=None, help=f"where --map and --claims write (default: {DEFAULT_OUT})"
    )
    p.add_argument("--json", action="store_true", help="print the advice as JSON")
    p.set_defaults(func=main)
    return p


def main(args: argparse.Namespace) -> int:
    """Prints the advice, the map's summary or the claims table."""
    from islands.machine.topology import read_topology
    from islands.model.parameters import chosen_parameters

    if args.map and args.claims:
        raise ValueError("--map and --claims: choose one")
    if args.out is not None and not (args.map or args.claims):
        raise ValueError("--out: only with --map or --claims")
    if args.grid < 2:
        raise ValueError(f"--grid {args.grid}: the map needs at least 2 points per axis")
    if args.claims:
        parameters, source = chosen_parameters(args.params)
        return _claims(args, parameters, source)
    if args.workload is None:
        raise ValueError("--workload: required (a spec such as micro-update:multisite=0.2; see --help)")
    from islands.model.workload_spec import parse_workload

    workload = parse_workload(args.workload)
    parameters, source = chosen_parameters(args.params)
    topology = read_topology(args.sysfs)
    if args.map:
        return _map(args, workload, topology, parameters, source)
    from islands.model.advisor import advise

    validation = None
    if args.points is not None:
        from islands.model.validation import errors_by_kind, load_points

        validation = errors_by_kind(load_points(args.points), read_topology("/sys"), parameters)
    advice = advise(
        topology,
        workload,
        parameters,
        transport=args.transport,
        profile=args.profile,
        parameters_from=source,
        simulate=args.simulate,
        engine=args.engine,
        validation=validation,
    )
    print(dumps(advice.to_dict()) if args.json else advice.describe())
    return 0


def _save(drawing: object, out: Path) -> list[Path]:
    from islands.plots import _check_writable

    _check_writable(out)
    stem = drawing.stem  # type: ignore[attr-defined]
    files = [out / f"{stem}.png", out / f"{stem}.pdf", out / f"{stem}-summary.txt"]
    try:
        drawing.figure.savefig(files[0], dpi=110)  # type: ignore[attr-defined]
        drawing.figure.savefig(files[1])  # type: ignore[attr-defined]
        files[2].write_text(drawing.summary)  # type: ignore[attr-defined]
    except OSError as e:
        raise ValueError(f"{out}: cannot write the figure ({e.strerror or e})") from None
    return files


def _map(args: argparse.Namespace, workload: object, topology: object, parameters: object, source: str) -> int:
    from islands.model.cost_composition import engine_on_machine
    from islands.model.deployment_map import deployment_map, marks_for
    from islands.model.engine_costs import engine_for
    from islands.model.machine_costs import here_machine
    from islands.model.machine_profile import profile_for
    from islands.plots.map_figure import plot_map

    _, engine, machine = engine_on_machine(args.engine, topology, parameters, args.profile, source)  # type: ignore[arg-type]
    engines = [engine_for(name, parameters, source) for name in ("here", "paper")]  # type: ignore[arg-type]
    machines = [machine]
    if machine.shape is not None:  # a paper machine: mark this machine's mechanisms too
        machines.append(here_machine(parameters, profile_for(topology, "here")))  # type: ignore[arg-type]
    import numpy as np

    axis = tuple(float(x) for x in np.logspace(-1, 3, args.grid))
    m = deployment_map(
        topology,  # type: ignore[arg-type]
        workload,  # type: ignore[arg-type]
        engine,
        machine,
        transport=args.transport,
        local_us=axis,
        round_trip_us=axis,
        marks=marks_for(workload, engines, machines, machine),  # type: ignore[arg-type]
    )
    drawing = plot_map(m)
    files = _save(drawing, Path(args.out) if args.out else DEFAULT_OUT)
    if args.json:
        print(dumps({**m.to_dict(), "files": [str(f) for f in files]}))
        return 0
    for f in files:
        print(f"deployment map: {f}")
    print()
    print(drawing.summary, end="")
    return 0


def _claims(args: argparse.Namespace, parameters: object, source: str) -> int:
    from islands.model.engine_costs import engine_for
    from islands.model.paper_claims import claims_table, paper_topologies
    from islands.plots.claims_figure import plot_claims

    if args.workload is not None or args.map:
        raise ValueError("--claims: takes no --workload (it computes paper 000's own workloads)")
    machines = paper_topologies()
    engine = engine_for(args.engine, parameters, source)  # type: ignore[arg-type]
    other = engine_for("here" if args.engine == "paper" else "paper", parameters, source)  # type: ignore[arg-type]
    tables = [claims_table(engine, machines), claims_table(other, machines)]
    drawing = plot_claims(tables)
    files = _save(drawing, Path(args.out) if args.out else DEFAULT_OUT)
    if args.json:
        print(dumps({**tables[0].to_dict(), "compared_with": tables[1].to_dict(), "files": [str(f) for f in files]}))
        return 0
    print("\n".join(tables[0].lines()))
    if args.engine == "paper":
        print()
        for key, value in sorted(engine.costs.items()):
            print(f"engine value {key} = {value:.4g} ({engine.sources.get(key, '')})")
    print()
    print(f"compared with {tables[1].note()}")
    for f in files:
        print(f"figure: {f}")
    return 0
