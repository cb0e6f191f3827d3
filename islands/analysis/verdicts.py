"""The words of every verdict islands prints: which point is higher, by how much, whether an
event happened, whether a paper's claim was reproduced. Summaries, figure notes, gallery
captions and paper-claim lines take their words from here and nowhere else
(``tests/test_verdicts.py`` reads the summary and plot modules to hold them to it).

The rules, each one a function:

- a ratio or a change is stated only with its 95% interval (:func:`ratio_words`,
  :func:`change_words`; the numbers come from :mod:`islands.analysis.statistics`), and "not
  distinguishable" when the interval includes 1;
- a winner is named only when the interval of its ratio to the runner-up excludes 1
  (:func:`winner`); overlapping intervals say "not distinguishable", single runs say that
  there is no interval and name no winner;
- an event that did not happen is "not measured", never a number (:func:`event_words`: an
  adaptation time without a re-partitioning, an abort rate without aborts);
- a paper's claim is "reproduced" only when the measured value lies within a tolerance
  written next to the claim (:class:`Claim`, :func:`claim_words`); a model's trend is
  "reproduced" only where the model also meets its error tolerance on the points measured
  here and every one of them lies within its interval; "agrees" is never said of a trend no
  measured point checked (:func:`model_trend_words`);
- a paper's number beside a model's value (:func:`model_claim_words`) says whether the model's
  value lands within the claim's tolerance, with the model's interval, and says so apart when
  the model was fitted to that very number (no check) or has no term for it;
- a run whose throughput never became steady says so, with the warm-up's cap
  (:func:`never_steady_words`);
- a ratio the model predicts says it is the model's, with its interval over the parameters'
  draws or "one draw: no interval" (:func:`model_ratio_words`);
- a deployment the model predicts fastest is named only when the interval of its ratio to the
  runner-up over the parameters' draws excludes 1 (:func:`model_winner`);
- a prediction against a measured point is "within" the tolerance only by its error, or by
  the measured mean's 95% interval where that is wider than the tolerance, saying which
  (:func:`model_error_words`);
- a question answered by repetitions is "conclusive" when the compared ratio's interval
  excludes 1 or is narrower than the precision asked for (:func:`conclusive`); a sweep that
  repeats until then prints every comparison it made, each a winner, "not distinguishable"
  (equal to the precision) or "not settled" (the budget ran out first), with its interval over
  all the looks (:func:`comparison_words`, :func:`precision_words`).

Each function returns plain text; :class:`Verdict` also carries whether the words are
conclusive, for callers that count them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from islands.analysis.statistics import Ratio, format_change, format_ratio, ratio

__all__ = [
    "MODEL_ERROR_TOLERANCE",
    "Claim",
    "Verdict",
    "change_words",
    "claim_words",
    "conclusive",
    "event_words",
    "half_width",
    "model_claim_words",
    "model_error_case",
    "model_error_words",
    "model_ratio_words",
    "model_trend_words",
    "model_winner",
    "never_steady_words",
    "ratio_label",
    "ratio_words",
    "precision_words",
    "winner",
    "words_of",
    "direction",
    "goal_words",
    "NOT_DISTINGUISHABLE",
    "NOT_SETTLED",
    "NO_INTERVAL",
    "STEAL_LIMIT",
    "steal_words",
    "WINNER",
    "comparison_words",
    "CONTRADICTED",
    "NOT_MEASURED_HERE",
    "PARTLY",
    "REPRODUCED",
    "SAME_BAND",
    "expectation_words",
    "figure_outcome",
    "REPORT_RULE",
]

#: The words for two points whose interval includes 1, and for a comparison without one.
NOT_DISTINGUISHABLE = "not distinguishable"
NO_INTERVAL = "no interval"
#: A run the hypervisor stole more than this share of the machine's CPU time from during its
#: window (``system.steal_share``) is left out of a sweep's comparisons
#: (islands.experiments.precision) and counted in the figure's summary (:func:`steal_words`): at
#: 41-51% steal a PLP run collapsed to a tenth of its throughput; 10% is well above the
#: fraction of a percent a quiet VM shows and well below that.
STEAL_LIMIT = 0.10
#: A comparison's verdicts in a sweep that repeats until answered (islands.experiments.precision):
#: one side higher, or the repetitions ran out before the interval excluded 1 or got narrow.
WINNER = "winner"
NOT_SETTLED = "not settled"

#: The model's median relative error on the points measured here above which its trends
#: on the papers' machines are not called reproduced (the ±25% band of the predicted-vs-
#: measured figure).
MODEL_ERROR_TOLERANCE = 0.25


@dataclass(frozen=True)
class Verdict:
    """Words for people and whether they settle the question (a winner with an interval
    that excludes 1, a claim in or out of its tolerance; "not distinguishable" does not: only
    :func:`conclusive` knows the precision asked for). ``text`` is what summaries print."""

    text: str
    conclusive: bool

    def __str__(self) -> str:
        return self.text


def ratio_words(new: Iterable[float], old: Iterable[float]) -> str:
    """``new / old`` of two points' repetitions: ``1.62× (95% CI 1.41–1.85)``, ``1.02× (95%
    CI 0.95–1.10, not distinguishable)`` or ``1.62× (one run: no interval)``."""
    return format_ratio(ratio(new, old))


def change_words(new: Iterable[float], old: Iterable[float]) -> str:
    """The change from ``old`` to ``new``: ``-86%, 95% CI -88% to -84%``, ``…, not
    distinguishable``, ``-86%, one run: no interval`` (for use inside parentheses)."""
    return format_change(ratio(new, old))


def words_of(r: Ratio) -> str:
    """:func:`ratio_words` of a ratio already computed."""
    return format_ratio(r)


def direction(r: Ratio, higher: str = "higher", lower: str = "lower") -> str:
    """One word for a comparison's outcome: ``higher``/``lower`` (the interval excludes 1),
    ``not distinguishable`` (it includes 1) or ``no interval`` (one run)."""
    d = r.distinguishable
    if d is None:
        return NO_INTERVAL
    if not d:
        return NOT_DISTINGUISHABLE
    return higher if r.value > 1 else lower


def goal_words(r: Ratio, target: float) -> str:
    """Whether a ratio meets a goal of ``>= target``, from its 95% interval: ``met`` (the
    interval lies at or above the target), ``not met`` (below it), ``not distinguishable from
    the goal`` (it straddles the target) or ``no interval`` (one run). A goal a ratio meets
    exactly is called met wrongly at most 2.5% of the time (the interval's one-sided error)."""
    if not r.has_interval:
        return NO_INTERVAL
    if r.low >= target:
        return "met"
    if r.high < target:
        return "not met"
    return f"{NOT_DISTINGUISHABLE} from the goal"


def ratio_label(new: Iterable[float], old: Iterable[float], digits: int = 1) -> str:
    """A ratio short enough for a label on a figure or a table's column: ``12.3× [11.7–12.9]``,
    ``1.0× [0.9–1.1] n.d.`` (not distinguishable) or ``12.3× (1 run)``; ``digits`` after the
    point."""
    r = ratio(new, old)
    if math.isnan(r.value):
        return "n/a"
    if not r.has_interval:
        return f"{r.value:.{digits}f}× ({min(r.n_new, r.n_old)} run)"
    nd = " n.d." if not r.distinguishable else ""
    return f"{r.value:.{digits}f}× [{r.low:.{digits}f}–{r.high:.{digits}f}]{nd}"


def half_width(r: Ratio) -> float:
    """The relative half-width of a ratio's interval on the log scale,
    ``sqrt(high / low) - 1`` (0.05: the ratio is known to about ±5%); inf without an interval."""
    if not r.has_interval or r.low <= 0:
        return math.inf
    return math.sqrt(r.high / r.low) - 1


def conclusive(r: Ratio, precision: float) -> bool:
    """Whether repetitions have answered the comparison ``r``: its interval excludes 1 (one
    side is higher), or it is within ``precision`` of its value (the two are the same to that
    precision)."""
    return bool(r.distinguishable) or half_width(r) <= precision


def winner(
    candidates: Mapping[str, Sequence[float]],
    *,
    lower_is_better: bool = False,
    faster: str = "faster",
    cheaper: str = "cheaper",
) -> Verdict:
    """Who is best among ``candidates`` (name → repetitions) against the runner-up, in plain
    words: ``per-core is 1.56× faster than 1ISL (95% CI 1.41–1.73)``; ``1ISL and 2ISL
    (per-core) are not distinguishable: 1.02× (95% CI 0.95–1.10)``; ``no winner from one run
    each: 1ISL 1.56× 2ISL (per-core), no interval``. With ``lower_is_better`` (costs, times)
    the lowest wins and its change against the runner-up is stated (``b is cheaper than a:
    -40%, 95% CI …``). ``faster``/``cheaper``: the word for the winner's side (docs/words.md)."""
    means = {name: _geomean(v) for name, v in candidates.items()}
    ranked = sorted((n for n in means if not math.isnan(means[n])), key=lambda n: means[n], reverse=not lower_is_better)
    if len(ranked) < 2:
        return Verdict("fewer than two points measured: no comparison", False)
    top, second = ranked[0], ranked[1]
    r = ratio(candidates[top], candidates[second])
    if lower_is_better:
        numbers = format_change(r)
        if not r.has_interval:
            return Verdict(f"no winner from one run each: {top} vs {second} {numbers}", False)
        if not r.distinguishable:
            return Verdict(
                f"{top} and {second} are {NOT_DISTINGUISHABLE} ({numbers.replace(', not distinguishable', '')})", False
            )
        return Verdict(f"{top} is {cheaper} than {second}: {numbers}", True)
    numbers = format_ratio(r)
    if not r.has_interval:
        return Verdict(f"no winner from one run each: {top} {_bare(numbers)} {second}, no interval", False)
    if not r.distinguishable:
        plain = _plain_interval(numbers).replace(f", {NOT_DISTINGUISHABLE}", "")
        return Verdict(f"{top} and {second} are {NOT_DISTINGUISHABLE}: {_bare(numbers)} ({plain})", False)
    return Verdict(f"{top} is {_bare(numbers)} {faster} than {second} ({_plain_interval(numbers)})", True)


def _plain_interval(numbers: str) -> str:
    """``1.26× (95% CI 1.08×–1.47×)`` → ``95% CI 1.08–1.47``: the interval of a ratio already
    named, without repeating its sign."""
    inside = numbers.split(" (", 1)[1].rstrip(")") if " (" in numbers else numbers
    return inside.replace("×", "")


def event_words(count: float | None, event: str, measured: str) -> Verdict:
    """``measured`` when the event happened at least once, else ``not measured (no
    {event})``: an adaptation time needs a re-partitioning, an abort rate needs aborts."""
    if count is None or (isinstance(count, float) and math.isnan(count)) or count <= 0:
        return Verdict(f"not measured (no {event})", False)
    return Verdict(measured, True)


@dataclass(frozen=True)
class Claim:
    """A paper's claim with the tolerance it is judged by, written side by side:
    ``Claim("002 Fig 10", "adaptation within 5 s", high=5.0, unit=" s")``. ``low``/``high``
    bound the measured value (either may be open)."""

    source: str
    text: str
    low: float = -math.inf
    high: float = math.inf
    unit: str = ""

    def tolerance(self) -> str:
        """``≤ 5 s``, ``≥ 0.5``, ``3.0..6.0``."""
        if math.isinf(self.low):
            return f"≤ {self.high:g}{self.unit}"
        if math.isinf(self.high):
            return f"≥ {self.low:g}{self.unit}"
        return f"{self.low:g}..{self.high:g}{self.unit}"


def claim_words(claim: Claim, measured: float | None, shown: str | None = None) -> Verdict:
    """``reproduced (1.6 s; paper 002 Fig 10: adaptation within 5 s, tolerance ≤ 5 s)``,
    ``NOT reproduced (…)`` or ``not measured (…)`` for a missing value. ``shown``: how the
    measured value is written (default ``{measured:g}{unit}``)."""
    where = f"paper {claim.source}: {claim.text}, tolerance {claim.tolerance()}"
    if measured is None or math.isnan(measured):
        return Verdict(f"not measured ({where})", False)
    value = shown if shown is not None else f"{measured:.3g}{claim.unit}"
    ok = claim.low <= measured <= claim.high
    return Verdict(f"{'reproduced' if ok else 'NOT reproduced'} ({value}; {where})", True)


def model_trend_words(
    holds: bool, criterion: str, median_error: float | None, n_measured: int = 0, n_inside: int | None = None
) -> Verdict:
    """A paper trend as the model predicts it on a paper's machine: ``NOT reproduced by the
    model (criterion …)`` when the prediction misses its criterion; otherwise reproduced only
    where the model is checked here: its median relative error on ``n_measured`` points
    measured here is within :data:`MODEL_ERROR_TOLERANCE` and all of them (``n_inside``, where
    counted) lie within its interval. Otherwise the words say the projection meets the
    criterion, unchecked, and how far off the measured points are; without measured points, that
    it is a projection only. "Agrees" is not said of an unchecked projection."""
    if not holds:
        return Verdict(f"NOT reproduced by the model (criterion: {criterion})", True)
    meets = f"the model's projection meets it (criterion: {criterion})"
    if median_error is None or n_measured == 0 or math.isnan(median_error):
        return Verdict(f"{meets}; not measured here, unchecked: a projection only", False)
    inside = f", {n_inside} of {n_measured} within its interval" if n_inside is not None else ""
    if median_error > MODEL_ERROR_TOLERANCE or (n_inside is not None and n_inside < n_measured):
        return Verdict(
            f"{meets}, but not reproduced: the model misses the {n_measured} points measured here by "
            f"{median_error:.0%} (median; tolerance {MODEL_ERROR_TOLERANCE:.0%}){inside}",
            True,
        )
    return Verdict(
        f"reproduced by the model (criterion: {criterion}; model within {median_error:.0%} of the "
        f"{n_measured} points measured here, tolerance {MODEL_ERROR_TOLERANCE:.0%}{inside})",
        True,
    )


def model_claim_words(
    claim: Claim,
    value: float,
    low: float = math.nan,
    high: float = math.nan,
    *,
    fitted: str = "",
    unmodelled: str = "",
    shown: str | None = None,
    dependent: str = "",
    by_construction: bool = False,
) -> Verdict:
    """A paper's number (``claim``, its tolerance written beside it) against the model's
    ``value`` and interval ``low``..``high``: ``model within tolerance (3.9, interval 3.1-4.6;
    paper 000 Sec 4.2: ..., tolerance 3.38..5.62)``, ``model outside tolerance (...)`` (adding
    whether the interval reaches the band), ``fitted to this number: no check (...)`` where a
    parameter was derived from it, ``not in the model: <why> (...)`` where the model has no term
    for it, ``met by construction: no check (...)`` where the model's value is the same under
    every draw of its parameters (the closed form cannot miss it), ``not independent: <why>,
    within tolerance (...)`` where it comes from the same sentence or mechanism as a number a
    parameter was fitted to (``dependent``). Conclusive only for an independent check (within or
    outside)."""
    where = f"paper {claim.source}: {claim.text}, tolerance {claim.tolerance()}"
    if unmodelled:
        return Verdict(f"not in the model: {unmodelled} ({where})", False)
    if value is None or math.isnan(value):
        return Verdict(f"not measured by the model ({where})", False)
    number = shown if shown is not None else f"{value:.3g}{claim.unit}"
    interval = f", interval {low:.3g}-{high:.3g}{claim.unit}" if low == low and high == high else ""
    if fitted:
        return Verdict(f"fitted to this number: no check ({number}{interval}; {where}; it sets {fitted})", False)
    inside = claim.low <= value <= claim.high
    if by_construction:
        return Verdict(
            f"met by construction: no check (the model's value is {number} under every draw of its parameters; "
            f"{where})",
            False,
        )
    if dependent:
        side = "within" if inside else "outside"
        return Verdict(f"not independent: {dependent}; {side} tolerance ({number}{interval}; {where})", False)
    if inside:
        return Verdict(f"model within tolerance ({number}{interval}; {where})", True)
    reaches = low == low and high == high and low <= claim.high and high >= claim.low
    tail = "; its interval reaches the band" if reaches else ""
    return Verdict(f"model outside tolerance ({number}{interval}; {where}{tail})", True)


def model_winner(top: str, second: str, value: float, low: float, high: float, level: str = "10-90%") -> Verdict:
    """The deployment a model predicts fastest against the runner-up, from the ratio of their
    throughputs over the parameters' paired draws (``value``, interval ``low``..``high`` at
    ``level``): ``the model predicts 24ISL 3.20× faster than 4ISL (model 10-90% 2.90–3.60)``
    where the interval excludes 1, else ``24ISL and 4ISL not distinguishable by the model:
    1.05× (model 10-90% 0.93–1.19)``."""
    numbers = f"{value:.2f}× (model {level} {low:.2f}–{high:.2f})"
    if not (low == low and high == high) or low <= 1.0 <= high:
        return Verdict(f"{top} and {second} {NOT_DISTINGUISHABLE} by the model: {numbers}", False)
    return Verdict(
        f"the model predicts {top} {value:.2f}× faster than {second} (model {level} {low:.2f}–{high:.2f})", True
    )


def model_error_case(error: float, tolerance: float, half_width: float = math.nan) -> str:
    """Which case a prediction's relative ``error`` against a measured mean falls in:
    ``"error"`` (≤ ``tolerance``), ``"interval"`` (above it, but the measured mean's 95%
    interval is wider than the tolerance: ``half_width`` relative to the mean, so the
    measurement cannot tell), ``"outside"``, or ``"not predicted"`` (``error`` NaN)."""
    if error != error:
        return "not predicted"
    if error <= tolerance:
        return "error"
    if half_width == half_width and half_width > tolerance:
        return "interval"
    return "outside"


def model_error_words(error: float, tolerance: float, half_width: float = math.nan) -> Verdict:
    """A prediction against a measured point (:func:`model_error_case`): ``within 15% (error
    8.1%; measured ±3.0%)``, ``within the measurement's interval (error 18%; measured ±22%,
    wider than 15%)``, ``outside 15% (error 23%; measured ±6.0%)`` or ``not predicted``.
    The measured ± is the 95% interval of its mean over repetitions ("one run" without)."""
    case = model_error_case(error, tolerance, half_width)
    measured = f"measured ±{half_width:.1%}" if half_width == half_width else "measured once: no interval"
    if case == "not predicted":
        return Verdict("not predicted (no other point fixes its costs)", False)
    if case == "error":
        return Verdict(f"within {tolerance:.0%} (error {error:.1%}; {measured})", True)
    if case == "interval":
        return Verdict(
            f"within the measurement's interval (error {error:.1%}; {measured}, wider than {tolerance:.0%})", True
        )
    return Verdict(f"outside {tolerance:.0%} (error {error:.1%}; {measured})", True)


def model_ratio_words(value: float, low: float = math.nan, high: float = math.nan, level: str = "10-90%") -> str:
    """A ratio the model predicts (not a measurement): ``1.93× (model 10-90% 1.71–2.20)``
    with an interval over the parameters' draws, ``1.93× (model, one draw: no interval)``
    without one (a point prediction from the parameters' central values)."""
    if math.isnan(value):
        return "n/a (not predicted)"
    if low == low and high == high:
        return f"{value:.2f}× (model {level} {low:.2f}–{high:.2f})"
    return f"{value:.2f}× (model, one draw: {NO_INTERVAL})"


def never_steady_words(caps_s: Iterable[float]) -> str:
    """A run whose throughput never became steady before its warm-up's cap
    (islands.measure.steady_warmup), with the caps of such runs: ``never steady within 0.8 s``,
    ``never steady within 0.7-0.8 s`` where they differ, ``never steady within the first half of
    the window`` where no cap was recorded."""
    caps = sorted(float(c) for c in caps_s if isinstance(c, (int, float)) and c == c)
    if not caps:
        return "never steady within the first half of the window"
    span = f"{caps[0]:.1f} s" if caps[-1] - caps[0] < 0.05 else f"{caps[0]:.1f}-{caps[-1]:.1f} s"
    return f"never steady within {span}"


def _geomean(values: Sequence[float]) -> float:
    pos = [float(v) for v in values if v == v and v > 0]
    if not pos:
        return math.nan
    return math.exp(sum(math.log(v) for v in pos) / len(pos))


def _bare(numbers: str) -> str:
    """``1.56× (one run: no interval)`` → ``1.56×``."""
    return numbers.split(" (", 1)[0]


def _times(v: float) -> str:
    return f"{v:.2f}×" if v < 10 else f"{v:.1f}×"


def comparison_words(group: Mapping[str, Any], precision: float, *, where: bool = True) -> Verdict:
    """One comparison of a sweep that repeats until answered (a manifest's ``precision.groups``
    entry, islands.experiments.precision), in plain words: ``update=false multisite=0: per-core
    is 1.26× faster than per-socket (95% CI over the looks 1.08–1.47; 3 blocks)`` (the faster
    one first, whichever side of the group it was); ``…: per-core and per-socket are not
    distinguishable: 1.01× (95% CI over the looks 0.97–1.04, within ±5%; 6 blocks)``; ``…:
    per-core vs per-socket not settled: 1.15× (95% CI over the looks 0.85–1.55, wider than
    ±5%; 3 blocks)``. "over the looks": the interval is one of a sequence that holds at every
    look at once with 95%, so stopping when it answered does not inflate the error. ``where``
    false leaves out the group (``update=false multisite=0: ``), for a line that says it."""
    names = list(group.get("compared", [])) + ["?", "?"]
    top, second = names[0], names[1]
    value, low, high = (group.get(k) for k in ("ratio", "ratio_low", "ratio_high"))
    blocks = group.get("blocks")
    tail = f"; {blocks} blocks" if isinstance(blocks, int) and blocks else ""
    prefix = f"{group.get('group', 'all')}: " if where else ""
    verdict = group.get("verdict")
    if verdict is None:  # a manifest written before verdicts were recorded
        excludes = isinstance(low, (int, float)) and isinstance(high, (int, float)) and not low <= 1.0 <= high
        verdict = WINNER if group.get("conclusive") and excludes else None
        verdict = verdict or (NOT_DISTINGUISHABLE if group.get("conclusive") else NOT_SETTLED)
    if not isinstance(value, (int, float)):
        return Verdict(f"{prefix}{top} vs {second} {NOT_SETTLED}: not measured", False)
    if not (isinstance(low, (int, float)) and isinstance(high, (int, float)) and math.isfinite(high)):
        return Verdict(f"{prefix}{top} vs {second} {NOT_SETTLED}: {_times(value)} ({NO_INTERVAL} yet{tail})", False)
    interval = f"95% CI over the looks {_times(low)[:-1]}–{_times(high)[:-1]}"
    if verdict == WINNER:
        if value < 1 and low > 0:  # the second side is the faster: name it first
            top, second, value = second, top, 1 / value
            interval = f"95% CI over the looks {_times(1 / high)[:-1]}–{_times(1 / low)[:-1]}"
        return Verdict(f"{prefix}{top} is {_times(value)} faster than {second} ({interval}{tail})", True)
    if verdict == NOT_DISTINGUISHABLE:
        return Verdict(
            f"{prefix}{top} and {second} are {NOT_DISTINGUISHABLE}: {_times(value)} ({interval}, within "
            f"±{precision:.0%}{tail})",
            True,
        )
    return Verdict(
        f"{prefix}{top} vs {second} {NOT_SETTLED}: {_times(value)} ({interval}, wider than ±{precision:.0%}{tail})",
        False,
    )


def steal_words(steal: Iterable[float], left_out: bool) -> str | None:
    """A line on the runs the hypervisor stole more than :data:`STEAL_LIMIT` of the CPU time
    from (``steal``: each run's ``system.steal_share``, NaN where not readable): ``3 of 54 runs
    had more than 10% of their CPU time stolen (system.steal_share, up to 41%): left out of the
    comparisons``, or ``…: their numbers may be low`` where they were kept (``left_out``);
    None when no run had."""
    shares = [float(v) for v in steal if isinstance(v, (int, float)) and v == v]
    over = [v for v in shares if v > STEAL_LIMIT]
    if not over:
        return None
    what = "left out of the comparisons" if left_out else "kept: their numbers may be low"
    return (
        f"{len(over)} of {len(shares)} runs had more than {STEAL_LIMIT:.0%} of their CPU time stolen by the "
        f"hypervisor (system.steal_share, up to {max(over):.0%}): {what}"
    )


def precision_words(record: dict[str, Any]) -> list[str]:
    """The figure summary's lines for a manifest's ``precision`` record (written by the sweep):
    how many comparisons are answered and by which rule, then every comparison with its
    verdict (:func:`comparison_words`). Empty for a sweep that asked for no precision."""
    if not record:
        return []
    groups = record.get("groups", [])
    precision = float(record["precision"])
    open_ = [g for g in groups if not g.get("conclusive")]
    looks = record.get("looks")
    rule = (
        f"; each interval is 95% over every look from {looks[0]} to {looks[1]} blocks (alpha spent across "
        "them): between equal deployments a winner is named in at most 5% of comparisons"
        if isinstance(looks, list) and len(looks) == 2
        else ""
    )
    head = (
        f"repetitions until precision ±{precision:.0%} (run.precision), in interleaved blocks: "
        f"{len(groups) - len(open_)} of {len(groups)} comparisons answered after "
        f"{record.get('spent_s', math.nan):.0f} s of runs (budget {_budget(record.get('budget_s'))}){rule}"
    )
    dropped = record.get("left_out_steal")
    if isinstance(dropped, int) and dropped:
        head += (
            f"; {dropped} runs left out, their CPU time stolen by the hypervisor above {STEAL_LIMIT:.0%} "
            "(system.steal_share)"
        )
    if open_:
        why = record.get("stopped", "budget spent")
        head += f"; {len(open_)} {NOT_SETTLED} ({why}): the machine was too noisy for them"
    return [head, *(f"comparison {comparison_words(g, precision).text}" for g in groups)]


def _budget(seconds: Any) -> str:
    return f"{seconds:.0f} s" if isinstance(seconds, (int, float)) else "none"


#: A paper's claim checked against measurements here (``islands reproduce --report``,
#: docs/words.md): every check held, some did, the measurements say the opposite, or nothing
#: was measured that could tell.
REPRODUCED = "reproduced"
PARTLY = "partly"
CONTRADICTED = "contradicted"
NOT_MEASURED_HERE = "not measured here"
#: A claim that a throughput does not change ("flat", "not affected") holds where the ratio's
#: whole 95% interval lies within ±10% of 1, and is contradicted where it lies wholly outside.
SAME_BAND = 0.10
#: The rule the reproduction report states under its title.
REPORT_RULE = (
    f"A claim is {REPRODUCED} only where the 95% interval of its ratio lies on the paper's side of 1 (or within "
    f"±{SAME_BAND:.0%} for a claim that nothing changes), {CONTRADICTED} where it lies on the other side (or wholly "
    f"outside ±{SAME_BAND:.0%}), {NOT_SETTLED} where it straddles; a figure is {REPRODUCED} where every check was, "
    f"{PARTLY} where some were, {NOT_MEASURED_HERE} where no run could tell (docs/words.md)."
)


def expectation_words(r: Ratio, expect: str, band: float = SAME_BAND) -> Verdict:
    """A measured throughput ratio ``r`` (A / B) against what a paper claims of it: ``expect``
    ``"higher"`` (A above B), ``"lower"`` or ``"same"`` (within ±``band``). The verdict's text
    starts with the outcome — :data:`REPRODUCED` (the 95% interval lies on the claimed side of 1,
    or within the band), :data:`CONTRADICTED` (it lies on the other side, or wholly outside the
    band), :data:`NOT_SETTLED` (it straddles), :data:`NOT_MEASURED_HERE` (a side has no run) —
    then the ratio with its interval: ``reproduced: 1.62× (95% CI 1.41–1.85)``."""
    if expect not in ("higher", "lower", "same"):
        raise ValueError(f"expect {expect!r}: one of higher, lower, same")
    if r.n_new == 0 or r.n_old == 0 or math.isnan(r.value):
        return Verdict(f"{NOT_MEASURED_HERE}: no run of one side", False)
    numbers = format_ratio(r)
    if not r.has_interval:
        return Verdict(f"{NOT_SETTLED}: {numbers}", False)
    if expect == "same":
        if 1 - band <= r.low and r.high <= 1 + band:
            outcome = REPRODUCED
        elif r.high < 1 - band or r.low > 1 + band:
            outcome = CONTRADICTED
        else:
            outcome = NOT_SETTLED
        return Verdict(f"{outcome}: {numbers} (the claim: within ±{band:.0%})", outcome != NOT_SETTLED)
    side = r.distinguishable
    if not side:
        return Verdict(f"{NOT_SETTLED}: {numbers}", False)
    up = r.value > 1
    outcome = REPRODUCED if up == (expect == "higher") else CONTRADICTED
    return Verdict(f"{outcome}: {numbers}", True)


def figure_outcome(outcomes: Sequence[str]) -> str:
    """One figure's verdict from its checks' outcomes (each the first word of
    :func:`expectation_words`): :data:`REPRODUCED` when every check was, :data:`PARTLY` when
    some were, :data:`CONTRADICTED` when none was and one was contradicted, :data:`NOT_SETTLED`
    when every measured check straddles, :data:`NOT_MEASURED_HERE` when none was measured."""
    measured = [o for o in outcomes if o != NOT_MEASURED_HERE]
    if not measured:
        return NOT_MEASURED_HERE
    if all(o == REPRODUCED for o in outcomes):
        return REPRODUCED
    if REPRODUCED in measured:
        return PARTLY
    if CONTRADICTED in measured:
        return CONTRADICTED
    return NOT_SETTLED
