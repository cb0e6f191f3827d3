"""The machine's topology as Linux sysfs describes it.

Sockets, cores, hardware threads (logical cpus), caches and NUMA nodes with their distance
matrix. Reading and parsing are separate, so that placement code can be tested on made-up
machines:

- :func:`read_sysfs_files` copies the few sysfs files the topology needs into a plain
  mapping (path relative to the sysfs root -> text);
- :func:`parse_topology` is a pure function of that mapping;
- :func:`read_topology` does both.

Only online cpus count. A kernel without NUMA support has no ``devices/system/node``
directory; such a machine is one node holding every cpu, and the topology records that in
its ``notes`` rather than failing. A tree that lacks a file the topology needs, or holds one
that does not parse, raises :class:`TopologyError` with a one-line message naming the file.

:meth:`Topology.to_dict` / :meth:`Topology.from_dict` round-trip exactly through JSON; every
result row stores the topology it ran on that way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Cache",
    "Core",
    "NumaNode",
    "Socket",
    "Topology",
    "TopologyError",
    "format_cpulist",
    "format_size",
    "parse_cpulist",
    "parse_size",
    "parse_topology",
    "read_sysfs_files",
    "read_topology",
]

CPU_DIR = "devices/system/cpu"
NODE_DIR = "devices/system/node"
# The files read under cpuN/topology, cpuN/cache/indexK and nodeN; nothing else is read.
TOPOLOGY_FILES = ("physical_package_id", "core_id")
CACHE_FILES = ("level", "type", "size", "shared_cpu_list", "coherency_line_size")
NODE_FILES = ("cpulist", "distance")
# Version of the to_dict() layout; from_dict() refuses any other.
DICT_VERSION = 1
# Distance the kernel reports from a node to itself when it has no SLIT to go by.
LOCAL_DISTANCE = 10
NO_NUMA_NOTE = f"no {NODE_DIR} in sysfs (kernel without NUMA support): treated as one node holding all cpus"

_CACHE_TYPE_ORDER = {"Data": 0, "Instruction": 1, "Unified": 2}
_CPU_DIR_RE = re.compile(r"cpu(\d+)")
_INDEX_DIR_RE = re.compile(r"index(\d+)")
_NODE_DIR_RE = re.compile(r"node(\d+)")
_CACHE_KEY_RE = re.compile(rf"{CPU_DIR}/cpu(\d+)/cache/index(\d+)/")
_NODE_KEY_RE = re.compile(rf"{NODE_DIR}/node(\d+)/")
# A cpu list item: ASCII digits only (``str.isdigit`` and ``\d`` also take "٠" and "１").
_CPULIST_ITEM_RE = re.compile(r"([0-9]+)(?:-([0-9]+)(?::([0-9]+))?)?", re.ASCII)
#: The largest cpu count a Linux kernel can be built for (``CONFIG_NR_CPUS`` tops out at
#: 8192 on x86-64, arm64 and powerpc); a cpu list naming an id at or past it is refused.
MAX_CPUS = 8192
#: The longest cpu list text accepted: every id below MAX_CPUS written singly fits.
MAX_CPULIST_CHARS = 64 * 1024
_SIZE_RE = re.compile(r"(\d+)\s*([KMG]?)(?:i?B)?", re.IGNORECASE)
_SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


class TopologyError(ValueError):
    """A sysfs tree or topology dict that cannot be read; the message is one line naming the
    file (or field) and what is wrong with it."""


def parse_cpulist(text: str) -> list[int]:
    """Parse a kernel cpu list such as ``"0-3,8,10-11"`` into sorted, distinct cpu ids.

    Whitespace around the list is ignored and an empty list is ``[]``. The kernel's stride
    form ``"0-7:2"`` (every second cpu from 0 to 7) is accepted too. Raises ``ValueError``
    naming the offending item for anything else.
    """
    cpus: set[int] = set()
    text = text.strip()
    if not text:
        return []
    if len(text) > MAX_CPULIST_CHARS:
        raise ValueError(f"bad cpu list: {len(text)} characters, more than {MAX_CPULIST_CHARS}")
    for item in text.split(","):
        item = item.strip()
        m = _CPULIST_ITEM_RE.fullmatch(item)
        if m is None:
            raise ValueError(f"bad cpu list item {_where(item, text)} (ASCII digits 0-9 only)")
        # Bounded before anything is expanded: a range of ten billion cpus is refused here
        # rather than grown into a set the size of the machine's memory.
        first, last, step = (_cpu_number(g) if g is not None else None for g in m.groups())
        assert first is not None
        last = first if last is None else last
        step = 1 if step is None else step
        if last < first or step < 1:
            raise ValueError(f"bad cpu range {_where(item, text)}")
        if last >= MAX_CPUS:
            raise ValueError(
                f"bad cpu range {_where(item, text)}: cpu ids stop at {MAX_CPUS - 1} "
                f"(the kernel's largest NR_CPUS is {MAX_CPUS})"
            )
        cpus.update(range(first, last + 1, step))
    return sorted(cpus)


def _where(item: str, text: str) -> str:
    """``'item' in 'text'`` for an error message, each clipped to a line's worth."""

    def clip(s: str) -> str:
        return repr(s if len(s) <= 40 else s[:37] + "...")

    return clip(item) if item == text else f"{clip(item)} in {clip(text)}"


