"""A deployment planned on another machine, run on this one's CPUs (``--oversubscribe``).

A deployment of 24 to 192 instances is planned on the topology of the server it is meant for
(a sysfs tree such as ``tests/fixtures/sysfs/xeon-e7530-4x6``: its sockets, distances and
placement rules), and its workers are packed onto the CPUs this machine has: worker ``k`` (site
``k``, in the deployment's site order) is dealt host CPU ``k mod len(host_cpus)``, and each
instance process is bound to the host CPUs its workers were dealt (one CPU for an instance of one
worker) or left to the scheduler. The engine's workers keep the planned machine's CPU ids (one
worker per CPU, as on the real server) and are not pinned one by one: the instance's binding is
what places them. Such a run is *functional*: it exercises every path that grows with
the number of instances (2PC fan-out, rings, logs, recovery, the history checker) and counts
messages, aborts and protocol steps, but its throughput says nothing about the planned machine,
and the verdict layer refuses to compare it.

Pure functions of the deployment and a CPU list: tested on made-up machines.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from islands.machine.placement import Deployment
from islands.machine.topology import format_cpulist

__all__ = ["Packing", "pack"]


@dataclass(frozen=True)
class Packing:
    """Where the workers of a deployment planned on another machine run here.

    ``instances[i]`` lists the host CPU dealt to each worker of instance ``i`` (a CPU may appear
    in several instances and several times in one: that is the oversubscription); ``pinned`` says
    whether each instance process is bound to its dealt CPUs (:meth:`affinity`) or left to the
    scheduler. ``planned_on`` names the planned machine."""

    instances: tuple[tuple[int, ...], ...]
    host_cpus: tuple[int, ...]
    pinned: bool
    planned_on: str

    @property
    def workers(self) -> int:
        """Worker threads over all instances."""
        return sum(len(c) for c in self.instances)

    @property
    def factor(self) -> float:
        """Workers per host CPU (1.0: not oversubscribed at all)."""
        return self.workers / len(self.host_cpus)

    def affinity(self, instance: int) -> tuple[int, ...] | None:
        """The host CPUs instance ``instance``'s process is bound to (None: not bound)."""
        return tuple(sorted(set(self.instances[instance]))) if self.pinned else None

    def describe(self) -> str:
        """One line: ``planned on xeon-e7530-4x6: 24 workers packed onto cpus 0-1 (12.0 a cpu, dealt
        round-robin)``."""
        how = "dealt round-robin" if self.pinned else "not pinned"
        return (
            f"planned on {self.planned_on}: {self.workers} workers packed onto cpus "
            f"{format_cpulist(self.host_cpus)} ({self.factor:.1f} a cpu, {how})"
        )

    def to_dict(self) -> dict[str, Any]:
        """What a result row records of it."""
        return {
            "planned_on": self.planned_on,
            "host_cpus": list(self.host_cpus),
            "pinned": self.pinned,
            "workers": self.workers,
            "factor": self.factor,
        }


def pack(deployment: Deployment, host_cpus: Sequence[int], pinned: bool, planned_on: str) -> Packing:
    """Packs ``deployment``'s workers onto ``host_cpus`` round-robin in site order, so that an
    instance's workers spread over the host CPUs and the load is even: a ``ValueError`` when
    there are no host CPUs."""
    host = tuple(int(c) for c in host_cpus)
    if not host:
        raise ValueError("--oversubscribe: no cpus of this machine to run on")
    instances = []
    site = 0
    for cpus in deployment.instances:
        instances.append(tuple(host[(site + k) % len(host)] for k in range(len(cpus))))
        site += len(cpus)
    return Packing(instances=tuple(instances), host_cpus=host, pinned=pinned, planned_on=planned_on)
