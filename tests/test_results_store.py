"""The result store: rows appended as Parquet part files (one per append, nothing rewritten),
files readable by everyone, a failed or interrupted write never visible, older single-file
directories still read."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

from islands.analysis.store import FILE_MODE, ResultStore


def row(i: int, **extra: object) -> dict[str, object]:
    return {"point_id": f"p{i}", "throughput_tps": 1000.0 + i, "config": {"micro": {"update": i % 2 == 0}}, **extra}


def test_each_append_is_one_new_part_and_nothing_is_rewritten(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "r")
    store.create({"figure": "none"})
    seen: dict[Path, tuple[int, int, bytes]] = {}
    for i in range(5):
        part = store.append([row(i)])
        assert part is not None and part.parent == store.parts_dir
        parts = store.parts()
        assert len(parts) == i + 1 and parts[-1] == part
        for old, (inode, mtime, data) in seen.items():  # the earlier parts are untouched
            st_old = old.stat()
            assert (st_old.st_ino, st_old.st_mtime_ns, old.read_bytes()) == (inode, mtime, data)
        st_new = part.stat()
        seen[part] = (st_new.st_ino, st_new.st_mtime_ns, part.read_bytes())
    rows = store.rows()
    assert list(rows["point_id"]) == [f"p{i}" for i in range(5)]  # in the order written
    assert list(rows["config.micro.update"]) == [True, False, True, False, True]
    assert not store.rows_path.exists()
    assert store.append([]) is None and len(store.parts()) == 5


def test_parts_read_back_as_the_single_table_did(tmp_path: Path) -> None:
    """What the store used to do (concatenate and rewrite one file per append) and what it
    does now give the same frame."""
    from islands.analysis.store import flatten

    rows = [row(i, **({"extra": 1.5} if i == 2 else {})) for i in range(4)]
    store = ResultStore(tmp_path / "r")
    old = pd.DataFrame()
    for r in rows:
        store.append([r])
        new = pd.DataFrame([flatten(r)])
        old = new if old.empty else pd.concat([old, new], ignore_index=True)
        old.to_parquet(tmp_path / "old.parquet", index=False)
        old = pd.read_parquet(tmp_path / "old.parquet")
    pd.testing.assert_frame_equal(store.rows(), old)


def test_result_files_are_mode_0644(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "r")
    store.create({"figure": "none"})
    part = store.append([row(0)])
    assert part is not None
    for path in (store.manifest_path, part):
        assert stat.S_IMODE(path.stat().st_mode) == FILE_MODE == 0o644


def test_a_failed_write_leaves_no_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = ResultStore(tmp_path / "r")
    store.append([row(0)])

    def disk_full(self: pd.DataFrame, path: str, **kwargs: object) -> None:
        Path(path).write_bytes(b"PAR1 half a file")  # some bytes made it, then the disk filled
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_parquet", disk_full)
    with pytest.raises(OSError, match="No space left"):
        store.append([row(1)])
    monkeypatch.undo()
    assert len(store.parts()) == 1
    assert os.listdir(store.parts_dir) == [store.parts()[0].name]  # the temporary file is gone
    assert list(store.rows()["point_id"]) == ["p0"]


def test_a_crash_mid_write_leaves_only_an_ignored_dot_file(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "r")
    store.append([row(0)])
    (store.parts_dir / ".part-99999999999999999999-deadbeef.parquet.x.tmp").write_bytes(b"PAR1 trunc")
    store.append([row(1)])
    assert list(store.rows()["point_id"]) == ["p0", "p1"]


def test_an_unreadable_part_is_named(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "r")
    store.append([row(0)])
    bad = store.parts_dir / "part-00000000000000000001-00000000.parquet"
    bad.write_bytes(b"not parquet")
    with pytest.raises(ValueError, match=r"part-00000000000000000001-00000000.parquet: not a readable Parquet file"):
        store.rows()


def test_single_file_directories_are_still_read_first(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "r")
    store.directory.mkdir()
    pd.DataFrame([{"point_id": "old", "throughput_tps": 1.0}]).to_parquet(store.rows_path, index=False)
    assert store.has_rows()
    store.append([row(1, extra_column="x")])
    rows = store.rows()
    assert list(rows["point_id"]) == ["old", "p1"]
    assert rows["extra_column"].isna().iloc[0]  # columns may differ between parts
    store.clear_rows()
    assert not store.has_rows() and store.rows().empty


def test_parts_read_again_are_decoded_once_and_a_replaced_part_is_read_anew(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ResultStore(tmp_path / "r")
    store.create({"figure": "none"})
    first = store.append([row(0)])
    store.append([row(1)])
    decoded: list[object] = []
    real = pq.ParquetFile.read
    monkeypatch.setattr(pq.ParquetFile, "read", lambda *a, **k: decoded.append(a) or real(*a, **k))
    assert list(store.rows()["point_id"]) == ["p0", "p1"]
    assert len(decoded) == 2
    rows = store.rows()
    rows.loc[0, "point_id"] = "changed by a caller"  # a caller's frame is its own
    assert list(store.rows()["point_id"]) == ["p0", "p1"] and len(decoded) == 2
    assert first is not None
    other = ResultStore(tmp_path / "other")
    other.create({})
    replacement = other.append([row(7)])
    assert replacement is not None
    os.replace(replacement, first)  # another file under the same name
    assert list(store.rows()["point_id"]) == ["p7", "p1"] and len(decoded) == 3
