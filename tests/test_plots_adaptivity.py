"""002 Fig 12 drawn from stored rows (islands/plots/adaptivity.py): the adaptive and static
runs' timelines, the controller's log, refusals naming what is missing."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from islands.plots.adaptivity import POINTS, plot_adaptivity
from islands.plots.figure_rules import figure_words


def row(adaptive, tps, events=((3.0, "park", [1]),), repartitions=(3.4,), repetition=0):
    return {
        "timeline.tps": json.dumps(list(tps)),
        "timeline.interval_s": 0.1,
        "atrapos.adaptive": adaptive,
        "atrapos.events": json.dumps([list(e) for e in events]),
        "atrapos.repartitions": json.dumps([{"at_s": at, "units_moved": 10} for at in repartitions]),
        "repetition": repetition,
    }


# 12 s per 0.1 s: 1 M before the core goes at 3 s, nothing for 0.5 s, then 2 M (adaptive) or 10 K
ADAPTIVE = [1e6] * 30 + [0.0] * 5 + [2e6] * 85
STATIC = [1e6] * 30 + [1e4] * 90


def test_both_runs_are_drawn_in_bins_with_the_adaptation_time():
    d = plot_adaptivity(pd.DataFrame([row(True, ADAPTIVE), row(False, STATIC, repartitions=())]), "002-fig12")
    assert d.stem == "002-fig12"
    lines = d.figure.axes[0].get_lines()
    assert len(lines[0].get_xdata()) == POINTS  # 120 counts of 0.1 s in bins of 0.4 s
    assert "throughput per 0.4 s" in d.summary
    # the bin [2.8, 3.2) mixes both phases; from 3.6 s on every bin is the new 2 M
    assert (
        "ATraPos adaptation after worker 1's core taken away at 3 s: reproduced (0.6 s; "
        "paper 002: ATraPos adapts within 5 s, tolerance ≤ 5 s)" in d.summary
    )
    assert "ATraPos re-partitioned 0.40 s after the core was taken away" in d.summary
    assert "static: median txn/s per phase: start 1.00 M, worker 1's core taken away 10.0 K" in d.summary


def test_repetitions_are_the_median_per_interval():
    slow = [x / 2 for x in ADAPTIVE]
    rows = [row(True, ADAPTIVE), row(True, ADAPTIVE[:100], repetition=1), row(True, slow, repetition=2)]
    d = plot_adaptivity(pd.DataFrame([*rows, row(False, STATIC)]), "002-fig12")
    assert "median of 3 repetitions per interval" in d.summary
    assert "ATraPos: median txn/s per phase: start 1.00 M, worker 1's core taken away 2.00 M" in d.summary


@pytest.mark.parametrize(
    ("rows", "why"),
    [
        ([row(True, ADAPTIVE)], "needs both an adaptive and a static run"),
        ([row(True, ADAPTIVE, events=()), row(False, STATIC)], "fired no park event"),
        ([row(True, []), row(False, STATIC)], "ATraPos: a run stored no throughput timeline"),
    ],
)
def test_what_is_missing_is_named(rows, why):
    with pytest.raises(ValueError, match=why):
        plot_adaptivity(pd.DataFrame(rows), "002-fig12")
    with pytest.raises(ValueError, match="atrapos.adaptive"):
        plot_adaptivity(pd.DataFrame(rows).drop(columns=["atrapos.adaptive"]), "002-fig12")


# 12 s per 0.1 s, TATP's mix changed at 4 s and 8 s: adaptive settles 0.5 s after each
MIXES = ((4.0, "mix", {"mix": "get_new_destination"}), (8.0, "mix", {"mix": "standard"}))
WORKLOAD_A = [1e6] * 40 + [0.5e6] * 5 + [2e6] * 35 + [0.5e6] * 5 + [1.5e6] * 35
WORKLOAD_S = [1e6] * 40 + [1.6e6] * 40 + [1.2e6] * 40


def test_fig10_marks_each_mix_change_and_gives_the_adaptation_after_each():
    rows = [
        row(True, WORKLOAD_A, events=MIXES, repartitions=(4.4, 8.4)),
        row(False, WORKLOAD_S, events=MIXES, repartitions=()),
    ]
    frame = pd.DataFrame(rows).assign(**{"tatp.mix": "update_subscriber_data"})
    d = plot_adaptivity(frame, "002-fig10")
    assert d.stem == "002-fig10"
    assert "UpdSubData → GetNewDest → TATP-Mix" in figure_words(d.figure)
    assert "phases of 4, 4, 4 s (paper: 30 s each)" in d.summary
    assert "ATraPos adaptation after GetNewDest at 4 s: reproduced (0.8 s;" in d.summary  # bins of 0.4 s
    assert "ATraPos adaptation after TATP-Mix at 8 s: reproduced (0.8 s;" in d.summary
    assert "ATraPos re-partitioned 0.40 s after the first change" in d.summary
    with pytest.raises(ValueError, match="fired no mix event"):
        plot_adaptivity(pd.DataFrame([row(True, WORKLOAD_A), row(False, WORKLOAD_S)]), "002-fig10")


def test_fig11_labels_the_skew_with_its_shares():
    skew = ((4.0, "skew", {"hot_fraction": 0.2, "hot_share": 0.5}),)
    d = plot_adaptivity(pd.DataFrame([row(True, ADAPTIVE, events=skew), row(False, STATIC, events=skew)]), "002-fig11")
    assert d.stem == "002-fig11"
    assert "skew from 4 s of 12 s (paper: 20 s of 60 s)" in d.summary
    assert "adaptation after skew: 50% of requests to 20% of data at 4 s" in d.summary


def test_fig13_draws_the_controller_s_interval_from_its_log():
    intervals = [
        [1.0, 1.0, 1e6, True, False, 1.0],
        [2.0, 1.0, 1e6, False, False, 2.0],
        [4.0, 2.0, 1e6, False, False, 4.0],
        [8.0, 4.0, 1.4e6, True, True, 1.0],
        [9.0, 1.0, 2e6, True, False, 1.0],
        [10.0, 1.0, 2e6, False, False, 2.0],
        [95.0, 85.0, 1e3, True, True, 1.0],  # ended in the engine's stop, past the 12 s window: not drawn
    ]
    adaptive = {**row(True, WORKLOAD_A, events=MIXES, repartitions=(8.0,)), "atrapos.intervals": json.dumps(intervals)}
    static = {**row(False, WORKLOAD_S, events=MIXES, repartitions=()), "atrapos.intervals": json.dumps([])}
    d = plot_adaptivity(pd.DataFrame([adaptive, static]), "002-fig13")
    assert d.stem == "002-fig13" and len(d.figure.axes) == 2
    steps = d.figure.axes[1].get_lines()[0]
    assert list(steps.get_ydata()) == [1.0, 1.0, 2.0, 4.0, 1.0, 1.0, 2.0]  # 1 s doubling, reset after 8 s


def test_the_timeline_is_cut_at_the_configured_window():
    # 12 s configured; the measured window also held 0.8 s of the engine's stop (no commits)
    rows = [
        {**row(True, ADAPTIVE + [0.0] * 8), "config.driver.duration_s": 12.0},
        {**row(False, STATIC + [0.0] * 8), "config.driver.duration_s": 12.0},
    ]
    d = plot_adaptivity(pd.DataFrame(rows), "002-fig12")
    assert len(d.figure.axes[0].get_lines()[0].get_xdata()) == POINTS
    assert "the core goes at 3 s of 12 s" in d.summary
    assert "ATraPos adaptation after worker 1's core taken away at 3 s: reproduced (0.6 s;" in d.summary
