"""The deployment advisor (000's stated future work): for a topology and a workload, every
equal-size deployment (``1ISL`` .. ``NISL``, islands placement) predicted by the model, the
best first, each with its interval and the cost that dominates it, and a recommendation that
knows what it does not know.

- **An engine on a machine.** With ``engine`` (``"here"``: this engine as calibrated,
  ``"paper"``: Shore-MT as paper 000 ran it, :mod:`islands.model.engine_costs`) the
  parameters are that engine's costs on the target's machine
  (:mod:`islands.model.cost_composition`); without, the parameters are taken as they are.
- **Intervals.** Every prediction has a 95% interval: the parameters' spread (2.5th-97.5th
  percentile of their draws) with the model's own error folded in (:func:`model_sigma`: its
  error, the larger of the stated and the one on comparable points, read as the bound of 95%
  of its relative errors on one prediction); a simulated throughput carries its closed form's
  relative interval.
- **Skew.** The closed form does not apply to a skewed workload (its prediction says so):
  every deployment is then simulated with clients routed to their home row's instance and
  ranked by that, as with ``simulate``.
- **The recommendation** is a prefix of the ranking: the deployment predicted fastest and
  every one down to the last the model cannot tell from it, so that every deployment ranked
  between two members is a member. "Cannot tell": the 95% interval of their throughput ratio
  includes 1, over the parameters' paired draws (the costs both share cancel) with the model's
  error on each of the two, independent, folded in (simulated: their intervals overlap). Where
  the set has more than one member no "best" is named: the model cannot tell them apart.
  "Differs from the paper" is said only when the paper's choice lies outside the set.
  It is refused, with the reasons, when the model's error on
  comparable points is above :data:`REFUSE_ABOVE` (points measured here for this engine:
  ``validation``; paper 000's numbers about the same workload for the paper's engine:
  :func:`islands.model.paper_claims.comparable_error`), or when the workload needs what the
  model leaves out (data beyond the cache-resident size: the model has no cache term).
- **The paper's answer** for the workload's class (:mod:`islands.model.paper_conclusions`) is
  set beside it, with the costs that explain where an engine's answer differs: what a local
  transaction costs against a participant of a distributed one.

:meth:`Advice.describe` (text) is written from :meth:`Advice.to_dict` (JSON), so the two say
the same things.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from islands.analysis.verdicts import MODEL_ERROR_TOLERANCE, model_winner
from islands.machine.placement import deployment_choices, plan_deployment
from islands.machine.topology import Topology
from islands.model.engine_costs import EngineCosts, round_trips_of
from islands.model.machine_profile import MachineProfile, profile_for
from islands.model.parameters import Parameters
from islands.model.predict import COMPONENTS, Prediction, predict
from islands.model.workload_spec import ModelWorkload

__all__ = ["LEVEL", "REFUSE_ABOVE", "Advice", "advice_text", "advise", "engine_costs_line", "model_sigma"]

#: The model's relative error on comparable points above which the advisor refuses to
#: recommend (the verdicts' tolerance for a model).
REFUSE_ABOVE = MODEL_ERROR_TOLERANCE
#: Rows per site beyond which data size matters and the model, which has no cache term, does
#: not know what it does (000's cache-resident dataset: 10,000 rows per core, Sec 3.2).
CACHE_RESIDENT_ROWS = 10_000
#: Simulated time per deployment, at least this many of the engine's local transactions.
SIMULATED_TRANSACTIONS = 300
#: The level of the advisor's intervals (as every measured verdict's).
LEVEL = 0.95
#: Draws of the model's error per draw of the parameters, for the intervals.
ERROR_DRAWS = 25


def model_sigma(error: float) -> float:
    """The standard deviation of one prediction's log error when ``error`` (relative) bounds
    95% of the model's errors: ``ln(1 + error) / 1.96``; 0 for a NaN or negative error."""
    return math.log1p(error) / 1.959964 if error == error and error > 0 else 0.0


def _interval(log_draws: Any, sigma: float) -> tuple[float, float]:
    """The :data:`LEVEL` interval of ``exp(log_draws + e)``, ``e`` the model's error
    (normal, ``sigma``) drawn :data:`ERROR_DRAWS` times per draw (seeded: the same advice
    each time)."""
    import numpy as np

    x = np.asarray(log_draws, dtype=float)
    if sigma > 0:
        rng = np.random.default_rng(45)
        x = (x[:, None] + rng.normal(0.0, sigma, (len(x), ERROR_DRAWS))).ravel()
    tail = (1 - LEVEL) / 2 * 100
    low, high = np.percentile(x, [tail, 100 - tail])
    return float(np.exp(low)), float(np.exp(high))


