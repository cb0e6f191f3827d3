"""A whole benchmark from Python: its points and the result store.

Each ``bench_*`` function runs every point and repetition, appends each row to the store as
soon as it is measured (an interrupted run keeps what it finished) and returns a
:class:`BenchOutcome`. Drawing is the plots' job: :func:`islands.plots.bench_figures.draw_bench` makes
the figures from the stored rows. The CLI (``islands bench``) is a thin layer over both.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from islands import _core
from islands.analysis.store import ResultStore
from islands.bench.common import open_store, spread_stats
from islands.bench.counters import GRANULARITIES, LOCK_KINDS, PLACEMENTS, CounterBenchConfig, counter_plan, run_counters
from islands.bench.ipc import MECHANISMS, CpuPair, default_cpu_pairs, ipc_points, run_ipc, unavailable_row
from islands.bench.placement_bench import (
    POLICIES,
    PlacementBenchConfig,
    default_threads,
    placement_run_config,
    run_placement,
)
from islands.execution.stop_signals import signals_deferred
from islands.machine.topology import Topology
from islands.measure.host_metadata import collect_metadata

__all__ = ["BenchOutcome", "bench_counters", "bench_ipc", "bench_placement", "summarize"]

Progress = Callable[[str], None]


@dataclass
class BenchOutcome:
    """What one benchmark produced."""

    name: str  #: "ipc", "counters" or "placement"
    directory: Path  #: the result store's directory
    rows: pd.DataFrame  #: every row, as stored (flattened columns)
    notes: list[str] = field(default_factory=list)  #: what the reader should know (1 socket, ...)
    warnings: list[str] = field(default_factory=list)  #: cases this machine could not run


def _quiet(_: str) -> None:
    pass


def _load_1m() -> float:
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def _finish_row(row: dict[str, Any], topology: Topology, metadata: dict[str, Any], load: float) -> dict[str, Any]:
    # The host's load just before the run: on a shared machine it explains a noisy point.
    row["host_load_1m"] = load
    row["topology"] = topology.to_dict()
    row["metadata"] = metadata
    return row


def _store(store: ResultStore, row: dict[str, Any]) -> None:
    """Stores one run's row; a Ctrl-C as pyarrow writes it is held back until it is written
    (pyarrow can swallow the KeyboardInterrupt: islands.execution.stop_signals.signals_deferred)."""
    with signals_deferred():
        store.append([row])


def _manifest(
    name: str, figure: str, settings: dict[str, Any], topology: Topology, metadata: dict[str, Any], notes: list[str]
) -> dict[str, Any]:
    return {
        "bench": name,
        "figure": figure,
        "settings": settings,
        "notes": notes,
        "topology": topology.to_dict(),
        "metadata": metadata,
        "argv": sys.argv,
    }


def bench_ipc(
    topology: Topology,
    *,
    mechanisms: Sequence[str] | None = None,
    pairs: Sequence[CpuPair] | None = None,
    message_bytes: int = 256,
    warmup_s: float = 0.2,
    duration_s: float = 1.0,
    round_trips: int = 0,
    repetitions: int = 1,
    seed: int = 1,
    out: str | Path | None = None,
    progress: Progress = _quiet,
) -> BenchOutcome:
    """000 Fig 2: every mechanism on every CPU pair (default: :func:`default_cpu_pairs`)."""
    mechanisms = list(mechanisms or MECHANISMS)
    pairs = list(pairs or default_cpu_pairs(topology))
    if message_bytes <= 0:
        raise ValueError(f"size: {message_bytes} is not a message size in bytes >= 1")
    if repetitions < 1:
        raise ValueError(f"reps: {repetitions} is not a number of repetitions >= 1")
    points = ipc_points(
        mechanisms,
        pairs,
        repetitions,
        message_bytes=message_bytes,
        warmup_s=warmup_s,
        duration_s=duration_s,
        round_trips=round_trips,
        seed=seed,
    )
    for config, _, _ in points[:1]:
        config.to_core()  # bad settings fail before anything is created
    notes = [
        "each round trip is a blocking ping-pong: the receiver sleeps in the kernel and is woken per message "
        "(the shared-memory ring's spins instead); the engine's transports poll without sleeping, so 'islands "
        "calibrate' reads a shorter round trip (message.*.round_trip_us) over the same unix socket"
    ]
    if topology.n_sockets == 1:
        notes.append("1 socket on this machine: no cross-socket pair")
    metadata = collect_metadata()
    settings = {
        "mechanisms": mechanisms,
        "pairs": [vars(p) for p in pairs],
        "message_bytes": message_bytes,
        "warmup_s": warmup_s,
        "duration_s": duration_s,
        "round_trips": round_trips,
        "repetitions": repetitions,
        "seed": seed,
    }
    store = open_store(out, "ipc", _manifest("ipc", "000-fig2", settings, topology, metadata, notes))
    warnings: list[str] = []
    for i, (config, pair, rep) in enumerate(points):
        progress(f"[{i + 1}/{len(points)}] {config.mechanism} on {pair.label}")
        load = _load_1m()
        try:
            row = run_ipc(config, pair, rep)
        except _core.CapabilityMissing as error:
            warnings.append(str(error))  # the message names the mechanism
            row = unavailable_row(config, pair, rep, str(error))
        _store(store, _finish_row(row, topology, metadata, load))
    return BenchOutcome("ipc", store.directory, store.rows(), notes=notes, warnings=warnings)


def bench_counters(
    topology: Topology,
    *,
    locks: Sequence[str] | None = None,
    granularities: Sequence[str] | None = None,
    placements: Sequence[str] | None = None,
    threads: int = 0,
    warmup_s: float = 0.1,
    duration_s: float = 0.5,
    increments_per_thread: int = 0,
    repetitions: int = 3,
    out: str | Path | None = None,
    progress: Progress = _quiet,
) -> BenchOutcome:
    """000 Fig 5 and 7: every lock kind x granularity x placement, ``repetitions`` times."""
    locks = list(locks or LOCK_KINDS)
    granularities = list(granularities or GRANULARITIES)
    placements = list(placements or PLACEMENTS)
    if repetitions < 1:
        raise ValueError(f"reps: {repetitions} is not a number of repetitions >= 1")
    configs = [
        CounterBenchConfig(
            lock=k,
            granularity=g,
            placement=p,
            threads=threads,
            warmup_s=warmup_s,
            duration_s=duration_s,
            increments_per_thread=increments_per_thread,
        )
        for g in granularities
        for p in placements
        for k in locks
    ]
    for c in configs:
        counter_plan(c, topology)  # every point fits before the first runs
    notes = []
    if topology.n_sockets == 1:
        notes.append(
            "1 socket on this machine: spread and grouped pin the same CPUs, and one counter per socket is one counter"
        )
    metadata = collect_metadata()
    settings = {
        "locks": locks,
        "granularities": granularities,
        "placements": placements,
        "threads": threads or topology.n_cores,
        "warmup_s": warmup_s,
        "duration_s": duration_s,
        "increments_per_thread": increments_per_thread,
        "repetitions": repetitions,
    }
    store = open_store(out, "counters", _manifest("counters", "000-fig5/fig7", settings, topology, metadata, notes))
    n = len(configs) * repetitions
    i = 0
    for rep in range(repetitions):  # repetitions outermost: drift hits every point alike
        for c in configs:
            i += 1
            progress(f"[{i}/{n}] {c.lock}, one counter per {c.granularity}, {c.placement} threads")
            load = _load_1m()
            _store(store, _finish_row(run_counters(c, topology, rep), topology, metadata, load))
    return BenchOutcome("counters", store.directory, store.rows(), notes=notes)


def bench_placement(
    topology: Topology,
    *,
    policies: Sequence[str] | None = None,
    threads: int = 0,
    rows_per_txn: int = 10,
    rows_per_site: int = 10_000,
    update: bool = True,
    warmup_s: float = 0.5,
    duration_s: float = 1.0,
    repetitions: int = 5,
    seed: int = 1,
    out: str | Path | None = None,
    progress: Progress = _quiet,
) -> BenchOutcome:
    """000 Fig 6: the same short OLTP run with its workers placed by each policy."""
    policies = list(policies or POLICIES)
    if repetitions < 1:
        raise ValueError(f"reps: {repetitions} is not a number of repetitions >= 1")
    configs = [
        PlacementBenchConfig(
            policy=p,
            threads=threads,
            rows_per_txn=rows_per_txn,
            rows_per_site=rows_per_site,
            update=update,
            warmup_s=warmup_s,
            duration_s=duration_s,
            seed=seed,
        )
        for p in policies
    ]
    for c in configs:
        placement_run_config(c, topology).to_core()  # bad settings fail before anything runs
    n_threads = threads or default_threads(topology)
    notes = []
    if topology.n_sockets == 1:
        notes.append("1 socket on this machine: spread, grouped and mixed pin the same CPUs")
    elif n_threads >= topology.n_cores:
        notes.append(
            f"{n_threads} workers on {topology.n_cores} cores: spread, grouped and mixed use "
            "the same CPUs in another order (--threads below the core count separates them)"
        )
    metadata = collect_metadata()
    settings = {
        "policies": policies,
        "threads": n_threads,
        "rows_per_txn": rows_per_txn,
        "rows_per_site": rows_per_site,
        "update": update,
        "warmup_s": warmup_s,
        "duration_s": duration_s,
        "repetitions": repetitions,
        "seed": seed,
    }
    store = open_store(out, "placement", _manifest("placement", "000-fig6", settings, topology, metadata, notes))
    n = len(configs) * repetitions
    i = 0
    for rep in range(repetitions):
        for c in configs:
            i += 1
            progress(f"[{i}/{n}] {c.policy}, {n_threads} workers, repetition {rep + 1}")
            load = _load_1m()
            _store(store, _finish_row(run_placement(c, topology, rep), topology, metadata, load))
    return BenchOutcome("placement", store.directory, store.rows(), notes=notes)


def summarize(rows: pd.DataFrame, by: Sequence[str], value: str) -> pd.DataFrame:
    """One line per group of ``by``: mean, sd, min, max and n of ``value`` over repetitions,
    groups in the order they first appear."""
    out = []
    for key, group in rows.groupby(list(by), sort=False):
        key = key if isinstance(key, tuple) else (key,)
        out.append(dict(zip(by, key), **spread_stats(group[value])))
    return pd.DataFrame(out)
