"""Virtual topologies: the real cores regrouped into made-up sockets, so that the logic that
plans per socket (islands, per-socket deployments, socket distances) runs and is tested on a
machine with fewer sockets than the study needs.

A virtual socket is a group of whole cores; each is its own NUMA node, at ``remote_distance``
from the others. Nothing about the hardware changes: the cores still share their real caches
and memory, so a virtual topology shows what the software does with sockets, never what the
interconnect costs. Every result planned on one carries ``topology["virtual"]``, and figures
say so.
"""

from __future__ import annotations

from islands.machine.topology import LOCAL_DISTANCE, Core, NumaNode, Socket, Topology, TopologyError

__all__ = ["DEFAULT_REMOTE_DISTANCE", "virtual_sockets"]

#: The distance a virtual socket's node reports to the others (the kernel's usual one-hop value).
DEFAULT_REMOTE_DISTANCE = 20


def virtual_sockets(
    topology: Topology, n: int, remote_distance: int = DEFAULT_REMOTE_DISTANCE, message_delay_us: float = 0.0
) -> Topology:
    """``topology``'s cores regrouped into ``n`` virtual sockets of consecutive cores (in
    socket, then core order), as even as the cores allow: the first ``cores % n`` sockets get
    one core more. Cores keep their hardware threads and are numbered from 0 in their virtual
    socket; caches are the real ones. ``message_delay_us`` injects that delay on every message
    between workers of different virtual sockets (the engine holds such a message that long
    after it arrives, and counts it). Raises :class:`TopologyError` naming the flag when ``n``
    is not between 1 and the number of cores, the distance is not beyond local, or the delay
    is outside [0, 1 s]."""
    cores = [core for sock in topology.sockets for core in sock.cores]
    if not 1 <= n <= len(cores):
        raise TopologyError(f"--virtual-sockets: {n} sockets need 1 to {len(cores)} (the machine's cores)")
    if remote_distance <= LOCAL_DISTANCE:
        raise TopologyError(f"--virtual-distance: {remote_distance} must be above the local {LOCAL_DISTANCE}")
    if not 0 <= message_delay_us <= 1e6:
        raise TopologyError(f"--virtual-delay-us: {message_delay_us:g} is not in [0, 1000000]")
    base, extra = divmod(len(cores), n)
    sockets: list[Socket] = []
    at = 0
    for socket_id in range(n):
        size = base + (1 if socket_id < extra else 0)
        group = cores[at : at + size]
        at += size
        sockets.append(Socket(socket_id, tuple(Core(i, socket_id, c.cpus) for i, c in enumerate(group))))
    nodes = tuple(NumaNode(s.id, s.cpus) for s in sockets)
    distances = tuple(tuple(LOCAL_DISTANCE if i == j else remote_distance for j in range(n)) for i in range(n))
    real = "1 real socket" if topology.n_sockets == 1 else f"{topology.n_sockets} real sockets"
    made_from = f"{n} made-up sockets over the {len(cores)} cores of {real}; caches and memory are the real machine's"
    if message_delay_us:
        made_from += f"; {message_delay_us:g} us injected on every message between sockets"
    return Topology(
        cpus=topology.cpus,
        sockets=tuple(sockets),
        numa_nodes=nodes,
        distances=distances,
        caches=topology.caches,
        notes=topology.notes,
        source=topology.source,
        virtual=made_from,
        message_delay_us=float(message_delay_us),
    )
