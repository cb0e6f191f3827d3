"""Options of ``islands run`` that have no effect in the combination given, refused in one line
naming the flag (issue 48: ``--client-count``/``--think-us`` without ``--clients closed`` and
``--log-dir`` without ``--log`` were accepted and did nothing), and a ``--log-dir`` that is or
lies under a symbolic link (the engine refused only a link at the directory itself).

A client-layer option counts as given when its value differs from the driver's default (the
parser fills every one in); ``--log-dir`` when it is set at all.
"""

from __future__ import annotations

import argparse

from islands.analysis.guarded_files import refuse_linked
from islands.config.sections import DriverConfig

__all__ = ["check_run_options"]

#: Client-layer options and the ``--clients`` mode they take effect in.
_CLIENT_MODE = {"client_count": "closed", "think_us": "closed", "offered_rate": "open"}


def check_run_options(args: argparse.Namespace) -> None:
    """Raises ``ValueError`` (one line naming the flag) for an option of ``islands run`` that
    the other options make do nothing."""
    driver = DriverConfig()
    clients = getattr(args, "driver_clients", driver.clients)
    for name, mode in _CLIENT_MODE.items():
        value = getattr(args, f"driver_{name}", None)
        if value is None or value == getattr(driver, name) or clients == mode:
            continue
        flag = "--" + name.replace("_", "-")
        raise ValueError(
            f"{flag}: only with --clients {mode} (here --clients {clients}, where {flag} {value} would do nothing)"
        )
    if getattr(args, "log_content", None) is not None and getattr(args, "log", "off") == "off":
        raise ValueError("--log-content: only with --log (the log is off, so nothing would be logged)")
    if getattr(args, "log_dir", None) is not None and getattr(args, "log", "off") == "off":
        raise ValueError("--log-dir: only with --log (the log is off, so nothing would be written there)")
    if getattr(args, "log_dir", None) is not None:
        refuse_linked(args.log_dir, "--log-dir")
