"""Issue 33's hardening: bad input and faults end in one line naming what is wrong (and a
non-zero exit), never a traceback, a hang or a silent wrong result, and leave nothing behind.

Memory admission for every workload, ranges of the values experiment files and the command
line accept, files guarded the same way everywhere (results, gallery and log directories;
recovery's logs), faults named precisely (a stopped instance, a scribbled ring), and the run
directories of killed launchers cleaned up."""

from __future__ import annotations

import dataclasses
import os
import re
import resource
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import islands
from islands import _core
from islands.__main__ import main as cli_main
from islands.config.settings import DriverConfig, EngineConfig, LogConfig, MicroConfig, RunConfig
from islands.execution import launcher
from islands.execution.launcher import InstanceFailed, run_deployment
from islands.execution.memory_admission import check_load_fits, load_bytes
from islands.machine.placement import plan_deployment

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


def one_line_error(capsys: pytest.CaptureFixture[str], *words: str) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("islands: "), err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err
    return err


def spec(tmp_path: Path, body: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text('name = "x"\nfigure = "000-fig11"\n' + body)
    return path


# Memory admission ------------------------------------------------------------------------


def test_a_micro_load_larger_than_memory_is_refused_before_allocating(capsys):
    rc = cli_main(["run", "--rows-per-site", "4000000000", "--cores", str(CPUS[0]), "--duration", "0.01"])
    assert rc == 2
    one_line_error(capsys, "rows-per-site", "GiB", "available")


@pytest.mark.parametrize(
    "workload, section",
    [
        ("micro", MicroConfig(rows_per_site=10**9)),
        ("tpcb", islands.TpcbConfig(accounts_per_branch=10**8, branches_per_site=1000)),
        ("tatp", islands.TatpConfig(subscribers_per_site=2**32)),
    ],
)
def test_every_workload_has_a_load_estimate_and_is_refused_when_it_cannot_fit(workload, section):
    config = RunConfig(workload=workload, driver=DriverConfig(cpus=(0,)), **{workload: section})
    need = load_bytes(config, 1)
    assert need > 10 * 2**30
    with pytest.raises(_core.ConfigError) as caught:
        check_load_fits(config, 1, available=need - 1)
    assert caught.value.field.startswith(workload + ".")
    check_load_fits(config, 1, available=need)  # fits exactly: admitted
    small = RunConfig(workload=workload, driver=DriverConfig(cpus=(0,)))
    assert 0 < load_bytes(small, 1) < 2**30


def test_the_load_estimate_covers_what_the_engine_allocates():
    """A micro load of 400k rows on one site: its estimate is at least what the process grew."""
    code = (
        "import resource, islands\n"
        "cfg = islands.RunConfig(micro=islands.MicroConfig(rows_per_site=400000), driver=islands.DriverConfig("
        f"cpus=({CPUS[0]},), duration_s=0.01, warmup_s=0))\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "islands.run(cfg)\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)\n"
    )
    grew = int(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    cfg = RunConfig(micro=MicroConfig(rows_per_site=400000), driver=DriverConfig(cpus=(CPUS[0],)))
    assert load_bytes(cfg, 1) >= grew


def test_a_sweep_checks_the_memory_of_every_point_at_dry_run(tmp_path, capsys):
    path = spec(
        tmp_path,
        '[run]\nduration_s = 0.1\n[grid]\ndeployment = ["1"]\nrows_per_site = [1000, 4000000000]\n',
    )
    assert cli_main(["sweep", str(path), "--dry-run"]) == 2
    one_line_error(capsys, str(path), "rows_per_site", "GiB")


def test_an_address_space_limit_is_judged_too_and_never_a_traceback(tmp_path):
    """Under RLIMIT_AS (where allocation would end in MemoryError) the load is refused first."""

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "islands", "run", "--rows-per-site", "40000000", "--cores", str(CPUS[0])],
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "rows-per-site" in done.stderr, done.stderr


