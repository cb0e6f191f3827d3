"""The one runner of benchmarks/ (benchmarks/_runner.py): every script uses it, is listed in
docs/benchmarks.md and parses ``--help`` without running; the shared options refuse bad input in
one line; ``--json`` writes the record with the host's and build's metadata, the measurements and
the printed text. No benchmark is run here (they measure, for minutes)."""

from __future__ import annotations

import ast
import json
import runpy
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import _runner  # noqa: E402  (benchmarks/ is not a package: its scripts import the runner by name)
from _runner import FORMAT, Runner, benchmarks, listed, round_order  # noqa: E402


def test_every_benchmark_is_listed_in_the_docs_and_every_listed_one_exists():
    names, lines = benchmarks(), listed()
    assert len(names) > 20  # the glob found the scripts
    assert sorted(set(names) - set(lines)) == []
    assert sorted(set(lines) - set(names)) == []
    assert all(len(line) > 10 for line in lines.values())


def test_the_listing_reads_the_table_rows_only():
    text = "# B\n\n| benchmark | what |\n|---|---|\n| `a` | one line |\n| `b_c` | two: x | y |\nprose `d` |\n"
    assert listed(text) == {"a": "one line"}


@pytest.mark.parametrize("name", benchmarks())
def test_a_benchmark_uses_the_runner_and_parses_help_without_running(name, capsys):
    path = BENCHMARKS / f"{name}.py"
    # Imported under another name than __main__: nothing may run, nothing may print.
    found = runpy.run_path(str(path), run_name=f"benchmark_{name}")
    assert capsys.readouterr().out == "", f"{name} printed on import: it runs at import"
    runner, main = found.get("RUNNER"), found.get("main")
    assert isinstance(runner, Runner) and runner.name == name and callable(main)
    with pytest.raises(SystemExit) as exit_:
        runner.parse_args(["--help"])
    assert exit_.value.code == 0
    help_text = capsys.readouterr().out
    assert "--json PATH" in help_text and runner.description.split()[0] in help_text
    # ... and run as a script, it hands main to the runner
    tree = ast.parse(path.read_text())
    guard = [n for n in tree.body if isinstance(n, ast.If) and "__main__" in ast.unparse(n.test)]
    assert len(guard) == 1 and ast.unparse(guard[0].body[-1]) == "RUNNER.run(main)"


