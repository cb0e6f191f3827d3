"""Files the tool writes or reads back, guarded the same way everywhere (results, gallery and
log directories): directories are made with their mode whatever the umask, checked for their
owner and for others' write, never followed through a planted link; files are read without
following links (regular files only) and written by rename.

Every refusal is a ``ValueError`` whose one line names the path and why.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "DIRECTORY_MODE",
    "check_directory",
    "make_directory",
    "read_regular",
    "linked_component",
    "refuse_linked",
    "replace_by_rename",
    "remove_created",
    "write_by_rename",
]

#: Mode of a results or gallery directory the tool makes: the owner writes, everyone reads.
DIRECTORY_MODE = 0o755


def check_directory(path: str | Path, what: str = "directory") -> Path:
    """``path`` as a Path when it is a real directory (not a link) of this user that neither its
    group nor others can write; ``ValueError`` naming it otherwise."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except OSError as e:
        raise ValueError(f"{what} {path}: {e.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise ValueError(f"{what} {path} is a symbolic link (refused: name the directory itself)")
    if not stat.S_ISDIR(st.st_mode):
        raise ValueError(f"{what} {path} is not a directory")
    if st.st_uid != os.geteuid():
        raise ValueError(f"{what} {path} belongs to user {st.st_uid}, not to this one ({os.geteuid()})")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise ValueError(
            f"{what} {path} is writable by its group or by others (mode {stat.S_IMODE(st.st_mode):04o}; "
            "use a directory only you can write)"
        )
    return path


def linked_component(path: str | Path) -> Path | None:
    """The first component of ``path`` (made absolute, not resolved) that is a symbolic link,
    ``path`` itself included; None when there is none (missing components are no links)."""
    current = Path(os.path.abspath(path))
    for candidate in [*reversed(current.parents), current]:
        if os.path.islink(candidate):
            return candidate
    return None


def refuse_linked(path: str | Path, what: str) -> None:
    """``ValueError`` (one line naming ``what``) when ``path`` is, or lies under, a symbolic
    link: a link planted at a parent redirects what is made under it as surely as one at the
    path itself. The message names the real directory to give instead."""
    link = linked_component(path)
    if link is None:
        return
    where = "is a symbolic link" if link == Path(os.path.abspath(path)) else f"lies under a symbolic link, {link}"
    raise ValueError(f"{what} {path} {where} (refused: name the directory itself, {os.path.realpath(path)})")


def make_directory(
    path: str | Path, mode: int = DIRECTORY_MODE, what: str = "directory", check: bool = True
) -> list[Path]:
    """Makes ``path`` and any missing parents with exactly ``mode`` (the umask is not applied),
    then checks it (:func:`check_directory`; ``check=False``: the caller does). Returns the
    directories it made, outermost first; on a refusal it removes them again before raising,
    leaving nothing behind."""
    path = Path(path)
    missing: list[Path] = []
    probe = path
    while not os.path.lexists(probe):
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    created: list[Path] = []
    try:
        for directory in reversed(missing):
            try:
                os.mkdir(directory, 0o700)  # owner-only until its mode is set
            except FileExistsError:
                continue  # made meanwhile by someone else: checked below like any other
            created.append(directory)
            os.chmod(directory, mode)
        if check:
            check_directory(path, what)
    except OSError as e:
        remove_created(created)
        raise ValueError(f"{what} {path}: not writable (cannot create it: {e.strerror})") from None
    except BaseException:
        remove_created(created)
        raise
    return created


def remove_created(created: list[Path]) -> None:
    """Removes directories :func:`make_directory` made (innermost first, with what is in them)."""
    for directory in reversed(created):
        with contextlib.suppress(OSError):
            if os.path.isdir(directory) and not os.path.islink(directory):
                shutil.rmtree(directory)


def read_regular(path: str | Path, what: str = "file", limit: int = 1 << 30) -> bytes:
    """The bytes of ``path``, opened without following a link and without waiting on a FIFO;
    ``ValueError`` naming it when it is a link, not a regular file, or unreadable."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        if os.path.islink(path):
            raise ValueError(f"{what} {path} is a symbolic link (refused)") from None
        raise ValueError(f"{what} {path}: cannot read ({e.strerror})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{what} {path} is not a regular file (refused)")
        if st.st_size > limit:
            raise ValueError(f"{what} {path} is larger than {limit} bytes")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def write_by_rename(path: str | Path, data: bytes | str, mode: int = 0o644) -> None:
    """Writes ``data`` to a new temporary file beside ``path`` and renames it into place: a
    link planted at ``path`` is replaced, never written through."""
    payload = data.encode() if isinstance(data, str) else data
    replace_by_rename(path, lambda tmp: Path(tmp).write_bytes(payload), mode)


def replace_by_rename(path: str | Path, write: Callable[[str], object], mode: int = 0o644) -> None:
    """Calls ``write(tmp)`` on a new temporary dot-file beside ``path``, flushes it to disk,
    gives it ``mode`` and renames it into place, then flushes the directory: a reader sees the
    whole file or none, and a link planted at ``path`` is replaced, never written through."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:  # the rename itself survives a power cut only once the directory is flushed
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass
