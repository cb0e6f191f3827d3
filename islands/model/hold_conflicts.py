"""Rows held through two-phase commit: the time a worker loses waiting on a row that another
instance's distributed transaction holds at its site (paper 000 Sec 8.1: distributed TPC-B
transactions "increase the time that the hot row ... is locked, thus increasing contention").

A distributed update's fragment locks its rows at the participant and keeps them until
phase 2 arrives: a hold of about the transaction's per-participant communication time ``H``.
The participant's worker meanwhile runs its local transactions; each touches one of the held
rows with probability ``1 / pool`` (:func:`remote_row_pool`), and once one does it waits (a
no-wait abort retried after a back-off, again and again) until the hold ends. With local
transactions of ``L`` µs the first hit comes after an exponential time of mean ``pool * L``,
so the expected loss per hold is ``H - pool * L * (1 - exp(-H / (pool * L)))``; only the
local share of the worker's transactions can hit, so the loss scales by ``1 - q``.
:func:`hold_loss` gives it as a share of ``H``.

Where it matters: TPC-B's remote teller is one of 10 per branch, every local transaction
updates one, and a hold of tens of µs blocks the branch's worker for most of it; a Payment's
remote customer (one of 30,000 per warehouse) or a microbenchmark's rows (10,000 per site)
almost never meet a local transaction. Reads take shared locks: nothing conflicts. There is
no fitted parameter: ``H`` and ``L`` are the model's own costs, ``pool`` the workload's
definition. The simulation (:mod:`islands.model.simulation`) draws the conflicts instead.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from islands.model.workload_spec import KINDS, ModelWorkload, participants

__all__ = ["blocking_us", "hold_loss", "remote_row_pool"]


def remote_row_pool(workload: ModelWorkload, held_rows: float = 1.0) -> float:
    """The number of rows among which one local transaction's chance of touching a held row
    is one: ``inf`` for reads (shared locks) or a workload without remote rows; for the
    microbenchmark, the site's rows over the rows held (``held_rows``, a fragment's rows at
    the participant) times the rows a local transaction takes."""
    if not workload.update:
        return math.inf
    if workload.per_row:
        return workload.rows_per_site / max(held_rows * workload.rows, 1e-9)
    return KINDS[workload.kind].remote_pool  # (workload_spec.Kind.remote_pool)


def hold_loss(hold_us: Any, local_us: Any, pool: float, local_share: float) -> Any:
    """The share of a hold of ``hold_us`` that a worker running local transactions of
    ``local_us`` (``local_share`` of its transactions) loses waiting on the held row, one in
    ``pool`` per local transaction (see the module's form); arrays broadcast. 0 where nothing
    can conflict."""
    if not math.isfinite(pool) or local_share <= 0:
        return 0.0 * np.asarray(hold_us, dtype=float)
    hold = np.maximum(np.asarray(hold_us, dtype=float), 1e-12)
    tau = np.maximum(pool * np.asarray(local_us, dtype=float), 1e-12)
    return local_share * (1.0 - tau / hold * (1.0 - np.exp(-hold / tau)))


def blocking_us(workload: ModelWorkload, sizes: list[int], instance: int, communication: Any, local_us: Any) -> Any:
    """Time per transaction a worker of ``instance`` (instances of ``sizes`` CPUs, sites in
    proportion) loses to rows held at its site by other instances' distributed transactions:
    with uniform load it takes part in as many as it starts, ``q * m`` per transaction, each
    holding for ``communication / m`` (``communication``: one distributed transaction's time,
    ``m`` participants), so ``q * communication * hold_loss(...)``; ``local_us``: its local
    time per transaction. Arrays broadcast."""
    p_dist, m = participants(workload, sizes, instance)
    q = workload.multisite_share * p_dist
    if q <= 0 or m <= 0:
        return 0.0 * np.asarray(communication, dtype=float)
    home = sizes[instance] / sum(sizes)
    held = (workload.rows - 1) * (1 - home) / m if workload.per_row else 1.0
    pool = remote_row_pool(workload, held)
    return q * np.asarray(communication, dtype=float) * hold_loss(communication / m, local_us, pool, 1 - q)
