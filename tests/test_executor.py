"""Sweeps through an executor: the local default and a Dask cluster of worker processes (one
``node`` resource each), with the same rows, and a killed worker whose point runs again."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from islands.executor import DaskExecutor, LocalExecutor, run_sweep
from islands.results import ResultStore
from islands.sweep import Sweep, load_spec
from islands.topology import read_topology

# distributed's HTTP routes leave a listening socket to the garbage collector when a second
# cluster starts in one process: its ResourceWarning is the library's, not islands'.
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning", "ignore::pytest.PytestUnraisableExceptionWarning")

distributed = pytest.importorskip("distributed", reason="the cluster extra (dask distributed) is not installed")

SPEC = """
name = "cluster"
figure = "none"

[run]
warmup_s = 0.0
duration_s = {duration}
repetitions = {repetitions}

[grid]
deployment = ["1"]
update = [false, true]

[micro]
rows_per_txn = 2
rows_per_site = 500
"""
#: What may differ between two runs of the same points: measurements, times, where it ran.
_VARYING = (
    "throughput",
    "commits",
    "multisite_commits",
    "aborts",
    "abort_rate",
    "latency",
    "workers",
    "instances",
    "checks",  # the consistency figures count what was committed
    "measured_s",
    "load_s",
    "run_s",
)


def sweep_of(tmp_path: Path, name: str, duration: float = 0.05, repetitions: int = 2) -> Sweep:
    path = tmp_path / f"{name}.toml"
    path.write_text(SPEC.format(duration=duration, repetitions=repetitions))
    return Sweep(load_spec(path), read_topology(), tmp_path / name)


@pytest.fixture(scope="module")
def client():
    """A local cluster: two worker processes, each one node, each a nanny that restarts it."""
    import dask
    from distributed import Client, LocalCluster

    with dask.config.set({"distributed.worker.daemon": False}):
        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, resources={"node": 1}, dashboard_address=":0"
        )
    with Client(cluster) as c:
        yield c
    cluster.close()


def _fixed_columns(rows):
    keep = [c for c in rows.columns if not c.startswith(("metadata.", "topology.", "executor.", "profile."))]
    keep = [c for c in keep if not c.split(".")[0].startswith(_VARYING) and c not in ("finished_utc", "warnings")]
    return rows[keep].sort_values("point_id").reset_index(drop=True)


def test_cluster_and_local_sweeps_store_the_same_rows(tmp_path, client):
    local = sweep_of(tmp_path, "local")
    run_sweep(local, LocalExecutor(), progress=False)
    remote = sweep_of(tmp_path, "remote")
    outcome = run_sweep(remote, DaskExecutor(client), progress=False)
    assert (outcome.ran, outcome.total) == (4, 4)
    a, b = ResultStore(local.directory).rows(), ResultStore(remote.directory).rows()
    assert len(a) == len(b) == 4
    fa, fb = _fixed_columns(a), _fixed_columns(b)
    assert list(fa.columns) == list(fb.columns)
    differ = [c for c in fa.columns if not fa[c].equals(fb[c])]
    assert not differ, differ
    # every row carries the node that ran it: its worker, topology and host metadata
    workers = set(client.scheduler_info()["workers"])
    assert set(b["executor.worker"]) <= workers
    assert (b["executor.pid"] != os.getpid()).all()
    assert b["metadata.hostname"].notna().all() and b["topology.cpus"].notna().all()
    # resuming through the cluster runs nothing more
    again = run_sweep(remote, DaskExecutor(client), progress=False)
    assert (again.ran, again.skipped) == (0, 4)


def test_a_cluster_without_node_workers_is_refused(tmp_path):
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster,
        Client(cluster) as c,
        pytest.raises(ValueError, match="no worker with the resource 'node'"),
    ):
        run_sweep(sweep_of(tmp_path, "none"), DaskExecutor(c), progress=False)


def test_a_killed_worker_s_point_runs_again(tmp_path, client):
    sweep = sweep_of(tmp_path, "killed", duration=1.0, repetitions=1)
    executor = DaskExecutor(client)
    pids = client.run(os.getpid)  # worker address -> its process id
    killed: dict[str, int] = {}

    def kill_a_busy_worker() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            busy = [w for w, tasks in client.processing().items() if tasks]
            if busy:
                time.sleep(0.3)  # into the run
                killed[busy[0]] = pids[busy[0]]
                os.kill(pids[busy[0]], signal.SIGKILL)
                return
            time.sleep(0.02)

    import threading

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    outcome = run_sweep(sweep, executor, progress=False)
    killer.join()
    assert killed, "no worker was seen running a point"
    assert (outcome.ran, outcome.total) == (2, 2)
    rows = ResultStore(sweep.directory).rows()
    assert len(rows) == 2 and rows["point_id"].is_unique
    assert not set(rows["executor.pid"]) & set(killed.values()), "a row came from the killed worker"
    assert (rows["throughput_tps"] > 0).all()


def test_sweep_command_on_a_cluster(cli, client, tmp_path):
    import json

    path = tmp_path / "cluster.toml"
    path.write_text(SPEC.format(duration=0.05, repetitions=1))
    address = client.scheduler.address
    out = cli("sweep", str(path), "--out", str(tmp_path / "out"), "--cluster", address, "--no-progress", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["ran"] == 2
    rows = ResultStore(tmp_path / "out").rows()
    assert set(rows["executor.worker"]) <= set(client.scheduler_info()["workers"])
