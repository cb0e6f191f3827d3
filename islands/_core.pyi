"""
islands engine core (C++): storage, indexes, concurrency control, workers
"""

from __future__ import annotations

import collections.abc
import typing

__all__: list[str] = [
    "AtraposMonitor",
    "BTreeIndex",
    "CapabilityMissing",
    "ConfigError",
    "CounterBenchConfig",
    "DriverConfig",
    "EngineConfig",
    "HashIndex",
    "Instance",
    "InstanceConfig",
    "IntegrityError",
    "IpcBenchConfig",
    "RunningInstance",
    "LogConfig",
    "MessageType",
    "MicroConfig",
    "PerfCounters",
    "PerfEventSpec",
    "ProfileConfig",
    "RunConfig",
    "TatpConfig",
    "TpcbConfig",
    "TpccConfig",
    "Transport",
    "abort_reasons",
    "atrapos_monitoring_bench",
    "atrapos_sub_partitions",
    "bare_loop",
    "build_info",
    "check_log_directory",
    "components",
    "counters",
    "crc32c",
    "ipc_mechanisms",
    "key_draw_ns",
    "latency_quantiles",
    "latency_summary",
    "load_bytes",
    "load_size",
    "loaded_rows",
    "lock_kinds",
    "make_transport",
    "plp_placement",
    "read_log",
    "run",
    "start",
    "run_counter_bench",
    "run_fixed_transactions",
    "run_ipc_bench",
    "scale_count",
    "settings",
    "simulator_marks",
    "transport_names",
    "verify",
    "workloads",
    "writes",
    "zipf_buckets",
    "zipf_probability",
    "zipf_sample",
]

class ConfigError(ValueError):
    """
    A setting that cannot be used. ``field`` names it as "section.name" ("micro.rows_per_txn",
    "log.mode"; "workload" for the workload's name), ``why`` says what is wrong with its value.
    """

    field: str
    why: str
    def __init__(self, field: str, why: str) -> None: ...

class MicroConfig:
    """
    Microbenchmark parameters (paper 000, Sec 3.2)
    """

    rows_per_site: int
    columns: int
    rows_per_txn: int
    update: bool
    multisite: float
    zipf_s: float
    read_share: float
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """

class TpcbConfig:
    """
    TPC-B parameters (paper 000, Sec 3.3, 8.1-8.2)
    """

    branches_per_site: int
    tellers_per_branch: int
    accounts_per_branch: int
    remote: float
    remote_pick: str
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """

class TatpConfig:
    """
    TATP parameters (paper 002)
    """

    subscribers_per_site: int
    mix: str
    id_draw: str
    hot_fraction: float
    hot_share: float
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """

class TpccConfig:
    """
    TPC-C parameters (paper 000, Sec 3.3, 8.3-8.4)
    """

    warehouses_per_site: int
    items: int
    customers_per_district: int
    mix: str
    new_order_remote_item: float
    new_order_rollback: float
    payment_remote: float
    payment_by_name: float
    layout: str
    memory_budget: float
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """

class EngineConfig:
    """
    Index, concurrency control and latching
    """

    index: str
    cc: str
    lock_policy: str
    isolation: str
    latching: bool
    prefetch: bool
    interleave: int
    record_history: bool
    test_skip_read_locks: bool
    execution: str
    test_skip_validation: bool
    test_skip_write_conflict: bool
    system_structures: str
    test_count_cross_socket: bool
    test_service_us: float
    cross_socket_delay_ns: float
    plp_reshuffle_s: float
    test_skip_drain: bool
    plp_monitor: bool
    plp_index: str
    plp_units: str
    plp_placement: str
    plp_handoff: int
    plp_workers_per_cpu: int
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """

class DriverConfig:
    """
    Closed-loop driver: workers, timing, seed
    """

    cpus: list[int]
    pin: bool
    warmup_s: float
    duration_s: float
    seed: int
    timeline_interval_s: float
    min_free_memory_mib: int
    clients: str
    client_count: int
    think_us: float
    offered_rate: float
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """

