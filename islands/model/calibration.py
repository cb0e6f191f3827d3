"""Calibration's arithmetic: the model's parameters derived from the samples that the
calibration runs measured (:mod:`islands.bench.calibration_runs`, which says what is run and
how). Pure: nothing here runs the engine."""

from __future__ import annotations

import math
import statistics
from typing import Any

from islands.machine.topology import Topology
from islands.model.parameters import DEFAULT_MEMORY_SHARE
from islands.model.predict import TRANSPORTS
from islands.model.workload_spec import KINDS, ModelWorkload, participants

__all__ = ["derive", "flush_us", "log_bytes_per_record"]


def log_bytes_per_record(result: dict[str, Any]) -> float:
    """Mean bytes of a log record over a run's instances (a local commit appends one record);
    NaN where nothing was logged."""
    records = sum(int(i.get("log", {}).get("records", 0)) for i in result.get("instances", []))
    written = sum(int(i.get("log", {}).get("bytes", 0)) for i in result.get("instances", []))
    return written / records if records else math.nan


def flush_us(result: dict[str, Any]) -> float:
    """Mean time of one log flush (µs) over a run's instances; NaN where nothing was flushed."""
    flushes = sum(int(i.get("log", {}).get("flushes", 0)) for i in result.get("instances", []))
    flush_ns = sum(int(i.get("log", {}).get("flush_ns", 0)) for i in result.get("instances", []))
    return flush_ns / flushes / 1e3 if flushes else math.nan


class _Stats:
    """Each measurement's value over its repetitions and its standard error, and derived
    values with their errors propagated (independent errors, added in quadrature).

    The value is the least cost of the repetitions: on a shared machine other processes only
    ever add to a run's cost, so the least disturbed repetition is the best estimate of what
    the machine does (as ``timeit`` takes the minimum). The error is the standard error from
    the repetitions' median absolute deviation (x 1.4826, the normal's sd), so that one
    repetition a busy moment multiplied does not make the parameter look unknown."""

    def __init__(self, samples: dict[str, list[float]]) -> None:
        self.value: dict[str, float] = {}
        self.err: dict[str, float] = {}
        for name, xs in samples.items():
            xs = [x for x in xs if x == x]
            self.value[name] = min(xs) if xs else math.nan
            if len(xs) > 1:
                mid = statistics.median(xs)
                mad = statistics.median(abs(x - mid) for x in xs)
                self.err[name] = 1.4826 * mad / math.sqrt(len(xs))
            else:
                self.err[name] = 0.0

    def has(self, *names: str) -> bool:
        return all(n in self.value and self.value[n] == self.value[n] for n in names)

    def lin(self, terms: dict[str, float]) -> tuple[float, float]:
        """sum(coef * value) and its standard error."""
        value = sum(c * self.value[n] for n, c in terms.items())
        err = math.sqrt(sum((c * self.err[n]) ** 2 for n, c in terms.items()))
        return value, err


#: What a calibrated round trip is, beside ``islands bench ipc``'s (which times another thing).
ROUND_TRIP_NOTE = (
    "message.{transport}.round_trip_us: the engine's own transport endpoints on two cores, each polling "
    "without sleeping (non-blocking receives: no kernel wake-up), 64-byte messages, median of 20,000 round "
    "trips; 'islands bench ipc' times a blocking ping-pong (each receive sleeps in the kernel and is woken), "
    "so its unix socket round trip adds a wake-up on each side and reads several times longer"
)


def derive(samples: dict[str, list[float]], topology: Topology) -> tuple[dict[str, float], dict[str, float], list[str]]:
    """The parameters' costs, relative spreads and notes from the repetitions of each
    measurement (``samples``: name -> costs in µs)."""
    s = _Stats(samples)
    costs: dict[str, float] = {}
    spread: dict[str, float] = {}
    notes: list[str] = []

    def put(key: str, value_err: tuple[float, float], floor: float = 0.0) -> None:
        value, err = value_err
        if value != value:
            return
        if value < floor:
            notes.append(f"{key}: measured {value:.3g}, below {floor:g}; clamped (noise)")
            value = floor
        costs[key] = value
        spread[key] = err / value if value > 0 else 0.0

    for cc in ("none", "2pl"):
        fixed = []
        for op in ("read", "update"):
            a, b = f"local.{cc}.{op}.1", f"local.{cc}.{op}.10"
            if s.has(a, b):
                put(f"local.micro.{cc}.{op}.row_us", s.lin({b: 1 / 9, a: -1 / 9}), floor=0.001)
                fixed.append(s.lin({a: 10 / 9, b: -1 / 9}))
        if fixed:
            value = statistics.fmean(v for v, _ in fixed)
            err = math.sqrt(sum(e**2 for _, e in fixed)) / len(fixed)
            put(f"local.micro.{cc}.txn_us", (value, err), floor=0.001)
    shares = []
    for op in ("read", "update"):
        se, one = f"se2.{op}", f"local.2pl.{op}.10"
        if s.has(se, one):
            ratio = s.value[se] / s.value[one]
            rel = math.hypot(s.err[se] / s.value[se], s.err[one] / s.value[one])
            shares.append((ratio - 1.0, ratio * rel))
    if shares:
        value = statistics.fmean(v for v, _ in shares)
        put("local.contention_per_thread", (value, math.sqrt(sum(e**2 for _, e in shares)) / len(shares)))
    if s.has("log.none.update.10", "local.none.update.10"):
        put("log.update_us", s.lin({"log.none.update.10": 1, "local.none.update.10": -1}))
    if s.has("flush"):
        put("log.flush_us", s.lin({"flush": 1}))
    if s.has("log.2pl.update.10", "local.2pl.update.10"):
        put("log.2pl.update_us", s.lin({"log.2pl.update.10": 1, "local.2pl.update.10": -1}))
    # The flusher's share: a logged single-threaded instance on a core of its own (per-core, 0%
    # multisite: its flusher shares that core) against the same on a machine with a free core.
    shared = [f"distr.{t}.update.0" for t in TRANSPORTS if s.has(f"distr.{t}.update.0")]
    if shared and s.has("log.none.update.10"):
        terms = {name: 1 / len(shared) for name in shared}
        terms["log.none.update.10"] = -1.0
        put("log.flusher_us", s.lin(terms), floor=0.0)
    if s.has("log.bytes"):
        put("log.bytes_per_commit", s.lin({"log.bytes": 1}))
    if s.has("log.write"):
        us, err = s.lin({"log.write": 1})
        if us > 0:
            put("log.write_mb_s", ((1 << 20) / us, (1 << 20) / us * err / us))
    per_core = [1, 1]
    for transport in TRANSPORTS:
        if s.has(f"ping.{transport}"):
            put(f"message.{transport}.round_trip_us", s.lin({f"ping.{transport}": 1}))
            notes.append(ROUND_TRIP_NOTE.format(transport=transport))
        for op in ("read", "update"):
            one_, zero = f"distr.{transport}.{op}.1", f"distr.{transport}.{op}.0"
            if s.has(one_, zero):
                p_dist, m = participants(ModelWorkload(f"micro-{op}", multisite=1.0), per_core, 0)
                put(
                    f"distr.{transport}.{op}.participant_us",
                    s.lin({one_: 1 / (p_dist * m), zero: -1 / (p_dist * m)}),
                    floor=0.001,
                )
    for fam in sorted({k.family for k in KINDS.values() if not k.per_row}):
        for cc in ("none", "2pl"):
            if s.has(f"std.{fam}.{cc}"):
                put(f"local.{fam}.{cc}.txn_us", s.lin({f"std.{fam}.{cc}": 1}))
    costs["memory.share"] = DEFAULT_MEMORY_SHARE
    notes.append(
        f"memory.share {DEFAULT_MEMORY_SHARE}: assumed (remote memory cannot be measured on "
        f"{topology.n_numa_nodes} NUMA node{'s' if topology.n_numa_nodes != 1 else ''})"
        if topology.n_numa_nodes == 1
        else f"memory.share {DEFAULT_MEMORY_SHARE}: assumed"
    )
    return costs, spread, notes
