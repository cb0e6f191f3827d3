"""Noise recorded per run (issue 30): the timeline's drift and steady state
(islands.measure.run_noise), steal time, and ``islands system``'s suggestions on made-up
machine states (islands.measure.system_state)."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

from islands.measure.run_noise import steady_start, timeline_noise
from islands.measure.system_state import describe_state, free_page_reporting, steal_share, suggestions


def test_a_steady_timeline_is_steady_from_the_start() -> None:
    tps = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1002.0, 998.0, 1001.0, 400.0]  # last: short
    noise = timeline_noise(tps, 0.1)
    assert noise["steady"] is True
    assert noise["steady_from_s"] == 0.0
    assert noise["timeline_cv"] == pytest.approx(0.0065, abs=0.002)
    assert abs(noise["drift"]) < 0.02
    assert noise["steady_tps"] == pytest.approx(1000.1, rel=1e-3)


def test_a_warming_timeline_is_steady_after_its_warm_up() -> None:
    tps = [200.0, 500.0, 800.0] + [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1000.0, 1002.0, 998.0] + [1000.0]
    assert steady_start(tps) == 3
    noise = timeline_noise(tps, 0.1)
    assert noise["steady_from_s"] == pytest.approx(0.3)
    assert noise["steady_tps"] == pytest.approx(1000.0, rel=0.01)
    assert noise["drift"] > 0.5


def test_a_timeline_that_keeps_climbing_never_reached_a_steady_state() -> None:
    tps = [100.0 * (i + 1) for i in range(12)]
    noise = timeline_noise(tps, 0.1)
    assert noise["steady"] is False
    assert math.isnan(noise["steady_from_s"])
    assert noise["steady_tps"] == pytest.approx(850.0)  # from the cap on: 600..1100 (the last is short)
    assert noise["drift"] > 1


def test_too_short_a_timeline_says_nothing() -> None:
    noise = timeline_noise([1000.0, 1000.0, 1000.0], 0.1)
    assert noise["steady"] is None and math.isnan(noise["timeline_cv"])


def test_steal_share_from_proc_stat_ticks() -> None:
    assert steal_share((10, 1000), (60, 2000)) == pytest.approx(0.05)
    assert math.isnan(steal_share(None, (60, 2000)))
    assert math.isnan(steal_share((10, 1000), (10, 1000)))


QUIET = {
    "cpu_governor": "performance",
    "turbo": "off",
    "isolated_cpus": "2-7",
    "steal_share": 0.0,
    "virtualization": "none",
    "other_cpu_share": 0.01,
    "busiest_other_cpu": 0.02,
    "load_avg_1m": 0.1,
    "n_cpus": 8,
    "aslr": "0",
}


def test_a_quiet_machine_needs_no_change() -> None:
    assert suggestions(QUIET) == []
    assert "nothing to change" in describe_state(QUIET)


def test_a_noisy_vm_is_told_what_to_change() -> None:
    noisy = {
        **QUIET,
        "cpu_governor": "powersave",
        "turbo": "on",
        "isolated_cpus": None,
        "steal_share": 0.07,
        "virtualization": "kvm",
        "other_cpu_share": 0.5,
        "top_processes": "cc1plus[12] 95%",
        "load_avg_1m": 6.0,
        "aslr": "2",
    }
    text = "\n".join(suggestions(noisy))
    assert "governor powersave" in text
    assert "turbo boost on" in text
    assert "isolcpus" in text
    assert "stole 7%" in text
    assert "cc1plus[12] 95%" in text
    assert "load average 6.00 on 8 CPUs" in text
    assert "ASLR on" in text
    shown = describe_state({**noisy, "cpu_mhz": math.nan})
    assert "CPU frequency:       not readable now (no cpufreq range)" in shown


def test_the_summary_notes_name_the_noise_of_the_rows() -> None:
    import pandas as pd

    from islands.plots import noise_notes

    rows = pd.DataFrame(
        {
            "noise.timeline_cv": [0.05, 0.30, 0.10],
            "noise.steady": [True, False, None],
            "system.steal_share": [0.0, 0.04, 0.01],
            "system.cpu_mhz": [3000.0, 3000.0, 3000.0],
            "system.cpu_mhz_end": [2990.0, 2400.0, 3000.0],
        }
    )
    notes = noise_notes(rows)
    assert notes[0] == "within-run noise: throughput timeline CV median 10%, max 30% over 3 runs (noise.timeline_cv)"
    assert notes[1] == (
        "1 of 3 runs never steady within the first half of the window (noise.steady = false): "
        "their throughput averages over a transient"
    )
    assert "stole up to 4%" in notes[2]
    assert "2400-3000 MHz" in notes[3]
    assert noise_notes(pd.DataFrame({"throughput_tps": [1.0]})) == []


def test_steady_warmup_measures_from_where_the_timeline_settled() -> None:
    from islands.measure.steady_warmup import measure_from_steady

    tps = [200.0, 500.0, 800.0] + [1000.0] * 8 + [1000.0]
    row = {"throughput_tps": 850.0, "throughput_per_core": 425.0, "timeline": {"interval_s": 0.1, "tps": tps}}
    measure_from_steady(row, warmup_s=0.3)
    assert row["throughput_tps"] == pytest.approx(1000.0)
    assert row["throughput_window_tps"] == 850.0
    assert row["throughput_per_core"] == pytest.approx(500.0)
    noise = row["noise"]
    assert noise["steady"] is True
    assert noise["warmup_end_s"] == pytest.approx(0.6)  # 0.3 s fixed, then 3 intervals until steady
    assert noise["warmup_cap_s"] == pytest.approx(0.8)  # 0.3 s + half of the 11 full intervals (5)
    short = {"throughput_tps": 850.0, "timeline": {"interval_s": 0.1, "tps": [1.0, 2.0]}}
    measure_from_steady(short, warmup_s=0.3)
    assert short["throughput_tps"] == 850.0 and "throughput_window_tps" not in short
    assert short["noise"]["steady"] is None


def test_a_run_that_never_became_steady_is_measured_from_the_cap_and_says_so() -> None:
    import pandas as pd

    from islands.measure.steady_warmup import measure_from_steady
    from islands.plots import noise_notes

    climbing = [100.0 * i for i in range(1, 13)]  # 11 full intervals, still rising
    row = {"throughput_tps": 650.0, "timeline": {"interval_s": 0.1, "tps": climbing}}
    measure_from_steady(row, warmup_s=0.3)
    assert row["noise"]["steady"] is False
    assert row["noise"]["warmup_end_s"] == pytest.approx(0.8) == row["noise"]["warmup_cap_s"]
    assert row["throughput_tps"] == pytest.approx(850.0)  # intervals 5..10, from the cap on
    rows = pd.DataFrame(
        {
            "noise.steady": [True, False],
            "noise.warmup_cap_s": [0.8, row["noise"]["warmup_cap_s"]],
            "throughput_window_tps": [1.0, 650.0],
        }
    )
    assert noise_notes(rows) == [
        "1 of 2 runs never steady within 0.8 s, the warm-up's cap (run.warmup_s + half the window; "
        "noise.steady = false): their throughput is measured from the cap on"
    ]


def test_a_run_summary_says_where_its_warm_up_ended() -> None:
    from islands.execution.run_result import warmup_words

    assert warmup_words({}, 1.0, 0.3) == "over 1.00 s"
    steady = {"steady": True, "warmup_end_s": 0.6, "warmup_cap_s": 0.8}
    assert (
        warmup_words(steady, 1.0, 0.3)
        == "over the last 0.70 s of 1.00 s: steady 0.60 s after the warm-up began (cap 0.80 s)"
    )
    never = {"steady": False, "warmup_end_s": 0.8, "warmup_cap_s": 0.8}
    assert warmup_words(never, 1.0, 0.3) == (
        "over the last 0.50 s of 1.00 s: never steady within 0.8 s, measured from the cap on"
    )
    at_once = {"steady": True, "warmup_end_s": 0.3, "warmup_cap_s": 0.8}
    assert warmup_words(at_once, 1.0, 0.3) == "over 1.00 s: steady from the window's start (warm-up cap 0.80 s)"


def test_sweeps_measure_from_the_steady_state_unless_told_not_to(tmp_path) -> None:
    from islands.experiments.spec import ExperimentSpec, load_spec
    from tiny_spec import TINY

    (tmp_path / "a.toml").write_text(TINY)
    (tmp_path / "b.toml").write_text(TINY.replace("[grid]", "steady_warmup = false\n\n[grid]"))
    default, fixed = load_spec(tmp_path / "a.toml"), load_spec(tmp_path / "b.toml")
    assert default.steady_warmup is True and fixed.steady_warmup is False
    assert ExperimentSpec.from_dict(fixed.to_dict()).steady_warmup is False
    assert default.spec_hash() != fixed.spec_hash()  # measured differently: their rows do not mix


def test_islands_system_shows_the_state_and_what_to_change(cli_here) -> None:
    import json

    text = cli_here("system", "--sample", "0.05")
    assert text.returncode == 0, text.stderr
    for item in ("virtualization:", "CPU governor:", "turbo boost:", "load average:", "steal time:", "isolated:"):
        assert item in text.stdout
    assert "to change:" in text.stdout or "nothing to change" in text.stdout
    as_json = cli_here("system", "--sample", "0", "--json")
    data = json.loads(as_json.stdout)
    assert {"steal_share", "cpu_governor", "turbo", "isolated_cpus", "virtualization"} <= set(data["state"])
    assert "cross-core trip:" in text.stdout
    if len(os.sched_getaffinity(0)) >= 2:  # a real round trip between two CPUs, in ns
        assert 0 < data["state"]["cross_core_round_trip_ns"] < 1e6
    assert isinstance(data["suggestions"], list)
    bad = cli_here("system", "--sample", "-1")
    assert bad.returncode != 0 and "--sample" in bad.stderr


def test_a_run_summary_says_whether_and_where_it_became_steady() -> None:
    from islands.execution.run_result import timeline_lines

    warming = timeline_lines([200.0, 500.0, 800.0] + [1000.0] * 8 + [900.0], 0.1)
    assert warming[0].endswith("(12 intervals); CV 31%, drift +100%")
    assert warming[1] == "steady      from 0.3 s into the window"
    climbing = timeline_lines([100.0 * i for i in range(1, 13)], 0.1)
    assert climbing[1].startswith("steady      never within the first half of the window")
    assert len(timeline_lines([1.0, 2.0, 3.0, 4.0], 0.1)) == 1  # too short to tell: no steady line


def test_the_cross_core_round_trip_needs_two_cpus() -> None:
    from islands.measure.system_state import cross_core_round_trip

    value, why = cross_core_round_trip([0])
    assert math.isnan(value) and why == "one CPU: no pair to measure"


def test_a_figure_caption_says_where_the_warm_up_ended_and_its_cap() -> None:
    import pandas as pd

    from islands.plots._common import run_note

    rows = pd.DataFrame(
        {
            "deployment": ["1ISL"] * 3,
            "via": ["in-process"] * 3,
            "config.workload": ["micro"] * 3,
            "config.driver.warmup_s": [0.3] * 3,
            "config.driver.duration_s": [1.0] * 3,
            "throughput_window_tps": [1.0, 2.0, 3.0],
            "noise.steady": [True, True, False],
            "noise.warmup_end_s": [0.3, 0.5, 0.8],
            "noise.warmup_cap_s": [0.8, 0.8, 0.8],
        }
    )
    note = run_note(rows)
    assert (
        "; warm-up until the throughput was steady (median 0.5 s, cap 0.8 s; 1 never steady within it), "
        "measured from there to the end of 0.3 + 1 s" in note
    ), note
    fixed = run_note(rows.drop(columns=["throughput_window_tps"]))
    assert "; 0.3 s warm-up + 1 s measured" in fixed, fixed


def test_runs_that_change_their_throughput_on_purpose_keep_the_fixed_warm_up(tmp_path) -> None:
    from islands.experiments.spec import load_spec

    text = (Path(__file__).parent.parent / "experiments" / "002-fig10-workload-change.toml").read_text()
    (tmp_path / "live.toml").write_text(text)
    assert load_spec(tmp_path / "live.toml").steady_warmup is False
    (tmp_path / "bad.toml").write_text(text.replace("[run]", "[run]\nsteady_warmup = true", 1))
    with pytest.raises(ValueError, match="run.steady_warmup: a \\[\\[schedule\\]\\] or grid.adaptive"):
        load_spec(tmp_path / "bad.toml")


def _virtio(root: Path, name: str, device: str, features: str, bound: bool = True) -> None:
    d = root / "bus" / "virtio" / "devices" / name
    d.mkdir(parents=True)
    (d / "device").write_text(device + "\n")
    (d / "features").write_text(features.ljust(64, "0") + "\n")
    if bound:
        (d / "driver").mkdir()


def test_free_page_reporting_is_read_from_the_balloons_feature_bit(tmp_path: Path) -> None:
    _virtio(tmp_path, "virtio1", "0x0002", "011001")  # a block device: bit 5 means nothing there
    assert free_page_reporting(tmp_path) == "off"
    _virtio(tmp_path, "virtio0", "0x0005", "011001")  # a balloon, bit 5 (reporting) set
    assert free_page_reporting(tmp_path) == "on"  # no page_reporting module parameter to read
    params = tmp_path / "module" / "page_reporting" / "parameters"
    params.mkdir(parents=True)
    (params / "page_reporting_order").write_text("9\n")
    assert free_page_reporting(tmp_path) == "on (free blocks of 2 MiB and up)"
    (params / "page_reporting_order").write_text("11\n")
    assert free_page_reporting(tmp_path) == "on (free blocks of 8 MiB and up)"


def test_a_balloon_without_reporting_or_driver_reports_nothing(tmp_path: Path) -> None:
    _virtio(tmp_path, "virtio0", "0x0005", "011000")  # the balloon, reporting bit clear
    _virtio(tmp_path, "virtio3", "0x0005", "000001", bound=False)  # offered, but no driver took it
    assert free_page_reporting(tmp_path) == "off"
    assert free_page_reporting(tmp_path / "missing") is None
    assert free_page_reporting(tmp_path / "bus") == "off"  # a sysfs without a virtio bus


def test_free_page_reporting_is_shown_and_advised_on() -> None:
    on = {**QUIET, "free_page_reporting": "on (free blocks of 2 MiB and up)"}
    assert any("free page reporting on" in line for line in suggestions(on))
    assert "free page reporting: on (free blocks of 2 MiB and up)" in describe_state(on)
    off = {**QUIET, "free_page_reporting": "off"}
    assert suggestions(off) == []
    assert "free page reporting: off" in describe_state(off)
