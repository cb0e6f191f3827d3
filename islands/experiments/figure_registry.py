"""The figures the toolkit draws from a sweep's rows: FIGURES.md id → ``module:function``.

Kept apart from :mod:`islands.plots` (which builds :data:`islands.plots.FIGURES` from it) so
that the command line can list the ids without importing matplotlib and pandas.
"""

from __future__ import annotations

__all__ = ["DRAWN"]

#: FIGURES.md id → the function that draws it from a sweep's rows, as "module:function".
DRAWN: dict[str, str] = {
    "000-fig11": "islands.plots.multisite:plot_multisite",  # throughput vs % multisite, unix sockets
    "000-fig12": "islands.plots.characterization:plot_microarch",  # IPC, stalls, LLC misses (+ simulated)
    "000-fig13": "islands.plots.characterization:plot_breakdown",  # time per txn by component, unix sockets
    "000-fig15": "islands.plots.characterization:plot_breakdown",  # the same over shared memory
    "003-fig1": "islands.plots.characterization:plot_cycles",  # cycle breakdown vs data size (+ simulated)
    "003-fig5": "islands.plots.characterization:plot_cycles",  # cycle breakdown vs rows per transaction
    "003-fig6": "islands.plots.characterization:plot_modules",  # code-module breakdown
    "000-fig14": "islands.plots.multisite:plot_multisite",  # the same over shared memory (vs unix sockets)
    "000-fig17": "islands.plots.txn_size:plot_txn_size",  # time per transaction vs rows, read (+ Fig 18)
    "000-fig18": "islands.plots.txn_size:plot_txn_size",  # time per transaction vs rows, update
    "000-fig20": "islands.plots.skew:plot_skew",  # throughput vs Zipf skew
    "000-fig22": "islands.plots.standard:plot_standard",  # standard workloads, local-only vs remote share
    "000-fig23": "islands.plots.standard:plot_remote_share",  # TPC-B vs % remote
    "000-fig24": "islands.plots.standard:plot_remote_share",  # TPC-C Payment vs % remote
    "000-fig25": "islands.plots.multisite:plot_multisite",  # OCC (Silo): read 10 rows vs % multisite
    "000-fig26": "islands.plots.characterization:plot_breakdown",  # OCC: time per txn by component
    "000-fig27": "islands.plots.txn_size:plot_txn_size",  # OCC: time per transaction vs rows read
    "000-fig28": "islands.plots.multisite:plot_multisite",  # OCC: update 2 rows vs % multisite
    "002-fig1": "islands.plots.design_comparison:plot_designs",  # throughput vs sockets: SN, centralized SE, PLP
    "002-fig2": "islands.plots.design_comparison:plot_designs",  # (Fig 1's IPC is not drawn: no counters here)
    "002-fig3": "islands.plots.multisite:plot_multisite",  # multisite updates over shared memory: fine/coarse SN, SE
    "002-fig4": "islands.plots.characterization:plot_breakdown",  # coarse SN's time per txn by component
    "002-fig5": "islands.plots.design_comparison:plot_designs",  # with the hardware-aware system structures
    "002-fig6": "islands.plots.design_comparison:plot_designs",  # a two-table transaction vs sockets
    "002-fig8": "islands.plots.design_comparison:plot_designs",  # TATP and TPC-C per transaction and mix, over PLP
    "002-fig9": "islands.plots.atrapos_costs:plot_repartition_rows",  # cost of re-partitioning actions vs their number
    "002-table2": "islands.plots.atrapos_costs:plot_monitoring_rows",  # monitoring overhead per TATP transaction
    "002-fig10": "islands.plots.adaptivity:plot_adaptivity",  # TATP's mix changed at run time: ATraPos vs static
    "002-fig11": "islands.plots.adaptivity:plot_adaptivity",  # skew at run time: ATraPos vs static
    "002-fig12": "islands.plots.adaptivity:plot_adaptivity",  # a worker's core taken away: ATraPos vs static
    "002-fig13": "islands.plots.adaptivity:plot_adaptivity",  # alternating mixes, the adaptive interval
    "004-fig3": "islands.plots.engines:plot_engines",  # read-only TPC-C: shared engine vs aggregate
    "004-fig4": "islands.plots.engines:plot_engines",  # TPC-C mixes x isolation level
    "004-fig5": "islands.plots.engines:plot_engines",  # latched vs latch-free indexes (Fig 5-8)
}
