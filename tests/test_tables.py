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

    Sweep(load_spec(spec_file), read_topology(), out).run(runner, progress=False)
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
    assert points[0].split()[:5] == ["deployment", "transport", "update", "multisite", "n"]
    labels = [p.label for p in compare_dirs(a, b).points]
    assert labels[0] == "1ISL unix update=false multisite=0" and all("=nan" not in label for label in labels)
    assert any(line.startswith("1ISL unix update=true multisite=0.5") for line in compared)

    # Everything is still there when asked for.
    wide = run_cli(capsys, "results", str(a), "--all-columns")
    assert "config.log.mode" in wide[0] and len(wide[0]) > 120
    csv = "\n".join(run_cli(capsys, "results", str(a), "--csv"))
    assert list(pd.read_csv(io.StringIO(csv)).columns) == list(rows.columns)


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
