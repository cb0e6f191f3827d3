"""TPC-C's five transactions: in one instance and one instance per core, every CC mode and
both transports, with the specification's consistency conditions 1-4 (clause 3.3.2) and the
payment balances checked after each run; the loader against the specification's
cardinalities; NewOrders per minute and user rollbacks reported apart; bad input."""

from __future__ import annotations

import math

import pytest

import islands
from islands.config import DriverConfig, EngineConfig, RunConfig, TpccConfig
from islands.consistency import verify
from islands.launch import run_deployment
from islands.placement import plan_deployment

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


def tpcc(
    cpus=(0,),
    cc="2pl",
    lock_policy="wait_die",
    mix="new_order:50,payment:50",
    warehouses=2,
    payment_remote=0.15,
    remote_item=0.01,
    duration=0.3,
    index="hash",
    rollback=0.01,
) -> RunConfig:
    return RunConfig(
        workload="tpcc",
        tpcc=TpccConfig(
            warehouses_per_site=warehouses,
            items=2000,
            customers_per_district=60,
            mix=mix,
            payment_remote=payment_remote,
            new_order_remote_item=remote_item,
            new_order_rollback=rollback,
        ),
        engine=EngineConfig(index=index, cc=cc, lock_policy=lock_policy),
        driver=DriverConfig(cpus=tuple(cpus), warmup_s=0.05, duration_s=duration),
    )


@pytest.fixture(autouse=True)
def private_run_root(tmp_path, monkeypatch):
    """Run directories of this test only."""
    root = tmp_path / "runs"
    root.mkdir(mode=0o700)
    monkeypatch.setattr(islands.launch, "RUN_ROOT", str(root))


def assert_consistent(result) -> None:
    assert result.check_failures == [], result.check_failures
    c = result.checks
    for name in (
        "condition_1_warehouses",
        "condition_2_districts",
        "condition_3_districts",
        "condition_4_districts",
        "warehouses_unlike_history",
    ):
        assert c[name] == 0, name
    # Payments move money from balance to YTD payment; deliveries add their lines' amounts.
    assert c["customer_balance_plus_ytd"] == c["delivered_order_line_amount"]
    assert result.commits == sum(result.commits_by_type.values())


@pytest.mark.parametrize(
    "cc,n,policy",
    [
        ("none", 1, "wait_die"),
        pytest.param("2pl", 2, "wait_die", marks=two_cpus),
        pytest.param("2pl", 2, "no_wait", marks=two_cpus),
    ],
)
@pytest.mark.parametrize("index", ["hash", "btree"])
def test_one_instance_keeps_the_conditions(cc, n, policy, index):
    result = islands.run(tpcc(cpus=CPUS[:n], cc=cc, lock_policy=policy, index=index, rollback=0.05))
    assert_consistent(result)
    assert result.commits_by_type["new_order"] > 0 and result.commits_by_type["payment"] > 0
    assert result.user_rollbacks > 0  # NewOrders naming an unused item, apart from aborts
    assert math.isclose(result.new_order_per_min, result.commits_by_type["new_order"] * 60 / result.measured_s)


@two_cpus
@pytest.mark.parametrize("transport", ["unix", "shm"])
@pytest.mark.parametrize("cc", ["none", "2pl"])
def test_instances_keep_the_conditions_across_2pc(transport, cc):
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(
        deployment,
        tpcc(
            cpus=CPUS[:2],
            cc=cc,
            lock_policy="no_wait",
            warehouses=1,
            payment_remote=0.5,
            remote_item=0.2,
            rollback=0.05,
        ),
        transport=transport,
    )
    assert 0 < result.multisite_commits < result.commits
    assert result.user_rollbacks > 0
    assert_consistent(result)


@pytest.mark.parametrize("mix", ["standard", "50-50", "80-20", "100-0"])
@pytest.mark.parametrize(
    "cc,n,policy",
    [
        ("none", 1, "wait_die"),
        pytest.param("2pl", 2, "wait_die", marks=two_cpus),
        pytest.param("2pl", 2, "no_wait", marks=two_cpus),
    ],
)
def test_standard_and_004_mixes_keep_the_conditions(mix, cc, n, policy):
    result = islands.run(
        tpcc(cpus=CPUS[:n], cc=cc, lock_policy=policy, mix=mix, duration=0.2, index="btree" if n == 1 else "hash")
    )
    assert_consistent(result)
    reads = result.commits_by_type["order_status"] + result.commits_by_type["stock_level"]
    assert reads > 0
    if mix == "100-0":
        assert reads == result.commits and result.checks["delivered_order_line_amount"] == 0
    if mix == "standard":
        assert result.commits_by_type["delivery"] > 0 and result.checks["delivered_order_line_amount"] > 0