def test_an_allocation_failure_anywhere_is_one_line(monkeypatch, capsys):
    import islands.cli.run_command as run_command

    def fail(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(run_command, "execute", fail)  # the run path's one entry (islands.execution.runner)
    rc = cli_main(["run", "--cores", str(CPUS[0]), "--duration", "0.01", "--warmup", "0"])
    assert rc == 1
    one_line_error(capsys, "out of memory")


# Experiment files and ranges -------------------------------------------------------------


@pytest.mark.parametrize(
    "content, message",
    [
        (b"a = " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested too deeply"),
        (b"x = " + b"{a = " * 3000 + b"1" + b"}" * 3000 + b"\n", "nested too deeply"),
        (bytes(range(256)) * 4, "not UTF-8"),
        (b"name = 'x'\n" + b"# padding\n" * 200_000, "larger than"),
    ],
)
def test_deep_binary_or_huge_experiment_files_name_the_file(tmp_path, capsys, content, message):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    assert cli_main(["sweep", str(path), "--dry-run"]) == 2
    one_line_error(capsys, str(path), message)


def test_a_fifo_in_place_of_an_experiment_file_is_refused_not_waited_on(tmp_path, capsys):
    fifo = tmp_path / "exp.toml"
    os.mkfifo(fifo)
    assert cli_main(["sweep", str(fifo), "--dry-run"]) == 2
    one_line_error(capsys, str(fifo), "not a regular file")


@pytest.mark.parametrize(
    "body, message",
    [
        ("[run]\nrepetitions = 1000000000\n", "run.repetitions"),
        ("[run]\nduration_s = 1e300\n", "run.duration_s"),
        ("[run]\nwarmup_s = 1e12\n", "run.warmup_s"),
        ("[run]\nseed = 18446744073709551616\n", "run.seed"),
        ("[run]\nvirtual_sockets = 1000000000\n", "run.virtual_sockets"),
        ("[engine]\ncc = {}\n", "engine.cc"),  # found by the fuzz suite: was a KeyError traceback
    ],
)
def test_extreme_experiment_values_are_refused_in_one_line(tmp_path, capsys, body, message):
    path = spec(tmp_path, body + '[grid]\ndeployment = ["1"]\n')
    assert cli_main(["sweep", str(path), "--dry-run"]) == 2
    one_line_error(capsys, str(path), message)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--repetitions", "1000000000"], "--repetitions"),
        (["--duration", "1e300"], "--duration"),
        (["--warmup", "1e300"], "--warmup"),
    ],
)
def test_extreme_sweep_overrides_are_refused(capsys, argv, message):
    assert cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--dry-run", *argv]) == 2
    one_line_error(capsys, message)


# Results and gallery directories ------------------------------------------------------------


def test_a_planted_manifest_link_in_a_results_directory_is_refused_naming_it(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "secret.json"
    elsewhere.write_text("{}")
    (out / "manifest.json").symlink_to(elsewhere)
    assert cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(out), "--no-progress"]) == 2
    one_line_error(capsys, str(out / "manifest.json"), "symbolic link")
    assert elsewhere.read_text() == "{}"


@pytest.mark.parametrize("mode", [0o777, 0o775])
def test_a_results_directory_others_can_write_is_refused(tmp_path, capsys, mode):
    out = tmp_path / "shared"
    out.mkdir()
    out.chmod(mode)
    assert cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(out), "--no-progress"]) == 2
    one_line_error(capsys, str(out), "writable by its group or by others")
    assert list(out.iterdir()) == []


def test_a_results_directory_reached_through_a_link_is_refused(tmp_path, capsys):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert cli_main(["sweep", str(EXPERIMENTS / "smoke.toml"), "--out", str(link), "--no-progress"]) == 2
    one_line_error(capsys, "symbolic link")
    assert list(real.iterdir()) == []


@pytest.fixture
def umask_zero():
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def test_a_new_results_directory_under_umask_0_is_not_writable_by_others(tmp_path, umask_zero):
    from islands.analysis.store import ResultStore

    store = ResultStore(tmp_path / "a" / "b")
    store.create({"experiment": "x"})
    store.append([{"x": 1}])
    for d in (tmp_path / "a", tmp_path / "a" / "b", store.parts_dir):
        assert stat.S_IMODE(d.stat().st_mode) == 0o755, d


def test_the_gallery_never_writes_through_a_planted_link(tmp_path, capsys):
    root = tmp_path / "results"
    waiting = root / "waiting"
    waiting.mkdir(parents=True)
    (waiting / "manifest.json").write_text('{"experiment": "waiting", "figure": "000-fig11", "status": "running"}')
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "gallery").symlink_to(outside)
    assert cli_main(["gallery", str(root)]) == 2
    one_line_error(capsys, "gallery", "symbolic link")
    assert list(outside.iterdir()) == []


