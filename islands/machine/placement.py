"""Where threads and instances go: pure functions of a :class:`~islands.machine.topology.Topology`.

Nothing here reads sysfs or starts anything, so every rule is tested on the made-up machines
in ``tests/fixtures/sysfs``. Two questions are answered:

**Threads** (:func:`thread_placement`): the CPUs ``n`` threads of one process are pinned to,
for the placement studies of paper 000 (Fig 5, 6): ``spread``, ``grouped``, ``mixed`` or
``os`` (no pinning).

**Deployments** (:func:`plan_deployment`): how the machine's cores are cut into instances,
from one shared-everything instance on every core (``1ISL``) through socket-sized islands
to one single-threaded instance per core (``NISL``, ``N`` = cores). A :class:`Deployment`
lists each instance's CPUs (one worker thread and one data site per CPU), whether they are
pinned, and which sockets and NUMA nodes each instance spans.

Ordering rules shared by both (all of them use the topology's structure, never CPU numbers,
which some machines number round-robin across sockets):

- sockets in id order; within a socket, cores grouped by the last-level cache they share
  (machines with several LLCs per socket), then by core id;
- physical cores before hyperthread siblings: the first online hardware thread of every core
  comes before any core's second thread.

The deployment spec language (``spec`` of :func:`plan_deployment`):

- an ``int`` ``N`` or the paper's label ``"NISL"`` (``"4ISL"``, case-insensitive) or ``"N"``;
- the words ``"shared-everything"`` (= ``1``), ``"per-socket"`` (one instance per socket),
  ``"per-core"`` (one instance per CPU of the chosen set);
- explicit CPU lists: ``"0-3;4-7"`` (instances separated by ``;``, kernel cpu-list syntax
  inside) or a list of lists ``[[0, 1, 2, 3], [4, 5, 6, 7]]``; placement ``"explicit"``.

:func:`expand_relative` turns a sweep's machine-relative list (``1``, ``per-socket``,
``per-core``, ``all``) into the specs that fit the machine at hand, deduplicated.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from islands.machine.topology import Core, Topology, format_cpulist, parse_cpulist

__all__ = [
    "DEPLOYMENT_PLACEMENTS",
    "RELATIVE_WORDS",
    "THREAD_POLICIES",
    "Deployment",
    "default_cpus",
    "deployment_choices",
    "expand_relative",
    "parse_label",
    "plan_deployment",
    "roles_of",
    "thread_placement",
]

THREAD_POLICIES = ("spread", "grouped", "mixed", "os")
DEPLOYMENT_PLACEMENTS = ("islands", "spread", "os", "explicit")
#: Words a sweep may use instead of instance counts; "all" means every count that fits.
RELATIVE_WORDS = ("1", "shared-everything", "per-socket", "per-core", "all")
# Version of Deployment.to_dict(); from_dict() refuses any other.
DEPLOYMENT_DICT_VERSION = 1

_LABEL_RE = re.compile(r"(\d+)\s*(?:isl)?", re.IGNORECASE)
_EXPLICIT_RE = re.compile(r"[\d\s,;:\-]+")


# Orderings ----------------------------------------------------------------------------


def _cores_in_order(topology: Topology) -> list[list[Core]]:
    """Each socket's cores, grouped by shared last-level cache, then by core id."""

    def llc_key(core: Core) -> tuple[int, int]:
        llc = topology.llc_of(core.cpus[0])
        return (min(llc.cpus) if llc is not None else -1, core.id)

    return [sorted(sock.cores, key=llc_key) for sock in topology.sockets]


def _levels(cores: Sequence[Core], allowed: set[int] | None = None) -> list[list[int]]:
    """``levels[k]`` holds the k-th allowed hardware thread of each core, in core order:
    level 0 is the physical cores, level 1 their first siblings, and so on."""
    per_core = [[c for c in core.cpus if allowed is None or c in allowed] for core in cores]
    depth = max((len(t) for t in per_core), default=0)
    return [[t[k] for t in per_core if len(t) > k] for k in range(depth)]


def _round_robin(lists: Sequence[Sequence[int]]) -> list[int]:
    """First item of each list, then the second of each, ...; exhausted lists are skipped."""
    out: list[int] = []
    for i in range(max((len(x) for x in lists), default=0)):
        out.extend(x[i] for x in lists if len(x) > i)
    return out