class PerfEventSpec:
    """
    One counter, resolved to its perf_event_open encoding
    """

    name: str
    @typing.overload
    def __init__(self) -> None: ...
    @typing.overload
    def __init__(
        self,
        name: str,
        type: typing.SupportsInt | typing.SupportsIndex,
        config: typing.SupportsInt | typing.SupportsIndex,
        config1: typing.SupportsInt | typing.SupportsIndex = 0,
        config2: typing.SupportsInt | typing.SupportsIndex = 0,
        group: typing.SupportsInt | typing.SupportsIndex = 0,
        cpu: typing.SupportsInt | typing.SupportsIndex = -1,
    ) -> None: ...
    def __repr__(self) -> str: ...
    @property
    def config(self) -> int: ...
    @config.setter
    def config(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def config1(self) -> int: ...
    @config1.setter
    def config1(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def config2(self) -> int: ...
    @config2.setter
    def config2(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def cpu(self) -> int: ...
    @cpu.setter
    def cpu(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def group(self) -> int: ...
    @group.setter
    def group(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def type(self) -> int: ...
    @type.setter
    def type(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...

class ProfileConfig:
    """
    Counters and time breakdown around the measured window
    """

    events: list[PerfEventSpec]
    breakdown_every: int
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """

class LogConfig:
    """
    Write-ahead log of every instance of a deployment run
    """

    mode: str
    directory: str
    flush_interval_us: float
    group_delay_us: float
    buffer_bytes: int
    max_pending: int
    early_lock_release: bool
    flush_on_demand: bool
    worker_writes: bool
    content: str
    checkpoint: bool
    record_acks: bool
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """

class RunConfig:
    """
    Everything one run of one instance needs
    """

    driver: DriverConfig
    engine: EngineConfig
    log: LogConfig
    micro: MicroConfig
    profile: ProfileConfig
    tatp: TatpConfig
    tpcb: TpcbConfig
    tpcc: TpccConfig
    workload: str
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ConfigError naming the first bad field
        """
    def validate_sites(self, total_sites: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        The same for an instance of a deployment of total_sites sites
        """

class InstanceConfig:
    """
    One instance of a multi-instance deployment
    """

    directory: str
    recover: bool
    run: RunConfig
    transport: str
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ValueError naming the first bad field
        """
    @property
    def attach_timeout_ms(self) -> int: ...
    @attach_timeout_ms.setter
    def attach_timeout_ms(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def instance_id(self) -> int: ...
    @instance_id.setter
    def instance_id(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def instance_sites(self) -> list[int]: ...
    @instance_sites.setter
    def instance_sites(self, arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None: ...
    @property
    def idle_spin_us(self) -> float: ...
    @idle_spin_us.setter
    def idle_spin_us(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def message_delay_us(self) -> float: ...
    @message_delay_us.setter
    def message_delay_us(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def site_sockets(self) -> list[int]: ...
    @site_sockets.setter
    def site_sockets(self, arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None: ...
    @property
    def ring_bytes(self) -> int: ...
    @ring_bytes.setter
    def ring_bytes(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...

class Instance:
    """
    One engine instance of a deployment (2PC between instances)
    """
    def __init__(self, config: InstanceConfig) -> None: ...
    def checkpoint(self) -> bool:
        """
        After a clean run with the log on: snapshot every row and start the log afresh; False when there is no log
        """
    def load(self) -> None:
        """
        Pins workers, loads their sites, attaches the transport mesh; returns when all are ready
        """
    def run(
        self,
        start_at_ns: typing.SupportsInt | typing.SupportsIndex,
        warmup_s: typing.SupportsFloat | typing.SupportsIndex,
        duration_s: typing.SupportsFloat | typing.SupportsIndex,
    ) -> dict:
        """
        Runs warm-up from start_at_ns (time.monotonic_ns clock) and the window; returns statistics
        """

class RunningInstance:
    """
    A run in progress in this process (islands._core.start): its PLP instance's controls while it runs (each answers None, [] or False while none is attached), then join()
    """
    def join(self) -> dict:
        """
        Waits for the run to end; its statistics as _core.run returns them (or raises what it raised)
        """
    def wait_attached(self, timeout_s: typing.SupportsFloat | typing.SupportsIndex = 60.0) -> bool:
        """
        Waits up to timeout_s for the PLP instance to attach (its workers drawing); False when the run ended first, is not PLP, or the time ran out
        """
    @property
    def attached(self) -> bool:
        """
        Whether the PLP instance is attached now (its workers drawing transactions)
        """
    @property
    def ended(self) -> bool:
        """
        Whether the run is over
        """
    def owners(self) -> list[int]:
        """
        The owner worker of every routing unit (empty: not attached)
        """
    def apply(self, target: collections.abc.Sequence[typing.SupportsInt]) -> typing.Any:
        """
        Moves every routing unit u to worker target[u] (freeze, drain, hand over); {units_moved, pause_ns, completed, stall (the drain watchdog's dump, empty normally)}, or None when not attached
        """
    def snapshot(self) -> typing.Any:
        """
        The monitor (engine.plp_monitor), summed over the workers: actions and cost, sync_count and sync_bytes; and drawn (workers x partitions x 10); None when not attached or the monitor is off
        """
    def worker_cpu_ns(self) -> list[int] | None:
        """
        The CPU time (ns) each worker thread has had so far (monitor on); None otherwise
        """
    def commits(self) -> int | None:
        """
        Transactions committed so far (monitor on); None otherwise
        """
    def monitor_recording(self, on: bool) -> bool:
        """
        Switches the monitor's recording on or off; False when not attached or the monitor is off
        """
    def park(self, worker: typing.SupportsInt, parked: bool) -> bool:
        """
        Takes worker's core away or gives it back; False when not attached or it has no such worker
        """
    def change(
        self,
        *,
        mix: str | None = None,
        hot_fraction: typing.SupportsFloat | typing.SupportsIndex | None = None,
        hot_share: typing.SupportsFloat | typing.SupportsIndex | None = None,
    ) -> bool:
        """
        Changes the workload's draw (tatp.mix, tatp.hot_fraction, tatp.hot_share), seen from each worker's next transaction; False when not attached; ConfigError naming the field for a value its settings refuse
        """

class HashIndex:
    """
    The engine's partitioned open-addressing hash index
    """
    def __init__(
        self, expected_keys: typing.SupportsInt | typing.SupportsIndex = 16, latching: bool = True
    ) -> None: ...
    def __len__(self) -> int: ...
    def erase(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> bool:
        """
        Removes key; False if absent
        """
    def insert(
        self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.SupportsInt | typing.SupportsIndex
    ) -> bool:
        """
        Inserts key -> value; False if the key is present
        """
    def lookup(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> int | None:
        """
        The value of key, or None
        """
    def update(
        self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.SupportsInt | typing.SupportsIndex
    ) -> bool:
        """
        Replaces a present key's value; False if absent
        """

class BTreeIndex:
    """
    The engine's B+tree index
    """
    def __init__(self, latching: bool = True) -> None: ...
    def __len__(self) -> int: ...
    def erase(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> bool:
        """
        Removes key; False if absent
        """
    def insert(
        self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.SupportsInt | typing.SupportsIndex
    ) -> bool:
        """
        Inserts key -> value; False if the key is present
        """
    def lookup(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> int | None:
        """
        The value of key, or None
        """
    def scan(
        self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.SupportsInt | typing.SupportsIndex
    ) -> list[tuple[int, int]]:
        """
        (key, value) pairs with low <= key <= high, ascending
        """
    def update(
        self, arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.SupportsInt | typing.SupportsIndex
    ) -> bool:
        """
        Replaces a present key's value; False if absent
        """
    @property
    def height(self) -> int: ...

class MessageType:
    """
    Kind of a message between instances (on the wire)

    Members:

      fragment

      vote

      decision

      ack

      shutdown

      validate
    """

    __members__: typing.ClassVar[dict[str, MessageType]]
    ack: typing.ClassVar[MessageType]
    decision: typing.ClassVar[MessageType]
    fragment: typing.ClassVar[MessageType]
    shutdown: typing.ClassVar[MessageType]
    validate: typing.ClassVar[MessageType]
    vote: typing.ClassVar[MessageType]
    @typing.overload
    def __eq__(self, other: MessageType) -> bool: ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool: ...
    def __getstate__(self) -> int: ...
    def __hash__(self) -> int: ...
    def __index__(self) -> int: ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __int__(self) -> int: ...
    @typing.overload
    def __ne__(self, other: MessageType) -> bool: ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool: ...
    def __repr__(self) -> str: ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    def __str__(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def value(self) -> int: ...

class Transport:
    """
    One instance's endpoint of a transport mesh (see make_transport)
    """
    def __enter__(self) -> Transport: ...
    def __exit__(self, *args) -> None: ...
    def close(self) -> None:
        """
        Ends the endpoint and unlinks the files it created; further calls raise
        """
    def ping_pong(
        self,
        peer: typing.SupportsInt | typing.SupportsIndex,
        initiator: bool,
        round_trips: typing.SupportsInt | typing.SupportsIndex,
        payload_bytes: typing.SupportsInt | typing.SupportsIndex = 0,
        timeout_s: typing.SupportsFloat | typing.SupportsIndex = 30.0,
    ) -> list[int]:
        """
        Ping-pong with peer (both sides call it). The initiator returns each round trip in ns; the responder echoes until the initiator is done and returns []
        """
    def poll(self, timeout_s: typing.SupportsFloat | typing.SupportsIndex = 0.0) -> typing.Any:
        """
        The next message from any peer as (type, source, txn_id, payload), or None when none arrives within timeout_s (0: do not wait)
        """
    def send(
        self,
        dest: typing.SupportsInt | typing.SupportsIndex,
        type: MessageType,
        txn_id: typing.SupportsInt | typing.SupportsIndex,
        payload: bytes = b"",
    ) -> bool:
        """
        Queues a message for instance dest; never blocks: False when the channel is full (poll, then retry). RuntimeError when dest has closed or died.
        """
    def send_raw(self, dest: typing.SupportsInt | typing.SupportsIndex, record: bytes) -> bool:
        """
        Fault injection: queues record unchecked as one record; the receiver must reject it if malformed. False when the channel is full.
        """
    def stats(self) -> dict:
        """
        Counters since the endpoint was made, with malformed records per reason
        """
    @property
    def instance_id(self) -> int: ...
    @property
    def n_instances(self) -> int: ...
    @property
    def name(self) -> str: ...

class CapabilityMissing(RuntimeError):
    pass

class IntegrityError(RuntimeError):
    pass

class IpcBenchConfig:
    """
    One ping-pong run between two pinned processes
    """

    mechanism: str
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ValueError naming the first bad field
        """
    @property
    def client_cpu(self) -> int: ...
    @client_cpu.setter
    def client_cpu(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def duration_s(self) -> float: ...
    @duration_s.setter
    def duration_s(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def inject_corruption(self) -> int: ...
    @inject_corruption.setter
    def inject_corruption(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def message_bytes(self) -> int: ...
    @message_bytes.setter
    def message_bytes(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def round_trips(self) -> int: ...
    @round_trips.setter
    def round_trips(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def seed(self) -> int: ...
    @seed.setter
    def seed(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def server_cpu(self) -> int: ...
    @server_cpu.setter
    def server_cpu(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def timeout_s(self) -> float: ...
    @timeout_s.setter
    def timeout_s(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def warmup_s(self) -> float: ...
    @warmup_s.setter
    def warmup_s(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class CounterBenchConfig:
    """
    Threads incrementing lock-protected counters
    """

    lock: str
    def __init__(self) -> None: ...
    def validate(self) -> None:
        """
        Raises ValueError naming the first bad field
        """
    @property
    def counter_of(self) -> list[int]: ...
    @counter_of.setter
    def counter_of(self, arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None: ...
    @property
    def cpus(self) -> list[int]: ...
    @cpus.setter
    def cpus(self, arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None: ...
    @property
    def duration_s(self) -> float: ...
    @duration_s.setter
    def duration_s(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...
    @property
    def increments_per_thread(self) -> int: ...
    @increments_per_thread.setter
    def increments_per_thread(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None: ...
    @property
    def warmup_s(self) -> float: ...
    @warmup_s.setter
    def warmup_s(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None: ...

class PerfCounters:
    """
    perf_event_open counters of the calling thread (or of whole CPUs), in groups
    """
    def __init__(self, events: collections.abc.Sequence[PerfEventSpec], whole_cpu: bool = False) -> None:
        """
        Opens the events of one scope (cpu == -1: this thread; cpu >= 0 with whole_cpu); a counter that cannot open reads NaN with its reason
        """
    def disable(self) -> None:
        """
        Stops counting
        """
    def enable(self) -> None:
        """
        Starts counting (and resets the counts)
        """
    def read(self) -> list:
        """
        One dict per event: value (multiplexing-corrected), raw, times, running_fraction, error
        """

def abort_reasons() -> dict:
    """
    Every abort reason with what it means.
    """

def counters() -> list[dict[str, typing.Any]]:
    """
    Every worker counter: name, group (worker or clients), kind, unit, scope (window or run), aggregate (sum, max, each), reported (where a result shows its aggregate) and doc.
    """

def bare_loop(config: RunConfig) -> dict:
    """
    The engine-overhead baseline: the same probes in a bare loop; a dict of throughput_tps (transactions per second) and per_cpu_s (per CPU-second of its thread).
    """

def build_info() -> dict: ...
def components() -> list:
    """
    The time-breakdown components, in the engine's order
    """

def crc32c(data: bytes) -> int:
    """
    CRC-32C (Castagnoli) of bytes, as the log's records use.
    """

def check_log_directory(directory: str) -> None:
    """
    Raises ConfigError (log.directory) unless the directory is a real directory (not a symbolic link) owned by this user and not writable by its group or others, as every instance checks before it logs.
    """

def ipc_mechanisms() -> list[str]:
    """
    Names of the messaging mechanisms the IPC benchmark compares, in figure order.
    """

def key_draw_ns(
    n: typing.SupportsInt | typing.SupportsIndex,
    s: typing.SupportsFloat | typing.SupportsIndex,
    count: typing.SupportsInt | typing.SupportsIndex,
    seed: typing.SupportsInt | typing.SupportsIndex = 1,
    uniform: bool = False,
) -> float:
    """
    Nanoseconds per drawn key: count draws of ranks in [0, n) from the Zipf generator at skew s, or (uniform=True) from the uniform draw the workload uses at s = 0
    """

def latency_quantiles(
    arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex],
    arg1: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex],
) -> list[float]:
    """
    Quantiles of samples (ns) through the engine's latency histogram
    """

def latency_summary(
    arg0: collections.abc.Sequence[
        tuple[typing.SupportsInt | typing.SupportsIndex, typing.SupportsInt | typing.SupportsIndex]
    ],
) -> dict:
    """
    Percentiles of merged sparse (bucket, count) pairs from several workers or instances
    """

def load_bytes(
    config: RunConfig,
    total_sites: typing.SupportsInt | typing.SupportsIndex,
    instances: typing.SupportsInt | typing.SupportsIndex,
) -> int:
    """
    The bytes the load of config's workload on total_sites sites in `instances` instances is estimated to allocate (rows and indexes, from load_size).
    """

def load_size(config: RunConfig) -> list[dict[str, typing.Any]]:
    """
    The tables of config's workload as its settings size them: name, columns, row_bytes, rows_per_site (the mean where the load draws them, in [min_rows_per_site, max_rows_per_site]), rows_per_instance, index_bytes_per_row and chunked (allocated in chunks a site).
    """

def loaded_rows(config: RunConfig) -> dict[str, dict[str, int]]:
    """
    Test hook: loads every site of config (one a driver CPU) in one instance in this thread and returns each table's {rows, row_bytes} (what load_size declares).
    """

def lock_kinds() -> list[str]:
    """
    Names of the counter benchmark's lock kinds, in figure order.
    """

def make_transport(
    name: str,
    directory: str,
    instance_id: typing.SupportsInt | typing.SupportsIndex,
    n_instances: typing.SupportsInt | typing.SupportsIndex,
    ring_bytes: typing.SupportsInt | typing.SupportsIndex = 262144,
    max_message_bytes: typing.SupportsInt | typing.SupportsIndex = 65536,
    attach_timeout_s: typing.SupportsFloat | typing.SupportsIndex = 10.0,
) -> Transport:
    """
    Makes instance_id's endpoint of an n_instances mesh over transport name ('unix' or 'shm') in the private directory; waits up to attach_timeout_s for every peer.
    """

def read_log(path: str) -> dict:
    """
    Reads and verifies one instance log: its records (lsn, offset, type, txn, aux, rows, keys of the after-images and their columns, keys of the deletes as deleted, participants) and what was cut from a torn tail. Raises RuntimeError for corruption in the middle (with LSN and file offset).
    """

def start(config: RunConfig) -> RunningInstance:
    """
    Starts one instance's run (as _core.run does) on its own thread and returns it at once: a RunningInstance to control (PLP) while it runs and to join()
    """

def run(config: RunConfig) -> dict:
    """
    Runs one instance (load, warm-up, measured window) and returns its statistics as a dict.
    """

def run_counter_bench(config: CounterBenchConfig) -> dict:
    """
    Runs the threads and returns per-thread increments, final counter values and the increments each counter received, as a dict.
    """

def run_fixed_transactions(
    config: RunConfig,
    transactions: typing.SupportsInt | typing.SupportsIndex,
    warmup: typing.SupportsInt | typing.SupportsIndex = 0,
) -> int:
    """
    Loads the instance and runs exactly warmup + transactions committed transactions in this thread (for simulators: callgrind simulates from the end of the load, counts from the end of the warm-up); returns the aborted attempts of the counted ones
    """

def run_ipc_bench(config: IpcBenchConfig) -> dict:
    """
    Forks the server, runs the ping-pong (every message verified by its receiver) and returns the measurements as a dict.
    """

def scale_count(
    raw: typing.SupportsInt | typing.SupportsIndex,
    time_enabled: typing.SupportsInt | typing.SupportsIndex,
    time_running: typing.SupportsInt | typing.SupportsIndex,
) -> float:
    """
    The multiplexing correction: raw * enabled / running (NaN when it never ran)
    """

def settings() -> dict[str, list[dict[str, typing.Any]]]:
    """
    Every settings section of a RunConfig: {section: [{name, type, default, min, max, choices, help}]}, fields in declaration order (min and max inclusive; None: no bound).
    """

def simulator_marks() -> bool:
    """
    Whether run_fixed_transactions carries callgrind's start/zero/stop marks (valgrind headers at build)
    """

def transport_names() -> list[str]:
    """
    Names of the registered transports
    """

def verify(workload: str, checks: collections.abc.Mapping[str, typing.SupportsInt]) -> list[str]:
    """
    The workload's consistency conditions that `checks` (figures summed over the deployment) violate; empty: consistent.
    """

def workloads() -> list[dict[str, typing.Any]]:
    """
    The workload registry, in its order: each workload's name, settings section and settings class, whether it logs, its transaction types by number (as commits_by_type counts them), the figures its conditions need from the run's start, its consistency conditions' names, the setting that sizes its load (section.field), its tables' names, whether its draw can change while it runs (changes) and whether it can route its tables apart (routes_tables, engine.plp_units = per_table; tables in that order).
    """

def writes(config: RunConfig) -> bool:
    """
    Whether config's workload can write under its settings (a series that cannot runs unlogged).
    """

def zipf_buckets(
    arg0: typing.SupportsInt | typing.SupportsIndex, arg1: typing.SupportsFloat | typing.SupportsIndex
) -> int:
    """
    Size of the Zipf generator's alias table (rank buckets) for n items at skew s (0 at s = 0)
    """

def zipf_probability(
    arg0: typing.SupportsInt | typing.SupportsIndex,
    arg1: typing.SupportsFloat | typing.SupportsIndex,
    arg2: typing.SupportsInt | typing.SupportsIndex,
) -> float:
    """
    Exact probability of rank k
    """

def zipf_sample(
    n: typing.SupportsInt | typing.SupportsIndex,
    s: typing.SupportsFloat | typing.SupportsIndex,
    count: typing.SupportsInt | typing.SupportsIndex,
    seed: typing.SupportsInt | typing.SupportsIndex = 1,
) -> list[int]:
    """
    count ranks in [0, n) drawn from the engine's Zipf generator (rank 0 hottest)
    """

def tpcc_probe(config: RunConfig, transactions: typing.SupportsInt, corruption: str = "") -> dict[str, typing.Any]:
    """
    Test hook: loads the config's TPC-C sites in one instance, commits `transactions` on one thread, breaks the row `corruption` names (e.g. 'stock.ytd'; '' for none) and returns {figures, failures, corrupted, committed}.
    """

def tpcc_load_bytes(config: RunConfig, total_sites: typing.SupportsInt) -> int:
    """
    The bytes TPC-C's load of total_sites sites is estimated to allocate (what the memory check compares).
    """

class AtraposMonitor:
    """
    ATraPos trace arrays: per partition, actions and cost per sub-partition and synchronizations per pair of sub-partitions (paper 002 Sec V-D)
    """
    def __init__(self, ranges: collections.abc.Sequence[tuple[typing.SupportsInt, typing.SupportsInt]]) -> None:
        """
        One monitor per partition, partition i covering keys [ranges[i][0], ranges[i][1])
        """
    def __len__(self) -> int: ...
    def bounds(self, partition: typing.SupportsInt) -> list[int]:
        """
        The 11 keys that cut the partition into its sub-partitions
        """
    def record_action(self, partition: typing.SupportsInt, sub: typing.SupportsInt, cost: typing.SupportsInt) -> None:
        """
        Records one action (call from one thread per partition)
        """
    def record_sync(
        self,
        partition: typing.SupportsInt,
        sub: typing.SupportsInt,
        remote_partition: typing.SupportsInt,
        remote_sub: typing.SupportsInt,
        bytes: typing.SupportsInt,
    ) -> None:
        """
        Records one synchronization point between two sub-partitions
        """
    def run_owners(
        self, actions: typing.SupportsInt, cost: typing.SupportsInt = 1, sync_every: typing.SupportsInt = 4
    ) -> tuple[int, bool]:
        """
        Owner threads record while this thread snapshots: (snapshots taken, all monotone)
        """
    def snapshot(self) -> dict[str, typing.Any]:
        """
        Every counter now: actions and cost (partitions x 10), sync_count and sync_bytes (partitions x 10 x partitions x 10), as uint64 numpy arrays
        """
    def sub_of(self, partition: typing.SupportsInt, key: typing.SupportsInt) -> int:
        """
        The sub-partition of partition holding key
        """

def atrapos_monitoring_bench(
    mode: str,
    actions: typing.SupportsInt = 10000000,
    rows: typing.SupportsInt = 65536,
    sync_every: typing.SupportsInt = 4,
    seed: typing.SupportsInt = 1,
) -> dict[str, typing.Any]:
    """
    One run of the monitoring overhead loop: mode off, counts or timed; ns per action, the rows' checksum and the actions the monitor recorded
    """

def atrapos_sub_partitions() -> int:
    """
    Sub-partitions per partition of the ATraPos monitor
    """

def plp_placement(
    kind: str,
    workers: typing.SupportsInt,
    sites: typing.SupportsInt,
    tables: typing.SupportsInt,
    used: typing.SupportsInt,
    sockets: collections.abc.Sequence[typing.SupportsInt] = [],
    per_cpu: typing.SupportsInt = 1,
) -> list[int]:
    """
    The first owner of every routing unit a PLP instance starts with (engine.plp_placement kind: naive, workload_aware or atrapos), in the engine's unit order (site * tables + table) * 10 + sub; used: a bit per table the mix touches; sockets: each worker's (empty: one socket); per_cpu: workers per CPU (engine.plp_workers_per_cpu)
    """