def test_the_gallery_page_replaces_a_planted_index_link_instead_of_following_it(tmp_path):
    from islands.plots.gallery import build_gallery

    root = tmp_path / "results"
    waiting = root / "waiting"
    waiting.mkdir(parents=True)
    (waiting / "manifest.json").write_text('{"experiment": "waiting", "figure": "000-fig11", "status": "running"}')
    (root / "gallery").mkdir(mode=0o755)
    victim = tmp_path / "victim.html"
    victim.write_text("untouched")
    (root / "gallery" / "index.html").symlink_to(victim)
    page = build_gallery(root)
    assert victim.read_text() == "untouched"
    assert not page.is_symlink() and page.is_file()


# Log directories and recovery ----------------------------------------------------------


def logged(log_dir: Path, record_acks: bool = True) -> RunConfig:
    return RunConfig(
        micro=MicroConfig(update=True, multisite=0.3, rows_per_site=500),
        engine=EngineConfig(cc="none"),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.2),
        log=LogConfig(mode="group_commit", directory=str(log_dir), record_acks=record_acks, checkpoint=False),
    )


def per_core():
    return plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_a_new_log_directory_under_umask_0_is_owner_only(tmp_path, umask_zero):
    log_dir = tmp_path / "new" / "log"
    result = run_deployment(per_core(), logged(log_dir), transport="unix")
    assert result.commits > 0
    assert stat.S_IMODE(log_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_a_fifo_in_place_of_a_log_is_refused_not_waited_on(tmp_path):
    log_dir = tmp_path / "log"
    run_deployment(per_core(), logged(log_dir), transport="unix")
    log = log_dir / "instance-0.log"
    log.unlink()
    os.mkfifo(log, 0o600)
    with pytest.raises(ValueError, match="instance-0.log is a FIFO"):
        run_deployment(per_core(), logged(log_dir), transport="unix", recover=True)


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_an_empty_log_of_an_instance_that_acknowledged_commits_is_refused(tmp_path):
    log_dir = tmp_path / "log"
    result = run_deployment(per_core(), logged(log_dir), transport="unix")
    assert result.commits > 0
    os.truncate(log_dir / "instance-0.log", 0)
    with pytest.raises(ValueError, match=r"instance-0.log is empty \(0 bytes\) but instance 0 acknowledged"):
        run_deployment(per_core(), logged(log_dir), transport="unix", recover=True)


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_an_empty_log_without_acknowledgements_warns(tmp_path):
    log_dir = tmp_path / "log"
    run_deployment(per_core(), logged(log_dir, record_acks=False), transport="unix")
    os.truncate(log_dir / "instance-1.log", 0)
    result = run_deployment(per_core(), logged(log_dir, record_acks=False), transport="unix", recover=True)
    assert any("instance-1.log is empty" in w for w in result.warnings), result.warnings


def _cut_at_a_record_boundary(log: Path) -> int:
    """Truncates `log` at the start of its middle commit record: no torn record, no checksum
    to fail, the later commits simply gone. Returns the commits cut."""
    records = _core.read_log(str(log))["records"]
    commits = [r for r in records if r["type"] in ("commit", "decision_commit")]
    assert len(commits) >= 2, "the run committed too little to cut"
    at = len(commits) // 2
    os.truncate(log, commits[at]["offset"])
    return len(commits) - at


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_a_log_cut_at_a_record_boundary_is_refused_against_the_acknowledgements(tmp_path):
    """Acknowledged commits cut from a log's end at a record boundary: recovery compares
    what it recovered with acks-<site>.bin and refuses in one line with both counts."""
    log_dir = tmp_path / "log"
    run_deployment(per_core(), logged(log_dir), transport="unix")
    _cut_at_a_record_boundary(log_dir / "instance-1.log")
    with pytest.raises(InstanceFailed) as failed:
        run_deployment(per_core(), logged(log_dir), transport="unix", recover=True)
    line = str(failed.value)
    assert "\n" not in line
    counts = r"acknowledged (\d+), recovered (\d+) from \S*instance-1.log \(per \S*acks-1.bin"
    assert re.search(r"instance 1 lost acknowledged commits: " + counts, line), line
    acked, recovered = map(int, re.search(r"acknowledged (\d+), recovered (\d+)", line).groups())
    assert recovered < acked


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_acknowledgements_a_snapshot_covers_are_not_asked_of_the_log(tmp_path):
    """A checkpoint starts the log afresh: the commits acknowledged before it are in the
    snapshot (its epoch covers them); those after it must be in the log, and are checked."""
    log_dir = tmp_path / "log"
    checkpointed = dataclasses.replace(logged(log_dir), log=dataclasses.replace(logged(log_dir).log, checkpoint=True))
    first = run_deployment(per_core(), checkpointed, transport="unix")
    assert first.commits > 0
    second = run_deployment(per_core(), logged(log_dir), transport="unix", recover=True)  # no checkpoint after it
    assert all(i["recovery"]["acknowledged"] == 0 for i in second.instances), [i["recovery"] for i in second.instances]
    assert second.commits > 0  # so the third restart has acknowledged commits to look for
    third = run_deployment(per_core(), checkpointed, transport="unix", recover=True)
    recovery = [i["recovery"] for i in third.instances]
    assert sum(r["acknowledged"] for r in recovery) > 0, recovery
    assert all(r["acknowledged"] == r["acknowledged_recovered"] for r in recovery), recovery
    # third checkpointed: a fourth restart from it, then the log of the fourth cut.
    run_deployment(per_core(), logged(log_dir), transport="unix", recover=True)
    _cut_at_a_record_boundary(log_dir / "instance-0.log")
    with pytest.raises(InstanceFailed, match=r"instance 0 lost acknowledged commits: .* after its snapshot, recovered"):
        run_deployment(per_core(), logged(log_dir), transport="unix", recover=True)


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_a_log_after_a_checkpoint_without_its_snapshot_is_refused(tmp_path):
    """A log that starts past LSN 0 follows a checkpoint: without the snapshot every commit
    before it would be lost, acknowledgement files or not."""
    log_dir = tmp_path / "log"
    cfg = logged(log_dir, record_acks=False)
    checkpointed = dataclasses.replace(cfg, log=dataclasses.replace(cfg.log, checkpoint=True))
    run_deployment(per_core(), checkpointed, transport="unix")
    (log_dir / "instance-1.snapshot").unlink()
    with pytest.raises(InstanceFailed, match=r"instance-1.log starts at LSN \d+, after a checkpoint, but its snapshot"):
        run_deployment(per_core(), cfg, transport="unix", recover=True)


def test_the_engine_refuses_to_open_a_fifo_as_a_log(tmp_path):
    """The engine's own open (reading a log, checkpoint or snapshot) never waits on a FIFO."""
    fifo = tmp_path / "instance-0.log"
    os.mkfifo(fifo, 0o600)
    code = f"from islands import _core\n_core.read_log({str(fifo)!r})\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "not a regular file" in done.stderr, done.stderr


# Faults named precisely ----------------------------------------------------------------


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_a_stopped_instance_is_named(monkeypatch):
    """SIGSTOP of instance 1: the run ends naming instance 1 as stopped (not instance 0 at a timeout)."""

    def stop(proc):
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGSTOP)

    monkeypatch.setattr(launcher, "_kill_if_running", stop)
    cfg = RunConfig(
        micro=MicroConfig(multisite=0.5, rows_per_site=1000),
        engine=EngineConfig(cc="none"),
        driver=DriverConfig(warmup_s=0.0, duration_s=5.0),
    )
    with pytest.raises(InstanceFailed, match=r"instance 1 .* was stopped"):
        run_deployment(per_core(), cfg, transport="unix", kill=(1, 0.2))


