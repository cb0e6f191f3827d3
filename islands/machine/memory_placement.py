"""Where each instance's memory lives (paper 002, Table 1): the NUMA nodes an instance process
binds its allocations to (set_mempolicy MPOL_BIND, :mod:`islands.machine.memory_policy`).

- ``local``: the nodes of the instance's own cores (the default: perfect NUMA locality);
- ``central``: every instance on one node, the first socket's (002's "Central");
- ``remote``: every instance on another instance's node: the next node after its own, in the
  topology's order, so that each node serves exactly one other socket (002's "Remote").

A virtual topology's nodes are made up (the memory is the real machine's), so nothing is bound
there; ``remote`` needs two real nodes.
"""

from __future__ import annotations

from islands.machine.placement import Deployment
from islands.machine.topology import Topology

__all__ = ["MEMORY_POLICIES", "memory_nodes"]

#: The allocation policies a deployment may ask for.
MEMORY_POLICIES = ("local", "central", "remote")


def memory_nodes(topology: Topology, deployment: Deployment, policy: str = "local") -> list[list[int]] | None:
    """The NUMA nodes each instance of ``deployment`` binds its memory to under ``policy``, or
    None where nothing is bound: local allocation on a machine of one node, an unpinned
    deployment (its threads may run anywhere) or a virtual topology. ValueError (one line)
    for a policy the machine cannot give."""
    if policy not in MEMORY_POLICIES:
        raise ValueError(f"memory: unknown policy {policy!r} (choose {', '.join(MEMORY_POLICIES)})")
    if topology.virtual:
        if policy != "local":
            raise ValueError(f"memory: {policy} needs real NUMA nodes; this topology's are VIRTUAL")
        return None
    nodes = [n.id for n in topology.numa_nodes]
    own = [sorted({topology.numa_node_of(c) for c in cpus}) for cpus in deployment.instances]
    if policy == "local":
        return own if len(nodes) > 1 and deployment.pinned else None
    if policy == "central":
        return [[nodes[0]] for _ in own]
    if len(nodes) < 2:
        raise ValueError("memory: remote needs two NUMA nodes; this machine has one")
    out = []
    for i, home in enumerate(own):
        if len(home) != 1:
            raise ValueError(f"memory: remote needs each instance on one NUMA node; instance {i} spans nodes {home}")
        out.append([nodes[(nodes.index(home[0]) + 1) % len(nodes)]])
    return out
