"""What this machine's performance monitoring units can count, and how to ask them.

Event encodings come from the kernel's own descriptions in sysfs
(``/sys/bus/event_source/devices/<pmu>/{type,events/*,format/*,cpumask}``) and, for events
the kernel does not name, from a small table per processor family (:data:`FAMILY_EVENTS`),
written with the PMU's own format fields (``event=0xa3,umask=0x14,cmask=20``) so that the
kernel's ``format/`` files decide the bits. Nothing is guessed: an event that resolves to no
encoding is reported missing with the reason.

Reading and parsing are separate, as in :mod:`islands.machine.topology`:

- :func:`read_pmu_files` copies the few sysfs files into a plain mapping (path -> text);
- :func:`parse_pmus` is a pure function of that mapping;
- :func:`resolve` turns event-set names into :class:`Counter` requests (the raw
  ``(type, config)`` the engine opens with ``perf_event_open``) plus the reasons for the
  metrics it cannot count;
- :func:`derive_metrics` turns counter values into the papers' metrics (IPC, stalled cycles,
  top-down level 1, paper 003's categories, memory-controller and inter-socket traffic).

Event sets (:data:`EVENT_SETS`): ``software`` (task clock, context switches, CPU migrations,
page faults: always there), ``basic``, ``topdown``, ``categories`` (paper 003), ``uncore``
(memory controllers, QPI/UPI links).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "EVENT_SETS",
    "FAMILY_EVENTS",
    "Counter",
    "Pmu",
    "Resolution",
    "cpu_family",
    "derive_metrics",
    "encode",
    "parse_format",
    "parse_pmus",
    "read_pmu_files",
    "resolve",
]

PMU_DIR = "bus/event_source/devices"

# perf_event_attr.type of the kernel's generic event types (linux/perf_event.h).
PERF_TYPE_HARDWARE = 0
PERF_TYPE_SOFTWARE = 1
PERF_TYPE_HW_CACHE = 3

#: Software events: (metric, config) of PERF_TYPE_SOFTWARE; they need no PMU.
SOFTWARE_EVENTS = (("task_clock_ns", 1), ("context_switches", 3), ("cpu_migrations", 4), ("page_faults", 2))

#: Each event set: the metrics it is for, and the counters (metric name -> where it comes
#: from). A source is ``"cpu:<sysfs alias>"`` (the core PMU's named event), ``"family:<key>"``
#: (the family table), ``"sw"`` (a software event) or ``"uncore:<pmu prefix>:<alias or key>"``.
EVENT_SETS: dict[str, dict[str, str]] = {
    "software": {name: "sw" for name, _ in SOFTWARE_EVENTS},
    "basic": {
        "cycles": "cpu:cpu-cycles",
        "instructions": "cpu:instructions",
        "branch_misses": "cpu:branch-misses",
        "llc_references": "cpu:cache-references",
        "llc_misses": "cpu:cache-misses",
        "l1i_misses": "family:l1i_misses",
        "stalled_cycles": "family:stalled_cycles",
    },
    "topdown": {
        "slots": "cpu:topdown-total-slots",
        "slots_issued": "cpu:topdown-slots-issued",
        "slots_retired": "cpu:topdown-slots-retired",
        "recovery_bubbles": "cpu:topdown-recovery-bubbles",
        "fetch_bubbles": "cpu:topdown-fetch-bubbles",
    },
    "categories": {
        "cycles": "cpu:cpu-cycles",
        "slots": "cpu:topdown-total-slots",
        "slots_retired": "cpu:topdown-slots-retired",
        "slots_issued": "cpu:topdown-slots-issued",
        "recovery_bubbles": "cpu:topdown-recovery-bubbles",
        "fetch_bubbles": "cpu:topdown-fetch-bubbles",
        "icache_stall_cycles": "family:icache_stall_cycles",
        "dcache_stall_cycles": "family:dcache_stall_cycles",
    },
    "uncore": {
        "imc_reads": "uncore:uncore_imc:cas_count_read",
        "imc_writes": "uncore:uncore_imc:cas_count_write",
        "link_data": "uncore:uncore_upi|uncore_qpi:link_data",
    },
}

#: Raw encodings per processor family, in the PMU's format fields (checked against Intel's
#: published event lists for each family). Keys: "vendor:family:model".
FAMILY_EVENTS: dict[str, dict[str, str]] = {
    # Skylake-SP / Cascade Lake-SP (Xeon Scalable, 06_55H)
    "GenuineIntel:6:85": {
        "l1i_misses": "event=0x83,umask=0x02",  # ICACHE_64B.IFTAG_MISS
        "stalled_cycles": "event=0xa3,umask=0x04,cmask=4",  # CYCLE_ACTIVITY.STALLS_TOTAL
        "icache_stall_cycles": "event=0x80,umask=0x04",  # ICACHE_16B.IFDATA_STALL
        "dcache_stall_cycles": "event=0xa3,umask=0x14,cmask=20",  # CYCLE_ACTIVITY.STALLS_MEM_ANY
        "uncore_upi:link_data": "event=0x02,umask=0x0f",  # UNC_UPI_TxL_FLITS.ALL_DATA
    },
    # Broadwell-EP (Xeon E5 v4, 06_4FH)
    "GenuineIntel:6:79": {
        "l1i_misses": "event=0x80,umask=0x02",  # ICACHE.MISSES
        "stalled_cycles": "event=0xa3,umask=0x04,cmask=4",  # CYCLE_ACTIVITY.CYCLES_NO_EXECUTE
        "icache_stall_cycles": "event=0x80,umask=0x04",  # ICACHE.IFDATA_STALL
        "dcache_stall_cycles": "event=0xa3,umask=0x06,cmask=6",  # CYCLE_ACTIVITY.STALLS_LDM_PENDING
        "uncore_qpi:link_data": "event=0x00,umask=0x02",  # QPI_TxL_FLITS_G0.DATA
    },
}

#: Core events per group (see resolve).
GROUP_SIZE = 4

#: Bytes per count of the uncore events (CAS: one 64-byte line; a data flit: 8 bytes).
BYTES_PER_COUNT = {"imc_reads": 64.0, "imc_writes": 64.0, "link_data": 8.0}


@dataclass(frozen=True)
class Pmu:
    """One PMU as sysfs describes it."""

    name: str
    type: int
    events: Mapping[str, str]  #: alias -> encoding terms ("event=0x3c,umask=0x00")
    formats: Mapping[str, tuple[str, tuple[tuple[int, int], ...]]]  #: field -> (configN, bit ranges)
    cpus: tuple[int, ...] = ()  #: cpumask: the CPUs an uncore PMU is read from (one per socket)
    scales: Mapping[str, float] = field(default_factory=dict)  #: alias -> events/<alias>.scale


@dataclass(frozen=True)
class Counter:
    """One counter to open: the metric it feeds and its raw encoding."""

    metric: str
    type: int
    config: int
    config1: int = 0
    config2: int = 0
    group: int = 0
    cpu: int = -1  #: -1 counts the worker thread; >= 0 a whole CPU (uncore)
    source: str = ""  #: where the encoding came from (sysfs alias or family table)
    scale: float = 1.0  #: multiply the count by this (sysfs .scale, e.g. 2 for any=1 slots)

    def to_core(self) -> Any:
        """The engine's ``PerfEventSpec``."""
        from islands import _core

        return _core.PerfEventSpec(
            self.metric, self.type, self.config, self.config1, self.config2, self.group, self.cpu
        )


