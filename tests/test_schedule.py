"""Run-time schedules in experiment files (islands/experiments/schedule.py): ``[[schedule]]`` events and
``grid.adaptive``, checked with one-line errors naming the key; points that run beside the
ATraPos controller, their log stored and drawn as 002 Fig 12."""

from __future__ import annotations

import dataclasses
import json
import re
import tomllib
from pathlib import Path

import pytest

import islands
from islands.analysis.store import ResultStore
from islands.atrapos.live import Event
from islands.experiments.reproduce import QUICK_LIVE_DURATION_S, quick_spec
from islands.experiments.schedule import scaled
from islands.experiments.spec import ExperimentSpec
from islands.experiments.sweep import Sweep, load_spec
from islands.plots import render_results

EXPERIMENTS = Path(__file__).resolve().parent.parent / "experiments"
two_cpus = pytest.mark.skipif(len(islands.read_topology().cpus) < 2, reason="needs two online CPUs")

LIVE = """
name = "live"
figure = "002-fig12"
[run]
warmup_s = 0.05
duration_s = 2.0
controller_interval_s = 0.2
[grid]
deployment = ["1"]
transport = ["none"]
adaptive = [true, false]
[micro]
rows_per_txn = 2
rows_per_site = 2000
multisite = 0.5
[engine]
execution = "plp"
[[schedule]]
at_s = 1.5
unpark = 1
[[schedule]]
at_s = 0.4
park = 1
"""


def spec_of(text: str) -> ExperimentSpec:
    return ExperimentSpec.from_dict(tomllib.loads(text), source="live.toml", text=text)


def test_a_schedule_is_parsed_in_file_order_and_its_points_run_live():
    spec = spec_of(LIVE)  # errors name entries by their place in the file; the controller sorts
    assert spec.live and spec.schedule == (Event(1.5, "unpark", (1,)), Event(0.4, "park", (1,)))
    assert spec.live_run({"adaptive": True}).adaptive and not spec.live_run({"adaptive": False}).adaptive
    assert spec.base_config().engine.plp_monitor  # the controller reads the monitor
    back = ExperimentSpec.from_dict(spec.to_dict())
    assert back.schedule == spec.schedule and back.spec_hash() == spec.spec_hash()
    # A file without a schedule keeps its hash: nothing live is written out.
    plain = spec_of(
        LIVE.split("[[schedule]]")[0]
        .replace("adaptive = [true, false]\n", "")
        .replace("controller_interval_s = 0.2\n", "")
    )
    assert not plain.live and "schedule" not in plain.to_dict()
    assert "controller_interval_s" not in plain.to_dict()["run"]


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (("\npark = 1\n", "\npark = 1\nfoo = 2\n"), r"schedule\[1\]\.foo: unknown key"),
        (("at_s = 0.4", "at_s = 2.0"), r"schedule\[1\]\.at_s: 2\.0 is not within the measured window"),
        (("at_s = 0.4", "at_s = -1"), r"schedule\[1\]\.at_s"),
        (("at_s = 0.4", 'at_s = "soon"'), r"schedule\[1\]\.at_s: 'soon' is not a number"),
        (("at_s = 1.5\n", ""), r"schedule\[0\]\.at_s: missing"),
        (("\npark = 1\n", "\npark = 1\nunpark = 1\n"), r"schedule\[1\]: give exactly one event: park, unpark"),
        (("\npark = 1\n", "\nskew = 1\n"), r"schedule\[1\]\.skew: unknown key"),
        (("\npark = 1\n", '\npark = 1\nmix = "standard"\n'), r"schedule\[1\]: give exactly one event"),
        (("\npark = 1\n", '\nmix = "standard"\n'), r"schedule\[1\]\.mix: micro cannot change its draw"),
        (("\npark = 1\n", "\nhot_fraction = 0.2\n"), r"schedule\[1\]\.hot_fraction: micro cannot change"),
        (("\npark = 1\n", "\npark = -1\n"), r"schedule\[1\]\.park: -1 is not a worker"),
        (("\npark = 1\n", "\npark = [1, true]\n"), r"schedule\[1\]\.park"),
        (("adaptive = [true, false]", 'adaptive = ["yes"]'), r"grid\.adaptive: 'yes' is not true or false"),
        (('execution = "plp"', 'execution = "shared_everything"'), r"schedule: runs PLP only"),
        (('execution = "plp"', 'execution = "plp"\nplp_monitor = false'), r"engine.plp_monitor"),
        (("controller_interval_s = 0.2", "controller_interval_s = 0"), r"run\.controller_interval_s"),
        (("[[schedule]]\nat_s = 1.5", '[log]\nmode = "async"\n[[schedule]]\nat_s = 1.5'), r"log: not with a schedule"),
    ],
)
def test_bad_schedules_are_refused_naming_the_key(change, key):
    old, new = change
    assert old in LIVE
    with pytest.raises(ValueError, match=key) as e:
        spec_of(LIVE.replace(old, new, 1))
    assert "\n" not in str(e.value) and str(e.value).startswith("live.toml")


