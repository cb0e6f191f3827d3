"""Where a workload's transactions go: each to the instance that owns its home row (the client
layer's routing, issue 29), with rows drawn by Zipf over the whole data range, the hottest at
the first site (range partitioning puts them in the first instance).

Under skew the first instance receives more than its share and, once it saturates, limits what
the whole deployment commits (the others wait for it: their clients are queued there, their
distributed transactions wait for its votes). :func:`home_shares` gives each instance's share
of the home rows and :func:`routing_limit` what that does to a deployment whose instances
commit ``capacity`` transactions per second each: ``min(capacity_i / share_i)``, the
bottleneck bound of a closed system. The closed form has neither term, so it says it does not
apply to skewed workloads (:func:`islands.model.predict.predict`); the simulation
(:mod:`islands.model.simulation`) routes and queues.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from islands.machine.placement import Deployment
from islands.model.workload_spec import ModelWorkload
from islands.model.zipf_ranks import HEAD, ZipfRanks

__all__ = ["home_shares", "routing_limit", "zipf_mass"]


def zipf_mass(n: int, s: float, edges: Sequence[int]) -> list[float]:
    """The probability mass of Zipf ``s`` over ranks ``0..n-1`` (p(k) ∝ 1/(k+1)^s) that falls in
    each range ``edges[i]..edges[i+1]`` (``edges`` ascending, from 0 to ``n``)."""
    if s == 0:
        return [(b - a) / n for a, b in zip(edges, edges[1:])]
    if n > HEAD:  # bounded memory: the head exact, the tail integrated
        table = ZipfRanks(n, s)
        return [table.mass_below(b) - table.mass_below(a) for a, b in zip(edges, edges[1:])]
    weights = 1.0 / np.arange(1, n + 1, dtype=float) ** s
    cdf = np.concatenate([[0.0], np.cumsum(weights)])
    total = cdf[-1]
    return [float((cdf[b] - cdf[a]) / total) for a, b in zip(edges, edges[1:])]


def home_shares(workload: ModelWorkload, deployment: Deployment) -> list[float]:
    """Each instance's share of the transactions whose home row it owns: its sites' share of
    the Zipf mass over all rows (one site per CPU, ``rows_per_site`` rows each, instances in
    order)."""
    rows = workload.rows_per_site
    edges = [0]
    for cpus in deployment.instances:
        edges.append(edges[-1] + len(cpus) * rows)
    return zipf_mass(edges[-1], workload.zipf_s, edges)


def routing_limit(capacities: Sequence[float], shares: Sequence[float]) -> float:
    """The most a closed system whose instances commit ``capacities`` each (txn/s) commits in
    all when instance ``i`` is sent ``shares[i]`` of the transactions: ``min(c_i / s_i)``."""
    bounds = [c / s for c, s in zip(capacities, shares) if s > 0]
    return min(bounds) if bounds else math.nan
