"""A discrete-event simulation of a deployment (simpy), for what the closed form leaves out:
skew and the most-loaded instance, lock conflicts, locks held through two-phase commit and
group commit, and workers that wait for votes.

What is simulated (time in microseconds):

- every worker is a process pinned to its own CPU (a simpy ``PriorityResource`` of capacity
  1); between its own transactions it serves the fragments sent to its site first, as the
  engine's worker loop does (``exec/worker_loop.hpp``);
- who starts a transaction (``routing``): ``"home"`` (the default, the client layer's routing,
  :mod:`islands.model.routing`): :data:`CLIENTS_PER_WORKER` closed-loop clients per worker
  each draw a home row by Zipf ``zipf_s`` over all rows (the hottest in the first site) and
  queue the transaction at the instance that owns it, whose workers take them in turn; under
  skew the first instance's queue grows, it saturates and the clients of the others wait in
  it. ``"worker"``: every worker is its own client and starts its transactions at its own
  site (the engine's runs today, issue 29);
- a transaction's other rows are drawn as the engine's microbenchmark does: from the home
  site (local) or from all sites (multisite), Zipf-distributed with exponent ``zipf_s`` over
  the site (local) or over all rows (multisite); a remote TPC-B teller or Payment customer
  comes from another site, the Zipf's first outside the home site under ``"home"`` routing;
- local work costs the closed form's local time per transaction
  (:func:`islands.model.predict.instance_costs`), split evenly over the rows; a distributed
  transaction sends a fragment to each other instance holding some of its rows (a one-way
  message takes ``latency`` µs: half the transport's measured round trip), the participant's
  worker runs the fragment's rows and its share of the per-participant overhead (the
  calibrated cost less the round trips, which are now simulated as waiting), votes back;
  updates then flush the decision and send phase 2 (a second round), and every lock of the
  transaction is held until phase 2 has reached it;
- locks: no-wait row locks (shared for reads, exclusive for updates; the sweeps'
  ``lock_policy = "no_wait"``): a conflict aborts the attempt, which releases its locks and is
  retried after a short backoff;
- group commit: each instance's flusher writes, one flush after the other, what was appended
  before the flush began; a flush takes ``flush_us`` plus its bytes over the log's write
  bandwidth (``log.write_mb_s``; each commit appends the bytes
  :func:`islands.model.predict.log_limit` counts), so that an instance commits no faster than
  its log writes; a local update's locks are released once its record is appended (early
  lock release, the engine's default) and its commit counted at the end of the flush that
  writes its record (the one after the flush in progress); a worker has at most
  :data:`MAX_PENDING` commits waiting for their flush; a distributed update's coordinator
  waits for its flush before the decision, and every lock is held until phase 2.

``simulate_deployment(..., latency=False, coordinator_share=1.0, flush_us=0)`` charges every
cost to the initiating worker and waits for nothing: then it is the closed form, which the
tests check (with ``routing="worker"``: routed clients add queueing, about 1% at uniform load with
:data:`CLIENTS_PER_WORKER` clients per worker). The module-level :func:`events_per_second`
says how fast simpy runs it here.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import simpy

from islands.machine.placement import Deployment, plan_deployment
from islands.machine.topology import Topology
from islands.model.fragment_overlap import COORDINATOR_SHARE
from islands.model.machine_profile import MachineProfile, profile_for
from islands.model.parameters import Parameters, default_parameters
from islands.model.predict import instance_costs, log_limit
from islands.model.workload_spec import READ, ModelWorkload
from islands.model.zipf_ranks import ZipfRanks

__all__ = ["SimulationResult", "events_per_second", "simulate_deployment"]

#: Backoff before an aborted attempt is retried (µs).
RETRY_BACKOFF_US = 1.0
#: Closed-loop clients per worker under ``"home"`` routing: enough that at uniform load an
#: instance's queue is seldom empty (per-core on the 4x6 fixture, 10-row reads: within 1% of
#: workers as their own clients; with 4 per worker, 10% below).
CLIENTS_PER_WORKER = 16
#: How transactions reach the workers (module docstring).
ROUTINGS = ("home", "worker")
#: Commits a worker may have waiting for their flush before it waits too (the engine's
#: ``log.max_pending`` default).
MAX_PENDING = 1024
#: Draws of a row already in the transaction before the next free row is taken instead (the
#: engine's ``pick_distinct`` does the same after 64).
MAX_REDRAWS = 64
#: Redraws of a whole transaction before every further taken draw walks instead.
MAX_TXN_REDRAWS = 64 * 64


@dataclass(frozen=True)
class SimulationResult:
    """Committed transactions per second over the simulated window, the abort rate, each
    instance's throughput and how many simpy events the run took (and how long, in seconds
    of this machine's time)."""

    deployment: str
    throughput: float
    abort_rate: float
    per_instance: tuple[float, ...]
    commits: int
    events: int
    wall_s: float
    notes: tuple[str, ...] = field(default=())
    #: each instance's share of the transactions started (routing sends them home)
    started_share: tuple[float, ...] = field(default=())
    #: the busy share of each instance's workers' time over the window
    utilization: tuple[float, ...] = field(default=())
    routing: str = "worker"

    @property
    def most_loaded_share(self) -> float:
        """The busiest instance's share of the commits started (1/N when balanced)."""
        total = sum(self.per_instance)
        return max(self.per_instance) / total if total else math.nan


