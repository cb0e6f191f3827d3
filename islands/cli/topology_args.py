"""The options every command that plans on a topology shares: ``--virtual-sockets N`` (the real
cores regrouped into N made-up sockets, islands.machine.virtual_topology), ``--virtual-distance`` and
``--virtual-delay-us``."""

from __future__ import annotations

import argparse
from pathlib import Path

from islands.machine.topology import Topology, read_topology
from islands.machine.virtual_topology import DEFAULT_REMOTE_DISTANCE, virtual_sockets


def add_topology_arguments(p: argparse.ArgumentParser) -> None:
    """Adds ``--virtual-sockets`` and ``--virtual-distance`` to a subcommand."""
    p.add_argument(
        "--virtual-sockets",
        type=int,
        default=None,
        metavar="N",
        help="plan on the machine's cores regrouped into N made-up sockets (each its own NUMA node); "
        "results and figures say the topology is virtual",
    )
    p.add_argument(
        "--virtual-distance",
        type=int,
        default=DEFAULT_REMOTE_DISTANCE,
        metavar="D",
        help=f"NUMA distance between virtual sockets (default {DEFAULT_REMOTE_DISTANCE}; 10 is local)",
    )
    p.add_argument(
        "--virtual-delay-us",
        type=float,
        default=0.0,
        metavar="US",
        help="inject this delay on every message between instances' workers on different virtual sockets "
        "(default 0: none)",
    )


def topology_from_args(args: argparse.Namespace, sysfs: str | Path | None = None) -> Topology:
    """The machine's topology (or the sysfs tree at ``sysfs``), made virtual when the options
    ask; a bad count is a ``TopologyError`` (a ``ValueError``) naming the flag."""
    topology = read_topology(sysfs) if sysfs is not None else read_topology()
    count = getattr(args, "virtual_sockets", None)  # absent: a caller that built its own Namespace
    distance = getattr(args, "virtual_distance", DEFAULT_REMOTE_DISTANCE)
    delay = getattr(args, "virtual_delay_us", 0.0)
    if count is None:
        if distance != DEFAULT_REMOTE_DISTANCE:
            raise ValueError("--virtual-distance: only with --virtual-sockets")
        if delay:
            raise ValueError("--virtual-delay-us: only with --virtual-sockets")
        return topology
    return virtual_sockets(topology, count, distance, delay)
