"""``islands compare A B`` and ``islands results DIR`` on result directories recorded by tiny
sweeps made here (with runners whose throughputs are known, so the verdicts are too)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from islands.__main__ import main as cli_main
from islands.experiments.sweep import Point, Sweep, load_spec
from islands.machine.topology import read_topology
from tiny_spec import QuietExecutor, tiny

TINY = tiny(repetitions=3)

JITTER = (0.98, 1.0, 1.02)


def record(tmp_path: Path, name: str, update_factor: float, repetitions: int = 3) -> Path:
    """A results directory whose read points run at 1000 txn/s and update points at
    ``500 × update_factor``, each ±2% over the repetitions."""
    spec_file = tmp_path / "exp.toml"
    spec_file.write_text(TINY.replace("repetitions = 3", f"repetitions = {repetitions}"))
    out = tmp_path / name

    def runner(point: Point) -> dict[str, Any]:
        base = 500.0 * update_factor if point.config.micro.update else 1000.0
        return {"throughput_tps": base * JITTER[point.repetition % 3], "commits": 10}

    Sweep(load_spec(spec_file), read_topology(), out).run(runner, progress=False, executor=QuietExecutor())
    return out


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory):
    """``record`` made once per module for each (name, update_factor, repetitions): the tests only
    read the directories (compare and results write nothing into them)."""
    made: dict[tuple[str, float, int], Path] = {}

    def get(name: str, update_factor: float, repetitions: int = 3) -> Path:
        key = (name, update_factor, repetitions)
        if key not in made:
            made[key] = record(tmp_path_factory.mktemp("recorded"), name, update_factor, repetitions)
        return made[key]

    return get


def no_nan(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_compare_reports_ratios_intervals_and_verdicts(
    recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # wide enough for one line per point (tests/test_tables.py: narrow)
    a, b = recorded("a", 1.0), recorded("b", 1.5)
    capsys.readouterr()
    assert cli_main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    reads = [line for line in lines if "update=false" in line]
    updates = [line for line in lines if "update=true" in line]
    assert len(reads) == 2 and len(updates) == 2
    for line in reads:  # the same numbers: ratio 1, interval around it
        assert line.split()[4:6] == ["1.00", "K"] and "980-1.02 K" in line
        assert "1.00× (95% CI 0.96×–1.05×, not distinguishable)" in line and line.endswith("  not distinguishable")
    for line in updates:
        assert "1.50× (95% CI 1.43×–1.57×)" in line and line.endswith("  B higher")
    assert "4 points in both: 2 B higher, 0 B lower, 2 not distinguishable" in out


def test_compare_json_is_valid_and_has_null_for_missing(
    recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = recorded("a", 1.0)
    b = recorded("b", 1.5, repetitions=1)  # one run a side: no interval
    capsys.readouterr()
    assert cli_main(["compare", str(a), str(b), "--json"]) == 0
    doc = no_nan(capsys.readouterr().out)
    assert doc["metric"] == "throughput_tps" and doc["by"] == ["grid_id"]
    assert len(doc["points"]) == 4 and doc["only_in_a"] == [] and doc["only_in_b"] == []
    for p in doc["points"]:
        assert p["a"]["n"] == 3 and p["b"]["n"] == 1
        assert p["b"]["ci_low"] is None and p["ratio_low"] is None and p["distinguishable"] is None
        assert p["verdict"] == "no interval"
        assert p["a"]["median"] == pytest.approx(1000.0 if "update=false" in p["label"] else 500.0)


def test_compare_with_spread_uses_the_t_test(recorded, tmp_path: Path) -> None:
    from islands.analysis.comparison import compare_dirs

    a, b = recorded("a", 1.0), recorded("b", 1.01)
    # b's update points differ by 1%, well inside ±2% spread over 3 runs: not distinguishable
    rows_b = pd.concat([pd.read_parquet(p) for p in sorted((b / "rows").glob("part-*.parquet"))])
    assert len(rows_b) == 12
    result = compare_dirs(a, b)
    ups = [p for p in result.points if "update=true" in p.label]
    assert all(p.verdict == "not distinguishable" and p.ratio.low < 1 < p.ratio.high for p in ups)


def test_compare_bad_input_is_one_line(recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = recorded("a", 1.0)
    assert cli_main(["compare", str(a), str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err.strip().endswith("missing: no such results directory")
    assert cli_main(["compare", str(a), str(a), "--metric", "nope"]) == 2
    assert "no column 'nope'" in capsys.readouterr().err
    other = tmp_path / "other.toml"
    other.write_text(TINY.replace("rows_per_site = 500", "rows_per_site = 600"))
    Sweep(load_spec(other), read_topology(), tmp_path / "c").run(lambda p: {"throughput_tps": 1.0}, progress=False)
    assert cli_main(["compare", str(a), str(tmp_path / "c")]) == 2
    assert "share no point (matched on grid_id)" in capsys.readouterr().err
    # matched on what the two share instead
    assert cli_main(["compare", str(a), str(tmp_path / "c"), "--by", "config.micro.update,config.micro.multisite"]) == 0
    assert "update=true multisite=0.5" in capsys.readouterr().out


def test_results_lists_filters_and_exports(recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = recorded("a", 1.0)
    capsys.readouterr()
    assert cli_main(["results", str(a)]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:4] == ["point", "rep", "deployment", "transport"]
    assert len(table) == 1 + 12

    assert cli_main(["results", str(a), "--where", "update=true", "--where", "multisite>0", "--csv"]) == 0
    csv = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert len(csv) == 3 and set(csv["config.micro.update"]) == {True} and set(csv["config.micro.multisite"]) == {0.5}
    assert "system.busy" in csv.columns and "metadata.git_revision" in csv.columns  # every column

    out = tmp_path / "rows.json"
    assert cli_main(["results", str(a), "--where", "workload=micro", "--json", "-o", str(out)]) == 0
    assert "12 rows written to" in capsys.readouterr().out
    doc = no_nan(out.read_text())
    assert len(doc) == 12 and {r["config.workload"] for r in doc} == {"micro"}

    assert cli_main(["results", str(a), "--points", "--json"]) == 0
    points = no_nan(capsys.readouterr().out)
    assert len(points) == 4
    for p in points:
        assert p["n"] == 3 and p["min"] < p["median"] < p["max"] and p["ci_low"] < p["mean"] < p["ci_high"]
        assert p["median"] == pytest.approx(1000.0 if p["config.micro.update"] is False else 500.0)


def test_results_bad_input(recorded, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = recorded("a", 1.0)
    capsys.readouterr()
    for args, message in (
        (["--where", "nonsense"], "write KEY=VALUE"),
        (["--where", "colour=red"], "no column 'colour'"),
        (["--where", "update=maybe"], "'maybe' is not true or false"),
        (["--where", "multisite=x"], "'x' is not a number"),
    ):
        assert cli_main(["results", str(a), *args]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1
    assert cli_main(["results", str(a), "--where", "update=true", "--where", "update=false"]) == 0
    assert capsys.readouterr().out.strip() == "no rows match"


class BusyFirstRepetition(QuietExecutor):
    """A quiet machine but for every point's first repetition: other processes kept it busy
    then, or (``steal``) the hypervisor stole 45% of its CPU time."""

    def __init__(self, steal: bool = False) -> None:
        self.steal = steal

    def run(self, points, runner):  # type: ignore[no-untyped-def]
        for done in super().run(points, runner):
            if done.point.repetition == 0:
                done.system.update({"steal_share": 0.45} if self.steal else {"busy": True, "other_cpu_share": 0.6})
            yield done


@pytest.mark.parametrize("steal", [False, True])
def test_compare_leaves_busy_runs_out_and_says_how_many(tmp_path: Path, capsys, steal: bool) -> None:
    from islands.analysis.comparison import compare_dirs

    spec_file = tmp_path / "exp.toml"
    spec_file.write_text(TINY)
    a, b = tmp_path / "a", tmp_path / "b"

    def runner(point: Point) -> dict[str, Any]:
        # the busy first repetition of B is slow: kept, it would make B look lower
        slow = 0.3 if point.repetition == 0 and runner.side == "b" else 1.0  # type: ignore[attr-defined]
        return {"throughput_tps": 1000.0 * slow * JITTER[point.repetition % 3]}

    for side, out, executor in (("a", a, QuietExecutor()), ("b", b, BusyFirstRepetition(steal))):
        runner.side = side  # type: ignore[attr-defined]
        Sweep(load_spec(spec_file), read_topology(), out).run(runner, progress=False, executor=executor)
    dropped = compare_dirs(a, b)
    assert (dropped.busy_b, dropped.dropped_b, dropped.dropped_a) == (4, 4, 0)
    assert all(p.b.n == 2 and p.verdict != "B lower" for p in dropped.points)
    kept = compare_dirs(a, b, keep_busy=True)
    assert kept.dropped_b == 0 and all(p.b.n == 3 for p in kept.points)
    assert cli_main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert (
        "left out: 4 runs of B made on a busy machine (system.busy, or steal above 10%); --keep-busy keeps them" in out
    )
    assert cli_main(["compare", str(a), str(b), "--keep-busy", "--json"]) == 0
    doc = no_nan(capsys.readouterr().out)
    assert doc["busy_runs_b"] == 4 and doc["busy_runs_left_out_b"] == 0
