"""A sweep's time estimate (islands.experiments.run_time): it follows what a run holds (its
window, its data's load, its instances, cachegrind's copy), as ``islands sweep --dry-run`` and
``reproduce --report``'s budget read it."""

from __future__ import annotations

from pathlib import Path

import pytest

from islands.experiments.run_time import (
    INSTANCE_START_S,
    LOAD_BYTES_PER_S,
    RUN_OVERHEAD_S,
    SIMULATE_S,
    estimate_run_s,
)
from islands.experiments.sweep import Sweep, load_spec
from islands.machine.topology import read_topology
from tiny_spec import TINY


def _sweep(tmp_path: Path, text: str) -> Sweep:
    path = tmp_path / "tiny.toml"
    path.write_text(text)
    return Sweep(load_spec(path), read_topology(), tmp_path / "out")


def test_an_estimate_is_the_window_the_start_and_the_load(tmp_path):
    from islands.config.workload_registry import load_bytes

    small = _sweep(tmp_path, TINY).points()[0]
    big = _sweep(tmp_path, TINY.replace("rows_per_site = 500", "rows_per_site = 2000000")).points()[0]
    sites = len(small.config.driver.cpus)  # one instance holding a site a CPU
    data = load_bytes(big.config, sites, 1) - load_bytes(small.config, sites, 1)
    assert data > 100e6  # 2 M rows a site
    window = small.config.driver.warmup_s + small.config.driver.duration_s
    assert estimate_run_s(small, cpus=2) == pytest.approx(
        window + RUN_OVERHEAD_S + INSTANCE_START_S + load_bytes(small.config, sites, 1) / LOAD_BYTES_PER_S
    )
    assert estimate_run_s(big, cpus=2) - estimate_run_s(small, cpus=2) == pytest.approx(data / LOAD_BYTES_PER_S)


def test_cachegrind_s_copy_and_more_instances_cost_more(tmp_path):
    plain = _sweep(tmp_path, TINY).points()[0]
    simulated = _sweep(tmp_path, TINY + "\n[profile]\nsimulate = 100\n").points()[0]
    assert estimate_run_s(simulated, cpus=2) - estimate_run_s(plain, cpus=2) == pytest.approx(SIMULATE_S)
    two = _sweep(tmp_path, TINY.replace('deployment = ["1"]', 'deployment = ["per-core"]')).points()[0]
    if two.deployment.n_instances < 2:
        pytest.skip("needs two CPUs for a per-core deployment of two instances")
    # two instances start and load side by side on two CPUs, one after the other on one
    assert estimate_run_s(two, cpus=1) > estimate_run_s(two, cpus=2)


def test_the_dry_run_and_the_sweep_estimate_every_run_left(tmp_path):
    sweep = _sweep(tmp_path, TINY)
    runs = sweep.points()
    assert sweep.estimate_s() == pytest.approx(sum(estimate_run_s(p) for p in runs))
    assert sweep.left({runs[0].point_id}) == runs[1:]
    assert sweep.estimate_s(sweep.left({runs[0].point_id})) < sweep.estimate_s()
