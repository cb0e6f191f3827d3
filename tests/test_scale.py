"""Deployments of the machines islands is for, run here: 24 to 192 instances planned on the fixtures'
servers (tests/fixtures/sysfs) and packed onto this machine's CPUs (islands.machine.oversubscription).

These are functional runs: what grows with the number of instances (2PC fan-out to every peer,
n x (n - 1) rings or sockets, the client boards, the history checker over every instance's history,
start-up and teardown) must be correct, and the rows must say the run was functional. 24 instances
in the default suite; 80 and 192 under slow (make test-slow). The kill-and-recover case at 24
instances is tests/test_log_faults.py's test_killed_instance_of_24_loses_nothing_acknowledged."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from islands.analysis.comparison import compare_dirs
from islands.analysis.history_check import check_history
from islands.analysis.store import ResultStore
from islands.config.settings import (
    DriverConfig,
    EngineConfig,
    MicroConfig,
    RunConfig,
    TatpConfig,
    TpcbConfig,
    TpccConfig,
)
from islands.execution.runner import execute, plan
from islands.machine.oversubscription import pack
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

SYSFS = Path(__file__).parent / "fixtures" / "sysfs"
#: The fixtures' per-core deployments: 24, 80 and 192 instances.
MACHINES = {24: "xeon-e7530-4x6", 80: "xeon-e7l8867-8x10", 192: "xeon-platinum-8160-8x24"}
HERE = read_topology()

pytestmark = pytest.mark.usefixtures("private_run_root")


def machine(n: int):
    return read_topology(SYSFS / MACHINES[n])


def run_packed(config: RunConfig, deployment: str, n: int = 24, transport: str | None = "shm", pin: bool = True):
    """``config`` on ``deployment`` planned on the fixture with ``n`` cores, packed onto this machine."""
    planned = plan(config, deployment, topology=machine(n), oversubscribe=True, transport=transport, pin=pin)
    return planned, execute(planned)


def micro(multisite: float, **engine) -> RunConfig:
    return RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=1000, rows_per_txn=4, update=True, multisite=multisite),
        engine=EngineConfig(cc="auto", lock_policy="auto", **engine),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.3, seed=7),
    )


def test_packing_spreads_every_instance_round_robin_over_the_cpus_here():
    for n, name in MACHINES.items():
        deployment = plan_deployment(machine(n), "per-core")
        assert deployment.n_instances == n
        packing = pack(deployment, (0, 1), pinned=True, planned_on=name)
        assert packing.instances == tuple((k % 2,) for k in range(n))
        assert packing.workers == n and packing.factor == n / 2
    islands4 = plan_deployment(machine(24), 4)  # 4 islands of 6 workers
    packed = pack(islands4, (0, 1, 2), pinned=False, planned_on="x")
    assert packed.instances == ((0, 1, 2, 0, 1, 2),) * 4
    with pytest.raises(ValueError, match="no cpus"):
        pack(islands4, (), pinned=True, planned_on="x")


def test_a_plan_on_another_machine_keeps_its_topology_and_runs_here():
    planned = plan(micro(0.2), "per-core", topology=machine(24), oversubscribe=True, transport="shm")
    assert planned.deployment.n_instances == 24 and planned.functional
    assert {s for span in planned.deployment.sockets for s in span} == {0, 1, 2, 3}  # the 4x6's sockets
    assert set(planned.config.driver.cpus) == set(machine(24).cpus) & set(planned.deployment.cpus)
    assert {c for cpus in planned.instance_cpus() for c in cpus} <= set(HERE.cpus)
    assert planned.config.engine.cc == "none" and planned.config.engine.lock_policy == "no_wait"
    assert "FUNCTIONAL RUN" in planned.describe()
    with pytest.raises(ValueError, match="binds no memory"):
        plan(micro(0.2), "per-core", topology=machine(24), oversubscribe=True, memory="central")


def test_24_instances_over_shm_2pc_with_every_peer_and_the_history_checked():
    """Per-core on the 4x6 at 100% multisite: every instance coordinates and takes part in 2PC;
    every instance's recorded history is checked as one."""
    planned, result = run_packed(micro(1.0, record_history=True), "per-core")
    assert result.functional and result.oversubscription["workers"] == 24
    assert result.check_failures == [], result.check_failures
    assert result.commits > 0 and result.multisite_commits == result.commits
    assert len(result.instances) == 24
    assert all(inst["commits"] > 0 for inst in result.instances), [i["commits"] for i in result.instances]
    assert result.history is not None and len(result.history) == 24
    report = check_history(result.history)
    assert report.violations == [], report.summary()
    assert result.launch["run_directory_bytes"] > 0 and all(f is not None for f in result.launch["fds"])
    row = result.to_dict()
    assert row["functional"] is True and row["oversubscription"]["planned_on"] == "xeon-e7530-4x6"
    assert row["deployment"]["n_instances"] == 24


