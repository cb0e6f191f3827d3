"""islands.analysis.statistics: the intervals of repetitions and of ratios on data whose answers are
known (worked by hand from the formulas), and the wording every summary uses."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from islands.analysis.statistics import format_change, format_ratio, ratio, summarize


def test_summarize_known_data() -> None:
    s = summarize([1.0, 2.0, 3.0, float("nan")])  # the failed run is left out
    assert s.n == 3 and s.mean == 2.0 and s.median == 2.0 and s.min == 1.0 and s.max == 3.0
    assert s.sd == pytest.approx(1.0)
    # t(0.975, df=2) = 4.302653: the half-width is 4.302653 * 1 / sqrt(3) = 2.48414
    assert s.ci_low == pytest.approx(2.0 - 2.48414, abs=1e-4)
    assert s.ci_high == pytest.approx(2.0 + 2.48414, abs=1e-4)


def test_summarize_one_run_has_no_interval_and_none_is_nan() -> None:
    one = summarize([5.0])
    assert (one.n, one.mean, one.median, one.min, one.max) == (1, 5.0, 5.0, 5.0, 5.0)
    assert math.isnan(one.ci_low) and math.isnan(one.ci_high) and math.isnan(one.sd)
    none = summarize([])
    assert none.n == 0 and math.isnan(none.mean) and math.isnan(none.median)


def test_summarize_without_spread_is_a_point_interval() -> None:
    s = summarize([7.0, 7.0, 7.0])
    assert s.ci_low == s.ci_high == 7.0


def test_ratio_interval_matches_welch_on_logs_by_hand() -> None:
    new, old = [110.0, 100.0, 105.0], [50.0, 52.0, 48.0]
    r = ratio(new, old)
    la, lb = np.log(new), np.log(old)
    va, vb = la.var(ddof=1) / 3, lb.var(ddof=1) / 3
    df = (va + vb) ** 2 / (va**2 / 2 + vb**2 / 2)  # Welch-Satterthwaite
    from scipy.stats import t

    half = t.ppf(0.975, df) * math.sqrt(va + vb)
    diff = la.mean() - lb.mean()
    assert r.value == pytest.approx(math.exp(diff))
    assert r.low == pytest.approx(math.exp(diff - half))
    assert r.high == pytest.approx(math.exp(diff + half))
    assert r.distinguishable is True and r.p_value < 0.05
    assert format_ratio(r).startswith("2.10× (95% CI ")
    assert "not distinguishable" not in format_ratio(r)


def test_overlapping_points_are_not_distinguishable() -> None:
    r = ratio([100.0, 110.0, 95.0], [102.0, 97.0, 108.0])
    assert r.low < 1 < r.high and r.distinguishable is False
    assert format_ratio(r).endswith(", not distinguishable)")
    assert format_change(r).endswith(", not distinguishable")


def test_one_run_or_nonpositive_values_give_no_interval() -> None:
    one = ratio([200.0], [100.0])
    assert one.value == pytest.approx(2.0) and one.distinguishable is None
    assert format_ratio(one) == "2.00× (one run: no interval)"
    zero = ratio([0.0, 1.0], [1.0, 1.0])
    assert zero.distinguishable is None and format_change(zero).endswith(", a value ≤ 0: no interval")
    assert format_ratio(ratio([], [1.0])) == "n/a"


def test_change_wording() -> None:
    r = ratio([14.0, 15.0, 16.0], [100.0, 101.0, 99.0])
    text = format_change(r)
    assert text.startswith("-85%, 95% CI -") and " to -" in text and "not distinguishable" not in text
    big = ratio([1200.0, 1210.0], [100.0, 101.0])
    assert format_change(big) == "×12.0, 95% CI ×11.7 to ×12.3"
    tight = ratio([18.0, 18.001, 17.999], [100.0, 100.001, 99.999])
    assert format_change(tight) == "-82%, 95% CI -82.0% to -82.0%" or "-82.00%" in format_change(tight)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(1.0, 1e6), min_size=2, max_size=6),
    st.lists(st.floats(1.0, 1e6), min_size=2, max_size=6),
)
def test_ratio_interval_contains_its_estimate_and_inverts(a: list[float], b: list[float]) -> None:
    r, back = ratio(a, b), ratio(b, a)
    if r.has_interval:
        assert r.low <= r.value * (1 + 1e-9) and r.value <= r.high * (1 + 1e-9)
        assert back.low == pytest.approx(1 / r.high, rel=1e-6)
        assert back.distinguishable == r.distinguishable
    s = summarize(a)
    assert s.min <= s.median <= s.max
    assert s.ci_low <= s.mean + 1e-6 * abs(s.mean) and s.mean <= s.ci_high + 1e-6 * abs(s.mean)


def test_block_ratio_is_the_paired_t_interval_of_the_blocks_log_ratios() -> None:
    from scipy.stats import t

    from islands.analysis.statistics import block_ratio

    new = {0: 110.0, 1: 205.2, 2: 105.0, 3: 999.0}  # block 3 has no partner: left out
    old = {0: 100.0, 1: 190.0, 2: 100.0, 5: 1.0}
    r = block_ratio(new, old)
    d = np.log([1.1, 205.2 / 190, 1.05])
    half = t.ppf(0.975, 2) * d.std(ddof=1) / math.sqrt(3)
    assert (r.n_new, r.n_old) == (3, 3)
    assert r.value == pytest.approx(math.exp(d.mean()))
    assert r.low == pytest.approx(math.exp(d.mean() - half)) and r.high == pytest.approx(math.exp(d.mean() + half))
    # the speed of the machine moving 2x between blocks does not widen it: the blocks' ratios
    # are what count, and the plain ratio of the runs cannot see a 10% difference through it
    assert r.distinguishable and not ratio([110.0, 205.2, 105.0], [100.0, 190.0, 100.0]).distinguishable
    assert not block_ratio({0: 1.0}, {0: 2.0}).has_interval


def test_look_alpha_spends_5_percent_over_the_looks_and_nothing_outside() -> None:
    from islands.analysis.statistics import look_alpha

    shares = [look_alpha(n, 3, 20) for n in range(3, 21)]
    assert sum(shares) == pytest.approx(0.05)
    assert all(a > b > 0 for a, b in zip(shares, shares[1:]))  # the early looks get more
    assert look_alpha(2, 3, 20) == 0.0
    assert look_alpha(3, 3, 3) == pytest.approx(0.05)  # one look: the plain 95% interval
