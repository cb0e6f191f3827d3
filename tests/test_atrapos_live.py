"""ATraPos adapting a running PLP instance (islands/atrapos/live.py): the monitor wired into
the workers (engine.plp_monitor), the controller thread beside an in-process run, run-time
events (a worker's core taken away and given back), adaptive against static."""

from __future__ import annotations

import dataclasses
import time

import pytest

import islands
from islands import _core
from islands.atrapos.adaptive_loop import AdaptiveLoop
from islands.atrapos.controller import IntervalController
from islands.atrapos.live import Event, check_events, run_live
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import Deployment
from islands.machine.virtual_topology import virtual_sockets

CPUS = islands.read_topology().cpus
pytestmark = pytest.mark.usefixtures("private_run_root")
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


def monitored(n_cpus=2, duration=0.3, multisite=0.5, rows_per_txn=4, monitor=True):
    return RunConfig(
        workload="micro",
        micro=MicroConfig(rows_per_site=2000, rows_per_txn=rows_per_txn, multisite=multisite),
        engine=EngineConfig(execution="plp", plp_monitor=monitor),
        driver=DriverConfig(cpus=tuple(CPUS[:n_cpus]), warmup_s=0.05, duration_s=duration),
    )


@pytest.mark.parametrize("n_cpus", [1, pytest.param(2, marks=two_cpus)])
def test_the_monitor_counts_the_committed_operations_on_their_units(n_cpus):
    result = islands.run(monitored(n_cpus))
    assert result.check_failures == []
    monitor = result.instances[0]["monitor"]
    assert monitor["partitions"] == n_cpus
    actions = monitor["actions"]
    assert len(actions) == n_cpus * 10
    # micro: 4 keys per transaction, one action each, every phase; a transaction on one
    # worker's partition alone is counted by sampling (exec/plp/plp_monitor.hpp): unbiased
    assert sum(actions) == pytest.approx(4 * result.checks["committed_txns"], rel=0.05)
    assert all(a > 0 for a in actions)  # uniform keys reach every unit
    syncs = sum(monitor["sync_count"])
    if n_cpus == 1:
        assert syncs == 0  # one worker: no operation ever runs elsewhere
    else:
        assert syncs > 0 and result.multisite_commits > 0


def test_the_monitor_is_off_by_default_and_a_run_that_is_over_answers_nothing():
    running = islands.start(monitored(1, monitor=False))
    result = running.result()
    assert result.instances[0]["monitor"] is None
    handle = running.handle
    assert handle.ended and not handle.attached and not handle.wait_attached(timeout_s=0)
    assert handle.owners() == [] and handle.snapshot() is None and handle.apply([0] * 10) is None
    assert handle.park(0, True) is False
    assert handle.monitor_recording(False) is False
    assert handle.join() == handle.join()  # joined again: the same statistics


def test_a_run_that_is_not_plp_never_attaches_and_its_waiter_wakes_at_its_end():
    config = dataclasses.replace(monitored(1, duration=0.2), engine=EngineConfig())
    running = islands.start(config)
    assert running.handle.wait_attached(timeout_s=600) is False  # woken by the run's end, not the timeout
    assert running.handle.ended
    assert running.result().commits > 0


def test_a_bad_config_is_refused_before_any_thread_starts():
    bad = dataclasses.replace(monitored(1), driver=DriverConfig(cpus=(CPUS[0],), duration_s=-1.0))
    with pytest.raises(islands.ConfigError, match="driver.duration_s"):
        islands.start(bad)


def test_recording_switched_off_records_nothing_until_it_is_switched_back_on():
    """What benchmarks/plp_monitoring.py relies on: with recording off the monitor's counts stay
    put while transactions commit, and they grow again once it is back on."""
    seen: dict[str, int] = {}

    def switch(handle: _core.RunningInstance) -> None:
        assert handle.wait_attached(timeout_s=60)
        assert handle.monitor_recording(False)
        time.sleep(0.02)  # a commit that read the flag before the switch records after it
        seen["off_start"] = handle.commits()
        time.sleep(0.1)
        seen["off_end"] = handle.commits()
        assert handle.monitor_recording(True)
        time.sleep(0.1)
        seen["on_end"] = handle.commits()

    result = islands.run_beside(monitored(1, duration=0.5), switch)
    assert result.check_failures == []
    assert seen["off_end"] == seen["off_start"]
    assert seen["on_end"] > seen["off_end"]
    # the commits made while it was off are in the run's count, not in the monitor's
    assert sum(result.instances[0]["monitor"]["actions"]) < 4 * result.checks["committed_txns"]


def test_what_fails_beside_the_run_is_raised_once_the_run_is_over():
    def fail(handle: _core.RunningInstance) -> None:
        raise RuntimeError("beside the run")

    with pytest.raises(RuntimeError, match="beside the run"):
        islands.run_beside(monitored(1, duration=0.1), fail)


