"""The engine's Zipf generator draws from the distribution it claims (chi-square goodness of
fit against the exact probabilities), at every skew, over small and large key ranges."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from islands import _core

# Fail only on a p-value this small: a correct sampler fails one run in 10,000 per case.
ALPHA = 1e-4


def exact_probabilities(n: int, s: float) -> np.ndarray:
    """P(rank k) for k in [0, n), from the law itself (not from the engine)."""
    w = np.arange(1, n + 1, dtype=np.float64) ** -s
    return w / w.sum()


def pooled(observed: np.ndarray, expected: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observed and expected counts summed over the cells [edges[i], edges[i+1]), the cells
    then merged from the tail so that every one expects at least 5 draws."""
    obs = np.add.reduceat(observed, edges[:-1])
    exp = np.add.reduceat(expected, edges[:-1])
    cells_o: list[float] = []
    cells_e: list[float] = []
    acc_o = acc_e = 0.0
    for o, e in zip(obs, exp):
        acc_o, acc_e = acc_o + o, acc_e + e
        if acc_e >= 5:
            cells_o.append(acc_o)
            cells_e.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e:
        cells_o[-1] += acc_o
        cells_e[-1] += acc_e
    return np.array(cells_o), np.array(cells_e)


def chi2_p(n: int, s: float, draws: int, seed: int, edges: np.ndarray) -> float:
    ranks = np.array(_core.zipf_sample(n, s, draws, seed=seed), dtype=np.int64)
    assert ranks.min() >= 0 and ranks.max() < n
    observed = np.bincount(ranks, minlength=n).astype(np.float64)
    o, e = pooled(observed, draws * exact_probabilities(n, s), edges)
    return float(stats.chisquare(o, e).pvalue)


@pytest.mark.parametrize("s", [0.0, 0.25, 0.5, 0.99, 1.0, 1.01, 1.5, 3.0])
def test_every_rank_of_a_small_range_fits_the_zipf_law(s):
    n = 200
    assert chi2_p(n, s, 200_000, seed=11, edges=np.arange(n + 1)) > ALPHA


@pytest.mark.parametrize("s", [0.0, 0.5, 0.99, 1.0, 1.5])
def test_a_large_range_fits_the_zipf_law_in_rank_bands(s):
    # 2 million keys (thousands per bucket at the tail, where the rejection step works):
    # the hot ranks one cell each, then 400 geometric bands, plus cells that cut through
    # buckets, so a bias inside a bucket shows.
    n = 2_000_000
    edges = np.unique(np.concatenate([np.arange(64), np.geomspace(64, n, 400).astype(np.int64), [n]]))
    assert chi2_p(n, s, 400_000, seed=5, edges=edges) > ALPHA


def test_ranks_inside_one_wide_bucket_fit_the_law():
    # At s = 0.05 the ranks 500-943 share one bucket, over which the weight falls by 3%: the
    # rejection step must give that slope (drawing the bucket uniformly would miss it with a
    # chi-square noncentrality of about 300 here, far beyond the critical value).
    n = 1000
    assert chi2_p(n, 0.05, 4_000_000, seed=7, edges=np.arange(0, n + 1, 10)) > ALPHA


def test_engine_probabilities_agree_with_the_law_and_sum_to_one():
    n = 1000
    engine = np.array([_core.zipf_probability(n, 1.2, k) for k in range(n)])
    assert math.isclose(engine.sum(), 1.0, rel_tol=1e-9)
    assert engine == pytest.approx(exact_probabilities(n, 1.2), rel=1e-9)


def test_skew_makes_rank_zero_hottest():
    n = 1000
    counts = Counter(_core.zipf_sample(n, 1.2, 50_000, seed=3))
    assert counts.most_common(1)[0][0] == 0
    uniform = Counter(_core.zipf_sample(n, 0.0, 50_000, seed=3))
    assert uniform[0] < 3 * 50_000 / n


def test_the_table_stays_small_for_huge_ranges():
    # O(1) per draw without an O(n) table: a few hundred buckets even for 2^40 keys.
    assert _core.zipf_buckets(1 << 40, 0.0) == 0
    assert 0 < _core.zipf_buckets(1 << 40, 0.5) < 1000
    assert 0 < _core.zipf_buckets(1 << 40, 1.5) < 2000
    assert _core.zipf_buckets(1, 1.0) == 1
    assert _core.zipf_sample(1, 2.0, 10) == [0] * 10


def test_key_draw_timer_reports_a_positive_time():
    assert _core.key_draw_ns(1000, 0.99, 10_000) > 0
    assert _core.key_draw_ns(1000, 0.0, 10_000, uniform=True) > 0


@pytest.mark.parametrize("s", [-0.1, 10.5, float("nan")])
def test_out_of_range_skew_is_refused(s):
    with pytest.raises(ValueError, match="zipf_s"):
        _core.zipf_sample(10, s, 1)