def _cpu_number(digits: str) -> int:
    """An id or stride of a cpu list; past MAX_CPUS by digits alone it is MAX_CPUS (refused by
    the caller, and never handed to ``int`` at thousands of digits)."""
    digits = digits.lstrip("0") or "0"
    return MAX_CPUS if len(digits) > len(str(MAX_CPUS)) else int(digits)


def format_cpulist(cpus: Iterable[int]) -> str:
    """Format cpu ids the way the kernel does, ``[0, 1, 2, 3, 8]`` -> ``"0-3,8"``.

    The inverse of :func:`parse_cpulist`; an empty collection gives ``""``.
    """
    ids = sorted(set(cpus))
    parts: list[str] = []
    i = 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        parts.append(str(ids[i]) if i == j else f"{ids[i]}-{ids[j]}")
        i = j + 1
    return ",".join(parts)


def parse_size(text: str) -> int:
    """Parse a sysfs cache size such as ``"32K"`` or ``"20480K"`` into bytes.

    The kernel writes sizes in KiB with a ``K`` suffix; ``M``/``G`` suffixes and plain byte
    counts are accepted as well (binary units). Raises ``ValueError`` for anything else.
    """
    m = _SIZE_RE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"bad size {text.strip()!r}")
    return int(m.group(1)) * _SIZE_UNITS[m.group(2).upper()]