@dataclass(frozen=True)
class Resolution:
    """What :func:`resolve` found: counters to open and, for the rest, why not."""

    counters: tuple[Counter, ...]
    missing: Mapping[str, str] = field(default_factory=dict)  #: metric -> reason


def parse_format(text: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``config:0-7`` / ``config1:0-15`` / ``config:21`` / ``config:0-7,32-35`` ->
    (``config``, ((lo, hi), ...)). Raises ValueError on anything else."""
    m = re.fullmatch(r"\s*(config[12]?)\s*:\s*([0-9,\-\s]+)\s*", text)
    if not m:
        raise ValueError(f"format {text.strip()!r} is not 'configN:lo-hi'")
    ranges = []
    for part in m.group(2).split(","):
        part = part.strip()
        lo, _, hi = part.partition("-")
        lo_i, hi_i = int(lo), int(hi or lo)
        if not 0 <= lo_i <= hi_i <= 63:
            raise ValueError(f"format {text.strip()!r}: bit range {part} outside 0-63")
        ranges.append((lo_i, hi_i))
    return m.group(1), tuple(ranges)


def encode(terms: str, pmu: Pmu) -> tuple[int, int, int]:
    """Event terms (``event=0x3c,umask=0x01,any``) -> (config, config1, config2) through the
    PMU's format fields. A term the PMU has no format for, or a value too wide, raises
    ValueError naming it."""
    out = {"config": 0, "config1": 0, "config2": 0}
    for term in terms.split(","):
        term = term.strip()
        if not term:
            continue
        name, _, value_text = term.partition("=")
        name = name.strip()
        value = int(value_text.strip(), 0) if value_text else 1
        if name not in pmu.formats:
            raise ValueError(f"{pmu.name}: no format field {name!r} (has {', '.join(sorted(pmu.formats))})")
        target, ranges = pmu.formats[name]
        width = sum(hi - lo + 1 for lo, hi in ranges)
        if value >= 1 << width:
            raise ValueError(f"{pmu.name}: {name}={value:#x} does not fit its {width} bits")
        shift = 0
        for lo, hi in ranges:  # a field split over several ranges fills them in order
            bits = hi - lo + 1
            out[target] |= ((value >> shift) & ((1 << bits) - 1)) << lo
            shift += bits
    return out["config"], out["config1"], out["config2"]


def read_pmu_files(sysfs_root: str | Path = "/sys") -> dict[str, str]:
    """The PMU files of a sysfs tree (paths relative to the root -> text); a tree without
    ``bus/event_source/devices`` gives an empty mapping."""
    root = Path(sysfs_root)
    base = root / PMU_DIR
    files: dict[str, str] = {}
    if not base.is_dir():
        return files
    for pmu in sorted(base.iterdir()):
        for name in ("type", "cpumask"):
            path = pmu / name
            if path.is_file():
                files[f"{PMU_DIR}/{pmu.name}/{name}"] = _read(path)
        for sub in ("events", "format"):
            directory = pmu / sub
            if directory.is_dir():
                for item in sorted(directory.iterdir()):
                    if item.is_file():
                        files[f"{PMU_DIR}/{pmu.name}/{sub}/{item.name}"] = _read(item)
    return files


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as e:  # unreadable files are left out; what needs them says so
        return f"<unreadable: {e.strerror}>"


def parse_pmus(files: Mapping[str, str]) -> dict[str, Pmu]:
    """The PMUs of a mapping from :func:`read_pmu_files`. A ``type`` file that is not a
    number raises ValueError naming it; events with ``.scale``/``.unit`` side files keep only
    their encoding."""
    names = sorted({path.split("/")[3] for path in files if path.startswith(PMU_DIR + "/")})
    pmus = {}
    for name in names:
        prefix = f"{PMU_DIR}/{name}/"
        type_text = files.get(prefix + "type")
        if type_text is None:
            continue
        try:
            pmu_type = int(type_text.strip())
        except ValueError:
            raise ValueError(f"{prefix}type: {type_text.strip()!r} is not a number") from None
        events = {
            path[len(prefix) + 7 :]: text.strip()
            for path, text in files.items()
            if path.startswith(prefix + "events/") and "." not in path[len(prefix) + 7 :]
        }
        scales = {}
        for path, text in files.items():
            if path.startswith(prefix + "events/") and path.endswith(".scale"):
                try:
                    scales[path[len(prefix) + 7 : -6]] = float(text.strip())
                except ValueError:
                    raise ValueError(f"{path}: {text.strip()!r} is not a number") from None
        formats = {}
        for path, text in files.items():
            if path.startswith(prefix + "format/"):
                try:
                    formats[path[len(prefix) + 7 :]] = parse_format(text)
                except ValueError as e:
                    raise ValueError(f"{path}: {e}") from None
        cpus: tuple[int, ...] = ()
        if prefix + "cpumask" in files:
            from islands.machine.topology import parse_cpulist

            cpus = tuple(parse_cpulist(files[prefix + "cpumask"].strip()))
        pmus[name] = Pmu(name=name, type=pmu_type, events=events, formats=formats, cpus=cpus, scales=scales)
    return pmus


def cpu_family(cpuinfo: str) -> str:
    """``vendor:family:model`` of the first processor in /proc/cpuinfo text ("" if absent)."""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    if not {"vendor_id", "cpu family", "model"} <= set(fields):
        return ""
    return f"{fields['vendor_id']}:{fields['cpu family']}:{fields['model']}"


def paranoid_level(path: str | Path = "/proc/sys/kernel/perf_event_paranoid") -> int | None:
    """kernel.perf_event_paranoid (None when the file is missing: no perf events at all)."""
    try:
        return int(Path(path).read_text().strip())
    except (OSError, ValueError):
        return None


def _no_cpu_pmu_reason(pmus: Mapping[str, Pmu]) -> str:
    present = ", ".join(sorted(pmus)) or "none"
    return (
        f"no core PMU ('cpu') in /sys/{PMU_DIR} (present: {present}): hardware counters are "
        "not exposed here, typically a virtual machine without PMU passthrough"
    )


def resolve(
    sets: Iterable[str], pmus: Mapping[str, Pmu], family: str = "", paranoid: int | None = 2, privileged: bool = True
) -> Resolution:
    """Counters for the event sets ``sets`` on a machine with ``pmus`` (from
    :func:`parse_pmus`) of processor ``family`` (:func:`cpu_family`). Pure: nothing is opened.
    Unknown set names raise ValueError; metrics that cannot be counted go to ``missing``.
    ``paranoid``/``privileged`` decide whether whole-CPU (uncore) counting is allowed."""
    counters: list[Counter] = []
    missing: dict[str, str] = {}
    seen: set[str] = set()
    table = FAMILY_EVENTS.get(family, {})
    for set_index, set_name in enumerate(sets):
        if set_name not in EVENT_SETS:
            raise ValueError(f"counters: unknown event set {set_name!r} (choose {', '.join(EVENT_SETS)})")
        hardware = 0
        for metric, source in EVENT_SETS[set_name].items():
            # Groups of at most GROUP_SIZE core events, so that a group fits the PMU's
            # general-purpose counters (4 per thread with Hyper-Threading) and gets scheduled;
            # the kernel multiplexes whole groups, so pairs listed together share a group.
            group = 10 * (set_index + 1) + hardware // GROUP_SIZE
            if metric in seen:
                continue
            seen.add(metric)
            kind, _, rest = source.partition(":")
            if kind == "sw":
                config = dict(SOFTWARE_EVENTS)[metric]
                counters.append(Counter(metric, PERF_TYPE_SOFTWARE, config, group=group, source="software"))
                continue
            if kind in ("cpu", "family"):
                cpu = pmus.get("cpu")
                if cpu is None:
                    missing[metric] = _no_cpu_pmu_reason(pmus)
                    continue
                if kind == "cpu":
                    terms = cpu.events.get(rest)
                    where = f"sysfs cpu/events/{rest}"
                    if terms is None:
                        missing[metric] = f"the core PMU has no '{rest}' event in sysfs on this processor"
                        continue
                else:
                    terms = table.get(rest)
                    where = f"family table {family}"
                    if terms is None:
                        missing[metric] = (
                            f"no encoding for {rest} in the family table for processor "
                            f"{family or 'unknown'} (known: {', '.join(FAMILY_EVENTS)})"
                        )
                        continue
                try:
                    config, config1, config2 = encode(terms, cpu)
                except ValueError as e:
                    missing[metric] = str(e)
                    continue
                counters.append(
                    Counter(
                        metric,
                        cpu.type,
                        config,
                        config1,
                        config2,
                        group=group,
                        source=where,
                        scale=cpu.scales.get(rest, 1.0) if kind == "cpu" else 1.0,
                    )
                )
                hardware += 1
                continue
            # uncore: every PMU instance of the prefix, on each CPU of its cpumask
            prefixes, _, event = rest.partition(":")
            instances = [
                p
                for name, p in sorted(pmus.items())
                if any(re.fullmatch(rf"{pre}(_\d+)?", name) for pre in prefixes.split("|"))
            ]
            if not instances:
                missing[metric] = f"no {' or '.join(p + '_*' for p in prefixes.split('|'))} uncore PMU in sysfs"
                continue
            if not privileged and (paranoid is None or paranoid > 0):
                missing[metric] = (
                    f"whole-CPU uncore counting needs root or CAP_PERFMON with "
                    f"kernel.perf_event_paranoid <= 0 (it is {paranoid})"
                )
                continue
            added = 0
            for p in instances:
                kind_name = re.sub(r"_\d+$", "", p.name)
                terms = p.events.get(event) or table.get(f"{kind_name}:{event}")
                if terms is None:
                    missing[metric] = (
                        f"{p.name} has no '{event}' event in sysfs and the family table "
                        f"for {family or 'unknown'} has no encoding"
                    )
                    break
                try:
                    config, config1, config2 = encode(terms, p)
                except ValueError as e:
                    missing[metric] = str(e)
                    break
                for cpu_id in p.cpus or (0,):
                    counters.append(
                        Counter(
                            metric, p.type, config, config1, config2, group=1000 + added, cpu=cpu_id, source=f"{p.name}"
                        )
                    )
                    added += 1
            else:
                continue
            counters[:] = [c for c in counters if c.metric != metric]
    return Resolution(counters=tuple(counters), missing=missing)


def resolve_here(
    sets: Iterable[str], sysfs_root: str | Path = "/sys", cpuinfo_path: str | Path = "/proc/cpuinfo"
) -> Resolution:
    """:func:`resolve` on this machine's sysfs, cpuinfo and perf_event_paranoid."""
    import os

    sets = tuple(sets)
    if not sets:
        return Resolution(counters=())
    try:
        cpuinfo = Path(cpuinfo_path).read_text()
    except OSError:
        cpuinfo = ""
    paranoid = paranoid_level()
    if paranoid is None:
        reason = "the kernel has no perf events (/proc/sys/kernel/perf_event_paranoid is missing)"
        return Resolution(counters=(), missing={m: reason for s in sets for m in EVENT_SETS.get(s, {})})
    return resolve(
        sets,
        parse_pmus(read_pmu_files(sysfs_root)),
        cpu_family(cpuinfo),
        paranoid=paranoid,
        privileged=os.geteuid() == 0,
    )


def sum_readings(
    readings: Iterable[Mapping[str, Any]],
    scales: Mapping[str, float] | None = None,
) -> tuple[dict[str, float], dict[str, float], dict[str, str]]:
    """Per-worker (or per-CPU) counter readings -> (value per metric summed, lowest running
    fraction per metric, error per metric). A metric any of whose readings is NaN is NaN.
    ``scales`` (metric -> factor, from :attr:`Counter.scale`) multiplies the values."""
    values: dict[str, float] = {}
    fractions: dict[str, float] = {}
    errors: dict[str, str] = {}
    for r in readings:
        name = r["name"]
        value = float(r["value"]) * (scales or {}).get(name, 1.0)
        values[name] = values.get(name, 0.0) + value
        frac = float(r["running_fraction"])
        fractions[name] = min(fractions.get(name, frac), frac) if not math.isnan(frac) else math.nan
        if r.get("error"):
            errors.setdefault(name, r["error"])
    return values, fractions, errors


def _ratio(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b) or b == 0:
        return math.nan
    return a / b


#: Derived metrics: name -> what it means (for tables and figure labels).
METRICS = {
    "ipc": "instructions per cycle",
    "stalled_pct": "% of cycles stalled",
    "llc_miss_pct": "% of LLC references that miss",
    "l1i_mpki": "L1i misses per 1000 instructions",
    "branch_mpki": "branch mispredictions per 1000 instructions",
    "td_retiring": "top-down: retiring (fraction of slots)",
    "td_bad_speculation": "top-down: bad speculation",
    "td_frontend_bound": "top-down: frontend bound",
    "td_backend_bound": "top-down: backend bound",
    "cat_retiring": "003: retiring",
    "cat_branch_misprediction": "003: branch misprediction",
    "cat_icache": "003: icache stalls",
    "cat_decoding": "003: decoding",
    "cat_dcache": "003: dcache stalls",
    "cat_resource": "003: resource/dependency",
    "imc_bytes": "memory-controller traffic, bytes",
    "link_bytes": "inter-socket (QPI/UPI) data traffic, bytes",
    "link_per_imc": "QPI/IMC traffic ratio (000 Sec 7.2)",
}


def derive_metrics(v: Mapping[str, float]) -> dict[str, float]:
    """The papers' metrics from summed counter values (NaN where an input is missing)."""
    g = lambda k: float(v.get(k, math.nan))  # noqa: E731
    out = {
        "ipc": _ratio(g("instructions"), g("cycles")),
        "stalled_pct": 100 * _ratio(g("stalled_cycles"), g("cycles")),
        "llc_miss_pct": 100 * _ratio(g("llc_misses"), g("llc_references")),
        "l1i_mpki": 1000 * _ratio(g("l1i_misses"), g("instructions")),
        "branch_mpki": 1000 * _ratio(g("branch_misses"), g("instructions")),
    }
    slots = g("slots")
    retiring = _ratio(g("slots_retired"), slots)
    bad = _ratio(g("slots_issued") - g("slots_retired") + g("recovery_bubbles"), slots)
    frontend = _ratio(g("fetch_bubbles"), slots)
    backend = 1 - retiring - bad - frontend
    out.update(
        {"td_retiring": retiring, "td_bad_speculation": bad, "td_frontend_bound": frontend, "td_backend_bound": backend}
    )
    # Paper 003's categories: frontend split into icache stalls and the rest (decoding),
    # backend into data-cache stalls and the rest (resources / dependencies).
    icache = min(_ratio(g("icache_stall_cycles"), g("cycles")), frontend) if not math.isnan(frontend) else math.nan
    dcache = min(_ratio(g("dcache_stall_cycles"), g("cycles")), backend) if not math.isnan(backend) else math.nan
    out.update(
        {
            "cat_retiring": retiring,
            "cat_branch_misprediction": bad,
            "cat_icache": icache,
            "cat_decoding": frontend - icache,
            "cat_dcache": dcache,
            "cat_resource": backend - dcache,
        }
    )
    imc = g("imc_reads") * BYTES_PER_COUNT["imc_reads"] + g("imc_writes") * BYTES_PER_COUNT["imc_writes"]
    link = g("link_data") * BYTES_PER_COUNT["link_data"]
    out.update({"imc_bytes": imc, "link_bytes": link, "link_per_imc": _ratio(link, imc)})
    return out
