"""Host and build metadata that travels with every result row."""

from __future__ import annotations

import datetime
import os
import platform
import socket
from pathlib import Path
from typing import Any

from islands import _core
from islands.analysis.revision import git_revision, package_version


def cpu_model() -> str:
    """The processor's model name from /proc/cpuinfo (or platform.processor())."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def collect_metadata() -> dict[str, Any]:
    """Everything about the host, the build and the source that a result needs to be read later."""
    build = _core.build_info()
    return {
        "hostname": socket.gethostname(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "cpu_model": cpu_model(),
        "n_online_cpus": os.cpu_count(),
        "git_revision": git_revision(),
        "compiler": build["compiler"],
        "compiler_flags": build["flags"],
        "build_type": build["build_type"],
        "islands_version": package_version(),
        "timestamp_utc": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
