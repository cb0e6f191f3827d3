"""Calibration: the model's parameters measured on this machine by short dedicated runs through
the engine's one run path (:func:`islands.execution.in_process.run` for one instance in this process,
:func:`islands.execution.launcher.run_deployment` for deployments), component by component.

What is run (each ``repetitions`` times, interleaved, so that a busy moment of the machine
spreads over all of them rather than biasing one):

- local microbenchmark transactions of 1 and 10 rows, read and update, on one worker, with
  ``cc = none`` and ``cc = 2pl``: a fixed cost per transaction and a cost per row for each
  (the straight line through the two sizes);
- the same 10-row transactions on one 2PL instance of two workers (two cores): what a second
  thread adds (``local.contention_per_thread``);
- a logged (group commit, on tmpfs) local update against an unlogged one, single-threaded
  (``log.update_us``) and under 2PL (``log.2pl.update_us``: its locks are held until the
  flush, so a worker's next transactions can conflict with its own commits in flight), and
  the log's mean flush time (``log.flush_us``, the simulation's group-commit delay);
- two single-threaded instances (per-core on two cores) at 0% and 100% multisite, read and
  update (updates logged, as 000's Fig 11 runs them), over each transport: what a
  distributed transaction adds per participant; their 0% update runs also give what an
  instance's log flusher takes from its workers (``log.flusher_us``: there every core runs a
  worker, while the single logged worker above left the second core to the flusher);
- the bytes a logged 10-row update appends (the log's statistics, ``log.bytes_per_commit``)
  and the log directory's write bandwidth (``log.write_mb_s``: 1 MiB writes, each synced, as
  the flusher writes a full buffer): together an instance's log throughput limit;
- each transport's bare round trip (a ping-pong of 64-byte messages between the two cores);
- unless ``quick``: local TPC-B AccountUpdate, TPC-C Payment and NewOrder, one worker, both
  CC modes (their standard settings with no remote share).

A cost is microseconds of worker time per committed transaction: the workers' CPU time per
commit where they never wait (local, unlogged runs in this process), else workers /
throughput. Each
parameter's ``spread`` is the relative standard error of its repetitions (propagated through
differences; robust: from the median absolute deviation); each measurement's value is its
least disturbed repetition (the least cost).
What this machine cannot measure (two cores for the distributed runs, a
transport) is left out and named in the parameters' notes.
"""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from islands.config.settings import (
    DriverConfig,
    EngineConfig,
    LogConfig,
    MicroConfig,
    RunConfig,
    TpcbConfig,
    TpccConfig,
)
from islands.experiments.progress import SweepProgress, choose_mode
from islands.machine.placement import Deployment, plan_deployment
from islands.machine.topology import Topology, read_topology
from islands.model.calibration import derive, flush_us, log_bytes_per_record
from islands.model.machine_profile import host_ghz
from islands.model.parameters import Parameters
from islands.model.predict import TRANSPORTS

__all__ = ["Measurement", "calibrate", "measure_throughput", "plan_measurements"]

#: Bytes of a ping-pong message (a 10-row fragment's keys are about this size).
PING_PAYLOAD = 64


@dataclass(frozen=True)
class Measurement:
    """One dedicated run: its name (what it measures), the deployment (its CPUs), the config,
    and the transport (``"none"``: one instance in this process; ``"ping:<t>"``: a bare round
    trip of transport ``t``)."""

    name: str
    deployment: Deployment
    config: RunConfig
    transport: str = "none"


def _config(
    settings: Any = None,
    cc: str = "none",
    duration_s: float = 0.5,
    warmup_s: float = 0.2,
    log: LogConfig | None = None,
) -> RunConfig:
    """A run of the workload whose settings ``settings`` are (default: the microbenchmark's defaults)."""
    return RunConfig.of(
        settings or MicroConfig(),
        engine=EngineConfig(cc=cc, lock_policy="no_wait"),
        driver=DriverConfig(warmup_s=warmup_s, duration_s=duration_s),
        log=log or LogConfig(),
    )


