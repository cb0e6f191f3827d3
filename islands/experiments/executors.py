"""Where a sweep's runs happen: in this process (:class:`LocalExecutor`, the default) or on the
worker nodes of a Dask distributed cluster (:class:`DaskExecutor`).

Dask rather than Ray: islands needs a scheduler that hands whole runs to whole machines, not
a data-parallel runtime. Dask's worker *resources* say exactly that (each node's one worker
declares ``islands-node=1`` and every run asks for it, so a node runs one point at a time and
its cores are the run's alone); lost workers' tasks are rescheduled by the scheduler itself;
and ``distributed`` is a small pure-Python package, where Ray brings a large native runtime
with its own process model and object store.

A cluster for a sweep, one worker per machine::

    dask scheduler                                    # on any machine, prints its address
    dask worker tcp://HOST:8786 --nworkers 1 --nthreads 1 --resources islands-node=1
    python -m islands sweep experiments/X.toml --cluster tcp://HOST:8786

Every node needs islands installed (the same revision). A point is planned on the sweep's
topology (this machine's unless told otherwise) and runs only on a node whose topology has the
same topology; its row carries the node's topology and metadata. Rows land in the one results
directory of the machine that started the sweep.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from islands.experiments.point import Point, Runner
    from islands.machine.topology import Topology

__all__ = ["NODE_RESOURCE", "DaskExecutor", "Executor", "Finished", "LocalExecutor", "NodeInfo", "run_one"]

#: The Dask worker resource a node declares once and every run asks for: one run per node.
NODE_RESOURCE = "islands-node"


@dataclass(frozen=True)
class NodeInfo:
    """The machine a run ran on, when not this one: its worker address, topology and metadata."""

    address: str
    topology: dict[str, Any]
    metadata: dict[str, Any]


@dataclass(frozen=True)
class Finished:
    """One finished run: its point, what the runner returned, its seconds, the state of the
    machine that ran it around the run (:class:`~islands.measure.system_state.SystemProbe`), and its
    node (``None`` for this machine)."""

    point: Point
    result: dict[str, Any]
    run_s: float
    system: dict[str, Any]
    node: NodeInfo | None = None


class Executor(Protocol):
    """Runs points and yields each as it finishes (in any order). A failing run ends the
    iteration with :func:`run_one`'s error naming its point; closing the iterator early
    cancels what is left."""

    def run(self, points: Sequence[Point], runner: Runner) -> Iterator[Finished]:
        """Runs every point with ``runner``; yields each as it finishes."""
        ...


def run_one(point: Point, runner: Callable[[], Mapping[str, Any]]) -> tuple[dict[str, Any], float, dict[str, Any]]:
    """Runs one point's ``runner`` on this machine; returns its result, its seconds and the
    machine's state around it. A failure names the point: a ``ValueError`` (bad input) stays
    one, anything else becomes a ``RuntimeError``."""
    from islands.measure.system_state import SystemProbe

    probe = SystemProbe()
    probe.start()
    started = time.monotonic()
    try:
        result = dict(runner())
    except (KeyboardInterrupt, SystemExit):
        raise
    except ValueError as e:
        raise ValueError(f"point {point.describe()}: {e}") from e
    except Exception as e:
        raise RuntimeError(f"point {point.describe()} failed: {e}") from e
    run_s = time.monotonic() - started
    return result, run_s, probe.stop()


class LocalExecutor:
    """Runs the points one after another in this process, in the order given."""

    def run(self, points: Sequence[Point], runner: Runner) -> Iterator[Finished]:
        """Runs every point with ``runner`` here, in order."""
        for point in points:
            result, run_s, system = run_one(point, functools.partial(runner, point))
            yield Finished(point, result, run_s, system)


def _run_on_node(point: Point, runner: Runner | None, planned: dict[str, Any]) -> dict[str, Any]:
    """What a node runs: the point, on the node's own topology, refused where the node's
    machine has another shape than the one the sweep was planned on."""
    from distributed import get_worker

    from islands.experiments.point import run_point
    from islands.machine.topology import Topology, read_topology
    from islands.measure.host_metadata import collect_metadata

    topology = read_topology()
    expected = Topology.from_dict(planned)
    if topology != expected:
        raise ValueError(
            f"node {get_worker().address}: its topology ({topology.describe()}) differs from the one "
            f"the sweep was planned on ({expected.describe()})"
        )

    def make() -> Mapping[str, Any]:
        return runner(point) if runner is not None else run_point(point, topology)

    result, run_s, system = run_one(point, make)
    return {
        "result": result,
        "run_s": run_s,
        "system": system,
        "node": NodeInfo(get_worker().address, topology.to_dict(), collect_metadata()),
    }


class DaskExecutor:
    """Runs the points on a Dask distributed cluster, one run at a time per node (each node's
    worker declares the ``islands-node`` resource once). ``scheduler`` is the scheduler's
    address or a ``distributed.Client``. Points run on each node's own topology through
    :func:`islands.experiments.point.run_point` unless a (picklable) runner is given. A worker lost
    mid-run has its run rescheduled on another node by the scheduler (up to its
    ``allowed-failures``). ``connect_timeout_s``: how long to wait for the scheduler to answer;
    ``lost_nodes_grace_s``: how long the points may wait with no node left in the cluster before
    the sweep fails (a cluster whose every worker died would otherwise be waited on forever)."""

    def __init__(
        self,
        scheduler: Any,
        topology: Topology,
        *,
        use_runner: bool = False,
        connect_timeout_s: float = 10.0,
        lost_nodes_grace_s: float = 60.0,
    ) -> None:
        if not 0 < connect_timeout_s <= 3600:
            raise ValueError(f"--cluster-timeout: {connect_timeout_s!r} is not a number of seconds in (0, 3600]")
        try:
            from distributed import Client
        except ImportError as e:
            raise ValueError(f"sweeps across machines need Dask: pip install 'islands[cluster]' ({e})") from None
        if isinstance(scheduler, Client):
            self.client, self._owns_client = scheduler, False
        else:
            try:
                self.client, self._owns_client = Client(scheduler, timeout=f"{connect_timeout_s}s"), True
            except OSError as e:
                raise ValueError(f"--cluster {scheduler}: cannot reach the Dask scheduler ({e})") from None
        self.planned = topology.to_dict()
        self.use_runner = use_runner
        self.lost_nodes_grace_s = lost_nodes_grace_s
        if not self._nodes():
            self.close()
            raise ValueError(
                f"Dask cluster at {self.client.scheduler_info().get('address')}: no worker declares the resource "
                f"{NODE_RESOURCE} (start workers with --resources {NODE_RESOURCE}=1)"
            )

    def run(self, points: Sequence[Point], runner: Runner) -> Iterator[Finished]:
        """Submits every point (one task each, keyed by its point_id) and yields each as it
        finishes; the remaining tasks are cancelled if the iteration stops early."""
        from distributed import as_completed

        chosen = runner if self.use_runner else None
        futures = {
            self.client.submit(
                _run_on_node,
                point,
                chosen,
                self.planned,
                key=f"islands-run-{point.point_id}",
                resources={NODE_RESOURCE: 1},
                pure=False,
            ): point
            for point in points
        }
        pending = as_completed(futures)
        no_node_since: float | None = None
        try:
            while not pending.is_empty():
                batch = pending.next_batch(block=False)
                if not batch:
                    no_node_since = self._watch_nodes(no_node_since, pending.count())
                    time.sleep(0.5)
                    continue
                for future in batch:
                    point = futures[future]
                    try:
                        out = future.result()
                    except (ValueError, RuntimeError):
                        raise  # run_one's, naming the point
                    except Exception as e:  # the scheduler's: e.g. KilledWorker after too many lost workers
                        raise RuntimeError(f"point {point.describe()} failed on the cluster: {e!r}") from e
                    yield Finished(point, out["result"], out["run_s"], out["system"], out["node"])
        finally:
            self.client.cancel(list(futures))

    def _nodes(self) -> int:
        """The cluster's workers that declare the node resource, now."""
        workers = self.client.scheduler_info().get("workers", {})
        return sum(1 for w in workers.values() if w.get("resources", {}).get(NODE_RESOURCE))

    def _watch_nodes(self, no_node_since: float | None, waiting: int) -> float | None:
        """When the cluster has had no node for ``lost_nodes_grace_s`` (None: it has one now);
        ``RuntimeError`` naming the points left once it has been that long."""
        if self._nodes():
            return None
        now = time.monotonic()
        if no_node_since is None:
            return now
        if now - no_node_since > self.lost_nodes_grace_s:
            raise RuntimeError(
                f"the Dask cluster has had no worker declaring {NODE_RESOURCE} for {self.lost_nodes_grace_s:g} s: "
                f"{waiting} point(s) left unrun"
            )
        return no_node_since

    def close(self) -> None:
        """Closes the client if this executor opened it."""
        if self._owns_client:
            self.client.close()
