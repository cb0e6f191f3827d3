"""PLP transaction hand-off (issue 17, "our workers are also the clients"; engine.plp_handoff):
a worker hands a drawn transaction whose home unit (its first operation's) another worker owns
to that owner, whole, and the owner coordinates it as if it had drawn it (exec/plp/plp_handoff.hpp,
exec/plp/plp_worker.hpp). The drawer keeps at most W handed and unfinished, drawing its own
meanwhile; the owner gives each back when it is finished.

Checked under the history checker (engine.record_history: every committed transaction in the
history exactly once, serializable) and the workloads' consistency conditions, for micro, TATP
and TPC-C: with skew (TATP's hot set spans the instance, so the second worker's hot draws are
the first worker's), with units moving every few ms (a handed transaction may reach a worker
that no longer owns its home: it coordinates it anyway), with more workers than cores and
unpinned (preempted anywhere), with a worker parked (never handed to), and with W = 0 (today's
behaviour: no hand-off at all). Counted: every hand-off is run by its owner or dropped
unstarted at the stop, exactly once (handoffs_sent == handoffs_run + handoffs_dropped)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import islands
from islands import _core
from islands.analysis.history_check import check_history
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TatpConfig
from plp_runs import run_on
from small_workloads import small_sections

CPUS = islands.read_topology().cpus
# A made-up 16-cpu machine: labels for more workers than this machine has cores (unpinned).
pytestmark = [
    pytest.mark.usefixtures("private_run_root"),
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
]


def config(workload, handoff=4, reshuffle_s=0.0, duration=0.3, seed=1, warmup=0.02, **engine):
    """A small 2-worker PLP run of `workload` with history recording. TATP draws its standard
    mix with 002 Fig 11's skew (half the requests to the instance's first 20% of subscribers,
    site 0's units 0-3); micro and TPC-C send half their transactions to the other site."""
    if workload == "tatp":
        section = {"tatp": TatpConfig(subscribers_per_site=200, id_draw="uniform", hot_fraction=0.2)}
    else:
        section = small_sections(workload, 0.5)
    return RunConfig(
        workload=workload,
        **section,
        engine=EngineConfig(
            execution="plp", record_history=True, plp_handoff=handoff, plp_reshuffle_s=reshuffle_s, **engine
        ),
        driver=DriverConfig(cpus=tuple(CPUS[:2]), warmup_s=warmup, duration_s=duration, seed=seed),
    )


def checked(result):
    """Consistent, serializable, every committed transaction in the history exactly once, every
    hand-off run or dropped once; returns the instance's figures."""
    assert result.check_failures == [], result.check_failures
    assert result.commits > 0
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary() + "\n" + "\n".join(report.examples)
    assert report.transactions == result.checks["committed_txns"] >= result.commits
    inst = result.instances[0]
    assert inst["handoffs_sent"] == inst["handoffs_run"] + inst["handoffs_dropped"], inst
    return inst


def test_skewed_tatp_hands_hot_transactions_to_their_owner_where_they_run_whole():
    result = islands.run(config("tatp"))
    inst = checked(result)
    assert inst["handoffs_run"] > 0
    # Every TATP transaction is on one subscriber: handed to its unit's owner, it runs there
    # whole, with no action sent and nothing spread over the two workers.
    assert inst["fragments_sent"] == 0
    assert result.multisite_commits == 0


def test_without_handoff_every_worker_coordinates_what_it_draws():
    # W = 0: today's behaviour. The second worker's hot draws are the first worker's
    # subscribers: each a round trip of an action and a decision.
    result = islands.run(config("tatp", handoff=0))
    inst = checked(result)
    assert inst["handoffs_sent"] == inst["handoffs_run"] == inst["handoffs_dropped"] == 0
    assert result.multisite_commits > 0
    assert inst["fragments_sent"] > 0


def test_nothing_is_handed_when_every_home_is_the_drawers_own():
    # No skew, no moves: micro's first key is always on the drawer's own site.
    result = islands.run(config("micro"))
    assert checked(result)["handoffs_sent"] == 0
    assert result.multisite_commits > 0  # its other keys still reach the other site as actions


@pytest.mark.parametrize("workload", ["micro", "tatp", "tpcc"])
def test_handed_transactions_survive_units_moving_every_2_ms(workload):
    # A unit moved away from its site's worker: what that worker draws on it goes to the new
    # owner; a handed transaction whose home moves on meanwhile is coordinated where it lands,
    # routed by the table current when it starts (the drain sees it like any other).
    inst = checked(islands.run(config(workload, reshuffle_s=0.002)))
    moves = inst["repartitioning"]
    assert moves["repartitions"] > 0 and moves["incomplete"] == 0, moves
    assert inst["handoffs_run"] > 0


@pytest.mark.parametrize("window", [1, 16])
def test_any_window_keeps_every_transaction_once(window):
    inst = checked(islands.run(config("tatp", handoff=window, reshuffle_s=0.003)))
    assert inst["handoffs_run"] > 0


def test_a_parked_worker_is_never_handed_a_transaction():
    # TATP's hot set is site 0's: worker 1 hands its hot draws to worker 0. With worker 0 parked
    # from the start of the warm-up, worker 1 coordinates them itself, as actions that worker 0
    # serves (its thread on worker 1's CPU), instead of handing them to a worker that draws nothing.
    out: dict = {}

    def park_at_attach(handle: _core.RunningInstance) -> None:
        assert handle.wait_attached(timeout_s=60), "the run never attached"
        out["parked"] = handle.park(0, True)

    result = islands.run_beside(config("tatp", warmup=0.2), park_at_attach)
    assert out.get("parked") is True, out
    checked(result)
    assert result.multisite_commits > 0
    assert result.workers[1].commits > 20 * max(1, result.workers[0].commits)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    workload=st.sampled_from(["micro", "tatp", "tpcc"]),
    window=st.sampled_from([1, 2, 4, 8]),
    reshuffle_s=st.sampled_from([0.0, 0.001, 0.003]),
    workers=st.sampled_from([2, 4]),
    seed=st.integers(1, 1 << 20),
)
def test_random_handoff_runs_stay_consistent(workload, window, reshuffle_s, workers, seed):
    # 4 workers run unpinned on this machine's cores, so the OS preempts them anywhere: between
    # a hand-off and its message, with a handed transaction half coordinated, at the stop.
    config_ = config(workload, handoff=window, reshuffle_s=reshuffle_s, duration=0.25, seed=seed)
    checked(run_on(config_, workers))


def test_the_window_is_a_setting_with_bounds():
    assert EngineConfig().plp_handoff == _core.EngineConfig().plp_handoff
    with pytest.raises(islands.ConfigError, match="engine.plp_handoff"):
        islands.run(config("tatp", handoff=65))


@pytest.mark.slow
@pytest.mark.parametrize("workload", ["micro", "tatp", "tpcc"])
@pytest.mark.parametrize("workers", [2, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_handoff_under_repartitioning_long(workload, workers, seed):
    inst = checked(run_on(config(workload, reshuffle_s=0.001, duration=2.0, seed=seed), workers))
    assert inst["handoffs_run"] > 0