def test_adaptive_runs_only_plp_designs_and_a_lone_interval_is_refused():
    designs = LIVE.replace('deployment = ["1"]', 'design = ["plp", "centralized"]').replace(
        '[engine]\nexecution = "plp"\n', ""
    )
    with pytest.raises(ValueError, match="grid.design 'centralized' is not"):
        spec_of(designs)
    assert spec_of(designs.replace(', "centralized"', "")).live
    static = LIVE.split("[[schedule]]")[0].replace("adaptive = [true, false]\n", "")
    with pytest.raises(ValueError, match=r"run\.controller_interval_s: only with"):
        spec_of(static)


def test_points_differ_by_adaptive_and_workers_are_judged_per_point():
    sweep = Sweep(spec_of(LIVE))
    points = sweep.grid_points
    assert [p.live.adaptive for p in points] == [True, False]
    assert points[0].grid_id != points[1].grid_id and points[0].config == points[1].config
    assert "schedule: unpark 1 at 1.5 s, park 1 at 0.4 s (controller interval from 0.2 s)" in sweep.table()
    with pytest.raises(ValueError, match=r"point .*schedule\[1\]\.workers"):
        Sweep(spec_of(LIVE.replace("\npark = 1\n", "\npark = 4096\n")))


def test_quick_keeps_the_schedule_s_shape():
    spec = load_spec(EXPERIMENTS / "002-fig12-lost-core.toml")
    quick = quick_spec(spec)
    factor = QUICK_LIVE_DURATION_S / spec.duration_s
    assert quick.duration_s == QUICK_LIVE_DURATION_S
    assert quick.schedule == scaled(spec.schedule, factor)
    assert quick.controller_interval_s == pytest.approx(spec.controller_interval_s * factor)
    assert dict(quick.grid)["adaptive"] == (True, False)


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_the_fig12_file_shrunk_runs_stores_the_controller_s_log_and_renders(tmp_path):
    spec = load_spec(EXPERIMENTS / "002-fig12-lost-core.toml")
    quick = quick_spec(spec)
    shrink = 1.5 / quick.duration_s
    small = dataclasses.replace(
        quick,
        duration_s=1.5,
        schedule=scaled(quick.schedule, shrink),
        controller_interval_s=0.2,
        workload_settings={"micro": {**quick.fixed("micro"), "rows_per_site": 5000}},
    )
    outcome = Sweep(small, out=tmp_path / "fig12").run(progress=False)
    assert outcome.ran == 2
    rendered = render_results(tmp_path / "fig12")
    assert rendered.png.is_file() and rendered.png.name == "002-fig12.png"
    assert "ATraPos adaptation after worker 1's core taken away" in rendered.summary
    assert "paper 002: ATraPos adapts within 5 s" in rendered.summary
    assert "ATraPos re-partitioned" in rendered.summary and "s after the core was taken away" in rendered.summary
    rows = ResultStore(tmp_path / "fig12").rows().to_dict(orient="records")
    by_mode = {bool(r["atrapos.adaptive"]): r for r in rows}
    for row in by_mode.values():
        assert row["check_failures"] == "[]"
        assert [e[1] for e in json.loads(row["atrapos.events"])] == ["park"]
        assert len(json.loads(row["timeline.tps"])) >= 10
    assert json.loads(by_mode[False]["atrapos.repartitions"]) == []
    # the adaptive run moved the parked worker's units away after the event
    parked_at = json.loads(by_mode[True]["atrapos.events"])[0][0]
    assert any(r["at_s"] >= parked_at for r in json.loads(by_mode[True]["atrapos.repartitions"]))


# --- workload changes: the mix and the skew (002 Fig 10, 11, 13) ------------------------

CHANGES = """
name = "changes"
figure = "002-fig11"
workload = "tatp"
[run]
warmup_s = 0.05
duration_s = 1.2
controller_interval_s = 0.15
[grid]
deployment = ["1"]
transport = ["none"]
adaptive = [true, false]
[tatp]
subscribers_per_site = 5000
mix = "get_subscriber_data"
[engine]
execution = "plp"
[[schedule]]
at_s = 0.4
hot_fraction = 0.2
hot_share = 0.5
[[schedule]]
at_s = 0.8
mix = "update_subscriber_data"
hot_fraction = 0.0
"""


