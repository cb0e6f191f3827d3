"""``islands reproduce --report``: the papers' claims as checks whose verdicts rest on the
interval, a budget that skips what does not fit, and one page (Markdown and HTML) the gallery
links. Tiny experiment files and 0.05 s runs: never the full report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from islands.analysis.reproduction import CHECKS, FIRST, FIRST_SPANNING, LAST, Check, run_checks, select
from islands.analysis.statistics import ratio
from islands.analysis.verdicts import (
    CONTRADICTED,
    NOT_MEASURED_HERE,
    NOT_SETTLED,
    PARTLY,
    REPRODUCED,
    expectation_words,
    figure_outcome,
)
from islands.experiments.reproduce import _thin
from islands.figures.catalog import DRAWN

ROOT = Path(__file__).resolve().parent.parent
OUTCOMES = {REPRODUCED, PARTLY, CONTRADICTED, NOT_SETTLED, NOT_MEASURED_HERE}

TINY_FIG11 = """
name = "000-fig11-tiny"
figure = "000-fig11"
[run]
warmup_s = 0.0
duration_s = 0.05
repetitions = 1
[grid]
deployment = ["1", "per-core"]
update = [false]
multisite = [0.0, 1.0]
[micro]
rows_per_txn = 2
rows_per_site = 500
"""


def _outcome(a, b, expect):
    return expectation_words(ratio(a, b), expect).text.split(":", 1)[0]


def test_a_claim_is_reproduced_only_where_its_interval_lies_on_the_paper_s_side():
    high, low = [200.0, 210.0, 205.0], [100.0, 104.0, 98.0]
    assert _outcome(high, low, "higher") == REPRODUCED
    assert _outcome(low, high, "higher") == CONTRADICTED
    assert _outcome(low, high, "lower") == REPRODUCED
    assert _outcome([100.0, 150.0, 70.0], [100.0, 90.0, 130.0], "higher") == NOT_SETTLED  # straddles 1
    assert _outcome([200.0], [100.0], "higher") == NOT_SETTLED  # one run each: no interval
    assert _outcome([], [100.0, 101.0], "higher") == NOT_MEASURED_HERE
    # "flat": the whole interval within ±10%, contradicted wholly outside, else not settled
    assert _outcome([100.0, 101.0, 99.0], [100.0, 100.5, 99.5], "same") == REPRODUCED
    assert _outcome([70.0, 71.0, 69.0], [100.0, 100.5, 99.5], "same") == CONTRADICTED
    assert _outcome([90.0, 101.0, 80.0], [100.0, 100.5, 99.5], "same") == NOT_SETTLED
    words = expectation_words(ratio(high, low), "higher").text
    assert "95% CI" in words
    with pytest.raises(ValueError, match="higher, lower, same"):
        expectation_words(ratio(high, low), "up")


def test_a_figure_is_partly_reproduced_where_some_of_its_checks_were():
    assert figure_outcome([REPRODUCED, REPRODUCED]) == REPRODUCED
    assert figure_outcome([REPRODUCED, CONTRADICTED]) == PARTLY
    assert figure_outcome([REPRODUCED, NOT_MEASURED_HERE]) == PARTLY
    assert figure_outcome([NOT_SETTLED, CONTRADICTED]) == CONTRADICTED
    assert figure_outcome([NOT_SETTLED, NOT_MEASURED_HERE]) == NOT_SETTLED
    assert figure_outcome([NOT_MEASURED_HERE]) == NOT_MEASURED_HERE
    assert figure_outcome([]) == NOT_MEASURED_HERE


def _rows(one_isl: list[float], per_core: list[float], busy: bool = False) -> pd.DataFrame:
    rows = []
    for n, values in ((1, one_isl), (2, per_core)):
        for multisite, scale in ((0.0, 1.0), (1.0, 0.5 if n == 2 else 1.0)):
            for v in values:
                rows.append(
                    {
                        "deployment.n_instances": n,
                        "deployment.n_cpus": 2,
                        "config.micro.update": False,
                        "config.micro.multisite": multisite,
                        "config.micro.rows_per_site": 1000,
                        "throughput_tps": v * scale,
                        "system.busy": busy,
                        "system.steal_share": 0.0,
                    }
                )
    return pd.DataFrame(rows)


def test_checks_read_their_sides_from_the_rows_and_state_a_cause_where_they_miss():
    frame = _rows([100.0, 102.0, 98.0], [200.0, 204.0, 199.0], busy=True)
    assert len(select(frame, (("deployment", "per-core"), ("multisite", LAST)))) == 3
    assert len(select(frame, (("deployment", "1ISL"), ("multisite", FIRST)))) == 3
    outcomes = {o.check.claim: o for o in run_checks("000-fig11", [frame])}
    assert outcomes["per-core best at 0%"].outcome == REPRODUCED
    assert outcomes["per-core best at 0%"].cause == ""
    assert outcomes["1ISL flat"].outcome == REPRODUCED  # 1ISL does not change here
    assert "multisite=1.0" in outcomes["[per-core] falls fastest"].sides
    # the paper's side contradicted: the cause is not guessed, the busy runs are named
    flipped = _rows([200.0, 204.0, 199.0], [100.0, 102.0, 98.0], busy=True)
    o = {o.check.claim: o for o in run_checks("000-fig11", [flipped])}["per-core best at 0%"]
    assert o.outcome == CONTRADICTED
    assert o.cause.startswith("cause not determined") and "6 of 6 runs ran on a busy" in o.cause
    # a side that was not run is not measured, never a number
    one_cpu = frame[frame["deployment.n_instances"] == 1]
    o = {o.check.claim: o for o in run_checks("000-fig11", [one_cpu])}["per-core best at 0%"]
    assert o.outcome == NOT_MEASURED_HERE and o.ratio is None


def test_every_check_names_a_drawn_figure_and_a_known_direction():
    assert {c.figure for c in CHECKS} <= set(DRAWN)
    assert all(isinstance(c, Check) and c.expect in ("higher", "lower", "same") for c in CHECKS)


def test_the_report_s_words_are_on_the_words_page_and_its_modules_word_no_verdict_by_hand():
    from tests.test_verdicts import violations

    page = (ROOT / "docs" / "words.md").read_text()
    for word in (REPRODUCED, PARTLY, CONTRADICTED, NOT_MEASURED_HERE, NOT_SETTLED):
        assert f"**{word}**" in page, word
    for module in ("experiments/report.py", "analysis/reproduction.py", "plots/report_page.py"):
        path = ROOT / "islands" / module
        assert not violations(path.read_text(), module)


def _experiments(tmp_path: Path) -> Path:
    d = tmp_path / "experiments"
    d.mkdir()
    (d / "000-fig11-tiny.toml").write_text(TINY_FIG11)
    return d


def test_the_report_runs_a_tiny_figure_and_writes_the_page_the_gallery_links(cli_here, tmp_path):
    experiments = _experiments(tmp_path)
    results = tmp_path / "results"
    out = cli_here(
        "reproduce",
        "--report",
        "--figures",
        "000-fig11",
        "--experiments",
        str(experiments),
        "--results",
        str(results),
        "--repetitions",
        "2",
        "--no-progress",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    done = json.loads(out.stdout)
    [fig] = done["figures"]
    assert fig["figure"] == "000-fig11" and fig["verdict"] in OUTCOMES
    assert {c["claim"] for c in fig["checks"]} == {c.claim for c in CHECKS if c.figure == "000-fig11"}
    for c in fig["checks"]:
        assert c["outcome"] in OUTCOMES
        if c["outcome"] in (REPRODUCED, CONTRADICTED):
            assert "95% CI" in c["words"]
        if c["outcome"] != REPRODUCED:
            assert c["cause"]
    from islands.analysis.store import ResultStore

    rows = ResultStore(results / "000-fig11-tiny-quick").rows()
    assert len(rows) == 2 * 2 * 2  # deployments x multisite x the report's repetitions (the file asks 1)
    md = Path(done["markdown"]).read_text()
    page = Path(done["html"]).read_text()
    assert Path(done["markdown"]).parent == results / "report"
    for text in (md, page):
        assert "000-fig11" in text and "1ISL flat" in text and fig["verdict"] in text
        assert "projected onto the paper" in text  # the model's projection, said to be one
    assert (results / "report" / "000-fig11.png").is_file()
    gallery = cli_here("gallery", str(results))
    assert gallery.returncode == 0, gallery.stderr
    assert "href='../report/index.html'" in (results / "gallery" / "index.html").read_text()


def test_a_figure_that_does_not_fit_the_budget_is_skipped_with_a_line(tmp_path):
    from islands.experiments.report import report

    experiments = _experiments(tmp_path)
    done = report(["000-fig11"], budget_s=0.01, results=tmp_path / "results", experiments=experiments, model=False)
    [fig] = done.figures
    assert fig.verdict == NOT_MEASURED_HERE
    assert "skipped" in fig.line and "estimated" in fig.line and "of the budget are left" in fig.line
    assert not (tmp_path / "results" / "000-fig11-tiny-quick").exists()
    assert done.markdown is not None and "skipped" in done.markdown.read_text()


def test_report_options_need_report(cli_here):
    out = cli_here("reproduce", "000-fig11", "--budget-min", "5")
    assert out.returncode == 2 and "go with --report" in out.stderr
    out = cli_here("reproduce")
    assert out.returncode == 2 and "--report" in out.stderr


def test_a_multisite_claim_about_the_smallest_transactions_reads_the_smallest_that_spans_two_sites():
    # At 1 row a "multisite" transaction is local: Fig 18's smallest-transaction check must read
    # the 2-row points, and a quick run keeps them (first two sizes, then the last).
    frame = pd.DataFrame({"config.micro.rows_per_txn": [1, 1, 2, 2, 100, 100], "throughput_tps": [1.0] * 6})
    assert set(select(frame, (("rows", FIRST_SPANNING),))["config.micro.rows_per_txn"]) == {2}
    assert set(select(frame, (("rows", FIRST),))["config.micro.rows_per_txn"]) == {1}
    smallest = [c for c in CHECKS if c.figure == "000-fig18" and "smallest" in c.claim]
    assert smallest and all(dict(c.a)["rows"] == FIRST_SPANNING == dict(c.b)["rows"] for c in smallest)
    assert _thin((1, 2, 4, 8, 16, 32, 64, 100), "rows_per_txn") == (1, 2, 100)