def _grouped_order(topology: Topology, allowed: set[int] | None = None) -> list[int]:
    """Physical cores socket by socket, then siblings socket by socket."""
    per_socket = [_levels(cores, allowed) for cores in _cores_in_order(topology)]
    depth = max((len(lv) for lv in per_socket), default=0)
    return [cpu for k in range(depth) for lv in per_socket if len(lv) > k for cpu in lv[k]]


def _spread_order(topology: Topology, sockets: Sequence[int] | None = None) -> list[int]:
    """Physical cores round-robin across the sockets, then siblings the same way."""
    chosen = [
        cores
        for sock, cores in zip(topology.sockets, _cores_in_order(topology))
        if sockets is None or sock.id in sockets
    ]
    per_socket = [_levels(cores) for cores in chosen]
    depth = max((len(lv) for lv in per_socket), default=0)
    return [cpu for k in range(depth) for cpu in _round_robin([lv[k] if len(lv) > k else [] for lv in per_socket])]


# Threads ------------------------------------------------------------------------------


def thread_placement(topology: Topology, n_threads: int, policy: str) -> list[int] | None:
    """The CPUs ``n_threads`` threads are pinned to (thread ``i`` on ``result[i]``), or
    ``None`` for ``policy="os"`` (leave placement to the scheduler).

    - ``"spread"``: round-robin across sockets, one core each (socket 0's first core, socket
      1's first core, ..., socket 0's second core, ...), first hardware thread of each core;
    - ``"grouped"``: fill socket 0's physical cores, then socket 1's, ...;
    - ``"mixed"``: the first ``ceil(n/2)`` threads grouped on socket 0 (its physical cores,
      then its siblings), the other ``floor(n/2)`` spread round-robin over the *other*
      sockets (physical cores first); on a one-socket machine it is ``"grouped"``;
    - ``"os"``: ``None``.

    Every policy uses all physical cores before any hyperthread sibling (the siblings then
    follow the same pattern). More threads than fit (``os``: than online CPUs) raise
    ``ValueError`` saying how many fit.
    """
    if policy not in THREAD_POLICIES:
        raise ValueError(f"unknown thread placement {policy!r}: choose one of {', '.join(THREAD_POLICIES)}")
    if isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1:
        raise ValueError(f"n_threads: {n_threads!r} is not a whole number >= 1")

    def too_many(fit: int, why: str) -> ValueError:
        return ValueError(
            f"{n_threads} threads do not fit {policy} placement on this machine: at most {fit} fit ({why})"
        )

    if policy == "os":
        if n_threads > topology.n_cpus:
            raise too_many(topology.n_cpus, "one per online cpu")
        return None
    if policy == "mixed" and topology.n_sockets > 1:
        first = topology.sockets[0].id
        group = _grouped_order(topology, set(topology.cpus_of_socket(first)))
        others = _spread_order(topology, [s.id for s in topology.sockets[1:]])
        fit = min(2 * len(group), 2 * len(others) + 1)
        if n_threads > fit:
            raise too_many(
                fit,
                f"half of them on socket {first}'s {len(group)} cpus, half on the other sockets' {len(others)}",
            )
        n_group = (n_threads + 1) // 2
        return group[:n_group] + others[: n_threads - n_group]
    order = _spread_order(topology) if policy == "spread" else _grouped_order(topology)
    if n_threads > len(order):
        raise too_many(len(order), "one per online cpu")
    return order[:n_threads]


# Deployments --------------------------------------------------------------------------


def _int_tuple(values: Iterable[Any]) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


