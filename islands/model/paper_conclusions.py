"""What paper 000 concluded per workload class (000 Sec 10 and 11), as data: which deployment it
found best for a workload like the one asked about, so that the advisor can say whether its
recommendation agrees.

- perfectly partitionable (no multisite transaction): fine-grained shared-nothing, one
  instance per core ("fine grained configurations are an ideal choice since they incur no
  synchronization overheads", Sec 10);
- TPC-B and TPC-C with their specifications' few remote transactions: socket-sized islands
  ("favor partitioned deployments ... socket-sized islands are a good choice", Sec 10);
- moderate multisite shares and moderate skew: socket-sized islands ("Islands are robust
  under the presence of moderate skews and multisite transactions", Sec 10);
- not easily partitionable (half or more of the transactions multisite) and heavy skew:
  shared-everything ("situation is completely opposite for non-partitionable workloads
  and workloads that exhibit heavy skew", Sec 11; "shared-everything deployments are the best
  choice", Sec 10).
"""

from __future__ import annotations

from dataclasses import dataclass

from islands.machine.topology import Topology
from islands.model.workload_spec import ModelWorkload

__all__ = ["HEAVY_MULTISITE", "HEAVY_SKEW", "PaperConclusion", "paper_conclusion"]

#: The multisite share from which paper 000 calls a workload not easily partitionable (its
#: Fig 11 and Fig 14 curves cross below 1ISL's somewhere past it; an assumption).
HEAVY_MULTISITE = 0.5
#: The Zipf exponent from which skew counts as heavy (000 Fig 20's x axis ends at 1).
HEAVY_SKEW = 1.0


@dataclass(frozen=True)
class PaperConclusion:
    """Paper 000's answer for a workload class: the ``workload_class``, the deployment
    (``kind``: fine, islands, shared-everything), its label on the topology and the quote."""

    workload_class: str
    kind: str
    deployment: str
    quote: str
    source: str

    def to_dict(self) -> dict[str, str]:
        """A JSON-ready dict."""
        return dict(self.__dict__)


def paper_conclusion(workload: ModelWorkload, topology: Topology) -> PaperConclusion:
    """Paper 000's answer for ``workload`` on ``topology`` (module docstring)."""
    fine = f"{topology.n_cores}ISL"
    islands = f"{topology.n_sockets}ISL"
    se = "1ISL"
    share = workload.multisite_share
    if workload.zipf_s >= HEAVY_SKEW or share >= HEAVY_MULTISITE:
        what = "heavy skew" if workload.zipf_s >= HEAVY_SKEW else "not easily partitionable"
        return PaperConclusion(
            what,
            "shared-everything",
            se,
            "situation is completely opposite for non-partitionable workloads and workloads that exhibit heavy skew",
            "000 Sec 11",
        )
    if share == 0 and workload.zipf_s == 0:
        return PaperConclusion(
            "perfectly partitionable",
            "fine-grained shared-nothing",
            fine,
            "fine grained configurations are an ideal choice since they incur no synchronization overheads",
            "000 Sec 10",
        )
    # the specifications' remote shares (TPC-B, Payment 15%; NewOrder 1% of items)
    if not workload.per_row and workload.multisite <= workload.standard_share + 1e-9:
        return PaperConclusion(
            "standard workload, few multisite",
            "socket-sized islands",
            islands,
            "favor partitioned deployments whose optimal granularity depends on the specifics of the workload. "
            "In this case, socket-sized islands are a good choice",
            "000 Sec 10",
        )
    return PaperConclusion(
        "moderate multisite or skew",
        "socket-sized islands",
        islands,
        "Islands are robust under the presence of moderate skews and multisite transactions",
        "000 Sec 10",
    )
