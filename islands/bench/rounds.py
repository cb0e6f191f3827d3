"""Interleaved repetitions for benchmarks that compare configurations on a shared, noisy machine.

Every configuration runs once per round, every other round in reverse order (:func:`alternated`;
benchmarks/_runner.py's ``round_order`` is the same), so slow drifts of the machine (another process,
thermal state) fall on every configuration alike; comparisons are then made as ratios within a
round (:func:`round_ratios`) and summarized as the median and range over the rounds
(:func:`spread`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

__all__ = ["alternated", "interleaved", "round_ratios", "spread"]

Run = TypeVar("Run", bound=Hashable)
Result = TypeVar("Result")


def alternated(runs: Sequence[Run], round_index: int) -> list[Run]:
    """The order in which round ``round_index`` (from 0) runs ``runs``: as given in even rounds,
    reversed in odd ones. In one fixed order each run always follows the same one, and whatever a
    run leaves behind (caches, page cache, frequency, the host's other guests) is charged to its
    successor: benchmarks/memory_parallelism.py's fixed order gave two identical configurations
    0.85x (0.57-1.26), alternated 1.03x (0.97-1.10). A rotation keeps that bias (within a round
    the predecessor stays the same); reversing gives each run both its neighbours as
    predecessors, and the first and last places in turn."""
    return list(runs) if round_index % 2 == 0 else list(reversed(runs))


def interleaved(
    runs: Sequence[Run],
    reps: int,
    measure: Callable[[Run], Result],
    *,
    on_round: Callable[[int], None] | None = None,
) -> dict[Run, list[Result]]:
    """Calls ``measure(run)`` for every run once per round, ``reps`` rounds, in :func:`alternated`
    order; returns each run's results in round order (so that index i of two runs' lists were
    measured in the same round). ``on_round(i)`` is called after round i (progress lines)."""
    if reps < 1:
        raise ValueError(f"reps: at least one round is needed, got {reps}")
    results: dict[Run, list[Result]] = {run: [] for run in runs}
    for round_index in range(reps):
        for run in alternated(runs, round_index):
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
