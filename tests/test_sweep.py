"""Tests for islands.experiments.sweep and `islands sweep`: experiment files, grid expansion, relative
deployments on the topology fixtures, dry runs, real tiny sweeps on this machine, resuming,
refusing a directory made from another spec, interrupts and bad input."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from islands.__main__ import main as cli_main
from islands.analysis.store import ResultStore
from islands.experiments.sweep import ExperimentSpec, Point, Sweep, load_spec, run_point
from islands.machine.placement import Deployment, plan_deployment
from islands.machine.topology import read_topology
from tiny_spec import TINY

ROOT = Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments"
SYSFS = ROOT / "tests" / "fixtures" / "sysfs"
FIXTURES = sorted(p.name for p in SYSFS.iterdir() if p.is_dir())


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def tiny_sweep(tmp_path: Path, text: str = TINY, out: str = "out") -> Sweep:
    spec = load_spec(write(tmp_path, text))
    return Sweep(spec, read_topology(), tmp_path / out)


class FakeRunner:
    """Counts calls; optionally raises on the n-th call."""

    def __init__(self, fail_on: int | None = None, error: BaseException | None = None) -> None:
        self.calls: list[Point] = []
        self.fail_on = fail_on
        self.error = error or KeyboardInterrupt()

    def __call__(self, point: Point) -> dict[str, Any]:
        self.calls.append(point)
        if self.fail_on is not None and len(self.calls) == self.fail_on:
            raise self.error
        return {"throughput_tps": 1000.0 + len(self.calls), "commits": 10}


# Experiment files and grids ---------------------------------------------------------------


def test_shipped_experiment_files_load() -> None:
    files = sorted(EXPERIMENTS.glob("*.toml"))
    assert {"smoke.toml", "000-fig11-multisite.toml"} <= {f.name for f in files}
    for f in files:
        spec = load_spec(f)
        assert spec.name and spec.figure
    fig11 = load_spec(EXPERIMENTS / "000-fig11-multisite.toml")
    grid = dict(fig11.grid)
    assert fig11.figure == "000-fig11"
    assert grid["multisite"] == (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
    assert grid["update"] == (False, True)
    assert grid["deployment"] == ("1", "per-socket", "per-core")
    assert grid["transport"] == ("unix",)
    assert fig11.fixed("micro")["rows_per_txn"] == 10
    assert grid["rows_per_site"] == (10_000, 100_000)  # cache-resident top row, memory-resident bottom
    assert fig11.log == {"mode": "group_commit"}


def test_an_experiment_file_can_log_commands(tmp_path: Path) -> None:
    """``[log] content = "command"`` parses (the workload and engine each point runs decide
    whether it can, where each point's settings are checked) and reaches the runs' settings."""
    path = tmp_path / "exp.toml"
    path.write_text(
        "name = 'x'\nfigure = 'none'\nworkload = 'tpcc'\n[log]\nmode = 'group_commit'\ncontent = 'command'\n"
    )
    spec = load_spec(path)
    assert spec.log == {"mode": "group_commit", "content": "command"}
    assert spec.base_config().log.content == "command"


def test_logged_experiments_log_updates_and_leave_reads_unlogged() -> None:
    fig11 = load_spec(EXPERIMENTS / "000-fig11-multisite.toml")
    read = fig11.run_config({"update": False, "multisite": 0.2}, cpus=(0,), sizes=(1,))
    update = fig11.run_config({"update": True, "multisite": 0.2}, cpus=(0,), sizes=(1,))
    assert read.log.mode == "off" and read.log.is_default()
    assert update.log.mode == "group_commit" and update.log.directory
    for name in ("000-fig14-multisite-shm", "000-fig17-18-txn-size", "000-fig20-skew", "default"):
        assert load_spec(EXPERIMENTS / f"{name}.toml").log.get("mode") == "group_commit", name
    for name in ("000-fig22-standard", "000-fig23-tpcb-remote", "000-fig22-tpcc", "000-fig24-tpcc-payment-remote"):
        spec = load_spec(EXPERIMENTS / f"{name}.toml")
        assert spec.base_config().log.mode == "group_commit", name  # every transaction there writes


@pytest.mark.parametrize("fixture", FIXTURES)
def test_fig11_grid_on_every_fixture(fixture: str) -> None:
    topo = read_topology(SYSFS / fixture)
    sweep = Sweep(load_spec(EXPERIMENTS / "000-fig11-multisite.toml"), topo, "unused")
    n_deployments = 2 if topo.n_sockets == 1 else 3
    assert len(sweep.grid_points) == n_deployments * 2 * 6 * 2
    assert len(sweep.points()) == len(sweep.grid_points) * 3
    labels = []
    for p in sweep.grid_points:
        if p.deployment.label not in labels:
            labels.append(p.deployment.label)
    if topo.n_sockets == 1:
        assert labels == ["1ISL", f"{topo.n_cores}ISL"]
        assert any("per-socket is 1ISL" in n for n in sweep.notes)
    else:
        assert labels[0] == "1ISL" and labels[-1] == f"{topo.n_cores}ISL"
        assert len(labels) == 3
        per_socket = next(
            p.deployment
            for p in sweep.grid_points
            if p.deployment.name != labels[0] and p.deployment.n_instances == topo.n_sockets
        )
        assert per_socket.sockets == tuple((s.id,) for s in topo.sockets)
    for p in sweep.grid_points:
        assert p.config.driver.cpus == p.deployment.cpus
        # single-threaded instances run without locks, the others with 2PL
        size = len(p.deployment.instances[0])
        assert p.config.engine.cc == ("none" if size == 1 else "2pl")
        assert p.config.micro.rows_per_site in (10_000, 100_000)
        assert p.config.log.mode == ("group_commit" if p.config.micro.update else "off")


def test_grid_order_repetitions_and_ids(tmp_path: Path) -> None:
    sweep = tiny_sweep(tmp_path)
    grid = [(p.config.micro.update, p.config.micro.multisite) for p in sweep.grid_points]
    assert grid == [(False, 0.0), (False, 0.5), (True, 0.0), (True, 0.5)]  # last key fastest
    points = sweep.points()
    assert [p.repetition for p in points] == [0] * 4 + [1] * 4  # the grid once, then again backwards
    assert len({p.point_id for p in points}) == 8
    assert [p.grid_id for p in points[4:]] == [p.grid_id for p in points[3::-1]]
    assert points[0].grid_id == points[7].grid_id and points[0].point_id != points[7].point_id
    again = tiny_sweep(tmp_path, out="other")
    assert [p.point_id for p in again.points()] == [p.point_id for p in points]  # stable


def test_ranges_placements_transports_and_engine_keys(tmp_path: Path) -> None:
    text = """
name = "g"
figure = "000-fig14"
[grid]
deployment = ["all"]
placement = ["islands", "spread"]
transport = ["unix", "shm"]
multisite = { from = 0, to = 1, step = 0.25 }
index = ["hash", "btree"]
[engine]
lock_policy = "no_wait"
"""
    spec = load_spec(write(tmp_path, text))
    assert dict(spec.grid)["multisite"] == (0.0, 0.25, 0.5, 0.75, 1.0)
    topo = read_topology(SYSFS / "xeon-e5-2640v2-2x8")
    sweep = Sweep(spec, topo, tmp_path / "out")
    assert len(sweep.grid_points) == 5 * 2 * 2 * 5 * 2  # 1,2,4,8,16ISL x placements x ...
    spread = [p for p in sweep.grid_points if p.deployment.placement == "spread"]
    assert {p.deployment.max_sockets_spanned() for p in spread} == {1, 2}  # 16ISL has 1 core each
    assert {p.config.engine.index for p in sweep.grid_points} == {"hash", "btree"}
    # on one socket, spread is the islands partition: still run under both names, with a note
    vm = Sweep(spec, read_topology(SYSFS / "vm-1x2"), tmp_path / "out")
    assert len(vm.grid_points) == 2 * 2 * 2 * 5 * 2
    assert any("spread is the islands placement" in n for n in vm.notes)


def test_cores_sweeps_scale_and_skips_what_the_machine_lacks(tmp_path: Path) -> None:
    text = TINY.replace('deployment = ["1"]', 'deployment = ["1", "per-core"]\ncores = [1, 4, 8, 32, "all"]')
    spec = load_spec(write(tmp_path, text))
    assert dict(spec.grid)["cores"] == (1, 4, 8, 32, "all")
    topo = read_topology(SYSFS / "xeon-e5-2640v2-2x8")  # 16 cores, 8 per socket
    sweep = Sweep(spec, topo, tmp_path / "out")
    assert "cores=32 skipped: the run has fewer cpus" in sweep.notes
    shapes = sorted({(p.deployment.n_instances, p.deployment.n_cpus) for p in sweep.grid_points})
    # one client is one single-threaded instance, listed once; "all" is the 16 cores
    assert shapes == [(1, 1), (1, 4), (1, 8), (1, 16), (4, 4), (8, 8), (16, 16)]
    # the first N cores, socket by socket: 8 cores fill the first socket
    eight = next(p for p in sweep.grid_points if p.deployment.n_cpus == 8 and p.deployment.n_instances == 1)
    assert {topo.socket_of(c) for c in eight.deployment.cpus} == {0}
    assert all(dict(p.params)["cores"] in (1, 4, 8, "all") for p in sweep.grid_points)
    assert "cores=8" in eight.describe()
    with pytest.raises(ValueError, match=r"grid.cores: no value fits"):
        Sweep(load_spec(write(tmp_path, TINY.replace('deployment = ["1"]', "cores = [64]"), "big.toml")), topo, "x")
    with pytest.raises(ValueError, match=r"grid.cores: 0 is not a number of cores"):
        load_spec(write(tmp_path, TINY.replace('deployment = ["1"]', "cores = [0]"), "zero.toml"))


def test_wait_die_spans_instances_only_without_a_transport(tmp_path: Path) -> None:
    """Instances that never talk (transport none) may wait for locks; over a transport the
    refusal comes when the sweep is planned, before anything runs."""
    base = TINY.replace('deployment = ["1"]', 'deployment = ["per-core"]') + '\n[engine]\ncc = "2pl"\n'
    base += 'lock_policy = "wait_die"\n'
    topo = read_topology(SYSFS / "vm-1x2")
    local = load_spec(write(tmp_path, base.replace("[grid]", '[grid]\ntransport = ["none"]'), "local.toml"))
    assert {p.transport for p in Sweep(local, topo, tmp_path / "a").grid_points} == {"none"}
    remote = load_spec(write(tmp_path, base, "remote.toml"))
    with pytest.raises(ValueError, match=r"point 2ISL unix .*lock_policy: wait_die cannot span instances"):
        Sweep(remote, topo, tmp_path / "b")
    # and such a deployment runs, each instance on its own
    from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
    from islands.execution.launcher import run_deployment

    here = read_topology()
    config = RunConfig(
        micro=MicroConfig(rows_per_site=500, update=True),
        engine=EngineConfig(cc="2pl", lock_policy="wait_die"),
        driver=DriverConfig(warmup_s=0.0, duration_s=0.1),
    )
    result = run_deployment(plan_deployment(here, "per-core"), config, transport="none", topology=here)
    assert result.commits > 0 and not result.check_failures


def test_spec_hash_ignores_description_and_repetitions(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, TINY))
    more = spec.with_overrides(repetitions=5)
    assert more.spec_hash() == spec.spec_hash()
    assert spec.with_overrides(duration_s=1.0).spec_hash() != spec.spec_hash()
    described = load_spec(
        write(tmp_path, TINY.replace('figure = "none"', 'figure = "none"\ndescription = "x"'), "d.toml")
    )
    assert described.spec_hash() == spec.spec_hash()
    assert ExperimentSpec.from_dict(spec.to_dict()).spec_hash() == spec.spec_hash()
    spelled = TINY.replace("rows_per_site = 500", "rows_per_site = 500\ncolumns = 10\n[engine]\ncc = 'auto'")
    assert load_spec(write(tmp_path, spelled, "s.toml")).spec_hash() == spec.spec_hash()  # defaults
    assert (
        load_spec(write(tmp_path, TINY.replace("rows_per_site = 500", "rows_per_site = 501"), "c.toml")).spec_hash()
        != spec.spec_hash()
    )


def test_deployment_that_does_not_fit_is_refused_before_writing(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, TINY.replace('deployment = ["1"]', 'deployment = ["1", "5ISL"]')))
    topo = read_topology(SYSFS / "xeon-e7530-4x6")
    with pytest.raises(
        ValueError,
        match=r"exp.toml:\d+: grid.deployment: deployment 5ISL does not fit 24 cores: "
        r"choose one of 1ISL, 2ISL, 3ISL, 4ISL, 6ISL, 8ISL, 12ISL, 24ISL",
    ):
        Sweep(spec, topo, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_cc_none_on_a_shared_instance_is_refused(tmp_path: Path) -> None:
    text = TINY + '\n[engine]\ncc = "none"\n'
    spec = load_spec(write(tmp_path, text))
    topo = read_topology(SYSFS / "vm-1x2")
    with pytest.raises(
        ValueError, match=r"exp.toml: point 1ISL unix update=false multisite=0: engine.cc: 'none' is a single-threaded"
    ):
        Sweep(spec, topo, tmp_path / "out")


# Dry run --------------------------------------------------------------------------------


def test_dry_run_lists_points_without_running(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "results"
    rc = cli_main(
        [
            "sweep",
            str(EXPERIMENTS / "000-fig11-multisite.toml"),
            "--dry-run",
            "--sysfs",
            str(SYSFS / "xeon-e7530-4x6"),
            "--out",
            str(out),
        ]
    )
    text = capsys.readouterr().out
    assert rc == 0
    assert not out.exists()
    lines = text.splitlines()
    assert "72 points x 3 repetitions = 216 runs; 0 done, 216 to run" in text
    assert "machine: 4 sockets, 24 cores, 48 hardware threads" in text
    header = next(line for line in lines if line.startswith("#"))
    assert header.split() == [
        "#",
        "deployment",
        "instances",
        "sockets",
        "transport",
        "update",
        "multisite",
        "rows_per_site",
        "done",
        "grid_id",
    ]
    rows = lines[lines.index(header) + 1 :]
    assert len(rows) == 72
    assert rows[0].split()[:5] == ["1", "1ISL", "1x24", "4", "unix"]
    assert any(r.split()[1:4] == ["4ISL", "4x6", "1"] for r in rows)
    assert rows[-1].split()[1:4] == ["24ISL", "24x1", "1"]


def test_dry_run_shows_what_is_done(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sweep = tiny_sweep(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        sweep.run(FakeRunner(fail_on=3), progress=False)
    capsys.readouterr()
    rc = cli_main(["sweep", str(tmp_path / "exp.toml"), "--dry-run", "--out", str(tmp_path / "out")])
    text = capsys.readouterr().out
    assert rc == 0
    assert "2 done, 6 to run" in text
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("#"))
    done = [line.split()[-2] for line in lines[lines.index(header) + 1 :]]
    assert done == ["1/2", "1/2", "0/2", "0/2"]


# Real runs -------------------------------------------------------------------------------


def test_smoke_sweep_writes_rows_with_config_and_metadata(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "smoke"
    rc = cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(out), "--no-progress"])
    assert rc == 0
    assert "2 runs made, 0 already done, 2 in all" in capsys.readouterr().out
    store = ResultStore(out)
    rows = store.rows()
    assert len(rows) == 2
    for column in (
        "point_id",
        "grid_id",
        "repetition",
        "config_hash",
        "config.micro.update",
        "config.micro.multisite",
        "config.driver.cpus",
        "config.engine.cc",
        "deployment.label",
        "deployment.instances",
        "deployment.sockets",
        "deployment.roles",
        "topology.sockets",
        "metadata.git_revision",
        "metadata.hostname",
        "throughput_tps",
        "spec_hash",
        "experiment",
        "figure",
    ):
        assert column in rows.columns, column
    assert sorted(rows["config.micro.update"]) == [False, True]
    assert set(rows["deployment.label"]) == {"1ISL"}
    assert (rows["throughput_tps"] > 0).all()
    assert rows["point_id"].is_unique
    topo = read_topology()
    assert json.loads(rows["config.driver.cpus"][0]) == [c.cpus[0] for c in topo.cores]
    manifest = store.manifest()
    assert manifest["status"] == "complete"
    assert manifest["runs_done"] == manifest["runs_total"] == 2
    assert manifest["spec_hash"] == load_spec(EXPERIMENTS / "smoke.toml").spec_hash()
    assert manifest["spec"]["name"] == "smoke"
    # run again: nothing to do
    assert cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(out), "--no-progress"]) == 0
    assert "0 runs made, 2 already done" in capsys.readouterr().out
    assert len(store.rows()) == 2


def test_run_point_runs_one_instance_through_islands_run(tmp_path: Path) -> None:
    topo = read_topology()
    sweep = tiny_sweep(tmp_path, TINY.replace("repetitions = 2", "repetitions = 1"))
    point = sweep.grid_points[-1]  # update, 50% multisite
    result = run_point(point, topo)
    assert result["config"] == point.config.to_dict()
    assert result["commits"] > 0
    assert result["checks"]["committed_row_updates"] > 0


def test_real_multi_instance_sweep(tmp_path: Path) -> None:
    pytest.importorskip(
        "islands.execution.launcher", reason="multi-instance deployments need islands.execution.launcher"
    )
    if read_topology().n_cores < 2:
        pytest.skip("needs two cores for two instances")
    text = TINY.replace('deployment = ["1"]', 'deployment = ["per-core"]\ntransport = ["unix", "shm"]')
    text = text.replace("repetitions = 2", "repetitions = 1").replace("update = [false, true]", "update = [true]")
    text = text.replace("multisite = [0.0, 0.5]", "multisite = [0.5]")
    sweep = tiny_sweep(tmp_path, text)
    assert sweep.run(progress=False).ran == 2
    rows = sweep.store.rows()
    assert list(rows["transport"]) == ["unix", "shm"]
    assert (rows["deployment.n_instances"] == read_topology().n_cores).all()
    assert (rows["config.engine.cc"] == "none").all()
    assert (rows["commits"] > 0).all()


def test_sweep_with_a_log_runs_each_point_in_a_fresh_log_directory(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    text = TINY.replace("repetitions = 2", "repetitions = 1").replace("update = [false, true]", "update = [true]")
    text += f'\n[log]\nmode = "group_commit"\ndirectory = "{logs}"\ncheckpoint = false\n'
    sweep = tiny_sweep(tmp_path, text)
    assert sweep.spec.to_dict()["log"] == {"mode": "group_commit", "directory": str(logs), "checkpoint": False}
    assert (
        sweep.run(progress=False).ran == 2
    )  # one instance too: through islands.execution.launcher, the runner with a log
    rows = sweep.store.rows()
    assert (rows["config.log.mode"] == "group_commit").all() and (rows["config.log.directory"] == str(logs)).all()
    assert (rows["commits"] > 0).all()
    assert rows["config_hash"].nunique() == 2  # one per point, whatever directory each run logged into
    assert list(logs.iterdir()) == []  # every run's log directory removed after it
    assert "log" not in load_spec(write(tmp_path, TINY, "plain.toml")).to_dict()  # other specs keep their hashes


def test_progress_bar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    outcome = tiny_sweep(tmp_path).run(FakeRunner(), progress=True)
    assert outcome.ran == 8
    err = capsys.readouterr().err
    assert "sweep" in err and "8/8" in err


def test_a_multi_instance_point_runs_as_a_deployment(monkeypatch: pytest.MonkeyPatch) -> None:
    topo = read_topology(SYSFS / "vm-1x2")
    spec = ExperimentSpec.from_dict(
        {"name": "m", "figure": "none", "grid": {"deployment": ["per-core"]}, "run": {"duration_s": 0.05}}
    )
    point = Sweep(spec, topo, "unused").grid_points[0]
    assert point.deployment.n_instances == 2
    seen: list[tuple[Deployment, Any, str]] = []

    class Result:
        def to_dict(self) -> dict[str, Any]:
            return {"throughput_tps": 5.0}

    def run_deployment(deployment: Deployment, config: Any, transport: str, topology: Any, **kwargs: Any) -> Result:
        seen.append((deployment, config, transport))
        assert topology is topo and kwargs.get("packing") is None
        return Result()

    monkeypatch.setattr("islands.execution.launcher.run_deployment", run_deployment)
    assert run_point(point, topo) == {"throughput_tps": 5.0}
    assert seen == [(point.deployment, point.config, "unix")]


# Resume, refusal, interrupts --------------------------------------------------------------


def test_resume_skips_finished_points(tmp_path: Path) -> None:
    sweep = tiny_sweep(tmp_path)
    first = FakeRunner(fail_on=4)
    with pytest.raises(KeyboardInterrupt):
        sweep.run(first, progress=False)
    assert len(first.calls) == 4
    assert len(sweep.store.rows()) == 3  # the interrupted run wrote nothing
    assert sweep.store.manifest()["status"] == "interrupted"
    assert sweep.store.manifest()["runs_done"] == 3

    second = FakeRunner()
    outcome = tiny_sweep(tmp_path).run(second, progress=False)
    assert (outcome.ran, outcome.skipped, outcome.total) == (5, 3, 8)
    assert len(second.calls) == 5
    assert second.calls[0].point_id == first.calls[3].point_id  # picks up where it stopped
    rows = sweep.store.rows()
    assert len(rows) == 8 and rows["point_id"].is_unique
    assert set(rows["point_id"]) == {p.point_id for p in sweep.points()}
    assert sweep.store.manifest()["status"] == "complete"

    # more repetitions later: only the new runs
    more = Sweep(sweep.spec.with_overrides(repetitions=3), sweep.topology, sweep.directory)
    third = FakeRunner()
    assert more.run(third, progress=False).ran == 4
    assert {p.repetition for p in third.calls} == {2}
    assert len(sweep.store.rows()) == 12


def test_refuses_a_directory_from_a_different_spec(tmp_path: Path) -> None:
    tiny_sweep(tmp_path).run(FakeRunner(), progress=False)
    changed = tiny_sweep(tmp_path, TINY.replace("multisite = [0.0, 0.5]", "multisite = [0.0, 0.7]"))
    runner = FakeRunner()
    with pytest.raises(ValueError, match="holds results of a different spec .*--fresh.*--force"):
        changed.run(runner, progress=False)
    assert runner.calls == []
    assert len(changed.store.rows()) == 8
    # --force adds the new points, keeps the old rows, skips the points both specs share
    assert changed.run(runner, progress=False, force=True).ran == 4
    assert len(changed.store.rows()) == 12
    assert changed.store.manifest()["history"][-1]["forced"] is True
    # --fresh starts over
    fresh = FakeRunner()
    assert changed.run(fresh, progress=False, fresh=True).ran == 8
    assert len(changed.store.rows()) == 8


def test_refuses_a_directory_from_another_machine(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, TINY))
    Sweep(spec, read_topology(SYSFS / "xeon-e5-2640v2-2x8"), tmp_path / "out").run(FakeRunner(), progress=False)
    other = Sweep(spec, read_topology(SYSFS / "vm-1x2"), tmp_path / "out")
    with pytest.raises(ValueError, match="different machine topology"):
        other.run(FakeRunner(), progress=False)


@pytest.mark.usefixtures("sigint_handled")
def test_a_ctrl_c_while_a_row_is_written_is_not_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pyarrow's conversion of a row reaches pandas' __getattr__ through C's PyObject_HasAttr, which
    discards any exception: a KeyboardInterrupt raised there was lost and the sweep ran on to its
    end. The sweep holds the signal back until the row is written, then stops."""
    written = ResultStore.append

    def append(store: ResultStore, rows: Any) -> Any:
        # The handler runs here, as it would inside pyarrow's conversion, which swallows what it
        # raised.
        with contextlib.suppress(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        return written(store, rows)

    monkeypatch.setattr(ResultStore, "append", append)
    sweep = tiny_sweep(tmp_path)
    runner = FakeRunner()
    with pytest.raises(KeyboardInterrupt):
        sweep.run(runner, progress=False)
    assert len(runner.calls) == 1 and len(sweep.store.rows()) == 1
    assert sweep.store.manifest()["status"] == "interrupted"
    assert sweep.store.manifest()["runs_done"] == 1


def test_failing_run_is_reported_with_its_point(tmp_path: Path) -> None:
    sweep = tiny_sweep(tmp_path)
    with pytest.raises(RuntimeError, match=r"point 1ISL unix update=false multisite=0.5 rep 0 failed: boom"):
        sweep.run(FakeRunner(fail_on=2, error=OSError("boom")), progress=False)
    manifest = sweep.store.manifest()
    assert manifest["status"] == "failed" and "boom" in manifest["error"]
    assert len(sweep.store.rows()) == 1


def test_ctrl_c_in_the_cli_exits_130_and_keeps_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    runner = FakeRunner(fail_on=3)
    monkeypatch.setattr("islands.experiments.point.run_point", lambda point, topology=None: runner(point))
    path = write(tmp_path, TINY)
    rc = cli_main(["sweep", str(path), "--out", str(tmp_path / "out"), "--no-progress"])
    assert rc == 130
    err = capsys.readouterr().err
    assert "sweep interrupted: 2 of 8 runs stored" in err
    assert len(ResultStore(tmp_path / "out").rows()) == 2


@pytest.mark.usefixtures("sigint_handled")
def test_sigint_to_a_real_sweep(tmp_path: Path) -> None:
    text = TINY.replace("repetitions = 2", "repetitions = 10").replace("duration_s = 0.05", "duration_s = 0.1")
    path = write(tmp_path, text)
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "islands", "sweep", str(path), "--out", str(out), "--no-progress"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not ResultStore(out).has_rows():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "no row was written within 60 s"
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "islands: interrupted" in err
    store = ResultStore(out)
    stored = len(store.rows())
    assert 1 <= stored < 40
    assert store.manifest()["status"] == "interrupted"
    assert store.manifest()["runs_done"] == stored


# Bad input --------------------------------------------------------------------------------


BAD = [
    ("name = 'x'\nfigure = \n", r"exp.toml: not valid TOML: .*line 2"),
    ("figure = 'none'\n", r"exp.toml: name: missing"),
    ("name = 'a b'\nfigure = 'none'\n", r"exp.toml:1: name: 'a b': use letters"),
    ("name = 'x'\nfigure = 'fig 11'\n", r"exp.toml:2: figure: 'fig 11' is not a figure id \(docs/figures.md\)"),
    ("name = 'x'\nfigure = 'none'\ncolour = 1\n", r"exp.toml:3: colour: unknown key"),
    (
        "name = 'x'\nfigure = 'none'\n[grid]\nmultisit = [0.1]\n",
        r"exp.toml:4: grid.multisit: unknown key; did you mean 'multisite'\?",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[grid]\nmultisite = [0.1, 1.5]\n",
        r"exp.toml:4: grid.multisite: 1.5: must be between 0 and 1, got 1.5",
    ),
    ("name = 'x'\nfigure = 'none'\n[grid]\nupdate = ['yes']\n", r"exp.toml:4: grid.update: 'yes' is not true or false"),
    (
        "name = 'x'\nfigure = 'none'\n[grid]\ntransport = ['pigeon']\n",
        r"exp.toml:4: grid.transport: unknown transport 'pigeon' \(choose unix, shm",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[grid]\nplacement = ['packed']\n",
        r"exp.toml:4: grid.placement: 'packed': choose one of islands, spread, os",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[grid]\ndeployment = ['7ISL']\n",
        r"exp.toml:4: grid.deployment: deployment 7ISL does not fit \d+ cores: choose one of 1ISL",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[grid]\ndeployment = [true]\n",
        r"exp.toml:4: grid.deployment: True is not a deployment",
    ),
    ("name = 'x'\nfigure = 'none'\n[grid]\nmultisite = []\n", r"exp.toml:4: grid.multisite: the list is empty"),
    ("name = 'x'\nfigure = 'none'\n[grid]\nmultisite = [0.1, 0.1]\n", r"exp.toml:4: grid.multisite: lists 0.1 twice"),
    (
        "name = 'x'\nfigure = 'none'\n[grid]\nmultisite = { from = 1, to = 0, step = 0.1 }\n",
        r"exp.toml:4: grid.multisite: a range needs step > 0",
    ),
    ("name = 'x'\nfigure = 'none'\n[run]\nduration_s = 0\n", r"exp.toml:4: run.duration_s: 0 must be > 0"),
    ("name = 'x'\nfigure = 'none'\n[run]\nrepetitions = 0\n", r"exp.toml:4: run.repetitions: 0 is not a whole number"),
    (
        "name = 'x'\nfigure = 'none'\n[run]\nduration = 1\n",
        r"exp.toml:4: run.duration: unknown key; did you mean 'duration_s'\?",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[micro]\nrows_per_site = 0\n",
        r"exp.toml:4: micro.rows_per_site: must be at least 1, got 0",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[micro]\nrows_per_site = -3\n",
        r"exp.toml:4: micro.rows_per_site: -3 is not a whole number",
    ),
    ("name = 'x'\nfigure = 'none'\n[engine]\nindex = 'trie'\n", r"exp.toml:4: engine.index: "),
    (
        "name = 'x'\nfigure = 'none'\n[micro]\nmultisite = 0.1\n[grid]\nmultisite = [0.2]\n",
        r"exp.toml:4: micro.multisite: set in both \[grid\] and \[micro\]",
    ),
    ("name = 'x'\nfigure = 'none'\nworkload = 'tpcz'\n", r"exp.toml:3: workload: unknown workload 'tpcz'"),
    ("name = 'x'\nfigure = 'none'\n[run]\ncpus = '0-3,x'\n", r"exp.toml:4: run.cpus: bad cpu list item 'x'"),
    ("name = 'x'\nfigure = 'none'\n[log]\nmode = 'off'\n", r"exp.toml:4: log.mode: give mode = \"async\""),
    ("name = 'x'\nfigure = 'none'\n[log]\nmode = 'sometimes'\n", r"exp.toml:4: log.mode: unknown value 'sometimes'"),
    (
        "name = 'x'\nfigure = 'none'\n[log]\nmode = 'async'\ncontent = 'words'\n",
        r"exp.toml:5: log.content: unknown value 'words'",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[log]\nmode = 'async'\nrecord_acks = true\n",
        r"exp.toml:5: log.record_acks: unknown key",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[log]\nmode = 'async'\ndirectory = '/no/such/dir'\n",
        r"exp.toml:5: log.directory: '/no/such/dir' is not a directory",
    ),
    (
        "name = 'x'\nfigure = 'none'\n[log]\nmode = 'async'\nmax_pending = 'many'\n",
        r"exp.toml:5: log.max_pending: 'many' is not a whole number",
    ),
]


@pytest.mark.parametrize("text, message", BAD)
def test_bad_experiment_file_is_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = write(tmp_path, text)
    out = tmp_path / "out"
    rc = cli_main(["sweep", str(path), "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and err.startswith("islands: error: "), err
    import re

    assert re.search(message, err), err
    assert not out.exists()


def test_other_bad_input_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        (["sweep", str(tmp_path / "missing.toml")], "missing.toml: cannot read the experiment file"),
        (["sweep", str(EXPERIMENTS / "smoke.toml"), "--duration", "0"], "--duration: 0.0 must be"),
        (["sweep", str(EXPERIMENTS / "smoke.toml"), "--repetitions", "0"], "--repetitions: 0 must be"),
        (["sweep", str(EXPERIMENTS / "smoke.toml"), "--sysfs", str(SYSFS / "vm-1x2")], "--sysfs: only with --dry-run"),
    ]
    blocker = tmp_path / "file"
    blocker.write_text("")
    cases.append(
        (
            ["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(blocker / "sub"), "--no-progress"],
            "results directory",
        )
    )
    cases.append(
        (
            ["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(blocker), "--no-progress"],
            "exists and is not a directory",
        )
    )
    for argv, message in cases:
        assert cli_main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "results").exists()


def test_read_only_results_directory(read_only_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(read_only_dir / "x"), "--no-progress"])
    assert rc == 2
    assert "not writable" in capsys.readouterr().err
    assert not (read_only_dir / "x").exists()


def test_explicit_and_placement_deployments_in_a_grid(tmp_path: Path) -> None:
    text = """
name = "e"
figure = "none"
[grid]
deployment = ["0-7;8-15", "per-socket"]
placement = ["islands", "os"]
[engine]
lock_policy = "no_wait"
"""
    topo = read_topology(SYSFS / "xeon-e5-2640v2-2x8")
    sweep = Sweep(load_spec(write(tmp_path, text)), topo, tmp_path / "out")
    names = [p.deployment.name for p in sweep.grid_points]
    # the explicit deployment ignores the placement axis (listed once); per-socket coincides
    # with it under islands and differs under os (not pinned)
    assert names == ["2ISL explicit", "2ISL os"]
    assert any("2ISL explicit unix is listed more than once" in n for n in sweep.notes)
    assert [p.config.driver.pin for p in sweep.grid_points][-1] is False
    assert plan_deployment(topo, "per-socket").instances == sweep.grid_points[0].deployment.instances


def test_profile_names_a_cache_model(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, TINY + '\n[profile]\nsimulate = 100\ncache_model = "xeon-e7l8867"\n'))
    assert spec.base_config().profile.cache_model == "xeon-e7l8867"
    with pytest.raises(ValueError, match="profile.cache_model: 'pentium' is not a cache model"):
        load_spec(write(tmp_path, TINY + '\n[profile]\ncache_model = "pentium"\n', "bad.toml"))


def test_an_int_setting_takes_the_negative_values_the_engine_allows_and_no_lower(tmp_path: Path) -> None:
    """engine.interleave's -1 (auto, its default) is a value a file may write; -2 is refused with
    the file's line, before anything runs."""
    spec = load_spec(write(tmp_path, TINY + "\n[engine]\ninterleave = -1\n"))
    assert {p.config.engine.interleave for p in Sweep(spec, read_topology(), tmp_path / "out").points()} == {-1}
    with pytest.raises(ValueError, match=r"bad\.toml:\d+: engine\.interleave: -2 is not a whole number >= -1"):
        load_spec(write(tmp_path, TINY + "\n[engine]\ninterleave = -2\n", "bad.toml"))