def per_action_cost(monitor: dict, site: int) -> float:
    """The mean cost of an action on ``site``'s units (the monitor's costs over its counts)."""
    units = slice(10 * site, 10 * (site + 1))
    return sum(monitor["cost"][units]) / sum(monitor["actions"][units])


@two_cpus
def test_an_action_costs_the_cycles_of_its_owner_not_the_coordinator_s_wait():
    """The two workers on two virtual sockets with 250 us injected on every message between
    them, paid by its sender before it sends: every transaction worker 0 spreads to worker 1
    (and back) takes at least 500 us of its coordinator's time, 500,000 ticks or more (the TSC
    runs at over 1 GHz; elsewhere a tick is a ns). Taken from the coordinator's draw-to-commit
    cycles, each of such a transaction's 4 actions would cost a quarter of that, 125,000 ticks
    or more, and every action on site 1's units that worker 0 drew is in such a transaction.
    Taken from the cycles worker 1 spends running them they cost what a micro action costs (a
    few thousand ticks at most)."""
    here = virtual_sockets(islands.read_topology(), 2, message_delay_us=250)
    cpus = tuple(here.cpus[:2])
    config = monitored(duration=0.5, multisite=0.5)
    config = dataclasses.replace(config, driver=dataclasses.replace(config.driver, cpus=cpus))
    deployment = Deployment(label="1ISL", instances=(cpus,), placement="islands", pinned=True)
    result = run_deployment(deployment, config, transport="none", topology=here)
    assert result.check_failures == []
    assert result.instances[0]["messages_delayed"] > 0  # spread transactions ran, each delayed
    monitor = result.instances[0]["monitor"]
    assert sum(monitor["actions"][10:]) > 100  # worker 1's units were reached, and served
    assert per_action_cost(monitor, 1) < 20_000, per_action_cost(monitor, 1)


def fast_loop():
    """The paper's interval logic on a shorter clock (0.2 s doubling to 0.8 s), for tests."""
    return AdaptiveLoop(IntervalController(min_interval_s=0.2, max_interval_s=0.8))


@two_cpus
def test_a_lost_core_is_adapted_to_and_static_stays_put():
    # Worker 1's core is taken away 0.3 s into the window. The adaptive controller evaluates
    # the model at once and moves every unit to worker 0; static applies the event only.
    config = monitored(duration=1.6, multisite=0.0)
    lost = [Event(0.3, "park", (1,))]
    result, log = run_live(config, adaptive=True, events=lost, loop=fast_loop())
    assert result.check_failures == []
    assert [e[1] for e in log.events] == ["park"]
    # (it may also rebalance before the event: the search sees the monitored load)
    after = [r for r in log.repartitions if r["at_s"] >= log.events[0][0]]
    assert after, log
    assert set(after[-1]["owners"]) == {0}
    assert result.instances[0]["repartitioning"]["repartitions"] == len(log.repartitions)
    assert len(log.intervals) >= 2
    static, slog = run_live(config, adaptive=False, events=lost, loop=fast_loop())
    assert static.check_failures == []
    assert slog.repartitions == [] and static.instances[0]["repartitioning"]["repartitions"] == 0
    # Each interval's CPU share per worker (what tells a stall of the machine's from one of
    # the engine's): parked, worker 1's thread runs on worker 0's CPU, so from an interval
    # that began after the park on, the two share one CPU (a sum near 2 would be a wrong
    # accounting; the margin is the controller's own clock reads on a loaded machine).
    for run_log in (log, slog):
        assert len(run_log.cpu_shares) == len(run_log.intervals)
        assert all(len(c) == 2 and all(0 <= s <= 1.25 for s in c) for c in run_log.cpu_shares)
        parked = [c for i, c in zip(run_log.intervals, run_log.cpu_shares) if i[0] - i[1] > run_log.events[0][0] + 0.05]
        assert parked and all(sum(c) <= 1.25 for c in parked), run_log.cpu_shares


def test_events_the_engine_cannot_apply_are_refused_by_name():
    with pytest.raises(ValueError, match=r"schedule\[0\].kind"):
        check_events([Event(1.0, "socket", (0,))], 2)
    with pytest.raises(ValueError, match=r"schedule\[0\].skew: give hot_fraction"):
        check_events([Event(1.0, "skew", settings=(("mix", "standard"),))], 2)
    with pytest.raises(ValueError, match=r"schedule\[0\].mix: micro cannot change its draw"):
        check_events([Event(1.0, "mix", settings=(("mix", "standard"),))], 2, "micro")
    with pytest.raises(ValueError, match=r"schedule\[1\].workers"):
        check_events([Event(1.0, "park", (0,)), Event(2.0, "park", (2,))], 2)
    with pytest.raises(ValueError, match="engine.plp_monitor"):
        run_live(monitored(1, monitor=False), adaptive=True)
