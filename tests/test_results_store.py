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

    def disk_full(fd: int) -> None:  # the bytes were written, then the disk filled before they were flushed
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left") as failed:
        store.append([row(1)])
    monkeypatch.undo()
    # the error names the part it was writing, not its temporary dot-file
    assert failed.value.filename is not None and Path(failed.value.filename).parent == store.parts_dir
    assert Path(failed.value.filename).name.startswith("part-")
    assert len(store.parts()) == 1
    assert os.listdir(store.parts_dir) == [store.parts()[0].name]  # the temporary file is gone
    assert list(store.rows()["point_id"]) == ["p0"]
    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError) as failed:
        store.write_manifest({"figure": "none"})
    assert failed.value.filename == str(store.manifest_path)


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
    data = first.read_bytes()
    first.unlink()
    first.write_bytes(data)  # the same bytes in a new file under the same name: read anew
    assert list(store.rows()["point_id"]) == ["p0", "p1"] and len(decoded) == 3
    other = ResultStore(tmp_path / "other")
    other.create({})
    replacement = other.append([row(7)])
    assert replacement is not None
    os.replace(replacement, first)  # another part's bytes under this part's name: its checksum refuses them
    with pytest.raises(ValueError, match="damaged"):
        store.rows()


# Checksums (issue 48): a part's name carries the checksum of its bytes -----------------


def test_a_part_s_name_carries_the_checksum_of_its_bytes(tmp_path: Path) -> None:
    import hashlib

    from islands.analysis.store import named_checksum

    store = ResultStore(tmp_path / "r")
    part = store.append([row(0)])
    assert part is not None
    digest = named_checksum(part)
    assert digest is not None and part.name.endswith(f".sha256-{digest}.parquet")
    assert hashlib.sha256(part.read_bytes()).hexdigest().startswith(digest)
    assert pq.read_table(part).num_rows == 1  # still a Parquet file any reader reads as it is


def test_a_scribbled_part_is_refused_naming_it(tmp_path: Path) -> None:
    store = ResultStore(tmp_path / "r")
    store.append([row(0)])
    part = store.append([row(1)])
    assert part is not None
    data = bytearray(part.read_bytes())
    data[len(data) // 3 : len(data) // 3 + 64] = bytes(range(64))  # 64 bytes scribbled mid-file
    part.write_bytes(bytes(data))
    with pytest.raises(ValueError) as refused:
        store.rows()
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"{part}: damaged")
    assert "move it away to read the others" in message


def test_parts_written_before_checksums_still_read_and_a_foreign_one_is_refused(tmp_path: Path) -> None:
    from islands.analysis.store import flatten

    store = ResultStore(tmp_path / "r")
    store.parts_dir.mkdir(parents=True)
    old = store.parts_dir / "part-00000000000000000001-0000abcd.parquet"  # the name parts had before
    pd.DataFrame([flatten(row(0))]).to_parquet(old, index=False)
    assert list(store.rows()["point_id"]) == ["p0"]  # read, unverified
    foreign = store.parts_dir / "part-00000000000000000002-0000abcd.parquet"
    pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_parquet(foreign, index=False)
    with pytest.raises(ValueError, match=rf"^{foreign}: not an islands part \(Parquet, but without a checksum"):
        store.rows()
    foreign.write_bytes(b"PAR1 not parquet at all PAR1")
    with pytest.raises(ValueError, match=rf"^{foreign}: not a readable Parquet file"):
        store.rows()
    # a foreign Parquet file given a checksum-like name fails the checksum
    faked = store.parts_dir / f"part-00000000000000000003-0000abcd.sha256-{'0' * 32}.parquet"
    foreign.unlink()
    pd.DataFrame([flatten(row(3))]).to_parquet(faked, index=False)
    with pytest.raises(ValueError, match=rf"^{faked}: damaged"):
        store.rows()


# The cache of the rows already read (issue 49: results on 1,000 rows in under a second) --------


