"""Every comparison a figure makes is in its summary (issue 45): the multisite figure words
one line per % multisite for read and for update, from the sweep's own verdicts where it
repeated until answered (run.precision: winner, "not distinguishable" or "not settled", with
the interval over every look), and the runs the hypervisor stole too much from are counted."""

from __future__ import annotations

import math

from islands.analysis.verdicts import STEAL_LIMIT, comparison_words, precision_words, steal_words
from islands.plots.multisite import plot_multisite
from test_plots import fig11_throughput, make_rows


def _group(update: bool, ms: float, verdict: str, low: float, high: float) -> dict[str, object]:
    return {
        "group": f"update={'true' if update else 'false'} multisite={ms:g}",
        "params": {"update": update, "multisite": ms},
        "compared": ["16ISL", "2ISL"],
        "runs": [3, 3],
        "blocks": 3,
        "level": 0.98,
        "ratio": math.sqrt(low * high),
        "ratio_low": low,
        "ratio_high": high,
        "half_width": math.sqrt(high / low) - 1,
        "verdict": verdict,
        "conclusive": verdict != "not settled",
    }


RECORD = {
    "precision": 0.05,
    "budget_s": 100,
    "spent_s": 99.0,
    "stopped": "budget spent",
    "looks": [3, 6],
    "left_out_steal": 2,
    "groups": [
        _group(False, 0.0, "winner", 1.08, 1.47),
        _group(False, 0.5, "not distinguishable", 0.97, 1.04),
        _group(False, 1.0, "not settled", 0.85, 1.55),
        _group(True, 0.0, "winner", 1.2, 1.4),
        _group(True, 0.5, "winner", 3.0, 5.0),
        _group(True, 1.0, "not settled", 0.5, 4.0),
    ],
}


def test_the_multisite_summary_has_a_line_for_every_comparison() -> None:
    lines = plot_multisite(make_rows("xeon-e5-2640v2-2x8", fig11_throughput), "000-fig11").summary.splitlines()
    best = [line for line in lines if line.startswith("  at ")]
    assert [line.split(":")[0] for line in best] == [f"  at {x}%" for x in (0, 50, 100)] * 2


def test_the_multisite_summary_words_the_sweep_s_own_verdicts() -> None:
    rows = make_rows("xeon-e5-2640v2-2x8", fig11_throughput)
    rows.attrs["precision"] = RECORD
    lines = plot_multisite(rows, "000-fig11").summary.splitlines()
    compared = [line for line in lines if line.startswith("  compared at ")]
    assert len(compared) == 6 and not any(line.startswith("  at ") for line in lines)
    assert (
        compared[0] == "  compared at 0%: 16ISL is 1.26× faster than 2ISL (95% CI over the looks 1.08–1.47; 3 blocks)"
    )
    assert "16ISL and 2ISL are not distinguishable: 1.00× (95% CI over the looks 0.97–1.04, within ±5%" in compared[1]
    assert "16ISL vs 2ISL not settled: 1.15× (95% CI over the looks 0.85–1.55, wider than ±5%" in compared[2]
    assert compared[4].startswith("  compared at 50%: 16ISL is 3.87× faster than 2ISL")


def test_precision_words_print_all_six_and_the_runs_left_out() -> None:
    lines = precision_words(RECORD)
    assert len(lines) == 7 and all(line.startswith("comparison update=") for line in lines[1:])
    assert "4 of 6 comparisons answered" in lines[0] and "2 not settled (budget spent)" in lines[0]
    assert "2 runs left out, their CPU time stolen by the hypervisor above 10%" in lines[0]
    assert "from 3 to 6 blocks" in lines[0]
    # a manifest from before verdicts were recorded still reads
    old = {k: v for k, v in RECORD["groups"][0].items() if k != "verdict"}
    assert comparison_words(old, 0.05).text.startswith("update=false multisite=0: 16ISL is 1.26× faster than 2ISL")


def test_runs_over_the_steal_limit_are_counted_and_left_out() -> None:
    import pandas as pd

    from islands.experiments.precision import _runs, stolen

    assert steal_words([0.0, 0.02, math.nan], left_out=True) is None
    line = steal_words([0.0, 0.45, STEAL_LIMIT + 0.01], left_out=True)
    assert line is not None and line.startswith("2 of 3 runs had more than 10% of their CPU time stolen")
    assert "up to 45%" in line and line.endswith("left out of the comparisons")
    assert steal_words([0.45], left_out=False).endswith("kept: their numbers may be low")
    rows = pd.DataFrame(
        {
            "grid_id": ["a", "a", "a"],
            "repetition": [0, 1, 2],
            "throughput_tps": [10.0, 1.0, 11.0],
            "system.steal_share": [0.0, 0.45, math.nan],
        }
    )
    assert list(stolen(rows)) == [False, True, False]
    assert _runs(rows) == {"a": {0: 10.0, 2: 11.0}}  # the stolen run's block waits for another


def test_the_default_sweep_s_summary_has_a_line_for_each_of_its_six_comparisons(tmp_path) -> None:
    import random
    from pathlib import Path

    from islands.experiments.sweep import Sweep, load_spec
    from islands.machine.topology import read_topology
    from islands.plots import render_results
    from tiny_spec import QuietExecutor

    spec = (Path(__file__).resolve().parents[1] / "experiments" / "default.toml").read_text()
    path = tmp_path / "default.toml"
    path.write_text(spec)

    def runner(point):  # type: ignore[no-untyped-def]
        rng = random.Random(f"{point.grid_id}/{point.repetition}")
        base = 1e6 * point.deployment.n_instances * (1 - 0.5 * point.config.micro.multisite)
        return {"throughput_tps": base * rng.uniform(0.97, 1.03), "commits": 10}

    out = tmp_path / "default"
    Sweep(load_spec(path), read_topology(), out).run(runner, progress=False, executor=QuietExecutor())
    summary = render_results(out).summary.splitlines()
    notes = [line for line in summary if line.startswith("note: comparison ")]
    compared = [line for line in summary if line.startswith("  compared at ")]
    assert len(notes) == 6 and len(compared) == 6
    assert [line.split(":")[0] for line in compared] == [f"  compared at {x}%" for x in (0, 50, 100)] * 2
