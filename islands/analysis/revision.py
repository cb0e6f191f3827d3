"""Which islands this is: the package's version and the git revision it was built from.
Pure (no engine), so that the gallery and ``--version`` can say it without loading the engine."""

from __future__ import annotations

import functools
import importlib
import subprocess
from pathlib import Path

__all__ = ["built_revision", "git_revision", "package_version"]

_REPO = Path(__file__).resolve().parents[2]


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


def package_version() -> str:
    """The installed package's version ("unknown" when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("islands")
    except PackageNotFoundError:
        return "unknown"
