"""Zipf over ranks ``0..n-1`` (p(k) ∝ 1/(k+1)^s) in memory bounded whatever ``n`` is: the first
:data:`HEAD` ranks exactly, the rest by the integral of ``x^-s`` (a rank past 65,536 weighs
within 1e-9 of its integral over ``[k+0.5, k+1.5)``). The model draws rows (the simulation)
and shares of the home rows (:mod:`islands.model.routing`) from it; a distribution over every
row of a machine (10^8 rows per site on 192 cores) would otherwise take its own memory.

At ``n <= HEAD`` it is the exact table the model always used, so that its draws and shares do
not change.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["HEAD", "ZipfRanks"]

#: Ranks kept exactly; past them the tail is integrated.
HEAD = 1 << 16


class ZipfRanks:
    """Zipf ``s`` (``s >= 0``, 0 uniform) over ranks ``0..n-1``."""

    def __init__(self, n: int, s: float) -> None:
        if n < 1 or not 0.0 <= s < math.inf:
            raise ValueError(f"zipf over {n} ranks with s = {s}: needs n >= 1 and a finite s >= 0")
        self.n, self.s = n, s
        self.head = min(n, HEAD)
        weights = None if s == 0 else 1.0 / np.arange(1, self.head + 1, dtype=float) ** s
        self.head_cdf = None if weights is None else np.cumsum(weights)
        head_mass = 0.0 if self.head_cdf is None else float(self.head_cdf[-1])
        self.total = float(n) if s == 0 else head_mass + self._tail(self.head, n)
        self.head_mass = head_mass

    def _tail(self, a: int, b: int) -> float:
        """The (unnormalised) weight of ranks ``a..b-1``, all at or past :data:`HEAD`."""
        if b <= a:
            return 0.0
        lo, hi, e = a + 0.5, b + 0.5, 1.0 - self.s
        if abs(e) < 1e-12:
            return math.log(hi / lo)
        return (hi**e - lo**e) / e

    def mass_below(self, k: int) -> float:
        """The share of the mass in ranks ``0..k-1``."""
        k = max(0, min(k, self.n))
        if self.s == 0:
            return k / self.n
        assert self.head_cdf is not None
        if k <= self.head:
            return (float(self.head_cdf[k - 1]) if k else 0.0) / self.total
        return (self.head_mass + self._tail(self.head, k)) / self.total

    def ranks(self, u: np.ndarray) -> np.ndarray:
        """The ranks at uniform draws ``u`` in ``[0, 1)`` (inverse transform)."""
        if self.s == 0:
            return np.minimum((u * self.n).astype(np.int64), self.n - 1)
        assert self.head_cdf is not None
        if self.n <= HEAD:  # the exact table, normalised, as always
            return np.minimum(np.searchsorted(self.head_cdf / self.total, u), self.n - 1)
        x = u * self.total
        out = np.searchsorted(self.head_cdf, x).astype(np.int64)
        tail = x >= self.head_mass
        if tail.any():
            y = x[tail] - self.head_mass
            lo, e = self.head + 0.5, 1.0 - self.s
            if abs(e) < 1e-12:
                t = lo * np.exp(y)
            else:
                # Kept between the tail's ends, so that rounding never raises 0 to 1/e < 0.
                ends = (lo**e, (self.n + 0.5) ** e)
                t = np.clip(lo**e + y * e, min(ends), max(ends)) ** (1.0 / e)
            out[tail] = np.clip(np.floor(t - 0.5), self.head, self.n - 1).astype(np.int64)
        return np.minimum(out, self.n - 1)
