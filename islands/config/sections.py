"""The sections of a run's settings, one frozen dataclass per C++ config struct, and
:class:`RunSections`, which holds one of each. GENERATED from the engine's settings lists
(``islands._core.settings()``) by ``make settings`` (:mod:`islands.config.codegen`):
do not edit; tests/test_settings.py fails when this file is not what the engine's lists give."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


class _Section:
    """What every section can say of itself."""

    def is_default(self) -> bool:
        """True when every setting is its default (such sections leave a config's hash as it was)."""
        return all(getattr(self, f.name) == f.default for f in dataclasses.fields(self))  # type: ignore


@dataclass(frozen=True)
class MicroConfig(_Section):
    """Microbenchmark parameters (paper 000, Sec 3.2) (``_core.MicroConfig``)."""

    rows_per_site: int = 10_000  #: rows in each site (one site per worker core)
    columns: int = 10  #: int32 payload columns per row (10 = 40 bytes)
    rows_per_txn: int = 10  #: distinct rows each transaction reads or updates
    update: bool = False  #: false: read the rows; true: update every column
    multisite: float = 0.0  #: fraction of transactions that are multisite, 0..1
    zipf_s: float = 0.0  #: Zipf exponent of the row choice; 0 = uniform
    #: update runs: fraction of transactions that only read their rows, 0..1 (a read/update mix)
    read_share: float = 0.0


@dataclass(frozen=True)
class TpcbConfig(_Section):
    """TPC-B parameters (paper 000, Sec 3.3, 8.1-8.2) (``_core.TpcbConfig``)."""

    branches_per_site: int = 1  #: branches in each site (one site per worker core)
    tellers_per_branch: int = 10  #: tellers of a branch (specification: 10)
    accounts_per_branch: int = 100_000  #: accounts of a branch (specification: 100000)
    remote: float = 0.15  #: fraction of remote transactions (see remote_pick), 0..1
    #: what a remote transaction takes from another branch: teller (paper 000) or account (the specification)
    remote_pick: str = "teller"


@dataclass(frozen=True)
class TatpConfig(_Section):
    """TATP parameters (paper 002) (``_core.TatpConfig``)."""

    subscribers_per_site: int = 100_000  #: subscribers in each site (specification: >= 100000 in all)
    mix: str = "standard"  #: standard, one transaction's name, or name:weight,... summing to 100
    id_draw: str = "nonuniform"  #: how a transaction picks its subscriber: nonuniform (the specification's) or uniform
    hot_fraction: float = 0.0  #: skew: share of the instance's subscribers that are hot, 0 (off) .. 1 (002 Fig 11: 0.2)
    hot_share: float = 0.5  #: skew: share of the requests that go to the hot subscribers


@dataclass(frozen=True)
class TpccConfig(_Section):
    """TPC-C parameters (paper 000, Sec 3.3, 8.3-8.4) (``_core.TpccConfig``)."""

    warehouses_per_site: int = 1  #: warehouses in each site (one site per worker core)
    items: int = 100_000  #: rows of Item and of Stock per warehouse (specification: 100000)
    customers_per_district: int = 3000  #: customers and initial orders per district (specification: 3000)
    mix: str = "standard"  #: standard, 50-50, 80-20, 100-0, one transaction's name, or name:weight,... summing to 100
    new_order_remote_item: float = 0.01  #: NewOrder: share of items supplied by another warehouse
    new_order_rollback: float = 0.01  #: NewOrder: share that names an unused item and rolls back
    payment_remote: float = 0.15  #: Payment: share paying for a customer of another warehouse
    payment_by_name: float = 0.6  #: Payment: share choosing the customer by last name
    #: spec: every column of clause 1.3 at its width; narrow: only the numeric columns the arithmetic needs
    layout: str = "spec"
    #: share of the memory available at load time the run's tables may reach; the run stops with a message there
    memory_budget: float = 0.8


@dataclass(frozen=True)
class EngineConfig(_Section):
    """Index, concurrency control and latching (``_core.EngineConfig``)."""

    index: str = "hash"  #: primary index structure
    #: concurrency control: none (single-threaded, no locks), 2pl (row-level), table_2pl (table-level), occ (Silo) or
    #: mvcc (snapshot isolation)
    cc: str = "2pl"
    lock_policy: str = "wait_die"  #: 2PL on a conflict
    #: serializable, read_committed (read locks released when a statement ends) or snapshot (mvcc)
    isolation: str = "serializable"
    latching: bool = True  #: latch index operations during the run
    prefetch: bool = True  #: prefetch a transaction's index slots and rows ahead
    #: with prefetch: transactions a worker draws ahead of the one it executes, prefetching their index slots and then
    #: their rows so that several transactions' misses overlap (0: off; -1, the default: on where the instance's data
    #: outgrows the last-level cache, off where it fits; micro over a hash index, others run as with 0)
    interleave: int = -1
    #: test mode: record each committed transaction's reads and writes for the history checker
    record_history: bool = False
    #: test only: grant reads without locking (breaks isolation on purpose; the checker must catch it)
    test_skip_read_locks: bool = False
    #: shared_everything (any worker any row) or plp (partitions owned by workers, actions routed)
    execution: str = "shared_everything"
    #: test only: occ commits without validating its reads (broken on purpose; the checker must catch it)
    test_skip_validation: bool = False
    #: test only: mvcc commits without first-committer-wins (broken on purpose; the checker must catch it)
    test_skip_write_conflict: bool = False
    #: active-transaction list and system-state lock: none, centralized (one for all workers) or per_socket (each
    #: worker its socket's)
    system_structures: str = "none"
    #: test mode: count each worker's accesses to system structures kept by another socket
    test_count_cross_socket: bool = False
    #: test mode: every transaction busy-waits this many microseconds before its first attempt (a known service time)
    test_service_us: float = 0.0
    #: injected delay on each access to system structures kept by another socket (virtual topologies), ns
    cross_socket_delay_ns: float = 0.0
    #: test mode (plp): every this many seconds while transactions run, move 1-3 random routing units to other workers
    #: (0: never)
    plp_reshuffle_s: float = 0.0
    #: test only (plp): hand moved units over without draining them (broken on purpose; the ownership check must catch
    #: it)
    test_skip_drain: bool = False
    #: plp: each worker records ATraPos's trace (actions and cycles per sub-partition, synchronizations per pair)
    plp_monitor: bool = False
    #: plp: primary indexes as per_unit (one latch-free root per routing unit, touched only by its owner) or shared
    #: (one latched root)
    plp_index: str = "per_unit"
    #: plp: a routing unit is shared_key (every table's rows of one key range, owned together) or per_table (each
    #: table's rows of one key range on their own)
    plp_units: str = "shared_key"
    #: plp: where units start: naive (every table's units of site i on worker i), workload_aware (one partition of one
    #: table per core, sockets ignored) or atrapos (dependent partitions on one socket); the last two need plp_units =
    #: per_table
    plp_placement: str = "naive"
    #: plp: each worker hands a transaction whose home unit another worker owns to that owner, whole, keeping at most
    #: this many handed and unfinished (0: coordinates every transaction it draws itself)
    plp_handoff: int = 0
    #: plp, pinned: this many workers on each CPU of driver.cpus, each with its own site and client (2 with per_table
    #: naive: 002's oversaturated naive, table t's partition of a CPU on its own worker)
    plp_workers_per_cpu: int = 1


@dataclass(frozen=True)
class DriverConfig(_Section):
    """Closed-loop driver: workers, timing, seed (``_core.DriverConfig``)."""

    cpus: tuple[int, ...] = (0,)  #: one worker per entry, pinned there; one site per worker
    pin: bool = True  #: false: leave placement to the OS scheduler
    warmup_s: float = 1.0  #: seconds run before measuring (at most a day)
    duration_s: float = 5.0  #: seconds measured (at most a day)
    seed: int = 1  #: base random seed; worker i uses seed + i
    timeline_interval_s: float = 0.1  #: the throughput timeline counts commits per interval of this many seconds
    #: the run stops early, keeping what it measured, when the machine's available memory falls below this many MiB (0:
    #: never)
    min_free_memory_mib: int = 512
    #: who submits transactions: workers (each its own closed-loop client at its own site: per-site locality),
    #: instance_wide (each its own client, homes drawn over its instance's sites: the papers' load), closed
    #: (client_count clients routed to the home instance), open (Poisson arrivals at offered_rate)
    clients: str = "workers"
    client_count: int = 0  #: clients = closed: how many clients (0: four per worker)
    think_us: float = 0.0  #: clients = closed: microseconds a client waits after an answer before its next transaction
    #: clients = open: transactions per second offered to the whole deployment (Poisson arrivals)
    offered_rate: float = 0.0


@dataclass(frozen=True)
class ProfileConfig(_Section):
    """Counters and time breakdown around the measured window (``_core.ProfileConfig``)."""

    breakdown_every: int = 0  #: time every Nth transaction by component; 0 = off, 1 = every transaction
    counters: tuple[str, ...] = ()  #: event sets (resolved into profile.events where a run starts)
    simulate: int = 0  #: also run N transactions of a single-threaded copy under cachegrind; 0 = off
    cache_model: str = ""  #: caches the simulation models (islands.measure.cache_models); '' = default
    modules: bool = False  #: sample the run with perf record and fold it into code modules


@dataclass(frozen=True)
class LogConfig(_Section):
    """Write-ahead log of every instance of a deployment run (``_core.LogConfig``)."""

    mode: str = "off"  #: off, async or group_commit
    directory: str = ""  #: where the instance logs live (disk or tmpfs); needed unless off
    flush_interval_us: float = 1000.0  #: async: microseconds between flushes
    #: group_commit: microseconds the flusher gathers a group before it flushes; commits do not wake it meanwhile (a
    #: waiting worker, a 2PC vote or a half-full buffer do). 0: each group's first commit wakes it and it flushes at
    #: once (a system call per commit)
    group_delay_us: float = 200.0
    buffer_bytes: int = 1_048_576  #: bytes of each of the two log buffers (one fills while the other is written)
    max_pending: int = 1024  #: group_commit: commits a worker may have waiting for the flush before it waits too
    #: group_commit: release a commit's locks once its record is appended, not once it is durable (Aether's ELR); only
    #: its acknowledgement waits for the flush
    early_lock_release: bool = True
    #: group_commit: a record another instance or partition waits for (a 2PC prepare before its vote, a decision before
    #: phase 2) is written and synced at once by the worker that appended it; false: the flusher thread is asked to (a
    #: thread wake-up on the message's path)
    flush_on_demand: bool = True
    #: group_commit with the log on tmpfs or ramfs (where a sync costs nothing): the workers write the groups
    #: themselves, the first to see the open group older than group_delay_us (or its buffer half full) writes and syncs
    #: it, so no flusher thread is woken on a busy core (the flusher only backs them up); elsewhere, or false: the
    #: flusher thread writes every group (a worker must not wait out a disk's sync)
    worker_writes: bool = True
    #: what a local commit's record holds: redo (its rows' after-images) or command (its input words, a tenth of
    #: TPC-C's bytes, executed again at recovery in log order: command logging; a workload that replays, tpcc, under
    #: engine.cc none, 2pl or table_2pl, serializable, not plp; transactions that cannot be replayed, and 2PC's
    #: records, stay redo)
    content: str = "redo"
    checkpoint: bool = True  #: after a clean run: snapshot every row and start the log afresh (bounds recovery)
    #: each worker appends the ids of the transactions it acknowledged to acks-<site>.bin (fault tests)
    record_acks: bool = False


@dataclass(frozen=True)
class RunSections:
    """Every section of a run's settings, one field each, in the engine's order, and the
    workload that runs."""

    workload: str = "micro"  #: which workload runs (see WORKLOADS)
    micro: MicroConfig = field(default_factory=MicroConfig)
    tpcb: TpcbConfig = field(default_factory=TpcbConfig)
    tatp: TatpConfig = field(default_factory=TatpConfig)
    tpcc: TpccConfig = field(default_factory=TpccConfig)
    engine: EngineConfig = field(default_factory=EngineConfig)
    driver: DriverConfig = field(default_factory=DriverConfig)
    profile: ProfileConfig = field(default_factory=ProfileConfig)
    log: LogConfig = field(default_factory=LogConfig)


#: Each workload's settings section (named as the workload) and its dataclass, in the engine's
#: registry order (``_core.workloads()``).
WORKLOAD_SETTINGS: dict[str, type] = {
    "micro": MicroConfig,
    "tpcb": TpcbConfig,
    "tatp": TatpConfig,
    "tpcc": TpccConfig,
}
#: Every section of a run's settings and its dataclass, in the engine's order.
ALL_SECTIONS: dict[str, type] = {
    "micro": MicroConfig,
    "tpcb": TpcbConfig,
    "tatp": TatpConfig,
    "tpcc": TpccConfig,
    "engine": EngineConfig,
    "driver": DriverConfig,
    "profile": ProfileConfig,
    "log": LogConfig,
}
