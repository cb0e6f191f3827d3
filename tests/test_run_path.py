"""One run path (issue 44): islands run, a sweep's point and the Python API all go through
islands.execution.runner (plan() decides, execute() runs). A logged single instance runs the same
way from the command line and from a sweep; the command line imports no way of running of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from islands.__main__ import build_parser
from islands.cli.run_command import config_from_args
from islands.execution.runner import execute, plan, plan_point
from islands.experiments.spec import ExperimentSpec
from islands.experiments.sweep import Sweep
from islands.machine.topology import read_topology

HERE = read_topology()
RUN_COMMAND = Path(__file__).resolve().parent.parent / "islands" / "cli" / "run_command.py"

pytestmark = pytest.mark.usefixtures("private_run_root")


def test_the_run_command_has_no_way_of_running_of_its_own():
    imported = set()
    for node in ast.walk(ast.parse(RUN_COMMAND.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert "islands.execution.runner" in imported
    assert not imported & {"islands.execution.launcher", "islands.execution.in_process"}, imported


def test_a_logged_single_instance_runs_the_same_way_from_the_cli_and_from_a_sweep(tmp_path):
    cpu = str(HERE.cpus[0])
    run = build_parser().parse_args(
        ["run", "--cores", cpu, "--update", "--log", "group_commit", "--duration", "0.2", "--warmup", "0.05"]
    )
    from_cli = plan(config_from_args(run), run.deployment, topology=HERE, cpus=(HERE.cpus[0],))
    spec = ExperimentSpec.from_dict(
        {
            "name": "logged-one",
            "figure": "none",
            "run": {"duration_s": 0.2, "warmup_s": 0.05, "cpus": cpu, "steady_warmup": False},
            "grid": {"deployment": ["1"], "update": [True]},
            "log": {"mode": "group_commit", "directory": str(tmp_path)},
        }
    )
    point = Sweep(spec, HERE, tmp_path / "out").grid_points[0]
    from_sweep = plan_point(point.deployment, point.config, point.transport, HERE)
    for planned in (from_cli, from_sweep):
        assert planned.in_process and planned.transport == "none" and not planned.keep_log
        assert planned.config.log.mode == "group_commit" and planned.config.engine.cc == "none"
    results = [execute(from_cli), execute(from_sweep)]
    for result in results:
        assert result.transport == "none" and result.deployment.n_instances == 1
        assert result.instances[0]["log"]["records"] > 0, result.instances[0]["log"]
        assert result.check_failures == []
    # The sweep's row keeps its point's config (its [log] directory, not the run's own), so that
    # its repetitions share one config hash; the fresh log directories are gone.
    assert results[1].config == point.config
    assert list(tmp_path.glob("islands-log-*")) == []
