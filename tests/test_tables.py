"""Result tables that fit a terminal (islands.analysis.tables): ``islands results``,
``--points`` and ``compare`` on a stored sweep of the default experiment (its read-only points
run unlogged, so the config.log.* columns are empty on half the rows) show the axes that vary
and the measured columns within 120 characters; ``--all-columns`` and ``--csv`` keep every
column."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from islands.__main__ import main as cli_main
from islands.analysis.comparison import compare_dirs, load_rows
from islands.analysis.tables import fit_table, point_axes
from islands.experiments.sweep import Point, Sweep, load_spec
from islands.machine.topology import read_topology
from tiny_spec import QuietExecutor

REPO = Path(__file__).resolve().parents[1]


def stored_sweep(tmp_path: Path, name: str, factor: float = 1.0) -> Path:
    """experiments/default.toml recorded with a runner of known throughput (no engine)."""
    # Two repetitions a point and no precision rounds: the file's 5 and its rounds stored 60 runs
    # a sweep, seconds of the store's writes; the tables need a spread, not its size.
    spec = (REPO / "experiments" / "default.toml").read_text()
    spec, repetitions = re.subn(r"(?m)^repetitions = \d+$", "repetitions = 2", spec)
    spec, precision = re.subn(r"(?m)^(precision|budget_s|max_repetitions) = .*$", "", spec)
    assert (repetitions, precision) == (1, 3)
    spec_file = tmp_path / "default.toml"
    spec_file.write_text(spec)
    out = tmp_path / name

    def runner(point: Point) -> dict[str, Any]:
        tps = 1e6 * factor * (1 - 0.5 * point.config.micro.multisite) * (1.01 if point.repetition else 0.99)
        return {"throughput_tps": tps, "commits": 10, "abort_rate": 0.0, "latency": {"p50_us": 2.5, "p99_us": 40.0}}

    Sweep(load_spec(spec_file), read_topology(), out).run(runner, progress=False, executor=QuietExecutor())
    return out


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    capsys.readouterr()
    assert cli_main(list(args)) == 0
    return capsys.readouterr().out.splitlines()


def test_tables_of_a_stored_sweep_fit_120_columns(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    a, b = stored_sweep(tmp_path, "a"), stored_sweep(tmp_path, "b", 1.2)
    rows = load_rows(a)
    assert rows["config.log.mode"].isna().any() and rows["config.log.mode"].notna().any()
    assert point_axes(rows) == ["config.micro.update", "config.micro.multisite"]

    listing = run_cli(capsys, "results", str(a))
    points = run_cli(capsys, "results", str(a), "--points")
    compared = run_cli(capsys, "compare", str(a), str(b))
    for name, lines in (("results", listing), ("--points", points), ("compare", compared)):
        assert max(len(line) for line in lines) <= 120, (name, max(lines, key=len))
        text = "\n".join(lines)
        assert "log" not in text and "nan" not in text.lower(), name
    assert listing[0].split() == [
        *("point", "rep", "deployment", "transport", "update", "multisite"),
        *("txn/s", "aborts", "p50_us", "p99_us", "run_s", "busy"),
    ]
    assert len(listing) == 1 + len(rows) or listing[-1].startswith("(")
    assert points[0] == "transport: unix on every point"
    assert points[1].split()[:4] == ["deployment", "update", "multisite", "n"] and "95% CI" in points[1]
    labels = [p.label for p in compare_dirs(a, b).points]
    assert labels[0] == "1ISL unix update=false multisite=0" and all("=nan" not in label for label in labels)
    assert any(line.startswith("1ISL unix update=true multisite=0.5") for line in compared)

    # Everything is still there when asked for.
    wide = run_cli(capsys, "results", str(a), "--all-columns")
    assert "config.log.mode" in wide[0] and len(wide[0]) > 120
    csv = "\n".join(run_cli(capsys, "results", str(a), "--csv"))
    others = ("config.tpcb.", "config.tatp.", "config.tpcc.")  # the settings of workloads these rows do not run
    assert list(pd.read_csv(io.StringIO(csv)).columns) == [c for c in rows.columns if not c.startswith(others)]


def test_fit_table_drops_empty_columns_and_says_what_it_left_off():
    table = pd.DataFrame(
        {"config.micro.update": [True, False], "empty": [float("nan")] * 2, **{f"m{i}": [1.5, 2e6] for i in range(30)}}
    )
    text = fit_table(table, width=60)
    lines = text.splitlines()
    assert all(len(line) <= 60 for line in lines) and "empty" not in text
    assert lines[0].split()[0] == "update" and lines[1].split()[0] == "true" and "2,000,000" in lines[2]
    assert lines[-1].startswith("(") and "--all-columns" in lines[-1]
    shown = len(lines[0].split())
    assert lines[-1].startswith(f"({31 - shown} more columns")


def test_a_benchmarks_rows_list_what_varies(tmp_path, capsys, monkeypatch):
    from islands.analysis.store import ResultStore

    monkeypatch.setenv("COLUMNS", "120")
    store = ResultStore(tmp_path / "bench")
    store.create({"bench": "ipc", "figure": "000-fig2"})
    store.append(
        {
            "bench": "ipc",
            "mechanism": m,
            "config.mechanism": m,
            "config.message_bytes": 256,
            "repetition": r,
            "rtt_p50_us": 20.0 + r if m == "pipe" else 0.2,
            "metadata.hostname": "vm",
            "system.busy": False,
        }
        for m in ("pipe", "shm_ring")
        for r in (0, 1)
    )
    lines = run_cli(capsys, "results", str(tmp_path / "bench"))
    assert lines[0].split() == ["mechanism", "rep", "rtt_p50_us"]  # constants and host columns left out
    assert len(lines) == 5 and lines[1].split() == ["pipe", "0", "20"]


def test_points_at_80_columns_show_the_interval_and_name_what_they_leave_off(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    a = stored_sweep(tmp_path, "a")
    lines = run_cli(capsys, "results", str(a), "--points")
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    assert lines[0] == "transport: unix on every point"  # a name with one value is said once
    header = lines[1]
    assert (
        "95% CI" in header and "median" in header and header.split()[:4] == ["deployment", "update", "multisite", "n"]
    )
    first = lines[2].split()
    assert first[:3] == ["1ISL", "false", "0"] and "0.99-1.01 M" in lines[2]  # both reps: 0.99 and 1.01 M
    cut = [c for c in ("mean", "busy", "min-max") if c not in header]
    if cut:  # what did not fit is named, with how to see it
        assert lines[-1].startswith(f"({len(cut)} more column") and all(c in lines[-1] for c in cut)
        assert "--columns" in lines[-1]
    # Wide enough, nothing is cut; and the user picks columns by name.
    monkeypatch.setenv("COLUMNS", "200")
    wide = run_cli(capsys, "results", str(a), "--points")
    assert {"mean", "min-max", "95% CI"} <= set(re.split(r"\s{2,}", wide[1])) and not wide[-1].startswith("(")
    picked = run_cli(capsys, "results", str(a), "--points", "--columns", "deployment,multisite,ci_low,ci_high")
    assert picked[0].split() == ["deployment.name", "config.micro.multisite", "ci_low", "ci_high"]


def test_a_table_too_narrow_for_the_interval_says_it_cut_it():
    table = pd.DataFrame(
        {"deployment.name": ["1ISL", "24ISL"], "n": [3, 3], "median": ["1.2 M", "3.4 M"], "95% CI": ["1.1-1.3 M"] * 2}
    )
    text = fit_table(table, width=18, cut_first=("median",))
    assert "95% CI" not in text.splitlines()[0] and "median" not in text.splitlines()[0]
    assert text.splitlines()[-1].startswith("(2 more columns: median, 95% CI;")


def mixed_workload_store(tmp_path: Path) -> Path:
    """A micro row and a TPC-C row, each with every workload's settings (as a run's config carries them)."""
    from islands.analysis.store import ResultStore

    store = ResultStore(tmp_path / "mixed")
    store.create({"experiment": "mixed", "figure": "none"})
    sections = {
        "micro": {"rows_per_txn": 10},
        "tpcb": {"branches_per_site": 1},
        "tatp": {"subscribers_per_site": 1000},
        "tpcc": {"warehouses_per_site": 1},
    }
    for i, workload in enumerate(("micro", "tpcc")):
        store.append(
            [
                {
                    "point_index": i,
                    "repetition": 0,
                    "grid_id": f"g{i}",
                    "deployment": {"name": "1ISL"},
                    "transport": "unix",
                    "config": {"workload": workload, **sections},
                    "throughput_tps": 1e5 * (i + 1),
                }
            ]
        )
    return store.directory


def test_csv_and_json_carry_only_the_settings_of_each_rows_workload(tmp_path, capsys):
    directory = mixed_workload_store(tmp_path)
    csv = pd.read_csv(io.StringIO("\n".join(run_cli(capsys, "results", str(directory), "--csv"))))
    assert not [c for c in csv.columns if c.startswith(("config.tpcb.", "config.tatp."))]
    micro, tpcc = csv.iloc[0], csv.iloc[1]
    assert micro["config.micro.rows_per_txn"] == 10 and pd.isna(micro["config.tpcc.warehouses_per_site"])
    assert tpcc["config.tpcc.warehouses_per_site"] == 1 and pd.isna(tpcc["config.micro.rows_per_txn"])
    import json

    objects = json.loads("\n".join(run_cli(capsys, "results", str(directory), "--json")))
    assert [sorted(k for k in o if k.startswith("config.") and k != "config.workload") for o in objects] == [
        ["config.micro.rows_per_txn"],
        ["config.tpcc.warehouses_per_site"],
    ]


def test_export_writes_a_summary_and_samples_that_need_nothing_of_islands(tmp_path, capsys):
    import csv
    import json
    import subprocess
    import sys

    a = stored_sweep(tmp_path, "a")
    out = tmp_path / "export"
    printed = run_cli(capsys, "results", str(a), "--export", str(out))
    summary_path, samples_path = out / "default.summary.json", out / "default.samples.csv"
    assert printed == [f"wrote {summary_path}", f"wrote {samples_path}"]

    def strict(word: str) -> None:
        raise ValueError(f"not strict JSON: {word}")

    summary = json.loads(summary_path.read_text(), parse_constant=strict)
    rows = load_rows(a)
    assert summary["experiment"] == "default" and summary["figure"] == "000-fig11" and summary["rows"] == len(rows)
    assert summary["axes"] == ["config.micro.update", "config.micro.multisite"]
    assert summary["settings"]["micro.rows_per_txn"] == 10 and "tpcc.warehouses_per_site" not in summary["settings"]
    assert "log.mode" not in summary["settings"]  # read points run unlogged: not one value on every row
    point = summary["points"][0]
    assert point["n"] == 2 and point["ci_low"] < point["mean"] < point["ci_high"]
    verdicts = summary["verdicts"]
    assert verdicts["figure_summary"][0].startswith("000-fig11: throughput vs % multisite")
    assert any("95% CI" in line for line in verdicts["figure_summary"])
    with samples_path.open() as f:
        samples = list(csv.DictReader(f))
    assert len(samples) == len(rows) == summary["samples"]["rows"]
    assert list(samples[0]) == summary["samples"]["columns"] and "throughput_tps" in samples[0]
    # A plain Python without islands on its path reads both.
    read = subprocess.run(
        [
            sys.executable,
            "-I",
            "-c",
            "import csv, json, sys; json.load(open(sys.argv[1])); print(len(list(csv.DictReader(open(sys.argv[2])))))",
            str(summary_path),
            str(samples_path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert read.returncode == 0 and read.stdout.strip() == str(len(rows)), read.stderr
