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
- ``steal_share``: the share of the machine's CPU time the hypervisor gave to other guests
  during the run (``steal`` in ``/proc/stat``; NaN where it is not readable); ``cpu_mhz_end``:
  the mean frequency again after the run (a drop from ``cpu_mhz``: thermal or power limits);
- ``busy``: ``other_cpu_share`` ≥ :data:`BUSY_SHARE` of the machine, or one other process used
  at least :data:`BUSY_ONE_PROCESS` of a CPU (on a large machine one spinning process is a
  small share, but it still takes a core a deployment may be pinned to). The load average is
  recorded but not judged: during a sweep it counts the sweep's own workers.

:func:`measure_around` runs any callable (one ``islands run``) between a probe's start and stop
and adds the cross-core round trip measured just before and just after it, so that a single
run's JSON carries what a sweep's rows carry: steal, load, other processes' CPU, and how far
apart the host placed two vCPUs around it.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import psutil

__all__ = [
    "BUSY_ONE_PROCESS",
    "BUSY_PROCESS_SHARE",
    "BUSY_SHARE",
    "SystemProbe",
    "busy_warning",
    "cpu_jiffies",
    "describe_state",
    "free_page_reporting",
    "machine_state",
    "measure_around",
    "steal_share",
    "suggestions",
    "virtualization",
]

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


#: The virtio device id of a memory balloon, and its feature bit "free page reporting"
#: (VIRTIO_BALLOON_F_REPORTING in the virtio specification).
_BALLOON_DEVICE = "0x0005"
_REPORTING_FEATURE = 5


def free_page_reporting(sysfs: str | Path = "/sys") -> str | None:
    """Whether this guest hands its free memory back to the host (a virtio balloon with free page
    reporting): ``"on (free blocks of N MiB and up)"``, ``"off"``, or None where sysfs cannot be
    read. With it on, memory left free for a few seconds is reported and the host drops it; the
    next first touch of that memory waits for the host's fault. A huge page comes from such a
    free block, so its first touch pays that (benchmarks/first_touch.py measures by how much);
    4 KiB pages mostly come from smaller free blocks, which are not reported."""
    root = Path(sysfs)
    if not root.is_dir():
        return None
    devices = root / "bus" / "virtio" / "devices"
    reporting = False
    for device in sorted(devices.iterdir()) if devices.is_dir() else []:
        features = _read(device / "features") or ""
        if _read(device / "device") == _BALLOON_DEVICE and features[_REPORTING_FEATURE : _REPORTING_FEATURE + 1] == "1":
            reporting = (device / "driver").exists()
    if not reporting:
        return "off"
    order = _read(root / "module" / "page_reporting" / "parameters" / "page_reporting_order")
    if order is None or not order.isdigit():
        return "on"
    return f"on (free blocks of {(4096 << int(order)) / 2**20:g} MiB and up)"


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


def cpu_jiffies() -> tuple[int, int] | None:
    """(steal, total) clock ticks of all CPUs since boot, from ``/proc/stat``'s ``cpu`` line;
    None where it is not readable."""
    for line in (_read("/proc/stat") or "").splitlines():
        if line.startswith("cpu "):
            fields = [int(x) for x in line.split()[1:]]
            steal = fields[7] if len(fields) > 7 else 0
            return steal, sum(fields[:8])
    return None


def steal_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float:
    """The share of CPU time stolen by the hypervisor between two :func:`cpu_jiffies`."""
    if before is None or after is None or after[1] <= before[1]:
        return math.nan
    return max(0.0, (after[0] - before[0]) / (after[1] - before[1]))


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
        self._jiffies: tuple[int, int] | None = None

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
        self._jiffies = cpu_jiffies()
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
                "steal_share": steal_share(self._jiffies, cpu_jiffies()),
                "cpu_mhz_end": _cpu_mhz(),
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


def _turbo(root: Path) -> str | None:
    """``on``/``off`` from intel_pstate's ``no_turbo`` or cpufreq's ``boost``; None where neither exists."""
    no_turbo = _read(root / "devices/system/cpu/intel_pstate/no_turbo")
    if no_turbo in ("0", "1"):
        return "off" if no_turbo == "1" else "on"
    boost = _read(root / "devices/system/cpu/cpufreq/boost")
    if boost in ("0", "1"):
        return "on" if boost == "1" else "off"
    return None


