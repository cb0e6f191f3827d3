"""``islands topology``: show the machine's sockets, cores, threads, caches and NUMA nodes.

Human-readable by default; ``--json`` prints :meth:`islands.machine.topology.Topology.to_dict`.
``--sysfs ROOT`` reads another sysfs tree (a fixture, or a copy taken from another machine).
Bad input raises :class:`islands.machine.topology.TopologyError` (a ``ValueError``), which the
dispatcher reports as ``islands: error: <message>``.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from islands.cli.json_output import dumps
from islands.cli.topology_args import add_topology_arguments, topology_from_args

__all__ = ["main", "register", "to_json"]


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``topology`` subcommand to an argparse ``subparsers`` object (the result of
    ``ArgumentParser.add_subparsers()``), with ``func=main``; returns the subparser."""
    parser = subparsers.add_parser(
        "topology",
        help="show sockets, cores, hardware threads, caches and NUMA nodes",
        description="Show the machine's sockets, cores, hardware threads, caches and NUMA nodes, read from sysfs.",
    )
    parser.add_argument(
        "--sysfs",
        metavar="ROOT",
        default="/sys",
        help="root of the sysfs tree to read (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print the topology as JSON (Topology.to_dict())")
    add_topology_arguments(parser)
    parser.set_defaults(func=main)
    return parser


def main(args: argparse.Namespace) -> int:
    """Print the topology read from ``args.sysfs``, as text or (``args.json``) as JSON, and
    return the exit status 0. Raises ``TopologyError`` if the tree cannot be read."""
    topology = topology_from_args(args, args.sysfs)
    print(to_json(topology.to_dict()) if args.json else topology.describe())
    return 0


def to_json(value: Any, indent: int = 2, width: int = 100) -> str:
    """JSON text for ``value``, indented, but with lists of scalars, and objects made only of
    scalars and such lists, kept on one line when that fits in ``width`` columns, so that a
    160-cpu machine stays short enough to read. Strict JSON: a missing number is ``null``."""
    return _dump(json.loads(dumps(value, indent=None)), indent, 0, width)


def _flat(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_flat(v) and not isinstance(v, dict) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(not isinstance(v, (dict, list, tuple)) for v in value)
    return True


def _dump(value: Any, indent: int, depth: int, width: int = 100) -> str:
    pad, inner = " " * (indent * depth), " " * (indent * (depth + 1))
    if isinstance(value, dict):
        if not value:
            return "{}"
        if _flat(value):
            line = json.dumps(value)
            if len(pad) + len(line) <= width:
                return line
        items = [f"{inner}{json.dumps(str(k))}: {_dump(v, indent, depth + 1, width)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            return json.dumps(list(value))
        items = [inner + _dump(v, indent, depth + 1, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(value)
