"""The model's inputs bounded and its loops finite (issue 48: ``zipf=inf``, ``zipf=60`` and
``rows=20,rows_per_site=10`` hung the simulation's row draw for good)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from islands.model import ModelWorkload
from islands.model.routing import zipf_mass
from islands.model.simulation import simulate_deployment
from islands.model.workload_spec import MAX_ROWS, MAX_ROWS_PER_SITE, MAX_ZIPF_S, parse_workload
from islands.model.zipf_ranks import HEAD, ZipfRanks
from model_cases import fixture

VM = fixture("vm-1x2")


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"zipf_s": math.inf}, "workload zipf: inf is not in"),
        ({"zipf_s": math.nan}, "workload zipf: nan is not in"),
        ({"zipf_s": MAX_ZIPF_S * 6}, "workload zipf: 60.0 is not in"),
        ({"rows": 20, "rows_per_site": 10}, "20 distinct rows per transaction cannot come from a site of 10"),
        ({"rows": MAX_ROWS + 1, "rows_per_site": 10**6}, "workload rows:"),
        ({"rows_per_site": MAX_ROWS_PER_SITE + 1}, "workload rows_per_site:"),
        ({"rows_per_site": 10.5}, "not a whole number"),
    ],
)
def test_a_workload_out_of_range_is_refused(fields, match):
    with pytest.raises(ValueError, match=match):
        ModelWorkload("micro-update", **fields)


def test_a_spec_takes_ascii_finite_numbers_only():
    assert parse_workload("micro-update:rows=12,zipf=1.5e0,multisite=.25") == ModelWorkload(
        "micro-update", rows=12, zipf_s=1.5, multisite=0.25
    )
    for bad in ("rows=\u0663", "rows=1_0", "rows=\uff11", "zipf=inf", "zipf=nan", "zipf=1e999", "multisite=\u0660.5"):
        with pytest.raises(ValueError, match="is not a (whole|finite) number"):
            parse_workload(f"micro-update:{bad}")
    # Other kinds draw one row (two when remote): rows above a small site are not theirs.
    assert parse_workload("tpcb:rows_per_site=1").rows_per_site == 1


@pytest.mark.parametrize("routing", ["home", "worker"])
def test_the_steepest_skew_with_every_row_of_a_site_ends(routing):
    """Every row of the site in each transaction, under the steepest skew the sampler takes:
    the draw redraws, then walks to the free rows, and the simulation ends."""
    w = ModelWorkload("micro-update", rows=500, rows_per_site=500, zipf_s=MAX_ZIPF_S, multisite=0.5)
    result = simulate_deployment(VM, "per-core", w, duration_us=500.0, warmup_us=50.0, routing=routing)
    assert result.events > 0


def test_a_remote_row_on_one_site_is_not_drawn():
    """One CPU, one site: no other site for a remote teller (it once drew a row of site 1)."""
    one = fixture("vm-1x2")
    result = simulate_deployment(
        one, [[one.cpus[0]]], ModelWorkload("tpcb", multisite=1.0, zipf_s=1.0), duration_us=300.0, warmup_us=30.0
    )
    assert result.commits > 0


def test_zipf_ranks_is_the_exact_table_up_to_its_head_and_bounded_past_it():
    rng = np.random.default_rng(3)
    u = rng.random(4096)
    exact = np.cumsum(1.0 / np.arange(1, 1001) ** 1.2)
    exact /= exact[-1]
    assert np.array_equal(ZipfRanks(1000, 1.2).ranks(u), np.minimum(np.searchsorted(exact, u), 999))
    # Past the head: the tail's integral against the exact sum, and draws that reach the tail.
    n = 4 * HEAD
    for s in (0.5, 1.0, 1.5):
        weights = 1.0 / np.arange(1, n + 1) ** s
        edges = [0, HEAD // 2, HEAD, 2 * HEAD, n]
        want = [weights[a:b].sum() / weights.sum() for a, b in zip(edges, edges[1:])]
        assert zipf_mass(n, s, edges) == pytest.approx(want, rel=1e-6)
        ranks = ZipfRanks(n, s).ranks(rng.random(20_000))
        assert ranks.min() >= 0 and ranks.max() < n
        assert np.mean(ranks >= HEAD) == pytest.approx(sum(want[2:]), abs=0.02)
    # A machine's worth of rows (10^8 per site, 192 sites): a table of HEAD entries, not 10^10.
    huge = ZipfRanks(MAX_ROWS_PER_SITE * 192, 1.1)
    assert huge.head_cdf is not None and len(huge.head_cdf) == HEAD
    assert 0.0 < huge.mass_below(MAX_ROWS_PER_SITE) < 1.0
