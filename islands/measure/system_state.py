"""The machine's state around one measured run, recorded with every sweep row (as pyperf's
metadata does), and whether the machine was busy with other work meanwhile.

:class:`SystemProbe` is started just before a run and stopped just after it. Its
:meth:`~SystemProbe.stop` returns a flat dict (stored under ``system.*``):

- ``load_avg_1m`` / ``load_avg_5m`` / ``load_avg_15m`` and ``procs_running`` (runnable threads
  at the start, this one not counted), from ``os.getloadavg`` and ``/proc/stat``;
- ``cpu_mhz`` (mean current frequency, NaN where no frequency is readable), ``cpu_governor``
  (the scaling governors in use, None where there is no cpufreq), ``isolated_cpus``, ``aslr``;
- ``virtualization`` (``systemd-detect-virt``'s hypervisor and container, else the DMI vendor or the cpuinfo
  ``hypervisor`` flag, else None);
- ``other_cpu_share``: CPU time that processes other than this one and its children used
  during the run, as a share of the machine (1.0 = every CPU busy for the whole run);
  ``other_busy_processes``: how many of them used at least :data:`BUSY_PROCESS_SHARE` of one
  CPU, ``top_processes`` the three busiest (``name[pid] 95%``);
- ``busiest_other_cpu``: the busiest other process's CPU use, in CPUs (1.0 = one CPU all along);
- ``busy``: ``other_cpu_share`` ≥ :data:`BUSY_SHARE` of the machine, or one other process used
  at least :data:`BUSY_ONE_PROCESS` of a CPU (on a large machine one spinning process is a
  small share, but it still takes a core a deployment may be pinned to). The load average is
  recorded but not judged: during a sweep it counts the sweep's own workers.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import psutil

__all__ = ["BUSY_ONE_PROCESS", "BUSY_PROCESS_SHARE", "BUSY_SHARE", "SystemProbe", "busy_warning", "virtualization"]

#: Other processes using this share of the machine's CPU time during a run make it busy.
BUSY_SHARE = 0.10
#: A process using this share of one CPU during a run counts as a busy process.
BUSY_PROCESS_SHARE = 0.05
#: One other process using this share of one CPU during a run makes the machine busy.
BUSY_ONE_PROCESS = 0.5


def _read(path: str | Path) -> str | None:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


@functools.cache
def virtualization() -> str | None:
    """The hypervisor and container this runs under (``kvm``, ``kvm+docker``, ``none``, ...),
    or None when it cannot be told."""
    tool = shutil.which("systemd-detect-virt")
    if tool:
        found = []
        for flag in ("--vm", "--container"):
            try:
                out = subprocess.run([tool, flag], capture_output=True, text=True, timeout=5).stdout.strip()
            except (OSError, subprocess.SubprocessError):
                out = ""
            if out and out != "none":
                found.append(out)
        return "+".join(found) or "none"
    vendor = _read("/sys/class/dmi/id/sys_vendor")
    if vendor and any(v in vendor for v in ("QEMU", "KVM", "VMware", "Xen", "Microsoft", "Amazon", "Google")):
        return vendor
    cpuinfo = _read("/proc/cpuinfo") or ""
    if any(line.startswith("flags") and " hypervisor" in line for line in cpuinfo.splitlines()):
        return "hypervisor (type unknown)"
    return None


def _procs_running() -> float:
    for line in (_read("/proc/stat") or "").splitlines():
        if line.startswith("procs_running "):
            return float(max(0, int(line.split()[1]) - 1))  # not counting the reader
    return math.nan


def _cpu_mhz() -> float:
    values = [_read(p) for p in Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_cur_freq")]
    khz = [float(v) for v in values if v and v.isdigit()]
    if khz:
        return sum(khz) / len(khz) / 1000
    try:
        freq = psutil.cpu_freq()
    except (OSError, NotImplementedError):
        freq = None
    return float(freq.current) if freq is not None and freq.current else math.nan


def _governors() -> str | None:
    found = {_read(p) for p in Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/scaling_governor")}
    found.discard(None)
    return ",".join(sorted(g for g in found if g)) or None


def _cpu_seconds() -> dict[tuple[int, float], tuple[str, float]]:
    """(pid, create time) → (name, user + system CPU seconds) of every readable process."""
    out: dict[tuple[int, float], tuple[str, float]] = {}
    for proc in psutil.process_iter(["pid", "name", "cpu_times", "create_time"]):
        info = proc.info
        times = info.get("cpu_times")
        if times is None or info.get("create_time") is None:
            continue
        out[(info["pid"], info["create_time"])] = (info.get("name") or "?", times.user + times.system)
    return out


class SystemProbe:
    """Start before a run, stop after it; see the module docstring for what it records."""

    def __init__(self) -> None:
        self._start: dict[tuple[int, float], tuple[str, float]] = {}
        self._t0 = 0.0
        self._state: dict[str, Any] = {}

    def start(self) -> None:
        """Records the state before the run and the CPU time every process has used so far."""
        try:
            l1, l5, l15 = os.getloadavg()
        except OSError:
            l1 = l5 = l15 = math.nan
        self._state = {
            "load_avg_1m": l1,
            "load_avg_5m": l5,
            "load_avg_15m": l15,
            "procs_running": _procs_running(),
            "cpu_mhz": _cpu_mhz(),
            "cpu_governor": _governors(),
            "isolated_cpus": _read("/sys/devices/system/cpu/isolated") or None,
            "aslr": _read("/proc/sys/kernel/randomize_va_space"),
            "virtualization": virtualization(),
        }
        self._start = _cpu_seconds()
        self._t0 = time.monotonic()

    def stop(self) -> dict[str, Any]:
        """The state of the run just ended: what :meth:`start` saw plus the other processes'
        CPU use meanwhile and the ``busy`` verdict."""
        wall = max(time.monotonic() - self._t0, 1e-6)
        end = _cpu_seconds()
        me = psutil.Process()
        ours = {me.pid}
        with contextlib.suppress(psutil.Error):
            ours |= {c.pid for c in me.children(recursive=True)}
        used: list[tuple[float, str, int]] = []
        n_cpus = os.cpu_count() or 1
        # CPU times advance in clock ticks: a tick less per process, so that a short window
        # does not read one tick as a busy process; and no process uses more than every CPU.
        tick = 1.0 / os.sysconf("SC_CLK_TCK")
        for key, (name, seconds) in end.items():
            pid = key[0]
            if pid in ours:
                continue
            before = self._start.get(key, (name, 0.0))[1] if key in self._start else 0.0
            delta = min(seconds - before - tick, wall * n_cpus)
            if delta > 0:
                used.append((delta, name, pid))
        share = min(sum(d for d, _, _ in used) / (wall * n_cpus), 1.0)
        busy = [(d, n, p) for d, n, p in used if d / wall >= BUSY_PROCESS_SHARE]
        busy.sort(reverse=True)
        busiest = busy[0][0] / wall if busy else 0.0
        state = dict(self._state)
        state.update(
            {
                "other_cpu_share": share,
                "other_busy_processes": len(busy),
                "top_processes": ", ".join(f"{n}[{p}] {d / wall:.0%}" for d, n, p in busy[:3]) or None,
                "busiest_other_cpu": busiest,
                "busy": share >= BUSY_SHARE or busiest >= BUSY_ONE_PROCESS,
            }
        )
        return state


def busy_warning(states: list[dict[str, Any]]) -> str | None:
    """One line saying how many of the runs whose ``states`` are given ran on a busy machine,
    with the worst share and its busiest processes; None when none did."""
    busy = [s for s in states if s.get("busy")]
    if not busy:
        return None
    worst = max(busy, key=lambda s: s.get("other_cpu_share", 0.0))
    top = f" ({worst['top_processes']})" if worst.get("top_processes") else ""
    return (
        f"warning: the machine was busy during {len(busy)} of {len(states)} runs: other processes used up to "
        f"{worst['other_cpu_share']:.0%} of its CPU time{top}; those rows have system.busy = true and may be slow"
    )
