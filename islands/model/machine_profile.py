"""What another machine's hardware costs, for projecting this machine's measurements onto it.

A :class:`MachineProfile` holds the few hardware figures the model needs beyond a topology's
NUMA distance table: the clock (CPU work is scaled by this machine's clock over the target's)
and the cost of moving a cache line between two cores of one socket and across sockets, which
sets what contention between an instance's threads, data on another socket and a message
between instances cost there.

Sources (paper 000 Table 1 for the machines; 001 Table 1 for the only published latency
figures of them):

- Octo-socket, 8 x Intel Xeon E7-L8867 @ 2.13 GHz, 10 cores each (000 Table 1). 001 Table 1:
  80 threads incrementing one lock-protected counter reach 18.4 M/s (54.3 ns per increment:
  the line crosses sockets every time), one counter per socket 341.7 M/s (8 counters, 23.4 ns
  per increment: the line stays in its socket), one per core 9527.8 M/s (80 counters, 8.4 ns:
  the line stays in its core). Hence ``line_core_ns`` 8.4, ``line_socket_ns`` 23.4 and a
  cross-socket transfer 2.32x a within-socket one, averaged over the machine's distances
  (21 and 31, mean 26.7).
- Quad-socket, 4 x Intel Xeon E7530 @ 1.86 GHz, 6 cores each, fully connected with QPI, and
  dual-socket, 2 x Intel Xeon E5-2640 v2 @ 2.00 GHz, 8 cores each, fully connected (000
  Table 1). The papers publish no latencies for them: their line costs are the octo-socket's
  scaled by clock, and cross-socket costs follow their distance tables (fixtures
  ``tests/fixtures/sysfs/xeon-*``) with the octo-socket's slope. These are derived, not
  measured, and :attr:`MachineProfile.derived` says so.

Cross-socket cost at SLIT distance ``d`` (10 = own node): ``line_socket_ns * (1 + slope *
(d/10 - 1))`` with ``slope`` = 0.79, the octo-socket's (2.32 = 1 + slope * (2.67 - 1)).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from islands.machine.topology import Topology

__all__ = ["PROFILES", "MachineProfile", "host_ghz", "profile_for"]

#: Cross-socket line transfer slope per unit of (SLIT distance / 10 - 1); from 001 Table 1
#: on the octo-socket machine (module docstring).
DISTANCE_SLOPE = ((341.7 / 8) / 18.4 - 1.0) / ((3 * 21 + 4 * 31) / 7 / 10 - 1.0)


@dataclass(frozen=True)
class MachineProfile:
    """Hardware costs of one machine: nominal ``ghz``, ``line_core_ns`` (a cache line that
    stays in its core), ``line_socket_ns`` (moved between cores of one socket), the slope of
    cross-socket transfers over SLIT distance, the ``shape`` (sockets, cores per socket) it
    describes (``None``: any), where the figures come from and whether they are derived."""

    name: str
    ghz: float
    line_core_ns: float
    line_socket_ns: float
    distance_slope: float = DISTANCE_SLOPE
    shape: tuple[int, int] | None = None
    source: str = ""
    derived: bool = False

    def line_ns(self, distance: float) -> float:
        """Cost of moving a line to a core at SLIT ``distance`` (10: same socket)."""
        return self.line_socket_ns * (1.0 + self.distance_slope * max(distance / 10.0 - 1.0, 0.0))

    def line_ratio(self, distance: float) -> float:
        """``line_ns(distance) / line_ns(10)``: how much dearer a line from that far is."""
        return self.line_ns(distance) / self.line_socket_ns

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        d = dataclasses.asdict(self)
        d["shape"] = list(self.shape) if self.shape else None
        return d


_OCTO = MachineProfile(
    name="octo-socket Xeon E7-L8867",
    ghz=2.13,
    line_core_ns=1e3 / (9527.8 / 80),
    line_socket_ns=1e3 / (341.7 / 8),
    shape=(8, 10),
    source="000 Table 1 (8 x Xeon E7-L8867 @ 2.13 GHz); 001 Table 1 (counters: 18.4, 341.7, 9527.8 M/s)",
)


def _scaled(name: str, ghz: float, shape: tuple[int, int], source: str) -> MachineProfile:
    factor = _OCTO.ghz / ghz
    return MachineProfile(
        name=name,
        ghz=ghz,
        line_core_ns=_OCTO.line_core_ns * factor,
        line_socket_ns=_OCTO.line_socket_ns * factor,
        shape=shape,
        source=source + "; line costs: the octo-socket's (001 Table 1) scaled by clock",
        derived=True,
    )


#: The papers' machines (000 Table 1), by name.
PROFILES: dict[str, MachineProfile] = {
    "xeon-e7l8867-8x10": _OCTO,
    "xeon-e7530-4x6": _scaled(
        "quad-socket Xeon E7530", 1.86, (4, 6), "000 Table 1 (4 x Xeon E7530 @ 1.86 GHz, fully connected QPI)"
    ),
    "xeon-e5-2640v2-2x8": _scaled(
        "dual-socket Xeon E5-2640 v2", 2.00, (2, 8), "000 Table 1 (2 x Xeon E5-2640 v2 @ 2.00 GHz, fully connected QPI)"
    ),
}


def host_ghz(cpuinfo: str | Path = "/proc/cpuinfo") -> float:
    """This machine's clock in GHz: the model name's ``@ X GHz`` where it has one, else the
    mean ``cpu MHz``; NaN when neither can be read."""
    try:
        text = Path(cpuinfo).read_text()
    except OSError:
        return float("nan")
    m = re.search(r"model name\s*:.*@\s*([\d.]+)\s*GHz", text)
    if m:
        return float(m.group(1))
    mhz = [float(x) for x in re.findall(r"cpu MHz\s*:\s*([\d.]+)", text)]
    return sum(mhz) / len(mhz) / 1e3 if mhz else float("nan")


def profile_for(topology: Topology, name: str | None = None, here_ghz: float | None = None) -> MachineProfile:
    """The profile to project onto ``topology``: the named one (``"here"`` is this machine's
    clock with the octo-socket's line costs scaled to it), else a paper machine whose shape
    (sockets x cores per socket) matches, else this machine's. Raises ``ValueError`` for an
    unknown name."""
    ghz = here_ghz if here_ghz is not None else host_ghz()
    if ghz != ghz or ghz <= 0:
        ghz = _OCTO.ghz
    here = dataclasses.replace(_scaled("this machine", ghz, (0, 0), "this machine's clock (/proc/cpuinfo)"), shape=None)
    if name is not None:
        if name == "here":
            return here
        if name not in PROFILES:
            raise ValueError(f"machine profile {name!r}: choose one of here, {', '.join(PROFILES)}")
        return PROFILES[name]
    per_socket = {len(s.cores) for s in topology.sockets}
    if len(per_socket) == 1:
        shape = (topology.n_sockets, per_socket.pop())
        for profile in PROFILES.values():
            if profile.shape == shape:
                return profile
    return here
