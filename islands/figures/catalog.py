"""The papers' figures: what each shows, with the parameters the paper used and the shape it
reported (:data:`CATALOG`, the papers in :data:`PAPERS`), and the ones the toolkit draws from a
sweep's rows: figure id → ``module:function`` (:data:`DRAWN`).

Data only, at the bottom of the layers (:mod:`islands.figures` imports nothing of ours): the
experiments, the plots and the command line all read it, and :mod:`islands.plots` turns
:data:`DRAWN`'s names into the drawing functions (:data:`islands.plots.FIGURES`), so that the
command line can list the ids without importing matplotlib and pandas. The figure catalog in
the repository, ``docs/figures.md``, is written from this module
(``python -m islands.experiments.figure_catalog``; tests/test_figure_catalog.py checks it is
current).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["BENCH_COMMANDS", "CATALOG", "DRAWN", "LOADS", "PAPERS", "Figure", "Load", "Paper"]


@dataclass(frozen=True)
class Paper:
    """One paper the toolkit reproduces, cited by title and venue."""

    title: str
    venue: str
    year: int


#: The papers, by the number the figure ids start with.
PAPERS: dict[str, Paper] = {
    "000": Paper("Characterization of the Impact of Hardware Islands on OLTP", "The VLDB Journal", 2016),
    "001": Paper("OLTP on Hardware Islands", "PVLDB (Proceedings of the VLDB Endowment)", 2012),
    "002": Paper("ATraPos: Adaptive Transaction Processing on Hardware Islands", "IEEE ICDE", 2014),
    "003": Paper("Micro-architectural Analysis of In-memory OLTP: Revisited", "The VLDB Journal", 2021),
    "004": Paper("Database Engines on Multicores Scale: A Practical Approach", "ACM SAC", 2015),
}


@dataclass(frozen=True)
class Figure:
    """A figure (or table, or group of them) of a paper: its label as the paper numbers it
    (``000-fig25–28``, ``002-fig1/2``, ``003-fig1, table2``), what it shows, the parameters the
    paper used and the shape it reported."""

    label: str
    paper: str
    what: str
    parameters: str
    shape: str

    @property
    def ids(self) -> tuple[str, ...]:
        """The figure ids the label covers (``000-fig25–28`` → fig25 … fig28; a second
        paper's number in parentheses is left out)."""
        out: list[str] = []
        text = re.sub(r"\(.*?\)", "", self.label)
        for part in re.split(r",\s*", text.strip()):
            m = re.fullmatch(r"(?:(\d{3})-)?(fig|table)(\d+)(?:([–/-])(\d+))?", part.strip())
            if m is None:
                continue
            paper, kind, first, sep, last = m.groups()
            paper = paper or self.paper
            numbers = range(int(first), int(last) + 1) if sep in ("–", "-") else [int(first)]
            if sep == "/":
                numbers = [int(first), int(last)]
            out += [f"{paper}-{kind}{n}" for n in numbers]
        return tuple(out)


#: Every figure and table of the papers that the toolkit mirrors, paper by paper (the
#: parameters scale with the machine: "per-core" is one single-threaded instance per core,
#: "per-socket" one instance per socket, "1ISL" one instance on every core).
CATALOG: tuple[Figure, ...] = (
    Figure(
        "000-fig2 (001 fig6)",
        "000",
        "messaging mechanisms",
        "256 B messages ping-pong between 2 processes, same socket vs different sockets; POSIX message queues, pipes, FIFOs, TCP, unix sockets (+ shared memory)",
        "unix sockets fastest of the OS mechanisms; cross-socket slower",
    ),
    Figure(
        "000-fig5",
        "000",
        "lock-protected counters, placement",
        "all cores; one group of threads per socket, each group increments its own counter; threads spread / grouped / OS",
        "grouped best and least variable; OS worst variability",
    ),
    Figure(
        "000-fig6",
        "000",
        "placement of a small OLTP run",
        "TPC-C Payment, 4 workers: spread (one per socket) / group (one socket) / mix / OS; mean ± sd",
        "group 20–30% faster, least variable",
    ),
    Figure(
        "000-fig7, 001-table1",
        "000",
        "number of counters",
        "all threads; 1 counter / 1 per socket / 1 per core",
        "18.4 / 341.7 / 9527.8 M/s on 80 cores (18.5×, 516.8×)",
    ),
    Figure(
        "000-fig8",
        "000",
        "perfectly partitionable TPC-C",
        "Payment, local only; 1ISL vs per-core",
        "per-core 4.5× on 24 cores",
    ),
    Figure(
        "000-fig11",
        "000",
        "multisite sweep",
        "read 10 rows and update 10 rows; 0–100% multisite (step 10 or 20); 1ISL, per-socket, per-core; cache- and memory-resident; unix sockets",
        "1ISL flat; per-core best at 0% and falls fastest; update falls faster than read; memory-resident costs SN 5–25%",
    ),
    Figure(
        "000-fig12 (001 fig8)",
        "000",
        "micro-architecture per deployment",
        "local read 10 rows; deployments from 1ISL to per-core; IPC, % stalled cycles, % cycles sharing data through LLC, % LLC data misses; cache- and memory-resident",
        "smaller instances: higher IPC, fewer stalls; instances spanning sockets have LLC misses",
    ),
    Figure(
        "000-fig13",
        "000",
        "time per transaction, unix sockets",
        "per-socket deployment; 0/50/100% multisite; read 10 and update 10; stacked µs: xct management, xct execution, communication, locking, logging",
        "read: communication dominates distributed cost; update: communication + logging + locking",
    ),
    Figure(
        "000-fig14",
        "000",
        "fig11 over shared memory",
        "as fig11, cache-resident",
        "at 100% multisite read: per-core +60%, per-socket +25% vs unix sockets; update +22% / +12%",
    ),
    Figure("000-fig15", "000", "fig13 over shared memory", "as fig13", "communication shrinks; update gains little"),
    Figure(
        "000-fig16", "000", "other topologies", "fig11 on 2×8 and 8×10 machines", "trends hold; topology sets the gaps"
    ),
    Figure(
        "000-fig17",
        "000",
        "cost vs rows, read",
        "time per txn vs rows per txn (1 … 100), local (left) and multisite (right); 1, 2, 4, 8, 12, 24 instances",
        "per-core ~40% cheaper locally; multisite cost rises super-linearly until all instances are involved, then flattens; SE worst for large txns",
    ),
    Figure(
        "000-fig18",
        "000",
        "cost vs rows, update",
        "as fig17, updates",
        "multisite SN costlier than SE everywhere; SE rises linearly",
    ),
    Figure(
        "000-fig19",
        "000",
        "scaling with cores",
        "20% multisite, read/update 10 rows, active cores 1 … all; fine-grained, coarse, SE",
        "SN linear; coarse competitive everywhere; SE flattens",
    ),
    Figure(
        "000-fig20",
        "000",
        "Zipf skew",
        "2 rows per txn, skew s from 0 to 1 and beyond, several % multisite; read (top) and update (bottom)",
        "SE hurt by contention on updates; per-core hurt by one overloaded instance; coarse copes best",
    ),
    Figure(
        "000-fig21",
        "000",
        "database size",
        "2 rows, 0% and 20% multisite; rows from cache-resident to beyond memory (disk-backed)",
        "SN advantage shrinks as data leaves the caches; sharp drop beyond the buffer",
    ),
    Figure(
        "000-fig22",
        "000",
        "standard workloads",
        "TPC-B AccountUpdate, TPC-C Payment, TPC-C NewOrder; local-only vs spec remote share (15%, 15%, 1% items ≈ 10% txns); 1ISL, per-socket, per-core; 1 branch/warehouse per core",
        "SN ahead local-only; drops ~22% (TPC-B) with remote; Payment drops more than NewOrder",
    ),
    Figure("000-fig23", "000", "TPC-B vs % remote", "0–100%", "SE flat; coarse and fine SN fall alike"),
    Figure(
        "000-fig24",
        "000",
        "TPC-C Payment vs % remote",
        "0–100%",
        "SN falls sharply (hot warehouse row locked through 2PC)",
    ),
    Figure(
        "000-fig25–28",
        "000",
        "OCC engine (Silo) deployments",
        "fig11 read 10 rows; 4ISL breakdown; cost vs rows; update 2 rows",
        "same trends, steeper; distributed updates abort often",
    ),
    Figure(
        "002-fig1/2",
        "002",
        "IPC and throughput vs sockets",
        "read 1 row, perfectly partitionable, 800 K rows; 1, 2, 4, 8 sockets; SN, centralized SE, PLP",
        "SN linear; SE and PLP fall beyond one socket (centralized structures)",
    ),
    Figure(
        "002-fig3/4",
        "002",
        "multisite updates with shared memory",
        "update 10 rows; 0–100% multisite; fine SN, coarse SN, SE; breakdown for coarse",
        "SN falls; logging and locking grow",
    ),
    Figure(
        "002-table1",
        "002",
        "memory placement",
        "read 100 rows over 1 M rows; local / central / remote allocation, per socket",
        "remote memory costs < 10%",
    ),
    Figure("002-fig5", "002", "HW-aware structures", "fig2 with ATraPos and coarse SN", "ATraPos scales like SN"),
    Figure(
        "002-fig6",
        "002",
        "two-table transaction",
        "centralized, PLP, naive HW-aware, workload-aware, ATraPos",
        "> 4× from partitioning + placement",
    ),
    Figure("002-fig8", "002", "TATP and TPC-C", "per transaction and mix, normalized to PLP", "1.4–6.7×"),
    Figure("002-table2", "002", "monitoring overhead", "TATP transactions", "≤ 3.32%"),
    Figure(
        "002-fig9",
        "002",
        "repartitioning cost",
        "800 K rows; split / merge / rearrange; 1 … 80 actions",
        "linear; 80 rearrangements < 200 ms",
    ),
    Figure(
        "002-fig10",
        "002",
        "workload changes",
        "TATP: UpdSubData 30 s → GetNewDest 30 s → Mix 30 s; per-second throughput",
        "adapts within 5 s (220 → 360 KTPS)",
    ),
    Figure("002-fig11", "002", "skew appears", "GetSubData, at 20 s 50% of requests to 20% of data", "3× over static"),
    Figure(
        "002-fig12",
        "002",
        "a socket fails",
        "GetSubData, one socket's cores removed at 20 s",
        "static −22%; ATraPos +11% over static",
    ),
    Figure(
        "002-fig13",
        "002",
        "frequent changes",
        "A/B alternating; adaptive interval 1 → 8 s",
        "detects within one interval",
    ),
    Figure(
        "003-fig1, table2",
        "003",
        "cycles vs data size",
        "read 1 row; 1 MB, 10 MB, 10 GB, 100 GB (scale to the machine)",
        "retiring < 30% once data leaves the LLC; Dcache dominates",
    ),
    Figure(
        "003-fig5, table3",
        "003",
        "cycles vs work per txn",
        "1, 10, 100 rows; largest data",
        "Icache share falls with longer txns",
    ),
    Figure(
        "003-fig6/7",
        "003",
        "code modules",
        "time inside the engine; call-trace breakdown",
        "index lookup dominates a lean engine",
    ),
    Figure("003-fig8/9, table4", "003", "TPC-B, TPC-C", "largest data", "as the microbenchmark"),
    Figure(
        "003-fig10/11, table5",
        "003",
        "index × compilation",
        "B-tree vs hash, compiled vs not; micro 10 rows and TPC-C",
        "compilation halves Icache stalls, 5–9× throughput",
    ),
    Figure("003-fig12, table6", "003", "data type", "8-byte long vs 50-byte string keys", "strings cost ~30%"),
    Figure("003-fig13/14", "003", "multithreaded", "all cores", "same breakdowns as single-threaded"),
    Figure("003-table7–9", "003", "memory bandwidth", "as fig1, fig5, TPC-C", "far below peak"),
    Figure(
        "004-fig3",
        "004",
        "read-only TPC-C scalability",
        'clients 1 … cores; one shared engine vs "aggregate" (one engine per client)',
        "shared engine flat; aggregate near-linear",
    ),
    Figure(
        "004-fig4",
        "004",
        "mixes × isolation",
        "standard (92% updates), 50-50, 80-20, 100-0; serializable, read committed, snapshot",
        "isolation level barely changes scalability",
    ),
    Figure(
        "004-fig5–8",
        "004",
        "latch-free indexes under table-level 2PL",
        "same mixes, original vs modified",
        "~10× on read-only, near the aggregate",
    ),
)


@dataclass(frozen=True)
class Load:
    """The load a figure's runs offer: the ``driver.clients`` values its experiment files use
    (none where no transaction runs) and why that is the paper's. ``instance_wide``: every worker
    is its own closed-loop client drawing each transaction's home over its instance's sites (a
    shared-everything instance's workers share every site, as the papers' Shore-MT runs did);
    ``workers``: each worker at its own site (per-site locality); ``closed``: clients apart
    from the workers draw homes over the whole database and route each to the instance that
    owns it."""

    clients: tuple[str, ...]
    why: str


_SHARED = (
    "the paper's shared-everything instance (and its coarse islands) served any request on any worker, so two "
    "workers meet on the same rows; with per-site draws 1ISL would never share a site and keep a locality the "
    "paper's did not have (issue 47)"
)
_AS_FIG11 = "not drawn here; would run as Fig 11 (instance_wide): " + _SHARED
_PLP = (
    "the designs compared include PLP, whose workers draw at their own partitions (instance_wide is not for PLP), "
    "so every design gets the same per-site load"
)
_NO_TXN = "no transactions: a hardware benchmark"
_ONE_WORKER = "one single-threaded instance on one core: every load is the same"

#: The load model of every catalog entry, by its label (docs/figures.md's load column;
#: tests/test_load_model.py checks that each experiment file feeding a figure uses one of them).
LOADS: dict[str, Load] = {
    "000-fig2 (001 fig6)": Load((), _NO_TXN + " (messages between two processes)"),
    "000-fig5": Load((), _NO_TXN + " (lock-protected counters)"),
    "000-fig6": Load(
        ("workers",),
        "islands bench placement: one instance's workers each at its own site, so that only where the threads run "
        "differs (the paper ran TPC-C Payment; not aligned with its load yet)",
    ),
    "000-fig7, 001-table1": Load((), _NO_TXN + " (counters)"),
    "000-fig8": Load(
        ("instance_wide",),
        "measured on experiments/000-fig22-tpcc.toml's local-only Payment points: each worker draws its warehouse "
        "over its instance's, so 1ISL's workers update the same Warehouse and District rows, where the paper puts "
        "its 4.5x ('in large part to contention on the Warehouse table')",
    ),
    "000-fig11": Load(("instance_wide",), _SHARED),
    "000-fig12 (001 fig8)": Load(("instance_wide",), "as Fig 11 (its local read): " + _SHARED),
    "000-fig13": Load(("instance_wide",), "as Fig 11; here per-core only, where it equals per-site draws"),
    "000-fig14": Load(("instance_wide",), "as Fig 11: " + _SHARED),
    "000-fig15": Load(("instance_wide",), "as Fig 13"),
    "000-fig16": Load(("instance_wide",), _AS_FIG11),
    "000-fig17": Load(("instance_wide",), "as Fig 11 (the cost of a local transaction includes sharing): " + _SHARED),
    "000-fig18": Load(("instance_wide",), "as Fig 17"),
    "000-fig19": Load(("instance_wide",), _AS_FIG11),
    "000-fig20": Load(
        ("instance_wide", "closed"),
        "000-fig20-skew: instance_wide, the skew within each site, every worker of an instance over its sites "
        "(1ISL's workers meet on the hot rows); 000-fig20-clients: closed clients draw homes over the whole "
        "database with the skew and route each to its instance, so one per-core instance gets the hot rows' "
        "load ('the most loaded instance becomes a bottleneck')",
    ),
    "000-fig21": Load(("instance_wide",), _AS_FIG11),
    "000-fig22": Load(
        ("instance_wide",), "branch / warehouse drawn over the instance's, as the paper's TPC-B and TPC-C drivers"
    ),
    "000-fig23": Load(("instance_wide",), "as Fig 22"),
    "000-fig24": Load(("instance_wide",), "as Fig 22"),
    "000-fig25–28": Load(("instance_wide",), "as Fig 11, on the OCC engine (the paper's Silo runs)"),
    "002-fig1/2": Load(("workers",), "a perfectly partitionable load; " + _PLP),
    "002-fig3/4": Load(("instance_wide",), "paper 000's shared-nothing deployments (as its Fig 11): " + _SHARED),
    "002-table1": Load((), _NO_TXN + " (memory placement)"),
    "002-fig5": Load(("workers",), _PLP),
    "002-fig6": Load(("workers",), _PLP),
    "002-fig8": Load(("workers",), _PLP),
    "002-table2": Load(("workers",), "PLP with the monitor on and off: " + _PLP),
    "002-fig9": Load(("workers",), "PLP's re-partitioning actions timed under a running load: " + _PLP),
    "002-fig10": Load(("workers",), "PLP / ATraPos at run time: " + _PLP),
    "002-fig11": Load(("workers",), "PLP / ATraPos at run time, the skew in the workload's own draw: " + _PLP),
    "002-fig12": Load(("workers",), "PLP / ATraPos at run time: " + _PLP),
    "002-fig13": Load(("workers",), "PLP / ATraPos at run time: " + _PLP),
    "003-fig1, table2": Load(("workers",), _ONE_WORKER),
    "003-fig5, table3": Load(("workers",), _ONE_WORKER),
    "003-fig6/7": Load(("workers",), _ONE_WORKER),
    "003-fig8/9, table4": Load(("workers",), _ONE_WORKER + " (not drawn here)"),
    "003-fig10/11, table5": Load(("workers",), _ONE_WORKER + " (not drawn here)"),
    "003-fig12, table6": Load(("workers",), _ONE_WORKER + " (not drawn here)"),
    "003-fig13/14": Load(("instance_wide",), _AS_FIG11),
    "003-table7–9": Load(("workers",), _ONE_WORKER + " (not drawn here)"),
    "004-fig3": Load(("workers",), "paper 004 gives each client a warehouse of its own ('one warehouse per client')"),
    "004-fig4": Load(("workers",), "as 004 Fig 3"),
    "004-fig5–8": Load(("workers",), "as 004 Fig 3"),
}


#: Figures drawn by a hardware benchmark or a script rather than from a sweep's rows.
BENCH_COMMANDS: dict[str, str] = {
    "000-fig2": "islands bench ipc",
    "000-fig5": "islands bench counters",
    "000-fig6": "islands bench placement",
    "000-fig7": "islands bench counters",
    "001-table1": "islands bench counters",
    "002-table1": "python benchmarks/memory_placement.py",
}

#: Figure id → the function that draws it from a sweep's rows, as "module:function".
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
