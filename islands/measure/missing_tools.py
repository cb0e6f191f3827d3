"""The optional system tools of the characterization (valgrind for simulated counters, perf for
code-module profiles): how to install one that is missing, said once per process.

``make run`` installs only what the main job needs; ``make tools`` (and ``make test``) installs
these. A run that needs one that is missing still completes: its numbers are NaN with the
reason (never a crash, never a silent zero), and the first such run in a process prints one
line on stderr naming the tool and how to install it."""

from __future__ import annotations

import sys

__all__ = ["INSTALL", "missing_tool_reason"]

#: tool -> the Debian package that provides it
INSTALL = {"valgrind": "valgrind", "perf": "linux-perf"}

_said: set[str] = set()


def missing_tool_reason(tool: str) -> str:
    """The one-line reason a run records when ``tool`` is missing; the first call for a tool in
    this process also prints it on stderr."""
    package = INSTALL.get(tool, tool)
    reason = f"{tool} is not installed (make tools, or apt-get install {package})"
    if tool not in _said:
        _said.add(tool)
        print(f"islands: note: {reason}; its counters are NaN", file=sys.stderr)
    return reason
