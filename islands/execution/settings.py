"""Run configuration: one dataclass per concern, mirroring the C++ settings field for field.

Each setting is defined once, in C++ (an X-macro per config struct: name, type, default,
range, help); ``islands._core.settings()`` returns that schema. These dataclasses repeat the
names and defaults so that mypy sees them and this module imports without the compiled
extension; ``tests/test_settings.py`` fails when a name or default here (or in the CLI, the
README or ``_core.pyi``) differs from the engine's. The engine (``RunConfig::validate``) is
the one place that decides what is valid; a bad value raises ``islands._core.ConfigError``
(a ``ValueError``) whose ``field`` names it as "section.name".

Nothing here measures: counters are resolved where a run starts (:mod:`islands.execution.in_process`) and
handed to :meth:`RunConfig.to_core` as ``events``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from islands import _core

#: The workload a config, an experiment file or a command line runs unless it names one.
DEFAULT_WORKLOAD = "micro"


@dataclass(frozen=True)
class MicroConfig:
    """The microbenchmark of paper 000 (Sec 3.2, 7.3)."""

    rows_per_site: int = 10_000  #: rows in each site (one site per worker core)
    columns: int = 10  #: int32 payload columns per row
    rows_per_txn: int = 10  #: distinct rows each transaction reads or updates
    update: bool = False  #: False: read the rows; True: update every column
    multisite: float = 0.0  #: fraction of multisite transactions, 0..1
    zipf_s: float = 0.0  #: Zipf exponent of the row choice; 0 is uniform
    read_share: float = 0.0  #: update runs: fraction of transactions that only read (a mix)


@dataclass(frozen=True)
class TpcbConfig:
    """TPC-B (000 Sec 3.3, 8.1-8.2): AccountUpdate over Branch, Teller, Account, History,
    partitioned by branch; a remote transaction takes a teller (or, as the specification
    has it, an account) of another branch."""

    branches_per_site: int = 1  #: branches in each site (one site per worker core)
    tellers_per_branch: int = 10  #: tellers per branch (specification: 10)
    accounts_per_branch: int = 100_000  #: accounts per branch (specification: 100000)
    remote: float = 0.15  #: fraction of remote transactions (see remote_pick), 0..1
    #: what a remote transaction takes from another branch: "teller" (paper 000) or "account"
    #: (the specification)
    remote_pick: str = "teller"


@dataclass(frozen=True)
class TatpConfig:
    """TATP (002): four tables, seven transactions, partitioned by subscriber id."""

    subscribers_per_site: int = 100_000  #: subscribers in each site (one site per worker core)
    #: "standard", one transaction's name, or "name:weight,..." summing to 100
    mix: str = "standard"
    #: how a transaction picks its subscriber: "nonuniform" (the specification's) or "uniform"
    id_draw: str = "nonuniform"
    #: skew: share of the instance's subscribers that are hot, 0 (off) .. 1 (002 Fig 11: 0.2)
    hot_fraction: float = 0.0
    #: skew: share of the requests that go to the hot subscribers
    hot_share: float = 0.5


@dataclass(frozen=True)
class TpccConfig:
    """TPC-C (000 Sec 3.3, 8.3-8.4): nine tables at the specification's cardinalities per
    warehouse, its five transactions, partitioned by warehouse."""

    warehouses_per_site: int = 1  #: warehouses in each site (one site per worker core)
    items: int = 100_000  #: Item rows, and Stock rows per warehouse (specification: 100000)
    customers_per_district: int = 3000  #: customers and initial orders per district (specification: 3000)
    #: "standard", 004's "50-50", "80-20", "100-0", one transaction's name, or "name:W,..."
    mix: str = "standard"
    new_order_remote_item: float = 0.01  #: share of NewOrder items supplied by another warehouse
    new_order_rollback: float = 0.01  #: share of NewOrders that name an unused item and roll back
    payment_remote: float = 0.15  #: share of Payments for a customer of another warehouse
    payment_by_name: float = 0.60  #: share of Payments that choose the customer by last name
    #: "spec": every column of clause 1.3 at its width; "narrow": only the numeric columns
    layout: str = "spec"
    #: share of the memory available at load time the tables may reach; the run stops there
    memory_budget: float = 0.8


@dataclass(frozen=True)
class EngineConfig:
    """How one engine instance is built."""

    index: str = "hash"  #: "hash" or "btree"
    #: "none" (single-threaded, no locks), "2pl" (row-level), "table_2pl" (table-level), "occ" (Silo) or "mvcc"
    #: (snapshot isolation: needs isolation "snapshot")
    cc: str = "2pl"
    lock_policy: str = "wait_die"  #: 2PL on conflict: "no_wait" or "wait_die"
    #: "serializable", "read_committed" (read locks go when a statement ends) or "snapshot" (cc "mvcc")
    isolation: str = "serializable"
    latching: bool = True  #: latch index operations during the run
    prefetch: bool = True  #: prefetch a transaction's index slots and rows ahead
    record_history: bool = False  #: test mode: record committed reads and writes (islands.results.history_check)
    test_skip_read_locks: bool = False  #: test only: reads without locks (a broken mode the checker must catch)
    #: "shared_everything" (any worker any row) or "plp" (each worker owns a partition; actions routed to owners)
    execution: str = "shared_everything"
    test_skip_validation: bool = False  #: test only: occ commits unvalidated (a broken mode the checker must catch)
    #: test only: mvcc commits without first-committer-wins (a broken mode the checker must catch)
    test_skip_write_conflict: bool = False
    #: active-transaction list and system-state lock: "none", "centralized" (one for all
    #: workers) or "per_socket" (one per socket; each worker uses its socket's)
    system_structures: str = "none"
    test_count_cross_socket: bool = False  #: test mode: count accesses to another socket's system structures
    cross_socket_delay_ns: float = 0.0  #: injected delay per access to another socket's system structures
    #: test mode (plp): every this many seconds while transactions run, move 1-3 random routing units
    #: to other workers (0: never)
    plp_reshuffle_s: float = 0.0
    #: test only (plp): hand moved units over undrained (a broken mode the ownership check must catch)
    test_skip_drain: bool = False
    #: plp: each worker records ATraPos's trace (actions and cycles per sub-partition, synchronizations per pair)
    plp_monitor: bool = False
    #: plp: primary indexes as "per_unit" (one latch-free root per routing unit, touched only by
    #: its owner) or "shared" (one latched root for the instance)
    plp_index: str = "per_unit"
    #: plp: a routing unit is "shared_key" (every table's rows of one key range, owned together) or
    #: "per_table" (each table's rows of one key range on their own; TATP only)
    plp_units: str = "shared_key"
    #: plp: where units start: "naive" (every table's units of site i on worker i),
    #: "workload_aware" (one partition of one table per core, sockets ignored) or "atrapos"
    #: (dependent partitions on one socket); the last two need plp_units "per_table"
    plp_placement: str = "naive"
    #: plp: each worker hands a transaction whose home unit (its first operation's) another worker
    #: owns to that owner, whole, keeping at most this many handed and unfinished (0: coordinates
    #: every transaction it draws itself)
    plp_handoff: int = 0
    #: plp, pinned: this many workers on each CPU of driver.cpus, each with its own site and client
    #: (2 with plp_units "per_table" and placement "naive": 002's oversaturated naive, each table's
    #: partition of a CPU on a worker of its own)
    plp_workers_per_cpu: int = 1


@dataclass(frozen=True)
class DriverConfig:
    """The closed-loop driver: one pinned worker per CPU."""

    cpus: tuple[int, ...] = (0,)  #: one worker pinned to each; one site per worker
    pin: bool = True  #: False leaves placement to the OS
    warmup_s: float = 1.0  #: seconds before the measured window
    duration_s: float = 5.0  #: seconds measured
    seed: int = 1  #: base random seed
    timeline_interval_s: float = 0.1  #: the throughput timeline counts commits per interval of this length
    #: the run stops early, keeping what it measured, when the machine's available memory
    #: falls below this many MiB (0: never)
    min_free_memory_mib: int = 512


@dataclass(frozen=True)
class ProfileConfig:
    """What a run measures about itself (see :mod:`islands.measure.pmu` and the engine's perf/)."""

    counters: tuple[str, ...] = ()  #: event sets: software, basic, topdown, categories, uncore
    breakdown_every: int = 0  #: time every Nth transaction by component; 0 = off, 1 = all
    simulate: int = 0  #: also run N transactions of a single-threaded copy under cachegrind; 0 = off
    cache_model: str = ""  #: caches the simulation models (islands.measure.cache_models); "" = the default
    modules: bool = False  #: sample the run with perf record and fold it into code modules

    def is_default(self) -> bool:
        """True when nothing is measured (such configs hash as they did before profiles)."""
        return self == ProfileConfig()


@dataclass(frozen=True)
class LogConfig:
    """The write-ahead log of every instance of a deployment run (``islands.execution.launcher`` only).

    In ``group_commit`` mode a commit is acknowledged (counted, phase 2 sent, written to the
    acknowledgement record) only once its log record is synced; the worker goes on with other
    transactions meanwhile (flush pipelining). With ``early_lock_release`` (the default) its
    locks go as soon as its record is appended (Aether's ELR: whatever reads the rows logs
    later, so it cannot become durable first; a read-only transaction waits for the log's
    appended LSN before its acknowledgement); without it they are held until the record is
    synced. In ``async`` mode the flusher syncs every ``flush_interval_us`` and commits do not
    wait: a crash can lose the last interval.
    """

    mode: str = "off"  #: "off", "async" or "group_commit"
    directory: str = ""  #: where instance-<i>.log files live (disk or tmpfs); needed unless off
    flush_interval_us: float = 1000.0  #: async: time between flushes
    group_delay_us: float = 0.0  #: group_commit: how long a flush may wait for its group to grow
    buffer_bytes: int = 1 << 20  #: each of the two log buffers
    max_pending: int = 64  #: group_commit: commits a worker may have waiting for their flush
    early_lock_release: bool = True  #: group_commit: release locks once the commit record is appended
    checkpoint: bool = True  #: after a clean run: snapshot every row and start the log afresh (bounds recovery)
    record_acks: bool = False  #: each worker appends acknowledged transaction ids to acks-<site>.bin

    def is_default(self) -> bool:
        """True when nothing is logged (such configs hash as they did before the log)."""
        return self == LogConfig()


@dataclass(frozen=True)
class RunConfig:
    """Everything one run of one instance needs."""

    workload: str = DEFAULT_WORKLOAD  #: which workload runs (see ``WORKLOADS``)
    # One field per workload, named as its ``WORKLOAD_SETTINGS`` section (tests/test_registry.py).
    micro: MicroConfig = field(default_factory=MicroConfig)
    tpcb: TpcbConfig = field(default_factory=TpcbConfig)
    tatp: TatpConfig = field(default_factory=TatpConfig)
    tpcc: TpccConfig = field(default_factory=TpccConfig)
    engine: EngineConfig = field(default_factory=EngineConfig)
    driver: DriverConfig = field(default_factory=DriverConfig)
    profile: ProfileConfig = field(default_factory=ProfileConfig)
    log: LogConfig = field(default_factory=LogConfig)

    def to_dict(self) -> dict[str, Any]:
        """Plain nested dict (JSON-ready). A default profile (nothing measured), a default log
        and a micro read_share of 0 are left out, so that configs without them keep their hash."""
        d = dataclasses.asdict(self)
        d["driver"]["cpus"] = list(self.driver.cpus)
        if self.profile.is_default():
            del d["profile"]
        else:
            d["profile"]["counters"] = list(self.profile.counters)
        if self.log.is_default():
            del d["log"]
        if self.micro.read_share == 0:  # no mix (the setting came later): the hash it had
            del d["micro"]["read_share"]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RunConfig:
        """Inverse of :meth:`to_dict`; unknown keys are a ``ValueError`` naming them."""
        parts: dict[str, Any] = {}
        for name, klass in ALL_SECTIONS.items():
            values = dict(d.get(name, {}))
            known = {f.name for f in dataclasses.fields(klass)}
            unknown = sorted(set(values) - known)
            if unknown:
                raise ValueError(f"{name}.{unknown[0]}: unknown setting (known: {', '.join(sorted(known))})")
            for key in ("cpus", "counters"):
                if key in values:
                    values[key] = tuple(values[key])
            parts[name] = klass(**values)
        unknown = sorted(set(d) - {"workload", *ALL_SECTIONS})
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown setting")
        return cls(workload=d.get("workload", DEFAULT_WORKLOAD), **parts)

    def config_hash(self) -> str:
        """Stable 16-hex-digit hash of the canonical JSON form."""
        canonical = json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    def to_core(self, total_sites: int | None = None, *, events: Sequence[Any] = ()) -> _core.RunConfig:
        """The C++ struct, checked by the engine's own validation (for an instance of a
        deployment of ``total_sites`` sites when given, else for a run on its own CPUs).

        ``events`` are the counters the run opens (``_core.PerfEventSpec``, resolved on this
        machine by :func:`islands.execution.in_process.profile_events`); none when only checking. Raises
        ``_core.ConfigError`` naming the field ("micro.rows_per_txn")."""
        from islands import _core

        core = _core.RunConfig()
        core.workload = self.workload
        for part in ALL_SECTIONS:
            target = getattr(core, part)
            for f in dataclasses.fields(getattr(self, part)):
                if not hasattr(target, f.name):  # Python-side profile choices (counters, ...)
                    continue
                value = getattr(getattr(self, part), f.name)
                if isinstance(value, bool) and "bool" not in str(f.type):
                    raise _core.ConfigError(f"{part}.{f.name}", f"{value!r} is not {_expected(f.type)}")
                try:
                    setattr(target, f.name, list(value) if isinstance(value, tuple) else value)
                except TypeError:
                    raise _core.ConfigError(
                        f"{part}.{f.name}", f"{value!r} is not a valid value (expected {_expected(f.type)})"
                    ) from None
            setattr(core, part, target)
        if events:
            profile = core.profile
            profile.events = list(events)
            core.profile = profile
        if total_sites is None:
            core.validate()
        else:
            core.validate_sites(total_sites)
        return core


#: The one Python registration of the workloads: each workload's settings section (named as
#: the workload) and the dataclass mirroring it, in the engine's order. Everything else in
#: Python that goes over the workloads (``SECTIONS``, ``WORKLOADS``, :meth:`RunConfig.from_dict`
#: and :meth:`RunConfig.to_core`, the experiment files' tables and [grid] keys, the sweep's run
#: configs) derives from it. A new workload adds here: its dataclass, its ``RunConfig`` field
#: and its entry below; tests/test_registry.py holds this to the engine's registry
#: (``_core.workloads()``) and to RunConfig.
WORKLOAD_SETTINGS: dict[str, type] = {
    "micro": MicroConfig,
    "tpcb": TpcbConfig,
    "tatp": TatpConfig,
    "tpcc": TpccConfig,
}

#: The sections of a RunConfig, each a dataclass mirroring one C++ config struct (besides
#: ``profile`` and ``log``); tests/test_settings.py holds them to ``_core.settings()``.
SECTIONS: dict[str, type] = {**WORKLOAD_SETTINGS, "engine": EngineConfig, "driver": DriverConfig}

#: Every section of a RunConfig, in the engine's order.
ALL_SECTIONS: dict[str, type] = {**SECTIONS, "profile": ProfileConfig, "log": LogConfig}

#: Workloads by name, each with the section holding its settings (the engine's registry,
#: ``_core.workloads()``, is the source; tests/test_registry.py holds this to it).
WORKLOADS: dict[str, str] = {name: name for name in WORKLOAD_SETTINGS}


def registry() -> list[dict[str, Any]]:
    """The engine's workload registry: ``[{name, section, logs, transactions}]``."""
    from islands import _core

    return list(_core.workloads())


def transaction_names(workload: str) -> tuple[str, ...]:
    """The transaction types of a workload, in the engine's numbering (from its registry)."""
    for entry in registry():
        if entry["name"] == workload:
            return tuple(entry["transactions"])
    return (workload,)


def resolve_field(name: str, workload: str = DEFAULT_WORKLOAD) -> tuple[str, str]:
    """``(section, field)`` of the setting a ``ConfigError.field`` names: "section.field" as
    the engine spells it, or a bare field name (looked up in the workload's own section, then
    the shared ones); ``("", name)`` for what is no section's field ("workload")."""
    section, dot, rest = name.partition(".")
    if dot and section in ALL_SECTIONS:
        return section, rest
    own = WORKLOADS.get(workload, workload)
    for candidate in (own, "engine", "driver", "profile", "log", *SECTIONS):
        klass = ALL_SECTIONS.get(candidate)
        if klass is not None and name in {f.name for f in dataclasses.fields(klass)}:
            return candidate, name
    return "", name


#: TPC-C's transactions, as a mix names them (the engine's numbering; checked against the
#: registry by tests/test_settings.py).
TPCC_TRANSACTIONS = ("new_order", "payment", "order_status", "delivery", "stock_level")

#: TATP's transactions, as a mix names them (the order of the standard mix).
TATP_TRANSACTIONS = (
    "get_subscriber_data",
    "get_new_destination",
    "get_access_data",
    "update_subscriber_data",
    "update_location",
    "insert_call_forwarding",
    "delete_call_forwarding",
)


def _expected(type_name: Any) -> str:
    text = str(type_name)
    if "int" in text and "tuple" in text:
        return "a list of CPU numbers >= 0"
    if "int" in text:
        return "a whole number >= 0"
    if "float" in text:
        return "a number"
    if "bool" in text:
        return "true or false"
    return text


def default_log_root() -> str:
    """Where a sweep's runs make their log directories unless [log] names one: tmpfs
    (/dev/shm) where there is one, else the temp directory."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()
