"""An advisor that knows what it does not know: intervals on every prediction, a recommendation
refused with its reasons, skew that changes the answer, paper 000's conclusion beside it, and
text that says what the JSON says."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest

from islands.model import ModelWorkload
from islands.model.advisor import REFUSE_ABOVE, _tps, advise
from islands.model.engine_costs import paper_engine
from islands.model.paper_claims import claims_table, comparable_error, paper_topologies
from islands.model.parameters import default_parameters
from model_cases import SYSFS, fixture, hand_parameters

QUAD = fixture("xeon-e7530-4x6")


def _says_the_same(advice) -> None:
    """Every statement of the JSON is in the text."""
    d = json.loads(json.dumps(advice.to_dict()))
    text = advice.describe()
    for value in (d["verdict"], d["why"], *d["refused"], *d["costs"], *d["notes"], d["engine"], d["parameters"]):
        assert value in text, value
    for deployment in d["recommendation"] or []:
        assert deployment in text.split("recommendation:")[1].splitlines()[0]
    if d["recommendation"] is None:
        assert "recommendation: none, refused" in text
    assert d["comparable_error"]["basis"] in text
    assert d["paper_000"]["quote"] in text and d["paper_000"]["agreement"] in text
    for p in d["predictions"]:
        row = next(line for line in text.splitlines() if line.startswith(f"{p['deployment']} "))
        for key in (
            "throughput",
            "low",
            "high",
            *(("simulated", "simulated_low", "simulated_high") if d["ranked_by"] == "simulation" else ()),
        ):
            assert _tps(p[key]) in row, (p["deployment"], key)
        assert p["dominant_cost"] in row
    for key, source in d["sources"].items():
        assert f"source: {key}: {source}" in text


@pytest.mark.parametrize(
    ("engine", "workload"),
    [
        ("paper", ModelWorkload("micro-read", multisite=0.0)),
        ("paper", ModelWorkload("tpcc-payment", multisite=0.15)),
        ("here", ModelWorkload("micro-update", multisite=0.2)),
        ("here", ModelWorkload("micro-read", rows_per_site=100_000)),
    ],
)
def test_text_and_json_say_the_same(engine, workload):
    advice = advise(QUAD, workload, default_parameters(), engine=engine, parameters_from="reference")
    for p in advice.predictions:
        assert p.low <= p.throughput <= p.high
    _says_the_same(advice)


def test_it_refuses_when_comparable_points_are_missed_and_says_why():
    params = hand_parameters(model_error=0.1)
    w = ModelWorkload("micro-read", multisite=0.2)
    trusted = advise(QUAD, w, params, engine="here", validation={"micro-read": (0.08, 12)})
    assert trusted.recommendation and not trusted.refused
    assert trusted.comparable["n"] == 12 and "measured here" in trusted.comparable["basis"]
    missed = advise(QUAD, w, params, engine="here", validation={"micro-read": (0.4, 12)})
    assert missed.recommendation is None and "40%" in missed.refused[0] and f"{REFUSE_ABOVE:.0%}" in missed.refused[0]
    # another workload's points are not comparable: the parameters' stated error stands in
    other = advise(QUAD, w, params, engine="here", validation={"tpcb": (0.4, 12)})
    assert other.comparable["n"] == 0 and "stated error" in other.comparable["basis"] and not other.refused


def test_the_paper_engine_refuses_exactly_where_it_misses_the_papers_numbers():
    table = claims_table(paper_engine(), paper_topologies())
    for kind, share in (("micro-read", 0.2), ("tpcb", 0.15), ("tpcc-payment", 0.15)):
        error, n, _ = comparable_error(table, kind)
        advice = advise(QUAD, ModelWorkload(kind, multisite=share), default_parameters(), engine="paper")
        assert advice.comparable["error"] == pytest.approx(error) and advice.comparable["n"] == n
        assert (advice.recommendation is None) == (error > REFUSE_ABOVE), kind


def test_it_refuses_data_beyond_the_cache_resident_size():
    advice = advise(QUAD, ModelWorkload("micro-read", rows_per_site=100_000), hand_parameters(), engine="here")
    assert advice.recommendation is None
    assert any("data size is not in the model" in r for r in advice.refused)
    assert advice.paper["agreement"] == "is refused"


def test_skew_changes_the_answer_by_simulation():
    params = hand_parameters()
    vm4 = fixture("xeon-e7530-4x6")
    uniform = ModelWorkload("micro-read", rows=2, multisite=0.2)
    skewed = dataclasses.replace(uniform, zipf_s=1.5)
    calm = advise(vm4, uniform, params, engine="here", simulated_us=2_000)
    hot = advise(vm4, skewed, params, engine="here", simulated_us=2_000)
    assert not calm.simulated and hot.simulated
    assert all(not p.applies for p in hot.predictions) and all(p.applies for p in calm.predictions)
    assert any("does not apply" in n for p in hot.predictions for n in p.notes)
    by = {p.deployment: p for p in hot.predictions}
    # the closed form would answer as for uniform; the simulation's per-core is about one core's
    # worth (Zipf 1.5 sends ~99% of the transactions to the first instance)
    assert by["24ISL"].throughput == pytest.approx(
        next(p for p in calm.predictions if p.deployment == "24ISL").throughput
    )
    one_core = 1e6 / by["24ISL"].breakdown["execution"]
    assert by["24ISL"].simulated < 0.3 * by["24ISL"].throughput and by["24ISL"].simulated < 1.2 * one_core
    lo, hi = by["24ISL"].simulated_interval
    assert lo <= by["24ISL"].simulated <= hi
    _says_the_same(hot)


def test_paper_000s_conclusions_with_the_paper_engine_on_its_machine():
    params = default_parameters()
    local = advise(QUAD, ModelWorkload("micro-read", multisite=0.0), params, engine="paper")
    # 24ISL ahead, but at 95% with the model's error it cannot tell the coarser ones from it:
    # the paper's choice is in the set, which neither agrees nor differs
    assert local.recommendation is not None and local.recommendation[0] == "24ISL"
    assert local.paper["deployment"] == "24ISL" and local.paper["agreement"].startswith("includes it among")
    heavy = advise(QUAD, ModelWorkload("micro-update", multisite=1.0), params, engine="paper")
    assert heavy.recommendation == ("1ISL", "2ISL") and heavy.paper["deployment"] == "1ISL"
    # the sources of the paper engine's values come with its advice
    assert local.sources and all(local.sources.values())


def test_the_cli_explains_why_the_engines_differ(cli, cli_here):
    args = ("advise", "--workload", "micro-read:multisite=0.2", "--sysfs", str(SYSFS / "xeon-e7530-4x6"))
    here = cli(*args, "--engine", "here", "--json")
    paper = cli(*args, "--engine", "paper", "--json")
    assert here.returncode == paper.returncode == 0, here.stderr + paper.stderr
    h, p = json.loads(here.stdout), json.loads(paper.stdout)
    assert h["engine"] == "islands (here)" and p["engine"] == "Shore-MT (paper 000)"
    # both name both engines' proportions of local to distributed cost on this machine
    for d in (h, p):
        assert any(c.startswith("islands (here): a local micro-read transaction") for c in d["costs"])
        assert any(c.startswith("Shore-MT (paper 000): a local micro-read transaction") for c in d["costs"])
    assert p["sources"] and not h["sources"]
    assert h["best"] != p["best"]
    assert all(not math.isnan(x["low"]) for x in h["predictions"])
    bad = cli_here(*args, "--engine", "silo")  # refused by the parser: in-process
    assert bad.returncode == 2 and "invalid choice: 'silo'" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    missing = cli("advise", "--sysfs", str(SYSFS / "xeon-e7530-4x6"))
    assert missing.returncode == 2 and "--workload" in missing.stderr


def test_points_measured_here_are_the_comparable_points(tmp_path):
    from islands.model import predict
    from islands.model.validation import errors_by_kind, load_points

    vm, params = fixture("vm-1x2"), hand_parameters()
    w = ModelWorkload("micro-read", multisite=0.2)
    exact = predict(vm, "per-core", w, params, samples=1).throughput
    rows = [
        {
            "figure": "000-fig11",
            "deployment": "per-core",
            "workload": dataclasses.asdict(w),
            "transport": "unix",
            "measured": exact * 1.5,
        },
        {
            "figure": "000-fig20",
            "deployment": "per-core",
            "workload": dataclasses.asdict(dataclasses.replace(w, zipf_s=1.0)),
            "transport": "unix",
            "measured": exact,
        },
    ]
    path = tmp_path / "points.json"
    path.write_text(json.dumps(rows))
    errors = errors_by_kind(load_points(str(path)), vm, params)
    # the skewed point is left out: the closed form does not apply to it
    assert errors == {"micro-read": (pytest.approx(1 - 1 / 1.5), 1)}
    advice = advise(QUAD, w, params, engine="here", validation=errors)
    assert advice.recommendation is None and "33%" in advice.refused[0]
    path.write_text("[{}]")
    with pytest.raises(ValueError, match="not a list of measured points"):
        load_points(str(path))
    with pytest.raises(ValueError, match="points file /nonexistent"):
        load_points("/nonexistent/points.json")


WORKLOADS_4X6 = [
    ModelWorkload(kind, multisite=share) for kind in ("micro-read", "micro-update") for share in (0.0, 0.2, 0.5, 1.0)
] + [ModelWorkload("tpcb", multisite=0.15), ModelWorkload("tpcc-payment", multisite=0.15)]


@pytest.mark.parametrize("workload", WORKLOADS_4X6, ids=lambda w: f"{w.kind}-{w.multisite:g}")
def test_a_recommendation_is_a_prefix_of_the_ranking_at_95_percent_with_the_model_error(workload):
    from islands.model.advisor import LEVEL

    advice = advise(QUAD, workload, default_parameters(), engine="paper")
    d = advice.to_dict()
    assert LEVEL == 0.95 and d["level"] == f"95%, with the model's error ({advice.comparable['model_error']:.0%})"
    assert advice.comparable["model_error"] >= 0.25  # the stated error counts even where comparable points say less
    ranked = [p.deployment for p in advice.predictions]
    text = advice.describe()
    if advice.recommendation is None:
        return
    rec = list(advice.recommendation)
    assert rec == ranked[: len(rec)]  # every deployment predicted between two members is one
    if len(rec) > 1:
        assert d["best"] is None and "\nbest:" not in text and "\npredicted highest: " in text
    else:
        assert d["best"] == rec[0] and f"\nbest: {rec[0]}" in text
    paper = advice.paper
    assert paper["agreement"].startswith("differs") == (paper["deployment"] not in rec)


def test_update_20_percent_on_the_4x6_no_longer_differs_over_a_gap_inside_its_error():
    # issue 45: it recommended {1ISL, 2ISL, 3ISL, 24ISL}, left out 4ISL ranked between them, and
    # said it differed from the paper's 4ISL
    advice = advise(QUAD, ModelWorkload("micro-update", multisite=0.2), default_parameters(), engine="paper")
    assert advice.recommendation is not None and "4ISL" in advice.recommendation
    assert not advice.paper["agreement"].startswith("differs")
    assert (
        "1ISL and 2ISL not distinguishable by the model" in advice.verdict
        and "model 95% with its error" in advice.verdict
    )
