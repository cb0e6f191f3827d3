"""What the hardware microbenchmarks share: result directories, row identity, summaries.

Each benchmark writes its results the way a sweep does: a :class:`~islands.analysis.store.ResultStore`
(Parquet part files under ``rows/`` and ``manifest.json``) in ``results/bench-<name>-<UTC timestamp>/`` unless
``--out`` says otherwise, one row per measured point and repetition, each row carrying its
full config, the config's hash, the topology and the host metadata.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from islands.analysis.store import ResultStore
from islands.machine.topology import Topology, format_cpulist

__all__ = [
    "check_online",
    "config_hash",
    "default_out_dir",
    "machine_line",
    "open_store",
    "parse_choices",
    "parse_cpu_pair",
    "spread_stats",
]


def config_hash(config: dict[str, Any]) -> str:
    """Stable 16-hex-digit hash of a config dict's canonical JSON form (as RunConfig's)."""
    canonical = json.dumps(config, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def default_out_dir(name: str, now: datetime.datetime | None = None) -> Path:
    """``results/bench-<name>-<UTC timestamp>`` (relative to the working directory)."""
    now = now or datetime.datetime.now(datetime.UTC)
    return Path("results") / f"bench-{name}-{now.strftime('%Y%m%dT%H%M%SZ')}"


def open_store(out: str | Path | None, name: str, manifest: dict[str, Any]) -> ResultStore:
    """Creates the result directory (refusing one that already holds rows, so that two runs
    never mix) and writes the manifest; raises ValueError naming the directory otherwise."""
    store = ResultStore(out if out is not None else default_out_dir(name))
    if store.has_rows():
        raise ValueError(f"--out: {store.directory} already holds results; choose another directory")
    try:
        store.create(manifest)
    except OSError as error:
        raise ValueError(f"--out: cannot write to {store.directory}: {error.strerror}") from None
    return store


def parse_choices(text: str | Sequence[str] | None, choices: Sequence[str], what: str, noun: str) -> list[str]:
    """A comma-separated list (or a sequence) of names, each one of ``choices``, in the order
    given and without repeats; ``None`` means all of them. Raises ValueError naming the option
    (``what``), the bad name (a ``noun``) and the choices."""
    if text is None:
        return list(choices)
    items = [t.strip() for t in text.split(",")] if isinstance(text, str) else [str(t) for t in text]
    out: list[str] = []
    for item in items:
        if item not in choices:
            raise ValueError(f"{what}: unknown {noun} {item!r} (choose {', '.join(choices)})")
        if item not in out:
            out.append(item)
    if not out:
        raise ValueError(f"{what}: give at least one of {', '.join(choices)}")
    return out


def spread_stats(values: Iterable[float]) -> dict[str, float]:
    """Mean, sample standard deviation, min, max and count of the finite values (NaN when
    there are none; the deviation is NaN with fewer than two)."""
    xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    nan = float("nan")
    if not xs:
        return {"mean": nan, "sd": nan, "min": nan, "max": nan, "n": 0}
    return {
        "mean": statistics.fmean(xs),
        "sd": statistics.stdev(xs) if len(xs) > 1 else nan,
        "min": min(xs),
        "max": max(xs),
        "n": len(xs),
    }


def parse_cpu_pair(text: str, topology: Topology) -> tuple[int, int]:
    """``"A,B"`` -> (A, B), two online CPUs of ``topology`` (they may be equal)."""
    try:
        cpus = [int(t) for t in text.split(",")]
    except ValueError:
        raise ValueError(f"cpus: {text!r} is not a pair of CPU numbers like 0,1") from None
    if len(cpus) != 2:
        raise ValueError(f"cpus: {text!r} is not a pair of CPU numbers like 0,1")
    check_online(cpus, topology, "cpus")
    return cpus[0], cpus[1]


def check_online(cpus: Iterable[int], topology: Topology, field: str) -> None:
    """Raises ValueError naming the first CPU that ``topology`` does not have online."""
    online = set(topology.cpus)
    for cpu in cpus:
        if cpu not in online:
            raise ValueError(
                f"{field}: CPU {cpu} does not exist or is offline (online: {format_cpulist(topology.cpus)})"
            )


def machine_line(topology: Topology) -> str:
    """``"1 socket, 2 cores, 2 cpus"`` for figure titles."""
    s = "socket" if topology.n_sockets == 1 else "sockets"
    return f"{topology.n_sockets} {s}, {topology.n_cores} cores, {topology.n_cpus} cpus"
