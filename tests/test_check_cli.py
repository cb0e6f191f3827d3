"""``python -m islands check``: runs a workload on a deployment and checks its conditions."""

from __future__ import annotations

import islands

CPUS = islands.read_topology().cpus


def test_check_runs_each_workload_and_reports_consistency(cli_here):
    cores = ",".join(map(str, CPUS[:2]))
    deployment = "per-core" if len(CPUS) > 1 else "1"
    transport = ["--transport", "shm"] if len(CPUS) > 1 else []  # a single instance takes none
    for args in (
        ["--workload", "tpcc", "--items", "1000", "--customers-per-district", "30", "--warehouses-per-site", "2"],
        ["--workload", "tpcb", "--accounts-per-branch", "500", "--branches-per-site", "2"],
        ["--workload", "tatp", "--subscribers-per-site", "1000"],
        ["--update", "--multisite", "0.2"],
    ):
        out = cli_here(
            "check",
            *args,
            "--cores",
            cores,
            "--deployment",
            deployment,
            *transport,
            "--warmup",
            "0.05",
            "--duration",
            "0.15",
        )
        assert out.returncode == 0, out.stderr
        assert "consistent: every condition holds" in out.stdout


def test_check_json_carries_the_figures(cli_here):
    import json

    out = cli_here(
        "check",
        "--workload",
        "tpcc",
        "--items",
        "1000",
        "--customers-per-district",
        "30",
        "--warehouses-per-site",
        "2",
        "--cores",
        str(CPUS[0]),
        "--duration",
        "0.1",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["check_failures"] == [] and result["checks"]["condition_2_districts"] == 0


def test_check_bad_input_is_one_line_and_exit_2(cli_here):
    out = cli_here("check", "--workload", "tpcc", "--tpcc-mix", "new_order:10", "--cores", str(CPUS[0]))
    assert out.returncode == 2
    assert "mix: the weights sum to 10, not 100" in out.stderr and len(out.stderr.strip().splitlines()) == 1
