"""An interval's action costs put on an equal footing across workers that the machine gave
unequal CPU time.

In our PLP engine every worker is also a client that draws its own transactions (closed loop),
and the monitor costs an action by the cycles its owner spent running it
(exec/plp/plp_monitor.hpp). On a machine shared with other work, a worker given 60% of its core
runs 60% of the transactions it would have, and its units cost 60% of what they would: the
imbalance the search sees is the scheduler's, not the workload's, and changes sign from one
interval to the next (measured: on a balanced TATP load at load average 4, one worker's share
of the costs ranged from 0% to 89% over 0.5 s intervals; its share of the commits followed).
Dividing each worker's costs by the CPU time it had (and multiplying by the mean) gives what
its units would have cost with an equal share of the machine, which is what moving units
between workers can change. A worker that had almost no CPU in the interval tells nothing
about its units: such an interval gives no statistics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from islands.atrapos.scheme import SUB_PARTITIONS

__all__ = ["MIN_CPU_SHARE", "equal_cpu_costs"]

#: A worker with less than this share of the available workers' mean CPU time in an interval
#: makes the interval's costs unusable.
MIN_CPU_SHARE = 0.25


def equal_cpu_costs(
    snapshot: Mapping[str, Any], owners: Sequence[int], cpu_ns: Sequence[float] | np.ndarray, available: np.ndarray
) -> dict[str, Any] | None:
    """``snapshot`` (an interval: ``cost`` per [site][unit], units owned by ``owners``) with
    every available worker's costs scaled by (the available workers' mean CPU time) / (its
    CPU time ``cpu_ns[w]``), and so are the transactions it drew (``drawn[w]``, when the
    snapshot has them: a drawer given less CPU draws less); a worker not available (its core
    taken away) keeps its costs.
    None when an available worker that owns units had less than :data:`MIN_CPU_SHARE` of the
    mean. Raises ``ValueError`` for mismatched lengths or a negative CPU time."""
    owner = np.asarray(owners, dtype=np.int64)
    cpu = np.asarray(cpu_ns, dtype=np.float64)
    on = np.asarray(available, dtype=bool)
    cost = np.asarray(snapshot["cost"], dtype=np.float64)
    if cost.size != owner.size or owner.size % SUB_PARTITIONS:
        raise ValueError(f"owners: {owner.size} for {cost.size} units")
    if cpu.shape != on.shape:
        raise ValueError(f"cpu_ns: {cpu.size} workers, available names {on.size}")
    if not (np.all(np.isfinite(cpu)) and np.all(cpu >= 0)):
        raise ValueError(f"cpu_ns: {cpu.tolist()} are not CPU times")
    mean = float(cpu[on].mean())
    owning = np.zeros(cpu.size, dtype=bool)
    owning[owner] = True
    if mean <= 0 or np.any(cpu[on & owning] < MIN_CPU_SHARE * mean):
        return None
    factor = np.where(on & (cpu > 0), mean / np.where(cpu > 0, cpu, 1.0), 1.0)
    scaled = (cost.reshape(-1) * factor[owner]).reshape(cost.shape)
    if "drawn" not in snapshot:
        return {**snapshot, "cost": scaled}
    drawn = np.asarray(snapshot["drawn"], dtype=np.float64)  # [worker][site][unit]: the drawer's clock
    if drawn.shape[0] != cpu.size:
        raise ValueError(f"drawn: {drawn.shape[0]} workers, cpu_ns names {cpu.size}")
    return {**snapshot, "cost": scaled, "drawn": drawn * factor[:, None, None]}
