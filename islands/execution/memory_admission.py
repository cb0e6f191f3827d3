"""Memory admission: a load's size is estimated before anything is allocated, and a load that
cannot fit the memory this process may use is refused in one line (``ConfigError`` naming the
setting that sizes it), instead of allocating until the kernel kills the run.

The estimate is rows x row bytes (the engine's fixed-width rows: a 16-byte header and int32
columns, 8-byte aligned) plus index bytes per key, per workload; the index constants are the
engine's measured footprint rounded up (micro: about 45 bytes a key, TATP about 95 with its
up-front hash table, TPC-B about 50). TPC-C keeps its own, finer check in the engine
(``tpcc.memory_budget``, :func:`islands._core.tpcc_load_bytes`); it is used here too so that
every workload is judged against the same available memory.

The memory that can be used is the smallest of: the machine's available memory
(``MemAvailable``), the cgroup's limit less what it already holds, and the address-space limit (``RLIMIT_AS``)
less this process's address space.
"""

from __future__ import annotations

import resource
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from islands.config.settings import RunConfig

__all__ = ["INDEX_BYTES_PER_KEY", "LIVE_SYSFS", "available_bytes", "check_load_fits", "load_bytes", "row_bytes"]

#: The sysfs of the machine at hand: a topology read from it is judged against this memory
#: (a plan for another machine's sysfs tree is not).
LIVE_SYSFS = "/sys"
#: Bytes of index per key, per workload (measured footprint, rounded up).
INDEX_BYTES_PER_KEY = {"micro": 64, "tpcb": 64, "tatp": 100}
#: TATP's payload columns per table (csrc/include/islands/workload/tatp_workload.hpp) and the
#: mean rows of each per subscriber: 1, 1-4 access, 1-4 facility, 0-3 forwarding per facility.
_TATP_ROWS = ((25, 1.0), (6, 2.5), (6, 2.5), (6, 3.75))
#: TPC-B's payload columns of branch, teller and account rows.
_TPCB_COLUMNS = 21


def row_bytes(columns: int) -> int:
    """Bytes one engine row takes with ``columns`` int32 columns (storage/row.hpp's stride)."""
    return (16 + 4 * columns + 7) // 8 * 8


def load_bytes(config: RunConfig, total_sites: int) -> int:
    """The bytes the load of ``total_sites`` sites (every instance of a deployment together,
    since they share the machine) is estimated to allocate."""
    workload = config.workload
    if workload == "micro":
        rows = config.micro.rows_per_site * total_sites
        return rows * (row_bytes(config.micro.columns) + INDEX_BYTES_PER_KEY["micro"])
    if workload == "tpcb":
        t = config.tpcb
        branches = t.branches_per_site * total_sites
        rows = branches * (1 + t.tellers_per_branch + t.accounts_per_branch)
        return rows * (row_bytes(_TPCB_COLUMNS) + INDEX_BYTES_PER_KEY["tpcb"])
    if workload == "tatp":
        subscribers = config.tatp.subscribers_per_site * total_sites
        per_subscriber = sum(row_bytes(cols) * n for cols, n in _TATP_ROWS)
        keys = 1 + sum(n for _, n in _TATP_ROWS)  # and the sub_nbr index of each subscriber
        return int(subscribers * (per_subscriber + keys * INDEX_BYTES_PER_KEY["tatp"]))
    if workload == "tpcc":
        from islands import _core

        core = _core.RunConfig()
        core.workload = "tpcc"
        core_tpcc = core.tpcc
        for name in ("warehouses_per_site", "items", "customers_per_district", "layout"):
            setattr(core_tpcc, name, getattr(config.tpcc, name))
        core.tpcc = core_tpcc
        return int(_core.tpcc_load_bytes(core, total_sites))
    return 0  # a workload without an estimate (a new one): the engine's own checks apply


#: The field that sizes each workload's load: the one a refusal names.
SIZE_FIELD = {
    "micro": "micro.rows_per_site",
    "tpcb": "tpcb.accounts_per_branch",
    "tatp": "tatp.subscribers_per_site",
    "tpcc": "tpcc.warehouses_per_site",
}


def _meminfo_available(meminfo: Path) -> int | None:
    try:
        for line in meminfo.read_text().splitlines():
            name, _, rest = line.partition(":")
            if name == "MemAvailable":
                return int(rest.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_room(cgroup: Path) -> int | None:
    """The cgroup v2 limit of this process less what its group holds (None: no limit found)."""
    try:
        relative = next(
            line.split("::", 1)[1] for line in Path("/proc/self/cgroup").read_text().splitlines() if "::" in line
        )
        group = cgroup / relative.strip().lstrip("/")
        limit = (group / "memory.max").read_text().strip()
        if limit == "max":
            return None
        return max(0, int(limit) - int((group / "memory.current").read_text().strip()))
    except (OSError, ValueError, StopIteration):
        return None


def _address_space_room() -> int | None:
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return max(0, soft - int(line.split()[1]) * 1024)
    except (OSError, ValueError, IndexError):
        pass
    return soft


def available_bytes(meminfo: str | Path = "/proc/meminfo", cgroup: str | Path = "/sys/fs/cgroup") -> int | None:
    """The bytes a load may take now (module docstring), None when nothing says."""
    rooms = [
        r
        for r in (_meminfo_available(Path(meminfo)), _cgroup_room(Path(cgroup)), _address_space_room())
        if r is not None
    ]
    return min(rooms) if rooms else None


def _gib(n: float) -> str:
    return f"{n / (1 << 30):.2f} GiB"


def check_load_fits(config: RunConfig, total_sites: int, available: int | None = None) -> None:
    """Raises ``ConfigError`` (a ``ValueError``) naming the setting that sizes the load when the
    load of ``total_sites`` sites cannot fit ``available`` bytes (default: :func:`available_bytes`).

    ``driver.min_free_memory_mib`` is not taken off: a load that fits but leaves less than that
    floor starts and stops early at once, saying so (``stopped_early``), as it always did."""
    need = load_bytes(config, total_sites)
    if need <= 0:
        return
    if available is None:
        available = available_bytes()
        if available is None:
            return  # nothing says how much there is: the engine's own stops apply
    if need > available:
        from islands import _core

        field = SIZE_FIELD.get(config.workload, config.workload)
        raise _core.ConfigError(
            field,
            f"the load of {total_sites} site{'s' if total_sites != 1 else ''} needs about {_gib(need)} but only "
            f"{_gib(max(available, 0))} of memory is available: lower {field.split('.', 1)[1]} or use fewer cores",
        )