def format_size(size_bytes: int) -> str:
    """Format a byte count for people: ``32768`` -> ``"32 KiB"``, ``1310720`` -> ``"1.25 MiB"``."""
    value = float(size_bytes)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.3f}".rstrip("0").rstrip(".") + f" {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _ids(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


@dataclass(frozen=True)
class Core:
    """One physical core.

    ``id`` is the sysfs ``core_id``, unique only within its socket (and not necessarily
    contiguous: a 10-core Westmere-EX reports 0,1,2,8,9,16,17,18,24,25). ``cpus`` are the
    core's online hardware threads, sorted.
    """

    id: int
    socket: int
    cpus: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cpus", _ids(self.cpus))


@dataclass(frozen=True)
class Socket:
    """One processor package (sysfs ``physical_package_id``) with its cores sorted by id."""

    id: int
    cores: tuple[Core, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cores", tuple(self.cores))

    @property
    def cpus(self) -> tuple[int, ...]:
        """All online hardware threads of the socket, sorted."""
        return tuple(sorted(c for core in self.cores for c in core.cpus))


@dataclass(frozen=True)
class NumaNode:
    """One NUMA node and its online cpus (empty for a memory-only node)."""

    id: int
    cpus: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cpus", _ids(self.cpus))


@dataclass(frozen=True)
class Cache:
    """One cache instance: its level, sysfs type (``Data``, ``Instruction`` or ``Unified``),
    size in bytes, the online cpus that share it, and its line size (``None`` where sysfs does
    not say)."""

    level: int
    type: str
    size_bytes: int
    cpus: tuple[int, ...]
    line_size: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "cpus", _ids(self.cpus))

    @property
    def name(self) -> str:
        """Conventional short name: ``L1d``, ``L1i``, ``L2``, ``L3``."""
        suffix = {"Data": "d", "Instruction": "i"}.get(self.type, "")
        return f"L{self.level}{suffix}"


@dataclass(frozen=True)
class Topology:
    """A machine's online cpus grouped into cores, sockets and NUMA nodes, plus its caches.

    All collections are tuples sorted by id. ``distances[i][j]`` is the kernel's distance
    from ``numa_nodes[i]`` to ``numa_nodes[j]`` (10 is local). ``caches`` holds each distinct
    cache instance once. ``notes`` records what the machine did not tell us (no NUMA support,
    offline cpus, no cache information). ``source`` says where it was read from; it is kept
    in :meth:`to_dict` but does not take part in equality.

    The constructor checks that the pieces agree (every cpu in exactly one core and one
    node, a square distance matrix, caches over known cpus) and raises
    :class:`TopologyError` if they do not.
    """

    cpus: tuple[int, ...]
    sockets: tuple[Socket, ...]
    numa_nodes: tuple[NumaNode, ...]
    distances: tuple[tuple[int, ...], ...]
    caches: tuple[Cache, ...] = ()
    notes: tuple[str, ...] = ()
    source: str = field(default="<memory>", compare=False)
    #: empty for a machine as sysfs describes it; for a virtual topology (made-up sockets over
    #: real cores, see islands.machine.virtual_topology) what it was made from
    virtual: str = ""
    #: an injected delay: every message between instances' workers on different sockets is
    #: delivered this many microseconds after it arrives (virtual topologies; 0: none)
    message_delay_us: float = 0.0
    # Lookup tables built by __post_init__; not part of the value.
    _core_of: dict[int, Core] = field(init=False, repr=False, compare=False, default_factory=dict)
    _node_of: dict[int, int] = field(init=False, repr=False, compare=False, default_factory=dict)
    _caches_of: dict[int, tuple[Cache, ...]] = field(init=False, repr=False, compare=False, default_factory=dict)

    def __post_init__(self) -> None:
        def set_(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)  # frozen: normalise once, at construction

        set_("cpus", _ids(self.cpus))
        set_("sockets", tuple(self.sockets))
        set_("numa_nodes", tuple(self.numa_nodes))
        set_("distances", tuple(_ids(row) for row in self.distances))
        set_("caches", tuple(self.caches))
        set_("notes", tuple(str(n) for n in self.notes))

        def bad(why: str) -> TopologyError:
            return TopologyError(f"inconsistent topology from {self.source}: {why}")

        if not self.cpus:
            raise bad("no cpus")
        if list(self.cpus) != sorted(set(self.cpus)) or self.cpus[0] < 0:
            raise bad(f"cpus {list(self.cpus)} are not sorted, distinct and non-negative")
        online = set(self.cpus)

        core_of: dict[int, Core] = {}
        if [s.id for s in self.sockets] != sorted({s.id for s in self.sockets}):
            raise bad("socket ids are not sorted and distinct")
        for sock in self.sockets:
            if [c.id for c in sock.cores] != sorted({c.id for c in sock.cores}):
                raise bad(f"core ids of socket {sock.id} are not sorted and distinct")
            if not sock.cores:
                raise bad(f"socket {sock.id} has no cores")
            for core in sock.cores:
                if core.socket != sock.id:
                    raise bad(f"core {core.id} of socket {sock.id} says socket {core.socket}")
                if not core.cpus or list(core.cpus) != sorted(set(core.cpus)):
                    raise bad(f"core {core.id} of socket {sock.id} has cpus {list(core.cpus)}")
                for cpu in core.cpus:
                    if cpu not in online:
                        raise bad(f"core {core.id} of socket {sock.id} holds unknown cpu {cpu}")
                    if cpu in core_of:
                        raise bad(f"cpu {cpu} belongs to two cores")
                    core_of[cpu] = core
        if len(core_of) != len(online):
            raise bad(f"cpus {format_cpulist(online - set(core_of))} belong to no core")

        node_of: dict[int, int] = {}
        if not self.numa_nodes:
            raise bad("no NUMA nodes")
        if [n.id for n in self.numa_nodes] != sorted({n.id for n in self.numa_nodes}):
            raise bad("NUMA node ids are not sorted and distinct")
        for node in self.numa_nodes:
            for cpu in node.cpus:
                if cpu not in online:
                    raise bad(f"NUMA node {node.id} holds unknown cpu {cpu}")
                if cpu in node_of:
                    raise bad(f"cpu {cpu} belongs to NUMA nodes {node_of[cpu]} and {node.id}")
                node_of[cpu] = node.id
        if len(node_of) != len(online):
            raise bad(f"cpus {format_cpulist(online - set(node_of))} belong to no NUMA node")
        if not (0 <= self.message_delay_us <= 1e6):
            raise bad(f"message delay {self.message_delay_us} us is not in [0, 1000000]")
        n = len(self.numa_nodes)
        if len(self.distances) != n or any(len(row) != n for row in self.distances):
            raise bad(f"distance matrix is not {n}x{n}")

        caches_of: dict[int, list[Cache]] = {cpu: [] for cpu in self.cpus}
        for cache in self.caches:
            if not cache.cpus or not set(cache.cpus) <= online:
                raise bad(f"{cache.name} cache over cpus {list(cache.cpus)}")
            for cpu in cache.cpus:
                caches_of[cpu].append(cache)

        set_("_core_of", core_of)
        set_("_node_of", node_of)
        set_("_caches_of", {cpu: tuple(cs) for cpu, cs in caches_of.items()})

    @property
    def n_cpus(self) -> int:
        """Number of online hardware threads."""
        return len(self.cpus)

    @property
    def n_cores(self) -> int:
        """Number of physical cores with at least one online thread."""
        return sum(len(s.cores) for s in self.sockets)

    @property
    def n_sockets(self) -> int:
        """Number of sockets with at least one online cpu."""
        return len(self.sockets)

    @property
    def n_numa_nodes(self) -> int:
        """Number of NUMA nodes (1 on a machine without NUMA support)."""
        return len(self.numa_nodes)

    @property
    def cores(self) -> tuple[Core, ...]:
        """Every core, socket by socket."""
        return tuple(core for s in self.sockets for core in s.cores)

    def _check_cpu(self, cpu: int) -> None:
        if cpu not in self._core_of:
            raise ValueError(f"cpu {cpu} is not an online cpu of this machine (online: {format_cpulist(self.cpus)})")

    def core_of(self, cpu: int) -> Core:
        """The core that hardware thread ``cpu`` belongs to."""
        self._check_cpu(cpu)
        return self._core_of[cpu]

    def socket_of(self, cpu: int) -> int:
        """The socket id of hardware thread ``cpu``."""
        return self.core_of(cpu).socket

    def numa_node_of(self, cpu: int) -> int:
        """The NUMA node id of hardware thread ``cpu``."""
        self._check_cpu(cpu)
        return self._node_of[cpu]

    def socket(self, socket_id: int) -> Socket:
        """The socket with this id."""
        for sock in self.sockets:
            if sock.id == socket_id:
                return sock
        ids = ", ".join(str(s.id) for s in self.sockets)
        raise ValueError(f"no socket {socket_id} on this machine (sockets: {ids})")

    def numa_node(self, node_id: int) -> NumaNode:
        """The NUMA node with this id."""
        for node in self.numa_nodes:
            if node.id == node_id:
                return node
        ids = ", ".join(str(n.id) for n in self.numa_nodes)
        raise ValueError(f"no NUMA node {node_id} on this machine (nodes: {ids})")

    def cpus_of_socket(self, socket_id: int) -> tuple[int, ...]:
        """The online hardware threads of socket ``socket_id``, sorted."""
        return self.socket(socket_id).cpus

    def cpus_of_node(self, node_id: int) -> tuple[int, ...]:
        """The online hardware threads of NUMA node ``node_id``, sorted."""
        return self.numa_node(node_id).cpus

    def distance(self, node_a: int, node_b: int) -> int:
        """The kernel's distance between two NUMA nodes, by node id (10 is local)."""
        ids = [n.id for n in self.numa_nodes]
        for node_id in (node_a, node_b):
            if node_id not in ids:
                self.numa_node(node_id)  # raises with the list of nodes
        return self.distances[ids.index(node_a)][ids.index(node_b)]

    def caches_of(self, cpu: int) -> tuple[Cache, ...]:
        """The caches hardware thread ``cpu`` uses, L1d/L1i first, last level last."""
        self._check_cpu(cpu)
        return self._caches_of[cpu]

    def llc_of(self, cpu: int) -> Cache | None:
        """The last-level data (or unified) cache of ``cpu``; ``None`` where sysfs has no
        cache information."""
        data = [c for c in self.caches_of(cpu) if c.type != "Instruction"]
        return max(data, key=lambda c: c.level) if data else None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (ints, strings, lists) that :meth:`from_dict` turns back into an
        equal topology; ``from_dict(d).to_dict() == d`` as well."""
        return {
            "version": DICT_VERSION,
            "source": self.source,
            "cpus": list(self.cpus),
            "sockets": [
                {"id": s.id, "cores": [{"id": c.id, "cpus": list(c.cpus)} for c in s.cores]} for s in self.sockets
            ],
            "numa_nodes": [{"id": n.id, "cpus": list(n.cpus)} for n in self.numa_nodes],
            "distances": [list(row) for row in self.distances],
            "caches": [
                {
                    "level": c.level,
                    "type": c.type,
                    "size_bytes": c.size_bytes,
                    "cpus": list(c.cpus),
                    "line_size": c.line_size,
                }
                for c in self.caches
            ],
            "notes": list(self.notes),
            "virtual": self.virtual,
            "message_delay_us": self.message_delay_us,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Topology:
        """Rebuild a topology from :meth:`to_dict` output (for example a stored result's
        JSON). Raises :class:`TopologyError` naming the field that is missing or wrong."""
        if not isinstance(d, Mapping):
            raise TopologyError(f"topology dict: expected a mapping, got {type(d).__name__}")
        if d.get("version") != DICT_VERSION:
            raise TopologyError(f"topology dict: version {d.get('version')!r} is not {DICT_VERSION}")
        try:
            return cls(
                cpus=_ids(d["cpus"]),
                sockets=tuple(
                    Socket(
                        id=int(s["id"]),
                        cores=tuple(
                            Core(id=int(c["id"]), socket=int(s["id"]), cpus=_ids(c["cpus"])) for c in s["cores"]
                        ),
                    )
                    for s in d["sockets"]
                ),
                numa_nodes=tuple(NumaNode(id=int(n["id"]), cpus=_ids(n["cpus"])) for n in d["numa_nodes"]),
                distances=tuple(_ids(row) for row in d["distances"]),
                caches=tuple(
                    Cache(
                        level=int(c["level"]),
                        type=str(c["type"]),
                        size_bytes=int(c["size_bytes"]),
                        cpus=_ids(c["cpus"]),
                        line_size=None if c["line_size"] is None else int(c["line_size"]),
                    )
                    for c in d["caches"]
                ),
                notes=tuple(str(n) for n in d["notes"]),
                source=str(d["source"]),
                virtual=str(d.get("virtual", "")),  # older results: a real machine
                message_delay_us=float(d.get("message_delay_us", 0.0)),
            )
        except KeyError as e:
            raise TopologyError(f"topology dict: missing field {e.args[0]!r}") from None
        except (TypeError, ValueError) as e:
            if isinstance(e, TopologyError):
                raise
            raise TopologyError(f"topology dict: malformed field: {e}") from None

    def describe(self) -> str:
        """A multi-line, human-readable description: sockets, cores and their hardware
        threads, the caches and who shares them, the NUMA nodes and their distance table,
        and the notes."""
        return "\n".join(_describe_lines(self))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _cpus_phrase(cpus: Iterable[int]) -> str:
    ids = list(cpus)
    if not ids:
        return "no cpus"
    return f"cpu {ids[0]}" if len(ids) == 1 else f"cpus {format_cpulist(ids)}"


def _describe_lines(t: Topology) -> list[str]:
    threads = sorted({len(c.cpus) for c in t.cores})
    per_core = str(threads[0]) if len(threads) == 1 else f"{threads[0]}-{threads[-1]}"
    lines = [
        f"topology of {t.source}" + (f", VIRTUAL: {t.virtual}" if t.virtual else ""),
        f"  {_plural(t.n_sockets, 'socket')}, {_plural(t.n_cores, 'core')}, "
        f"{_plural(t.n_cpus, 'hardware thread')} ({per_core} per core), "
        f"{_plural(t.n_numa_nodes, 'NUMA node')}",
        "",
    ]

    for sock in t.sockets:
        nodes = sorted({t.numa_node_of(c) for c in sock.cpus})
        where = f", node {nodes[0]}" if len(nodes) == 1 else ""
        lines.append(f"socket {sock.id}: {_plural(len(sock.cores), 'core')}, {_cpus_phrase(sock.cpus)}{where}")
        for core in sock.cores:
            lines.append(f"  core {core.id}: {_cpus_phrase(core.cpus)}")
    lines.append("")

    if t.caches:
        line_sizes = sorted({c.line_size for c in t.caches if c.line_size is not None})
        header = "caches"
        if len(line_sizes) == 1:
            header += f" ({line_sizes[0]}-byte lines)"
        lines.append(header + ":")
        core_cpus = {core.cpus for core in t.cores}
        socket_of_cpus = {sock.cpus: sock.id for sock in t.sockets}
        groups: dict[tuple[int, int, str, int], list[Cache]] = {}
        for cache in t.caches:
            order = _CACHE_TYPE_ORDER.get(cache.type, len(_CACHE_TYPE_ORDER))
            key = (cache.level, order, cache.type, cache.size_bytes)
            groups.setdefault(key, []).append(cache)
        for group in groups.values():
            first = group[0]
            label = f"{first.name} {format_size(first.size_bytes)}"
            count = _plural(len(group), "instance")
            if all(c.cpus in core_cpus for c in group):
                lines.append(f"  {label} per core ({count})")
            elif all(len(c.cpus) == 1 for c in group):
                lines.append(f"  {label} per hardware thread ({count})")
            else:
                for c in group:
                    sock_id = socket_of_cpus.get(c.cpus)
                    whose = f" (socket {sock_id})" if sock_id is not None else ""
                    lines.append(f"  {label} shared by {_cpus_phrase(c.cpus)}{whose}")
        lines.append("")

    lines.append("NUMA nodes:")
    for node in t.numa_nodes:
        lines.append(f"  node {node.id}: {_cpus_phrase(node.cpus)}")
    lines.append("")

    lines.append(f"NUMA distances ({LOCAL_DISTANCE} = local):")
    ids = [str(n.id) for n in t.numa_nodes]
    width = max(len(s) for s in ids + [str(v) for row in t.distances for v in row])
    lines.append("  node  " + "  ".join(s.rjust(width) for s in ids))
    for node_id, row in zip(ids, t.distances):
        lines.append(f"  {node_id.rjust(4)}  " + "  ".join(str(v).rjust(width) for v in row))

    if t.message_delay_us:
        lines.append(f"injected delay: {t.message_delay_us:g} us on every message between sockets")
    if t.notes:
        lines.append("")
        lines.append("notes:")
        lines.extend(f"  - {note}" for note in t.notes)
    return lines


class _Files:
    """Typed access to the sysfs mapping, raising TopologyError that names the file."""

    def __init__(self, files: Mapping[str, str], source: str) -> None:
        self.files = files
        self.source = source

    def error(self, path: str, why: str) -> TopologyError:
        return TopologyError(f"sysfs tree {self.source}: {path}: {why}")

    def text(self, path: str) -> str:
        try:
            return self.files[path].strip()
        except KeyError:
            raise TopologyError(f"sysfs tree {self.source}: missing {path}") from None

    def integer(self, path: str) -> int:
        text = self.text(path)
        try:
            return int(text)
        except ValueError:
            raise self.error(path, f"expected an integer, got {text[:40]!r}") from None

    def integers(self, path: str) -> list[int]:
        text = self.text(path)
        try:
            return [int(v) for v in text.split()]
        except ValueError:
            raise self.error(path, f"expected integers, got {text[:40]!r}") from None

    def cpulist(self, path: str) -> list[int]:
        try:
            return parse_cpulist(self.text(path))
        except TopologyError:
            raise
        except ValueError as e:
            raise self.error(path, str(e)) from None

    def size(self, path: str) -> int:
        try:
            return parse_size(self.text(path))
        except TopologyError:
            raise
        except ValueError as e:
            raise self.error(path, str(e)) from None


def parse_topology(files: Mapping[str, str], source: str = "<memory>") -> Topology:
    """Build a :class:`Topology` from sysfs file contents, without touching the disk.

    ``files`` maps paths relative to the sysfs root (``"devices/system/cpu/online"``,
    ``"devices/system/cpu/cpu3/topology/core_id"``, ``"devices/system/node/node1/distance"``,
    ...) to their text; :func:`read_sysfs_files` produces it from a real tree and tests write
    it by hand. ``source`` names the tree in error messages and in ``Topology.source``.

    Files needed: ``cpu/online``; for each online cpu ``topology/physical_package_id`` and
    ``topology/core_id``; for each of its ``cache/indexK`` directories ``level``, ``type``,
    ``size`` and ``shared_cpu_list`` (``coherency_line_size`` is optional); and, if any
    ``devices/system/node`` file is given, each node's ``cpulist`` and ``distance``.
    ``cpu/present`` (optional) lets the notes name the offline cpus. Raises
    :class:`TopologyError` naming the first missing or malformed file.
    """
    f = _Files(files, source)
    notes: list[str] = []

    online = f.cpulist(f"{CPU_DIR}/online")
    if not online:
        raise f.error(f"{CPU_DIR}/online", "no online cpus")
    online_set = set(online)
    if f"{CPU_DIR}/present" in files:
        offline = sorted(set(f.cpulist(f"{CPU_DIR}/present")) - online_set)
        if offline:
            notes.append(f"{_cpus_phrase(offline)} present but offline, left out")

    # Sockets and cores.
    by_socket: dict[int, dict[int, list[int]]] = {}
    for cpu in online:
        base = f"{CPU_DIR}/cpu{cpu}/topology"
        package = f.integer(f"{base}/physical_package_id")
        core_id = f.integer(f"{base}/core_id")
        by_socket.setdefault(package, {}).setdefault(core_id, []).append(cpu)
    sockets = tuple(
        Socket(
            id=sid,
            cores=tuple(Core(id=cid, socket=sid, cpus=tuple(cores[cid])) for cid in sorted(cores)),
        )
        for sid, cores in sorted(by_socket.items())
    )

    # Caches: the same instance appears under every cpu that shares it.
    indexes: dict[int, set[int]] = {}
    for key in files:
        m = _CACHE_KEY_RE.match(key)
        if m:
            indexes.setdefault(int(m.group(1)), set()).add(int(m.group(2)))
    caches: dict[tuple[int, str, tuple[int, ...]], Cache] = {}
    without_cache: list[int] = []
    for cpu in online:
        if cpu not in indexes:
            without_cache.append(cpu)
            continue
        for index in sorted(indexes[cpu]):
            base = f"{CPU_DIR}/cpu{cpu}/cache/index{index}"
            level = f.integer(f"{base}/level")
            ctype = f.text(f"{base}/type")
            size = f.size(f"{base}/size")
            shared = tuple(c for c in f.cpulist(f"{base}/shared_cpu_list") if c in online_set)
            if cpu not in shared:
                raise f.error(f"{base}/shared_cpu_list", f"does not include cpu {cpu} itself")
            line_path = f"{base}/coherency_line_size"
            line = f.integer(line_path) if line_path in files else None
            cache_key = (level, ctype, shared)
            seen = caches.get(cache_key)
            if seen is None:
                caches[cache_key] = Cache(level, ctype, size, shared, line)
            elif seen.size_bytes != size:
                raise f.error(
                    f"{base}/size",
                    f"{format_size(size)} but cpu {shared[0]} says this cache is {format_size(seen.size_bytes)}",
                )
    if without_cache and len(without_cache) == len(online):
        notes.append(f"no cache information in sysfs ({CPU_DIR}/cpuN/cache missing)")
    elif without_cache:
        notes.append(f"no cache information in sysfs for {_cpus_phrase(without_cache)}")
    cache_list = sorted(
        caches.values(),
        key=lambda c: (c.level, _CACHE_TYPE_ORDER.get(c.type, len(_CACHE_TYPE_ORDER)), c.type, c.cpus),
    )

    # NUMA nodes.
    node_prefix = f"{NODE_DIR}/"
    if not any(key.startswith(node_prefix) for key in files):
        notes.append(NO_NUMA_NOTE)
        nodes: tuple[NumaNode, ...] = (NumaNode(0, tuple(online)),)
        distances: tuple[tuple[int, ...], ...] = ((LOCAL_DISTANCE,),)
    else:
        if f"{NODE_DIR}/online" in files:
            node_ids = f.cpulist(f"{NODE_DIR}/online")  # same list syntax as cpus
        else:
            node_ids = sorted({int(m.group(1)) for k in files if (m := _NODE_KEY_RE.match(k))})
        if not node_ids:
            raise f.error(f"{NODE_DIR}/online", "no online NUMA nodes")
        node_of: dict[int, int] = {}
        node_list: list[NumaNode] = []
        rows: list[tuple[int, ...]] = []
        for node_id in node_ids:
            base = f"{NODE_DIR}/node{node_id}"
            cpus = tuple(c for c in f.cpulist(f"{base}/cpulist") if c in online_set)
            for cpu in cpus:
                if cpu in node_of:
                    raise f.error(f"{base}/cpulist", f"cpu {cpu} is already in node {node_of[cpu]}")
                node_of[cpu] = node_id
            row = f.integers(f"{base}/distance")
            if len(row) != len(node_ids):
                raise f.error(
                    f"{base}/distance",
                    f"{len(row)} distances for {_plural(len(node_ids), 'online node')}",
                )
            node_list.append(NumaNode(node_id, cpus))
            rows.append(tuple(row))
        homeless = [c for c in online if c not in node_of]
        if homeless:
            raise TopologyError(f"sysfs tree {source}: online {_cpus_phrase(homeless)} in no {NODE_DIR}/nodeN/cpulist")
        nodes = tuple(node_list)
        distances = tuple(rows)

    return Topology(
        cpus=tuple(online),
        sockets=sockets,
        numa_nodes=nodes,
        distances=distances,
        caches=tuple(cache_list),
        notes=tuple(notes),
        source=source,
    )


def _numbered_dirs(directory: Path, pattern: re.Pattern[str]) -> list[tuple[int, Path]]:
    try:
        entries = list(directory.iterdir())
    except FileNotFoundError:
        return []
    found = [(int(m.group(1)), p) for p in entries if (m := pattern.fullmatch(p.name))]
    return sorted(found)


def read_sysfs_files(sysfs_root: str | Path = "/sys") -> dict[str, str]:
    """Copy the sysfs files :func:`parse_topology` reads into a mapping (path relative to
    ``sysfs_root`` -> text). Files that do not exist are left out, so the parser can say
    which one is missing; a file that exists but cannot be read raises
    :class:`TopologyError`."""
    root = Path(sysfs_root)
    if not root.is_dir():
        raise TopologyError(f"sysfs tree {root}: not a directory")
    files: dict[str, str] = {}

    def grab(rel: str) -> None:
        try:
            files[rel] = (root / rel).read_text()
        except FileNotFoundError:
            pass
        except OSError as e:
            raise TopologyError(f"sysfs tree {root}: cannot read {rel}: {e.strerror}") from None

    grab(f"{CPU_DIR}/online")
    grab(f"{CPU_DIR}/present")
    for cpu, cpu_dir in _numbered_dirs(root / CPU_DIR, _CPU_DIR_RE):
        for name in TOPOLOGY_FILES:
            grab(f"{CPU_DIR}/cpu{cpu}/topology/{name}")
        for index, _ in _numbered_dirs(cpu_dir / "cache", _INDEX_DIR_RE):
            for name in CACHE_FILES:
                grab(f"{CPU_DIR}/cpu{cpu}/cache/index{index}/{name}")
    if (root / NODE_DIR).is_dir():
        grab(f"{NODE_DIR}/online")
        for node, _ in _numbered_dirs(root / NODE_DIR, _NODE_DIR_RE):
            for name in NODE_FILES:
                grab(f"{NODE_DIR}/node{node}/{name}")
    return files


def read_topology(sysfs_root: str | Path = "/sys") -> Topology:
    """Read the topology of the machine whose sysfs is mounted at ``sysfs_root`` (the running
    machine by default; a fixture tree in tests). Raises :class:`TopologyError` with a
    one-line message naming the missing or broken file."""
    return parse_topology(read_sysfs_files(sysfs_root), source=str(sysfs_root))
