"""TPC-B: AccountUpdate in one instance and across instances, every CC mode and transport,
with the balance invariants checked after each run; the loader's cardinalities; bad input."""

from __future__ import annotations

import json

import pytest

import islands
from islands.analysis.store import ResultStore
from islands.config.settings import DriverConfig, EngineConfig, RunConfig, TpcbConfig
from islands.execution.consistency import verify
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from suite_marks import cc_and_transport, two_cpus

TOPOLOGY = islands.read_topology()
CPUS = TOPOLOGY.cpus
pytestmark = pytest.mark.usefixtures("private_run_root")


def tpcb(
    cpus=(0,),
    cc="2pl",
    lock_policy="wait_die",
    remote=0.15,
    branches_per_site=2,
    accounts=500,
    duration=0.3,
    index="hash",
    tellers=10,
) -> RunConfig:
    return RunConfig(
        workload="tpcb",
        tpcb=TpcbConfig(
            branches_per_site=branches_per_site, accounts_per_branch=accounts, tellers_per_branch=tellers, remote=remote
        ),
        engine=EngineConfig(index=index, cc=cc, lock_policy=lock_policy),
        driver=DriverConfig(cpus=tuple(cpus), warmup_s=0.05, duration_s=duration),
    )


def assert_balanced(result) -> None:
    c = result.checks
    assert result.commits > 0
    assert result.check_failures == [], result.check_failures
    # The same conditions verify() applies, spelled out: every balance moved by the same deltas.
    assert c["branch_balance_sum"] == c["teller_balance_sum"] == c["account_balance_sum"] == c["history_delta_sum"]
    assert c["history_rows"] == c["committed_txns"] >= result.commits
    assert c["branches_unlike_accounts"] == 0 and c["branches_unlike_history"] == 0
    assert c["committed_row_updates"] == 3 * c["committed_txns"]


# Each index alone and contended (under one lock policy each); the other policy per index, slow.
@pytest.mark.parametrize(
    "index,cc,cpus,policy",
    [
        pytest.param("hash", "none", 1, "wait_die", id="hash-none-1-wait_die"),
        pytest.param("hash", "2pl", 2, "wait_die", id="hash-2pl-2-wait_die", marks=[two_cpus, pytest.mark.slow]),
        pytest.param("hash", "2pl", 2, "no_wait", id="hash-2pl-2-no_wait", marks=two_cpus),
        pytest.param("btree", "none", 1, "wait_die", id="btree-none-1-wait_die"),
        pytest.param("btree", "2pl", 2, "wait_die", id="btree-2pl-2-wait_die", marks=two_cpus),
        pytest.param("btree", "2pl", 2, "no_wait", id="btree-2pl-2-no_wait", marks=[two_cpus, pytest.mark.slow]),
    ],
)
def test_one_instance_keeps_balances(cc, cpus, policy, index):
    # One branch per worker and every teller remote: workers collide on each other's tellers.
    result = islands.run(
        tpcb(
            cpus=CPUS[:cpus],
            cc=cc,
            lock_policy=policy,
            remote=1.0 if cpus > 1 else 0.15,
            branches_per_site=1 if cpus > 1 else 2,
            index=index,
        )
    )
    assert_balanced(result)


# none over unix and 2pl over shm: each scheme and each transport once; the other two pairs, slow.
@two_cpus
@pytest.mark.parametrize("cc, transport", cc_and_transport(("none", "unix"), ("2pl", "shm")))
def test_instances_keep_balances_across_2pc(transport, cc):
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(
        deployment,
        tpcb(cpus=CPUS[:2], cc=cc, lock_policy="no_wait", remote=0.5, branches_per_site=1),
        transport=transport,
    )
    assert result.deployment.n_instances == 2
    assert 0 < result.multisite_commits < result.commits
    assert_balanced(result)


@two_cpus
def test_prepared_hot_tellers_make_local_work_abort_and_stay_consistent():
    # One teller per branch: a local AccountUpdate meets its teller held by the other
    # instance's prepared fragment (waiting for its decision) and aborts, undone.
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(
        deployment,
        tpcb(cpus=CPUS[:2], cc="none", remote=0.5, branches_per_site=1, accounts=50, tellers=1),
        transport="shm",
    )
    assert result.aborts["prepared_conflict"] > 0
    assert_balanced(result)


@two_cpus
def test_all_remote_tellers_are_all_distributed():
    deployment = plan_deployment(TOPOLOGY, "per-core", cpus=CPUS[:2])
    result = run_deployment(
        deployment,
        tpcb(cpus=CPUS[:2], cc="2pl", lock_policy="no_wait", remote=1.0, branches_per_site=1),
        transport="unix",
    )
    assert result.multisite_commits == result.commits  # every teller is of the other branch
    assert_balanced(result)


def test_local_only_sends_no_fragments():
    result = islands.run(tpcb(cc="none", remote=0.0, branches_per_site=1))
    assert_balanced(result)


def test_loader_builds_the_specification_cardinalities():
    # The specification's scale: 1 branch, 10 tellers, 100000 accounts per branch.
    result = islands.run(
        RunConfig(
            workload="tpcb",
            tpcb=TpcbConfig(branches_per_site=3, remote=0.0),
            engine=EngineConfig(cc="none"),
            driver=DriverConfig(cpus=CPUS[:1], warmup_s=0.0, duration_s=0.05),
        )
    )
    c = result.checks
    assert (c["branch_rows"], c["teller_rows"], c["account_rows"]) == (3, 30, 300_000)
    assert c["history_rows"] == c["committed_txns"]


