"""Memory admission: a load's size is estimated before anything is allocated, and a load that
cannot fit the memory this process may use is refused in one line (``ConfigError`` naming the
setting that sizes it), instead of allocating until the kernel kills the run.

The estimate is the workload's own (``_core.load_size``, declared with the workload in C++):
each table's rows a site and an instance as functions of its settings, times the engine's row
bytes (a 16-byte header and int32 columns, 8-byte aligned) and its index bytes a row (the
engine's measured footprint, rounded up). Every workload has one (the engine refuses to build
a workload without it), so a new workload is judged as the others are. TPC-C also keeps its own
check in the engine (``tpcc.memory_budget``), from the same declaration.

The memory that can be used is the smallest of: the machine's available memory
(``MemAvailable``), the cgroup's limit less what it already holds, and the address-space limit (``RLIMIT_AS``)
less this process's address space.
"""

from __future__ import annotations

import resource
from pathlib import Path
from typing import TYPE_CHECKING

from islands.config.workload_registry import load_bytes as _workload_load_bytes
from islands.config.workload_registry import workload as _workload

if TYPE_CHECKING:
    from islands.config.settings import RunConfig

__all__ = ["LIVE_SYSFS", "available_bytes", "check_load_fits", "load_bytes", "size_setting"]

#: The sysfs of the machine at hand: a topology read from it is judged against this memory
#: (a plan for another machine's sysfs tree is not).
LIVE_SYSFS = "/sys"


def load_bytes(config: RunConfig, total_sites: int, instances: int | None = None) -> int:
    """The bytes the load of ``total_sites`` sites (every instance of a deployment together,
    since they share the machine; ``instances`` of them, default one a site) is estimated to
    allocate, from the workload's declared tables."""
    return _workload_load_bytes(config, total_sites, instances)


def size_setting(config: RunConfig) -> str:
    """The setting that sizes ``config``'s load, as "section.field" (what a refusal names)."""
    return _workload(config.workload).size_setting


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


def check_load_fits(
    config: RunConfig, total_sites: int, available: int | None = None, instances: int | None = None
) -> None:
    """Raises ``ConfigError`` (a ``ValueError``) naming the setting that sizes the load when the
    load of ``total_sites`` sites cannot fit ``available`` bytes (default: :func:`available_bytes`).

    ``driver.min_free_memory_mib`` is not taken off: a load that fits but leaves less than that
    floor starts and stops early at once, saying so (``stopped_early``), as it always did."""
    need = load_bytes(config, total_sites, instances)
    if available is None:
        available = available_bytes()
        if available is None:
            return  # nothing says how much there is: the engine's own stops apply
    if need > available:
        from islands import _core

        field = size_setting(config)
        raise _core.ConfigError(
            field,
            f"the load of {total_sites} site{'s' if total_sites != 1 else ''} needs about {_gib(need)} but only "
            f"{_gib(max(available, 0))} of memory is available: lower {field.split('.', 1)[1]} or use fewer cores",
        )
