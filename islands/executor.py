"""Where a sweep's points run: here, one after another (:class:`LocalExecutor`, the default), or
spread over the worker nodes of a Dask cluster (:class:`DaskExecutor`).

An executor turns a :class:`~islands.sweep.Sweep` into the runner its ``run`` calls point by
point (:data:`islands.sweep.Runner`), so the sweep keeps doing what it does either way: one
result store on this machine, rows appended in the grid's order as their runs end, resuming,
Ctrl-C. :func:`run_sweep` runs a sweep through an executor.

Why Dask (``distributed``) rather than Ray: it is a few pure-Python wheels on top of the numpy and
pandas stack islands already uses, where Ray brings a large binary runtime (raylet, object store,
its own head services); a node joins by running ``dask worker SCHEDULER --resources node=1``
with islands installed; and it has what a measurement sweep needs: *worker resources* (each
worker declares one ``node`` and every point asks for one, so a node runs one point at a time
and its cores belong to that point alone), and rescheduling of the tasks of a worker that is lost
(a point that was running there runs again on another node; its partial run leaves nothing).

Each point's row carries the topology and host metadata of the node that ran it (the run
collects them where it runs) and ``executor.worker``/``executor.pid``: which worker it was. The
sweep plans its deployments on this machine's topology, so the worker nodes should be alike
(a point whose CPUs a node lacks fails with the reason, as it would here).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from islands.sweep import Point, Runner, Sweep, SweepOutcome

__all__ = ["NODE_RESOURCE", "DaskExecutor", "Executor", "LocalExecutor", "run_sweep"]

#: The worker resource a node declares once (``--resources node=1``) and every point asks for.
NODE_RESOURCE = "node"


class Executor(Protocol):
    """Runs a sweep's points: :meth:`runner` gives the sweep the function that runs one point
    (returning its result dict); :meth:`close` stops what is still running (after Ctrl-C)."""

    def runner(self, sweep: Sweep) -> Runner:
        """The function that runs one point of ``sweep`` and returns its result."""
        ...

    def close(self) -> None:
        """Cancels any work still outstanding."""
        ...


class LocalExecutor:
    """Every point on this machine, one after another (what ``Sweep.run`` does by default)."""

    def runner(self, sweep: Sweep) -> Runner:
        """:func:`islands.sweep.default_runner` on the sweep's topology."""
        from islands.sweep import default_runner

        return default_runner(sweep.topology)

    def close(self) -> None:
        """Nothing runs in the background."""


def run_on_node(point: Point) -> dict[str, Any]:
    """Runs one point on the node this is called on (a Dask task); its result, with the
    node's topology and metadata (collected by the run) and which worker ran it."""
    from islands.dispatch import run_point

    result = dict(run_point(point, None))
    worker = ""
    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):
        pass
    result["executor"] = {"worker": worker, "pid": os.getpid(), "host": socket.gethostname()}
    return result


class DaskExecutor:
    """The points on the workers of a Dask cluster, each alone on its node.

    ``client`` is a ``distributed.Client`` (connected to a scheduler, or to a
    ``LocalCluster``). Every worker must declare the resource :data:`NODE_RESOURCE` once
    (``dask worker ADDRESS --resources node=1``; ``LocalCluster(resources={"node": 1})``),
    or no point can start. All the sweep's remaining points are submitted at its first run,
    so every node is busy at once; the sweep then stores their rows in its own order.
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self._futures: dict[str, Any] = {}

    def _submit(self, point: Point) -> Any:
        return self.client.submit(
            run_on_node, point, resources={NODE_RESOURCE: 1}, key=f"islands-point-{point.point_id}", pure=False
        )

    def runner(self, sweep: Sweep) -> Runner:
        """Submits the sweep's points not yet stored (at the first call, after the sweep has
        prepared its directory), then waits for each in turn."""
        if not self._nodes():
            raise ValueError(
                f"the Dask cluster has no worker with the resource {NODE_RESOURCE!r} "
                f"(start workers with --resources {NODE_RESOURCE}=1)"
            )

        def run(point: Point) -> Mapping[str, Any]:
            if not self._futures:
                done = sweep.done_ids()
                for p in sweep.points():
                    if p.point_id not in done:
                        self._futures[p.point_id] = self._submit(p)
            future = self._futures.pop(point.point_id, None) or self._submit(point)
            return dict(future.result())

        return run

    def _nodes(self) -> list[str]:
        workers = self.client.scheduler_info().get("workers", {})
        return [a for a, w in workers.items() if w.get("resources", {}).get(NODE_RESOURCE, 0) >= 1]

    def close(self) -> None:
        """Cancels the points still queued or running."""
        if self._futures:
            self.client.cancel(list(self._futures.values()))
            self._futures.clear()


def run_sweep(sweep: Sweep, executor: Executor | None = None, **kwargs: Any) -> SweepOutcome:
    """``sweep.run(**kwargs)`` with its points run by ``executor`` (default
    :class:`LocalExecutor`); whatever is still outstanding when it stops (Ctrl-C, a failed
    point) is cancelled."""
    executor = executor or LocalExecutor()
    try:
        return sweep.run(executor.runner(sweep), **kwargs)
    finally:
        executor.close()
