"""Repetitions until the question is answered (issues 30 and 45): run.precision, run.budget_s
and run.max_repetitions on made-up runners (no engine runs): a clear winner stops at the
minimum, a tie within the precision stops once known, a noisy tie stays not settled and says
so, rounds are interleaved blocks whose order alternates, the spec refuses what cannot work,
and the stopping rule's false-winner rate, estimated over many simulated A/A comparisons on a
machine whose speed drifts, is within 5%, where the rules it replaced are not."""

from __future__ import annotations

import contextlib
import os
import random
import re
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from islands.analysis.store import ResultStore
from islands.analysis.verdicts import precision_words
from islands.experiments.sweep import Point, Sweep, load_spec
from islands.machine.topology import read_topology
from tiny_spec import QuietExecutor, tiny

FIXTURES = Path(__file__).parent / "fixtures" / "sysfs"


def spec_text(precision: str = "precision = 0.05", reps: int = 2) -> str:
    text = tiny(repetitions=reps, deployment='["1", "per-core"]')
    return text.replace("[grid]", f"{precision}\n\n[grid]") if precision else text


# The sweeps below record a quiet machine (QuietExecutor): a run with steal above 10% is left out
# of the comparisons, and the counts here must not depend on the machine the tests run on.


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
    outcome = s.run(runner, progress=False, executor=QuietExecutor())
    assert outcome.ran == len(s.points()) == 24  # 4 groups x 2 deployments x 3 repetitions
    assert outcome.inconclusive == ()
    record = s.store.manifest()["precision"]
    assert record["stopped"] == "all conclusive"
    assert len(record["groups"]) == 4 and all(g["conclusive"] for g in record["groups"])
    lines = precision_words(record)
    assert lines[0].startswith("repetitions until precision ±5% (run.precision), in interleaved blocks: 4 of 4")
    assert "95% over every look from 3 to 20 blocks" in lines[0]
    # every comparison is printed, each with its winner
    assert len(lines) == 5 and all(line.startswith("comparison update=") for line in lines[1:])
    winner = re.compile(r": 16ISL is [12]\.\d\d× faster than 1ISL \(95% CI over the looks [\d.]+–[\d.]+; 3 blocks\)$")
    assert all(winner.search(line) for line in lines[1:])


def test_a_noisy_tie_is_repeated_interleaved_and_stays_inconclusive(tmp_path: Path) -> None:
    text = spec_text("precision = 0.02\nmax_repetitions = 5")
    s = sweep(tmp_path, text)
    runner = Noisy(factor=1.0, noise=0.3)
    outcome = s.run(runner, progress=False, executor=QuietExecutor())
    rows = s.store.rows()
    assert rows.groupby("grid_id").size().max() == 5
    assert len(outcome.inconclusive) >= 1
    record = s.store.manifest()["precision"]
    assert record["stopped"] == "5 repetitions reached"
    lines = precision_words(record)
    assert "not settled (5 repetitions reached): the machine was too noisy" in lines[0]
    assert any(" not settled: " in line and "wider than ±2%" in line for line in lines[1:])
    # the extra rounds are blocks: the two compared points under one repetition number, one
    # after the other, the first of them alternating from block to block
    extra = runner.calls[16:]
    assert extra and len(extra) % 2 == 0
    blocks = [(a, b) for a, b in zip(extra[::2], extra[1::2])]
    assert all(a.repetition == b.repetition and a.grid_id != b.grid_id for a, b in blocks)
    assert all((a.index < b.index) == (a.repetition % 2 == 0) for a, b in blocks)
    # each point's repetitions stay unique (resumable)
    assert not rows.duplicated(["grid_id", "repetition"]).any()


