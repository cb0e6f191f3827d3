"""One point of a sweep (a deployment, its run config, a transport and a repetition) and the
one function that runs it: :func:`run_point`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from islands.experiments.spec_sections import DEPLOY_KEYS, SHOWN_DEPLOY_KEYS, stable_hash
from islands.machine.topology import format_cpulist

if TYPE_CHECKING:
    from islands.config.settings import RunConfig
    from islands.experiments.probes import Probe
    from islands.experiments.schedule import LiveRun
    from islands.machine.placement import Deployment
    from islands.machine.topology import Topology

__all__ = ["Point", "Runner", "default_runner", "run_point"]


@dataclass(frozen=True)
class Point:
    """One run of a sweep: a deployment, its run config, a transport and a repetition.

    ``config.driver.cpus`` lists every cpu of the deployment, instance by instance (site
    ``k`` on ``config.driver.cpus[k]``), ``config.driver.pin`` is ``deployment.pinned`` and
    ``config.engine.cc`` is the per-instance choice (``auto`` resolved by instance size).
    ``params`` holds the point's grid values (for tables); ``index`` its place in the grid;
    ``live`` how it runs beside the ATraPos controller, if it does.
    """

    deployment: Deployment
    config: RunConfig
    transport: str
    repetition: int
    params: tuple[tuple[str, Any], ...] = ()
    index: int = 0
    #: beside the ATraPos controller (a schedule or grid.adaptive; islands.experiments.schedule), else None
    live: LiveRun | None = None
    #: the experiment file's [probe] measured beside the run (islands.experiments.probes), else None
    probe: Probe | None = None
    #: [run] oversubscribe: the deployment was planned on another machine and runs packed onto this
    #: one's CPUs (a functional run: islands.machine.oversubscription)
    packed: bool = False

    @property
    def grid_id(self) -> str:
        """Stable hash of what the point measures; the same for all its repetitions."""
        dep = self.deployment
        live = {"live": self.live.to_dict()} if self.live is not None else {}  # other points keep their hashes
        probe = {"probe": self.probe.to_dict()} if self.probe is not None else {}
        return stable_hash(
            {
                **live,
                **probe,
                "config": self.config.to_dict(),
                "deployment": {
                    "label": dep.label,
                    "placement": dep.placement,
                    "pinned": dep.pinned,
                    "instances": [list(c) for c in dep.instances],
                },
                "transport": self.transport,
            }
        )

    @property
    def point_id(self) -> str:
        """Stable hash of the point and its repetition: the row's key for resuming."""
        return stable_hash({"grid_id": self.grid_id, "repetition": self.repetition})

    def describe(self) -> str:
        """One line for people: ``2ISL spread unix update=true multisite=0.2 rep 1``."""
        shown = " ".join(
            f"{k}={show_value(v)}" for k, v in self.params if k not in DEPLOY_KEYS or k in SHOWN_DEPLOY_KEYS
        )
        return f"{self.deployment.name} {self.transport} {shown} rep {self.repetition}".replace("  ", " ")


def show_value(value: Any) -> str:
    """A grid value as tables and point descriptions show it (``true``, ``0.2``, ``0-3;4-7``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ";".join(format_cpulist(c) for c in value)
    return str(value)


#: A runner runs one point and returns its result as a dict (for instance ``to_dict()`` of
#: a :class:`~islands.execution.in_process.RunResult`); its keys become the row's columns.
Runner = Callable[[Point], Mapping[str, Any]]


def default_runner(topology: Topology | None = None) -> Runner:
    """:func:`run_point` bound to a topology."""
    return lambda point: run_point(point, topology)


def run_point(point: Point, topology: Topology | None = None) -> dict[str, Any]:
    """The one runner: a point becomes a result row. A point with the ATraPos controller
    beside it (:meth:`LiveRun.run <islands.experiments.schedule.LiveRun.run>`) or a [probe]
    (:meth:`Probe.run <islands.experiments.probes.Probe.run>`) runs through that wrapper, which
    runs one instance here and adds its own numbers to the row; every other point runs through
    :func:`islands.execution.runner.run_config` (in this process, or as a deployment)."""
    if point.live is not None:
        return point.live.run(point.config, topology)
    if point.probe is not None:
        return point.probe.run(point.config, point.repetition, topology)
    from islands.execution.runner import run_config  # late: specs and points load without the engine

    return run_config(point.deployment, point.config, point.transport, topology, oversubscribe=point.packed)
