"""What recovery is handed, checked before any instance starts: every instance's log and
snapshot must be a regular file (a FIFO in place of a log would hang the instance's open(), a
device or a directory is no log), and an empty log is judged against what the instance said
it acknowledged.

A log the engine made is never empty: its writer writes and syncs a file header before any
record (csrc/src/log/log_writer.cpp). So a zero-byte log lost everything it held. When the
instance's acknowledgement records (``log.record_acks``: ``acks-<site>.bin``) say it
acknowledged commits, recovering from it would silently lose them: refused. Otherwise
recovery goes on from the initial load (or the snapshot), with a warning that says so.

A non-empty log is held to the acknowledgement records by the engine's recovery itself
(csrc/src/log/log_recovery.cpp): a log cut exactly at a record boundary, which no checksum
shows, is refused there with both counts. Without acknowledgement records such a cut after the
last record anyone saw cannot be told from a run that committed less (true of any write-ahead
log).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path

from islands import _core
from islands.analysis.guarded_files import make_directory, refuse_linked, remove_created

__all__ = ["check_logs", "prepare_log_directory", "READ_ONLY_ACK_TAG"]

#: The tag of a read-only transaction's acknowledgement entry (exec/commit_pipeline.hpp).
READ_ONLY_ACK_TAG = 0xFFFF << 48


def _acknowledged(directory: Path, sites: range) -> int:
    """Commits the instance owning ``sites`` recorded as acknowledged (read-only entries apart)."""
    count = 0
    for site in sites:
        path = directory / f"acks-{site}.bin"
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"log.directory: {path} is not a regular file (refused)")
        data = path.read_bytes()
        for at in range(0, len(data) // 8 * 8, 8):
            value = int.from_bytes(data[at : at + 8], "little")
            if value & READ_ONLY_ACK_TAG != READ_ONLY_ACK_TAG:
                count += 1
    return count


def check_logs(directory: str | Path, sizes: Sequence[int]) -> list[str]:
    """Checks the logs and snapshots a recovery of instances of ``sizes`` sites each would read
    in ``directory``; returns warnings, raises ``ValueError`` (one line naming the file) for a
    file that is not a regular file or an empty log whose instance acknowledged commits."""
    directory = Path(directory)
    warnings = []
    first_site = 0
    for i, n_sites in enumerate(sizes):
        sites = range(first_site, first_site + n_sites)
        first_site += n_sites
        for name in (f"instance-{i}.log", f"instance-{i}.snapshot"):
            path = directory / name
            try:
                st = os.lstat(path)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                kind = (
                    "a FIFO"
                    if stat.S_ISFIFO(st.st_mode)
                    else "a symbolic link"
                    if stat.S_ISLNK(st.st_mode)
                    else "not a regular file"
                )
                raise ValueError(f"log.directory: {path} is {kind}, not a log the engine wrote (refused)")
            if name.endswith(".log") and st.st_size == 0:
                acked = _acknowledged(directory, sites)
                if acked:
                    raise ValueError(
                        f"log.directory: {path} is empty (0 bytes) but instance {i} acknowledged {acked} "
                        "commit(s): its log was lost, and recovering from it would lose them (refused)"
                    )
                warnings.append(
                    f"recovery: {path} is empty (0 bytes; a log the engine wrote has at least its header): "
                    f"instance {i} recovers nothing from it"
                )
    return warnings


def prepare_log_directory(directory: str, sizes: Sequence[int], recover: bool) -> list[str]:
    """Makes a run's ``log.directory`` ready before any instance starts (a deployment's
    launcher and an in-process run alike): refused when it or a parent is a symbolic link, made
    owner-only (0700) where missing, checked by the engine, and, for a restart (``recover``),
    the logs checked (:func:`check_logs`; the warnings returned); without ``recover``, a log
    of an earlier run there is refused. A
    directory made here is removed again when refused. ``sizes``: each instance's worker count."""
    try:  # a link at a parent too, not only at the directory itself
        refuse_linked(directory, "")
    except ValueError as error:  # the setting's error, with its field as data
        raise _core.ConfigError("log.directory", str(error).strip()) from None
    created = make_directory(directory, 0o700, what="log.directory", check=False)
    try:
        _core.check_log_directory(directory)
        if recover:
            return check_logs(directory, sizes)
        earlier = sorted(Path(directory).glob("instance-*.log"))
        if earlier:
            raise ValueError(
                f"log.directory: {earlier[0]} holds the log of an earlier run "
                "(restart with recover=True, or use an empty directory)"
            )
        return []
    except BaseException:
        remove_created(created)
        raise
