"""islands.bench.rounds: the interleaved order, the per-round ratios and their summary."""

from __future__ import annotations

import math

import pytest

from islands.bench.rounds import alternated, interleaved, round_ratios, spread


def test_each_round_runs_every_configuration_once_every_other_round_reversed() -> None:
    calls: list[str] = []
    rounds: list[int] = []
    results = interleaved(
        ["a", "b", "c"], 4, lambda run: calls.append(run) or f"{run}{len(calls)}", on_round=rounds.append
    )
    assert calls == ["a", "b", "c", "c", "b", "a", "a", "b", "c", "c", "b", "a"]
    assert rounds == [0, 1, 2, 3]
    # Index i of every run's list was measured in round i.
    assert results == {"a": ["a1", "a6", "a7", "a12"], "b": ["b2", "b5", "b8", "b11"], "c": ["c3", "c4", "c9", "c10"]}
    assert alternated([], 3) == []


def test_no_round_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="reps"):
        interleaved(["a"], 0, lambda run: run)


def test_ratios_within_rounds_and_their_spread() -> None:
    ratios = round_ratios([2.0, 3.0, 1.0, 5.0], [1.0, 2.0, 0.0, math.nan])
    assert ratios[:2] == [2.0, 1.5]
    assert math.isnan(ratios[2]) and math.isnan(ratios[3])  # a run that committed nothing has no ratio
    assert spread(ratios) == "1.750 [1.500-2.000]"
    assert spread([math.nan]) == "NaN"
    assert spread([1000.0, 3000.0, 2000.0], ",.0f") == "2,000 [1,000-3,000]"
    with pytest.raises(ValueError):
        round_ratios([1.0], [1.0, 2.0])