@two_cpus
def test_a_scribbled_ring_tail_is_reported_as_malformed(private_run_root):
    """A ring's tail overwritten with garbage (more than a ring ahead of what was read): the run
    ends naming the ring as malformed instead of stalling until a timeout."""
    cfg = RunConfig(
        micro=MicroConfig(multisite=0.5, rows_per_site=1000),
        engine=EngineConfig(cc="none"),
        driver=DriverConfig(warmup_s=0.0, duration_s=20.0),
    )
    done = threading.Event()

    def scribble():
        ring = None
        while not done.is_set() and ring is None:
            found = list(private_run_root.glob("islands-run-*/ring-0-to-1"))
            ring = found[0] if found else None
            time.sleep(0.01)
        while not done.is_set():
            try:
                with open(ring, "r+b") as f:
                    f.seek(128)  # SpscRingControl::tail
                    f.write((0x5C5C5C5C5C5C5C58).to_bytes(8, "little"))
            except OSError:
                return
            time.sleep(0.001)

    thread = threading.Thread(target=scribble, daemon=True)
    thread.start()
    try:
        with pytest.raises(InstanceFailed, match="malformed"):
            run_deployment(per_core(), cfg, transport="shm")
    finally:
        done.set()
        thread.join()


# Run directories of killed launchers ---------------------------------------------------