@dataclass(frozen=True)
class Advice:
    """The predictions of every candidate deployment, best first, the recommendation (or why
    it is refused) and what it rests on (module docstring)."""

    workload: ModelWorkload
    transport: str
    topology: str
    profile: MachineProfile
    predictions: tuple[Prediction, ...]
    why: str
    parameters_from: str = ""
    simulated: bool = False
    engine: str = ""
    machine: str = ""
    recommendation: tuple[str, ...] | None = None
    verdict: str = ""
    refused: tuple[str, ...] = ()
    comparable: dict[str, Any] = field(default_factory=dict)
    paper: dict[str, Any] = field(default_factory=dict)
    costs: tuple[str, ...] = ()
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def best(self) -> Prediction:
        """The deployment predicted fastest (named "best" only where the recommendation is it
        alone)."""
        return self.predictions[0]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: everything :meth:`describe` prints."""
        notes = list(dict.fromkeys(n for p in self.predictions for n in p.notes))
        return {
            "topology": self.topology,
            "workload": self.workload.describe(),
            "transport": self.transport,
            "engine": self.engine,
            "machine": self.machine,
            "profile": self.profile.to_dict(),
            "parameters": self.parameters_from,
            "best": self.best.deployment if self.recommendation is not None and len(self.recommendation) == 1 else None,
            "highest": self.best.deployment,
            "level": f"{LEVEL:.0%}, with the model's error ({self.comparable.get('model_error', math.nan):.0%})",
            "recommendation": list(self.recommendation) if self.recommendation is not None else None,
            "verdict": self.verdict,
            "refused": list(self.refused),
            "ranked_by": "simulation" if self.simulated else "closed form",
            "why": self.why,
            "comparable_error": dict(self.comparable),
            "paper_000": dict(self.paper),
            "costs": list(self.costs),
            "predictions": [p.to_dict() for p in self.predictions],
            "notes": notes,
            "sources": dict(self.sources),
        }

    def describe(self) -> str:
        """The advice as text (:func:`advice_text` of :meth:`to_dict`)."""
        return advice_text(self.to_dict())


def advice_text(d: Mapping[str, Any]) -> str:
    """The text of an advice's dict (:meth:`Advice.to_dict`): every field of it, in words."""
    profile = d["profile"]
    derived = ", derived" if profile.get("derived") else ""
    head = f"advice for {d['workload']} over {d['transport']} on {d['topology']}"
    lines = [head]
    if d.get("engine"):
        lines.append(f"  engine: {d['engine']}; machine: {d['machine']}")
    lines.append(f"  hardware costs: {profile['name']}{derived}; parameters: {d['parameters']}")
    lines.append("")
    rec = d["recommendation"]
    if rec is None:
        lines.append("recommendation: none, refused")
    elif len(rec) == 1:
        lines.append(f"recommendation: {rec[0]}")
    else:
        lines.append(f"recommendation: one of {', '.join(rec)}")
    for reason in d["refused"]:
        lines.append(f"refused: {reason}")
    best = d["predictions"][0]
    tail = f" simulated {_tps(best['simulated'])}" if d["ranked_by"] == "simulation" else ""
    numbers = f"{_tps(best['throughput'])} ({d.get('level', '')} {_tps(best['low'])} .. {_tps(best['high'])}){tail}"
    if d.get("best"):
        lines.append(f"best: {best['deployment']}  {numbers}")
    else:  # the model cannot tell the members apart: none of them is "best"
        lines.append(f"predicted highest: {best['deployment']}  {numbers}, not told apart from the rest of the set")
    lines.append(f"verdict: {d['verdict']}")
    lines.append(f"why: {d['why']}")
    c = d.get("comparable_error") or {}
    if c:
        lines.append(
            f"model error on comparable points: {_pct(c.get('error'))} ({c.get('basis', '')}; "
            f"refused above {_pct(c.get('threshold'))})"
        )
    p = d.get("paper_000") or {}
    if p:
        lines.append(
            f"paper 000 for a {p['workload_class']} workload: {p['kind']} ({p['deployment']}), "
            f"'{p['quote']}' ({p['source']}); the recommendation {p['agreement']}"
        )
    for line in d.get("costs", []):
        lines.append(f"costs: {line}")
    lines.append("")
    simulated = d["ranked_by"] == "simulation"
    lines.append(
        f"{'deployment':<12} {'predicted':>12} {'95% interval':>25} "
        + (f"{'simulated':>12} {'sim. interval':>25} " if simulated else "")
        + f"{'distributed':>12}  dominant cost"
    )
    for q in d["predictions"]:
        interval = f"{_tps(q['low'])} .. {_tps(q['high'])}"
        sim = ""
        if simulated:
            sim_interval = f"{_tps(q.get('simulated_low', math.nan))} .. {_tps(q.get('simulated_high', math.nan))}"
            sim = f"{_tps(q['simulated']):>12} {sim_interval:>25} "
        total = sum(q["breakdown"].values())
        lines.append(
            f"{q['deployment']:<12} {_tps(q['throughput']):>12} {interval:>25} {sim}{q['distributed_share']:>11.0%}  "
            f"{q['dominant_cost']} ({q['breakdown'][q['dominant_cost']]:.2f} us of {total:.2f})"
        )
    if simulated:
        lines.append("ranked by the simulated throughput")
    for note in d.get("notes", []):
        lines.append(f"note: {note}")
    for key, source in sorted((d.get("sources") or {}).items()):
        lines.append(f"source: {key}: {source}")
    return "\n".join(lines)


