"""Sweeps through an executor: this process, or a Dask cluster of worker processes standing in
for machines (each declaring the one ``islands-node`` resource)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from islands.experiments.executors import NODE_RESOURCE, DaskExecutor, LocalExecutor
from islands.experiments.sweep import Point, Sweep, load_spec
from islands.machine.topology import read_topology
from tiny_spec import tiny

distributed = pytest.importorskip("distributed")

# One repetition: eight runs (two deployments x read/update x two shares), a deployment of two
# instances among them, for the comparison of cluster and local sweeps; the four runs of the
# shared instance alone (SMALL) are as many as the cluster's two workers need to share the work,
# lose a worker, name a failing point and serve the command line.
SPEC = tiny(repetitions=1, deployment='["1", "2"]', name="cluster")
RUNS = 8
SMALL = tiny(repetitions=1, name="cluster")
SMALL_RUNS = 4


def sweep_in(tmp_path: Path, out: str, spec: str = SPEC) -> Sweep:
    spec_file = tmp_path / "cluster.toml"
    spec_file.write_text(spec)
    return Sweep(load_spec(spec_file), read_topology(), tmp_path / out)


def node_cluster(n: int) -> Any:
    """``n`` worker processes declaring the node resource, one run at a time each."""
    return distributed.LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        resources={NODE_RESOURCE: 1},
        dashboard_address=":0",
        silence_logs=50,
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two worker processes, one run at a time each: a two-node cluster on this machine."""
    with node_cluster(2) as c, distributed.Client(c) as client:
        yield client


def test_cluster_and_local_sweeps_store_the_same_runs(tmp_path: Path, cluster: Any) -> None:
    local = sweep_in(tmp_path, "local")
    assert local.run(progress=False, executor=LocalExecutor()).ran == RUNS
    remote = sweep_in(tmp_path, "remote")
    outcome = remote.run(progress=False, executor=DaskExecutor(cluster, remote.topology))
    assert outcome.ran == RUNS
    a = local.store.rows().set_index("point_id").sort_index()
    b = remote.store.rows().set_index("point_id").sort_index()
    assert list(a.index) == list(b.index)  # every run once, the same ids
    assert set(a.columns) == set(b.columns)
    same = ["config_hash", "grid_id", "repetition", "transport", "experiment", "spec_hash"]
    assert a[same].equals(b[same])
    assert (b["commits"] > 0).all() and (b["check_failures"].astype(str) == "[]").all()
    # Each row carries the node it ran on: its worker address and its own metadata.
    workers = set(cluster.scheduler_info()["workers"])
    assert set(b["node"]) <= workers and len(set(b["node"])) >= 1
    assert set(a["node"]) == {"local"}
    assert b["metadata.hostname"].astype(bool).all() and b["topology.cpus"].astype(bool).all()
    assert remote.store.manifest()["status"] == "complete"


def test_a_killed_worker_has_its_run_made_again(tmp_path: Path, cluster: Any) -> None:
    """The first run that starts kills its own worker process; the scheduler gives the run to
    a (restarted or other) worker and the sweep ends with every run stored once."""
    marker = tmp_path / "killed-once"

    def runner(point: Point) -> dict[str, Any]:
        from islands.experiments.point import run_point

        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return run_point(point)
        os.close(fd)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")

    sweep = sweep_in(tmp_path, "killed", SMALL)
    outcome = sweep.run(runner, progress=False, executor=DaskExecutor(cluster, sweep.topology, use_runner=True))
    assert marker.exists()
    assert outcome.ran == SMALL_RUNS
    rows = sweep.store.rows()
    assert sorted(rows["point_id"]) == sorted(p.point_id for p in sweep.points())


def test_a_failing_run_names_its_point_on_the_cluster(tmp_path: Path, cluster: Any) -> None:
    def runner(point: Point) -> dict[str, Any]:
        raise ValueError("no such table")

    sweep = sweep_in(tmp_path, "failing", SMALL)
    with pytest.raises(ValueError, match=r"point .*: no such table"):
        sweep.run(runner, progress=False, executor=DaskExecutor(cluster, sweep.topology, use_runner=True))
    assert sweep.store.manifest()["status"] == "failed"


def test_a_cluster_without_node_workers_is_refused(tmp_path: Path) -> None:
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0", silence_logs=50) as c,
        distributed.Client(c) as client,
        pytest.raises(ValueError, match=f"no worker declares the resource {NODE_RESOURCE}"),
    ):
        DaskExecutor(client, read_topology())


def test_an_unreachable_scheduler_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="cannot reach the Dask scheduler"):
        DaskExecutor("tcp://127.0.0.1:9", read_topology(), connect_timeout_s=1)
    with pytest.raises(ValueError, match="--cluster-timeout: 0 is not a number of seconds"):
        DaskExecutor("tcp://127.0.0.1:9", read_topology(), connect_timeout_s=0)


def test_the_sweep_command_runs_on_a_scheduler(tmp_path: Path, cluster: Any, cli: Any) -> None:
    spec_file = tmp_path / "cluster.toml"
    spec_file.write_text(SMALL)
    address = cluster.scheduler_info()["address"]
    done = cli("sweep", str(spec_file), "--cluster", address, "--out", "res", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert f"{SMALL_RUNS} runs made" in done.stdout
    assert set(Sweep(load_spec(spec_file), read_topology(), tmp_path / "res").store.rows()["node"]) <= set(
        cluster.scheduler_info()["workers"]
    )
    unreachable = cli(
        "sweep", str(spec_file), "--cluster", "tcp://127.0.0.1:9", "--cluster-timeout", "1", "--out", "res2"
    )
    assert unreachable.returncode == 2
    assert unreachable.stderr.strip().count("\n") == 0 and "cannot reach the Dask scheduler" in unreachable.stderr
    assert not (tmp_path / "res2").exists()


def test_a_cluster_whose_every_node_is_gone_fails_instead_of_waiting(tmp_path: Path) -> None:
    """Every node worker leaves while a run is under way (as when the workers cannot load the
    points): the sweep fails, naming what is left, instead of waiting for a node forever."""
    with node_cluster(1) as c, distributed.Client(c) as client:

        def runner(point: Point) -> dict[str, Any]:
            import time

            time.sleep(60)  # never ends here: its node goes first
            raise AssertionError("unreachable")

        sweep = sweep_in(tmp_path, "gone", SMALL)
        executor = DaskExecutor(client, sweep.topology, use_runner=True, lost_nodes_grace_s=1.0)
        leave = threading.Timer(1.0, lambda: c.scale(0))
        leave.start()
        try:
            with pytest.raises(RuntimeError, match=r"no worker declaring .* point\(s\) left unrun"):
                sweep.run(runner, progress=False, executor=executor)
        finally:
            leave.cancel()
        assert sweep.store.manifest()["status"] == "failed"