def cross_core_round_trip(cpus: list[int] | None = None, seconds: float = 0.1) -> tuple[float, str]:
    """The median round trip (ns) of a 64-byte message between the first two of ``cpus`` (this
    process's allowed CPUs) over a shared-memory ring (bench ipc's), and which pair it was; NaN
    and the reason when there is no second CPU or the ring cannot run. On a virtual machine it
    tells how far apart the host placed two vCPUs now (sharing a cache or not): it can change
    during a session, and every cross-core handoff (the client layer's queues, 2PC messages)
    costs accordingly."""
    from islands import _core

    cpus = sorted(os.sched_getaffinity(0)) if cpus is None else cpus
    if len(cpus) < 2:
        return math.nan, "one CPU: no pair to measure"
    config = _core.IpcBenchConfig()
    config.mechanism, config.client_cpu, config.server_cpu = "shm_ring", cpus[0], cpus[1]
    config.message_bytes, config.warmup_s, config.duration_s = 64, 0.02, seconds
    try:
        stats = _core.run_ipc_bench(config)
    except (RuntimeError, ValueError, OSError) as e:
        return math.nan, f"the ring could not run: {e}"
    return float(stats["round_trip"]["p50_ns"]), f"CPUs {cpus[0]} and {cpus[1]}"


T = TypeVar("T")


def measure_around(
    run: Callable[[], T],
    *,
    round_trip: bool = True,
    round_trip_s: float = 0.05,
    trip: Callable[[float], tuple[float, str]] | None = None,
) -> tuple[T, dict[str, Any]]:
    """``run()``'s result and the machine's state around it: :class:`SystemProbe`'s flat dict
    (``steal_share``, ``load_avg_1m``, ``other_cpu_share``, ``busy``, ...) plus, with
    ``round_trip``, ``cross_core_round_trip_ns_before`` / ``_after`` (a 64-byte shared-memory
    round trip between the first two allowed CPUs, ``round_trip_s`` each, just before and just
    after the run: :func:`cross_core_round_trip`), ``cross_core_round_trip_ns`` (their mean; NaN
    where neither could be measured, with ``cross_core_pair`` saying why) and
    ``cross_core_pair``. The round trips are outside the probe's window: they do not count as
    the run's own CPU use. ``trip`` replaces the round-trip measurement (tests)."""
    measure = trip or (lambda seconds: cross_core_round_trip(seconds=seconds))
    before = measure(round_trip_s) if round_trip else (math.nan, "not measured")
    probe = SystemProbe()
    probe.start()
    result = run()
    state = probe.stop()
    if round_trip:
        after = measure(round_trip_s)
        trips = [t for t in (before[0], after[0]) if t == t]
        state.update(
            {
                "cross_core_round_trip_ns_before": before[0],
                "cross_core_round_trip_ns_after": after[0],
                "cross_core_round_trip_ns": sum(trips) / len(trips) if trips else math.nan,
                "cross_core_pair": after[1] if after[0] == after[0] else before[1],
            }
        )
    return result, state


def machine_state(sample_s: float = 0.5, sysfs: str | Path = "/sys") -> dict[str, Any]:
    """The machine's measurement state now, as ``islands system`` shows it: what
    :class:`SystemProbe` records around a run, sampled over ``sample_s`` seconds of doing
    nothing (load, steal, other processes' CPU), plus turbo, the frequency range, the
    number of CPUs, the perf counters' permission, free page reporting (:func:`free_page_reporting`)
    and the cross-core round trip now (:func:`cross_core_round_trip`)."""
    probe = SystemProbe()
    probe.start()
    time.sleep(max(0.0, sample_s))
    state = probe.stop()
    root = Path(sysfs)
    state["turbo"] = _turbo(root)
    lows = [_read(p) for p in root.glob("devices/system/cpu/cpu[0-9]*/cpufreq/scaling_min_freq")]
    highs = [_read(p) for p in root.glob("devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_max_freq")]
    state["cpu_min_mhz"] = min((int(v) / 1000 for v in lows if v and v.isdigit()), default=math.nan)
    state["cpu_max_mhz"] = max((int(v) / 1000 for v in highs if v and v.isdigit()), default=math.nan)
    state["n_cpus"] = os.cpu_count()
    state["perf_event_paranoid"] = _read("/proc/sys/kernel/perf_event_paranoid")
    state["free_page_reporting"] = free_page_reporting(root)
    state["sample_s"] = sample_s
    state["cross_core_round_trip_ns"], state["cross_core_pair"] = cross_core_round_trip()
    return state