def test_a_run_directory_whose_pid_was_reused_is_removed(private_run_root):
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        # Made by a launcher that started at tick 1, long before the live process with its pid.
        stale = private_run_root / f"islands-run-{sleeper.pid}-abc"
        stale.mkdir(mode=0o700)
        (stale / launcher.LAUNCHER_FILE).write_text("1")
        (stale / "ring-0-to-1").write_bytes(b"x")
        fresh = launcher._run_directory()
        shutil.rmtree(fresh)
        assert not stale.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_live_launchers_run_directory_is_kept(private_run_root):
    mine = private_run_root / f"islands-run-{os.getpid()}-abc"  # a name from before start times
    mine.mkdir(mode=0o700)
    fresh = launcher._run_directory()
    assert (fresh / launcher.LAUNCHER_FILE).read_text() == str(launcher.start_ticks(os.getpid()))
    again = launcher._run_directory()  # this launcher's own directory is alive and kept
    assert mine.exists() and fresh.exists()
    shutil.rmtree(fresh)
    shutil.rmtree(again)


@two_cpus
def test_a_killed_launcher_leaves_no_run_directory(tmp_path):
    """SIGKILL of the launcher mid-run: its janitor removes the run directory (ring files)."""
    root = tmp_path / "runs"
    root.mkdir(mode=0o700)
    code = (
        "import islands\n"
        "from islands.execution import launcher\n"
        f"launcher.RUN_ROOT = {str(root)!r}\n"
        "from islands.machine.placement import plan_deployment\n"
        "t = islands.read_topology()\n"
        "dep = plan_deployment(t, 'per-core', cpus=t.cpus[:2])\n"
        "cfg = islands.RunConfig(micro=islands.MicroConfig(multisite=0.2), engine=islands.EngineConfig(cc='none'),"
        " driver=islands.DriverConfig(warmup_s=0, duration_s=60))\n"
        "launcher.run_deployment(dep, cfg, transport='shm')\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        rings = []
        for _ in range(600):
            rings = list(root.glob(f"islands-run-{proc.pid}-*/ring-*"))
            if rings or proc.poll() is not None:
                break
            time.sleep(0.1)
        assert rings, "the run never made its rings"
    finally:
        proc.kill()
        proc.wait()
    for _ in range(300):
        if not list(root.iterdir()):
            break
        time.sleep(0.1)
    assert list(root.iterdir()) == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bench", "counters", "--increments", "100000000000000", "--quiet"], "increments"),
        (["bench", "ipc", "--round-trips", "100000000000000", "--quiet"], "round-trips"),
    ],
)
def test_fixed_count_benchmarks_have_a_range(tmp_path, capsys, argv, message):
    """Found probing the CLI: 10^14 increments ran for hours; refused before anything starts."""
    assert cli_main([*argv, "--out", str(tmp_path / "b")]) == 2
    one_line_error(capsys, message)
    assert not (tmp_path / "b").exists()


def test_a_rows_file_planted_as_a_link_is_refused_naming_it(tmp_path):
    from islands.analysis.store import ResultStore

    store = ResultStore(tmp_path / "results")
    store.append([{"throughput_tps": 1.0, "config": {"workload": "micro"}}])
    assert len(store.rows()) == 1
    outside = tmp_path / "elsewhere.parquet"
    outside.write_bytes(store.parts()[0].read_bytes())
    planted = store.parts_dir / "part-9999-planted.parquet"
    planted.symlink_to(outside)
    with pytest.raises(ValueError, match=r"part-9999-planted.parquet is a symbolic link \(refused\)"):
        store.rows()
