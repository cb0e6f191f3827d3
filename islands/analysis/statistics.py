"""Statistics of repetitions: the one place that says how uncertain a measured point is and
whether two points differ. Plots, figure summaries and ``islands compare`` all use it.

- :func:`summarize`: a point's repetitions → :class:`PointStats` (n, mean, median, min–max
  and a 95% Student-t confidence interval of the mean; NaN where it cannot be computed,
  e.g. the interval of a single run).
- :func:`ratio`: two points' repetitions → :class:`Ratio`, the ratio of their geometric
  means with a 95% interval from Welch's t-test on the logarithms (throughputs and times are
  positive and their spread scales with their size, so the log scale is the natural one; it
  is what ``pyperf compare_to`` judges with a t-test too). Two points are *distinguishable*
  when that interval excludes 1, i.e. the two-sided test rejects "same" at the 5% level.
- :func:`block_ratio`: the same ratio from runs interleaved in blocks (each block one run of
  each point, close in time): the interval comes from the variation of the blocks' own
  log-ratios (a paired t-interval), so a machine whose speed moves between windows widens it
  instead of shifting it; :func:`look_alpha` is the share of the 5% a look may spend when a
  comparison is looked at again and again until it is answered (alpha spending), so that the
  intervals of all looks together hold with 95% (a confidence sequence by the union bound).
- :func:`format_ratio` / :func:`format_change`: the only wording summaries use for a ratio,
  always with its interval, and "not distinguishable" when the interval includes 1.

With the 2–5 repetitions a sweep makes, a bootstrap would understate the spread (it cannot
resample values it has not seen), so the intervals are t-intervals.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


def _scipy_stats() -> Any:
    """scipy.stats, imported on first use: it takes most of a second of CPU, which every
    ``islands`` command paid at start-up (the CLI registers the commands that format verdicts)."""
    from scipy import stats

    return stats


def _t_quantile(q: float, df: int) -> float:
    """Student's t quantile (``scipy.stats.t.ppf``, the same function): from scipy.special,
    a quarter of the import time of scipy.stats, which ``islands results --points`` paid for it."""
    from scipy.special import stdtrit

    return float(stdtrit(df, q))


def _t_upper_tail(x: float, df: int) -> float:
    """P(T > x) for Student's t (``scipy.stats.t.sf``, the same function), from scipy.special."""
    from scipy.special import stdtr

    return float(stdtr(df, -x))


__all__ = [
    "CONFIDENCE",
    "PointStats",
    "Ratio",
    "block_ratio",
    "look_alpha",
    "format_change",
    "format_ratio",
    "ratio",
    "summarize",
]

#: Confidence level of every interval islands reports.
CONFIDENCE = 0.95
_NAN = float("nan")


def _finite(values: Iterable[float]) -> np.ndarray:
    a = np.asarray([float(v) for v in values], dtype=float)
    return a[np.isfinite(a)]


@dataclass(frozen=True)
class PointStats:
    """One point's repetitions: count, mean, median, min–max and the confidence interval
    of the mean (``ci_low``–``ci_high``, NaN for fewer than two finite values)."""

    n: int
    mean: float
    median: float
    min: float
    max: float
    sd: float
    ci_low: float
    ci_high: float

    def to_dict(self) -> dict[str, float | int]:
        """The fields as a plain dict (NaN stays NaN; JSON writers map it to null)."""
        return {
            "n": self.n,
            "mean": self.mean,
            "median": self.median,
            "min": self.min,
            "max": self.max,
            "sd": self.sd,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
        }


def summarize(values: Iterable[float], confidence: float = CONFIDENCE) -> PointStats:
    """Statistics of one point's repetitions; non-finite values (failed measurements) are
    left out. The interval is the Student-t interval of the mean: ``mean ± t·sd/√n``."""
    a = _finite(values)
    n = len(a)
    if n == 0:
        return PointStats(0, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN)
    mean = float(a.mean())
    if n == 1:
        return PointStats(1, mean, mean, mean, mean, _NAN, _NAN, _NAN)
    sd = float(a.std(ddof=1))
    half = _t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return PointStats(n, mean, float(np.median(a)), float(a.min()), float(a.max()), sd, mean - half, mean + half)


