"""Independent checks of a deployment's logs (tests only): what the logs say committed,
computed here from the raw records, to hold recovery and the acknowledgements against."""

from __future__ import annotations

import functools
from array import array
from dataclasses import dataclass, field
from pathlib import Path

from islands import _core


@functools.lru_cache(maxsize=2)
def _read_log_version(path: str, mtime_ns: int, size: int) -> dict:
    return _core.read_log(path)


def read_log(path: Path) -> dict:
    """``_core.read_log`` of ``path``, decoded once per version of the file: a trial's checks
    read each log several times, and a log of a few hundred thousand records takes a second or
    more to decode. The records are shared: do not change them."""
    stat = path.stat()
    return _read_log_version(str(path), stat.st_mtime_ns, stat.st_size)


def forget_logs() -> None:
    """Drops the logs read_log decoded (hundreds of megabytes for a long log)."""
    _read_log_version.cache_clear()


@dataclass
class Outcome:
    """What the logs of a deployment say about every transaction part."""

    committed: list[set[int]] = field(default_factory=list)  #: per instance: txn ids whose part there committed
    committed_rows: list[int] = field(default_factory=list)  #: per instance: row updates of those parts
    coordinated: dict[int, tuple[int, list[int]]] = field(default_factory=dict)  #: txn -> (coordinator, participants)
    prepared: list[dict[int, int]] = field(default_factory=list)  #: per instance: txn -> coordinator instance
    tail_notes: list[str] = field(default_factory=list)


def read_outcome(directory: Path, n_instances: int) -> Outcome:
    """Resolves every part as recovery must: local commits (after-images or commands) and
    coordinator decisions commit; a prepared part commits when its own log or its coordinator's
    decision says so."""
    logs = [read_log(directory / f"instance-{i}.log") for i in range(n_instances)]
    out = Outcome()
    decided: list[set[int]] = []
    for i, log in enumerate(logs):
        decided.append({r["txn"] for r in log["records"] if r["type"] == "decision_commit"})
        for r in log["records"]:
            if r["type"] == "decision_commit":
                out.coordinated[r["txn"]] = (i, list(r["participants"]))
    for log in logs:
        own: dict[int, bool] = {}
        for r in log["records"]:
            if r["type"] in ("commit_prepared", "abort_prepared"):
                own[r["txn"]] = r["type"] == "commit_prepared"
        committed, rows, prepared = set(), 0, {}
        for r in log["records"]:
            if r["type"] in ("commit", "decision_commit", "command"):
                committed.add(r["txn"])
                rows += r["rows"]
            elif r["type"] == "prepare":
                prepared[r["txn"]] = r["aux"]
                if own.get(r["txn"], r["txn"] in decided[r["aux"]]):
                    committed.add(r["txn"])
                    rows += r["rows"]
        out.committed.append(committed)
        out.committed_rows.append(rows)
        out.prepared.append(prepared)
        out.tail_notes.append(log["tail_note"])
    return out


#: The top 16 bits of a read-only transaction's entry in an acknowledgement record (no site has
#: this number); the LSN it waited for is below (kReadOnlyAckTag, exec/commit_pipeline.hpp).
READ_ONLY_ACK_TAG = 0xFFFF << 48


def _ack_entries(path: Path) -> array:
    data = path.read_bytes()
    values = array("Q")
    values.frombytes(data[: len(data) // 8 * 8])
    return values


def acknowledged(directory: Path) -> set[int]:
    """Every transaction id some worker wrote to its acknowledgement record (read-only
    transactions' entries apart: see read_only_dependencies)."""
    ids: set[int] = set()
    for path in directory.glob("acks-*.bin"):
        ids.update(v for v in _ack_entries(path) if v & READ_ONLY_ACK_TAG != READ_ONLY_ACK_TAG)
    return ids


def read_only_dependencies(directory: Path) -> dict[int, int]:
    """Per site: the highest LSN an acknowledged read-only transaction of that site waited for
    (the read-only rule of early lock release); sites with none are left out."""
    out: dict[int, int] = {}
    for path in directory.glob("acks-*.bin"):
        site = int(path.stem.split("-")[1])
        lsns = [v & ~READ_ONLY_ACK_TAG for v in _ack_entries(path) if v & READ_ONLY_ACK_TAG == READ_ONLY_ACK_TAG]
        if lsns:
            out[site] = max(lsns)
    return out


def log_end(directory: Path, instance: int) -> int:
    """The LSN just past the last valid record of an instance's log (what a restart keeps)."""
    log = read_log(directory / f"instance-{instance}.log")
    return int(log["base_lsn"]) + int(log["valid_bytes"])


def check_durability(directory: Path, n_instances: int) -> Outcome:
    """Asserts the invariants a crash must keep: every acknowledged commit is in the logs
    (committed on its coordinator), and every committed distributed transaction is committed
    on every participant it names (none visible on one instance and missing on another)."""
    out = read_outcome(directory, n_instances)
    everywhere = set().union(*out.committed)
    missing = acknowledged(directory) - everywhere
    assert not missing, f"{len(missing)} acknowledged commits are not in the logs, e.g. {sorted(missing)[:5]}"
    for txn, (coordinator, participants) in out.coordinated.items():
        for p in participants:
            assert txn in out.committed[p], (
                f"txn {txn:#x} committed by coordinator {coordinator} but not on participant {p}"
            )
    for i, prepared in enumerate(out.prepared):
        for txn, coordinator in prepared.items():
            if txn in out.committed[i]:
                assert txn in out.committed[coordinator], (
                    f"txn {txn:#x} committed on participant {i} but its coordinator {coordinator} has no decision"
                )
    return out