def _pct(x: Any) -> str:
    return f"{x:.0%}" if isinstance(x, (int, float)) and x == x else "n/a"


def _tps(x: float) -> str:
    if x is None or x != x:
        return "n/a"
    if x >= 1e6:
        return f"{x / 1e6:.2f} M/s"
    if x >= 1e3:
        return f"{x / 1e3:.1f} K/s"
    return f"{x:.0f} /s"


def _value(p: Prediction, simulated: bool) -> tuple[float, float, float]:
    if simulated:
        scale = p.simulated / p.throughput if p.throughput > 0 else math.nan
        return p.simulated, p.low * scale, p.high * scale
    return p.throughput, p.low, p.high


def _why(ranked: list[Prediction], close: list[str], simulated: bool = False) -> str:
    best = ranked[0]
    total = sum(best.breakdown.values())
    parts = ", ".join(f"{c} {best.breakdown[c]:.2f}" for c in COMPONENTS if best.breakdown[c] > 0.005 * total)
    text = (
        f"{best.deployment} spends {total:.2f} us of worker time per transaction "
        f"({parts}{'; the closed form' if simulated else ''}); {best.dominant_cost} dominates"
    )
    if len(ranked) > 1:
        second = ranked[1]
        # how far behind it is, with the model's interval, is the verdict line's (model_winner)
        text += (
            f". Next as {'simulated' if simulated else 'predicted'}, {second.deployment} (how far behind: the "
            f"verdict), dominated by {second.dominant_cost} "
            f"({second.breakdown[second.dominant_cost]:.2f} us)"
        )
        if second.deployment in close:
            text += (
                "; their intervals overlap, so the model cannot tell them apart"
                if simulated
                else "; over the parameters' spread and the model's error their ratio's 95% interval includes 1, "
                "so the model cannot tell them apart"
            )
    worst = ranked[-1]
    if worst is not best and worst is not ranked[1 if len(ranked) > 1 else 0]:
        text += f". Slowest, {worst.deployment}: {worst.dominant_cost} ({worst.breakdown[worst.dominant_cost]:.2f} us)"
    return text


def _separate(ranked: list[Prediction], simulated: bool, sigma: float = 0.0) -> tuple[list[str], str]:
    """The recommendation's set, a prefix of ``ranked`` (the best down to the last deployment
    the model cannot tell from it), and the verdict on best against runner-up. Closed form:
    the ratio of throughputs over the parameters' paired draws (the costs every deployment
    shares cancel) with the model's error (``sigma``, :func:`model_sigma`) on each of the two
    drawn independently, its :data:`LEVEL` interval; simulated: the two intervals (no paired
    draws)."""
    import numpy as np

    best = ranked[0]
    intervals = {}
    last = 0
    for i, p in enumerate(ranked[1:], start=1):
        if simulated or not best.samples or not p.samples:
            b, o = _value(best, simulated), _value(p, simulated)
            value, low, high = b[0] / o[0], b[1] / o[2], b[2] / o[1]
        else:
            logs = np.log(np.array(best.samples)) - np.log(np.array(p.samples))
            value = best.throughput / p.throughput
            low, high = _interval(logs, sigma * math.sqrt(2))
        intervals[p.deployment] = (value, low, high)
        if low <= 1.0:
            last = i  # every deployment ranked above it is in the set too
    close = [p.deployment for p in ranked[: last + 1]]
    if len(ranked) < 2:
        return close, f"{best.deployment} is the only deployment"
    second = ranked[1].deployment
    level = "interval" if simulated else f"{LEVEL:.0%} with its error"
    return close, model_winner(best.deployment, second, *intervals[second], level).text