def aged_store(tmp_path: Path, n: int, name: str = "r") -> ResultStore:
    """``n`` one-row parts written an hour ago (their modification time set back), as a sweep
    leaves them once it has finished."""
    store = ResultStore(tmp_path / name)
    store.create({"figure": "none"})
    for i in range(n):
        part = store.append([row(i, **({"extra": "x"} if i == 3 else {}))])
        assert part is not None
        os.utime(part, ns=(part.stat().st_atime_ns, part.stat().st_mtime_ns - 3600 * 10**9))
    return store


def counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    decoded: list[object] = []
    real = pq.ParquetFile.read
    monkeypatch.setattr(pq.ParquetFile, "read", lambda *a, **k: decoded.append(a) or real(*a, **k))
    return decoded


def test_parts_read_once_are_taken_from_the_cache_by_the_next_reader(tmp_path, monkeypatch) -> None:
    from islands.analysis.store import CACHE_STEP

    n = CACHE_STEP + 4
    store = aged_store(tmp_path, n)
    first = store.rows()
    assert store.cache_path.is_file() and stat.S_IMODE(store.cache_path.stat().st_mode) == FILE_MODE
    decoded = counting_reads(monkeypatch)
    again = ResultStore(store.directory).rows()  # another reader: the cache and nothing else
    assert len(decoded) == 1
    pd.testing.assert_frame_equal(again, first)
    assert list(again["point_id"]) == [f"p{i}" for i in range(n)] and again["extra"].notna().sum() == 1
    # A new part is decoded (and verified) alone, after the cached rows.
    store.append([row(n)])
    decoded.clear()
    assert list(ResultStore(store.directory).rows()["point_id"]) == [f"p{i}" for i in range(n + 1)]
    assert len(decoded) == 2


def test_parts_written_just_now_are_not_cached(tmp_path) -> None:
    from islands.analysis.store import CACHE_STEP

    store = ResultStore(tmp_path / "r")
    for i in range(CACHE_STEP + 2):
        store.append([row(i)])
    assert len(store.rows()) == CACHE_STEP + 2
    assert not store.cache_path.exists()  # their modification times could still equal a later write's


def test_a_part_changed_or_moved_away_after_it_was_cached_is_not_taken_from_the_cache(tmp_path) -> None:
    from islands.analysis.store import CACHE_STEP

    store = aged_store(tmp_path, CACHE_STEP + 2)
    store.rows()
    assert store.cache_path.exists()
    parts = store.parts()
    data = bytearray(parts[1].read_bytes())
    data[len(data) // 3 : len(data) // 3 + 64] = bytes(range(64))
    parts[1].write_bytes(bytes(data))  # scribbled after it was cached: another modification time
    with pytest.raises(ValueError, match="damaged"):
        ResultStore(store.directory).rows()
    parts[1].unlink()  # moved away, as the refusal says
    rows = ResultStore(store.directory).rows()
    assert list(rows["point_id"]) == [f"p{i}" for i in range(CACHE_STEP + 2) if i != 1]


@pytest.mark.parametrize("planted", ["garbage", "link", "another directory's cache"])
def test_a_cache_that_does_not_match_the_parts_is_ignored(tmp_path, planted) -> None:
    from islands.analysis.store import CACHE_STEP

    store = aged_store(tmp_path, CACHE_STEP + 2)
    expected = store.rows()
    if planted == "garbage":
        store.cache_path.write_bytes(b"PAR1 not a cache PAR1")
    elif planted == "link":
        store.cache_path.unlink()
        other = aged_store(tmp_path, CACHE_STEP + 2, "other")
        other.rows()
        store.cache_path.symlink_to(other.cache_path)
    else:
        other = aged_store(tmp_path, CACHE_STEP + 2, "other")
        other.rows()
        os.replace(other.cache_path, store.cache_path)
    pd.testing.assert_frame_equal(ResultStore(store.directory).rows(), expected)
    store.clear_rows()
    assert not store.cache_path.exists() and ResultStore(store.directory).rows().empty