def plan_measurements(topology: Topology, quick: bool = False, duration_s: float | None = None) -> list[Measurement]:
    """The runs :func:`calibrate` makes on ``topology`` (one repetition of each)."""
    duration = duration_s if duration_s is not None else (0.15 if quick else 0.5)
    warmup = min(0.2, duration / 2)
    cpus = tuple(c.cpus[0] for c in topology.cores)[:2]
    one = Deployment(label="1ISL", instances=((cpus[0],),), placement="explicit")
    kw: dict[str, Any] = {"duration_s": duration, "warmup_s": warmup}
    out: list[Measurement] = []
    for cc in ("none", "2pl"):
        for op in ("read", "update"):
            for rows in (1, 10):
                micro = MicroConfig(rows_per_txn=rows, update=op == "update")
                out.append(Measurement(f"local.{cc}.{op}.{rows}", one, _config(micro, cc, **kw)))
    log_dir = _log_root()
    group = LogConfig(mode="group_commit", directory=log_dir)
    for cc in ("none", "2pl"):
        out.append(
            Measurement(
                f"log.{cc}.update.10", one, _config(MicroConfig(update=True), cc, log=group, **kw), transport="unix"
            )
        )
    out.append(Measurement("log.write", one, _config(**kw), transport="write"))
    if len(cpus) >= 2:
        both = Deployment(label="1ISL", instances=(cpus,), placement="explicit")
        for op in ("read", "update"):
            out.append(Measurement(f"se2.{op}", both, _config(MicroConfig(update=op == "update"), "2pl", **kw)))
        per_core = plan_deployment(topology, "per-core", cpus=cpus)
        for transport in TRANSPORTS:
            out.append(Measurement(f"ping.{transport}", per_core, _config(**kw), transport=f"ping:{transport}"))
            for op in ("read", "update"):
                for p in (0.0, 1.0):
                    micro = MicroConfig(update=op == "update", multisite=p)
                    log = group if op == "update" else None
                    name = f"distr.{transport}.{op}.{p:g}"
                    out.append(Measurement(name, per_core, _config(micro, "none", log=log, **kw), transport=transport))
    if not quick:
        for cc in ("none", "2pl"):
            out.append(Measurement(f"std.tpcb.{cc}", one, _config(TpcbConfig(remote=0.0), cc, **kw)))
            for txn, fam in (("payment", "tpcc-payment"), ("new_order", "tpcc-new_order")):
                tpcc = TpccConfig(mix=txn, payment_remote=0.0, new_order_remote_item=0.0, new_order_rollback=0.0)
                out.append(Measurement(f"std.{fam}.{cc}", one, _config(tpcc, cc, **kw)))
    return out


#: Bytes of each write of the bandwidth measurement (the log's default buffer) and how many.
WRITE_BLOCK = 1 << 20
WRITE_BLOCKS = 32


def _write_us_per_mib(directory: str, blocks: int = WRITE_BLOCKS) -> float:
    """Median µs to write and sync one MiB to a fresh file in ``directory`` (the log device)."""
    block = os.urandom(WRITE_BLOCK)
    fd, path = tempfile.mkstemp(prefix="islands-calibrate-write-", dir=directory)
    try:
        times = []
        for _ in range(blocks):
            started = time.perf_counter_ns()
            os.write(fd, block)
            os.fdatasync(fd)
            times.append((time.perf_counter_ns() - started) / 1e3)
        return statistics.median(times) * (1 << 20) / WRITE_BLOCK
    finally:
        os.close(fd)
        os.unlink(path)


def _log_root() -> str:
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


def _responder(transport: str, directory: str, cpu: int, round_trips: int) -> None:
    from islands import _core

    os.sched_setaffinity(0, {cpu})
    endpoint = _core.make_transport(transport, directory, 1, 2)
    endpoint.ping_pong(0, False, round_trips, PING_PAYLOAD)
    endpoint.close()


def _round_trip_us(transport: str, cpus: tuple[int, ...], round_trips: int) -> float:
    """Median round trip (µs) between the engine's transport endpoints on two cpus."""
    from islands import _core

    directory = tempfile.mkdtemp(prefix="islands-calibrate-", dir=_log_root())
    before = os.sched_getaffinity(0)
    try:
        child = multiprocessing.get_context("fork").Process(
            target=_responder, args=(transport, directory, cpus[1], round_trips)
        )
        child.start()
        os.sched_setaffinity(0, {cpus[0]})
        endpoint = _core.make_transport(transport, directory, 0, 2)
        times = endpoint.ping_pong(1, True, round_trips, PING_PAYLOAD)
        endpoint.close()
        child.join(30)
        return statistics.median(times) / 1e3
    finally:
        os.sched_setaffinity(0, before)
        shutil.rmtree(directory, ignore_errors=True)