def test_mix_and_skew_entries_are_parsed_and_written_back():
    spec = ExperimentSpec.from_dict(tomllib.loads(CHANGES), source="changes.toml", text=CHANGES)
    assert spec.schedule == (
        Event(0.4, "skew", settings=(("hot_fraction", 0.2), ("hot_share", 0.5))),
        Event(0.8, "mix", settings=(("mix", "update_subscriber_data"), ("hot_fraction", 0.0))),
    )
    back = ExperimentSpec.from_dict(spec.to_dict())
    assert back.schedule == spec.schedule and back.spec_hash() == spec.spec_hash()
    assert spec.live_run({"adaptive": True}).to_dict()["schedule"][1] == [
        0.8,
        "mix",
        {"mix": "update_subscriber_data", "hot_fraction": 0.0},
    ]
    assert "schedule: skew hot_fraction 0.2, hot_share 0.5 at 0.4 s, mix update_subscriber_data" in Sweep(spec).table()


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (("hot_share = 0.5", "hot_share = 1.5"), r"schedule\[0\]\.hot_share: 1\.5 is not a share in \[0, 1\]"),
        (("hot_fraction = 0.2", "hot_fraction = -0.2"), r"schedule\[0\]\.hot_fraction: -0\.2 is not a share"),
        (("hot_fraction = 0.2", 'hot_fraction = "a lot"'), r"schedule\[0\]\.hot_fraction"),
        (('mix = "update_subscriber_data"', "mix = 3"), r"schedule\[1\]\.mix: 3 is not a mix"),
        # the engine's own parser judges the mix when the file loads
        (('mix = "update_subscriber_data"', 'mix = "update_everything"'), r"schedule\[1\]\.mix: .*tatp\.mix"),
        (('mix = "update_subscriber_data"', 'mix = "get_subscriber_data:50"'), r"schedule\[1\]\.mix: .*100"),
    ],
)
def test_bad_changes_are_refused_naming_the_entry(change, key):
    old, new = change
    assert old in CHANGES
    with pytest.raises(ValueError, match=key) as e:
        text = CHANGES.replace(old, new, 1)
        ExperimentSpec.from_dict(tomllib.loads(text), source="changes.toml", text=text)
    assert "\n" not in str(e.value) and str(e.value).startswith("changes.toml")


@pytest.mark.parametrize("name", ["002-fig10-workload-change", "002-fig11-skew", "002-fig13-alternating"])
def test_the_change_files_load_and_keep_their_shape_quick(name):
    spec = load_spec(EXPERIMENTS / f"{name}.toml")
    assert spec.live and spec.workload == "tatp" and dict(spec.grid)["adaptive"] == (True, False)
    assert all(e.kind in ("mix", "skew") for e in spec.schedule)
    quick = quick_spec(spec)
    assert quick.schedule == scaled(spec.schedule, QUICK_LIVE_DURATION_S / spec.duration_s)


@two_cpus
@pytest.mark.usefixtures("private_run_root")
def test_a_skew_and_mix_schedule_runs_stores_its_log_and_renders_fig11(tmp_path):
    spec = ExperimentSpec.from_dict(tomllib.loads(CHANGES), source="changes.toml", text=CHANGES)
    outcome = Sweep(spec, out=tmp_path / "fig11").run(progress=False)
    assert outcome.ran == 2
    rows = ResultStore(tmp_path / "fig11").rows().to_dict(orient="records")
    for row in rows:
        assert row["check_failures"] == "[]"
        events = json.loads(row["atrapos.events"])
        assert [e[1] for e in events] == ["skew", "mix"]
        assert events[0][2] == {"hot_fraction": 0.2, "hot_share": 0.5}
        assert all(len(i) == 6 for i in json.loads(row["atrapos.intervals"]))
        shares = json.loads(row["atrapos.cpu_shares"])  # per interval, each worker's CPU share
        assert len(shares) == len(json.loads(row["atrapos.intervals"])) and all(len(c) == 2 for c in shares)
    rendered = render_results(tmp_path / "fig11")
    assert rendered.png.is_file() and rendered.png.name == "002-fig11.png"
    # at the time the skew really came: 0.4 s as scheduled, later on a busy machine (as the rows say)
    said = re.search(r"ATraPos adaptation after skew: 50% of requests to 20% of data at (\d+\.\d+) s", rendered.summary)
    came = [json.loads(row["atrapos.events"])[0][0] for row in rows]
    assert said and 0.4 <= float(said.group(1)) <= max(came) + 0.01, (said, came)
    assert "one PLP instance of 2 workers, one per core" in rendered.summary
