"""Stored parts carry the checksum of their bytes (issue 48): a scribbled or foreign part is
refused in one line naming it by ``islands results``, ``compare``, ``gallery`` and a sweep's
resume; ``--metric`` naming a text column is refused in one line; a full disk in a sweep names
the path it was writing."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pandas as pd
import pytest

from islands.__main__ import main as cli_main
from islands.analysis.store import ResultStore
from test_compare_results_cli import record


def scribble(part: Path) -> None:
    """64 bytes written over the middle of ``part``, as a failing disk or a stray write would."""
    data = bytearray(part.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = b"\xa5" * 64
    part.write_bytes(bytes(data))


def one_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.fixture()
def damaged(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A good results directory, a copy of it with one part scribbled over, and that part."""
    good = record(tmp_path, "good", 1.0, repetitions=2)
    bad = record(tmp_path, "bad", 1.0, repetitions=2)
    part = ResultStore(bad).parts()[2]
    scribble(part)
    return good, bad, part


def test_a_scribbled_part_is_refused_by_results_and_compare(
    damaged: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    good, bad, part = damaged
    capsys.readouterr()
    assert cli_main(["results", str(good)]) == 0
    capsys.readouterr()
    for argv in (["results", str(bad)], ["results", str(bad), "--points"], ["compare", str(good), str(bad)]):
        assert cli_main(argv) == 2
        line = one_error(capsys)
        assert line.startswith(f"islands: error: {part}: damaged (its bytes do not match the checksum"), line
        assert line.endswith("move it away to read the others")


def test_a_scribbled_part_is_refused_by_a_sweep_s_resume(damaged: tuple[Path, Path, Path], tmp_path: Path) -> None:
    from islands.experiments.sweep import Sweep, load_spec
    from islands.machine.topology import read_topology
    from tiny_spec import QuietExecutor

    _, bad, part = damaged
    before = sorted(p.name for p in ResultStore(bad).parts())
    ran: list[object] = []
    sweep = Sweep(load_spec(tmp_path / "exp.toml"), read_topology(), bad)
    with pytest.raises(ValueError, match=rf"^{part}: damaged"):
        sweep.run(lambda point: ran.append(point) or {"throughput_tps": 1.0}, progress=False, executor=QuietExecutor())
    assert not ran and sorted(p.name for p in ResultStore(bad).parts()) == before  # nothing run again, nothing added


def test_a_scribbled_part_is_named_by_the_gallery(
    damaged: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, bad, part = damaged
    manifest = json.loads((bad / "manifest.json").read_text())
    manifest["figure"] = "000-fig11"  # a figure the gallery draws from the rows
    (bad / "manifest.json").write_text(json.dumps(manifest))
    capsys.readouterr()
    assert cli_main(["gallery", str(tmp_path), "--out", str(tmp_path / "page")]) == 0
    named = [line for line in capsys.readouterr().err.splitlines() if str(part) in line]
    assert len(named) == 1 and named[0].startswith(f"warning: {bad}: {part}: damaged"), named
    assert f"{part}: damaged" in (tmp_path / "page" / "index.html").read_text()


def test_a_foreign_part_and_a_part_that_is_not_parquet_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = record(tmp_path, "r", 1.0, repetitions=1)
    foreign = ResultStore(results).parts_dir / "part-00000000000000000000-00000000.parquet"  # an old-style name
    pd.DataFrame({"name": ["x"], "value": [1.0]}).to_parquet(foreign, index=False)
    capsys.readouterr()
    assert cli_main(["results", str(results)]) == 2
    assert one_error(capsys).startswith(f"islands: error: {foreign}: not an islands part")
    foreign.write_bytes(b"just text, not Parquet")
    assert cli_main(["results", str(results)]) == 2
    assert one_error(capsys).startswith(f"islands: error: {foreign}: not a readable Parquet file")


def test_a_directory_written_before_checksums_still_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = record(tmp_path, "r", 1.0, repetitions=1)
    store = ResultStore(results)
    for part in store.parts():  # the names parts had before they carried a checksum
        part.rename(part.with_name(part.name.split(".sha256-")[0] + ".parquet"))
    assert all(".sha256-" not in p.name for p in store.parts())
    capsys.readouterr()
    assert cli_main(["results", str(results), "--points"]) == 0  # read, unverified
    assert len(ResultStore(results).rows()) == 4


def test_a_text_metric_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = record(tmp_path, "a", 1.0, repetitions=1)
    capsys.readouterr()
    assert cli_main(["results", str(a), "--points", "--metric", "transport"]) == 2
    line = one_error(capsys)
    assert line.startswith("islands: error: --metric transport: not a numeric column (values such as 'unix'")
    assert cli_main(["compare", str(a), str(a), "--metric", "transport"]) == 2
    assert one_error(capsys).startswith("islands: error: --metric transport: not a numeric column")
    assert cli_main(["results", str(a), "--points", "--metric", "commits"]) == 0


def test_a_full_disk_in_a_sweep_names_the_part(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from islands.experiments.sweep import Sweep, load_spec
    from islands.machine.topology import read_topology
    from tiny_spec import TINY, QuietExecutor

    spec = tmp_path / "exp.toml"
    spec.write_text(TINY)
    out = tmp_path / "out"
    real = os.fsync
    parts = {"n": 0}

    def fills(fd: int) -> None:  # the disk fills after the first run's part: parts and manifest fail
        name = os.readlink(f"/proc/self/fd/{fd}")
        parts["n"] += ".part-" in name
        if parts["n"] > 1 and Path(name).name.startswith("."):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fills)
    sweep = Sweep(load_spec(spec), read_topology(), out)
    with pytest.raises(OSError) as failed:
        sweep.run(lambda point: {"throughput_tps": 1.0, "commits": 1}, progress=False, executor=QuietExecutor())
    # the part it was writing, not the manifest the failure could not be recorded in, nor a temporary file
    assert failed.value.errno == errno.ENOSPC and failed.value.filename is not None
    assert Path(failed.value.filename).parent == out / "rows" and Path(failed.value.filename).name.startswith("part-")
    monkeypatch.undo()
    assert len(ResultStore(out).rows()) == 1 and not [p for p in (out / "rows").iterdir() if p.name.startswith(".")]
