"""Interleaved repetitions for benchmarks that compare configurations on a shared, noisy machine.

Every configuration runs once per round, in an order that changes from round to round (rotated
by one each round, or the ``order`` a caller gives: the benchmarks pass benchmarks/_runner.py's
``round_order``, every other round reversed), so slow drifts of the machine (another process,
thermal state) fall on every configuration alike; comparisons are then made as ratios within a
round (:func:`round_ratios`) and summarized as the median and range over the rounds
(:func:`spread`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

__all__ = ["interleaved", "round_ratios", "rotated", "spread"]

Run = TypeVar("Run", bound=Hashable)
Result = TypeVar("Result")


def rotated(runs: Sequence[Run], round_index: int) -> list[Run]:
    """The order of ``runs`` in round ``round_index`` (0-based): rotated left by the round's number."""
    if not runs:
        return []
    shift = round_index % len(runs)
    return [*runs[shift:], *runs[:shift]]


def interleaved(
    runs: Sequence[Run],
    reps: int,
    measure: Callable[[Run], Result],
    *,
    on_round: Callable[[int], None] | None = None,
    order: Callable[[Sequence[Run], int], list[Run]] = rotated,
) -> dict[Run, list[Result]]:
    """Calls ``measure(run)`` for every run once per round, ``reps`` rounds, in the order
    ``order(runs, round_index)`` gives (:func:`rotated` unless told); returns each run's results
    in round order (so that index i of two runs' lists were measured in the same round).
    ``on_round(i)`` is called after round i (progress lines)."""
    if reps < 1:
        raise ValueError(f"reps: at least one round is needed, got {reps}")
    results: dict[Run, list[Result]] = {run: [] for run in runs}
    for round_index in range(reps):
        for run in order(runs, round_index):
            results[run].append(measure(run))
        if on_round is not None:
            on_round(round_index)
    return results


def round_ratios(top: Iterable[float], bottom: Iterable[float]) -> list[float]:
    """``top[i] / bottom[i]`` per round; NaN where the bottom is 0 or NaN (no ratio to give)."""
    return [a / b if b != 0 and not math.isnan(b) else math.nan for a, b in zip(top, bottom, strict=True)]


def spread(values: Sequence[float], fmt: str = ".3f") -> str:
    """``median [min-max]`` of ``values`` (NaN values left out; ``NaN`` when none is left)."""
    finite = [v for v in values if not math.isnan(v)]
    if not finite:
        return "NaN"
    return f"{statistics.median(finite):{fmt}} [{min(finite):{fmt}}-{max(finite):{fmt}}]"
