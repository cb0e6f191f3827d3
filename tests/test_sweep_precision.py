"""Repetitions until the question is answered (issue 30): run.precision, run.budget_s and
run.max_repetitions on made-up runners (no engine runs): a clear winner stops at the
minimum, a tie within the precision stops once known, a noisy tie stays inconclusive and says
so, rounds are interleaved, and the spec refuses what cannot work."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from islands.analysis.verdicts import precision_words
from islands.experiments.sweep import Point, Sweep, load_spec
from islands.machine.topology import read_topology
from tiny_spec import tiny

FIXTURES = Path(__file__).parent / "fixtures" / "sysfs"


def spec_text(precision: str = "precision = 0.05", reps: int = 2) -> str:
    text = tiny(repetitions=reps, deployment='["1", "per-core"]')
    return text.replace("[grid]", f"{precision}\n\n[grid]") if precision else text


def sweep(tmp_path: Path, text: str) -> Sweep:
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return Sweep(load_spec(path), read_topology(FIXTURES / "xeon-e5-2640v2-2x8"), tmp_path / "out")


class Noisy:
    """Per-core ``factor`` times 1ISL, each run off by up to ``noise`` (seeded by the run)."""

    def __init__(self, factor: float, noise: float) -> None:
        self.factor, self.noise = factor, noise
        self.calls: list[Point] = []

    def __call__(self, point: Point) -> dict[str, Any]:
        self.calls.append(point)
        rng = random.Random(f"{point.grid_id}/{point.repetition}")
        base = 1e6 * (self.factor if point.deployment.n_instances > 1 else 1.0)
        return {"throughput_tps": base * (1 + rng.uniform(-self.noise, self.noise)), "run_s": 0.01}


def test_a_clear_winner_needs_no_more_than_the_minimum(tmp_path: Path) -> None:
    s = sweep(tmp_path, spec_text(reps=3))
    runner = Noisy(factor=2.0, noise=0.02)
    outcome = s.run(runner, progress=False)
    assert outcome.ran == len(s.points()) == 24  # 4 groups x 2 deployments x 3 repetitions
    assert outcome.inconclusive == ()
    record = s.store.manifest()["precision"]
    assert record["stopped"] == "all conclusive"
    assert len(record["groups"]) == 4 and all(g["conclusive"] for g in record["groups"])
    assert precision_words(record)[0].startswith("repetitions until precision ±5% (run.precision), interleaved: 4 of 4")


def test_a_noisy_tie_is_repeated_interleaved_and_stays_inconclusive(tmp_path: Path) -> None:
    text = spec_text("precision = 0.02\nmax_repetitions = 5")
    s = sweep(tmp_path, text)
    runner = Noisy(factor=1.0, noise=0.3)
    outcome = s.run(runner, progress=False)
    rows = s.store.rows()
    assert rows.groupby("grid_id").size().max() == 5
    assert len(outcome.inconclusive) >= 1
    record = s.store.manifest()["precision"]
    assert record["stopped"] == "5 repetitions reached"
    lines = precision_words(record)
    assert "stayed inconclusive (5 repetitions reached): the machine was too noisy" in lines[0]
    assert any(line.startswith("inconclusive: update=") and " vs " in line for line in lines[1:])
    # the extra rounds alternate the compared points: never one point twice in a row
    extra = runner.calls[16:]
    assert extra and all(a.grid_id != b.grid_id for a, b in zip(extra, extra[1:]))
    # each point's repetitions stay unique (resumable)
    assert not rows.duplicated(["grid_id", "repetition"]).any()


def test_the_budget_stops_the_rounds(tmp_path: Path) -> None:
    s = sweep(tmp_path, spec_text("precision = 0.01\nbudget_s = 0.001"))
    outcome = s.run(Noisy(factor=1.0, noise=0.3), progress=False)
    assert outcome.ran == 16  # the minimum always runs; no round fits in the budget
    assert s.store.manifest()["precision"]["stopped"] == "budget spent"
    assert outcome.inconclusive


def test_a_tie_known_to_the_precision_is_conclusive(tmp_path: Path) -> None:
    s = sweep(tmp_path, spec_text("precision = 0.05", reps=3))
    outcome = s.run(Noisy(factor=1.0, noise=0.002), progress=False)
    assert outcome.inconclusive == ()
    assert outcome.ran == 24


@pytest.mark.parametrize(
    ("extra", "reps", "message"),
    [
        ("precision = 0.05", 1, "at least 2"),
        ("budget_s = 60", 2, "only with run.precision"),
        ("precision = 1.5", 2, "half-width in"),
        ('precision = 0.05\ncompare = "colour"', 2, "not a \\[grid\\] key"),
        ("precision = 0.05\nmax_repetitions = 1", 2, "not a whole number >= 2"),
    ],
)
def test_the_spec_refuses_what_cannot_work(tmp_path: Path, extra: str, reps: int, message: str) -> None:
    path = tmp_path / "exp.toml"
    path.write_text(spec_text(extra, reps))
    with pytest.raises(ValueError, match=message):
        load_spec(path)


def test_precision_does_not_change_the_spec_hash(tmp_path: Path) -> None:
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text(spec_text(""))
    b.write_text(spec_text("precision = 0.05\nbudget_s = 90"))
    assert load_spec(a).spec_hash() == load_spec(b).spec_hash()


def test_a_marginal_winner_does_not_stop_the_rounds(tmp_path: Path) -> None:
    import pandas as pd

    from islands.analysis.statistics import ratio
    from islands.experiments.precision import comparisons

    s = sweep(tmp_path, spec_text())
    one, per_core = s.grid_points[0], next(p for p in s.grid_points[1:] if p.params[1:] == s.grid_points[0].params[1:])
    a, b = (1.00, 1.10, 1.05, 0.95), (0.90, 0.98, 0.93, 0.85)
    assert ratio(a, b).distinguishable and not ratio(a, b, 0.99).distinguishable  # 95% yes, 99% no
    rows = pd.DataFrame(
        {
            "grid_id": [one.grid_id] * 4 + [per_core.grid_id] * 4,
            "throughput_tps": [*a, *b],
            "repetition": [0, 1, 2, 3] * 2,
        }
    )
    found = [c for c in comparisons(s.grid_points, rows, ("deployment",), 0.05) if one in c.points]
    assert len(found) == 1 and not found[0].conclusive
    assert found[0].low > 1  # the words would still name the winner at 95%


class Clocked:
    """An executor whose runs each took ``run_s`` seconds (as the rows say), made at once;
    Ctrl-C after ``stop_after`` runs in all (``None``: never)."""

    def __init__(self, run_s: float, stop_after: int | None = None) -> None:
        self.run_s, self.stop_after, self.made = run_s, stop_after, 0

    def run(self, points, runner):
        from islands.experiments.executors import Finished

        for point in points:
            if self.stop_after is not None and self.made >= self.stop_after:
                raise KeyboardInterrupt
            self.made += 1
            yield Finished(point, dict(runner(point)), self.run_s, {})


def test_a_resumed_sweep_goes_on_from_the_budget_it_spent(tmp_path: Path) -> None:
    # 16 runs of 10 s (as their rows say), then Ctrl-C in the first round: 160 s of a 100 s
    # budget are spent, so the resumed sweep runs no round (a fresh budget would run rounds).
    text = spec_text("precision = 0.01\nbudget_s = 100\nmax_repetitions = 10")
    runner = Noisy(factor=1.0, noise=0.3)
    with pytest.raises(KeyboardInterrupt):
        sweep(tmp_path, text).run(runner, progress=False, executor=Clocked(10.0, stop_after=17))
    s = sweep(tmp_path, text)
    assert s.store.manifest()["status"] == "interrupted"
    outcome = s.run(runner, progress=False, executor=Clocked(10.0))
    assert outcome.ran == 0 and outcome.inconclusive
    manifest = s.store.manifest()
    assert manifest["precision"]["stopped"] == "budget spent"
    assert manifest["precision"]["spent_s"] >= 170  # the 17 stored runs' seconds
    assert manifest["elapsed_s"] >= 170
    assert len(manifest["history"]) == 2
    # a larger budget leaves room for rounds again (timed by the clock from here on)
    more = sweep(tmp_path, text.replace("budget_s = 100", "budget_s = 260"))
    assert more.run(runner, progress=False, executor=Clocked(10.0)).ran > 0
    # --fresh starts the budget over: the minimum and rounds again
    fresh = sweep(tmp_path, text).run(runner, progress=False, fresh=True, executor=Clocked(1.0))
    assert fresh.ran > 16


def test_the_seconds_spent_before_count_the_manifest_and_the_rows() -> None:
    import pandas as pd

    from islands.experiments.precision import spent_before

    rows = pd.DataFrame({"spec_hash": ["a", "a", "b"], "run_s": [2.0, 3.0, 100.0]})
    assert spent_before({"spec_hash": "a", "elapsed_s": 1.0}, rows, "a") == 5.0  # rows a killed session stored
    assert spent_before({"spec_hash": "a", "elapsed_s": 9.0}, rows, "a") == 9.0  # time between runs too
    assert spent_before({"spec_hash": "b", "elapsed_s": 9.0}, rows, "a") == 5.0  # another spec's (--force)
    assert spent_before({}, pd.DataFrame(), "a") == 0.0
