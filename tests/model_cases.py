"""Hand-made model parameters and fixture topologies shared by the model's tests."""

from __future__ import annotations

from pathlib import Path

from islands.machine.topology import Topology, read_topology
from islands.model.parameters import Parameters

SYSFS = Path(__file__).resolve().parent / "fixtures" / "sysfs"


def fixture(name: str) -> Topology:
    """A made-up machine of tests/fixtures/sysfs."""
    return read_topology(SYSFS / name)


def hand_parameters(spread: float = 0.0, model_error: float = 0.0, **overrides: float) -> Parameters:
    """Round numbers: a single-threaded 10-row read costs 1 + 10 x 0.1 = 2 us, a 2PL one
    2 + 10 x 0.2 = 4 us, a second thread adds 50%, a distributed read 8 us per participant
    over unix (2 over shm), an update 16 (6), logging 1 us."""
    costs = {
        "local.micro.none.txn_us": 1.0,
        "local.micro.none.read.row_us": 0.1,
        "local.micro.none.update.row_us": 0.2,
        "local.micro.2pl.txn_us": 2.0,
        "local.micro.2pl.read.row_us": 0.2,
        "local.micro.2pl.update.row_us": 0.3,
        "local.contention_per_thread": 0.5,
        "log.update_us": 1.0,
        "distr.unix.read.participant_us": 8.0,
        "distr.unix.update.participant_us": 16.0,
        "distr.shm.read.participant_us": 2.0,
        "distr.shm.update.participant_us": 6.0,
        "message.unix.round_trip_us": 6.0,
        "message.shm.round_trip_us": 1.0,
        "local.tpcb.none.txn_us": 3.0,
        "local.tpcb.2pl.txn_us": 5.0,
        "memory.share": 0.5,
    }
    costs.update({k.replace("__", "."): v for k, v in overrides.items()})
    return Parameters(
        costs=costs,
        spread={k: spread for k in costs if k != "memory.share"} if spread else {},
        model_error=model_error,
        machine={"hostname": "hand-made", "ghz": 2.13},
    )
