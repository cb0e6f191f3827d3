"""Result storage: a directory holding one Parquet table of rows and a JSON manifest.

Every row carries its full config (flattened columns and the JSON), the config hash, the
topology, the git revision and host metadata. Files are replaced atomically (write to a
temporary file, fsync, rename), so an interrupted or failed write never leaves a half-written
result and never loses rows written before.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

ROWS_FILE = "rows.parquet"
MANIFEST_FILE = "manifest.json"


def _atomic_write(path: Path, write: Any) -> None:
    """Calls write(file_path) on a temporary file beside `path`, then renames it into place."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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
        self.rows_path = self.directory / ROWS_FILE
        self.manifest_path = self.directory / MANIFEST_FILE

    def create(self, manifest: dict[str, Any]) -> None:
        """Creates the directory and writes the manifest (replacing an older one)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.write_manifest(manifest)

    def manifest(self) -> dict[str, Any]:
        """The manifest, or {} when none was written."""
        if not self.manifest_path.exists():
            return {}
        return json.loads(self.manifest_path.read_text())

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Replaces the manifest atomically."""
        text = json.dumps(manifest, indent=2, sort_keys=True, default=str)
        _atomic_write(self.manifest_path, lambda tmp: Path(tmp).write_text(text))

    def rows(self) -> pd.DataFrame:
        """Every stored row (empty frame when none)."""
        import pandas as pd  # here, not at the top: storing rows needs it, flatten() does not

        if not self.rows_path.exists():
            return pd.DataFrame()
        return pd.read_parquet(self.rows_path)

    def append(self, rows: Iterable[dict[str, Any]]) -> None:
        """Adds rows (nested dicts are flattened) and rewrites the table atomically."""
        import pandas as pd

        new = pd.DataFrame([flatten(r) for r in rows])
        if new.empty:
            return
        old = self.rows()
        table = new if old.empty else pd.concat([old, new], ignore_index=True)
        self.directory.mkdir(parents=True, exist_ok=True)
        _atomic_write(self.rows_path, lambda tmp: table.to_parquet(tmp, index=False))
