"""Throughput of any deployment on any topology, from calibrated costs: the cost-weighted
Islands model (:mod:`islands.model.closed_form`) with its terms built from components.

For each instance (``n`` worker threads on the NUMA nodes its CPUs sit on), the time one
worker spends per committed transaction, in microseconds::

    t = speed * (exec + contention + remote_memory + logging) + q * m * communication

- ``exec``: ``local.<family>.<cc>.txn_us`` (+ rows x ``...row_us`` for the microbenchmark),
  ``cc`` ``none`` for a single-threaded instance, ``2pl`` otherwise (the sweeps' ``cc = auto``);
- ``contention``: ``exec * contention_per_thread * (n - 1) * a``, ``a`` the mean over pairs of
  the instance's threads of how much dearer a cache line is between them than within a socket
  (:meth:`~islands.model.machine_profile.MachineProfile.line_ratio` of their NUMA distance),
  plus, for distributed updates, the time local transactions wait on rows other instances'
  transactions hold through two-phase commit (:mod:`islands.model.hold_conflicts`: TPC-B's
  10 tellers per branch, paper 000 Sec 8.1);
- ``remote_memory``: ``exec * memory.share * (r - 1)``, ``r`` the mean over (thread, data site)
  pairs of the NUMA distance / 10 (the table's relative latency; sites are loaded by their
  owners, so a thread's data sits on the instance's nodes in proportion to its CPUs);
- ``logging``: for transactions that log (every update, unless the workload says unlogged),
  the worker's part ``log.update_us`` (``log.2pl.update_us`` for a 2PL instance) plus the
  instance's log flusher's CPU per commit ``log.flusher_us``: the flusher is one more thread
  on the instance's cores, and where every core runs a worker (every deployment here) the time
  it takes is the workers'. (Calibrating ``log.update_us`` on one worker leaves the second core
  free for the flusher; without ``log.flusher_us`` a shared logged instance was overpredicted
  2.3x on this machine.) Rows scale with the workload: a microbenchmark update of ``r`` rows
  logs ``r``/10 of the 10-row figure's bytes;
- ``q`` = multisite share x probability a multisite transaction leaves the instance, ``m`` the
  expected instances it involves (:func:`islands.model.workload_spec.participants`) and
  ``communication`` = ``speed * distr.<transport>.<op>.participant_us`` plus, per message (2
  for reads, 4 for updates), :data:`LINES_PER_MESSAGE` lines moved at the target's extra
  cost for the distance between the two instances, less the participant's work on fragments
  that arrive while the worker waits for its own votes (:mod:`islands.model.fragment_overlap`).

``speed`` is the calibrated machine's clock over the target's (1 on the machine itself). The
instance's throughput is ``n / t``, but at most its log's throughput limit: one log per
instance, written by one flusher, absorbs at most ``log.write_mb_s`` (the log device's
measured write bandwidth) / the bytes a commit appends (``log.bytes_per_commit`` for a 10-row
microbenchmark update, scaled by each kind's ``log_rows`` for the others): a shared-everything
instance of many cores is log-bound (what 000's shared-everything needed Aether for). Where the
limit binds, the time it adds per transaction counts as logging. The deployment's throughput
is the sum over its instances. The interval samples every
measured cost from its spread (lognormal, :data:`SAMPLES` draws, 10th-90th percentile) and
widens that by the parameters' ``model_error``.

What the closed form leaves out (skew, lock conflicts, the most-loaded instance) is the
simulation's (:mod:`islands.model.simulation`). For a skewed workload (Zipf ``s`` > 0) the
closed form does not apply: transactions routed to their home row's instance load the first
instance beyond its share (:mod:`islands.model.routing`) and hot rows conflict. The prediction
then says so (``applies`` false, a note naming the hot instance's share and the bound it sets)
rather than answer as if the load were uniform.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from islands.config.settings import default_cc
from islands.machine.placement import Deployment, plan_deployment
from islands.machine.topology import Topology
from islands.model.fragment_overlap import COORDINATOR_SHARE, overlap
from islands.model.hold_conflicts import blocking_us
from islands.model.machine_profile import MachineProfile, profile_for
from islands.model.parameters import Parameters, default_parameters
from islands.model.workload_spec import ModelWorkload, participants

__all__ = ["COMPONENTS", "LINES_PER_MESSAGE", "Prediction", "instance_costs", "log_limit", "predict"]

#: The cost components a prediction breaks a transaction into, in this order.
COMPONENTS = ("execution", "contention", "remote memory", "logging", "communication")
#: Cache lines one message moves between the sender's and the receiver's core (a 64-256 byte
#: fragment or vote plus the ring's or socket buffer's bookkeeping); an assumption.
LINES_PER_MESSAGE = 4
#: Parameter draws behind an interval.
SAMPLES = 400
#: Transports the model knows (those the engine has).
TRANSPORTS = ("unix", "shm")


@dataclass(frozen=True)
class Prediction:
    """Predicted throughput (committed transactions per second) of one deployment, with an
    interval ``low``..``high``, the cost that dominates a transaction's time, the time per
    transaction by component (``breakdown``, microseconds of a worker, averaged over the
    deployment's transactions) and what the paper's linear form would say."""

    deployment: str
    throughput: float
    low: float
    high: float
    dominant_cost: str
    breakdown: dict[str, float] = field(default_factory=dict)
    linear_throughput: float = math.nan
    distributed_share: float = 0.0
    notes: tuple[str, ...] = ()
    #: the simulation's throughput (:mod:`islands.model.simulation`), NaN where not simulated
    simulated: float = math.nan
    #: whether the closed form applies to the workload (not under skew: see the notes)
    applies: bool = True
    #: the throughput under each parameter draw (the first: the parameters themselves); two
    #: predictions with the same parameters and seed share their draws, so ratios pair up
    samples: tuple[float, ...] = field(default=(), repr=False, compare=False)

    @property
    def simulated_interval(self) -> tuple[float, float]:
        """The simulated throughput's interval: the closed form's relative interval (the
        parameters' spread and the model's error) around it; NaN where not simulated."""
        if self.simulated != self.simulated or not self.throughput > 0:
            return math.nan, math.nan
        return self.simulated * self.low / self.throughput, self.simulated * self.high / self.throughput

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        sim_low, sim_high = self.simulated_interval
        return {
            "deployment": self.deployment,
            "throughput": self.throughput,
            "low": self.low,
            "high": self.high,
            "dominant_cost": self.dominant_cost,
            "breakdown": dict(self.breakdown),
            "linear_throughput": self.linear_throughput,
            "distributed_share": self.distributed_share,
            "simulated": self.simulated,
            "simulated_low": sim_low,
            "simulated_high": sim_high,
            "applies": self.applies,
            "notes": list(self.notes),
        }


def _node_weights(topology: Topology, cpus: Sequence[int]) -> dict[int, float]:
    nodes: dict[int, float] = {}
    for cpu in cpus:
        node = topology.numa_node_of(cpu)
        nodes[node] = nodes.get(node, 0.0) + 1.0 / len(cpus)
    return nodes


def _mean_over(topology: Topology, a: dict[int, float], b: dict[int, float], f: Any) -> float:
    return sum(wa * wb * f(topology.distance(na, nb)) for na, wa in a.items() for nb, wb in b.items())


def _pair_mean(topology: Topology, cpus: Sequence[int], f: Any) -> float:
    """Mean of ``f(distance)`` over ordered pairs of distinct CPUs (1.0's f for one CPU)."""
    n = len(cpus)
    if n < 2:
        return float(f(10))
    w = _node_weights(topology, cpus)
    counts = {node: share * n for node, share in w.items()}
    total = 0.0
    for na, ca in counts.items():
        for nb, cb in counts.items():
            pairs = ca * (cb - 1) if na == nb else ca * cb
            total += pairs * f(topology.distance(na, nb))
    return total / (n * (n - 1))


def _draws(parameters: Parameters, samples: int, seed: int) -> dict[str, Any]:
    """Each cost as an array: the value, then ``samples - 1`` lognormal draws around it (median
    the value, log-sd ``ln(1 + spread)``: a relative error of 100% is a factor of 2 either
    way, and a cost never goes negative)."""
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {}
    for key, value in sorted(parameters.costs.items()):
        sigma = math.log1p(float(parameters.spread.get(key, 0.0)))
        factors = np.exp(rng.normal(0.0, sigma, samples - 1)) if sigma > 0 else np.ones(samples - 1)
        out[key] = np.concatenate([[value], value * factors])
    return out


def _need(costs: dict[str, Any], key: str) -> Any:
    if key not in costs:
        raise ValueError(f"the model's parameters have no {key!r}: run 'islands calibrate' with what measures it")
    return costs[key]


def instance_costs(
    costs: dict[str, Any],
    topology: Topology,
    deployment: Deployment,
    instance: int,
    workload: ModelWorkload,
    transport: str,
    profile: MachineProfile,
    speed: float,
) -> tuple[dict[str, Any], Any, Any]:
    """Time per transaction of one worker of ``instance`` by component (µs, arrays over the
    parameter draws), the multisite share ``q`` that leaves the instance and the
    communication time of one distributed transaction."""
    cpus = deployment.instances[instance]
    n = len(cpus)
    cc = default_cc([n])
    family, op = workload.family, workload.op
    if workload.per_row:
        execution = _need(costs, f"local.{family}.{cc}.txn_us") + workload.rows * _need(
            costs, f"local.{family}.{cc}.{op}.row_us"
        )
    else:
        execution = _need(costs, f"local.{family}.{cc}.txn_us")
    amp = _pair_mean(topology, cpus, profile.line_ratio)
    contention = execution * costs.get("local.contention_per_thread", 0.0) * (n - 1) * amp
    weights = _node_weights(topology, cpus)
    r_mem = _mean_over(topology, weights, weights, lambda d: d / 10.0)
    remote = execution * costs.get("memory.share", 0.5) * (r_mem - 1.0)
    log_key = "log.2pl.update_us" if cc == "2pl" and "log.2pl.update_us" in costs else "log.update_us"
    if workload.logs:
        logging = costs.get(log_key, 0.0) + costs.get("log.flusher_us", 0.0) + 0.0 * execution
    else:
        logging = 0.0 * execution
    sizes = [len(c) for c in deployment.instances]
    p_dist, m = participants(workload, sizes, instance)
    q = workload.multisite_share * p_dist
    if q > 0:
        if transport not in TRANSPORTS:
            raise ValueError(f"transport {transport!r}: choose one of {', '.join(TRANSPORTS)}")
        # Participants are drawn in proportion to the other instances' sites: the mean extra
        # line cost is over their nodes, weighted so.
        others = [j for j in range(len(sizes)) if j != instance]
        total = sum(sizes[j] for j in others)
        theirs: dict[int, float] = {}
        for j in others:
            for node, share in _node_weights(topology, deployment.instances[j]).items():
                theirs[node] = theirs.get(node, 0.0) + share * sizes[j] / total
        extra_ns = _mean_over(topology, weights, theirs, lambda d: profile.line_ns(d) - profile.line_ns(10))
        messages = 4 if workload.update else 2
        per_participant = speed * _need(costs, f"distr.{transport}.{op}.participant_us")
        communication = m * (per_participant + messages * LINES_PER_MESSAGE * extra_ns / 1e3)
    else:
        communication = 0.0 * execution
    parts = {
        "execution": speed * execution,
        "contention": speed * contention,
        "remote memory": speed * remote,
        "logging": speed * logging + 0.0 * execution,
        "communication": q * communication,
    }
    return parts, q, communication


def log_limit(costs: dict[str, Any], workload: ModelWorkload) -> Any:
    """Commits per second one instance's log absorbs (arrays over the draws): the log's write
    bandwidth over the bytes a commit appends; ``inf`` where the workload does not log or the
    parameters lack either figure (an older calibration)."""
    if not workload.logs or "log.write_mb_s" not in costs or "log.bytes_per_commit" not in costs:
        return math.inf
    # rows a commit's record carries, relative to the 10-row microbenchmark update whose bytes
    # calibration measures (workload_spec.Kind.log_rows: TPC-B updates account, teller and
    # branch and inserts a history row; Payment likewise; NewOrder of 10 lines 23 rows)
    rows = workload.log_rows
    return costs["log.write_mb_s"] * 1e6 / (costs["log.bytes_per_commit"] * rows / 10.0)


def predict(
    topology: Topology,
    deployment: Deployment | str | int,
    workload: ModelWorkload,
    parameters: Parameters | None = None,
    *,
    transport: str = "unix",
    profile: MachineProfile | str | None = None,
    samples: int = SAMPLES,
    seed: int = 0,
    coordinator_share: float = COORDINATOR_SHARE,
) -> Prediction:
    """Predicted throughput of ``deployment`` (a :class:`~islands.machine.placement.Deployment` or a
    spec :func:`~islands.machine.placement.plan_deployment` takes: ``"4ISL"``, ``"per-core"``, ...)
    on ``topology`` for ``workload``, with ``parameters`` (default: the package's reference
    ones) and the hardware costs of ``profile`` (a profile, a name of
    :data:`~islands.model.machine_profile.PROFILES`, or ``None``: the one whose shape matches
    the topology, else this machine). ``coordinator_share``: the coordinator's part of a
    distributed transaction's cost, the rest hides in the participant's own waits
    (:mod:`islands.model.fragment_overlap`; 1: nothing hides, as the simulation charging every
    cost to the coordinator). Raises ``ValueError`` for a deployment that does not fit or
    parameters that lack a cost the prediction needs."""
    parameters = parameters or default_parameters()
    if not isinstance(deployment, Deployment):
        deployment = plan_deployment(topology, deployment)
    if not isinstance(profile, MachineProfile):
        profile = profile_for(topology, profile)
    calibrated_ghz = float(parameters.machine.get("ghz", math.nan))
    here = profile.shape is None
    speed = 1.0 if here or not calibrated_ghz > 0 else calibrated_ghz / profile.ghz
    costs = _draws(parameters, max(samples, 1), seed)
    total = 0.0
    linear = 0.0
    breakdown_sum = dict.fromkeys(COMPONENTS, 0.0)
    throughput = np.zeros(max(samples, 1))
    distributed = 0.0
    bound = 0
    capacities = []
    for i, cpus in enumerate(deployment.instances):
        parts, q, communication = instance_costs(costs, topology, deployment, i, workload, transport, profile, speed)
        if q > 0:
            # Rows held through two-phase commit block this instance's local transactions
            # (islands.model.hold_conflicts): lock contention, drawn by the simulation instead;
            # and the fragments it serves while it waits for its own votes cost it nothing
            # (islands.model.fragment_overlap).
            local = parts["execution"] + parts["contention"] + parts["remote memory"] + parts["logging"]
            sizes = [len(c) for c in deployment.instances]
            held = blocking_us(workload, sizes, i, communication, local)
            hidden = overlap(local, parts["communication"], held / parts["communication"], coordinator_share)
            parts["contention"] = parts["contention"] + held
            parts["communication"] = parts["communication"] * (1 - hidden)
        t = sum(parts.values())
        # The instance's log caps its commits: the time the cap adds is logging.
        limited_t = np.maximum(t, len(cpus) * 1e6 / log_limit(costs, workload))
        if np.any(limited_t > t):
            parts["logging"] = parts["logging"] + (limited_t - t)
            bound += int(limited_t[0] > t[0])
            t = limited_t
        inst = len(cpus) / t * 1e6
        throughput = throughput + inst
        value = float(inst[0])
        capacities.append(value)
        total += value
        t_local = float(t[0] - parts["communication"][0])
        t_distr = t_local + float(np.asarray(communication)[0]) if q > 0 else t_local
        linear += (1 - q) * len(cpus) / t_local * 1e6 + q * len(cpus) / t_distr * 1e6
        distributed += value * q
        for c in COMPONENTS:
            breakdown_sum[c] += value * float(np.asarray(parts[c])[0])
    breakdown = {c: breakdown_sum[c] / total for c in COMPONENTS}
    q10, q90 = np.percentile(throughput, [10, 90]) if samples > 1 else (total, total)
    err = parameters.model_error
    notes = []
    if profile.derived:
        notes.append(f"{profile.name}: line costs derived, not measured ({profile.source})")
    if bound:
        notes.append(
            f"log-bound: {bound} of {deployment.n_instances} instances at their log's throughput limit "
            "(log.write_mb_s / bytes per commit)"
        )
    applies = workload.zipf_s == 0
    if not applies:
        notes.append(_skew_note(workload, deployment, capacities))
    return Prediction(
        deployment=deployment.name,
        throughput=total,
        low=float(min(q10, total)) * (1 - err),
        high=float(max(q90, total)) * (1 + err),
        dominant_cost=max(breakdown, key=lambda c: breakdown[c]),
        breakdown=breakdown,
        linear_throughput=linear,
        distributed_share=distributed / total,
        notes=tuple(notes),
        applies=applies,
        samples=tuple(float(x) for x in throughput),
    )


def _skew_note(workload: ModelWorkload, deployment: Deployment, capacities: Sequence[float]) -> str:
    """Why the closed form does not apply to a skewed workload on ``deployment``."""
    from islands.model.routing import home_shares, routing_limit

    s = workload.zipf_s
    if deployment.n_instances == 1:
        return (
            f"closed form does not apply: Zipf s={s:g} makes a few rows hot and their locks conflict, which it has no "
            "term for; simulate (islands.model.simulation)"
        )
    shares = home_shares(workload, deployment)
    hot = max(range(len(shares)), key=lambda i: shares[i] / len(deployment.instances[i]))
    fair = len(deployment.instances[hot]) / deployment.n_cpus
    limit = routing_limit(capacities, shares)
    return (
        f"closed form does not apply: Zipf s={s:g} sends {shares[hot]:.0%} of the transactions home to instance {hot} "
        f"(its share of the cores: {fair:.0%}), which bounds the deployment at {limit:,.0f} txn/s (its capacity over "
        "its share) while the others wait, and makes hot rows conflict; simulate (islands.model.simulation)"
    )
