"""A worker serves other instances' fragments while it waits for its own votes: the part of a
distributed transaction its participant works costs the participant nothing when it arrives
while the participant is itself waiting (``exec/worker_loop.hpp`` serves inbound messages
while a coordinator waits; the simulation, :mod:`islands.model.simulation`, does the same).

A distributed transaction's cost per participant ``D`` splits into the coordinator's part,
``COORDINATOR_SHARE * D`` (its own work and the wait for the vote), and the participant's,
the rest. A worker spends ``iota = q * m * COORDINATOR_SHARE * D / t`` of its time waiting in
its own distributed transactions (``t``: its time per transaction, ``q * m``: participations
per transaction); the fragments that arrive then are free. So the worker's time is::

    t = local + q * m * D * (1 + b - (1 - COORDINATOR_SHARE) * iota)

(``b``: rows held through two-phase commit, :mod:`islands.model.hold_conflicts`), solved for
``t`` by iteration (:func:`overlap`). At a low multisite share the worker is rarely waiting and
pays for every fragment; at 100% it waits most of the time and the fragments hide in the
waits: on this machine the cost per distributed transaction falls 20-40% from 20% to 100%
multisite, for reads and updates, over unix sockets and shared memory alike. The split is
the simulation's default (its ``coordinator_share``), not fitted; ``COORDINATOR_SHARE = 1``
charges everything to the coordinator and leaves nothing to overlap.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["COORDINATOR_SHARE", "overlap"]

#: The coordinator's share of a distributed transaction's cost per participant (the rest is
#: the participant's work on its fragment): half, as the simulation splits it by default.
COORDINATOR_SHARE = 0.5
#: Rounds of the fixed-point iteration for the waiting share.
ROUNDS = 30


def overlap(local: Any, distributed: Any, hold_share: Any = 0.0, coordinator_share: float = COORDINATOR_SHARE) -> Any:
    """The share of ``distributed`` (``q * m * D``: a worker's distributed time per
    transaction, µs) its fragments hide in its own waits, ``(1 - coordinator_share) * iota``
    with ``iota`` the waiting share of ``t = local + distributed * (1 + hold_share - overlap)``;
    arrays broadcast. 0 without distributed time or with ``coordinator_share`` 1."""
    local = np.asarray(local, dtype=float)
    distributed = np.asarray(distributed, dtype=float)
    if coordinator_share >= 1.0 or not np.any(distributed > 0):
        return 0.0 * (local + distributed)
    share = 0.0 * (local + distributed)
    for _ in range(ROUNDS):
        t = np.maximum(local + distributed * (1 + hold_share - share), 1e-12)
        iota = np.minimum(1.0, distributed * coordinator_share / t)
        share = (1 - coordinator_share) * iota
    return share