@dataclass(frozen=True)
class Deployment:
    """``N`` engine instances and where they run.

    ``instances[i]`` is the CPU list of instance ``i``: one worker thread per CPU, one data
    site per CPU. Sites are numbered across the deployment in instance order, so instance
    ``i`` holds sites :meth:`sites_of` ``(i)`` and every deployment over the same number of
    CPUs holds the same data. ``placement`` is how the CPUs were chosen (``islands``,
    ``spread``, ``os`` or ``explicit``); ``pinned`` says whether workers are pinned to them
    (``os``: not; the CPU lists then only fix the partition into sites). ``sockets[i]`` and
    ``numa_nodes[i]`` are the sockets and NUMA nodes instance ``i`` spans (filled in by
    :func:`plan_deployment`; empty when unknown). ``notes`` say what the planner decided
    that the spec did not (unequal sockets, a placement that coincides with another).
    """

    label: str
    instances: tuple[tuple[int, ...], ...]
    placement: str = "islands"
    pinned: bool = True
    sockets: tuple[tuple[int, ...], ...] = ()
    numa_nodes: tuple[tuple[int, ...], ...] = ()
    notes: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        def set_(name: str, value: Any) -> None:
            object.__setattr__(self, name, value)  # frozen: normalise once

        set_("instances", tuple(_int_tuple(cpus) for cpus in self.instances))
        set_("sockets", tuple(_int_tuple(s) for s in self.sockets))
        set_("numa_nodes", tuple(_int_tuple(n) for n in self.numa_nodes))
        set_("notes", tuple(str(n) for n in self.notes))
        if self.placement not in DEPLOYMENT_PLACEMENTS:
            raise ValueError(
                f"deployment placement {self.placement!r}: choose one of {', '.join(DEPLOYMENT_PLACEMENTS)}"
            )
        if not self.instances or any(not cpus for cpus in self.instances):
            raise ValueError(f"deployment {self.label}: every instance needs at least one cpu")
        seen: set[int] = set()
        for cpus in self.instances:
            for cpu in cpus:
                if cpu < 0:
                    raise ValueError(f"deployment {self.label}: cpu {cpu} is negative")
                if cpu in seen:
                    raise ValueError(f"deployment {self.label}: cpu {cpu} is used twice")
                seen.add(cpu)
        for name in ("sockets", "numa_nodes"):
            spans = getattr(self, name)
            if spans and len(spans) != len(self.instances):
                raise ValueError(
                    f"deployment {self.label}: {name} lists {len(spans)} instances, not {len(self.instances)}"
                )

    @property
    def n_instances(self) -> int:
        """Number of instances."""
        return len(self.instances)

    @property
    def n_cpus(self) -> int:
        """Number of CPUs (= worker threads = sites) over all instances."""
        return sum(len(cpus) for cpus in self.instances)

    @property
    def cpus(self) -> tuple[int, ...]:
        """Every CPU, instance by instance (site ``k`` is worked by ``cpus[k]``)."""
        return tuple(cpu for cpus in self.instances for cpu in cpus)

    @property
    def name(self) -> str:
        """The label, with the placement when it is not ``islands``: ``"4ISL spread"``."""
        return self.label if self.placement == "islands" else f"{self.label} {self.placement}"

    def sites_of(self, instance: int) -> range:
        """The global site ids instance ``instance`` holds (one per CPU, in order)."""
        start = sum(len(cpus) for cpus in self.instances[:instance])
        return range(start, start + len(self.instances[instance]))

    def max_sockets_spanned(self) -> int:
        """The most sockets any one instance spans (0 when unknown)."""
        return max((len(s) for s in self.sockets), default=0)

    def describe(self) -> str:
        """One line for people: ``4ISL islands, pinned: [0-5] [6-11] ... (sockets 1,1,1,1)``."""
        cpus = " ".join(f"[{format_cpulist(c)}]" for c in self.instances)
        pin = "pinned" if self.pinned else "not pinned"
        spans = ""
        if self.sockets:
            spans = " (sockets per instance " + ",".join(str(len(s)) for s in self.sockets) + ")"
        return f"{self.label} {self.placement}, {pin}: {cpus}{spans}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict that :meth:`from_dict` turns back into an equal deployment."""
        return {
            "version": DEPLOYMENT_DICT_VERSION,
            "label": self.label,
            "name": self.name,
            "placement": self.placement,
            "pinned": self.pinned,
            "n_instances": self.n_instances,
            "n_cpus": self.n_cpus,
            "instances": [list(c) for c in self.instances],
            "sockets": [list(s) for s in self.sockets],
            "numa_nodes": [list(n) for n in self.numa_nodes],
            "notes": list(self.notes),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Deployment:
        """Inverse of :meth:`to_dict`; raises ``ValueError`` naming a missing or bad field."""
        if not isinstance(d, Mapping):
            raise ValueError(f"deployment dict: expected a mapping, got {type(d).__name__}")
        if d.get("version") != DEPLOYMENT_DICT_VERSION:
            raise ValueError(f"deployment dict: version {d.get('version')!r} is not {DEPLOYMENT_DICT_VERSION}")
        try:
            return cls(
                label=str(d["label"]),
                instances=tuple(tuple(c) for c in d["instances"]),
                placement=str(d["placement"]),
                pinned=bool(d["pinned"]),
                sockets=tuple(tuple(s) for s in d.get("sockets", ())),
                numa_nodes=tuple(tuple(n) for n in d.get("numa_nodes", ())),
                notes=tuple(d.get("notes", ())),
            )
        except KeyError as e:
            raise ValueError(f"deployment dict: missing field {e.args[0]!r}") from None
        except TypeError as e:
            raise ValueError(f"deployment dict: malformed field: {e}") from None


def default_cpus(topology: Topology) -> tuple[int, ...]:
    """The CPUs a deployment uses unless told otherwise: the first online hardware thread
    of every physical core, on every socket (sorted)."""
    return tuple(sorted(core.cpus[0] for core in topology.cores))


def leading_cpus(topology: Topology, n: int | str, cpus: Iterable[int] | str | None = None) -> tuple[int, ...] | None:
    """The first ``n`` of the chosen CPUs (default :func:`default_cpus`: so ``n`` cores, socket
    by socket), ``cpus`` itself for ``"all"``, or None where fewer than ``n`` are chosen."""
    if n == "all":
        return None if cpus is None else _chosen_cpus(topology, cpus)
    chosen = _chosen_cpus(topology, cpus)
    return chosen[: int(n)] if int(n) <= len(chosen) else None


def _chosen_cpus(topology: Topology, cpus: Iterable[int] | str | None) -> tuple[int, ...]:
    if cpus is None:
        return default_cpus(topology)
    if isinstance(cpus, str):
        chosen = parse_cpulist(cpus)
    else:
        chosen = [int(c) for c in cpus]
        if len(set(chosen)) != len(chosen):
            raise ValueError(f"cpus: {chosen} lists a cpu twice")
    if not chosen:
        raise ValueError("cpus: the list is empty")
    online = set(topology.cpus)
    for cpu in chosen:
        if cpu not in online:
            raise ValueError(
                f"cpus: cpu {cpu} is not an online cpu of this machine (online: {format_cpulist(topology.cpus)})"
            )
    return tuple(sorted(chosen))


def _islands_order(topology: Topology, chosen: set[int]) -> list[list[int]]:
    """Chosen cpus socket by socket; within a socket core by core (a core's threads
    together, so that instances never share a core), cores grouped by shared LLC."""
    out = []
    for cores in _cores_in_order(topology):
        cpus = [cpu for core in cores for cpu in core.cpus if cpu in chosen]
        if cpus:
            out.append(cpus)
    return out


def _spread_deal(topology: Topology, chosen: set[int]) -> list[int]:
    """Chosen cpus round-robin across sockets, core by core (a core's threads together)."""
    per_socket = _islands_order(topology, chosen)
    cores_per_socket = []
    for cpus in per_socket:
        seen: list[list[int]] = []
        for cpu in cpus:
            core = topology.core_of(cpu)
            if seen and topology.core_of(seen[-1][0]) == core:
                seen[-1].append(cpu)
            else:
                seen.append([cpu])
        cores_per_socket.append(seen)
    out: list[int] = []
    for i in range(max(len(c) for c in cores_per_socket)):
        for cores in cores_per_socket:
            if len(cores) > i:
                out.extend(cores[i])
    return out


def _slices(order: Sequence[int], sizes: Sequence[int]) -> list[tuple[int, ...]]:
    out, start = [], 0
    for size in sizes:
        out.append(tuple(order[start : start + size]))
        start += size
    return out


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


def parse_label(spec: int | str) -> int | None:
    """The instance count of ``4``, ``"4"`` or ``"4ISL"`` (any case); ``None`` for other
    strings. Raises ``ValueError`` for counts below 1."""
    if isinstance(spec, bool):
        return None
    if isinstance(spec, int):
        n = spec
    else:
        m = _LABEL_RE.fullmatch(str(spec).strip())
        if m is None:
            return None
        n = int(m.group(1))
    if n < 1:
        raise ValueError(f"deployment {spec!r}: needs at least 1 instance")
    return n


def deployment_choices(topology: Topology, cpus: Iterable[int] | str | None = None) -> list[str]:
    """The labels of every equal-size deployment of the chosen CPUs (default: one per core):
    ``NISL`` for every divisor ``N`` of their number, smallest first."""
    return [f"{n}ISL" for n in _divisors(len(_chosen_cpus(topology, cpus)))]


def _choices_text(topology: Topology, cpus: tuple[int, ...]) -> str:
    return ", ".join(deployment_choices(topology, cpus))


def _explicit_instances(spec: Any) -> tuple[tuple[int, ...], ...] | None:
    """Instances of an explicit spec (``"0-3;4-7"`` or a list of lists), else ``None``."""
    if isinstance(spec, str):
        text = spec.strip()
        if not _EXPLICIT_RE.fullmatch(text) or text.isdigit():
            return None
        parts = list(text.split(";"))
        if any(not p.strip() for p in parts):
            raise ValueError(f"deployment {spec!r}: an instance between ';' has no cpus")
        return tuple(tuple(parse_cpulist(p)) for p in parts)
    if isinstance(spec, (list, tuple)) and all(isinstance(i, (list, tuple)) for i in spec):
        if not spec:
            raise ValueError("deployment []: no instances")
        return tuple(tuple(int(c) for c in inst) for inst in spec)
    return None


def _spans(topology: Topology, instances: Sequence[Sequence[int]]) -> tuple[tuple, tuple]:
    sockets = tuple(tuple(sorted({topology.socket_of(c) for c in cpus})) for cpus in instances)
    nodes = tuple(tuple(sorted({topology.numa_node_of(c) for c in cpus})) for cpus in instances)
    return sockets, nodes


def plan_deployment(
    topology: Topology,
    spec: int | str | Sequence[Sequence[int]],
    placement: str = "islands",
    cpus: Iterable[int] | str | None = None,
) -> Deployment:
    """Cut the chosen CPUs (default :func:`default_cpus`: one hardware thread per physical
    core, all sockets) into the instances ``spec`` asks for (see the module docstring).

    ``placement``:

    - ``"islands"``: instances take contiguous runs of a socket-by-socket, core-by-core
      order, so each instance spans as few sockets as its size allows and its cores share
      the socket's last-level cache; a core's hardware threads stay in one instance;
    - ``"spread"``: the same sizes, but each instance takes its cores round-robin across
      the sockets, spanning as many sockets as it can (000 Fig 9 "4 Spread");
    - ``"os"``: the ``islands`` partition into sites, not pinned;
    - ``"explicit"``: ``spec`` is the instances' CPU lists (``"0-3;4-7"`` or a list of
      lists; an explicit spec implies this placement). Sizes may differ.

    Counted deployments use equal instances, so ``N`` must divide the number of chosen
    CPUs; ``"per-socket"`` is one instance per socket even where sockets hold different
    numbers of chosen CPUs (a note says so). Anything that does not fit raises
    ``ValueError`` listing the valid choices.
    """
    if placement not in DEPLOYMENT_PLACEMENTS:
        raise ValueError(f"unknown placement {placement!r}: choose one of {', '.join(DEPLOYMENT_PLACEMENTS)}")
    explicit = _explicit_instances(spec)
    if explicit is not None or placement == "explicit":
        if explicit is None:
            raise ValueError(f"deployment {spec!r}: explicit placement needs cpu lists such as '0-3;4-7'")
        if cpus is not None:
            raise ValueError("cpus: not allowed with an explicit deployment (it lists its cpus)")
        for inst in explicit:
            _chosen_cpus(topology, inst)  # online, distinct within the instance
        sockets, nodes = _spans(topology, explicit)
        return Deployment(
            label=f"{len(explicit)}ISL",
            instances=explicit,
            placement="explicit",
            pinned=True,
            sockets=sockets,
            numa_nodes=nodes,
        )

    chosen = _chosen_cpus(topology, cpus)
    n_cpus = len(chosen)
    per_socket_cpus = _islands_order(topology, set(chosen))
    notes: list[str] = []
    word = spec.strip().lower() if isinstance(spec, str) else None
    if word == "shared-everything":
        sizes = [n_cpus]
    elif word == "per-core":
        sizes = [1] * n_cpus
    elif word == "per-socket":
        sizes = [len(c) for c in per_socket_cpus]
        if len(set(sizes)) > 1:
            notes.append(
                "per-socket: sockets hold different numbers of the chosen cpus "
                f"({', '.join(map(str, sizes))}), so the instances differ in size"
            )
    else:
        n = parse_label(spec) if isinstance(spec, (int, str)) else None
        if n is None:
            raise ValueError(
                f"unknown deployment {spec!r}: choose one of {_choices_text(topology, chosen)}, "
                "shared-everything, per-socket, per-core, or cpu lists such as '0-3;4-7'"
            )
        if n > n_cpus or n_cpus % n:
            raise ValueError(
                f"deployment {n}ISL does not fit {n_cpus} "
                f"{'cores' if cpus is None else 'cpus'}: choose one of "
                f"{_choices_text(topology, chosen)}"
            )
        sizes = [n_cpus // n] * n

    if placement == "spread":
        order = _spread_deal(topology, set(chosen))
        if topology.n_sockets == 1:
            notes.append("spread: one socket, so spread is the islands placement")
    else:
        order = [cpu for cpus_ in per_socket_cpus for cpu in cpus_]
    instances = _slices(order, sizes)
    sockets, nodes = _spans(topology, instances)
    return Deployment(
        label=f"{len(instances)}ISL",
        instances=tuple(tuple(sorted(i)) for i in instances),
        placement=placement,
        pinned=placement != "os",
        sockets=sockets,
        numa_nodes=nodes,
        notes=tuple(notes),
    )


def roles_of(topology: Topology, deployment: Deployment) -> tuple[str, ...]:
    """The machine-relative names that fit ``deployment`` on ``topology``:
    ``shared-everything`` (one instance), ``per-socket`` (each instance exactly the chosen
    CPUs of one socket, one instance per socket), ``per-core`` (one CPU per instance). A
    one-socket machine's 1ISL has two; an in-between deployment none."""
    roles = []
    if deployment.n_instances == 1:
        roles.append("shared-everything")
    sockets_used = {s for span in deployment.sockets for s in span}
    if (
        deployment.sockets
        and all(len(span) == 1 for span in deployment.sockets)
        and len({span[0] for span in deployment.sockets}) == deployment.n_instances
        and len(sockets_used) == deployment.n_instances
    ):
        roles.append("per-socket")
    if all(len(c) == 1 for c in deployment.instances):
        roles.append("per-core")
    return tuple(roles)


def expand_relative(
    topology: Topology,
    spec: int | str | Sequence[Any],
    placement: str = "islands",
    cpus: Iterable[int] | str | None = None,
) -> tuple[list[str], list[str]]:
    """Turn a sweep's deployment list, written relative to any machine, into the specs that
    fit this one: returns ``(specs, notes)``.

    ``spec`` is one item or a list of them: ``1`` / ``"shared-everything"``,
    ``"per-socket"``, ``"per-core"``, ``"all"`` (every ``NISL`` whose ``N`` divides the
    number of chosen CPUs: "everything between"), labels ``"NISL"``, counts, or explicit
    CPU lists. Every result is accepted by :func:`plan_deployment`; counted ones come back as
    ``"NISL"`` (``per-socket`` stays ``"per-socket"`` only where sockets differ in size).
    Items that give the same instances (pinned alike) are listed once, first mention first, and a note says
    which coincided (on a one-socket machine ``per-socket`` is ``1ISL``). An item that does
    not fit raises ``ValueError`` listing the valid choices.
    """
    items = list(spec) if isinstance(spec, (list, tuple)) and not _is_explicit_list(spec) else [spec]
    out: list[str] = []
    origin: dict[tuple, tuple[str, str]] = {}  # (instances, pinned) -> (spec, as written)
    notes: list[str] = []
    for item in items:
        written = _written(item)
        candidates: list[Any]
        if isinstance(item, str) and item.strip().lower() == "all":
            candidates = deployment_choices(topology, cpus)
        else:
            candidates = [item]
        for cand in candidates:
            dep = plan_deployment(topology, cand, placement, cpus)
            notes.extend(n for n in dep.notes if n not in notes)
            if dep.placement == "explicit":
                name = ";".join(format_cpulist(c) for c in dep.instances)
            elif (
                isinstance(cand, str)
                and cand.strip().lower() == "per-socket"
                and len({len(c) for c in dep.instances}) > 1
            ):
                name = "per-socket"
            else:
                name = dep.label
            key = (dep.instances, dep.pinned)
            if key in origin:
                first_name, first_written = origin[key]
                if written != first_written and not (written == "all" or first_written == "all"):
                    notes.append(f"{written} is {first_name} on this machine ({_machine(topology)}): listed once")
                continue
            origin[key] = (name, written)
            out.append(name)
    return out, notes


def _is_explicit_list(spec: Sequence[Any]) -> bool:
    return bool(spec) and all(isinstance(i, (list, tuple)) and all(isinstance(c, int) for c in i) for i in spec)


def _written(item: Any) -> str:
    if isinstance(item, str):
        return item.strip()
    if isinstance(item, (list, tuple)):
        return ";".join(format_cpulist(c) for c in item)
    return str(item)


def _machine(topology: Topology) -> str:
    s = "socket" if topology.n_sockets == 1 else "sockets"
    c = "core" if topology.n_cores == 1 else "cores"
    return f"{topology.n_sockets} {s}, {topology.n_cores} {c}"
