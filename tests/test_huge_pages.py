"""Tables and hash indexes ask for transparent huge pages (common/huge_pages.hpp): on a kernel
whose THP setting is "madvise" or "always", a loaded table of hundreds of MiB is backed by them."""

from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path

import pytest

import islands
from islands.config.settings import RunConfig

THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def thp_mode() -> str:
    """The bracketed mode of the kernel's THP setting ('' when the file is missing)."""
    try:
        m = re.search(r"\[(\w+)\]", THP.read_text())
    except OSError:
        return ""
    return m.group(1) if m else ""


def anon_huge_kib() -> int:
    """This process's anonymous memory backed by huge pages, KiB."""
    text = Path("/proc/self/smaps_rollup").read_text()
    m = re.search(r"^AnonHugePages:\s+(\d+) kB", text, re.MULTILINE)
    return int(m.group(1)) if m else 0


@pytest.mark.skipif(thp_mode() not in ("madvise", "always"), reason="transparent huge pages are off here")
def test_a_large_table_and_index_are_backed_by_huge_pages():
    c = RunConfig()
    c = dataclasses.replace(
        c,
        driver=dataclasses.replace(c.driver, cpus=(0,), warmup_s=0.2, duration_s=1.5),
        micro=dataclasses.replace(c.micro, rows_per_site=2_000_000),  # ~200 MiB of rows, 64 MiB of slots
        engine=dataclasses.replace(c.engine, cc="none"),
    )
    before = anon_huge_kib()
    running = islands.start(c)
    most = 0
    deadline = time.monotonic() + 60
    while not running.handle.ended and time.monotonic() < deadline:
        most = max(most, anon_huge_kib() - before)
        time.sleep(0.05)
    result = running.result()
    assert result.commits > 0
    assert most >= 128 * 1024  # at least 128 MiB of the ~260 MiB on 2 MiB pages
