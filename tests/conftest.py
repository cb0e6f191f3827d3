"""Shared pytest fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def cli(tmp_path):
    """Runs ``python -m islands ARGS``; returns the CompletedProcess."""
    import subprocess

    def run(*args: str, timeout: float = 120):
        return subprocess.run(
            [sys.executable, "-m", "islands", *args], capture_output=True, text=True, timeout=timeout, cwd=tmp_path
        )

    return run


@pytest.fixture
def private_run_root(tmp_path, monkeypatch):
    """Deployment run directories of this test only (islands.execution.launcher.RUN_ROOT), so that other
    users of /dev/shm do not count; returns the directory."""
    import islands.execution.launcher

    root = tmp_path / "runs"
    root.mkdir(mode=0o700)
    monkeypatch.setattr(islands.execution.launcher, "RUN_ROOT", str(root))
    return root


@pytest.fixture
def read_only_dir(tmp_path):
    """An empty directory nobody may write into, root included.

    For an ordinary user, mode 0500 is enough; root ignores modes, so as root the directory
    is a read-only tmpfs mount instead (skipped where mounting is not permitted)."""
    import os
    import subprocess

    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() != 0:
        locked.chmod(0o500)
        yield locked
        locked.chmod(0o700)
        return
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(locked)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a read-only tmpfs: {mounted.stderr.strip()}")
    try:
        yield locked
    finally:
        subprocess.run(["umount", str(locked)], check=True)
