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
        return subprocess.run([sys.executable, "-m", "islands", *args], capture_output=True,
                              text=True, timeout=timeout, cwd=tmp_path)

    return run
