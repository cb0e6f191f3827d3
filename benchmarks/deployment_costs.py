"""What distribution costs: the transports' round trip against a bare ping-pong between the
same two cores, and a distributed transaction against a local one (read and update).

Prints; asserts nothing. Target: the engine's shared-memory transport within 1.5x of the bare
shared-memory ping-pong (bench ipc's ring).

    python benchmarks/deployment_costs.py [--round-trips N] [--duration S]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import tempfile

from _runner import Runner
from islands import _core
from islands.analysis.verdicts import ratio_label
from islands.config.settings import DriverConfig, EngineConfig, MicroConfig, RunConfig
from islands.execution.launcher import run_deployment
from islands.machine.placement import plan_deployment
from islands.machine.topology import read_topology

BARE = {"shm": "shm_ring", "unix": "unix_seqpacket"}


def _responder(transport: str, directory: str, cpu: int, round_trips: int, payload: int) -> None:
    os.sched_setaffinity(0, {cpu})
    endpoint = _core.make_transport(transport, directory, 1, 2)
    endpoint.ping_pong(0, False, round_trips, payload)
    endpoint.close()


def transport_round_trip(transport: str, cpus: tuple[int, int], round_trips: int, payload: int) -> float:
    """Median round trip in microseconds through the engine's transport endpoints."""
    directory = tempfile.mkdtemp(prefix="islands-bench-", dir="/dev/shm" if os.access("/dev/shm", os.W_OK) else None)
    try:
        child = multiprocessing.get_context("fork").Process(
            target=_responder, args=(transport, directory, cpus[1], round_trips, payload)
        )
        child.start()
        os.sched_setaffinity(0, {cpus[0]})
        endpoint = _core.make_transport(transport, directory, 0, 2)
        times = endpoint.ping_pong(1, True, round_trips, payload)
        endpoint.close()
        child.join(30)
        return statistics.median(times) / 1e3
    finally:
        os.sched_setaffinity(0, set(read_topology().cpus))
        shutil.rmtree(directory, ignore_errors=True)


def bare_round_trip(mechanism: str, cpus: tuple[int, int], payload: int, duration: float) -> float:
    """Median round trip in microseconds of bench ipc's bare ping-pong."""
    cfg = _core.IpcBenchConfig()
    cfg.mechanism, cfg.client_cpu, cfg.server_cpu = mechanism, cpus[0], cpus[1]
    cfg.message_bytes, cfg.warmup_s, cfg.duration_s = max(payload, 1), 0.2, duration
    return _core.run_ipc_bench(cfg)["round_trip"]["p50_ns"] / 1e3


RUNNER = Runner(__file__, __doc__, duration=2.0)
RUNNER.parser.add_argument("--round-trips", type=int, default=100_000)


def main(args: argparse.Namespace) -> None:
    topology = read_topology()
    cpus = topology.cpus[:2]
    payload = 64  # a 10-row read fragment's keys are about this size
    print(f"round trip between cpus {cpus[0]} and {cpus[1]}, {payload}-byte payload (median)")
    for transport, mechanism in BARE.items():
        engine = transport_round_trip(transport, cpus, args.round_trips, payload)
        bare = bare_round_trip(mechanism, cpus, payload, args.duration)
        RUNNER.record("round trip, engine transport", engine, unit="us", transport=transport)
        RUNNER.record("round trip, bare", bare, unit="us", mechanism=mechanism)
        print(
            f"  {transport:5} engine transport {engine:7.2f} us   bare {mechanism:15} {bare:7.2f} us   "
            f"ratio {ratio_label([engine], [bare], digits=2)}"
        )
    print("\ntime per transaction, 2 single-threaded instances (per-core), 10 rows")
    deployment = plan_deployment(topology, "per-core", cpus=cpus)
    for transport in BARE:
        for update in (False, True):
            costs = {}
            for multisite in (0.0, 1.0):
                cfg = RunConfig(
                    micro=MicroConfig(update=update, multisite=multisite),
                    engine=EngineConfig(cc="none", lock_policy="no_wait"),
                    driver=DriverConfig(warmup_s=0.5, duration_s=args.duration),
                )
                result = run_deployment(deployment, cfg, transport=transport, topology=topology)
                costs[multisite] = (deployment.n_cpus / result.throughput_tps * 1e6, result.latency.p50_us)
            (local, local_p50), (dist, dist_p50) = costs[0.0], costs[1.0]
            RUNNER.record("time per transaction", local, unit="us", transport=transport, update=update, multisite=0.0)
            RUNNER.record("time per transaction", dist, unit="us", transport=transport, update=update, multisite=1.0)
            print(
                f"  {transport:5} {'update' if update else 'read':6}  local {local:6.2f} us/txn "
                f"(p50 {local_p50:5.2f})   distributed {dist:6.2f} us/txn (p50 {dist_p50:6.2f})   "
                f"distributed / local {ratio_label([dist], [local])}"
            )


if __name__ == "__main__":
    RUNNER.run(main)
