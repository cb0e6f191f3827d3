"""TATP: the seven transactions alone and in the standard mix, in one instance and in one
instance per core, every CC mode and both transports, with referential integrity checked
after each run; the loader against the specification's cardinalities; bad mixes."""

from __future__ import annotations

import pytest

import islands
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TatpConfig, transaction_names
from islands.execution.consistency import verify
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from suite_marks import cc_and_transport, two_cpus

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = pytest.mark.usefixtures("private_run_root")


def tatp(
    cpus=(0,),
    cc="2pl",
    lock_policy="wait_die",
    mix="standard",
    subscribers=2000,
    duration=0.25,
    index="hash",
    id_draw="nonuniform",
) -> RunConfig:
    return RunConfig(
        workload="tatp",
        tatp=TatpConfig(subscribers_per_site=subscribers, mix=mix, id_draw=id_draw),
        engine=EngineConfig(index=index, cc=cc, lock_policy=lock_policy),
        driver=DriverConfig(cpus=tuple(cpus), warmup_s=0.05, duration_s=duration),
    )


def assert_intact(result, subscribers) -> None:
    assert result.check_failures == [], result.check_failures
    c = result.checks
    assert c["subscriber_rows"] == subscribers
    assert subscribers <= c["access_info_rows"] <= 4 * subscribers
    assert subscribers <= c["special_facility_rows"] <= 4 * subscribers
    # Deletes alone run out of rows quickly (every later one finds none and rolls back).
    assert result.commits + result.user_rollbacks > 0


@pytest.mark.parametrize(
    "cc,n,policy",
    [
        ("none", 1, "wait_die"),
        pytest.param("2pl", 2, "wait_die", marks=two_cpus),
        pytest.param("2pl", 2, "no_wait", marks=two_cpus),
    ],
)
@pytest.mark.parametrize("index", ["hash", "btree"])
def test_standard_mix_in_one_instance_keeps_references(cc, n, policy, index):
    result = islands.run(tatp(cpus=CPUS[:n], cc=cc, lock_policy=policy, index=index))
    assert_intact(result, 2000 * n)
    # The standard mix's expected failures (missing facility, no destination, ...) are user
    # rollbacks, counted apart from concurrency aborts.
    assert result.user_rollbacks > 0


# none over unix and 2pl over shm: each scheme and each transport once; the other two pairs, slow.
@two_cpus
@pytest.mark.parametrize("cc, transport", cc_and_transport(("none", "unix"), ("2pl", "shm")))
def test_standard_mix_per_core_keeps_references(transport, cc):
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(deployment, tatp(cpus=CPUS[:2], cc=cc, lock_policy="no_wait"), transport=transport)
    assert_intact(result, 4000)
    assert result.multisite_commits == 0  # partitioned by subscriber: every transaction is local


@pytest.mark.parametrize("mix", transaction_names("tatp"))
def test_each_transaction_alone(mix):
    result = islands.run(tatp(cc="none", mix=mix, duration=0.1))
    assert_intact(result, 2000)
    if mix == "update_location" or mix == "get_subscriber_data":
        assert result.user_rollbacks == 0 and result.commits > 0  # these always find their subscriber
    if mix == "delete_call_forwarding":  # the loader is deterministic: compare with a run that only reads
        loaded = islands.run(tatp(cc="none", mix="get_subscriber_data", duration=0.05))
        assert result.checks["call_forwarding_rows"] < loaded.checks["call_forwarding_rows"]


@two_cpus
def test_inserts_and_deletes_racing_on_few_subscribers_stay_consistent():
    # 20 subscribers, two workers inserting and deleting the same call-forwarding rows.
    result = islands.run(
        tatp(
            cpus=CPUS[:2],
            cc="2pl",
            lock_policy="no_wait",
            subscribers=10,
            mix="insert_call_forwarding:50,delete_call_forwarding:50",
            duration=0.3,
        )
    )
    assert_intact(result, 20)
    assert result.user_rollbacks > 0


@two_cpus
@pytest.mark.parametrize("id_draw", ["nonuniform", "uniform"])
def test_both_subscriber_draws_keep_references(id_draw):
    result = islands.run(tatp(cpus=CPUS[:2], lock_policy="no_wait", id_draw=id_draw, subscribers=500))
    assert_intact(result, 1000)
    assert result.config.tatp.id_draw == id_draw


def test_loader_builds_the_specification_cardinalities():
    # Per subscriber: 1-4 access-info and 1-4 special-facility rows (2.5 on average), 0-3
    # call-forwarding rows per facility (1.5 on average).
    n = 20_000
    result = islands.run(tatp(cc="none", subscribers=n, mix="get_subscriber_data", duration=0.05))
    c = result.checks
    assert c["subscriber_rows"] == n
    assert abs(c["access_info_rows"] / n - 2.5) < 0.05
    assert abs(c["special_facility_rows"] / n - 2.5) < 0.05
    assert abs(c["call_forwarding_rows"] / c["special_facility_rows"] - 1.5) < 0.05
    assert result.check_failures == []


def test_the_conditions_catch_a_dangling_row():
    good = dict.fromkeys(
        (
            "access_info_orphans",
            "special_facility_orphans",
            "call_forwarding_orphans",
            "subscribers_bad_access_info",
            "subscribers_bad_facilities",
            "facilities_over_3_forwardings",
            "sub_nbr_index_mismatches",
        ),
        0,
    )
    assert verify("tatp", good) == []
    assert len(verify("tatp", {**good, "call_forwarding_orphans": 1})) == 1


@pytest.mark.parametrize(
    "mix,needle",
    [
        ("get_everything", "mix: unknown transaction 'get_everything'"),
        ("get_subscriber_data:50,update_location:40", "mix: the weights sum to 90, not 100"),
        ("get_subscriber_data:x", "is not a whole number"),
        ("get_subscriber_data:50,get_subscriber_data:50", "listed twice"),
    ],
)
def test_bad_mix_is_one_line_and_exit_2(cli_here, mix, needle):
    out = cli_here("run", "--workload", "tatp", "--mix", mix, "--cores", str(CPUS[0]), "--duration", "0.1")
    assert out.returncode == 2, out.stderr
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


@two_cpus
def test_an_unknown_subscriber_draw_is_one_line_and_exit_2(cli_here):
    out = cli_here("run", "--workload", "tatp", "--id-draw", "zipf", "--cores", str(CPUS[0]), "--duration", "0.1")
    assert out.returncode == 2
    assert "'zipf' is neither nonuniform nor uniform" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_no_latching_with_inserts_in_a_shared_instance_is_refused(cli_here):
    out = cli_here(
        "run", "--workload", "tatp", "--cores", ",".join(map(str, CPUS[:2])), "--no-latching", "--duration", "0.1"
    )
    assert out.returncode == 2
    assert "latching: tatp inserts index keys" in out.stderr