def _with_error(p: Prediction, sigma: float) -> Prediction:
    """``p`` with its :data:`LEVEL` interval over the parameters' draws and the model's error."""
    import numpy as np

    if len(p.samples) < 2 or min(p.samples) <= 0:
        return p
    low, high = _interval(np.log(np.array(p.samples)), sigma)
    return dataclasses.replace(p, low=min(low, p.throughput), high=max(high, p.throughput))


def engine_costs_line(engine: EngineCosts, parameters: Parameters, workload: ModelWorkload, transport: str) -> str:
    """What a local transaction of ``workload`` costs a single-threaded instance against a
    participant of a distributed one over ``transport``, with ``engine`` on the machine of
    ``parameters`` (composed): the proportion that sets where the answer lies."""
    factor = engine.ghz / float(parameters.machine.get("ghz", math.nan))
    factor = factor if factor == factor and factor > 0 else 1.0
    local = engine.local_us(workload.kind, workload.rows) * factor
    participant = parameters.get(f"distr.{transport}.{workload.op}.participant_us")
    rtt = parameters.get(f"message.{transport}.round_trip_us")
    n = round_trips_of(workload.op)
    return (
        f"{engine.name}: a local {workload.kind} transaction {local:.3g} us, a participant of a distributed one "
        f"{participant:.3g} us over {transport} ({n} round trip{'s' if n > 1 else ''} of {rtt:.3g} us and the "
        f"engine's two-phase commit), {participant / local:.3g} local transactions' worth"
    )


def advise(
    topology: Topology,
    workload: ModelWorkload,
    parameters: Parameters,
    *,
    transport: str = "unix",
    profile: MachineProfile | str | None = None,
    parameters_from: str = "",
    simulate: bool = False,
    simulated_us: float = 5_000.0,
    engine: str | EngineCosts | None = None,
    validation: Mapping[str, tuple[float, int]] | None = None,
) -> Advice:
    """Predicts every ``NISL`` deployment of ``topology`` (one instance per divisor of its
    cores, islands placement) for ``workload`` and ranks them (module docstring). ``engine``:
    ``"here"``, ``"paper"`` or an engine, composed with the target's machine (``parameters``
    are this machine's calibration); ``None`` takes ``parameters`` as they are.
    ``validation``: the model's median relative error and point count per workload kind on
    points measured here (:func:`islands.model.validation.errors_by_kind`). With ``simulate``,
    or where the closed form does not apply, every deployment is also simulated for at least
    ``simulated_us`` and ranked by that."""
    from islands.model.cost_composition import engine_on_machine
    from islands.model.paper_conclusions import paper_conclusion

    engine_costs: EngineCosts | None = None
    machine_name = ""
    calibration = parameters
    if engine is not None:
        parameters, engine_costs, machine = engine_on_machine(engine, topology, parameters, profile, parameters_from)
        profile, machine_name = machine.profile, machine.name
    if not isinstance(profile, MachineProfile):
        profile = profile_for(topology, profile)
    ranked = [
        predict(topology, plan_deployment(topology, label), workload, parameters, transport=transport, profile=profile)
        for label in deployment_choices(topology)
    ]
    simulate = simulate or any(not p.applies for p in ranked)
    if simulate:
        ranked = _simulated(topology, ranked, workload, parameters, transport, profile, simulated_us)
    ranked.sort(key=lambda p: -(p.simulated if simulate else p.throughput))
    comparable = _comparable(engine_costs, parameters, workload, validation)
    # The model's own error in every interval: the larger of the one it states and the one it
    # showed on comparable points.
    error = max(e for e in (parameters.model_error, comparable["error"], 0.0) if e == e)
    comparable["model_error"] = error
    sigma = model_sigma(error)
    ranked = [_with_error(p, sigma) for p in ranked]
    close, verdict = _separate(ranked, simulate, sigma)
    refused = []
    if comparable["error"] == comparable["error"] and comparable["error"] > REFUSE_ABOVE:
        refused.append(
            f"the model's error on comparable points is {comparable['error']:.0%} ({comparable['basis']}), "
            f"above {REFUSE_ABOVE:.0%}"
        )
    if workload.rows_per_site > CACHE_RESIDENT_ROWS:
        refused.append(
            f"{workload.rows_per_site:,} rows per site is beyond the cache-resident {CACHE_RESIDENT_ROWS:,}: data size "
            "is not in the model (it has no cache term; 000 Fig 21: shared-nothing's advantage shrinks as data leaves "
            "the caches)"
        )
    recommendation = None if refused else tuple(close)
    conclusion = paper_conclusion(workload, topology)
    if recommendation is None:
        agreement = "is refused"
    elif list(recommendation) == [conclusion.deployment]:
        agreement = "agrees"
    elif conclusion.deployment in recommendation:
        agreement = (
            f"includes it among {len(recommendation)} the model cannot tell apart, so it neither agrees nor differs"
        )
    else:
        agreement = f"differs ({', '.join(recommendation)})"
    shape = f"{topology.n_sockets} socket{'s' if topology.n_sockets != 1 else ''}, {topology.n_cores} cores"
    return Advice(
        workload=workload,
        transport=transport,
        topology=f"{topology.source} ({shape})",
        profile=profile,
        predictions=tuple(ranked),
        why=_why(ranked, close, simulate),
        parameters_from=parameters_from,
        simulated=simulate,
        engine=engine_costs.name if engine_costs else "",
        machine=machine_name,
        recommendation=recommendation,
        verdict=verdict,
        refused=tuple(refused),
        comparable=comparable,
        paper={**conclusion.to_dict(), "agreement": agreement},
        costs=_costs(engine_costs, topology, calibration, parameters, workload, transport, profile),
        sources=dict(sorted(engine_costs.sources.items())) if engine_costs and engine == "paper" else {},
    )