class _Zipf:
    """Draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s (s = 0: uniform), in
    batches by :class:`~islands.model.zipf_ranks.ZipfRanks` (numpy's zipf needs s > 1; the
    table is bounded whatever n is)."""

    def __init__(self, n: int, s: float, rng: np.random.Generator) -> None:
        self.n, self.s, self.rng = n, s, rng
        self.table = ZipfRanks(n, s)
        self.batch: list[int] = []

    def __len__(self) -> int:
        return self.n

    def draw(self) -> int:
        if not self.batch:
            u = self.rng.random(4096)
            self.batch = self.table.ranks(u).tolist()
        return self.batch.pop()


class _Sim:
    def __init__(
        self,
        topology: Topology,
        deployment: Deployment,
        workload: ModelWorkload,
        parameters: Parameters,
        transport: str,
        profile: MachineProfile,
        speed: float,
        latency: bool,
        coordinator_share: float,
        flush_us: float,
        seed: int,
        routing: str = "worker",
    ) -> None:
        self.env = simpy.Environment()
        self.routing = routing
        self.workload = workload
        self.deployment = deployment
        self.rng = np.random.default_rng(seed)
        costs: dict[str, Any] = dict(parameters.costs)
        self.sites = deployment.n_cpus
        self.instance_of_site: list[int] = []
        for i, cpus in enumerate(deployment.instances):
            self.instance_of_site += [i] * len(cpus)
        self.local_us: list[float] = []
        self.overhead_us: list[float] = []
        for i in range(deployment.n_instances):
            parts, q, comm = instance_costs(costs, topology, deployment, i, workload, transport, profile, speed)
            self.local_us.append(float(sum(v for k, v in parts.items() if k != "communication")))
            m = max(_expected_participants(workload, deployment, i), 1e-9)
            self.overhead_us.append(float(comm) / m if q > 0 else 0.0)
        rtt = costs.get(f"message.{transport}.round_trip_us", 0.0) * speed
        self.latency_us = rtt / 2 if latency else 0.0
        if latency:
            # The calibrated per-participant cost was measured with its round trips in it (the
            # coordinator waited for them); simulated as latency, they leave the work.
            rounds = 2 if workload.update else 1
            self.overhead_us = [max(o - rounds * rtt, 0.0) for o in self.overhead_us]
        self.coordinator_share = coordinator_share
        self.flush_us = flush_us
        self.cpu = [simpy.PriorityResource(self.env, capacity=1) for _ in range(self.sites)]
        self.locks: dict[int, list[int]] = {}  # row -> [mode (1 shared, 2 exclusive), holders]
        self.rows_per_site = workload.rows_per_site
        self.site_zipf = _Zipf(workload.rows_per_site, workload.zipf_s, self.rng)
        self.all_zipf = _Zipf(workload.rows_per_site * self.sites, workload.zipf_s, self.rng)
        self.unit = self.rng.random
        self.queues = [simpy.Store(self.env) for _ in range(deployment.n_instances)]
        self.busy_us = [0.0] * self.sites
        self.commits = [0] * deployment.n_instances
        self.started = [0] * deployment.n_instances
        self.aborts = 0
        self.measuring = False
        # Each instance's records since the last flush began: their bytes, how many, and the
        # event of the flush that will write them.
        self.batch_done = [self.env.event() for _ in range(deployment.n_instances)]
        self.batch_records = [0] * deployment.n_instances
        self.appended = [0.0] * deployment.n_instances
        self.has_data: list[Any] = [None] * deployment.n_instances
        limit = float(log_limit(costs, workload))  # commits/s the log writes at flush_us = 0
        bandwidth = costs.get("log.write_mb_s", math.inf)  # bytes per µs
        self.record_bytes = bandwidth * 1e6 / limit if math.isfinite(limit) else 0.0
        self.bytes_per_us = bandwidth
        #: whether commits wait for a flush: logged updates with a flush time or a log limit
        self.group_commit = workload.logs and (flush_us > 0 or self.record_bytes > 0)
        self.events = 0

    # Locks --------------------------------------------------------------------------

    def try_lock(self, rows: list[int], exclusive: bool) -> bool:
        mode = 2 if exclusive else 1
        for r in rows:
            held = self.locks.get(r)
            if held is not None and (held[0] == 2 or mode == 2):
                return False
        for r in rows:
            held = self.locks.get(r)
            if held is None:
                self.locks[r] = [mode, 1]
            else:
                held[1] += 1
        return True

    def unlock(self, rows: list[int]) -> None:
        for r in rows:
            held = self.locks[r]
            held[1] -= 1
            if held[1] == 0:
                del self.locks[r]

    # Group commit -------------------------------------------------------------------

    def flusher(self, instance: int) -> Generator[Any, Any, None]:
        while True:
            if not self.batch_records[instance]:
                # Nothing to write: wait for a record, as the engine's flusher waits on its
                # condition variable.
                self.has_data[instance] = self.env.event()
                yield self.has_data[instance]
            # This flush writes the records appended so far; later ones wait for the next.
            written, done = self.appended[instance], self.batch_done[instance]
            self.appended[instance], self.batch_records[instance] = 0.0, 0
            self.batch_done[instance] = self.env.event()
            yield self.env.timeout(self.flush_us + written / self.bytes_per_us)
            done.succeed()

    def durable(self, instance: int) -> Any:
        """Appends a commit record to ``instance``'s log; returns the event of the flush that
        makes it durable: the next one to begin (a record misses the flush already under way)."""
        self.appended[instance] += self.record_bytes
        self.batch_records[instance] += 1
        waiting = self.has_data[instance]
        if waiting is not None and not waiting.triggered:
            waiting.succeed()
        return self.batch_done[instance]

    # Transactions -------------------------------------------------------------------

    def draw_rows(self, home: int) -> tuple[list[int], bool]:
        w = self.workload
        base = home * self.rows_per_site
        # One site has no other site for a remote teller or customer to come from.
        multisite = self.unit() < w.multisite_share and (self.sites > 1 or w.per_row)
        rows = [base + self.site_zipf.draw()]
        want = w.rows if w.per_row else 1 + (1 if multisite else 0)
        self._add_rows(rows, want, multisite, base, lambda: self._other_site_row(home))
        return rows, multisite

    def _add_rows(self, rows: list[int], want: int, multisite: bool, base: int, other: Callable[[], int]) -> None:
        """Draws rows until ``rows`` holds ``want`` distinct ones, as the engine's
        ``pick_distinct`` does: a draw already taken is drawn again, and past
        :data:`MAX_REDRAWS` of them (only under steep skew) walks to the next free row of the
        range drawn from, so that the loop ends (``rows <= rows_per_site``, checked by
        ``ModelWorkload``, leaves a free row in every range). A transaction redraws at most
        :data:`MAX_TXN_REDRAWS` times in all (the engine has no such cap; it binds only when
        thousands of rows are drawn under a skew that makes the first few nearly certain,
        where the engine too mostly walks), so that drawing costs O(rows + 4096)."""
        w = self.workload
        taken = set(rows)
        # The walk's shortcuts: a taken row -> a row at or after it that was free when last
        # looked (path-compressed, so a walk over k taken rows is not repeated k times).
        after: dict[int, int] = {}
        redraws = 0
        while len(rows) < want:
            if multisite and not w.per_row:
                r = other()  # another site's row, never the home row
            else:
                zipf, start = (self.all_zipf, 0) if multisite else (self.site_zipf, base)
                n = len(zipf)
                r = start + zipf.draw()
                tries = 0
                while r in taken and tries < MAX_REDRAWS and redraws < MAX_TXN_REDRAWS:
                    tries += 1
                    redraws += 1
                    r = start + zipf.draw()
                path = []
                while r in taken:
                    path.append(r)
                    r = after.get(r, start + (r - start + 1) % n)
                for p in path:
                    after[p] = r
            if r not in taken:
                rows.append(r)
                taken.add(r)

    def draw_routed(self) -> tuple[list[int], int]:
        """A transaction as a client draws it: its home row by Zipf over all rows, then the
        rest as :meth:`draw_rows` does from that row's site; returns the rows and the instance
        that owns the home row."""
        w = self.workload
        home_row = self.all_zipf.draw()
        home = home_row // self.rows_per_site
        base = home * self.rows_per_site
        # One site has no other site for a remote teller or customer to come from.
        multisite = self.unit() < w.multisite_share and (self.sites > 1 or w.per_row)
        rows = [home_row]
        want = w.rows if w.per_row else 1 + (1 if multisite else 0)
        self._add_rows(rows, want, multisite, base, lambda: self._skewed_other_site_row(home))
        return rows, self.instance_of_site[home]

    def _skewed_other_site_row(self, home: int) -> int:
        for _ in range(64):
            r = self.all_zipf.draw()
            if r // self.rows_per_site != home:
                return r
        return self._other_site_row(home)

    def client(self) -> Generator[Any, Any, None]:
        while True:
            rows, instance = self.draw_routed()
            done = self.env.event()
            yield self.queues[instance].put((rows, done))
            yield done

    def _other_site_row(self, home: int) -> int:
        site = int(self.unit() * (self.sites - 1))
        site += site >= home
        return site * self.rows_per_site + self.site_zipf.draw()

    def work(self, site: int, us: float, priority: int) -> Generator[Any, Any, None]:
        with self.cpu[site].request(priority=priority) as req:
            yield req
            yield self.env.timeout(us)
        if self.measuring:
            self.busy_us[site] += us
        self.events += 2

    def fragment(
        self, site: int, rows: list[int], us: float, exclusive: bool, vote: Any, decision: Any
    ) -> Generator[Any, Any, None]:
        if self.latency_us:
            yield self.env.timeout(self.latency_us)
        ok = self.try_lock(rows, exclusive)
        yield from self.work(site, us if ok else us * 0.1, 0)
        if self.latency_us:
            yield self.env.timeout(self.latency_us)
        vote.succeed(ok)
        if ok:
            if exclusive:
                yield decision  # phase 2: locks held until the decision arrives
                if self.latency_us:
                    yield self.env.timeout(self.latency_us)
            self.unlock(rows)

    def worker(self, site: int) -> Generator[Any, Any, None]:
        instance = self.instance_of_site[site]
        w = self.workload
        n_rows_work = w.rows if w.per_row else 1
        pending: deque[Any] = deque()  # this worker's commits waiting for their flush
        while True:
            while pending and pending[0].triggered:
                pending.popleft()
            if len(pending) >= MAX_PENDING:
                yield pending[0]  # as the engine's worker, which has log.max_pending in flight
                continue
            done = None
            if self.routing == "home":
                rows, done = yield self.queues[instance].get()
            else:
                rows, _ = self.draw_rows(site)
            if self.measuring:
                self.started[instance] += 1
            committed = False
            while not committed:
                by_instance: dict[int, list[int]] = {}
                for r in rows:
                    by_instance.setdefault(self.instance_of_site[r // self.rows_per_site], []).append(r)
                mine = by_instance.pop(instance, [])
                per_row = self.local_us[instance] / n_rows_work
                overhead = self.overhead_us[instance]
                if not by_instance:
                    if not self.try_lock(mine, w.update):
                        yield from self.work(site, per_row, 1)
                        self.aborts += self.measuring
                        yield self.env.timeout(RETRY_BACKOFF_US)
                        continue
                    yield from self.work(site, self.local_us[instance], 1)
                    committed = True
                    if self.group_commit:
                        # Early lock release (log.early_lock_release, on by default): the
                        # locks go once the record is appended; the commit counts once durable.
                        self.unlock(mine)
                        flushed = self.durable(instance)
                        pending.append(flushed)
                        self.env.process(self._count_after(flushed, instance, done))
                    else:
                        self.unlock(mine)
                        self.commits[instance] += self.measuring
                        if done is not None:
                            done.succeed()
                    continue
                # Distributed: fragments out, our part, votes in, decision.
                share = self.coordinator_share
                votes, decision = [], self.env.event()
                for their_rows in by_instance.values():
                    vote = self.env.event()
                    votes.append(vote)
                    target = their_rows[0] // self.rows_per_site  # the worker owning the site
                    us = len(their_rows) * per_row + (1 - share) * overhead
                    self.env.process(self.fragment(target, their_rows, us, w.update, vote, decision))
                ok = self.try_lock(mine, w.update)
                base_us = len(mine) * per_row + (self.local_us[instance] - n_rows_work * per_row)
                yield from self.work(site, base_us + share * overhead * len(by_instance), 1)
                results = yield simpy.AllOf(self.env, votes)
                all_ok = ok and all(results.values())
                if all_ok and self.group_commit:
                    yield self.durable(instance)
                decision.succeed(all_ok)
                if ok:
                    self.unlock(mine)
                if all_ok:
                    committed = True
                    self.commits[instance] += self.measuring
                    if done is not None:
                        done.succeed()
                else:
                    self.aborts += self.measuring
                    yield self.env.timeout(RETRY_BACKOFF_US)

    def _count_after(self, event: Any, instance: int, done: Any = None) -> Generator[Any, Any, None]:
        yield event
        self.commits[instance] += self.measuring
        if done is not None:
            done.succeed()


def _expected_participants(workload: ModelWorkload, deployment: Deployment, instance: int) -> float:
    from islands.model.workload_spec import participants

    return participants(workload, [len(c) for c in deployment.instances], instance)[1]


def simulate_deployment(
    topology: Topology,
    deployment: Deployment | str | int,
    workload: ModelWorkload,
    parameters: Parameters | None = None,
    *,
    transport: str = "unix",
    profile: MachineProfile | str | None = None,
    duration_us: float = 20_000.0,
    warmup_us: float = 2_000.0,
    latency: bool = True,
    coordinator_share: float = COORDINATOR_SHARE,
    flush_us: float | None = None,
    seed: int = 1,
    routing: str = "home",
) -> SimulationResult:
    """Simulates ``deployment`` running ``workload`` for ``duration_us`` after ``warmup_us``
    (simulated microseconds) and returns its throughput. Costs as
    :func:`islands.model.predict.predict` takes them; ``flush_us`` defaults to the
    parameters' ``log.flush_us`` (0 where they have none: no group commit delay); ``routing``
    is ``"home"`` (clients routed to the home row's instance) or ``"worker"`` (each worker its
    own client; module docstring)."""
    parameters = parameters or default_parameters()
    if not isinstance(deployment, Deployment):
        deployment = plan_deployment(topology, deployment)
    if not isinstance(profile, MachineProfile):
        profile = profile_for(topology, profile)
    if not 0.0 <= coordinator_share <= 1.0:
        raise ValueError(f"coordinator_share: {coordinator_share!r} is not in [0, 1]")
    if routing not in ROUTINGS:
        raise ValueError(f"routing: {routing!r} is not one of {', '.join(ROUTINGS)}")
    calibrated_ghz = float(parameters.machine.get("ghz", math.nan))
    speed = 1.0 if profile.shape is None or not calibrated_ghz > 0 else calibrated_ghz / profile.ghz
    flush = parameters.get("log.flush_us", 0.0) if flush_us is None else flush_us
    sim = _Sim(
        topology,
        deployment,
        workload,
        parameters,
        transport,
        profile,
        speed,
        latency,
        coordinator_share,
        flush if workload.logs else 0.0,
        seed,
        routing,
    )
    start = time.perf_counter()
    for site in range(sim.sites):
        sim.env.process(sim.worker(site))
    if routing == "home":
        for _ in range(CLIENTS_PER_WORKER * sim.sites):
            sim.env.process(sim.client())
    if sim.group_commit:
        for i in range(deployment.n_instances):
            sim.env.process(sim.flusher(i))
    sim.env.run(until=warmup_us)
    sim.measuring = True
    sim.env.run(until=warmup_us + duration_us)
    wall = time.perf_counter() - start
    commits = sum(sim.commits)
    attempts = commits + sim.aborts
    started = sum(sim.started)
    utilization = []
    site = 0
    for cpus in deployment.instances:
        utilization.append(sum(sim.busy_us[site : site + len(cpus)]) / (len(cpus) * duration_us))
        site += len(cpus)
    return SimulationResult(
        deployment=deployment.name,
        throughput=commits / duration_us * 1e6,
        abort_rate=sim.aborts / attempts if attempts else math.nan,
        per_instance=tuple(c / duration_us * 1e6 for c in sim.commits),
        commits=commits,
        events=sim.events,
        wall_s=wall,
        started_share=tuple(x / started if started else math.nan for x in sim.started),
        utilization=tuple(utilization),
        routing=routing,
    )


def events_per_second(topology: Topology, parameters: Parameters | None = None) -> float:
    """simpy events simulated per second of this machine's time, on a per-core deployment of
    ``topology`` running the 20%-multisite 10-row read microbenchmark."""
    result = simulate_deployment(
        topology, "per-core", ModelWorkload(READ, multisite=0.2), parameters, duration_us=5_000.0
    )
    return result.events / result.wall_s if result.wall_s > 0 else math.nan
