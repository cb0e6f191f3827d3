"""`islands results --output F` is written atomically (issue 48: on a full disk it left a
truncated F): a failed write leaves the old F and no temporary file, and names F."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from islands.__main__ import main as cli_main
from test_compare_results_cli import record


def test_a_failed_output_write_leaves_the_old_file(tmp_path: Path, monkeypatch, capsys) -> None:
    results = record(tmp_path, "a", 1.0, repetitions=1)
    out = tmp_path / "table.json"
    assert cli_main(["results", str(results), "--json", "--output", str(out)]) == 0
    whole = out.read_text()
    assert whole.endswith("\n") and len(whole) > 100
    capsys.readouterr()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)  # the disk fills while the new table is written
    assert cli_main(["results", str(results), "--csv", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"islands: error: --output {out}: cannot write (No space left on device)"]
    assert out.read_text() == whole
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_output_through_a_link_and_to_a_device(tmp_path: Path, capsys) -> None:
    results = record(tmp_path, "a", 1.0, repetitions=1)
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    assert cli_main(["results", str(results), "--csv", "--output", str(link)]) == 0
    assert link.is_symlink() and real.read_text() != "old\n" and "," in real.read_text()  # written through
    assert cli_main(["results", str(results), "--csv", "--output", os.devnull]) == 0
    assert Path(os.devnull).is_char_device()
