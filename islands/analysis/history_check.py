"""Checks what a run's concurrency control promised against what its transactions did.

A run with ``engine.record_history`` returns, per instance, every committed transaction (or
part of a distributed one) with the rows it read and the version it read, and the rows it
wrote with the version it overwrote (``RunResult.history``; the encoding is the engine's
``txn/txn_history.hpp``). A row's version is the id of the transaction that wrote it (0: as
loaded), and a distributed transaction's parts share its id, so the parts of every instance
form one history. From it :func:`check_history` builds the direct serialization graph (Adya):

- ``ww``: the writer of the version a transaction overwrote, to that transaction;
- ``wr``: the writer of the version a transaction read, to that reader;
- ``rw``: a reader of a version, to the transaction that overwrote that version;

and reports what the isolation level forbids: for ``serializable`` any cycle (G2, with G0 and
G1c in it); for ``read_committed`` and ``snapshot`` a cycle of ww and wr edges only (G1c); for
all, reads of a version no committed transaction wrote (G1a, an aborted read), dirty reads (a
version read before its writer committed: each part carries its commit number in its instance
and each read the instance's commit count when it read) and a version overwritten by two
transactions (a lost update). Reads are recorded as a scheme grants them, so predicates
(phantoms) are not checked: rows a lookup did not find leave no trace.

Snapshot isolation (``engine.cc = "mvcc"``) records on one clock per instance: a part's commit
number is its commit timestamp and each read's ``seen`` is its snapshot's read timestamp. What
SI promises is then checked per instance: every read of a part has the same read timestamp (one
snapshot), reads the newest version committed at or before it (``snapshot_reads`` counts those
that do not; one committed after it counts as a dirty read), and no version is overwritten
twice (the lost update first-committer-wins prevents). A cycle through rw edges (write skew) is
allowed under SI: it is reported as ``allowed_cycle``, not as a violation. Across instances
(2PC) each part reads its own instance's snapshot, so these checks are per instance too: a
distributed transaction may see another one's effects at one instance and not yet at another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

__all__ = ["History", "HistoryReport", "check_history", "parse_history"]

#: What each level forbids of those the checker can see.
ISOLATION_LEVELS = ("serializable", "read_committed", "snapshot")


@dataclass(frozen=True)
class History:
    """The committed transactions of a run: their ids, their parts (``txn, instance, number``:
    commit number in the instance) and their reads and writes as tables with columns ``txn,
    instance, row, version`` (version read, or version overwritten), reads with ``seen`` (the
    instance's commit count when the version was read)."""

    txns: np.ndarray  #: distinct committed transaction ids (uint64)
    reads: pd.DataFrame
    writes: pd.DataFrame
    part_table: pd.DataFrame

    @property
    def parts(self) -> int:
        """Committed parts recorded (a distributed transaction has one per instance)."""
        return len(self.part_table)


def parse_history(buffers: Sequence[bytes | None]) -> History:
    """The history of a run from each instance's recorded bytes (``RunResult.history``, in
    instance order: the word counts of three streams, then per committed part ``txn, commit
    number, reads, writes``, per read ``row, version, commits seen``, per write ``row,
    version``). Raises ValueError for a truncated or inconsistent history."""
    u64, i64 = np.uint64, np.int64
    parts, reads, writes = [], [], []
    for instance, buffer in enumerate(buffers):
        if not buffer:
            continue
        where = f"history of instance {instance}"
        if len(buffer) % 8:
            raise ValueError(f"{where}: {len(buffer)} bytes is not a whole number of words")
        array = np.frombuffer(buffer, dtype=np.uint64)
        if len(array) < 3:
            raise ValueError(f"{where}: the stream sizes are cut short")
        sizes = [int(n) for n in array[:3]]
        if sizes[0] % 4 or sizes[1] % 3 or sizes[2] % 2 or 3 + sum(sizes) != len(array):
            raise ValueError(f"{where}: streams of {sizes} words do not fill its {len(array) - 3} words")
        head = array[3 : 3 + sizes[0]].reshape(-1, 4)
        read = array[3 + sizes[0] : 3 + sizes[0] + sizes[1]].reshape(-1, 3)
        write = array[3 + sizes[0] + sizes[1] :].reshape(-1, 2)
        n_reads, n_writes = head[:, 2].astype(np.int64), head[:, 3].astype(np.int64)
        if n_reads.sum() != len(read) or n_writes.sum() != len(write):
            raise ValueError(f"{where}: its parts count other reads and writes than it holds")
        parts.append(pd.DataFrame({"txn": head[:, 0], "instance": instance, "number": head[:, 1]}))
        reads.append(
            pd.DataFrame(
                {
                    "txn": np.repeat(head[:, 0], n_reads),
                    "instance": instance,
                    "row": read[:, 0],
                    "version": read[:, 1],
                    "seen": read[:, 2],
                }
            )
        )
        writes.append(
            pd.DataFrame(
                {
                    "txn": np.repeat(head[:, 0], n_writes),
                    "instance": instance,
                    "row": write[:, 0],
                    "version": write[:, 1],
                    "number": np.repeat(head[:, 1], n_writes),
                }
            )
        )
    part_table = _frame(parts, {"txn": u64, "instance": i64, "number": u64})
    return History(
        txns=np.unique(part_table.txn.to_numpy()),
        reads=_frame(reads, {"txn": u64, "instance": i64, "row": u64, "version": u64, "seen": u64}),
        writes=_frame(writes, {"txn": u64, "instance": i64, "row": u64, "version": u64, "number": u64}),
        part_table=part_table,
    )


def _frame(frames: list[pd.DataFrame], dtypes: dict[str, Any]) -> pd.DataFrame:
    if not frames:
        return pd.DataFrame({k: pd.Series(dtype=v) for k, v in dtypes.items()})
    return pd.concat(frames, ignore_index=True).astype(dtypes)


@dataclass
class HistoryReport:
    """What :func:`check_history` found. ``cycle`` lists a cycle of the level's graph as
    ``(txn, kind of the edge to the next)`` pairs, empty when there is none."""

    isolation: str
    transactions: int
    parts: int
    reads: int
    writes: int
    edges: dict[str, int]  #: ww, wr, rw edges between distinct transactions
    cycle: list[tuple[int, str]] = field(default_factory=list)
    aborted_reads: int = 0  #: reads of a version no committed transaction wrote (G1a)
    dirty_reads: int = 0  #: reads of a version before its writer committed
    lost_updates: int = 0  #: versions two committed transactions both overwrote
    #: snapshot: reads of another version than the newest committed at or before their snapshot
    snapshot_reads: int = 0
    split_snapshots: int = 0  #: snapshot: parts whose reads name more than one read timestamp
    #: snapshot: a dependency cycle SI allows (write skew: serializable would forbid it)
    allowed_cycle: list[tuple[int, str]] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)  #: a few offending accesses, for people

    @property
    def violations(self) -> list[str]:
        """One line per anomaly the isolation level forbids (empty: the history is allowed)."""
        out = []
        if self.cycle:
            kind = "dependency cycle" if self.isolation == "serializable" else "ww/wr cycle (G1c)"
            out.append(f"{kind} of {len(self.cycle)} transactions: {_steps(self.cycle)}")
        if self.aborted_reads:
            out.append(f"{self.aborted_reads} reads of versions no committed transaction wrote (G1a)")
        if self.dirty_reads:
            out.append(f"{self.dirty_reads} dirty reads (versions read before their writers committed)")
        if self.lost_updates:
            out.append(f"{self.lost_updates} versions overwritten by two committed transactions (lost update)")
        if self.snapshot_reads:
            out.append(f"{self.snapshot_reads} reads not of the newest version at or before their snapshot")
        if self.split_snapshots:
            out.append(f"{self.split_snapshots} parts reading at more than one snapshot")
        return out

    def summary(self) -> str:
        """One line: what was checked and what was found."""
        edges = ", ".join(f"{k} {v}" for k, v in self.edges.items())
        verdict = "; ".join(self.violations) or "no violation"
        if self.allowed_cycle:
            verdict += f" (allowed under snapshot: a cycle serializable forbids, {_steps(self.allowed_cycle)})"
        return (
            f"{self.isolation}: {self.transactions} transactions ({self.parts} parts), {self.reads} reads, "
            f"{self.writes} writes, edges {edges}: {verdict}"
        )


