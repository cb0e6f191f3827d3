"""Marks and parametrizations the workload tests share: `two_cpus` (skips where fewer than two
CPUs are online) and `cc_and_transport`, the (cc, transport) pairs of the deployment tests with
the ones kept in the default suite and the rest marked slow."""

from __future__ import annotations

import pytest

import islands

two_cpus = pytest.mark.skipif(len(islands.read_topology().cpus) < 2, reason="needs two online CPUs")


def cc_and_transport(*kept: tuple[str, str]) -> list:
    """(cc, transport) pairs of none and 2pl over unix and shm: those `kept` in the default
    suite (each scheme and each transport at least once), the others slow."""
    return [
        pytest.param(cc, transport, id=f"{cc}-{transport}", marks=() if (cc, transport) in kept else pytest.mark.slow)
        for cc in ("none", "2pl")
        for transport in ("unix", "shm")
    ]