def suggestions(state: dict[str, Any]) -> list[str]:
    """What a user could change for steadier numbers, from a :func:`machine_state` (or a row's
    ``system.*``), as ``pyperf system show`` advises: one line each, empty when nothing."""
    out = []
    governors = str(state.get("cpu_governor") or "")
    if governors and governors != "performance":
        out.append(
            f"CPU governor {governors}: set 'performance' (cpupower frequency-set -g performance) for a steady clock"
        )
    if state.get("turbo") == "on":
        out.append("turbo boost on: the clock follows temperature and load; turn it off for steadier numbers")
    if not state.get("isolated_cpus"):
        out.append("no isolated CPUs: other tasks can run on the measured cores (boot with isolcpus=... nohz_full=...)")
    steal = state.get("steal_share", math.nan)
    if isinstance(steal, float) and steal == steal and steal >= 0.01:
        out.append(
            f"the hypervisor stole {steal:.0%} of the CPU time: other guests share the host; "
            "use dedicated (pinned) vCPUs or a bare-metal machine"
        )
    virt = state.get("virtualization")
    if virt and virt != "none" and not (isinstance(steal, float) and steal >= 0.01):
        out.append(f"virtualized ({virt}): vCPUs may move between physical cores; results vary more than on bare metal")
    share = state.get("other_cpu_share", 0.0) or 0.0
    if share >= BUSY_SHARE or (state.get("busiest_other_cpu") or 0.0) >= BUSY_ONE_PROCESS:
        top = f" ({state['top_processes']})" if state.get("top_processes") else ""
        out.append(f"other processes used {share:.0%} of the CPU time{top}: stop them, or measure elsewhere")
    load = state.get("load_avg_1m", math.nan)
    n = state.get("n_cpus") or os.cpu_count() or 1
    if isinstance(load, float) and load == load and load >= 0.5 * n:
        out.append(f"load average {load:.2f} on {n} CPUs: the machine is busy")
    if state.get("aslr") not in (None, "0"):
        out.append("ASLR on (randomize_va_space): layouts differ between runs; off (0) removes one source of noise")
    if str(state.get("free_page_reporting") or "").startswith("on"):
        out.append(
            "free page reporting on (virtio balloon): memory free for a few seconds goes back to the host, and a huge "
            "page's first touch then waits for the host's fault (benchmarks/first_touch.py): loading and a run's "
            "growth into new huge pages vary with it; a guest without the balloon's reporting avoids it"
        )
    return out


def _range(state: dict[str, Any]) -> str:
    low, high = state.get("cpu_min_mhz", math.nan), state.get("cpu_max_mhz", math.nan)
    if isinstance(low, float) and isinstance(high, float) and low == low and high == high:
        return f" (range {low:.0f}-{high:.0f} MHz)"
    return " (no cpufreq range)"


def describe_state(state: dict[str, Any]) -> str:
    """``islands system``'s text: one line per item, then what could change."""

    def show(v: Any, fmt: str = "{}") -> str:
        if v is None or (isinstance(v, float) and v != v):
            return "not readable"
        return fmt.format(v)

    lines = [
        f"virtualization:      {show(state.get('virtualization'))}",
        f"CPUs:                {show(state.get('n_cpus'))}; isolated: {state.get('isolated_cpus') or 'none'}",
        f"CPU governor:        {show(state.get('cpu_governor'))}",
        f"turbo boost:         {show(state.get('turbo'))}",
        f"CPU frequency:       {show(state.get('cpu_mhz'), '{:.0f} MHz')} now" + _range(state),
        f"load average:        {show(state.get('load_avg_1m'), '{:.2f}')} (1 min), "
        f"{show(state.get('load_avg_5m'), '{:.2f}')} (5 min); "
        f"runnable now: {show(state.get('procs_running'), '{:.0f}')}",
        f"steal time:          {show(state.get('steal_share'), '{:.1%}')} of CPU time "
        f"over {state.get('sample_s', 0):g} s",
        f"other processes:     {show(state.get('other_cpu_share'), '{:.1%}')} of the machine's CPU time"
        + (f" ({state['top_processes']})" if state.get("top_processes") else ""),
        f"ASLR:                {show(state.get('aslr'))}",
        f"perf_event_paranoid: {show(state.get('perf_event_paranoid'))}",
    ]
    if "free_page_reporting" in state:
        lines.append(f"free page reporting: {show(state.get('free_page_reporting'))}")
    if "cross_core_round_trip_ns" in state:
        lines.append(
            f"cross-core trip:     {show(state.get('cross_core_round_trip_ns'), '{:.0f} ns')} round trip, "
            f"{state.get('cross_core_pair', '')} (shared-memory ring; on a VM it changes when the host moves vCPUs)"
        )
    advice = suggestions(state)
    lines.append("")
    lines += [f"to change: {a}" for a in advice] if advice else ["nothing to change: the machine looks quiet"]
    return "\n".join(lines)