def _steps(cycle: list[tuple[int, str]]) -> str:
    return " ".join(f"{txn:#x} -{edge}->" for txn, edge in cycle) + f" {cycle[0][0]:#x}"


def check_history(history: History | Sequence[bytes | None], isolation: str = "serializable") -> HistoryReport:
    """Builds the direct serialization graph of `history` (or of the buffers it is parsed
    from) and reports what `isolation` forbids in it. Raises ValueError for an unknown level."""
    if isolation not in ISOLATION_LEVELS:
        raise ValueError(f"isolation: '{isolation}' is not one of {', '.join(ISOLATION_LEVELS)}")
    if not isinstance(history, History):
        history = parse_history(history)
    reads, writes = history.reads, history.writes
    committed = history.txns
    report = HistoryReport(
        isolation=isolation,
        transactions=len(committed),
        parts=history.parts,
        reads=len(reads),
        writes=len(writes),
        edges={},
    )
    # wr: the version read names its writer; the part of it that wrote the row (in the row's
    # instance) has the commit number the read must have seen. 0 is the loaded data. (One
    # instance may hold several parts of a transaction: PLP's actions, one per partition.)
    wr = reads[(reads.version != 0) & (reads.version != reads.txn)]
    # Versions written more than once (a fork, or one transaction's parts): marked once, used
    # here and for the lost updates below (hashing every write is most of the check's time).
    again = writes.duplicated(subset=["instance", "row", "version"]).to_numpy()
    writer = writes.loc[~again, ["instance", "row", "txn", "number"]].rename(columns={"txn": "version"})
    wr = wr.merge(writer, on=["instance", "row", "version"], how="left")
    known = wr.number.notna().to_numpy()
    if not known.all():
        bad = wr[~known]
        report.aborted_reads = len(bad)
        report.examples += [f"{_read(r)}, which no committed transaction wrote" for r in _records(bad)]
    wr = wr[known]
    early = wr[wr.seen.to_numpy(dtype=np.float64) < wr.number.to_numpy(dtype=np.float64)]
    if len(early):
        report.dirty_reads = len(early)
        report.examples += [
            f"{_read(r)} when {int(r['seen'])} transactions had committed there, before its writer "
            f"(number {int(r['number'])})"
            for r in _records(early)
        ]
    wr_edges = pd.DataFrame({"src": wr.version.to_numpy(dtype=np.uint64), "dst": wr.txn.to_numpy(dtype=np.uint64)})
    # ww: the version overwritten names the previous writer.
    ww = writes[(writes.version != 0) & (writes.version != writes.txn)]
    ww_edges = pd.DataFrame({"src": ww.version.to_numpy(), "dst": ww.txn.to_numpy()})
    # A version overwritten by two transactions: only among the versions written again.
    repeated = writes[again][["instance", "row", "version"]].drop_duplicates()
    candidates = writes.merge(repeated, on=["instance", "row", "version"]) if len(repeated) else writes[again]
    forks = candidates.groupby(["instance", "row", "version"]).txn.nunique()
    forks = forks[forks > 1]
    if len(forks):
        report.lost_updates = len(forks)
        report.examples += [
            f"row {int(r['row']):#x} of instance {r['instance']}: version {int(r['version']):#x} overwritten by "
            f"{r['txn']} transactions"
            for r in _records(forks.reset_index())
        ]
    # rw: a reader of a version, to the transaction that overwrote it.
    rw = reads.drop(columns="seen").merge(writes, on=["instance", "row", "version"], suffixes=("_r", "_w"))
    rw = rw[rw.txn_r != rw.txn_w]
    rw_edges = pd.DataFrame({"src": rw.txn_r.to_numpy(), "dst": rw.txn_w.to_numpy()})
    kinds = {"ww": ww_edges, "wr": wr_edges, "rw": rw_edges}
    report.edges = {k: len(e) for k, e in kinds.items()}
    used = ["ww", "wr", "rw"] if isolation == "serializable" else ["ww", "wr"]
    report.cycle = _find_cycle(committed, {k: kinds[k] for k in used})
    if isolation == "snapshot":
        _check_snapshots(history, report)
        if not report.cycle:
            report.allowed_cycle = _find_cycle(committed, kinds)
    return report


