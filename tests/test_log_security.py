"""The log directory and its files against other local users: the directory must be the user's
own and writable by nobody else, files are created owner-only, and a symbolic link planted in
the directory is never followed (a root run would otherwise overwrite or create files
elsewhere)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, LogConfig, MicroConfig, RunConfig
from islands.execution.launcher import InstanceFailed, run_deployment
from islands.machine.placement import plan_deployment

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = [
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
    pytest.mark.usefixtures("private_run_root"),
]


def config(log_dir: Path, checkpoint: bool = True) -> RunConfig:
    return RunConfig(
        micro=MicroConfig(update=True, multisite=0.3, rows_per_site=500),
        engine=EngineConfig(cc="none"),
        driver=DriverConfig(warmup_s=0.05, duration_s=0.2),
        log=LogConfig(mode="group_commit", directory=str(log_dir), record_acks=True, checkpoint=checkpoint),
    )


def per_core():
    return plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])


def test_log_snapshot_and_acknowledgement_files_are_owner_only(tmp_path):
    log_dir = tmp_path / "log"
    result = run_deployment(per_core(), config(log_dir), transport="shm")
    assert result.commits > 0
    modes = {p.name: p.stat().st_mode & 0o777 for p in log_dir.iterdir()}
    kinds = {name.split("-")[0] + Path(name).suffix for name in modes}
    assert kinds == {"instance.log", "instance.snapshot", "acks.bin"}, modes
    assert set(modes.values()) == {0o600}, modes


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o720])
def test_a_log_directory_others_can_write_is_refused(tmp_path, mode):
    log_dir = tmp_path / "shared"
    log_dir.mkdir()
    log_dir.chmod(mode)
    with pytest.raises(islands.ConfigError) as caught:
        run_deployment(per_core(), config(log_dir), transport="shm")
    assert caught.value.field == "log.directory"
    assert "writable by its group or by others" in caught.value.why
    assert list(log_dir.iterdir()) == []


def test_a_log_directory_reached_through_a_link_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(islands.ConfigError, match="is a symbolic link"):
        run_deployment(per_core(), config(link), transport="shm")
    assert list(real.iterdir()) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a directory to another user")
def test_a_log_directory_of_another_user_is_refused(tmp_path):
    log_dir = tmp_path / "theirs"
    log_dir.mkdir(mode=0o700)
    os.chown(log_dir, 65534, 65534)
    with pytest.raises(islands.ConfigError, match="belongs to user 65534"):
        run_deployment(per_core(), config(log_dir), transport="shm")


@pytest.mark.parametrize("planted", ["acks-0.bin", "instance-1.snapshot.tmp"])
def test_a_planted_link_is_never_followed(tmp_path, planted):
    """Another user's link in the directory (here: the acknowledgements, then the snapshot a
    checkpoint writes) fails the run naming the file; the link's target is never created."""
    log_dir = tmp_path / "log"
    log_dir.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    (log_dir / planted).symlink_to(victim)
    with pytest.raises(InstanceFailed, match=f"{planted}: it is a symbolic link"):
        run_deployment(per_core(), config(log_dir), transport="shm")
    assert not victim.exists()