#: Each workload's section for the 24-worker runs: small tables (loading 24 sites of the
#: specification's sizes took most of a run's time), the same transactions.
WORKLOADS_24 = {
    "tpcb": RunConfig(workload="tpcb", tpcb=TpcbConfig(remote=0.15, accounts_per_branch=1000)),
    "tpcc": RunConfig(workload="tpcc", tpcc=TpccConfig(mix="50-50", items=1000, customers_per_district=60)),
    "tatp": RunConfig(workload="tatp", tatp=TatpConfig(subscribers_per_site=1000)),
}


@pytest.mark.parametrize(
    "workload, deployment",
    [
        # 24 instances for one workload in the default suite; TPC-B and TPC-C there on 4ISL
        # (4 instances of 6 workers: 2PL inside, 2PC between), at 24 instances under slow.
        pytest.param("tatp", "per-core", id="tatp"),
        pytest.param("tpcb", 4, id="tpcb-4ISL"),
        pytest.param("tpcc", 4, id="tpcc-4ISL"),
        pytest.param("tpcb", "per-core", id="tpcb", marks=pytest.mark.slow),
        pytest.param("tpcc", "per-core", id="tpcc", marks=pytest.mark.slow),
    ],
)
def test_24_instances_run_every_workload_consistently_over_unix(workload, deployment):
    """Every workload on the 4x6's 24 cores, packed here: its consistency checks hold."""
    config = RunConfig(
        **{
            **WORKLOADS_24[workload].__dict__,
            "engine": EngineConfig(cc="auto", lock_policy="auto"),
            "driver": DriverConfig(duration_s=0.3),
        },
    )
    _, result = run_packed(config, deployment, transport="unix")
    assert result.check_failures == [], result.check_failures
    assert result.commits > 0 and result.functional
    assert len(result.instances) == (24 if deployment == "per-core" else 4)


def test_coarse_islands_of_several_workers_with_closed_clients():
    """4ISL on the 4x6 (4 instances of 6 workers, 2PL inside each, 2PC between them), routed
    closed-loop clients: the client account adds up."""
    config = micro(0.2)
    config = RunConfig(**{**config.__dict__, "driver": DriverConfig(warmup_s=0.05, duration_s=0.3, clients="closed")})
    planned, result = run_packed(config, 4)
    assert planned.config.engine.cc == "2pl" and len(planned.instance_cpus()[0]) == 6
    assert result.check_failures == [] and result.commits > 0
    assert result.clients and result.clients.get("live_conserved", True), result.clients


def test_open_loop_clients_over_24_instances_are_all_served():
    """Per-core on the 4x6 with open-loop clients (Poisson arrivals, 20% multisite): workers with
    no request sleep on their doorbell (oversubscribed) and still take every arrival."""
    config = micro(0.2)
    driver = DriverConfig(warmup_s=0.05, duration_s=0.3, clients="open", offered_rate=2000.0)
    _, result = run_packed(RunConfig(**{**config.__dict__, "driver": driver}), "per-core")
    assert result.check_failures == [] and result.commits > 0
    assert result.clients.get("live_conserved", True), result.clients


def test_plp_with_24_workers_repartitions_in_one_instance():
    """1ISL PLP on the 4x6: one instance of 24 workers (in this process, packed), re-partitioned
    while it runs."""
    config = RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=1000, rows_per_txn=4, update=True),
        engine=EngineConfig(cc="auto", lock_policy="auto", execution="plp", plp_reshuffle_s=0.05),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.3),
    )
    planned, result = run_packed(config, 1, transport=None, pin=False)
    assert planned.in_process and len(planned.config.driver.cpus) == 24
    assert result.functional and result.check_failures == [], result.check_failures
    assert len(result.workers) == 24 and result.commits > 0


def test_the_cli_runs_24_instances_and_says_it_was_functional(cli, tmp_path):
    out = cli(
        "run",
        "--sysfs",
        str(SYSFS / MACHINES[24]),
        "--oversubscribe",
        "--deployment",
        "per-core",
        "--transport",
        "shm",
        "--multisite",
        "0.2",
        "--duration",
        "0.3",
        "--warmup",
        "0.05",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)
    assert row["functional"] is True and row["deployment"]["n_instances"] == 24
    assert row["check_failures"] == [] and row["multisite_commits"] > 0


def test_sysfs_without_oversubscribe_and_the_other_way_round_are_refused(cli_here):
    out = cli_here("run", "--sysfs", str(SYSFS / MACHINES[24]), "--duration", "0.1")
    assert out.returncode == 2 and "add --oversubscribe" in out.stderr
    out = cli_here("run", "--oversubscribe", "--duration", "0.1")
    assert out.returncode == 2 and "--sysfs" in out.stderr


def test_an_explicit_deployment_needs_no_cores(cli_here):
    out = cli_here("run", "--deployment", "0;1", "--duration", "0.1", "--warmup", "0.02")
    assert out.returncode == 0, out.stderr
    assert "2ISL" in out.stdout


def test_compare_refuses_the_throughput_of_functional_runs(tmp_path):
    # 4ISL on the 4x6: its 24 workers packed here make a functional run as per-core's 24
    # instances do, in a fifth of the time.
    _, result = run_packed(micro(0.2), 4)
    assert result.functional
    for name in ("a", "b"):
        ResultStore(tmp_path / name).append([{**result.to_dict(), "grid_id": "p"}])
    with pytest.raises(ValueError, match="functional runs"):
        compare_dirs(tmp_path / "a", tmp_path / "b")
    assert compare_dirs(tmp_path / "a", tmp_path / "b", metric="commits").points


