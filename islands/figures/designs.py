"""Paper 002's baselines as whole designs, so that an experiment file can cross them with
anything else in one grid (``[grid] design = [...]``): each names its deployment and the
engine settings that make it, because PLP partitions one instance only and a grid crossing
execution with deployment would hold combinations that cannot run.

- ``shared-nothing``: one single-threaded instance per core (``cc`` left to ``auto``: none),
  each with its own (one-worker, so uncontended) system structures;
- ``coarse-sn``: one instance per socket (002 Fig 5's coarse shared-nothing), row-level 2PL;
- ``centralized``: one instance, every worker any row, row-level 2PL, the centralized system
  structures (today's 1ISL; Shore-MT's layout);
- ``plp``: one instance, physiological partitioning (each worker owns its partition), the
  centralized system structures (PLP as first published; the issue's "naive" PLP);
- ``plp-hw``: the same with the hardware-aware system structures, one part per socket
  (002 Sec IV).

002 Fig 6's placements, each PLP on the hardware-aware structures with every table routed
apart (``engine.plp_units = per_table``: a routing unit is one table's rows of one key range):

- ``naive``: every table's units of site i on worker i (two tables: two partitions per core,
  one worker runs both, a transaction on one key meets one owner);
- ``naive-oversaturated``: 002's naive as it ran there: one partition of each table per core,
  each on a worker thread of its own, so two workers share every core
  (``engine.plp_workers_per_cpu = 2``, pinned: each with its own site and client) and a
  transaction on one key meets both workers of its core;
- ``workload-aware``: one partition of one table per core, placed ignoring sockets (A's
  partitions on the first cores, B's on the next: a transaction meets two owners, often on
  two sockets);
- ``atrapos-static``: the same partitions placed as ATraPos's cost model places them, a
  partition of A and its dependent partition of B on one socket.

:func:`design_of` names the design a stored run's row was (for the plots).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["DESIGNS", "DESIGN_ENGINE_KEYS", "Design", "design_of"]


@dataclass(frozen=True)
class Design:
    """One baseline: its deployment (relative, as an experiment file writes one), the engine
    settings it fixes and its label in figures."""

    deployment: str
    engine: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""


_PER_TABLE = {"cc": "2pl", "execution": "plp", "system_structures": "per_socket", "plp_units": "per_table"}

#: design name -> the baseline (the order figures list them in).
DESIGNS: dict[str, Design] = {
    "shared-nothing": Design("per-core", {"system_structures": "centralized"}, "SN (per-core)"),
    "coarse-sn": Design(
        "per-socket", {"execution": "shared_everything", "system_structures": "centralized"}, "coarse SN (per-socket)"
    ),
    "centralized": Design(
        "1", {"cc": "2pl", "execution": "shared_everything", "system_structures": "centralized"}, "centralized SE"
    ),
    "plp": Design("1", {"cc": "2pl", "execution": "plp", "system_structures": "centralized"}, "PLP"),
    "plp-hw": Design("1", {"cc": "2pl", "execution": "plp", "system_structures": "per_socket"}, "PLP hardware-aware"),
    "naive": Design("1", {**_PER_TABLE, "plp_placement": "naive"}, "naive (per table)"),
    "naive-oversaturated": Design(
        "1", {**_PER_TABLE, "plp_placement": "naive", "plp_workers_per_cpu": 2}, "naive, 2 threads per core"
    ),
    "workload-aware": Design("1", {**_PER_TABLE, "plp_placement": "workload_aware"}, "workload-aware (per table)"),
    "atrapos-static": Design("1", {**_PER_TABLE, "plp_placement": "atrapos"}, "ATraPos static (per table)"),
}
#: Engine settings a design decides: a file that grids designs may not also set them.
DESIGN_ENGINE_KEYS = ("cc", "execution", "system_structures", "plp_units", "plp_placement", "plp_workers_per_cpu")
#: engine.plp_placement -> the per-table design that places so.
_PLACEMENT_DESIGN = {"naive": "naive", "workload_aware": "workload-aware", "atrapos": "atrapos-static"}


def design_of(instances: int, engine: Mapping[str, Any]) -> str:
    """The design a run was, from its number of instances and its engine settings (a stored
    row's ``deployment`` and ``config["engine"]``)."""
    if engine.get("execution") == "plp":
        if engine.get("plp_units") == "per_table":
            design = _PLACEMENT_DESIGN[str(engine.get("plp_placement", "naive"))]
            if design == "naive" and int(engine.get("plp_workers_per_cpu", 1)) > 1:
                return "naive-oversaturated"
            return design
        return "plp-hw" if engine.get("system_structures") == "per_socket" else "plp"
    if engine.get("cc") == "none":
        return "shared-nothing"
    return "centralized" if instances == 1 else "coarse-sn"