def test_the_conditions_catch_a_lost_update():
    good = {
        "branch_balance_sum": 5,
        "teller_balance_sum": 5,
        "account_balance_sum": 5,
        "history_delta_sum": 5,
        "history_rows": 2,
        "committed_txns": 2,
        "branches_unlike_accounts": 0,
        "branches_unlike_history": 0,
    }
    assert verify("tpcb", good) == []
    assert len(verify("tpcb", {**good, "teller_balance_sum": 4})) == 1
    assert len(verify("tpcb", {**good, "history_rows": 3})) == 1
    assert len(verify("tpcb", {**good, "branches_unlike_history": 1})) == 1
    assert verify("tpcb", {**good, "branches_unlike_tellers": 2}) == [
        "tpcb: 2 branches whose balance is not the sum of its tellers"
    ]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--remote", "1.5"], "--remote: must be between 0 and 1, got 1.5"),
        (["--branches-per-site", "0"], "--branches-per-site: must be between"),
        (["--accounts-per-branch", "0"], "--accounts-per-branch: must be between"),
        (["--remote", "0.15", "--branches-per-site", "1"], "--remote: a remote transaction needs a second branch"),
        (["--remote-pick", "branch"], "--remote-pick: 'branch' is neither teller nor account"),
    ],
)
def test_bad_tpcb_input_is_one_line_and_exit_2(cli_here, args, needle):
    out = cli_here("run", "--workload", "tpcb", "--cores", str(CPUS[0]), "--duration", "0.1", *args)
    assert out.returncode == 2, out.stderr
    assert needle in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_unknown_workload_is_one_line_and_exit_2(cli_here):
    out = cli_here("run", "--workload", "tpcz", "--cores", str(CPUS[0]), "--duration", "0.1")
    assert out.returncode == 2
    assert "argument --workload: invalid choice: 'tpcz' (choose from 'micro', 'tpcb'" in out.stderr


@two_cpus
def test_cli_runs_tpcb_per_core_and_stores_its_config(cli_here):
    out = cli_here(
        "run",
        "--workload",
        "tpcb",
        "--cores",
        ",".join(map(str, CPUS[:2])),
        "--deployment",
        "per-core",
        "--accounts-per-branch",
        "1000",
        "--remote",
        "0.3",
        "--remote-pick",
        "account",
        "--warmup",
        "0.05",
        "--duration",
        "0.2",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["config"]["workload"] == "tpcb"
    assert result["config"]["tpcb"] == {
        "branches_per_site": 1,
        "tellers_per_branch": 10,
        "accounts_per_branch": 1000,
        "remote": 0.3,
        "remote_pick": "account",
    }
    assert result["check_failures"] == [] and result["commits"] > 0
    # With remote accounts a branch moves with its tellers, not with its accounts.
    assert result["checks"]["branches_unlike_tellers"] == 0 and "branches_unlike_accounts" not in result["checks"]
    assert result["multisite_commits"] > 0


SWEEP = """
name = "tpcb-tiny"
figure = "{figure}"
workload = "tpcb"
[run]
warmup_s = 0.05
duration_s = 0.15
cpus = "{cpus}"
[grid]
deployment = {deployments}
transport = ["shm"]
remote = {remote}
[tpcb]
accounts_per_branch = 200
branches_per_site = 2
"""


@pytest.mark.parametrize("figure,remote", [("000-fig23", "[0.0, 0.5, 1.0]"), ("000-fig22", "[0.0, 0.15]")])
def test_sweep_stores_tpcb_rows_and_plots_them(cli_here, tmp_path, figure, remote):
    deployments = '["1", "per-core"]' if len(CPUS) > 1 else '["1"]'
    spec = tmp_path / "tpcb.toml"
    spec.write_text(
        SWEEP.format(figure=figure, cpus=",".join(map(str, CPUS[:2])), deployments=deployments, remote=remote)
    )
    out = cli_here("sweep", str(spec), "--out", str(tmp_path / "res"), "--no-progress")
    assert out.returncode == 0, out.stderr
    rows = ResultStore(tmp_path / "res").rows()
    assert set(rows["config.workload"]) == {"tpcb"}
    assert sorted(set(rows["config.tpcb.remote"])) == sorted(json.loads(remote))
    assert all(json.loads(f) == [] for f in rows["check_failures"])  # stored as JSON text
    drawn = cli_here("plot", str(tmp_path / "res"))
    assert drawn.returncode == 0, drawn.stderr
    assert "TPC-B" in (tmp_path / "res" / "summary.txt").read_text()


def test_sweep_names_a_bad_tpcb_value(cli_here, tmp_path):
    spec = tmp_path / "bad.toml"
    spec.write_text(SWEEP.format(figure="000-fig23", cpus=CPUS[0], deployments='["1"]', remote="[0.0, 1.5]"))
    out = cli_here("sweep", str(spec), "--dry-run")
    assert out.returncode == 2
    assert "grid.remote" in out.stderr and "1.5" in out.stderr