@dataclass(frozen=True)
class Ratio:
    """``new / old``: the ratio of the geometric means and its confidence interval
    (``low``–``high``; NaN when either side has fewer than two runs or a value ≤ 0), with
    the two-sided p-value of Welch's t-test on the logarithms."""

    value: float
    low: float
    high: float
    p_value: float
    n_new: int
    n_old: int

    @property
    def has_interval(self) -> bool:
        """Whether an interval could be computed."""
        return not (math.isnan(self.low) or math.isnan(self.high))

    @property
    def distinguishable(self) -> bool | None:
        """True when the interval excludes 1, False when it includes 1, None without one."""
        if not self.has_interval:
            return None
        return not (self.low <= 1.0 <= self.high)

    def to_dict(self) -> dict[str, float | int | bool | None]:
        """The fields and ``distinguishable`` as a plain dict (NaN stays NaN)."""
        return {
            "ratio": self.value,
            "ratio_low": self.low,
            "ratio_high": self.high,
            "p_value": self.p_value,
            "distinguishable": self.distinguishable,
            "n_new": self.n_new,
            "n_old": self.n_old,
        }


def ratio(new: Iterable[float], old: Iterable[float], confidence: float = CONFIDENCE) -> Ratio:
    """The ratio ``new / old`` of two points' repetitions (see the module docstring)."""
    a, b = _finite(new), _finite(old)
    na, nb = len(a), len(b)
    if na == 0 or nb == 0:
        return Ratio(_NAN, _NAN, _NAN, _NAN, na, nb)
    if (a <= 0).any() or (b <= 0).any():
        mb = float(b.mean())
        value = float(a.mean()) / mb if mb > 0 else _NAN
        return Ratio(value, _NAN, _NAN, _NAN, na, nb)
    la, lb = np.log(a), np.log(b)
    diff = float(la.mean() - lb.mean())
    value = math.exp(diff)
    if na < 2 or nb < 2:
        return Ratio(value, _NAN, _NAN, _NAN, na, nb)
    if np.ptp(la) == 0 and np.ptp(lb) == 0:  # no spread at all: the ratio is exact
        return Ratio(value, value, value, 0.0 if diff else 1.0, na, nb)
    with warnings.catch_warnings():  # near-identical runs: scipy warns of precision loss
        warnings.simplefilter("ignore", RuntimeWarning)
        test = _scipy_stats().ttest_ind(la, lb, equal_var=False)
        ci = test.confidence_interval(confidence)
    return Ratio(value, math.exp(float(ci.low)), math.exp(float(ci.high)), float(test.pvalue), na, nb)


def block_ratio(new: Mapping[Hashable, float], old: Mapping[Hashable, float], confidence: float = CONFIDENCE) -> Ratio:
    """The ratio ``new / old`` of two points run in blocks (block → the point's run in it, e.g.
    a sweep's repetition → throughput): the geometric mean of the blocks' ratios, with the
    Student-t interval of the blocks' log-ratios (n - 1 degrees of freedom, n the blocks both
    points ran in). Blocks only one point ran in, and non-finite values, are left out; a value
    ≤ 0 leaves no interval. ``n_new`` and ``n_old`` are both the number of blocks used.

    A drift of the machine's speed that both points of a block share cancels in the block's
    ratio; what moves the ratio itself from window to window is the spread of the blocks'
    ratios, which is what the interval is made of."""
    blocks = [k for k in new if k in old]
    pairs = [(float(new[k]), float(old[k])) for k in blocks]
    pairs = [(a, b) for a, b in pairs if math.isfinite(a) and math.isfinite(b)]
    n = len(pairs)
    if n == 0:
        return Ratio(_NAN, _NAN, _NAN, _NAN, 0, 0)
    if any(a <= 0 or b <= 0 for a, b in pairs):
        mb = sum(b for _, b in pairs)
        value = sum(a for a, _ in pairs) / mb if mb > 0 else _NAN
        return Ratio(value, _NAN, _NAN, _NAN, n, n)
    d = np.log(np.asarray([a for a, _ in pairs])) - np.log(np.asarray([b for _, b in pairs]))
    diff = float(d.mean())
    value = math.exp(diff)
    if n < 2:
        return Ratio(value, _NAN, _NAN, _NAN, n, n)
    sd = float(d.std(ddof=1))
    if sd == 0:  # every block the same ratio: exact
        return Ratio(value, value, value, 0.0 if diff else 1.0, n, n)
    se = sd / math.sqrt(n)
    if confidence >= 1:
        return Ratio(value, 0.0, math.inf, 2 * _t_upper_tail(abs(diff) / se, n - 1), n, n)
    half = _t_quantile(0.5 + confidence / 2, n - 1) * se
    p = 2 * _t_upper_tail(abs(diff) / se, n - 1)
    return Ratio(value, math.exp(diff - half), math.exp(diff + half), p, n, n)


