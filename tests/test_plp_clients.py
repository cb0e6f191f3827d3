"""The client layer driving PLP (driver.clients closed or open with engine.execution plp;
exec/client_driver.hpp, exec/request_owner.hpp, exec/plp/plp_worker.hpp): every worker
has its own request queue, a request goes to the worker owning its home unit, so skew over the
whole key range overloads the worker owning the hot range; while units move (re-partitionings)
a request queued for a worker that no longer owns its home is forwarded to the new owner, and
none is lost or run twice."""

from __future__ import annotations

import pytest

import islands
from islands.analysis.history_check import check_history
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig, TatpConfig

CPUS = islands.read_topology().cpus
pytestmark = [
    pytest.mark.usefixtures("private_run_root"),
    pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs"),
]


def config(
    clients: str = "closed", workload: str = "micro", reshuffle_s: float = 0.0, record: bool = False, **micro
) -> RunConfig:
    """A short 2-worker PLP run with the client layer (closed: 8 clients; open: 20,000 txn/s);
    `record` turns on the history checker, `reshuffle_s` random re-partitionings."""
    driver = DriverConfig(
        cpus=tuple(CPUS[:2]),
        warmup_s=0.05,
        duration_s=0.3,
        clients=clients,
        client_count=8,
        offered_rate=20000.0 if clients == "open" else 0.0,
    )
    engine = EngineConfig(execution="plp", record_history=record, plp_reshuffle_s=reshuffle_s)
    section = (
        {"tatp": TatpConfig(subscribers_per_site=200, id_draw="uniform", hot_fraction=0.2)}
        if workload == "tatp"
        else {"micro": MicroConfig(**{"rows_per_site": 1000, **micro})}
    )
    return RunConfig(workload=workload, engine=engine, driver=driver, **section)


def conserved(result) -> dict:
    """Nothing lost between the clients and the workers, nothing answered twice, at most one
    request abandoned per worker at the stop; returns the client account."""
    load = result.clients
    assert load["submitted"] - load["refused"] + load["forwarded"] == load["taken"] + load["queued_at_end"], load
    assert load["conserved"]
    assert 0 <= load["abandoned"] <= len(result.workers), load
    assert load["live_samples"] > 0 and load["live_conserved"], load  # at every sample, not only the end
    return load


def test_skew_over_the_whole_key_range_overloads_the_worker_owning_the_hot_range():
    uniform = islands.run(config(zipf_s=0.0))
    skewed = islands.run(config(zipf_s=1.0))
    for result in (uniform, skewed):
        load = conserved(result)
        assert result.commits > 0
        # Static PLP: nothing moves, so every request is at its owner when it is taken.
        assert load["forwarded"] == load["ran_away"] == 0
        assert len(load["workers"]) == 2
    assert [w["share"] for w in uniform.clients["workers"]] == pytest.approx([0.5, 0.5], abs=0.06)
    # Zipf s = 1 over 2,000 rows puts about 90% of the homes on worker 0's 1,000.
    hot, cold = skewed.clients["workers"]
    assert hot["share"] > 0.8 and cold["share"] < 0.2
    # Busy by requests, not by an instant's queue (which worker the loaded machine ran then).
    assert hot["queue_lengths"] and hot["taken"] > 4 * cold["taken"]


@pytest.mark.parametrize(("clients", "workload"), [("closed", "micro"), ("open", "micro"), ("closed", "tatp")], ids=str)
def test_no_request_is_lost_and_each_runs_at_its_owner_while_units_move(clients, workload):
    # Units move every 2 ms (random re-partitionings): requests queued for a unit's old owner
    # are forwarded to the new one. One row per transaction (TATP: one subscriber), so a
    # transaction run by a worker that did not own its home would have sent an action.
    result = islands.run(config(clients, workload, reshuffle_s=0.002, record=True, zipf_s=1.0, rows_per_txn=1))
    assert result.check_failures == [], result.check_failures
    report = check_history(result.history, "serializable")
    assert report.violations == [], report.summary()
    assert report.transactions == result.checks["committed_txns"] >= result.commits > 0
    inst = result.instances[0]
    moves = inst["repartitioning"]
    assert moves["repartitions"] > 0 and moves["incomplete"] == 0, moves
    load = conserved(result)
    assert load["forwarded"] > 0
    assert load["ran_away"] == 0
    assert inst["fragments_sent"] == 0 and result.multisite_commits == 0
    if clients == "open":
        assert load["refused"] == 0


def test_plp_hand_off_with_clients_is_refused_in_one_line():
    c = config()
    bad = RunConfig(
        workload="micro", micro=c.micro, driver=c.driver, engine=EngineConfig(execution="plp", plp_handoff=4)
    )
    with pytest.raises(ValueError, match=r"^engine.plp_handoff: .*route their requests to it already") as e:
        islands.run(bad)
    assert "\n" not in str(e.value)
