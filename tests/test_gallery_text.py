"""The gallery writes what a manifest says as text: a figure id's control characters are
shown as escapes, never written into the page raw (issue 48), and each directory left
without its figure is named on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from islands.__main__ import main as cli_main


def test_control_characters_of_a_figure_id_are_escaped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entry = tmp_path / "results" / "odd"
    entry.mkdir(parents=True)
    figure = "fig\x1b[2J\x07\r\nfake line\x00\x9b"
    (entry / "manifest.json").write_text(json.dumps({"experiment": "odd\x1b[1m", "figure": figure}))
    assert cli_main(["gallery", str(tmp_path / "results"), "--out", str(tmp_path / "page")]) == 0
    page = (tmp_path / "page" / "index.html").read_text()
    assert not any(c in page for c in "\x1b\x07\r\x00\x9b")
    assert "fig\\x1b[2J\\x07\\x0d\\x0afake line\\x00\\x9b" in page and "odd\\x1b[1m" in page
    err = capsys.readouterr().err
    assert "\x1b" not in err and err.startswith(f"warning: {entry}: figure ")
    assert len(err.strip().splitlines()) == 1