def _check_snapshots(history: History, report: HistoryReport) -> None:
    """Snapshot isolation: each part's reads share one read timestamp (``seen``) and each read
    is of the newest version of its row committed (commit number) at or before it."""
    reads, writes = history.reads, history.writes
    if not len(reads):
        return
    split = reads.groupby(["txn", "instance"]).seen.nunique()
    split = split[split > 1]
    if len(split):
        report.split_snapshots = len(split)
        report.examples += [
            f"txn {int(r['txn']):#x} read at {r['seen']} snapshots in instance {r['instance']}"
            for r in _records(split.reset_index())
        ]
    # The newest committed writer of each read's row at or before the read's timestamp.
    left = reads.assign(at=reads.seen.astype(np.int64)).sort_values("at")
    right = (
        writes[["instance", "row", "txn", "number"]]
        .rename(columns={"txn": "expected"})
        .assign(at=writes.number.astype(np.int64))
        .drop(columns="number")
        .sort_values("at")
    )
    merged = pd.merge_asof(left, right, on="at", by=["instance", "row"], direction="backward")
    expected = merged.expected.fillna(0).to_numpy(dtype=np.uint64)
    bad = merged[(expected != merged.version.to_numpy(dtype=np.uint64)) & (merged.version != merged.txn)]
    if len(bad):
        report.snapshot_reads = len(bad)
        report.examples += [
            f"{_read(r)} at snapshot {int(r['seen'])}, where the newest was {int(r['expected'] or 0):#x}"
            for r in _records(bad.fillna(0))
        ]


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The first few rows of `frame`, for examples."""
    return [{str(k): v for k, v in r.items()} for r in frame.head(3).to_dict("records")]


def _read(r: dict[str, Any]) -> str:
    return (
        f"txn {int(r['txn']):#x} read row {int(r['row']):#x} of instance {r['instance']} "
        f"at version {int(r['version']):#x}"
    )


def _find_cycle(txns: np.ndarray, kinds: dict[str, pd.DataFrame]) -> list[tuple[int, str]]:
    """A cycle of the graph over `txns` with the edges of `kinds`, or [] (scipy finds the
    strongly connected components; a breadth-first search inside one closes a shortest cycle)."""
    frames = [e.assign(kind=k) for k, e in kinds.items() if len(e)]
    if not frames or len(txns) == 0:
        return []
    edges = pd.concat(frames, ignore_index=True)
    src = np.searchsorted(txns, edges.src.to_numpy())
    dst = np.searchsorted(txns, edges.dst.to_numpy())
    n = len(txns)
    graph = coo_matrix((np.ones(len(src), dtype=np.int8), (src, dst)), shape=(n, n)).tocsr()
    _, labels = connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(labels)
    big = np.flatnonzero(sizes > 1)
    if len(big) == 0:
        return []
    members = set(np.flatnonzero(labels == big[0]).tolist())
    kind_of: dict[tuple[int, int], str] = {}
    succ: dict[int, list[int]] = {}
    for s, d, k in zip(src.tolist(), dst.tolist(), edges.kind.tolist(), strict=True):
        if s in members and d in members and s != d:
            kind_of.setdefault((s, d), k)
            succ.setdefault(s, []).append(d)
    start = min(members)
    parent: dict[int, int | None] = {start: None}
    frontier, closing = [start], None
    while frontier and closing is None:  # BFS from start until an edge returns to it
        following = []
        for node in frontier:
            for nxt in succ.get(node, []):
                if nxt == start:
                    closing = node
                    break
                if nxt not in parent:
                    parent[nxt] = node
                    following.append(nxt)
            if closing is not None:
                break
        frontier = following
    path: list[int] = []
    at: int | None = closing
    while at is not None:
        path.append(at)
        at = parent[at]
    path.reverse()  # start, ..., closing (whose edge returns to start)
    return [(int(txns[a]), kind_of[(a, path[(i + 1) % len(path)])]) for i, a in enumerate(path)]
