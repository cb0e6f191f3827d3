"""islands.bench.rounds: the interleaved order, the per-round ratios and their summary."""

from __future__ import annotations

import math

import pytest

from islands.bench.rounds import interleaved, rotated, round_ratios, spread


def test_each_round_runs_every_configuration_once_in_rotated_order() -> None:
    calls: list[str] = []
    rounds: list[int] = []
    results = interleaved(
        ["a", "b", "c"], 4, lambda run: calls.append(run) or f"{run}{len(calls)}", on_round=rounds.append
    )
    assert calls == ["a", "b", "c", "b", "c", "a", "c", "a", "b", "a", "b", "c"]
    assert rounds == [0, 1, 2, 3]
    # Index i of every run's list was measured in round i.
    assert results == {"a": ["a1", "a6", "a8", "a10"], "b": ["b2", "b4", "b9", "b11"], "c": ["c3", "c5", "c7", "c12"]}
    assert rotated([], 3) == []


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


def test_an_order_given_replaces_the_rotation() -> None:
    calls: list[str] = []
    alternated = interleaved(
        ["a", "b", "c"],
        3,
        lambda run: calls.append(run) or run,
        order=lambda runs, i: list(runs) if i % 2 == 0 else list(reversed(runs)),
    )
    assert calls == ["a", "b", "c", "c", "b", "a", "a", "b", "c"]
    assert alternated == {"a": ["a"] * 3, "b": ["b"] * 3, "c": ["c"] * 3}