def _runner_for(tmp_path: Path) -> Runner:
    return Runner(str(tmp_path / "probe.py"), "A probe.\n\nMore text.", rounds=3, duration=1.0, warmup=0.2)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--rounds", "0"], "--rounds: '0': at least 1"),
        (["--reps", "x"], "'x' is not a whole number"),
        (["--duration", "0"], "--duration: '0': above 0 seconds"),
        (["--duration", "nan"], "--duration: 'nan': above 0 seconds"),
        (["--warmup", "-1"], "--warmup: '-1': at least 0 seconds"),
        (["--json", "/no/such/dir/x.json"], "--json: /no/such/dir is not a directory"),
    ],
)
def test_bad_input_is_one_line_before_anything_runs(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        _runner_for(tmp_path).run(lambda args: pytest.fail("ran"), argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1 and message in err, err


def test_json_refuses_a_file_that_exists(tmp_path, capsys):
    existing = tmp_path / "r.json"
    existing.write_text("{}")
    with pytest.raises(SystemExit):
        _runner_for(tmp_path).run(lambda args: pytest.fail("ran"), ["--json", str(existing)])
    assert "already exists" in capsys.readouterr().err and existing.read_text() == "{}"


def test_the_older_spellings_set_rounds_and_options_absent_from_a_benchmark_are_refused(tmp_path):
    assert _runner_for(tmp_path).parse_args(["--repetitions", "7"]).rounds == 7
    assert _runner_for(tmp_path).parse_args(["--reps", "2"]).rounds == 2
    bare = Runner(str(tmp_path / "bare.py"), "Bare.")
    assert vars(bare.parse_args([])) == {"json": None}
    with pytest.raises(SystemExit):
        bare.parse_args(["--duration", "1"])  # an option it would ignore is not offered


def test_rounds_alternate_their_order_so_no_variant_always_follows_the_same_one():
    variants = ["a", "b", "c"]
    orders = [round_order(variants, r) for r in range(4)]
    assert orders == [["a", "b", "c"], ["c", "b", "a"], ["a", "b", "c"], ["c", "b", "a"]]
    # Over two rounds every variant runs once per round, and b follows a once and c once.
    predecessors = {tuple(o[i - 1 : i + 1]) for o in orders[:2] for i in range(1, 3)}
    assert ("a", "b") in predecessors and ("c", "b") in predecessors
    assert variants == ["a", "b", "c"]  # the caller's list is left as it was


def test_json_holds_options_metadata_measurements_and_output(tmp_path, capsys):
    runner = _runner_for(tmp_path)
    out = tmp_path / "record.json"

    def body(args):
        print(f"rounds {args.rounds}, duration {args.duration}")
        runner.record("throughput", [10.0, 12.0, 11.0], unit="txn/s", design="a", workers=2)
        runner.record("latency", float("nan"), unit="us")

    runner.run(body, ["--rounds", "3", "--json", str(out)])
    assert "rounds 3, duration 1.0" in capsys.readouterr().out  # still printed
    record = json.loads(out.read_text())
    assert record["format"] == FORMAT and record["benchmark"] == "probe"
    assert record["description"] == "A probe."
    assert record["options"] == {"rounds": 3, "duration": 1.0, "warmup": 0.2}
    assert record["output"] == "rounds 3, duration 1.0\n"
    assert record["elapsed_s"] >= 0 and record["started_utc"].endswith("+00:00")
    meta = record["metadata"]
    assert meta["git_revision"] and meta["compiler"] and meta["topology"]["cpus"]
    throughput, latency = record["measurements"]
    assert throughput["labels"] == {"design": "a", "workers": "2"} and throughput["values"] == [10.0, 12.0, 11.0]
    summary = throughput["summary"]
    assert summary["n"] == 3 and summary["median"] == 11.0 and summary["ci_low"] < 11.0 < summary["ci_high"]
    assert latency["values"] == [None] and latency["summary"]["n"] == 0  # NaN is null, never 0
    assert record["goals"] == []
    assert not list(tmp_path.glob(".*partial"))


def test_a_goal_is_printed_with_its_verdict_and_recorded(tmp_path, capsys):
    from islands.analysis.statistics import ratio

    runner = _runner_for(tmp_path)
    out = tmp_path / "record.json"

    def body(args):
        print(runner.goal("engine / bare", ratio([0.95, 0.97, 0.96], [1.0, 1.01, 0.99]), 0.9))
        print(runner.goal("logged / unlogged", ratio([0.5, 0.52, 0.51], [1.0, 1.01, 0.99]), 0.9))

    runner.run(body, ["--json", str(out)])
    printed = capsys.readouterr().out
    assert "(goal >= 0.9: met)" in printed and "(goal >= 0.9: not met)" in printed
    met, missed = json.loads(out.read_text())["goals"]
    assert met["name"] == "engine / bare" and met["target"] == 0.9 and met["verdict"] == "met"
    assert 0.9 < met["ratio"]["ratio_low"] < met["ratio"]["ratio"] < met["ratio"]["ratio_high"]
    assert missed["verdict"] == "not met" and missed["ratio"]["ratio_high"] < 0.9


def test_no_record_is_written_when_the_benchmark_fails(tmp_path):
    out = tmp_path / "record.json"

    def body(args):
        raise RuntimeError("the engine refused")

    with pytest.raises(RuntimeError):
        _runner_for(tmp_path).run(body, ["--json", str(out)])
    assert not out.exists() and not isinstance(sys.stdout, _runner._Tee)  # stdout given back


def test_run_py_lists_every_benchmark_and_names_an_unknown_one(capsys):
    run = runpy.run_path(str(BENCHMARKS / "run.py"), run_name="benchmarks_run")
    assert run["main"]([]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in benchmarks()) and "not listed" not in out
    assert run["main"](["zipf_sampeler"]) == 2
    assert "did you mean zipf_sampler" in capsys.readouterr().err


def test_speed_goals_gives_single_parts_their_own_rounds_and_refuses_a_bad_pair():
    part_rounds = runpy.run_path(str(BENCHMARKS / "speed_goals.py"), run_name="benchmark_speed_goals")["part_rounds"]
    assert part_rounds("", None) == {}  # every part its benchmark's default
    assert part_rounds("2=30,4=8", None) == {"2": 30, "4": 8}
    assert part_rounds("2=30", 5) == {"1": 5, "2": 30, "3": 5, "4": 5}
    for bad in ("5=3", "2=0", "2=x", "2"):
        with pytest.raises(SystemExit, match=f"--part-rounds '{bad}'"):
            part_rounds(bad, None)


def test_logging_cost_runs_the_variants_named_and_refuses_an_unknown_one():
    chosen = runpy.run_path(str(BENCHMARKS / "logging_cost.py"), run_name="benchmark_logging_cost")["chosen_variants"]
    assert [v[0] for v in chosen("commands")] == ["unlogged", "group commit, command log"]
    assert len(chosen("workers,flusher,commands")) == 4
    assert [v[0] for v in chosen("")] == ["unlogged"]
    for bad in ("command", "workers,workers", "unlogged"):
        with pytest.raises(SystemExit, match=f"--variants '{bad}'"):
            chosen(bad)


def test_logging_cost_keeps_the_rounds_whose_runs_all_saw_the_cpus_near():
    near_rounds = runpy.run_path(str(BENCHMARKS / "logging_cost.py"), run_name="benchmark_logging_cost")["near_rounds"]
    nan = float("nan")
    unlogged = [171.0, 180.0, 650.0, 171.0, nan]
    logged = [190.0, 700.0, 171.0, 200.0, 171.0]
    assert near_rounds([unlogged, logged]) == ([0, 3], 342.0)  # a far run or one not measured leaves its round out
    assert near_rounds([[nan, nan]]) == ([], pytest.approx(nan, nan_ok=True))
