"""Experiment files with a ``[probe]`` (islands.experiments.probes): paper 002's Fig 9 (re-partitioning
cost) and Table 2 (monitoring overhead) from ``islands reproduce``. The repository's files
validate; bad probes are one-line errors naming the key; a quick reproduce of a small copy of
each sweeps, stores the probe's numbers in the rows and draws the figure."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

import islands
from islands.experiments.reproduce import QUICK_PROBE_DURATION_S, experiments_for, quick_spec
from islands.experiments.spec import ExperimentSpec
from islands.experiments.sweep import load_spec
from islands.plots.atrapos_costs import plot_monitoring_rows, plot_repartition_rows

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
CPUS = islands.read_topology().cpus
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two online CPUs")


def test_the_repositorys_files_validate_and_shrink():
    [fig9] = experiments_for("002-fig9", EXPERIMENTS)
    [table2] = experiments_for("002-table2", EXPERIMENTS)
    spec9, spec2 = load_spec(fig9), load_spec(table2)
    assert spec9.probe is not None and spec9.probe.kind == "repartition_cost"
    assert spec9.probe.actions == (1, 10, 20, 40, 80)
    assert spec9.fixed("micro")["rows_per_site"] * 2 == 800_000  # the paper's size on two workers
    assert spec2.probe is not None and spec2.probe.kind == "monitor_overhead" and spec2.probe.phase_s == 0.1
    for spec in (spec9, spec2):
        quick = quick_spec(spec)
        assert quick.probe == spec.probe and quick.duration_s == QUICK_PROBE_DURATION_S
        # the probe is part of what the point measures: the spec says so, and the runs get what it needs
        assert spec.to_dict()["probe"] == spec.probe.to_dict()
        assert ExperimentSpec.from_dict(spec.to_dict()).spec_hash() == spec.spec_hash()
    config = spec2.base_config(n_cpus=2)
    assert config.engine.plp_monitor and config.driver.timeline_interval_s == 0.01


BASE = """
name = "probe-test"
figure = "002-fig9"
workload = "micro"
[grid]
deployment = ["1"]
transport = ["none"]
[micro]
rows_per_site = 1000
[engine]
execution = "plp"
"""


@pytest.mark.parametrize(
    ("extra", "key", "why"),
    [
        ('[probe]\nkind = "nope"', "probe.kind", "choose one of repartition_cost, monitor_overhead"),
        ("[probe]\nactions = [1]", "probe.kind", "missing"),
        ('[probe]\nkind = "repartition_cost"\nactions = [0, 5]', "probe.actions", "not a list of action counts"),
        ('[probe]\nkind = "repartition_cost"\nactions = [5, 5]', "probe.actions", "lists a count twice"),
        ('[probe]\nkind = "repartition_cost"\nphase_s = 0.1', "probe.phase_s", "not a key of the repartition_cost"),
        ('[probe]\nkind = "monitor_overhead"\nphase_s = 0.01', "probe.phase_s", "not a number of seconds >= 0.05"),
        ("probe = 3", "probe", "must be a table"),
    ],
)
def test_bad_probes_are_one_line_errors(tmp_path, extra, key, why):
    path = tmp_path / "probe-test.toml"
    path.write_text(extra + "\n" + BASE if extra.startswith("probe =") else BASE + extra + "\n")  # top level
    with pytest.raises(ValueError) as caught:
        load_spec(path)
    message = str(caught.value)
    assert "\n" not in message and f": {key}: " in message and why in message, message


@pytest.mark.parametrize(
    ("change", "key", "why"),
    [
        (('execution = "plp"', 'execution = "shared_everything"'), "probe", "runs beside PLP"),
        (('deployment = ["1"]', 'deployment = ["per-core"]'), "grid.deployment", "runs one instance"),
        (("[engine]", "[[schedule]]\nat_s = 1.0\npark = 1\n[engine]"), "schedule", "not with a [probe]"),
    ],
)
def test_a_probe_runs_beside_one_plp_instance(tmp_path, change, key, why):
    path = tmp_path / "probe-test.toml"
    path.write_text(BASE.replace(*change) + '[probe]\nkind = "repartition_cost"\n')
    with pytest.raises(ValueError, match=rf": {re.escape(key)}: .*{re.escape(why)}"):
        load_spec(path)


def test_bad_input_to_reproduce_is_one_line(cli_here, tmp_path):
    experiments = tmp_path / "experiments"
    experiments.mkdir()
    (experiments / "002-fig9-bad.toml").write_text(BASE + '[probe]\nkind = "repartition_cost"\nactions = "all"\n')
    out = cli_here("reproduce", "002-fig9", "--quick", "--experiments", str(experiments), "--results", str(tmp_path))
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "probe.actions: 'all' is not a list of action counts" in lines[0], out.stderr


FIG9 = """
name = "002-fig9-tiny"
figure = "002-fig9"
workload = "micro"
[run]
warmup_s = 0.05
duration_s = 0.6
[grid]
deployment = ["1"]
transport = ["none"]
[micro]
rows_per_site = 5000
rows_per_txn = 4
multisite = 0.5
update = true
[engine]
execution = "plp"
[probe]
kind = "repartition_cost"
actions = [1, 4, 8]
"""

TABLE2 = """
name = "002-table2-tiny"
figure = "002-table2"
workload = "tatp"
[run]
warmup_s = 0.05
duration_s = 0.6
[grid]
deployment = ["1"]
transport = ["none"]
mix = ["get_subscriber_data", "update_location"]
[tatp]
subscribers_per_site = 5000
[engine]
execution = "plp"
[probe]
kind = "monitor_overhead"
phase_s = 0.1
"""


def _reproduce(cli, tmp_path, figure, name, text):
    experiments = tmp_path / "experiments"
    experiments.mkdir(exist_ok=True)
    (experiments / f"{name}.toml").write_text(text)
    results = tmp_path / "results"
    out = cli("reproduce", figure, "--quick", "--experiments", str(experiments), "--results", str(results), "--json")
    assert out.returncode == 0, out.stderr
    [done] = json.loads(out.stdout)
    assert Path(done["png"]).is_file() and Path(done["pdf"]).is_file()
    from islands.analysis.store import ResultStore

    return done, ResultStore(results / f"{name}-quick").rows()


@two_cpus
def test_reproduce_quick_draws_fig9_from_the_probes_rows(cli_here, tmp_path):
    done, rows = _reproduce(cli_here, tmp_path, "002-fig9", "002-fig9-tiny", FIG9)
    assert done["ran"] == 1
    [row] = rows.to_dict("records")
    assert json.loads(row["probe.actions"]) == [1, 4, 8] and row["probe.error"] == ""
    totals = json.loads(row["probe.total_ms"])
    assert len(totals) == 3 and all(math.isfinite(t) and t > 0 for t in totals)
    assert json.loads(row["instances"])[0]["repartitioning"]["units_moved"] == 13  # 1 + 4 + 8 single-unit moves
    assert "10,000 rows (paper: 800,000)" in done["summary"]
    assert "8 actions:" in done["summary"] and "200 ms" in done["summary"]


@two_cpus
def test_reproduce_quick_draws_table2_from_the_probes_rows(cli_here, tmp_path):
    done, rows = _reproduce(cli_here, tmp_path, "002-table2", "002-table2-tiny", TABLE2)
    assert done["ran"] == 2
    for row in rows.to_dict("records"):
        off, on = json.loads(row["probe.off_tps"]), json.loads(row["probe.on_tps"])
        assert off and on and all(x > 0 for x in off + on), row["probe.error"]
    summary = done["summary"]
    assert "GetSubData: off " in summary and "UpdLocation: off " in summary and "overhead" in summary
    assert "  GetSubData: " in summary and "phases off" in summary and "3.32%" in summary


def test_the_figures_refuse_rows_of_another_probe():
    rows = pd.DataFrame({"probe.kind": ["monitor_overhead"], "probe.actions": ["[1]"], "probe.total_ms": ["[1.0]"]})
    with pytest.raises(ValueError, match="needs the rows of a repartition_cost"):
        plot_repartition_rows(rows)
    unfinished = pd.DataFrame(
        {
            "probe.kind": ["repartition_cost"],
            "probe.actions": ["[1, 10]"],
            "probe.total_ms": ["[NaN, NaN]"],
            "probe.error": ["the instance stopped after 0 of 1 actions"],
        }
    )
    with pytest.raises(ValueError, match="no sequence of actions finished .the instance stopped after 0 of 1"):
        plot_repartition_rows(unfinished)
    two = pd.DataFrame(
        {"probe.kind": ["monitor_overhead"], "probe.off_tps": ["[1.0]"], "probe.on_tps": ["[]"], "probe.error": [""]}
    )
    with pytest.raises(ValueError, match="has no phase with the recording on"):
        plot_monitoring_rows(two)
