"""Cache models for the simulated counters: the machines of the papers, by name, as valgrind's
cachegrind can simulate them (``--I1``, ``--D1``, ``--LL``), or this machine's own caches.

Cachegrind simulates two levels: a first-level instruction and data cache and one last-level
cache (the papers' L3; their L2 is not modelled). It needs a power-of-two number of sets, so
where a real cache's size over (ways x line) is not one, the model keeps the size and line and
takes the nearest associativity that gives one (``adjusted`` says so). The default is a
server-class last-level cache of tens of MB (paper 003's Broadwell, 35 MB), not the host's:
a VM may report a last-level cache of hundreds of MB, in which no data set of the papers would
ever leave the cache.

=================  ==========================================  ===================================
name               machine                                     source
=================  ==========================================  ===================================
xeon-e5-2680v4     2 x Xeon E5-2680 v4 (Broadwell), paper 003   003 Table 1: L1I/L1D 32 KB, LLC 35 MB
xeon-e7530         4 x Xeon E7530 (Nehalem-EX), paper 000       000 Sec 4: 64 KB L1, 12 MB L3
xeon-e5-2640v2     2 x Xeon E5-2640 v2 (Ivy Bridge), paper 000  000 Sec 4: 64 KB L1, 20 MB L3
xeon-e7l8867       8 x Xeon E7-L8867 (Westmere-EX), paper 000   000 Sec 4: 64 KB L1, 30 MB L3
host               this machine                                 valgrind's own detection (CPUID)
=================  ==========================================  ===================================

The papers give sizes (000: "64 KB L1" is 32 KB instruction + 32 KB data); the associativities
are Intel's for those processors (L1 8-way, L3 16/20/24-way), before any adjustment. The 000
machines are also the topology fixtures ``tests/fixtures/sysfs/xeon-*``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CACHE_MODELS", "DEFAULT_CACHE_MODEL", "CacheLevel", "CacheModel", "cache_model"]

KIB = 1024
MIB = 1024 * KIB


@dataclass(frozen=True)
class CacheLevel:
    """One simulated cache: total bytes, ways and line bytes (cachegrind's ``size,assoc,line``)."""

    size: int
    assoc: int
    line: int = 64

    def simulable(self) -> CacheLevel:
        """The same size and line with the associativity nearest to this one for which the
        number of sets is a power of two (cachegrind refuses any other)."""

        lines = self.size // self.line if self.size % self.line == 0 else 0
        candidates = [lines >> k for k in range(lines.bit_length()) if lines % (1 << k) == 0]
        if not candidates:
            raise ValueError(f"cache of {self.size} B with {self.line} B lines: no associativity gives 2^k sets")
        return CacheLevel(self.size, min(candidates, key=lambda a: (abs(a - self.assoc), a)), self.line)

    def option(self) -> str:
        """``size,assoc,line`` as valgrind's --I1/--D1/--LL take it."""
        return f"{self.size},{self.assoc},{self.line}"

    def text(self) -> str:
        """``35 MiB 35-way 64 B lines``."""
        size = f"{self.size // MIB} MiB" if self.size % MIB == 0 else f"{self.size // KIB} KiB"
        return f"{size} {self.assoc}-way {self.line} B lines"


@dataclass(frozen=True)
class CacheModel:
    """A named machine's caches as cachegrind simulates them (``None`` levels: valgrind's own
    detection of this machine)."""

    name: str
    machine: str
    source: str
    i1: CacheLevel | None = None
    d1: CacheLevel | None = None
    ll: CacheLevel | None = None

    def valgrind_args(self) -> list[str]:
        """The --I1/--D1/--LL options (none for the host), with simulable associativities."""
        levels = (("--I1", self.i1), ("--D1", self.d1), ("--LL", self.ll))
        return [f"{flag}={level.simulable().option()}" for flag, level in levels if level is not None]

    def adjusted(self) -> list[str]:
        """The levels whose associativity had to change for cachegrind: ``LL 24 -> 30-way``."""
        out = []
        for label, level in (("I1", self.i1), ("D1", self.d1), ("LL", self.ll)):
            if level is not None and level.simulable().assoc != level.assoc:
                out.append(f"{label} {level.assoc} -> {level.simulable().assoc}-way")
        return out

    def describe(self) -> str:
        """For a figure: ``xeon-e5-2680v4 (2 x Xeon E5-2680 v4, paper 003): LL 35 MiB ...``."""
        if self.ll is None:
            return f"{self.name} ({self.machine})"
        assert self.d1 is not None
        text = f"{self.name} ({self.machine}): LL {self.ll.simulable().text()}, D1 {self.d1.simulable().text()}"
        changed = self.adjusted()
        return text + (f" (associativity adjusted for cachegrind: {', '.join(changed)})" if changed else "")


_L1 = CacheLevel(32 * KIB, 8)

#: The named cache models (see the module's table for sources).
CACHE_MODELS: dict[str, CacheModel] = {
    m.name: m
    for m in (
        CacheModel(
            "xeon-e5-2680v4",
            "2 x Xeon E5-2680 v4 (Broadwell), paper 003",
            "003 Table 1 (L1I/L1D 32 KB, L2 256 KB, LLC 35 MB); Intel: L1 8-way, LLC 20-way",
            _L1,
            _L1,
            CacheLevel(35 * MIB, 20),
        ),
        CacheModel(
            "xeon-e7530",
            "4 x Xeon E7530 (Nehalem-EX), paper 000",
            "000 Sec 4 (64 KB L1, 256 KB L2, 12 MB L3); Intel: L1 8-way (L1I 4-way), L3 16-way",
            CacheLevel(32 * KIB, 4),
            _L1,
            CacheLevel(12 * MIB, 16),
        ),
        CacheModel(
            "xeon-e5-2640v2",
            "2 x Xeon E5-2640 v2 (Ivy Bridge), paper 000",
            "000 Sec 4 (64 KB L1, 256 KB L2, 20 MB L3); Intel: L1 8-way, L3 20-way",
            _L1,
            _L1,
            CacheLevel(20 * MIB, 20),
        ),
        CacheModel(
            "xeon-e7l8867",
            "8 x Xeon E7-L8867 (Westmere-EX), paper 000",
            "000 Sec 4 (64 KB L1, 256 KB L2, 30 MB L3); Intel: L1 8-way (L1I 4-way), L3 24-way",
            CacheLevel(32 * KIB, 4),
            _L1,
            CacheLevel(30 * MIB, 24),
        ),
        CacheModel("host", "this machine's caches as valgrind detects them", "valgrind (CPUID)"),
    )
}
#: The model used when a run does not name one: a server-class LLC of tens of MB.
DEFAULT_CACHE_MODEL = "xeon-e5-2680v4"


def cache_model(name: str = "") -> CacheModel:
    """The model called ``name`` ("" is :data:`DEFAULT_CACHE_MODEL`); a ValueError naming the
    known ones otherwise."""
    key = name or DEFAULT_CACHE_MODEL
    if key not in CACHE_MODELS:
        raise ValueError(f"cache_model: {name!r} is not a cache model (known: {', '.join(CACHE_MODELS)})")
    return CACHE_MODELS[key]