def _simulated(
    topology: Topology,
    ranked: list[Prediction],
    workload: ModelWorkload,
    parameters: Parameters,
    transport: str,
    profile: MachineProfile,
    simulated_us: float,
) -> list[Prediction]:
    from islands.model.simulation import simulate_deployment

    slowest = max(p.breakdown["execution"] + p.breakdown["logging"] for p in ranked)
    duration = max(simulated_us, SIMULATED_TRANSACTIONS * slowest)
    out = []
    for p in ranked:
        sim = simulate_deployment(
            topology,
            plan_deployment(topology, p.deployment),
            workload,
            parameters,
            transport=transport,
            profile=profile,
            duration_us=duration,
        )
        out.append(dataclasses.replace(p, simulated=sim.throughput))
    return out


def _comparable(
    engine: EngineCosts | None,
    parameters: Parameters,
    workload: ModelWorkload,
    validation: Mapping[str, tuple[float, int]] | None,
) -> dict[str, Any]:
    """The model's error on points comparable to ``workload``: paper 000's numbers about it for
    the paper's engine, points measured here for this one, else the parameters' stated error."""
    threshold = REFUSE_ABOVE
    if engine is not None and any("000 " in s or "001 " in s for s in engine.sources.values()):
        from islands.model.paper_claims import claims_table, comparable_error, paper_topologies

        table = claims_table(engine, paper_topologies())
        error, n, ids = comparable_error(table, workload.kind)
        if n:
            return {
                "error": error,
                "n": n,
                "basis": f"median throughput error on paper 000's {n} number{'s' if n > 1 else ''} about "
                f"{workload.kind}: {', '.join(ids)}",
                "threshold": threshold,
            }
    elif validation and workload.kind in validation:
        error, n = validation[workload.kind]
        return {
            "error": float(error),
            "n": int(n),
            "basis": f"median error on {n} point{'s' if n != 1 else ''} of {workload.kind} measured here",
            "threshold": threshold,
        }
    return {
        "error": parameters.model_error,
        "n": 0,
        "basis": f"no comparable point: the parameters' stated error, not a measured one, for {workload.kind}",
        "threshold": threshold,
    }


def _costs(
    engine: EngineCosts | None,
    topology: Topology,
    calibration: Parameters,
    parameters: Parameters,
    workload: ModelWorkload,
    transport: str,
    profile: MachineProfile,
) -> tuple[str, ...]:
    """The advised engine's proportion of local to distributed cost and, beside it, the other
    engine's on the same machine: why the engines' answers differ."""
    if engine is None:
        return ()
    from islands.model.cost_composition import engine_on_machine
    from islands.model.engine_costs import engine_for

    lines = []
    try:
        lines.append(engine_costs_line(engine, parameters, workload, transport))
        paper = any("000 " in s for s in engine.sources.values())
        other = engine_for("here" if paper else "paper", calibration)
        other_params, _, _ = engine_on_machine(other, topology, calibration, profile)
        lines.append(engine_costs_line(other, other_params, workload, transport))
    except (KeyError, ValueError, ZeroDivisionError):
        pass
    return tuple(line for line in lines if "nan" not in line)
