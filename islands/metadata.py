"""Host and build metadata that travels with every result row."""

from __future__ import annotations

import datetime
import functools
import importlib
import os
import platform
import socket
import subprocess
from pathlib import Path
from typing import Any

from islands import _core

_REPO = Path(__file__).resolve().parent.parent


@functools.cache
def git_revision() -> str:
    """The source tree's commit, with ``-dirty`` when it has uncommitted changes. Where the
    package is not a git checkout (an installed wheel), the revision it was built from
    (:func:`built_revision`); "unknown" when neither is known."""
    return _checkout_revision() or built_revision()


def built_revision() -> str:
    """The git revision baked into the package when it was built (``islands/_revision.py``,
    written by ``csrc/git_revision.cmake``); "unknown" when the build could not tell."""
    try:
        baked = importlib.import_module("islands._revision")  # generated: not in the source tree
    except ImportError:
        return "unknown"
    return str(getattr(baked, "GIT_REVISION", "unknown"))


def _checkout_revision() -> str | None:
    if not (_REPO / ".git").exists():
        return None
    try:
        rev = subprocess.run(
            ["git", "-C", str(_REPO), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(_REPO), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return rev + ("-dirty" if dirty else "")


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


def package_version() -> str:
    """The installed package's version ("unknown" when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("islands")
    except PackageNotFoundError:
        return "unknown"