def look_alpha(n: int, first: int, last: int, alpha: float = 1 - CONFIDENCE) -> float:
    """The error a comparison may spend at its look with ``n`` blocks, when it is looked at
    with ``first``, ``first`` + 1, … up to ``last`` blocks and may stop at any of them (Lan and
    DeMets' Pocock-type spending, ``alpha · ln(1 + (e - 1) · t)`` at the share ``t`` of the
    looks made): the looks' shares add up to ``alpha`` at ``last``, so by the union bound every
    look's interval at level ``1 - look_alpha`` holds at once with probability ≥ ``1 - alpha``,
    whatever decided the stop. 0 before ``first``; a look past ``last`` gets the last share
    (a sweep resumed with a smaller ``max_repetitions``: beyond what the bound covers)."""
    if n < first or last < first:
        return 0.0
    k, looks = min(n, last) - first + 1, last - first + 1

    def spent(t: float) -> float:
        return alpha * math.log1p((math.e - 1) * t)

    return spent(k / looks) - spent((k - 1) / looks)


def _runs_note(r: Ratio) -> str:
    if r.n_new == 0 or r.n_old == 0:
        return "no runs"
    if r.n_new < 2 or r.n_old < 2:
        return "one run: no interval"
    return "a value ≤ 0: no interval"


def format_ratio(r: Ratio) -> str:
    """``1.62× (95% CI 1.41–1.85)``; ``1.02× (95% CI 0.95–1.10, not distinguishable)``;
    ``1.62× (one run: no interval)``."""
    words = _interval_words(r, _x, "–")
    return words[0] if len(words) == 1 else f"{words[0]} ({words[1]})"


def format_change(r: Ratio) -> str:
    """The same ratio as a change from ``old``, for use inside parentheses: ``-86%, 95% CI
    -88% to -84%``; ``×12.0, 95% CI ×11.7 to ×12.3`` from threefold up; ``+2%, 95% CI -3% to
    +7%, not distinguishable``; ``-86%, one run: no interval``."""
    return ", ".join(_interval_words(r, _change, " to "))


def _interval_words(r: Ratio, fmt: Any, dash: str) -> list[str]:
    """``[value]`` for NaN (``n/a``), else ``[value, what backs it]``: the interval (its ends
    joined by ``dash``, and "not distinguishable" where it includes 1), or why there is none;
    ``fmt`` writes each number (format_ratio's ×, format_change's %)."""
    if math.isnan(r.value):
        return ["n/a"]
    if not r.has_interval:
        return [fmt(r.value), _runs_note(r)]
    if r.low == r.high:
        return [fmt(r.value), "identical repetitions"]
    verdict = "" if r.distinguishable else ", not distinguishable"
    lo, hi = _distinct(fmt, r.low, r.value, r.high)
    return [fmt(r.value), f"{_level()} {lo}{dash}{hi}{verdict}"]


def _level() -> str:
    return f"{CONFIDENCE * 100:.0f}% CI"


def _distinct(fmt: Any, low: float, value: float, high: float) -> tuple[str, str]:
    """The bounds formatted with as many more digits as it takes to tell them from the value
    (a tight interval would otherwise print as ``-82% to -82%``)."""
    for extra in range(3):
        lo, mid, hi = (fmt(v, extra) for v in (low, value, high))
        if (lo != mid or low == value) and (hi != mid or high == value):
            break
    return lo, hi


def _x(v: float, extra: int = 0) -> str:
    digits = (0 if v >= 100 else 2 if v < 10 else 1) + extra
    return f"{v:,.{digits}f}×"


def _change(ratio_value: float, extra: int = 0) -> str:
    if ratio_value >= 3:
        digits = (0 if ratio_value >= 100 else 1) + extra
        return f"×{ratio_value:,.{digits}f}"
    return f"{(ratio_value - 1) * 100:+.{extra}f}%"
