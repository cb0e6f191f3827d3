"""What paper 000 reported for each of its figures, as data: the machine it ran on, the shape
in words and the numbers it gave, each with its source.

The model's figures (:mod:`islands.plots.model_figures`) draw a figure's projection onto the
papers' machines beside this, and say where the projection keeps the paper's shape and where
it does not. Sources: the figure catalog, docs/figures.md ("shape the paper reported"; written
from :mod:`islands.figures.catalog`), which summarizes paper 000 (VLDB Journal
2016; the conference version is 001); the section named with each entry is the paper's text
the numbers come from. Machines are named by their fixture shape (``tests/fixtures/sysfs``):
``4x6`` the quad-socket Xeon E7530 most of 000's figures ran on, ``2x8`` the dual-socket and
``8x10`` the octo-socket of Fig 16 and Table 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["PAPER_SHAPES", "PaperShape", "paper_shape"]


@dataclass(frozen=True)
class PaperShape:
    """One figure of paper 000 as the paper reported it: the ``machine`` (fixture shape) it
    ran on, the ``shape`` in words, the ``values`` it gave (name -> number; ratios are
    ``a/b``, drops and gains fractions) and the ``source`` of both."""

    figure: str
    machine: str
    shape: str
    values: dict[str, float] = field(default_factory=dict)
    source: str = ""


_TABLE = "docs/figures.md (paper 000)"

#: Paper 000's figures, by figure id (docs/figures.md).
PAPER_SHAPES: dict[str, PaperShape] = {
    s.figure: s
    for s in (
        PaperShape(
            "000-fig8",
            "4x6",
            "perfectly partitionable TPC-C Payment (local only): per-core 4.5x shared-everything on 24 cores",
            {"24ISL/1ISL": 4.5},
            f"{_TABLE}; 000 Sec 4",
        ),
        PaperShape(
            "000-fig11",
            "4x6",
            "1ISL flat as multisite grows; per-core best at 0% and falls fastest; update falls faster than "
            "read; memory-resident data costs shared-nothing 5-25%",
            {"memory-resident cost, low": 0.05, "memory-resident cost, high": 0.25},
            f"{_TABLE}; 000 Sec 6.1",
        ),
        PaperShape(
            "000-fig13",
            "4x6",
            "per-socket (4ISL), unix sockets: read - communication dominates the distributed cost; update - "
            "communication, logging and locking",
            {},
            f"{_TABLE}; 000 Sec 6.2",
        ),
        PaperShape(
            "000-fig14",
            "4x6",
            "shared memory over unix sockets at 100% multisite: read per-core +60%, per-socket +25%; "
            "update +22% / +12%",
            {
                "read per-core gain": 0.60,
                "read per-socket gain": 0.25,
                "update per-core gain": 0.22,
                "update per-socket gain": 0.12,
            },
            f"{_TABLE}; 000 Sec 6.3",
        ),
        PaperShape(
            "000-fig15",
            "4x6",
            "shared memory: communication shrinks; update gains little",
            {},
            f"{_TABLE}; 000 Sec 6.3",
        ),
        PaperShape(
            "000-fig16",
            "2x8",
            "Fig 11 on the dual- and octo-socket machines: trends hold, topology sets the gaps",
            {},
            f"{_TABLE}; 000 Sec 6.4",
        ),
        PaperShape(
            "000-fig17",
            "4x6",
            "read, cost vs rows: per-core ~40% cheaper locally than the next best; multisite cost rises "
            "super-linearly until all instances take part, then flattens; shared-everything worst for "
            "large transactions",
            {"per-core local cost / next best": 0.6},
            f"{_TABLE}; 000 Sec 7.1.1",
        ),
        PaperShape(
            "000-fig18",
            "4x6",
            "update, cost vs rows: multisite shared-nothing costlier than shared-everything everywhere; "
            "shared-everything rises linearly",
            {},
            f"{_TABLE}; 000 Sec 7.1.2",
        ),
        PaperShape(
            "000-fig19",
            "4x6",
            "20% multisite, active cores 1..24: shared-nothing scales linearly; coarse competitive "
            "everywhere; shared-everything flattens",
            {},
            f"{_TABLE}; 000 Sec 7.2",
        ),
        PaperShape(
            "000-fig20",
            "4x6",
            "Zipf skew, 2 rows: shared-everything hurt by contention on updates; per-core by one overloaded "
            "instance; coarse copes best",
            {},
            f"{_TABLE}; 000 Sec 7.3",
        ),
        PaperShape(
            "000-fig21",
            "4x6",
            "database size, 2 rows, 0% and 20% multisite: shared-nothing's advantage shrinks as data leaves "
            "the caches; sharp drop beyond the buffer pool",
            {},
            f"{_TABLE}; 000 Sec 7.4",
        ),
        PaperShape(
            "000-fig22",
            "4x6",
            "standard workloads: shared-nothing ahead local-only; TPC-B drops ~22% with 15% remote; Payment "
            "drops more than NewOrder",
            {"TPC-B shared-nothing drop at 15% remote": 0.22},
            f"{_TABLE}; 000 Sec 8.1, 8.3",
        ),
        PaperShape(
            "000-fig23",
            "4x6",
            "TPC-B vs % remote: shared-everything flat; coarse and fine shared-nothing fall alike",
            {},
            f"{_TABLE}; 000 Sec 8.2",
        ),
        PaperShape(
            "000-fig24",
            "4x6",
            "TPC-C Payment vs % remote: shared-nothing falls sharply (the hot warehouse row locked through "
            "2PC); shared-everything stable",
            {},
            f"{_TABLE}; 000 Sec 8.4",
        ),
    )
}


def paper_shape(figure: str) -> PaperShape:
    """The paper's shape of ``figure``; ``ValueError`` naming the known ids."""
    try:
        return PAPER_SHAPES[figure]
    except KeyError:
        raise ValueError(
            f"figure {figure!r}: paper 000 reports no shape for it (known: {', '.join(PAPER_SHAPES)})"
        ) from None
