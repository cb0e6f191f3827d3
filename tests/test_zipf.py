"""The engine's Zipf generator draws from the distribution it claims."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from islands import _core


def chi2_critical(df: int, z: float = 3.29) -> float:
    """Upper critical value of chi-square (p about 0.0005) by Wilson-Hilferty."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.parametrize("s", [0.0, 0.5, 0.99, 1.0, 1.5, 3.0])
def test_frequencies_fit_the_zipf_law(s):
    n, draws = 50, 200_000
    counts = Counter(_core.zipf_sample(n, s, draws, seed=11))
    assert min(counts) >= 0 and max(counts) < n
    expected = [draws * _core.zipf_probability(n, s, k) for k in range(n)]
    # Pool the tail so every cell expects at least 5 draws.
    observed_cells, expected_cells, obs_acc, exp_acc = [], [], 0, 0.0
    for k in range(n):
        obs_acc += counts.get(k, 0)
        exp_acc += expected[k]
        if exp_acc >= 5:
            observed_cells.append(obs_acc)
            expected_cells.append(exp_acc)
            obs_acc, exp_acc = 0, 0.0
    if exp_acc:
        observed_cells[-1] += obs_acc
        expected_cells[-1] += exp_acc
    chi2 = sum((o - e) ** 2 / e for o, e in zip(observed_cells, expected_cells))
    assert chi2 < chi2_critical(len(expected_cells) - 1), f"s={s}: chi2={chi2:.1f}"


def test_skew_makes_rank_zero_hottest_and_probabilities_sum_to_one():
    n = 1000
    assert math.isclose(sum(_core.zipf_probability(n, 1.2, k) for k in range(n)), 1.0, rel_tol=1e-9)
    counts = Counter(_core.zipf_sample(n, 1.2, 50_000, seed=3))
    assert counts.most_common(1)[0][0] == 0
    uniform = Counter(_core.zipf_sample(n, 0.0, 50_000, seed=3))
    assert uniform[0] < 3 * 50_000 / n


@pytest.mark.parametrize("s", [-0.1, 10.5, float("nan")])
def test_out_of_range_skew_is_refused(s):
    with pytest.raises(ValueError, match="zipf_s"):
        _core.zipf_sample(10, s, 1)
