"""Result storage: a directory holding the rows as a Parquet dataset of part files and a JSON
manifest.

Every row carries its full config (flattened columns and the JSON), the config hash, the
topology, the git revision and host metadata. :meth:`ResultStore.append` writes the new rows
as one more part file (``rows/part-<time>-<random>.parquet``) and never rewrites what is
there, so a sweep's cost of storing stays linear in its size. Parquet part files rather than
an embedded database (DuckDB, SQLite): pyarrow is already a dependency, the rows' columns vary
between workloads (a dataset of parts takes each part's own schema, a database would need
migrations), and every Parquet reader (pandas, DuckDB, Spark) reads the directory as it is.

Every file is written under a temporary dot-name, flushed to disk and renamed into place,
so a crash or a full disk mid-write leaves at worst a dot-file that readers ignore, never a
half-written part or manifest; files are made readable by everyone (0644). A directory written
before the dataset layout (one ``rows.parquet``) is still read, its rows first.

Each part carries the checksum of its bytes in its name
(``part-<time>-<random>.sha256-<first 32 hex digits>.parquet``: the name and the bytes arrive
in one rename, and any Parquet reader still reads the file as it is). Reading verifies it, and
a part whose bytes do not match its name (scribbled, truncated, replaced) is refused in one line
naming it. A part written before the checksum (a name without one) is read unverified, but it
must still be Parquet and carry the columns every islands row has (a foreign Parquet file put
in ``rows/`` is refused, not merged as an empty point).

A sweep stores a part per run, and decoding a thousand parts took seconds. Reading the rows
therefore keeps the parts already read in one more file, ``.rows-cache.parquet`` beside the
manifest: the rows of the first parts in the order written, with each part's name and identity
(inode, size, modification time) in its metadata. The next read takes those rows from the cache
while every one of those parts still has the identity it had, decodes (and verifies) only the
parts after them, and writes the cache again once :data:`CACHE_STEP` more parts are stable. The
parts stay the rows; the cache is derived from them: it is ignored whenever it does not match
them, never read through a link, and not written where the directory is read-only. A part
modified within :data:`RACY_S` of the read is never cached (its modification time could still
equal that of a later write to it, as with git's "racily clean" files), so a part written over
after it was cached has another identity and is read and verified again.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from islands.analysis.guarded_files import DIRECTORY_MODE, make_directory, read_regular, replace_by_rename

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

ROWS_FILE = "rows.parquet"
ROWS_DIR = "rows"
MANIFEST_FILE = "manifest.json"
#: Permission bits of every result file: the owner writes, everyone reads.
FILE_MODE = 0o644
#: How a part's name carries the checksum of its bytes: the first 32 hex digits of their SHA-256.
CHECKSUM_DIGITS = 32
_CHECKSUM_NAME = re.compile(rf"\.sha256-([0-9a-f]{{{CHECKSUM_DIGITS}}})\.parquet$")
#: The columns of which an islands row has at least one (sweep rows both, benchmarks'
#: config_hash): a part written before checksums without any of them is not an islands part.
ROW_COLUMNS = ("point_id", "config_hash")
#: The cache of the rows already read (see the module), beside the manifest.
CACHE_FILE = ".rows-cache.parquet"
#: The key of the cache's schema metadata that lists the parts it holds.
_CACHE_KEY = b"islands.rows_cache"
_CACHE_VERSION = 1
#: The cache is written again once this many stable parts follow the ones it holds.
CACHE_STEP = 16
#: A part modified less than this many seconds before a read is not cached (see the module).
RACY_S = 2.0

#: A file's identity: inode, size and modification time (ns); a file that is gone has none.
Identity = tuple[int, int, int]
#: A part the cache holds: its name (relative to the results directory), identity and rows.
Held = tuple[str, Identity, int]


def part_checksum(data: bytes) -> str:
    """The checksum a part's name carries for its bytes."""
    return hashlib.sha256(data).hexdigest()[:CHECKSUM_DIGITS]


def named_checksum(path: str | Path) -> str | None:
    """The checksum in a part's name, or None for a part written before checksums."""
    found = _CHECKSUM_NAME.search(Path(path).name)
    return found.group(1) if found else None


def results_directory(directory: str | Path) -> Path:
    """``directory`` as a Path; ValueError (one line) when it is not a directory. Checked before
    anything heavy loads, so that a mistyped path is refused at once."""
    path = Path(directory)
    if not path.exists():
        raise ValueError(f"{path}: no such results directory")
    if not path.is_dir():
        raise ValueError(f"{path}: not a directory")
    return path