@two_cpus
@pytest.mark.parametrize("transport", ["unix", "shm"])
@pytest.mark.parametrize("cc", ["none", "2pl"])
def test_standard_mix_per_core_keeps_the_conditions(transport, cc):
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(
        deployment,
        tpcc(
            cpus=CPUS[:2],
            cc=cc,
            lock_policy="no_wait",
            warehouses=1,
            mix="standard",
            payment_remote=0.5,
            remote_item=0.1,
        ),
        transport=transport,
    )
    assert 0 < result.multisite_commits < result.commits
    assert_consistent(result)


@two_cpus
@pytest.mark.parametrize("mix", ["payment", "new_order", "order_status", "delivery", "stock_level"])
def test_each_transaction_alone_per_core(mix):
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(
        deployment,
        tpcc(cpus=CPUS[:2], cc="none", mix=mix, warehouses=1, payment_remote=1.0, remote_item=0.1),
        transport="shm",
    )
    assert result.commits_by_type[mix] == result.commits > 0
    assert_consistent(result)
    if mix == "delivery":  # every new order delivered once: no new-order rows are left
        assert result.checks["new_order_rows"] == 0 and result.checks["delivered_order_line_amount"] > 0


def test_loader_builds_the_specification_cardinalities():
    # One warehouse at the specification's scale: 10 districts, 3000 customers and orders per
    # district (the last 900 new), 5-15 lines per order, 100000 items and stock rows.
    result = islands.run(
        RunConfig(
            workload="tpcc",
            tpcc=TpccConfig(mix="payment", payment_remote=0.0, new_order_remote_item=0.0),
            engine=EngineConfig(cc="none"),
            driver=DriverConfig(cpus=CPUS[:1], warmup_s=0.0, duration_s=0.05),
        )
    )
    c = result.checks
    assert (c["warehouse_rows"], c["district_rows"], c["customer_rows"]) == (1, 10, 30_000)
    assert (c["item_rows"], c["stock_rows"], c["order_rows"], c["new_order_rows"]) == (100_000, 100_000, 30_000, 9_000)
    assert abs(c["order_line_rows"] / 30_000 - 10) < 0.1
    assert c["history_rows"] == 30_000 + c["committed_txns"]  # one per customer, one per payment
    assert_consistent(result)


def test_the_conditions_catch_a_broken_district():
    good = {
        "condition_1_warehouses": 0,
        "condition_2_districts": 0,
        "condition_3_districts": 0,
        "condition_4_districts": 0,
        "warehouses_unlike_history": 0,
        "customer_balance_plus_ytd": 7,
        "delivered_order_line_amount": 7,
    }
    assert verify("tpcc", good) == []
    assert len(verify("tpcc", {**good, "condition_2_districts": 1})) == 1
    assert len(verify("tpcc", {**good, "customer_balance_plus_ytd": 5})) == 1


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--tpcc-mix", "90-10"], "mix: unknown transaction '90-10'"),
        (["--tpcc-mix", "new_order:60,payment:30"], "mix: the weights sum to 90, not 100"),
        (["--tpcc-mix", "payday"], "mix: unknown transaction 'payday'"),
        ([], "need a second warehouse but the deployment holds 1"),
        (["--payment-remote", "2"], "--payment-remote: must be between 0 and 1, got 2"),
    ],
)
def test_bad_tpcc_input_is_one_line_and_exit_2(cli, args, needle):
    out = cli("run", "--workload", "tpcc", "--cores", str(CPUS[0]), "--items", "1000", "--duration", "0.1", *args)
    assert out.returncode == 2, out.stderr
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


SWEEP = """
name = "tpcc-tiny"
figure = "{figure}"
workload = "tpcc"
[run]
warmup_s = 0.05
duration_s = 0.15
cpus = "{cpus}"
[grid]
deployment = {deployments}
transport = ["shm"]
{grid}
[tpcc]
items = 1000
customers_per_district = 30
warehouses_per_site = 2
"""


@pytest.mark.parametrize(
    "figure,grid",
    [
        ("000-fig24", 'mix = "payment"\npayment_remote = [0.0, 1.0]'),
        (
            "000-fig22",
            'mix = ["payment", "new_order"]\npayment_remote = [0.0, 0.15]\nnew_order_remote_item = [0.0, 0.01]',
        ),
    ],
)
def test_sweep_stores_tpcc_rows_and_plots_them(cli, tmp_path, figure, grid):
    import json

    from islands.results import ResultStore

    deployments = '["1", "per-core"]' if len(CPUS) > 1 else '["1"]'
    spec = tmp_path / "tpcc.toml"
    spec.write_text(SWEEP.format(figure=figure, cpus=",".join(map(str, CPUS[:2])), deployments=deployments, grid=grid))
    out = cli("sweep", str(spec), "--out", str(tmp_path / "res"), "--no-progress")
    assert out.returncode == 0, out.stderr
    rows = ResultStore(tmp_path / "res").rows()
    assert set(rows["config.workload"]) == {"tpcc"}
    assert all(json.loads(f) == [] for f in rows["check_failures"])
    drawn = cli("plot", str(tmp_path / "res"))
    assert drawn.returncode == 0, drawn.stderr
    assert "TPC-C Payment" in (tmp_path / "res" / "summary.txt").read_text()
