"""The deployment simulation (simpy) against the closed form where both apply (no waiting, no
conflicts), and what only it shows: lock conflicts under skew, the most-loaded instance."""

from __future__ import annotations

import dataclasses

import pytest

from islands.model import ModelWorkload, predict
from islands.model.simulation import simulate_deployment
from model_cases import fixture, hand_parameters

# With every cost charged to the initiating worker, no message latency and no group-commit
# delay, the simulation is the closed form; only its random draws differ.
CLOSED = {"latency": False, "coordinator_share": 1.0, "flush_us": 0.0, "routing": "worker"}


@pytest.mark.parametrize(
    ("machine", "deployment", "multisite"),
    [
        ("vm-1x2", "per-core", 0.0),
        ("vm-1x2", "per-core", 0.5),
        ("vm-1x2", "per-core", 1.0),
        ("vm-1x2", "1ISL", 0.3),
        ("xeon-e7530-4x6", "4ISL", 0.2),
    ],
)
def test_simulation_is_the_closed_form_without_waiting(machine, deployment, multisite):
    topology = fixture(machine)
    params = hand_parameters()
    workload = ModelWorkload("micro-read", rows=10, multisite=multisite)
    closed = predict(topology, deployment, workload, params, coordinator_share=CLOSED["coordinator_share"])
    sim = simulate_deployment(topology, deployment, workload, params, duration_us=20_000, **CLOSED)
    assert sim.abort_rate == 0.0  # reads take shared locks: nothing conflicts
    assert sim.throughput == pytest.approx(closed.throughput, rel=0.04)


def test_waiting_for_votes_costs_what_the_closed_form_leaves_out():
    vm = fixture("vm-1x2")
    workload = ModelWorkload("micro-read", rows=10, multisite=1.0)
    # The same work per participant (8 us), waited for over a 6 us or a 30 us round trip: the
    # closed form cannot tell them apart, the simulation's coordinators wait longer.
    near, far = hand_parameters(), hand_parameters(message__unix__round_trip_us=30.0)
    assert predict(vm, "per-core", workload, near).throughput == predict(vm, "per-core", workload, far).throughput
    quick = simulate_deployment(vm, "per-core", workload, near, duration_us=20_000, latency=True)
    slow = simulate_deployment(vm, "per-core", workload, far, duration_us=20_000, latency=True)
    assert slow.throughput < 0.8 * quick.throughput


def test_skewed_updates_conflict_and_load_one_instance():
    quad = fixture("xeon-e7530-4x6")
    params = hand_parameters()
    uniform = ModelWorkload("micro-update", rows=2, multisite=0.2, rows_per_site=10_000)
    skewed = ModelWorkload("micro-update", rows=2, multisite=0.2, rows_per_site=10_000, zipf_s=1.5)
    # every worker its own client (the engine's runs): skew shows as conflicts
    run = {"duration_us": 10_000, "flush_us": 20.0, "routing": "worker"}
    calm = simulate_deployment(quad, "24ISL", uniform, params, **run)
    hot = simulate_deployment(quad, "24ISL", skewed, params, **run)
    assert calm.abort_rate < 0.02
    assert hot.abort_rate > 5 * max(calm.abort_rate, 0.005)
    assert hot.throughput < calm.throughput
    assert hot.events > 0 and hot.wall_s > 0


def test_routed_clients_saturate_the_hot_instance_and_the_others_wait():
    quad = fixture("xeon-e7530-4x6")
    params = hand_parameters()
    run = {"duration_us": 10_000}
    uniform = ModelWorkload("micro-read", rows=2, multisite=0.2)
    calm = simulate_deployment(quad, "24ISL", uniform, params, **run)
    hot = simulate_deployment(quad, "24ISL", dataclasses.replace(uniform, zipf_s=1.5), params, **run)
    assert calm.routing == hot.routing == "home"
    # uniform: every instance gets about its share and is busy
    assert max(calm.started_share) < 2.5 / 24 and min(calm.utilization) > 0.5
    # Zipf 1.5 over 240,000 rows: ~99% of the home rows are in the first site
    assert hot.started_share[0] > 0.9
    assert hot.utilization[0] > 0.9 and max(hot.utilization[1:]) < 0.2
    assert hot.throughput < 0.2 * calm.throughput
    # the closed form does not route: it says it does not apply
    closed = predict(quad, "24ISL", dataclasses.replace(uniform, zipf_s=1.5), params)
    assert not closed.applies and "instance 0" in " ".join(closed.notes)


def test_simulation_rejects_bad_input():
    vm = fixture("vm-1x2")
    with pytest.raises(ValueError, match="coordinator_share"):
        simulate_deployment(vm, "per-core", ModelWorkload(), hand_parameters(), coordinator_share=2.0)
    with pytest.raises(ValueError, match="does not fit"):
        simulate_deployment(vm, "5ISL", ModelWorkload(), hand_parameters())
    with pytest.raises(ValueError, match="routing"):
        simulate_deployment(vm, "per-core", ModelWorkload(), hand_parameters(), routing="random")


def test_a_log_bound_instance_commits_at_its_logs_limit():
    vm = fixture("vm-1x2")
    update = ModelWorkload("micro-update", rows=10)
    # 1,000 bytes per commit at 100 MB/s: the log writes 100,000 commits/s; two workers of
    # 4.5 us each would commit 444,000/s.
    params = hand_parameters(log__bytes_per_commit=1000.0, log__write_mb_s=100.0)
    shared = simulate_deployment(vm, "1ISL", update, params, duration_us=20_000.0, flush_us=0.0)
    assert shared.throughput == pytest.approx(1e5, rel=0.05)
    assert predict(vm, "1ISL", update, params, samples=1).throughput == pytest.approx(1e5)
    # Per-core: one log per instance, twice the limit.
    per_core = simulate_deployment(vm, "per-core", update, params, duration_us=20_000.0, flush_us=0.0)
    assert per_core.throughput == pytest.approx(2e5, rel=0.05)
    # Distributed updates wait for their coordinator's flush, and still commit (each of their
    # flushes carries few records: the limit does not bind).
    multisite = simulate_deployment(vm, "per-core", update.with_multisite(0.5), params, duration_us=20_000.0)
    assert 0 < multisite.throughput < per_core.throughput
    # Reads log nothing: no limit.
    read = simulate_deployment(vm, "1ISL", ModelWorkload("micro-read"), params, duration_us=2_000.0)
    assert read.throughput > 3e5