def flatten(row: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts become dotted columns; lists become JSON text (Parquet-friendly)."""
    out: dict[str, Any] = {}
    for key, value in row.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, (list, tuple)):
            out[name] = json.dumps(value)
        else:
            out[name] = value
    return out


class ResultStore:
    """Rows and a manifest in one directory; safe to append to across interrupted runs."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        #: The single-file table of directories written before the part-file layout.
        self.rows_path = self.directory / ROWS_FILE
        #: The dataset directory: one Parquet part file per :meth:`append`.
        self.parts_dir = self.directory / ROWS_DIR
        self.manifest_path = self.directory / MANIFEST_FILE
        #: The cache of the rows already read (see the module).
        self.cache_path = self.directory / CACHE_FILE
        # The cache as last read: its own identity, its table and the (name, identity) of its parts.
        self._cache: tuple[Identity, pa.Table, list[Held]] | None = None
        # Part files decoded so far, by path, with the identity (inode, size, mtime) they had:
        # a sweep reads its rows every round, and parts are never rewritten in place.
        self._decoded: dict[Path, tuple[tuple[int, int, int], pa.Table]] = {}

    def create(self, manifest: dict[str, Any]) -> None:
        """Creates the directory and writes the manifest (replacing an older one)."""
        make_directory(self.directory, DIRECTORY_MODE, "results directory")
        self.write_manifest(manifest)

    def manifest(self) -> dict[str, Any]:
        """The manifest, or {} when none was written."""
        if not os.path.lexists(self.manifest_path):
            return {}
        data = read_regular(self.manifest_path, "manifest")  # never through a planted link
        try:
            manifest = json.loads(data)
        except ValueError as e:  # bad JSON or bad UTF-8
            raise ValueError(f"manifest {self.manifest_path}: not valid JSON ({e})") from None
        if not isinstance(manifest, dict):
            raise ValueError(f"manifest {self.manifest_path}: not a JSON object")
        return manifest

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replaces the manifest atomically; an OSError (a full disk) names the manifest."""
        text = json.dumps(manifest, indent=2, sort_keys=True, default=str)
        try:
            replace_by_rename(self.manifest_path, lambda tmp: Path(tmp).write_text(text), FILE_MODE)
        except OSError as e:
            raise OSError(e.errno, e.strerror or str(e), str(self.manifest_path)) from None

    def parts(self) -> list[Path]:
        """The part files in the order they were written (temporary dot-files left out)."""
        if not self.parts_dir.is_dir():
            return []
        return sorted(p for p in self.parts_dir.glob("part-*.parquet") if p.is_file() or p.is_symlink())

    def has_rows(self) -> bool:
        """Whether any rows are stored (a part file or the single-file table)."""
        return self.rows_path.exists() or bool(self.parts())

    def clear_rows(self) -> None:
        """Deletes every stored row (the part files and the single-file table) and their cache."""
        self.cache_path.unlink(missing_ok=True)
        self._cache = None
        self.rows_path.unlink(missing_ok=True)
        if self.parts_dir.exists():
            shutil.rmtree(self.parts_dir)

    def rows(self) -> pd.DataFrame:
        """Every stored row in the order written (empty frame when none). Raises ValueError
        naming a part file that cannot be read. The parts are decoded as Arrow tables, joined
        (a column missing from a part is null there) and turned into one frame once: a sweep
        stores a part per run, and a frame per part made 1,000 rows take seconds. The parts
        the cache holds unchanged are not decoded again (see the module)."""
        import pandas as pd  # here, not at the top: storing rows needs it, flatten() does not
        import pyarrow as pa

        files = ([self.rows_path] if self.rows_path.exists() or self.rows_path.is_symlink() else []) + self.parts()
        names = [self._cache_name(path) for path in files]
        identities = [_identity(path) for path in files]
        cached, held = self._cached_prefix(names, identities)
        decoded = [self._decode(path) for path in files[len(held) :]]
        tables = [t for t in ([cached] if cached is not None else []) + decoded if t.num_rows]
        if not tables:
            return pd.DataFrame()
        try:
            table = pa.concat_tables(tables, promote_options="permissive")
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            # a column of different kinds in two parts (text in one, numbers in another)
            frames = [t.to_pandas() for t in tables]
            return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
        self._update_cache(table, names, identities, held, [t.num_rows for t in decoded])
        return table.to_pandas()

    def _cache_name(self, path: Path) -> str:
        return path.relative_to(self.directory).as_posix()

    def _cached_prefix(self, names: list[str], identities: list[Identity | None]) -> tuple[pa.Table | None, list[Held]]:
        """The cache's table and the parts it holds: the first of ``names`` (the rows files in
        order), each with the identity it has now; (None, []) when there is no cache that
        matches them."""
        cache = self._read_cache()
        if cache is None:
            return None, []
        table, held = cache
        if len(held) > len(names):
            return None, []
        for (name, identity, _), now_name, now in zip(held, names, identities):
            if name != now_name or identity != now:
                return None, []
        return table, held

    def _read_cache(self) -> tuple[pa.Table, list[Held]] | None:
        """The cache file's table and the parts it holds, or None when there is none or it
        cannot be read as one (it is then written again)."""
        import pyarrow.parquet as pq

        identity = _identity(self.cache_path)
        if identity is None:
            self._cache = None
            return None
        if self._cache is not None and self._cache[0] == identity:
            return self._cache[1], self._cache[2]
        try:
            table = pq.ParquetFile(io.BytesIO(read_regular(self.cache_path, "rows cache"))).read(use_threads=False)
            record = json.loads((table.schema.metadata or {})[_CACHE_KEY])
            if record["version"] != _CACHE_VERSION:
                return None
            held = [
                (str(n), (int(ino), int(size), int(mtime)), int(rows)) for n, ino, size, mtime, rows in record["parts"]
            ]
        except Exception:  # a cache from elsewhere, damaged or of another version: the parts decide
            return None
        if sum(rows for _, _, rows in held) != table.num_rows:
            return None
        self._cache = (identity, table, held)
        return table, held

    def _update_cache(
        self,
        table: pa.Table,
        names: list[str],
        identities: list[Identity | None],
        held: list[Held],
        decoded_rows: list[int],
    ) -> None:
        """Writes the cache again with the rows of the stable parts at the head of ``table``
        (the rows files ``names`` joined: the ``held`` of the cache, then the others, of
        ``decoded_rows`` rows each) once :data:`CACHE_STEP` more parts are stable; a directory
        that cannot be written keeps the cache it has."""
        import pyarrow.parquet as pq

        racy = time.time_ns() - int(RACY_S * 1e9)
        stable = len(held)
        while stable < len(names) and (identity := identities[stable]) is not None and identity[2] < racy:
            stable += 1
        if stable - len(held) < CACHE_STEP:
            return
        counts = [rows for _, _, rows in held] + decoded_rows
        parts: list[Held] = [(names[i], identities[i] or (-1, -1, -1), counts[i]) for i in range(stable)]
        metadata = dict(table.schema.metadata or {})
        metadata[_CACHE_KEY] = json.dumps(
            {"version": _CACHE_VERSION, "parts": [[n, *identity, rows] for n, identity, rows in parts]}
        ).encode()
        cache = table.slice(0, sum(counts[:stable])).replace_schema_metadata(metadata)
        buffer = io.BytesIO()
        try:
            pq.write_table(cache, buffer)
            replace_by_rename(self.cache_path, lambda tmp: Path(tmp).write_bytes(buffer.getvalue()), FILE_MODE)
        except OSError:
            return  # a read-only or full directory: the next read decodes the parts again
        except Exception:  # a column Parquet cannot hold: no cache, the parts are read as before
            return
        identity = _identity(self.cache_path)
        self._cache = (identity, cache, parts) if identity is not None else None

    def _decode(self, path: Path) -> pa.Table:
        """One rows file as an Arrow table, decoded again only when the file changed (a new
        inode, size or modification time)."""
        import pyarrow.parquet as pq

        identity = _identity(path) or (-1, -1, -1)  # read_regular below names what is wrong
        cached = self._decoded.get(path)
        if cached is not None and cached[0] == identity:
            return cached[1]
        data = read_regular(path, "rows file")  # a planted link or FIFO is refused, never followed
        away = "move it away to read the others"
        expected = named_checksum(path)
        if expected is not None and part_checksum(data) != expected:
            raise ValueError(
                f"{path}: damaged (its bytes do not match the checksum in its name, sha256 {expected}...); {away}"
            )
        try:
            # one file, read in this thread: pq.read_table's dataset machinery costs more than the read
            table = pq.ParquetFile(io.BytesIO(data)).read(use_threads=False)
        except Exception as e:
            raise ValueError(f"{path}: not a readable Parquet file ({_one_line(e)}); {away}") from None
        if expected is None and path != self.rows_path and not set(ROW_COLUMNS) & set(table.column_names):
            raise ValueError(
                f"{path}: not an islands part (Parquet, but without a checksum in its name and without the "
                f"{' or '.join(ROW_COLUMNS)} column of every islands row); {away}"
            )
        self._decoded[path] = (identity, table)
        return table

    def append(self, rows: Iterable[dict[str, Any]]) -> Path | None:
        """Adds rows (nested dicts are flattened) as one new part file, written atomically;
        returns its path (None when there were no rows). Nothing already stored is touched."""
        import pandas as pd

        new = pd.DataFrame([flatten(r) for r in rows])
        if new.empty:
            return None
        buffer = io.BytesIO()
        new.to_parquet(buffer, index=False)
        data = buffer.getvalue()
        make_directory(self.parts_dir, DIRECTORY_MODE, "rows directory")
        # Names sort in the order written; the random part keeps concurrent writers apart.
        stem = f"part-{time.time_ns():020d}-{uuid.uuid4().hex[:8]}"
        path = self.parts_dir / f"{stem}.sha256-{part_checksum(data)}.parquet"
        try:
            replace_by_rename(path, lambda tmp: Path(tmp).write_bytes(data), FILE_MODE)
        except OSError as e:  # a full disk: name the part, not the temporary file it was written as
            raise OSError(e.errno, e.strerror or str(e), str(path)) from None
        return path


def _identity(path: Path) -> Identity | None:
    """``path``'s inode, size and modification time (ns), not following a link; None when it
    cannot be seen."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _one_line(error: Exception) -> str:
    """An exception's text on one line (pyarrow's may span several)."""
    return " ".join(str(error).split())