def _measure(m: Measurement, topology: Topology) -> tuple[float, dict[str, Any]]:
    """Worker µs per committed transaction of one run (or a ping's round trip), and the
    result dict (empty for a ping).

    A run whose workers are never idle (local transactions of one instance, unlogged) costs
    its workers' CPU time per commit: that is what a transaction costs however often another
    process took the core meanwhile, which on a shared machine wall-clock time is not. A
    distributed or logged run waits (for votes, for flushes) and that wait is its cost: it is
    measured by wall-clock time, workers / throughput."""
    if m.transport == "write":
        return _write_us_per_mib(_log_root()), {}
    if m.transport.startswith("ping:"):
        return _round_trip_us(m.transport.split(":", 1)[1], m.deployment.cpus, 20_000), {}
    d = measure_throughput(m.deployment, m.config, m.transport, topology)
    tps = float(d["throughput_tps"])
    commits = sum(int(i["commits"]) for i in d["instances"])
    cpu_ns = sum(int(i.get("cpu_ns", 0)) for i in d["instances"])
    if m.transport == "none" and cpu_ns > 0 and commits > 0:
        return cpu_ns / commits / 1e3, d
    return (m.deployment.n_cpus / tps * 1e6 if tps > 0 else math.nan), d


def measure_throughput(deployment: Deployment, config: RunConfig, transport: str, topology: Topology) -> dict[str, Any]:
    """One run of ``config`` on ``deployment`` through the engine's run path: in this process
    (``transport`` ``"none"``, one instance, no log) or as a deployment of instance processes
    (a logged run gets a fresh log directory under ``config.log.directory``, removed after).
    Returns the result's dict."""
    m = Measurement("run", deployment, config, transport)
    config = dataclasses.replace(m.config, driver=dataclasses.replace(m.config.driver, cpus=m.deployment.cpus))
    if m.transport == "none":
        from islands.execution.in_process import run

        result = run(config, topology)
    else:
        from islands.execution.launcher import run_deployment

        if config.log.mode != "off":
            directory = tempfile.mkdtemp(prefix="islands-calibrate-log-", dir=config.log.directory)
            config = dataclasses.replace(config, log=dataclasses.replace(config.log, directory=directory))
        else:
            directory = ""
        try:
            result = run_deployment(m.deployment, config, transport=m.transport, topology=topology)
        finally:
            if directory:
                shutil.rmtree(directory, ignore_errors=True)
    return result.to_dict()


def machine_metadata(topology: Topology) -> dict[str, Any]:
    """The host metadata stored with the parameters: :func:`islands.measure.host_metadata.collect_metadata`,
    the clock and the topology's shape and distance table."""
    from islands.measure.host_metadata import collect_metadata

    meta = collect_metadata()
    meta["ghz"] = host_ghz()
    meta["topology"] = {
        "source": topology.source,
        "sockets": topology.n_sockets,
        "cores": topology.n_cores,
        "cpus": topology.n_cpus,
        "numa_nodes": topology.n_numa_nodes,
        "distances": [list(r) for r in topology.distances],
    }
    return meta


def calibrate(
    topology: Topology | None = None,
    *,
    quick: bool = False,
    repetitions: int | None = None,
    duration_s: float | None = None,
    progress: bool | str | None = None,
    on_run: Callable[[str, float], None] | None = None,
) -> Parameters:
    """Measures the model's parameters on this machine (module docstring) and returns them.
    ``quick``: shorter runs, one repetition, no standard workloads (tests). ``progress`` as
    :func:`islands.experiments.progress.choose_mode`."""
    topology = topology or read_topology()
    reps = repetitions if repetitions is not None else (1 if quick else 3)
    if reps < 1:
        raise ValueError(f"repetitions: {reps!r} is not >= 1")
    plan = plan_measurements(topology, quick=quick, duration_s=duration_s)
    samples: dict[str, list[float]] = {m.name: [] for m in plan}
    notes: list[str] = []
    if topology.n_cores < 2:
        notes.append("one core: no distributed, contention or round-trip measurements")
    with SweepProgress(choose_mode(progress), len(plan) * reps, 0, label="calibrate") as bar:
        for rep in range(reps):
            for m in plan:
                bar.describe(m.name)
                started = time.monotonic()
                cost, result = _measure(m, topology)
                samples[m.name].append(cost)
                flush = flush_us(result)
                if m.name.startswith("log.") and flush == flush:
                    samples.setdefault("flush", []).append(flush)
                if m.name == "log.none.update.10":
                    samples.setdefault("log.bytes", []).append(log_bytes_per_record(result))
                run_s = time.monotonic() - started
                if not result:
                    result = {"throughput_tps": math.nan}
                bar.finished(f"{m.name} rep {rep}", result, run_s)
                if on_run is not None:
                    on_run(m.name, cost)
    costs, spread, derived_notes = derive(samples, topology)
    meta = machine_metadata(topology)
    meta["calibration"] = {"quick": quick, "repetitions": reps, "runs": dict(samples)}
    return Parameters(costs=costs, spread=spread, machine=meta, notes=tuple(notes + derived_notes))
