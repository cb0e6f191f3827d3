"""The Islands model's closed forms (paper 000, Sec 5).

Paper 000 writes the throughput of a shared-nothing deployment whose transactions are a
fraction ``p`` distributed as a mix of the throughputs at the two ends::

    T = (1 - p) * Tlocal + p * Tdistr                       (000, Sec 5: "linear")

where ``Tlocal`` is the throughput when every transaction is local and ``Tdistr`` when every
one is distributed. Throughput is the inverse of a cost (000, Sec 5: ``T = 1/C``), and it is
the *time* per transaction that mixes linearly when a worker runs local and distributed
transactions back to back::

    1/T = (1 - p) / Tlocal + p / Tdistr                     ("cost-weighted")

Fitted to this machine's Fig 14 points, the linear form overpredicts the 20%-multisite
throughput about 3.7x over unix sockets while the cost-weighted form comes within +5% to
+24% (issue 18). :mod:`islands.model.predict` uses the cost-weighted form; both are here so
that validation can compare them.
"""

from __future__ import annotations

import math

__all__ = ["cost_weighted_throughput", "fit_cost_weighted", "linear_throughput"]


def _check(p: float, t_local: float, t_distr: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p: {p!r} is not a fraction in [0, 1]")
    for name, value in (("t_local", t_local), ("t_distr", t_distr)):
        if not value > 0:
            raise ValueError(f"{name}: {value!r} is not a positive throughput")


def linear_throughput(p: float, t_local: float, t_distr: float) -> float:
    """Paper 000's form: ``(1 - p) * t_local + p * t_distr`` (throughputs in any one unit)."""
    _check(p, t_local, t_distr)
    return (1.0 - p) * t_local + p * t_distr


def cost_weighted_throughput(p: float, t_local: float, t_distr: float) -> float:
    """The cost-weighted form: ``1 / ((1 - p) / t_local + p / t_distr)``; the time per
    transaction mixes linearly, so a few slow distributed transactions weigh in full."""
    _check(p, t_local, t_distr)
    return 1.0 / ((1.0 - p) / t_local + p / t_distr)


def fit_cost_weighted(ps: list[float], throughputs: list[float]) -> tuple[float, float]:
    """Least-squares ``(t_local, t_distr)`` of the cost-weighted form through measured
    ``(p, throughput)`` points: a straight line through ``(p, 1/throughput)``. One distinct
    ``p`` gives a flat curve (``t_local == t_distr``). NaN where the fit is not positive."""
    if len(ps) != len(throughputs) or not ps:
        raise ValueError("fit_cost_weighted: needs as many throughputs as fractions, at least one")
    costs = [1.0 / t for t in throughputs]
    n = len(ps)
    mean_p, mean_c = sum(ps) / n, sum(costs) / n
    var = sum((p - mean_p) ** 2 for p in ps)
    slope = 0.0 if var == 0 else sum((p - mean_p) * (c - mean_c) for p, c in zip(ps, costs)) / var
    c_local = mean_c - slope * mean_p
    c_distr = c_local + slope
    if c_local <= 0 or c_distr <= 0:
        return math.nan, math.nan
    return 1.0 / c_local, 1.0 / c_distr