@pytest.mark.usefixtures("sigint_handled")
def test_a_ctrl_c_while_the_rounds_read_the_rows_is_not_lost(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each round of repetitions reads the stored rows through pyarrow, which can swallow a
    KeyboardInterrupt (as when it writes one): the sweep holds the signal back until the rows
    are read, then stops instead of running the rounds to their end."""
    read = ResultStore.rows
    runner = Noisy(factor=1.0, noise=0.3)
    sent: list[int] = []

    def rows(store: ResultStore) -> Any:
        if len(runner.calls) == 16 and not sent:  # the first round's read, the minimum run
            sent.append(signal.SIGINT)
            with contextlib.suppress(KeyboardInterrupt):  # what pyarrow's conversion does to it
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # the handler runs by now
        return read(store)

    s = sweep(tmp_path, spec_text("precision = 0.02\nmax_repetitions = 5"))
    monkeypatch.setattr(ResultStore, "rows", rows)
    with pytest.raises(KeyboardInterrupt):
        s.run(runner, progress=False, executor=QuietExecutor())
    assert sent and len(runner.calls) == 16  # the minimum ran; no round of repetitions after the Ctrl-C
    assert s.store.manifest()["status"] == "interrupted"


def test_the_budget_stops_the_rounds(tmp_path: Path) -> None:
    s = sweep(tmp_path, spec_text("precision = 0.01\nbudget_s = 0.001"))
    outcome = s.run(Noisy(factor=1.0, noise=0.3), progress=False, executor=QuietExecutor())
    assert outcome.ran == 16  # the minimum always runs; no round fits in the budget
    assert s.store.manifest()["precision"]["stopped"] == "budget spent"
    assert outcome.inconclusive


def test_a_tie_known_to_the_precision_is_conclusive(tmp_path: Path) -> None:
    s = sweep(tmp_path, spec_text("precision = 0.05", reps=3))
    outcome = s.run(Noisy(factor=1.0, noise=0.002), progress=False, executor=QuietExecutor())
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

    from islands.analysis.statistics import block_ratio
    from islands.experiments.precision import comparisons

    s = sweep(tmp_path, spec_text())
    one, per_core = s.grid_points[0], next(p for p in s.grid_points[1:] if p.params[1:] == s.grid_points[0].params[1:])
    a, b = (1.00, 1.10, 1.05, 0.95), (0.92, 0.98, 1.00, 0.85)
    blocks = dict(enumerate(a)), dict(enumerate(b))
    assert block_ratio(*blocks).distinguishable  # the plain 95% interval of the blocks excludes 1 ...
    rows = pd.DataFrame(
        {
            "grid_id": [one.grid_id] * 4 + [per_core.grid_id] * 4,
            "throughput_tps": [*a, *b],
            "repetition": [0, 1, 2, 3] * 2,
        }
    )
    found = [c for c in comparisons(s.grid_points, rows, ("deployment",), 0.05, 3, 20) if one in c.points]
    assert len(found) == 1 and not found[0].conclusive and found[0].verdict == "not settled"
    assert found[0].low < 1 < found[0].high  # ... but not the look's, which spends part of the 5%
    assert found[0].blocks == 4 and found[0].level > 0.99


def test_blocks_pair_the_runs_of_one_repetition(tmp_path: Path) -> None:
    # A machine twice as fast in repetitions 2 and 3: unpaired, the runs' spread hides a 10%
    # difference; paired by repetition, each block says 1.10 and the difference is plain.
    import pandas as pd

    from islands.experiments.precision import comparisons

    s = sweep(tmp_path, spec_text())
    one, per_core = s.grid_points[0], next(p for p in s.grid_points[1:] if p.params[1:] == s.grid_points[0].params[1:])
    speed = (1.0, 1.0, 2.0, 2.0, 1.0, 2.0)
    rows = pd.DataFrame(
        {
            "grid_id": [one.grid_id] * 6 + [per_core.grid_id] * 6,
            "throughput_tps": [1.1 * v * (1 + 0.001 * i) for i, v in enumerate(speed)] + list(speed),
            "repetition": list(range(6)) * 2,
        }
    )
    found = next(c for c in comparisons(s.grid_points, rows, ("deployment",), 0.05, 3, 20) if one in c.points)
    assert found.verdict == "winner" and found.names == ("1ISL", "16ISL") and found.blocks == 6
    assert 1.09 < found.low < found.value < found.high < 1.12


def _simulated_look(
    rng: Any,
    rule: str,
    sd: float,
    drift: float = 0.03,
    alternate: bool = True,
    first: int = 3,
    last: int = 20,
    precision: float = 0.05,
) -> str:
    """One A/A comparison on a drifting machine, looked at after each block until ``rule`` stops
    it; its verdict. The machine's speed walks and jumps from block to block (up to 2x, both
    points alike) and drifts by up to ``drift`` (log) between a block's two runs (the later one pays it; the
    order alternates by block unless ``alternate`` is false); each run has noise ``sd`` (log)."""
    import numpy as np

    from islands.analysis.statistics import block_ratio
    from islands.analysis.verdicts import half_width
    from islands.experiments.precision import look

    speed = np.cumsum(rng.normal(0, 0.1, last)) + np.log(rng.choice([1.0, 2.0], last))
    slope = rng.uniform(-drift, drift)
    a: dict[int, float] = {}
    b: dict[int, float] = {}
    for n in range(last):
        second_pays = slope if (n % 2 == 1 or not alternate) else 0.0
        first_pays = 0.0 if (n % 2 == 1 or not alternate) else slope
        a[n] = float(np.exp(speed[n] + first_pays + rng.normal(0, sd)))
        b[n] = float(np.exp(speed[n] + second_pays + rng.normal(0, sd)))
        if n + 1 < first:
            continue
        done = n + 1 == last
        if rule == "spending":
            seen = look(a, b, precision, first, last)
            if seen.conclusive or done:
                return seen.verdict
            continue
        plain = block_ratio(a, b)
        if rule == "plain 95% until it excludes 1" and (plain.distinguishable or half_width(plain) <= precision):
            done = True
        if rule == "plain 95% until its width is reached" and half_width(plain) <= precision:
            done = True
        if done:
            return "winner" if plain.distinguishable else "other"
    raise AssertionError("unreachable")


def _false_winner_rate(
    rule: str,
    n: int = 800,
    sds: tuple[float, ...] = (0.02, 0.05, 0.1, 0.2),
    drift: float = 0.03,
    alternate: bool = True,
) -> float:
    """The share of ``n`` simulated A/A comparisons (:func:`_simulated_look`, noise cycling
    through ``sds``) that end with a winner."""
    import numpy as np

    rng = np.random.default_rng(45)
    verdicts = [_simulated_look(rng, rule, sds[i % len(sds)], drift, alternate) for i in range(n)]
    return verdicts.count("winner") / n


def test_the_stopping_rule_names_a_winner_between_equal_points_at_most_5_percent_of_the_time() -> None:
    n = 800
    allowed = 0.05 + 2 * (0.05 * 0.95 / n) ** 0.5  # 5% plus twice the estimate's sampling error
    rate = _false_winner_rate("spending", n)
    assert rate <= allowed, f"{rate:.1%} false winners over {n} simulated A/A comparisons"
    rate = _false_winner_rate("spending", n // 2, drift=0.1)  # a steeper drift inside the blocks
    assert rate <= allowed, f"{rate:.1%} false winners over {n} simulated A/A comparisons"


def test_the_rules_it_replaced_fail_the_same_check() -> None:
    # the check can fail: stopping once the plain 95% interval excludes 1 (optional stopping),
    # or once its width is reached (it stops when the spread happens to look small), calls
    # more winners between equal points than 5% plus the sampling error
    n = 800
    allowed = 0.05 + 2 * (0.05 * 0.95 / n) ** 0.5
    assert _false_winner_rate("plain 95% until it excludes 1", n) > allowed
    assert _false_winner_rate("plain 95% until its width is reached", n, sds=(0.05, 0.1)) > allowed


def test_blocks_in_one_order_turn_a_drift_into_a_winner() -> None:
    # the same rule, but the same point always first in its block: the drift between the two
    # runs of a block is then a difference, and the rule finds it
    assert _false_winner_rate("spending", 400, drift=0.1, alternate=False) > 0.15
    assert _false_winner_rate("spending", 400, drift=0.1) <= 0.05


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