#: Unix at 192 instances: one instance now and then never reports its result after the window
#: (3 of 5 tries under pytest, 0 of 2 from a script or the command line); not understood yet.
UNIX_192 = pytest.mark.xfail(reason="unix at 192: an instance sometimes never reports its result (docs/scale.md)")


@pytest.mark.slow
@pytest.mark.parametrize(
    "n, transport",
    [(80, "shm"), (192, "shm"), (80, "unix"), pytest.param(192, "unix", marks=UNIX_192)],
)
def test_80_and_192_instances_per_core(n, transport, monkeypatch):
    import tempfile

    import islands.execution.launcher

    # Unix sockets' paths must stay under 108 bytes: a run root shorter than pytest's tmp_path,
    # on tmpfs as the launcher's own default (/dev/shm).
    root = tempfile.mkdtemp(prefix="isl-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    monkeypatch.setattr(islands.execution.launcher, "RUN_ROOT", root)
    try:
        planned, result = run_packed(micro(0.2, record_history=True), "per-core", n=n, transport=transport)
        assert result.check_failures == [] and len(result.instances) == n
        assert result.multisite_commits > 0
        report = check_history(result.history)
        assert report.violations == [], report.summary()
        assert os.listdir(root) == []
    finally:
        shutil.rmtree(root, ignore_errors=True)  # a failed run's directory too


def test_limits_are_refused_or_raised_before_an_instance_starts(monkeypatch):
    import collections
    import resource

    from islands.execution.launcher import check_scale_limits

    deployment = plan_deployment(machine(192), "per-core")
    real = resource.getrlimit

    def files(soft: int, hard: int):
        return lambda which: (soft, hard) if which == resource.RLIMIT_NOFILE else real(which)

    monkeypatch.setattr(resource, "getrlimit", files(100, 150))
    with pytest.raises(ValueError, match="hard limit of 150"):
        check_scale_limits(deployment, "unix")
    raised = []
    monkeypatch.setattr(resource, "getrlimit", files(100, 4096))
    monkeypatch.setattr(resource, "setrlimit", lambda which, limits: raised.append(limits))
    notes = check_scale_limits(deployment, "unix")
    assert raised == [(192 + 64, 4096)] and "from 100 to 256" in notes[0]
    usage = collections.namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(1 << 30, 0, 100 << 20))
    with pytest.raises(ValueError, match="shm rings need about 0.7 GiB"):
        check_scale_limits(deployment, "shm", "/dev/shm")
    with pytest.raises(ValueError, match="over the 107-byte limit"):
        check_scale_limits(deployment, "unix", "/tmp/" + "x" * 70)
    assert check_scale_limits(plan_deployment(machine(24), "per-core"), "shm", "/dev/shm") == []


def spec_text(run: str) -> str:
    return (
        'name = "functional"\nfigure = "000-fig11"\n'
        f"[run]\nwarmup_s = 0.05\nduration_s = 0.2\n{run}\n"
        '[grid]\ndeployment = ["per-core"]\ntransport = ["shm"]\nupdate = [true]\nmultisite = [0.2]\n'
        "[micro]\nrows_per_site = 1000\n"
    )


def test_an_experiment_file_plans_on_a_server_and_its_figure_compares_nothing(tmp_path):
    from islands.experiments.sweep import Sweep, load_spec
    from islands.plots import render_results

    path = tmp_path / "functional.toml"
    path.write_text(spec_text(f'sysfs = "{SYSFS / MACHINES[24]}"\noversubscribe = true'))
    sweep = Sweep(load_spec(path), None, tmp_path / "out")
    assert sweep.grid_points[0].deployment.n_instances == 24 and sweep.grid_points[0].packed
    sweep.run(progress=False)
    rows = ResultStore(tmp_path / "out").rows()
    assert bool(rows["functional"].all()) and (rows["deployment.n_instances"] == 24).all()
    summary = render_results(tmp_path / "out").summary
    assert summary.startswith("FUNCTIONAL RUNS: 1 runs planned on xeon-e7530-4x6")
    assert "not compared" in summary and "faster" not in summary


@pytest.mark.parametrize(
    "run, message",
    [
        (f'sysfs = "{SYSFS / MACHINES[24]}"', "add run.oversubscribe = true"),
        ("oversubscribe = true", "name it with run.sysfs"),
        (
            f'sysfs = "{SYSFS / MACHINES[24]}"\noversubscribe = true\nrepetitions = 2\nprecision = 0.05',
            "functional runs",
        ),
        ('sysfs = "no/such/tree"\noversubscribe = true', "no such sysfs tree"),
    ],
)
def test_an_experiment_files_oversubscription_is_checked(tmp_path, run, message):
    from islands.experiments.sweep import Sweep, load_spec

    path = tmp_path / "bad.toml"
    path.write_text(spec_text(run))
    with pytest.raises(ValueError, match=message):
        Sweep(load_spec(path), None, tmp_path / "out")
