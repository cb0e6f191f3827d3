"""TPC-C's five transactions: in one instance and one instance per core, every CC mode and
both transports, in the specification's row layout and the narrow one, with the
specification's twelve consistency conditions (clause 3.3.2) and the stock's counters checked
after each run, and each condition shown to catch one broken row; the loader against the
specification's cardinalities and generators; by-name payments' History naming the customer;
Delivery deleting its new-order rows; memory: an oversized load refused, a run stopped at its
budget, bytes per transaction reported; NewOrders per minute and user rollbacks reported apart;
bad input."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

import islands
from islands import _core
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TpccConfig
from islands.execution.consistency import verify
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from suite_marks import cc_and_transport, two_cpus

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = pytest.mark.usefixtures("private_run_root")


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
    layout="spec",
    by_name=0.60,
    memory_budget=0.8,
    warmup=0.05,
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
            layout=layout,
            payment_by_name=by_name,
            memory_budget=memory_budget,
        ),
        engine=EngineConfig(index=index, cc=cc, lock_policy=lock_policy),
        driver=DriverConfig(cpus=tuple(cpus), warmup_s=warmup, duration_s=duration),
    )


COUNTED = (
    "condition_1_warehouses",
    "condition_2_districts",
    "condition_3_districts",
    "condition_4_districts",
    "condition_5_orders",
    "condition_6_orders",
    "condition_7_order_lines",
    "condition_10_customers",
    "condition_11_districts",
    "condition_12_customers",
    "history_unknown_customers",
    "order_line_dist_info",
)
FINGERPRINTS = (
    "condition_8_fingerprint",
    "condition_9_fingerprint",
    "stock_ytd_fingerprint",
    "stock_order_cnt_fingerprint",
    "stock_remote_cnt_fingerprint",
)
PRIME = 2**31 - 1


def assert_consistent(result) -> None:
    assert result.check_failures == [], result.check_failures
    c = result.checks
    for name in COUNTED:
        assert c[name] == 0, name
    for name in FINGERPRINTS:
        assert c[name] % PRIME == 0, name
    # bytes per transaction of growth: reported, positive when NewOrders or Payments committed
    if result.commits_by_type.get("new_order", 0) + result.commits_by_type.get("payment", 0) > 0:
        assert result.bytes_per_txn > 0
    # Payments move money from balance to YTD payment; deliveries add their lines' amounts.
    assert c["customer_balance_plus_ytd"] == c["delivered_order_line_amount"]
    assert result.commits == sum(result.commits_by_type.values())


# Each index alone and contended (under one lock policy each); the other policy per index, slow.
@pytest.mark.parametrize(
    "index,cc,n,policy",
    [
        pytest.param("hash", "none", 1, "wait_die", id="hash-none-1-wait_die"),
        pytest.param("hash", "2pl", 2, "wait_die", id="hash-2pl-2-wait_die", marks=[two_cpus, pytest.mark.slow]),
        pytest.param("hash", "2pl", 2, "no_wait", id="hash-2pl-2-no_wait", marks=two_cpus),
        pytest.param("btree", "none", 1, "wait_die", id="btree-none-1-wait_die"),
        pytest.param("btree", "2pl", 2, "wait_die", id="btree-2pl-2-wait_die", marks=two_cpus),
        pytest.param("btree", "2pl", 2, "no_wait", id="btree-2pl-2-no_wait", marks=[two_cpus, pytest.mark.slow]),
    ],
)
def test_one_instance_keeps_the_conditions(cc, n, policy, index):
    result = islands.run(tpcc(cpus=CPUS[:n], cc=cc, lock_policy=policy, index=index, rollback=0.05))
    assert_consistent(result)
    assert result.commits_by_type["new_order"] > 0 and result.commits_by_type["payment"] > 0
    assert result.user_rollbacks > 0  # NewOrders naming an unused item, apart from aborts
    assert math.isclose(result.new_order_per_min, result.commits_by_type["new_order"] * 60 / result.measured_s)


# This test and test_standard_mix_per_core_keeps_the_conditions below each keep two of the four
# (cc, transport) pairs, one each other's complement: every pair runs in the default suite.
@two_cpus
@pytest.mark.parametrize("cc, transport", cc_and_transport(("none", "unix"), ("2pl", "shm")))
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


# Every mix alone (none) and contended under 2PL's wait-die; no-wait, whose path the one-instance
# tests above run, only for the standard mix (the other three, slow).
@pytest.mark.parametrize(
    "mix,cc,n,policy",
    [
        pytest.param(
            mix,
            *mode,
            id=f"{'-'.join(map(str, mode))}-{mix}",
            marks=[
                *([two_cpus] if mode[1] > 1 else []),
                *([pytest.mark.slow] if mode[2] == "no_wait" and mix != "standard" else []),
            ],
        )
        for mode in (("none", 1, "wait_die"), ("2pl", 2, "wait_die"), ("2pl", 2, "no_wait"))
        for mix in ("standard", "50-50", "80-20", "100-0")
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
@pytest.mark.parametrize("cc, transport", cc_and_transport(("none", "shm"), ("2pl", "unix")))
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
    if mix == "delivery":  # new orders delivered (each once: the consistency conditions above)
        # Each warehouse starts with 180; a quiet machine delivers them all in the window, a
        # loaded one may leave an instance's warehouse undelivered.
        assert result.checks["new_order_rows"] < 2 * 180 and result.checks["delivered_order_line_amount"] > 0


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


def test_verify_names_each_failed_condition():
    good = dict.fromkeys(COUNTED, 0) | dict.fromkeys(FINGERPRINTS, 2 * PRIME)  # summed over instances
    assert verify("tpcc", good) == []
    for name in COUNTED + FINGERPRINTS:
        failures = verify("tpcc", {**good, name: good[name] + 1})
        assert len(failures) == 1, (name, failures)


def probe(corruption="", transactions=3000, mix="new_order:50,payment:50", layout="spec", by_name=0.6):
    # two warehouses in one site: remote payments and items are local to the probe's instance
    config = tpcc(cpus=CPUS[:1], mix=mix, warehouses=2, layout=layout, by_name=by_name, rollback=0.0)
    return _core.tpcc_probe(config.to_core(), transactions, corruption)


# Each corruption of one row and the condition that must name it.
CORRUPTIONS = [
    ("warehouse.ytd", "new_order:50,payment:50", "condition 1:"),
    ("district.next_o_id", "new_order:50,payment:50", "condition 2:"),
    ("new_order.delete", "new_order:50,payment:50", "condition 3:"),
    ("order.ol_cnt", "new_order:50,payment:50", "condition 4:"),
    ("order.carrier_id", "standard", "condition 5:"),
    ("order_line.delete", "standard", "condition 6:"),
    ("order_line.delivery_d", "standard", "condition 7:"),
    ("warehouse.ytd", "payment", "condition 8:"),
    ("district.ytd", "payment", "condition 9:"),
    ("history.amount", "standard", "condition 10:"),
    ("new_order.delete", "new_order:50,payment:50", "condition 11:"),
    ("customer.ytd_payment", "standard", "condition 12:"),
    ("order_line.amount", "standard", "condition 12:"),
    ("stock.ytd", "new_order", "S_YTD"),
    ("stock.order_cnt", "new_order", "S_ORDER_CNT"),
    ("stock.remote_cnt", "new_order", "S_REMOTE_CNT"),
    ("order_line.dist_info", "new_order", "OL_DIST_INFO"),
]


@pytest.mark.parametrize("layout", ["spec", "narrow"])
def test_probe_run_is_consistent_before_corruption(layout):
    for mix in ("standard", "new_order:50,payment:50"):
        out = probe(mix=mix, layout=layout)
        assert out["committed"] > 2500 and out["failures"] == [], out["failures"]


@pytest.mark.parametrize("corruption,mix,needle", CORRUPTIONS)
def test_each_condition_catches_one_broken_row(corruption, mix, needle):
    out = probe(corruption, mix=mix)
    assert out["corrupted"], corruption
    assert any(needle in f for f in out["failures"]), (corruption, out["failures"])


def test_by_name_payments_write_the_customer_into_history():
    # Every payment by name, half of them for a customer of the other warehouse: History must
    # name the customer (it used to write H_C_ID = 0), so condition 10 holds customer by customer.
    config = tpcc(cpus=CPUS[:1], mix="payment", warehouses=2, payment_remote=0.5, by_name=1.0)
    out = _core.tpcc_probe(config.to_core(), 2000, "")
    assert out["failures"] == [] and out["committed"] == 2000
    assert out["figures"]["history_unknown_customers"] == 0
    assert out["figures"]["condition_10_customers"] == 0


def test_delivery_deletes_its_new_order_rows():
    before = probe(transactions=0, mix="delivery")["figures"]
    after = probe(transactions=10, mix="delivery")["figures"]
    # 10 deliveries x 10 districts, each deleting one new-order row from table and index
    assert before["new_order_rows"] - after["new_order_rows"] == 100
    assert after["row_bytes"] < before["row_bytes"]


def test_spec_layout_rows_are_wider_and_labelled():
    spec, narrow = probe(transactions=0)["figures"], probe(transactions=0, layout="narrow")["figures"]
    rows = sum(spec[k] for k in spec if k.endswith("_rows"))
    assert rows == sum(narrow[k] for k in narrow if k.endswith("_rows"))
    assert spec["row_bytes"] > 3 * narrow["row_bytes"]  # order lines, 10 per order, grow least
    result = islands.run(tpcc(layout="narrow", duration=0.1, remote_item=0, payment_remote=0))
    assert "narrow layout" in result.summary() and result.config.tpcc.layout == "narrow"
    assert_consistent(result)


def test_an_oversized_load_is_refused_before_allocating(cli_here):
    out = cli_here(
        "run", "--workload", "tpcc", "--cores", str(CPUS[0]), "--warehouses-per-site", "64",
        "--items", "1000000", "--customers-per-district", "100000", "--duration", "0.1",
    )  # fmt: skip
    assert out.returncode == 2, out.stderr
    line = out.stderr.strip()
    assert len(line.splitlines()) == 1 and "--warehouses-per-site" in line and "GiB" in line, line


def test_a_run_stops_cleanly_at_its_memory_budget():
    available = int(re.search(r"MemAvailable:\s+(\d+) kB", Path("/proc/meminfo").read_text()).group(1)) * 1024
    config = tpcc(mix="new_order", duration=30.0, remote_item=0, payment_remote=0)
    load = _core.tpcc_load_bytes(config.to_core(), 1)
    budget = 1.3 * load / available  # room for the load and a little growth
    small = {"mix": "new_order", "duration": 30.0, "remote_item": 0, "payment_remote": 0, "memory_budget": budget}
    result = islands.run(tpcc(**small, warmup=0))
    # It ends long before its 30 s, keeps what it measured, and says why.
    assert len(result.stopped_early) == 1 and "memory budget (tpcc.memory_budget" in result.stopped_early[0]
    assert 0 < result.measured_s < 30.0 and result.commits > 0 and result.check_failures == []
    assert result.checks["table_bytes"] <= 1.5 * budget * available  # a few ms of growth past it, at most
    assert "stopped     after" in result.summary()
    # Stopped in its warm-up: an empty window, whose rates are unknown (NaN), not 0.
    result = islands.run(tpcc(**small, warmup=30.0))
    assert result.stopped_early and result.measured_s == 0 and result.commits == 0 and result.check_failures == []
    assert math.isnan(result.throughput_tps) and math.isnan(result.workers[0].throughput_tps)


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
def test_bad_tpcc_input_is_one_line_and_exit_2(cli_here, args, needle):
    out = cli_here("run", "--workload", "tpcc", "--cores", str(CPUS[0]), "--items", "1000", "--duration", "0.1", *args)
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
    "figure,grid,multi",
    [
        ("000-fig24", 'mix = "payment"\npayment_remote = [0.0, 1.0]', True),
        # Fig 22's 8 points in one instance only: per core, its runs took 10 s (Fig 24 runs both).
        (
            "000-fig22",
            'mix = ["payment", "new_order"]\npayment_remote = [0.0, 0.15]\nnew_order_remote_item = [0.0, 0.01]',
            False,
        ),
    ],
)
def test_sweep_stores_tpcc_rows_and_plots_them(cli_here, tmp_path, figure, grid, multi):
    import json

    from islands.analysis.store import ResultStore

    deployments = '["1", "per-core"]' if len(CPUS) > 1 and multi else '["1"]'
    spec = tmp_path / "tpcc.toml"
    spec.write_text(SWEEP.format(figure=figure, cpus=",".join(map(str, CPUS[:2])), deployments=deployments, grid=grid))
    out = cli_here("sweep", str(spec), "--out", str(tmp_path / "res"), "--no-progress")
    assert out.returncode == 0, out.stderr
    rows = ResultStore(tmp_path / "res").rows()
    assert set(rows["config.workload"]) == {"tpcc"}
    assert all(json.loads(f) == [] for f in rows["check_failures"])
    drawn = cli_here("plot", str(tmp_path / "res"))
    assert drawn.returncode == 0, drawn.stderr
    summary = (tmp_path / "res" / "summary.txt").read_text()
    assert "TPC-C Payment" in summary and "TPC-C spec layout" in summary
    assert all(b > 0 for b in rows["bytes_per_txn"])  # every result says how much the rows grew


@two_cpus
def test_a_deployment_stops_cleanly_at_its_memory_budget():
    # Each instance stops at its sites' share of the budget; the run ends cleanly, saying so.
    available = int(re.search(r"MemAvailable:\s+(\d+) kB", Path("/proc/meminfo").read_text()).group(1)) * 1024
    config = tpcc(cpus=CPUS[:2], cc="2pl", mix="new_order", warehouses=1, duration=30.0, payment_remote=0)
    load = _core.tpcc_load_bytes(config.to_core(), 2)
    small = tpcc(
        cpus=CPUS[:2],
        cc="none",
        lock_policy="no_wait",
        mix="new_order",
        warehouses=1,
        duration=30.0,
        payment_remote=0,
        memory_budget=1.3 * load / available,
        warmup=0,
    )
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(deployment, small, transport="shm")
    assert result.stopped_early and all("tpcc.memory_budget" in why for why in result.stopped_early)
    assert result.stopped_early[0].startswith("instance ")
    assert result.measured_s < 30.0 and result.check_failures == [] and result.throughput_tps > 0
